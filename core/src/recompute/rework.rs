//! Destroy and repair (a large-neighbourhood step, as LNS solvers take; Shaw, "Using
//! Constraint Programming and Local Search Methods to Solve Vehicle Routing Problems", CP
//! 1998): take every repeated run of one recomputed op out of a found schedule, repair the
//! excess that leaves with [`super::repair`]'s passes (whose hoists can now move a later
//! recomputation up to feed an earlier one), prune, and keep the result when it is cheaper;
//! rounds until none is.
//!
//! Eviction and repair each commit to their choices in the order they meet the excess; a
//! choice made early (a storage's recomputation with its views) can block a cheaper one found
//! later (regnet_y_400mf's training step at 50%: a chain of four made again early in the
//! backward feeds two single recomputations that replace six runs). Every schedule kept is
//! re-checked by the simulator.

use super::prune::prune;
use super::repair::repaired_from;
use super::schedule::{added_cost, check_schedule, checked_schedule_peak};
use crate::budget::Budget;
use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::OpIx;

/// Candidates evaluated exactly per repair, as [`super::repair::plan`].
const TRIALS: usize = 6;

/// Rounds at most (each tries every recomputed op once).
const MAX_ROUNDS: usize = 8;

/// `schedule` (valid, within `limit`) or a cheaper valid schedule within `limit` that the
/// destroy-and-repair rounds found before `budget` ran out.
pub fn rework(g: &Graph, schedule: Vec<OpIx>, limit: u64, budget: &Budget) -> Vec<OpIx> {
    let mut best = schedule;
    let mut best_cost = added_cost(g, &best);
    for _ in 0..MAX_ROUNDS {
        let mut improved = false;
        for v in recomputed(g, &best) {
            if budget.expired() || best_cost == 0.0 {
                return best;
            }
            let start = without_repeats(g, &best, v);
            if check_schedule(g, &start).is_err() {
                continue;
            }
            for depth in 0..=1 {
                let Some(repaired) = repaired_from(g, start.clone(), limit, depth, TRIALS, budget)
                else {
                    continue;
                };
                let stop = || budget.expired();
                let cand = prune(g, repaired, limit, &stop);
                // The simulator is the reference.
                if !checked_schedule_peak(g, &cand).is_ok_and(|p| p <= limit) {
                    continue;
                }
                let cost = added_cost(g, &cand);
                if cost < best_cost {
                    best = cand;
                    best_cost = cost;
                    improved = true;
                    break;
                }
            }
        }
        if !improved {
            break;
        }
    }
    best
}

/// The ops `schedule` runs more than once that make a storage (view-only ops follow them),
/// costliest first, then by their first repeat.
fn recomputed(g: &Graph, schedule: &[OpIx]) -> Vec<OpIx> {
    let mut seen = vec![false; g.num_ops()];
    let mut listed = vec![false; g.num_ops()];
    let mut ops = Vec::new();
    for &v in schedule {
        let i = v as usize;
        if seen[i] && !listed[i] && !g.creates(v).is_empty() {
            listed[i] = true;
            ops.push(v);
        }
        seen[i] = true;
    }
    // Stable: equal costs keep their schedule order.
    ops.sort_by_compact(|&a, &b| {
        g.ops()[b as usize]
            .cost
            .total_cmp(&g.ops()[a as usize].cost)
    });
    ops
}

/// `schedule` without the repeated runs of `v` and of the ops whose outputs are all views of
/// what `v` makes (they only followed its runs).
fn without_repeats(g: &Graph, schedule: &[OpIx], v: OpIx) -> Vec<OpIx> {
    let made = g.creates(v);
    let tensors = g.tensors();
    let follows = |u: OpIx| {
        u == v || {
            let outs = &g.ops()[u as usize].outputs;
            !outs.is_empty()
                && outs.iter().all(|&t| {
                    tensors[t as usize].alias_of.is_some()
                        && made.contains(&tensors[t as usize].root)
                })
        }
    };
    let mut seen = vec![false; g.num_ops()];
    let mut out = Vec::with_capacity(schedule.len());
    for &u in schedule {
        let first = !seen[u as usize];
        seen[u as usize] = true;
        if first || !follows(u) {
            out.push(u);
        }
    }
    out
}
