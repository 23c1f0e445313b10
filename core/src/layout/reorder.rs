//! An order search aimed at the buffers that reach the arena's top: when the best layout of an
//! order needs more than its peak, the buffers above the peak are what must move, and moving one
//! of the ops that bound their lifetimes (the producer later, toward its first consumer; the last
//! user earlier, toward its last input) changes which buffers are live together there. Each such
//! move that keeps the order topological and its peak within the limit (re-checked by the
//! simulator) is laid out by the skyline greedy alone (no search: a few milliseconds), and the
//! first move that lowers (arena, bytes × steps above the peak) is kept: hill climbing over
//! orders, after the joint order-and-layout view of MODeL / OLLA (Steiner et al., MLSys 2023),
//! which solve it exactly with an ILP; this is its cheap local form.
//!
//! The caller lays out the order it returns with the full method; the skyline's arena is an
//! upper bound on that layout's arena (`auto` runs the same variants first).

use super::lifetimes::lifetimes;
use super::problem::Problem;
use super::skyline;
use super::stacked;
use crate::budget::Budget;
use crate::graph::Graph;
use crate::simulate::peak_of;
use crate::OpIx;

/// Most ops at the ends of top buffers whose moves one round tries.
const MAX_ENDS: usize = 48;

/// How far the search got: the best order, its peak and its portfolio arena.
#[derive(Clone, Debug)]
pub struct Found {
    /// The best order found (the start when no move helped).
    pub order: Vec<OpIx>,
    /// Its peak (unaligned).
    pub peak: u64,
    /// Its arena by the skyline greedy.
    pub arena: u64,
    /// Orders laid out.
    pub tried: u64,
}

/// One greedy layout: a skyline variant, plain or from a staircase at one end.
type Greedy = (skyline::Variant, Option<stacked::End>);

/// Score of an order: (arena, bytes × steps above the lower bound, peak), lower is better, and
/// the ops at the ends of the buffers above the bound (the highest buffer's first).
struct Eval {
    score: (u64, u128, u64),
    ends: Vec<OpIx>,
    fits: bool,
    /// The greedy layout that scored it.
    by: Greedy,
}

/// Lays `order` out by the skyline greedy's variants alone, plain and from a staircase ([`stacked`];
/// no overlap graph, no search: milliseconds on a thousand buffers) and scores the best; with
/// `only` not empty, by those greedy layouts alone (the one that won for the order a move
/// starts from: a candidate is scored about thirty times faster, and its score is still an
/// upper bound of what the full portfolio gives).
fn evaluate(
    g: &Graph,
    order: &[OpIx],
    align: u64,
    budget: &Budget,
    only: &[Greedy],
) -> Option<Eval> {
    let (bufs, _) = lifetimes(g, order);
    let problem = Problem::new(bufs, align, &|i| format!("buffer #{i}")).ok()?;
    let lb0 = problem.lower_bound();
    let lay = |(v, end): Greedy| match end {
        None => Some(skyline::place(problem.buffers(), v)),
        Some(e) => stacked::place(problem.buffers(), v, e),
    };
    let mut best: Option<((Vec<u64>, u64), Greedy)> = None;
    let all: Vec<Greedy> = match only {
        [_, ..] => only.to_vec(),
        [] => skyline::VARIANTS
            .iter()
            .flat_map(|&v| {
                [
                    (v, None),
                    (v, Some(stacked::End::Last)),
                    (v, Some(stacked::End::First)),
                ]
            })
            .collect(),
    };
    for by in all {
        if let Some(placed) = lay(by) {
            if best.as_ref().map_or(true, |b| placed.1 < b.0 .1) {
                best = Some((placed, by));
            }
        }
        if best.as_ref().is_some_and(|b| b.0 .1 <= lb0) || budget.expired() {
            break;
        }
    }
    // A staircase needs buffers at its end: fall back to the plain variant.
    if best.is_none() {
        if let Some(&(v, _)) = only.first() {
            best = Some((skyline::place(problem.buffers(), v), (v, None)));
        }
    }
    let (best, by) = best?;
    let (offsets, arena) = best;
    let lb = problem.lower_bound();
    let mut top: Vec<(u64, usize)> = Vec::new();
    let mut excess: u128 = 0;
    for (i, b) in problem.buffers().iter().enumerate() {
        let t = offsets[i] + b.size;
        if b.size > 0 && t > lb {
            excess += (t - lb.max(offsets[i])) as u128 * (b.upper - b.lower) as u128;
            top.push((t, i));
        }
    }
    top.sort_unstable_by(|a, b| b.cmp(a));
    let mut ends: Vec<OpIx> = Vec::new();
    for &(_, i) in &top {
        let b = &problem.buffers()[i];
        // Step s (1-based) is while order[s - 1] runs; step 0 is before the first op.
        for step in [b.lower, b.upper - 1] {
            if step >= 1 && step as usize <= order.len() {
                let v = order[step as usize - 1];
                if !ends.contains(&v) {
                    ends.push(v);
                }
            }
        }
        if ends.len() >= MAX_ENDS {
            break;
        }
    }
    Some(Eval {
        score: (arena, excess, peak_of(g, order)),
        ends,
        fits: arena <= lb,
        by,
    })
}

