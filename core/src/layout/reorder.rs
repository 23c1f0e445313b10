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

/// Score of an order: (arena, bytes × steps above the lower bound, peak), lower is better, and
/// the ops at the ends of the buffers above the bound (the highest buffer's first).
struct Eval {
    score: (u64, u128, u64),
    ends: Vec<OpIx>,
    fits: bool,
}

/// Lays `order` out by the skyline greedy's variants alone, plain and from a staircase ([`stacked`];
/// no overlap graph, no search: milliseconds on a thousand buffers) and scores the best.
fn evaluate(g: &Graph, order: &[OpIx], align: u64, budget: &Budget) -> Option<Eval> {
    let (bufs, _) = lifetimes(g, order);
    let problem = Problem::new(bufs, align, &|i| format!("buffer #{i}")).ok()?;
    let lb0 = problem.lower_bound();
    let mut best: Option<(Vec<u64>, u64)> = None;
    'variants: for v in skyline::VARIANTS {
        let tries = [
            Some(skyline::place(problem.buffers(), v)),
            stacked::place(problem.buffers(), v, stacked::End::Last),
            stacked::place(problem.buffers(), v, stacked::End::First),
        ];
        for placed in tries.into_iter().flatten() {
            if best.as_ref().map_or(true, |b| placed.1 < b.1) {
                best = Some(placed);
            }
            if best.as_ref().is_some_and(|b| b.1 <= lb0) || budget.expired() {
                break 'variants;
            }
        }
    }
    let (offsets, arena) = best?;
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
    })
}

/// The positions op `v` (at `at`) may move to: after its last input's producer, before its first
/// consumer; the ends of that window and the midpoints toward them.
fn targets(g: &Graph, pos: &[usize], v: OpIx, at: usize) -> Vec<usize> {
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
    let mut out = Vec::new();
    for t in [hi, lo, at + (hi.saturating_sub(at)) / 2, lo + (at - lo) / 2] {
        if t != at && t >= lo && t <= hi && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// `order` with the op at `from` moved to position `to` (the others keep their order).
fn moved(order: &[OpIx], from: usize, to: usize) -> Vec<OpIx> {
    let mut o = order.to_vec();
    let v = o.remove(from);
    o.insert(to, v);
    o
}

/// Hill climbing over orders from `start` (topological): moves of the ops at the ends of the
/// buffers above the bound, each kept only if the order's peak stays at most `limit` and its
/// portfolio layout scores better. Stops when an order's layout meets its bound, no move helps,
/// or the budget ends.
pub fn search(g: &Graph, start: &[OpIx], align: u64, limit: u64, budget: &Budget) -> Found {
    let mut order = start.to_vec();
    let mut tried = 0;
    let Some(mut cur) = evaluate(g, &order, align, budget) else {
        return Found {
            peak: peak_of(g, start),
            arena: 0,
            order,
            tried,
        };
    };
    tried += 1;
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
                let Some(e) = evaluate(g, &cand, align, budget) else {
                    continue;
                };
                tried += 1;
                if e.score < cur.score {
                    order = cand;
                    cur = e;
                    continue 'climb;
                }
            }
        }
        break;
    }
    Found {
        peak: cur.score.2,
        arena: cur.score.0,
        order,
        tried,
    }
}
