//! Long moves across the peak: whole sets of ops run on the other side of the peak op.
//!
//! In every order the op `v` that reaches the peak needs only its ancestors before it and its
//! descendants after it; everything else may run on either side. Local search
//! ([`super::local_search`]) moves one op at a time within a window of steps, so it cannot
//! carry a job and what follows from it over hundreds of steps: a workflow's image writer
//! that runs early and holds its 7 MB output through the peak (a 2,122-op Montage workflow,
//! 0.14% above its proven optimum) or a cleanup that could free inputs before it. This pass
//! tries exactly those moves, in the spirit of the "move to the other side of the bottleneck"
//! step of bottleneck-driven schedule improvement (e.g. the shifting-bottleneck procedure,
//! Adams, Balas and Zawack, "The shifting bottleneck procedure for job shop scheduling",
//! Management Science 34(3), 1988):
//!
//! - *later*: an op `u` before the peak that is not an ancestor of `v`, with every op after it
//!   and before `v` that depends on it, moves past `v`: just after it, or as late as the ops
//!   that read it allow (their outputs leave the peak);
//! - *earlier*: an op `u` after the peak that is not a descendant of `v`, with every op before
//!   it and after `v` that it depends on, moves before `v`: just before it, or as early as its
//!   inputs allow (the inputs it is the last reader of leave the peak).
//!
//! Both keep the order topological (a descendant of a non-ancestor of `v` is not an ancestor
//! of `v`, and likewise for ancestors of non-descendants). Candidates are ranked by the bytes
//! they would take off the peak step, [`TRIES`] per side are simulated, and a move is kept
//! when it lowers the peak. It repeats from the new peak while the budget lasts.

use crate::budget::Budget;
use crate::graph::Graph;
use crate::simulate::MemState;
use crate::sort::CompactSort;
use crate::OpIx;

/// Moves simulated per side and round, best estimate first.
const TRIES: usize = 16;

/// Most saved simulation states per profile (see [`Profile::saved`]): each is a copy of the
/// per-storage reader counts.
const SAVED_STATES: usize = 32;

/// Where each storage is made and freed in an order, and the first step at the peak.
struct Profile<'g> {
    peak: u64,
    /// Steps at the peak (the start counts as one when it is the peak).
    count: usize,
    /// The first position reaching the peak; `None` when the start memory is the peak.
    at: Option<usize>,
    /// Position of each op in the order.
    pos: Vec<usize>,
    /// Position after which each storage is freed (`usize::MAX`: never).
    freed: Vec<usize>,
    /// Every `every` steps, the simulation's state before that step, with the peak and its
    /// step count before it: a moved order is simulated from the last one before its first
    /// changed step (see [`beats`]).
    saved: Vec<(MemState<'g>, (u64, usize))>,
    every: usize,
    /// For each position, the peak of the steps from it to the end and how many reach it
    /// (one more entry, `(0, 0)`, for the end): a moved order's steps after its changed
    /// stretch are the order's own.
    suffix: Vec<(u64, usize)>,
}

fn profile<'g>(g: &'g Graph, order: &[OpIx]) -> Profile<'g> {
    let mut state = MemState::new(g);
    let mut pos = vec![0; g.num_ops()];
    let mut freed = vec![usize::MAX; g.num_tensors()];
    let (mut peak, mut count, mut at) = (state.live(), 1, None);
    let every = order.len().div_ceil(SAVED_STATES).max(64);
    let mut saved = Vec::new();
    let mut during_at = Vec::with_capacity(order.len());
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
        if i % every == 0 {
            saved.push((state.clone(), (peak, count)));
        }
        let (during, _) = state.run(v);
        during_at.push(during);
        if during > peak {
            (peak, count, at) = (during, 1, Some(i));
        } else if during == peak {
            count += 1;
        }
        for &s in g.reads(v) {
            if state.remaining_users(s) == 0 && !g.pinned(s) {
                freed[s as usize] = i;
            }
        }
        for &s in g.creates(v) {
            if g.users(s).is_empty() && !g.pinned(s) {
                freed[s as usize] = i;
            }
        }
    }
    let mut suffix = vec![(0u64, 0usize); order.len() + 1];
    for i in (0..order.len()).rev() {
        suffix[i] = with_step(suffix[i + 1], during_at[i]);
    }
    Profile {
        peak,
        count,
        at,
        pos,
        freed,
        saved,
        every,
        suffix,
    }
}

