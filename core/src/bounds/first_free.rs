//! The first-free bound: until the first of a set B of (donated) graph inputs is freed, all of
//! B is live. Some input s of B is freed first, right after its last reader x runs, and while
//! x runs every other reader of s has run and all of B is still live. So every order's peak is
//! at least
//! `min over s in B, x reading s of cut(x with the other readers of s before it, B live)`,
//! the cut of [`super::cut`] on a network that counts B as never freed
//! ([`CutNetwork::with_live`]); an x that another reader of s must follow is skipped.
//!
//! The cut alone lets each op pick a downset that frees whatever inputs it likes, each op its
//! own; this bound makes them agree on one moment, the start, which is what workflows whose
//! large inputs are each read by a fan of jobs need (WfCommons 1000genome: whichever job runs
//! first, all the chromosome files are still live). It is the same argument as the last of a
//! set ([`super::last_of_set`]) with S the readers of s, plus what it knows of every other input
//! at that moment.
//!
//! Which B: a larger B counts more bytes but offers more first frees, some of them cheap (a
//! small input whose one reader can run at the start). The sets tried are the largest inputs,
//! the first k of them for k = all, half, a quarter, ... one. Within a set the candidates are
//! taken by a cheap lower bound on their cut, smallest first, each flow capped at the least cut
//! so far; the set ends once the next candidate's cheap bound reaches that least (it is then
//! the set's bound) or the least is at or under the best bound already known (the set cannot
//! beat it).

use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::OpIx;

use super::cases::{free_candidates, frees_another, least_free, live_network, Hint};
use super::cut::CutNetwork;

/// The result of [`first_free_bound`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstFree {
    /// A true lower bound on every order's peak, at least the `floor` passed in.
    pub bytes: u64,
    /// How many of the largest inputs formed the B that gave it (0 when the floor was not
    /// beaten).
    pub inputs: usize,
    /// False when `stop()` ended the scan before every set was tried.
    pub complete: bool,
    /// Maximum flows computed.
    pub flows: usize,
    /// A start for orders: the op of the first set tried (B = all the inputs) whose cut was
    /// the least, and the ops of its minimising downset. An order that runs them first and
    /// then it ([`prefixed`]) frees an input at that cut's cost, often the best start there is.
    pub hint: Option<Hint>,
}

/// `order` (a topological order of `g`) with the hint's downset run first, in `order`'s own
/// sequence, then the hint's op, then the rest in `order`'s sequence: a topological order too,
/// as the downset is closed under predecessors and holds every predecessor of the op.
pub fn prefixed(order: &[OpIx], hint: &Hint) -> Vec<OpIx> {
    let (x, before) = hint;
    let mut out: Vec<OpIx> = order
        .iter()
        .copied()
        .filter(|&v| before[v as usize])
        .collect();
    out.push(*x);
    out.extend(
        order
            .iter()
            .copied()
            .filter(|&v| v != *x && !before[v as usize]),
    );
    out
}

/// The peak of `order` and how many of its steps reach it.
fn peak_and_count(g: &Graph, order: &[OpIx]) -> (u64, usize) {
    let during = super::cut::during_in(g, order);
    let peak = order.iter().map(|&v| during[v as usize]).max().unwrap_or(0);
    let count = order
        .iter()
        .filter(|&&v| during[v as usize] == peak)
        .count();
    (peak, count)
}

/// `order` (a topological order of `g`) repaired at its peak, up to `rounds` times: the op p
/// at the first step at the peak runs right after the least-memory downset of the ops now
/// before it (its cut with every op after it kept after it, [`CutNetwork::during_between`]),
/// the rest of those ops moved just after p ([`prefixed`]); kept while the peak, or the number
/// of steps at it, goes down. The orders the bounds' minimising downsets start
/// ([`prefixed`]) often peak inside that downset, run in the base order's sequence
/// (WfCommons cutandrun: 170.6 MB against the bound's 136.4 MB). `stop()` is read before
/// each flow.
pub fn repaired(
    g: &Graph,
    net: &CutNetwork,
    mut order: Vec<OpIx>,
    rounds: usize,
    stop: &dyn Fn() -> bool,
) -> Vec<OpIx> {
    let mut at = peak_and_count(g, &order);
    for _ in 0..rounds {
        if stop() {
            break;
        }
        let during = super::cut::during_in(g, &order);
        let Some(i) = order.iter().position(|&v| during[v as usize] == at.0) else {
            break;
        };
        let p = order[i];
        // First among the ops now before p; else among all (some op now after p may free
        // what p's step holds).
        let mut moved = None;
        for after in [&order[i + 1..], &[][..]] {
            if stop() {
                break;
            }
            let cut = net.during_between(g, p, &[], after, during[p as usize], stop);
            let Some(before) = cut
                .before
                .filter(|_| cut.finished && cut.bytes < during[p as usize])
            else {
                continue;
            };
            let next = prefixed(&order, &(p, before));
            let now = peak_and_count(g, &next);
            if now < at {
                moved = Some((next, now));
                break;
            }
        }
        let Some(m) = moved else {
            break;
        };
        (order, at) = m;
    }
    order
}

