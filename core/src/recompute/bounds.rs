//! Lower bounds for schedules with recomputation: on every schedule's peak (the least limit),
//! and on the cost a limit forces.

use crate::graph::Graph;
use crate::OpIx;

/// A proven lower bound on the peak of every schedule, however much it recomputes, and the op
/// that forces it (`None` when the start or the end does).
///
/// Whatever a schedule recomputes, while op `v` runs its read storages, its outputs, its
/// workspace and every storage that is never freed (graph inputs the caller owns) are live
/// at once; at the start every graph input is live, and at the end every graph output.
///
/// ```
/// use peakorder::recompute::least_peak_bound;
/// use peakorder::Graph;
/// let g = Graph::from_json(r#"{
///   "tensors": [{"id": "x", "bytes": 10}, {"id": "a", "bytes": 100}, {"id": "b", "bytes": 1}],
///   "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"], "workspace": 5},
///           {"id": "B", "inputs": ["a"], "outputs": ["b"]}],
///   "outputs": ["b"]
/// }"#).unwrap();
/// let (bound, op) = least_peak_bound(&g);
/// assert_eq!(bound, 10 + 100 + 5);
/// assert_eq!(op, Some(g.op_ix("A").unwrap()));
/// ```
pub fn least_peak_bound(g: &Graph) -> (u64, Option<OpIx>) {
    // Storages never freed: graph inputs the caller owns.
    let never_freed: u64 = g
        .input_storages()
        .filter(|&s| g.pinned(s))
        .map(|s| g.size(s))
        .sum();
    let mut best = (g.inputs_bytes(), None);
    let outputs_end = never_freed
        + g.tensors()
            .iter()
            .enumerate()
            .filter(|(s, t)| t.producer.is_some() && t.alias_of.is_none() && g.pinned(*s as u32))
            .map(|(s, _)| g.size(s as u32))
            .sum::<u64>();
    if outputs_end > best.0 {
        best = (outputs_end, None);
    }
    for v in 0..g.num_ops() as OpIx {
        let reads: u64 = g
            .reads(v)
            .iter()
            .filter(|&&s| !(g.pinned(s) && g.tensors()[s as usize].producer.is_none()))
            .map(|&s| g.size(s))
            .sum();
        let during = never_freed + reads + g.alloc(v) + g.workspace(v);
        if during > best.0 {
            best = (during, Some(v));
        }
    }
    best
}

/// A proven lower bound on the cost any schedule within `limit` adds, given a proven lower
/// bound on every order's peak (`order_bound`): when no order fits, some op runs twice, and
/// the cheapest op that may is the least that can cost.
pub fn added_cost_bound(g: &Graph, limit: u64, order_bound: u64) -> f64 {
    if order_bound <= limit {
        return 0.0;
    }
    g.ops()
        .iter()
        .filter(|o| o.recompute)
        .map(|o| o.cost)
        .fold(f64::INFINITY, f64::min)
        .min(f64::MAX)
}