/// A peak and its step count with one more step of `during` bytes.
fn with_step((peak, count): (u64, usize), during: u64) -> (u64, usize) {
    match during.cmp(&peak) {
        std::cmp::Ordering::Greater => (during, 1),
        std::cmp::Ordering::Equal => (peak, count + 1),
        std::cmp::Ordering::Less => (peak, count),
    }
}

/// Two stretches' peaks and step counts joined.
fn joined(a: (u64, usize), b: (u64, usize)) -> (u64, usize) {
    match a.0.cmp(&b.0) {
        std::cmp::Ordering::Greater => a,
        std::cmp::Ordering::Equal => (a.0, a.1 + b.1),
        std::cmp::Ordering::Less => b,
    }
}

/// Marks `v` and every op it depends on (`up`) or that depends on it (`!up`).
fn closure(g: &Graph, v: OpIx, up: bool) -> Vec<bool> {
    let mut mark = vec![false; g.num_ops()];
    mark[v as usize] = true;
    let mut stack = vec![v];
    while let Some(w) = stack.pop() {
        let next = if up { g.preds(w) } else { g.succs(w) };
        for &x in next {
            if !mark[x as usize] {
                mark[x as usize] = true;
                stack.push(x);
            }
        }
    }
    mark
}

/// The order with `u` and the ops between it and the peak position `p` that depend on it
/// (the set `M`) moved past `order[p]`: just after it, or (`late`) as late as `M`'s readers
/// allow, just before the first later op that depends on `M`.
/// Also returns the stretch of positions where the two orders differ.
fn moved_later(
    g: &Graph,
    order: &[OpIx],
    pos: &[usize],
    u: OpIx,
    p: usize,
    late: bool,
) -> (Vec<OpIx>, std::ops::Range<usize>) {
    let mut inside = vec![false; g.num_ops()];
    inside[u as usize] = true;
    let from = pos[u as usize];
    let mut moved = vec![u];
    let mut rest = Vec::with_capacity(order.len());
    rest.extend_from_slice(&order[..from]);
    for &w in &order[from + 1..p] {
        if g.preds(w).iter().any(|&x| inside[x as usize]) {
            inside[w as usize] = true;
            moved.push(w);
        } else {
            rest.push(w);
        }
    }
    let after_v = rest.len() + 1;
    rest.extend_from_slice(&order[p..]);
    let at = if late {
        rest[after_v..]
            .iter()
            .position(|&w| g.preds(w).iter().any(|&x| inside[x as usize]))
            .map_or(rest.len(), |j| after_v + j)
    } else {
        after_v
    };
    // From `at` on, `rest` is `order` from `at + |M|` on: the orders agree from there.
    let end = at + moved.len();
    rest.splice(at..at, moved);
    (rest, from..end)
}

/// The order with `u` and the ops between the peak position `p` and it that it depends on
/// (the set `M`) moved before `order[p]`: just before it, or (`early`) as early as `M`'s
/// inputs allow, just after the last earlier op `M` depends on.
/// Also returns the stretch of positions where the two orders differ.
fn moved_earlier(
    g: &Graph,
    order: &[OpIx],
    pos: &[usize],
    u: OpIx,
    p: usize,
    early: bool,
) -> (Vec<OpIx>, std::ops::Range<usize>) {
    let mut inside = vec![false; g.num_ops()];
    inside[u as usize] = true;
    let to = pos[u as usize];
    let mut moved = vec![u];
    let mut stay = Vec::new();
    for &w in order[p + 1..to].iter().rev() {
        if g.succs(w).iter().any(|&x| inside[x as usize]) {
            inside[w as usize] = true;
            moved.push(w);
        } else {
            stay.push(w);
        }
    }
    moved.reverse();
    let mut rest = Vec::with_capacity(order.len());
    rest.extend_from_slice(&order[..=p]);
    rest.extend(stay.iter().rev());
    rest.extend_from_slice(&order[to + 1..]);
    let at = if early {
        rest[..p]
            .iter()
            .rposition(|&w| g.succs(w).iter().any(|&x| inside[x as usize]))
            .map_or(0, |j| j + 1)
    } else {
        p
    };
    rest.splice(at..at, moved);
    // The ops after `u`'s old position keep theirs.
    (rest, at..to + 1)
}