/// The graph inputs a first free can be about: storages live at the start that some op reads
/// and that are freed once read (not pinned), largest first.
pub fn freeable_inputs(g: &Graph) -> Vec<u32> {
    let mut ins: Vec<u32> = g
        .input_storages()
        .filter(|&s| g.size(s) > 0 && !g.pinned(s) && !g.users(s).is_empty())
        .collect();
    ins.sort_by_key_compact(|&s| (std::cmp::Reverse(g.size(s)), s));
    ins
}

/// The first-free bound of `g` with B = the first `k` of `inputs` (from
/// [`freeable_inputs`]): exactly `min over s in B, x reading s` of the cut (or `cap`, when
/// that reaches it), or some value at or under `floor` once the scan finds the set cannot beat
/// it; `None` when `stop()` cut it short. With it, the op of the least cut and its minimising
/// downset (see [`FirstFree::hint`]). `flows` counts the maximum flows.
pub fn first_free_of(
    g: &Graph,
    inputs: &[u32],
    k: usize,
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
    flows: &mut usize,
) -> Option<(u64, Option<Hint>)> {
    let b = &inputs[..k.min(inputs.len())];
    if b.is_empty() {
        return Some((floor, None));
    }
    let (net, live) = live_network(g, &[], b);
    if !net.usable() {
        return Some((floor, None));
    }
    let mut cands = free_candidates(g, g, &net, b, &live, |_| false);
    cands.sort_unstable_compact();
    let (mut seen, mut stack) = (Vec::new(), Vec::new());
    let before_of = |x: OpIx, s: u32, before: &mut Vec<OpIx>| {
        before.extend(g.users(s).iter().copied().filter(|&y| y != x));
        !frees_another(g, x, before, b, &[s], &mut seen, &mut stack)
    };
    let cut = |_: OpIx, _: u32, c: u64, _: u64, _: &mut usize| Some(c);
    least_free(g, &net, &cands, floor, cap, before_of, cut, stop, flows)
}

/// Candidate sizes up to which [`second_free_of`] runs (inputs times their readers).
const SECOND_FREE_WORK: usize = 20_000;

/// The second free, the same argument one step on: let s1 be the first input of B freed (at
/// its last reader x1) and s2 the next (at x2). While x1 runs all of B is live; while x2 runs
/// all of B but s1 is, and every reader of s1 and of s2 but x2 has run. So the peak is at least
/// `min over s1, x1 of max(first(s1, x1), min over s2, x2 of second(s1, s2, x2))`, where
/// `second` is the cut of x2 with those readers before it and B \ {s1} counted live. When x1
/// also reads another input of B, both may be freed at once and only `first` counts. What a
/// fan of splits needs (WfCommons epigenomics: the first split job is cheap, the second one
/// runs while the first one's chunks are still being processed). Returns like
/// [`first_free_of`] (the exact bound, or a value at or under `floor`, capped at `cap`); the
/// bound of B alone (no second free) when B has fewer than two inputs or too many candidates.
pub fn second_free_of(
    g: &Graph,
    inputs: &[u32],
    k: usize,
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
    flows: &mut usize,
) -> Option<u64> {
    let b = &inputs[..k.min(inputs.len())];
    let readers: usize = b.iter().map(|&s| g.users(s).len()).sum();
    if b.len() < 2 || b.len().saturating_mul(readers) > SECOND_FREE_WORK {
        return first_free_of(g, inputs, k, floor, cap, stop, flows).map(|r| r.0);
    }
    let (net, live) = live_network(g, &[], b);
    if !net.usable() {
        return Some(floor);
    }
    // Every first free (s1 at x1), in B's order (no cheap bound), tagged by s1's index in B.
    let mut cands: Vec<(u64, OpIx, usize)> = Vec::new();
    for (i, &s1) in b.iter().enumerate() {
        let r1 = g.users(s1);
        for &x1 in r1 {
            if !g.succs(x1).iter().any(|y| r1.contains(y)) {
                cands.push((0, x1, i));
            }
        }
    }
    // The second-free part of each s1, once computed (capped at the `least` of that time,
    // which only falls, so a capped value still caps).
    let mut second: Vec<Option<u64>> = vec![None; b.len()];
    let (mut seen, mut stack) = (Vec::new(), Vec::new());
    let before_of = |x1: OpIx, i: usize, before: &mut Vec<OpIx>| {
        before.extend(g.users(b[i]).iter().copied().filter(|&y| y != x1));
        !frees_another(g, x1, before, b, &[b[i]], &mut seen, &mut stack)
    };
    let value = |x1: OpIx, i: usize, c: u64, least: u64, flows: &mut usize| {
        if c >= least {
            return Some(c); // infeasible (u64::MAX), or cannot lower the least
        }
        if g.reads(x1).iter().any(|&t| t != b[i] && live[t as usize]) {
            return Some(c); // x1 may free another input of B at once: only the first counts
        }
        if second[i].is_none() {
            second[i] = Some(second_part(g, b, i, least, stop, flows)?);
        }
        Some(c.max(second[i].expect("just computed")))
    };
    least_free(g, &net, &cands, floor, cap, before_of, value, stop, flows).map(|r| r.0)
}