/// The positions op `v` (at `at`) may move to: after its last input's producer, before its first
/// consumer; the ends of that window and the midpoints toward them.
fn targets(g: &Graph, pos: &[usize], v: OpIx, at: usize) -> Vec<usize> {
    let (lo, hi) = window(g, pos, v);
    let mut out = Vec::new();
    for t in [hi, lo, at + (hi.saturating_sub(at)) / 2, lo + (at - lo) / 2] {
        if t != at && t >= lo && t <= hi && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The positions op `v` may move to (`pos`: each op's position): after its last input's
/// producer, before its first consumer.
fn window(g: &Graph, pos: &[usize], v: OpIx) -> (usize, usize) {
    let lo = g
        .preds(v)
        .iter()
        .map(|&p| pos[p as usize] + 1)
        .max()
        .unwrap_or(0);
    let hi = g
        .succs(v)
        .iter()
        .map(|&s| pos[s as usize])
        .min()
        .unwrap_or(pos.len())
        .saturating_sub(1);
    (lo, hi)
}

/// `order` with the op at `from` moved to position `to` (the others keep their order).
fn moved(order: &[OpIx], from: usize, to: usize) -> Vec<OpIx> {
    let mut o = order.to_vec();
    let v = o.remove(from);
    o.insert(to, v);
    o
}

/// Where [`producers_moved`] moves each producer of a pinned buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Toward {
    /// Right after its last input's producer: the buffers it pins are born as early as the
    /// order allows, below what is born later.
    Early,
    /// Right before its first consumer (or at the end): born as late as the order allows.
    Late,
}

/// Whether `v` produces a pinned buffer (a result that lives to the end).
fn pins(g: &Graph, v: OpIx) -> bool {
    g.creates(v).iter().any(|&s| g.pinned(s))
}

/// `order` (topological) with the producers of pinned buffers (the results that live to the
/// end), one after another, moved as far as they go `toward` one end, each move kept only if the
/// order's peak (re-checked by the simulator) stays at most `limit`. Moving one producer at a
/// time changes little where hundreds of results stack above the peak step's temporaries (the
/// workflow DAGs of docs/layout.md); moving all of them changes where the whole stack is born.
pub fn producers_moved(g: &Graph, order: &[OpIx], toward: Toward, limit: u64) -> Vec<OpIx> {
    let mut order = order.to_vec();
    let mut todo: Vec<OpIx> = order.iter().copied().filter(|&v| pins(g, v)).collect();
    if toward == Toward::Late {
        todo.reverse();
    }
    let mut pos = vec![0usize; order.len()];
    for v in todo {
        for (k, &w) in order.iter().enumerate() {
            pos[w as usize] = k;
        }
        let at = pos[v as usize];
        let to = match toward {
            Toward::Early => g
                .preds(v)
                .iter()
                .map(|&p| pos[p as usize] + 1)
                .max()
                .unwrap_or(0),
            Toward::Late => g
                .succs(v)
                .iter()
                .map(|&s| pos[s as usize])
                .min()
                .unwrap_or(order.len())
                .saturating_sub(1),
        };
        if to == at {
            continue;
        }
        let cand = moved(&order, at, to);
        if peak_of(g, &cand) <= limit {
            order = cand;
        }
    }
    order
}

/// Random restarts of the climb ([`search`]) at most.
const KICKS: usize = 64;

/// A xorshift generator (a fixed seed: reproducible orders; the seed must not be 0).
pub struct Rng(pub u64);

impl Rng {
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// `order` with `moves` random ops (half of them from `ends`) each moved to a random place in
/// its window, each move kept only if the peak stays at most `limit`.
pub fn kick(
    g: &Graph,
    order: &[OpIx],
    ends: &[OpIx],
    limit: u64,
    moves: usize,
    rng: &mut Rng,
) -> Vec<OpIx> {
    let mut order = order.to_vec();
    if order.is_empty() {
        return order;
    }
    let mut pos = vec![0usize; order.len()];
    for k in 0..moves * 2 {
        for (i, &w) in order.iter().enumerate() {
            pos[w as usize] = i;
        }
        let v = if k % 2 == 0 && !ends.is_empty() {
            ends[rng.below(ends.len())]
        } else {
            order[rng.below(order.len())]
        };
        let at = pos[v as usize];
        let (lo, hi) = window(g, &pos, v);
        let to = lo + rng.below(hi - lo + 1);
        if to == at {
            continue;
        }
        let cand = moved(&order, at, to);
        if peak_of(g, &cand) <= limit {
            order = cand;
        }
    }
    order
}

/// Hill climbing from `order` (scored `cur`): the moves of the ops at the ends of the top
/// buffers, each scored by the one greedy layout that won for the current order (the first move
/// that lowers the score is kept); when none helps, the current order is scored again by every
/// greedy layout, and the climb goes on if another one wins (a better score, or the same score
/// by another layout), else stops.
fn climb(
    g: &Graph,
    mut order: Vec<OpIx>,
    mut cur: Eval,
    align: u64,
    limit: u64,
    budget: &Budget,
    tried: &mut u64,
) -> (Vec<OpIx>, Eval) {
    let mut rescored = false;
    'climb: while !cur.fits && !budget.expired() {
        let mut pos = vec![0usize; order.len()];
        for (k, &v) in order.iter().enumerate() {
            pos[v as usize] = k;
        }
        for &v in &cur.ends {
            let at = pos[v as usize];
            for to in targets(g, &pos, v, at) {
                if budget.expired() {
                    break 'climb;
                }
                let cand = moved(&order, at, to);
                if peak_of(g, &cand) > limit {
                    continue;
                }
                let Some(e) = evaluate(g, &cand, align, budget, &[cur.by]) else {
                    continue;
                };
                *tried += 1;
                if e.score < cur.score {
                    order = cand;
                    cur = e;
                    rescored = false;
                    continue 'climb;
                }
            }
        }
        if rescored || budget.expired() {
            break;
        }
        // Stalled: which greedy layout wins for this order now?
        match evaluate(g, &order, align, budget, &[]) {
            Some(e) if e.score < cur.score || (e.score == cur.score && e.by != cur.by) => {
                *tried += 1;
                cur = e;
                rescored = true;
            }
            _ => break,
        }
    }
    (order, cur)
}

/// Hill climbing over orders from `start` (topological): moves of the ops at the ends of the
/// buffers above the bound, each kept only if the order's peak stays at most `limit` and its
/// greedy layout scores better, from the best of the start and the start with every producer of
/// a pinned buffer moved early or late ([`producers_moved`]); then random kicks, each followed
/// by the climb. Stops when an order's layout meets its bound, the kicks are done, or the budget
/// ends.
pub fn search(g: &Graph, start: &[OpIx], align: u64, limit: u64, budget: &Budget) -> Found {
    let order = start.to_vec();
    let mut tried = 0;
    let Some(cur) = evaluate(g, &order, align, budget, &[]) else {
        return Found {
            peak: peak_of(g, start),
            arena: 0,
            order,
            tried,
        };
    };
    tried += 1;
    // The start with every producer of a pinned buffer moved early or late, scored by every
    // greedy layout: the climb starts from the best of the three.
    let (mut order, mut cur) = (order, cur);
    for toward in [Toward::Early, Toward::Late] {
        if cur.fits || budget.expired() {
            break;
        }
        let cand = producers_moved(g, start, toward, limit);
        if cand == order {
            continue;
        }
        if let Some(e) = evaluate(g, &cand, align, budget, &[]) {
            tried += 1;
            if e.score < cur.score {
                order = cand;
                cur = e;
            }
        }
    }
    let (mut order, mut cur) = climb(g, order, cur, align, limit, budget, &mut tried);
    // Iterated local search: from the best order, a few random moves within the peak limit
    // (ops at the ends of the top buffers, and any op), then the climb again; the best order
    // reached is kept. A fixed seed: the same orders on every run.
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ start.len() as u64);
    for round in 0..KICKS {
        if cur.fits || budget.expired() || tried >= budget.max_states {
            break;
        }
        let kicked = kick(g, &order, &cur.ends, limit, 1 + round % 4, &mut rng);
        if kicked == order {
            continue;
        }
        let Some(e) = evaluate(g, &kicked, align, budget, &[cur.by]) else {
            continue;
        };
        tried += 1;
        let (o, e) = climb(g, kicked, e, align, limit, budget, &mut tried);
        if e.score < cur.score {
            order = o;
            cur = e;
        }
    }
    Found {
        peak: cur.score.2,
        arena: cur.score.0,
        order,
        tried,
    }
}

/// The orders that move one producer of a pinned buffer (a result living to the end) as early as
/// its inputs allow by at least `min_steps` steps, each within the peak `limit` (re-checked by
/// the simulator): the `k` that move their producer farthest, farthest first. The planner is
/// indifferent to where such a producer runs when the peak is elsewhere, and may leave it long
/// after its inputs (on torch-train-googlenet a parameter update 210 steps late: moved right
/// after its input, the layout goes from 1.0205 to 1.0092 × the peak), which keeps its inputs
/// live across the arena's middle. The greedy layouts that score [`search`]'s moves tie on such a
/// move; the full layout sees it.
pub fn producers_early(
    g: &Graph,
    order: &[OpIx],
    limit: u64,
    k: usize,
    min_steps: usize,
) -> Vec<Vec<OpIx>> {
    let mut pos = vec![0usize; order.len()];
    for (i, &w) in order.iter().enumerate() {
        pos[w as usize] = i;
    }
    let mut moves: Vec<(usize, usize, usize)> = order
        .iter()
        .filter(|&&v| pins(g, v))
        .filter_map(|&v| {
            let at = pos[v as usize];
            let to = window(g, &pos, v).0;
            (to < at && at - to >= min_steps.max(1)).then_some((at - to, at, to))
        })
        .collect();
    moves.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = Vec::new();
    for (_, at, to) in moves {
        if out.len() >= k {
            break;
        }
        let cand = moved(order, at, to);
        if peak_of(g, &cand) <= limit {
            out.push(cand);
        }
    }
    out
}