/// Candidate moves at the peak position `p` of `order`, best estimated gain first: the bytes a
/// move takes off step `p` less the bytes it puts on it (the moved op alone; the simulation
/// decides).
fn candidates(g: &Graph, order: &[OpIx], pr: &Profile, p: usize) -> Vec<(bool, OpIx)> {
    let v = order[p];
    let live_at = |s: u32| pr.freed[s as usize] >= p;
    let mut ranked: Vec<(i128, bool, OpIx)> = Vec::new();
    let ancestors = closure(g, v, true);
    for &u in &order[..p] {
        if ancestors[u as usize] {
            continue;
        }
        let gain: u64 = g
            .creates(u)
            .iter()
            .filter(|&&s| live_at(s))
            .map(|&s| g.size(s))
            .sum();
        // Inputs `u` is the last reader of stay live across the peak once it moves after it.
        let loss: u64 = g
            .reads(u)
            .iter()
            .filter(|&&s| pr.freed[s as usize] == pr.pos[u as usize])
            .map(|&s| g.size(s))
            .sum();
        if gain > 0 {
            ranked.push((gain as i128 - loss as i128, true, u));
        }
    }
    let descendants = closure(g, v, false);
    for &u in &order[p + 1..] {
        if descendants[u as usize] {
            continue;
        }
        // Storages live at the peak whose last reader is `u` are freed before it once `u` runs
        // first; its own outputs are then live at the peak.
        let gain: u64 = g
            .reads(u)
            .iter()
            .filter(|&&s| pr.freed[s as usize] == pr.pos[u as usize] && !g.pinned(s))
            .filter(|&&s| {
                g.tensors()[s as usize]
                    .producer
                    .map_or(true, |w| pr.pos[w as usize] < p)
            })
            .map(|&s| g.size(s))
            .sum();
        if gain > 0 {
            ranked.push((gain as i128 - g.alloc(u) as i128, false, u));
        }
    }
    ranked.sort_by_key_compact(|c| std::cmp::Reverse(c.0));
    let mut later = 0;
    let mut earlier = 0;
    ranked
        .into_iter()
        .filter(|&(_, side, _)| {
            let n = if side { &mut later } else { &mut earlier };
            *n += 1;
            *n <= TRIES
        })
        .map(|(_, side, u)| (side, u))
        .collect()
}

/// Whether `order` has a lower peak than `to_beat` (a peak and how many steps reach it), or
/// the same peak at fewer steps. The simulation stops as soon as it cannot: most moves tried
/// fail, and they fail at or before the old peak step (a whole simulation each took most of
/// the pass: 14% of `auto`'s time on jax-train-resnet26 at 1 s).
///
/// `order` agrees with the profiled order `pr` outside the positions `changed`: it is
/// simulated from the last state `pr` saved before them, and the steps after them are `pr`'s
/// own (the same ops have run by then), so only the stretch between costs a simulation.
fn beats(
    order: &[OpIx],
    changed: std::ops::Range<usize>,
    pr: &Profile,
    to_beat: (u64, usize),
) -> bool {
    let k = changed.start / pr.every;
    let (saved, mut so_far) = &pr.saved[k];
    let mut state = saved.clone();
    for &v in &order[k * pr.every..changed.end] {
        if so_far >= to_beat {
            return false;
        }
        so_far = with_step(so_far, state.run(v).0);
    }
    joined(so_far, pr.suffix[changed.end]) < to_beat
}

