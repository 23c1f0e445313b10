//! Dropping recomputations a schedule does not need: a repeated run is taken out when the
//! schedule stays valid and within the limit without it (its readers then read the earlier
//! instance, which lives longer). Costliest runs are tried first; each trial is re-checked by
//! the schedule simulator, so the result is valid by construction and never costs more.
//!
//! A greedy eviction decides at each step with what it knows then; this pass looks at the
//! whole schedule afterwards, as the repair step of Checkmate's rounding (Jain et al.,
//! "Checkmate: Breaking the Memory Wall with Optimal Tensor Rematerialization", MLSys 2020,
//! §5) keeps only the recomputations its schedule needs.

use super::schedule::{check_schedule, schedule_peak};
use crate::graph::Graph;
use crate::OpIx;

/// `schedule` (valid, within `limit`) with every repeated run it can drop, dropped; stops
/// early when `stop` says so.
pub fn prune(g: &Graph, schedule: Vec<OpIx>, limit: u64, stop: &dyn Fn() -> bool) -> Vec<OpIx> {
    let mut current = schedule;
    // The repeated runs, costliest first (later first among equals: dropping a late run
    // shortens the fewest lifetimes).
    let mut seen = vec![false; g.num_ops()];
    let mut repeats: Vec<usize> = Vec::new();
    for (i, &v) in current.iter().enumerate() {
        if std::mem::replace(&mut seen[v as usize], true) {
            repeats.push(i);
        }
    }
    let cost = |v: OpIx| g.ops()[v as usize].cost;
    repeats.sort_by(|&a, &b| {
        cost(current[b])
            .total_cmp(&cost(current[a]))
            .then(b.cmp(&a))
    });
    // Positions are of the original schedule; `removed` maps them to the current one.
    let mut removed = vec![false; current.len()];
    let original = current.clone();
    let mut trial: Vec<OpIx> = Vec::with_capacity(current.len());
    for (k, &i) in repeats.iter().enumerate() {
        if k % 8 == 0 && stop() {
            break;
        }
        trial.clear();
        trial.extend(
            original
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i && !removed[j])
                .map(|(_, &v)| v),
        );
        if check_schedule(g, &trial).is_ok() && schedule_peak(g, &trial) <= limit {
            removed[i] = true;
            std::mem::swap(&mut current, &mut trial);
        }
    }
    current
}