/// `min over s2 in B \ {s1}, x2 reading s2 (not s1)` of x2's cut with every reader of s1 and
/// of s2 but x2 before it, B \ {s1} live; capped at `cap`.
fn second_part(
    g: &Graph,
    b: &[u32],
    i: usize,
    cap: u64,
    stop: &dyn Fn() -> bool,
    flows: &mut usize,
) -> Option<u64> {
    let s1 = b[i];
    let rest: Vec<u32> = b.iter().copied().filter(|&s| s != s1).collect();
    let (net, _) = live_network(g, &[], &rest);
    if !net.usable() {
        return Some(0);
    }
    let r1 = g.users(s1);
    let mut cands: Vec<(u64, OpIx, u32)> = Vec::new();
    for &s2 in &rest {
        let r2 = g.users(s2);
        for &x2 in r2 {
            if r1.contains(&x2) || g.succs(x2).iter().any(|y| r2.contains(y)) {
                continue;
            }
            cands.push((net.constant_during(g, x2), x2, s2));
        }
    }
    cands.sort_unstable_compact();
    let (mut seen, mut stack) = (Vec::new(), Vec::new());
    let before_of = |x2: OpIx, s2: u32, before: &mut Vec<OpIx>| {
        before.extend(r1.iter().copied());
        before.extend(g.users(s2).iter().copied().filter(|&y| y != x2));
        !frees_another(g, x2, before, b, &[s1, s2], &mut seen, &mut stack)
    };
    let cut = |_: OpIx, _: u32, c: u64, _: u64, _: &mut usize| Some(c);
    let (least, _) = least_free(g, &net, &cands, 0, cap, before_of, cut, stop, flows)?;
    // No candidate left (every one skipped) gives no bound: the second free may be at x1.
    Some(if least == cap && cands.is_empty() {
        0
    } else {
        least
    })
}

/// Upper bounds from a known order on the first-free and second-free bounds of B = the first
/// `k` of `inputs`: the memory while the op that first frees an input of B runs (that op's cut
/// is one the bound minimises over, and at most that memory), and the larger of it and the
/// memory at the second free (the same at once when one op frees both). `during`: the memory
/// while each op runs in `order`.
fn free_moments(g: &Graph, order: &[OpIx], during: &[u64], inputs: &[u32], k: usize) -> (u64, u64) {
    let mut left = vec![0u32; g.num_tensors()];
    for &s in &inputs[..k] {
        left[s as usize] = g.users(s).len() as u32;
    }
    let mut first = None;
    for &v in order {
        let mut freed = 0;
        for &t in g.reads(v) {
            if left[t as usize] > 0 {
                left[t as usize] -= 1;
                freed += usize::from(left[t as usize] == 0);
            }
        }
        let d = during[v as usize];
        match (first, freed) {
            (_, 0) => {}
            (None, 1) => first = Some(d),
            (None, _) => return (d, d),
            (Some(f), _) => return (f, d.max(f)),
        }
    }
    // Not freed in the order (it is not one of g): no bound to skip by.
    (u64::MAX, u64::MAX)
}

/// The largest first-free bound over B = the largest k inputs, for k = all of them, half, a
/// quarter, ... one, and `floor`; with the second free for B = all of them. `order`, a
/// topological order of `g`, bounds each of them from above: a set that cannot beat the best
/// so far costs no flow. `cap`: a value no bound needs to exceed (the best known peak).
/// `stop()` is read before each flow; cut short, the best so far is still a true bound.
pub fn first_free_bound(
    g: &Graph,
    order: &[OpIx],
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
) -> FirstFree {
    let inputs = freeable_inputs(g);
    let mut best = FirstFree {
        bytes: floor,
        inputs: 0,
        complete: true,
        flows: 0,
        hint: None,
    };
    let during = super::cut::during_in(g, order);
    let mut k = inputs.len();
    while k > 0 && best.bytes < cap {
        let (up1, up2) = free_moments(g, order, &during, &inputs, k);
        let all = k == inputs.len();
        if up2 <= best.bytes || (!all && up1 <= best.bytes) {
            k /= 2;
            continue;
        }
        let mut b = Some(best.bytes);
        if up1 > best.bytes {
            b = first_free_of(g, &inputs, k, best.bytes, cap, stop, &mut best.flows).map(
                |(b, hint)| {
                    if all {
                        best.hint = hint;
                    }
                    b
                },
            );
        }
        // The second free, on the whole set only, when the first leaves something to prove.
        let b = match b {
            Some(b) if all && b.max(best.bytes) < cap => {
                let floor = b.max(best.bytes);
                second_free_of(g, &inputs, k, floor, cap, stop, &mut best.flows).map(|c| c.max(b))
            }
            b => b,
        };
        match b {
            None => {
                best.complete = false;
                break;
            }
            Some(b) if b > best.bytes => {
                best.bytes = b;
                best.inputs = k;
            }
            Some(_) => {}
        }
        k /= 2;
    }
    best
}