/// `order` (a topological order of `g`) improved by moves across its peak while `budget`
/// lasts; never higher than `order`. A move is kept when it lowers the peak, or keeps it and
/// lowers the number of steps at the peak (the next move may then lower it).
pub fn defer_across_peak(g: &Graph, order: &[OpIx], budget: &Budget) -> Vec<OpIx> {
    let mut best = order.to_vec();
    if budget.expired() {
        return best;
    }
    let t0 = budget.clock.now_ms();
    let mut pr = profile(g, &best);
    // A round's set-up (below) costs about what this first profile did: several ms on
    // 100,000 ops, unread, so a round starts only with at least that much time left.
    let profile_ms = budget.clock.now_ms() - t0;
    // Moves that failed at the current peak op: while the peak stays at that op they are
    // skipped (a training step's peak op keeps its place over dozens of rounds, each moving
    // one job; retrying the dozens that fail every round took most of the time).
    let mut failed: Vec<(bool, bool, OpIx)> = Vec::new();
    let mut peak_op = None;
    while let Some(p) = pr.at {
        let mut improved = false;
        if peak_op != Some(best[p]) {
            (peak_op, failed) = (Some(best[p]), Vec::new());
        }
        for (later, u) in candidates(g, &best, &pr, p) {
            for far in [false, true] {
                if failed.contains(&(later, far, u)) {
                    continue;
                }
                if budget.expired() {
                    return best;
                }
                let (next, changed) = if later {
                    moved_later(g, &best, &pr.pos, u, p, far)
                } else {
                    moved_earlier(g, &best, &pr.pos, u, p, far)
                };
                if beats(&next, changed, &pr, (pr.peak, pr.count)) {
                    best = next;
                    improved = true;
                    break;
                }
                failed.push((later, far, u));
            }
            if improved {
                // The next round's set-up (a simulation, a closure, the candidates) reads no
                // clock: it starts only while time for it is left.
                if budget.less_left_than(profile_ms) || budget.expired() {
                    return best;
                }
                pr = profile(g, &best);
                break;
            }
        }
        if !improved || budget.expired() {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{Budget, NoClock};
    use crate::simulate::peak_of;

    fn run(g: &Graph, ids: &[&str]) -> Vec<String> {
        let order = g.order_from_ids(ids).unwrap();
        let better = defer_across_peak(g, &order, &Budget::new(&NoClock, None, u64::MAX));
        g.check_order(&better).unwrap();
        assert!(peak_of(g, &better) <= peak_of(g, &order));
        g.op_ids(&better)
    }

    #[test]
    fn a_job_that_need_not_run_before_the_peak_moves_past_it() {
        // `w` writes a 100-byte result nobody reads; `p` makes 1,000 bytes that `q` reduces to
        // one. Run first, `w` holds its result through the peak at `q`.
        let g = Graph::from_json(
            r#"{"tensors": [{"id": "x", "bytes": 1}, {"id": "out_w", "bytes": 100},
                          {"id": "y", "bytes": 1000}, {"id": "z", "bytes": 1}],
                "ops": [{"id": "w", "inputs": ["x"], "outputs": ["out_w"]},
                        {"id": "p", "inputs": ["x"], "outputs": ["y"]},
                        {"id": "q", "inputs": ["y"], "outputs": ["z"]}],
                "outputs": ["out_w", "z"]}"#,
        )
        .unwrap();
        let first = g.order_from_ids(&["w", "p", "q"]).unwrap();
        assert_eq!(peak_of(&g, &first), 1 + 100 + 1000 + 1);
        let better = run(&g, &["w", "p", "q"]);
        assert_eq!(better, ["p", "q", "w"]);
        assert_eq!(
            peak_of(&g, &g.order_from_ids(&better).unwrap()),
            1 + 1000 + 1
        );
    }

    #[test]
    fn a_job_that_frees_inputs_moves_as_early_as_it_may() {
        // `c` is the only reader of a donated 500-byte input: run last, it holds the input
        // through the peak at `q`; just before `q` it is the peak itself, so it goes first.
        let g = Graph::from_json(
            r#"{"tensors": [{"id": "big", "bytes": 500, "donated": true},
                          {"id": "x", "bytes": 1}, {"id": "c_out", "bytes": 1},
                          {"id": "y", "bytes": 1000}, {"id": "z", "bytes": 1}],
                "ops": [{"id": "p", "inputs": ["x"], "outputs": ["y"]},
                        {"id": "q", "inputs": ["y"], "outputs": ["z"]},
                        {"id": "c", "inputs": ["big"], "outputs": ["c_out"]}],
                "outputs": ["c_out", "z"]}"#,
        )
        .unwrap();
        assert_eq!(run(&g, &["p", "q", "c"]), ["c", "p", "q"]);
    }

    #[test]
    fn beats_agrees_with_a_whole_simulation() {
        use crate::generators::{small, Draw, Rng};
        // The peak and the number of steps at it, simulated to the end.
        let score = |g: &Graph, order: &[OpIx]| {
            let mut state = MemState::new(g);
            let mut so_far = (state.live(), 1);
            for &v in order {
                so_far = with_step(so_far, state.run(v).0);
            }
            so_far
        };
        let mut tried = 0;
        for seed in 0..300u64 {
            let mut r = Rng::with_state(seed);
            // Up to 160 ops, so that some moves start past the first saved state.
            let n = 4 + (seed as usize * 7) % 157;
            let g = Graph::from_spec(small::dag(&mut r, n)).unwrap();
            // A random topological order (Kahn's, a random ready op each step).
            let mut left: Vec<usize> = (0..g.num_ops() as OpIx).map(|v| g.preds(v).len()).collect();
            let mut ready: Vec<OpIx> = (0..g.num_ops() as OpIx)
                .filter(|&v| left[v as usize] == 0)
                .collect();
            let mut order = Vec::new();
            while !ready.is_empty() {
                let v = ready.swap_remove(r.below(ready.len() as u64) as usize);
                order.push(v);
                for &w in g.succs(v) {
                    left[w as usize] -= 1;
                    if left[w as usize] == 0 {
                        ready.push(w);
                    }
                }
            }
            let pr = profile(&g, &order);
            assert_eq!(score(&g, &order), (pr.peak, pr.count));
            // Every valid move across a random position p, both ways and both far and near.
            let p = r.below(order.len() as u64) as usize;
            let (up, down) = (closure(&g, order[p], true), closure(&g, order[p], false));
            for (i, &u) in order.iter().enumerate() {
                if i == p || (i < p && up[u as usize]) || (i > p && down[u as usize]) {
                    continue;
                }
                for far in [false, true] {
                    let (next, changed) = if i < p {
                        moved_later(&g, &order, &pr.pos, u, p, far)
                    } else {
                        moved_earlier(&g, &order, &pr.pos, u, p, far)
                    };
                    g.check_order(&next).unwrap();
                    for (k, (a, b)) in order.iter().zip(&next).enumerate() {
                        assert!(
                            changed.contains(&k) || a == b,
                            "differs at {k} outside {changed:?}"
                        );
                    }
                    let (peak, count) = score(&g, &next);
                    for to_beat in [
                        (pr.peak, pr.count),
                        (peak, count),
                        (peak, count + 1),
                        (peak, count.saturating_sub(1)),
                        (peak + 1, 1),
                        (peak.saturating_sub(1), count + 3),
                    ] {
                        assert_eq!(
                            beats(&next, changed.clone(), &pr, to_beat),
                            (peak, count) < to_beat
                        );
                        tried += 1;
                    }
                }
            }
        }
        assert!(tried > 10_000);
    }

    #[test]
    fn an_optimal_order_stays() {
        let g = Graph::from_json(
            r#"{"tensors": [{"id": "x", "bytes": 1}, {"id": "y", "bytes": 10}],
                "ops": [{"id": "a", "inputs": ["x"], "outputs": ["y"]}], "outputs": ["y"]}"#,
        )
        .unwrap();
        assert_eq!(run(&g, &["a"]), ["a"]);
    }
}
