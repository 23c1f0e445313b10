//! The buffers of a graph run in a given order or schedule, with their lifetimes, from the memory
//! model of `docs/design.md` §1 (the walk [`crate::recompute::simulate_schedule`] does, which on
//! an order is [`crate::simulate()`]'s).
//!
//! Time 0 is the start (every graph input live); time `i + 1` is while `order[i]` runs. A storage
//! is live from the time its producer runs (0 for a graph input) to the time its last user runs,
//! or to the end when it is pinned; an output nobody uses lives only while its producer runs. An
//! op's workspace lives only while the op runs. The most bytes live at any time is exactly the
//! simulator's peak, so the order's peak is the layout's lower bound.
//!
//! In a schedule (an op may run more than once) each run's outputs are a new buffer: an instance
//! of its storage, live from that run to the last use before the producer's next run, as
//! [`crate::recompute::schedule::frees_of`] frees it. Instances of one storage never overlap in
//! time, and each has its own offset; a view follows the instance of its storage it was made
//! from. Each run's workspace is a buffer of its own too. On an order this is the walk above.

use super::problem::Buffer;
use crate::graph::Graph;
use crate::recompute::schedule::frees_of;
use crate::sort::CompactSort;
use crate::{OpIx, TensorIx};

/// What a buffer holds. In a schedule, a storage or an op's workspace may have several buffers
/// (one per run); the buffer's `lower` (the time its run makes it) tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A storage (its root tensor).
    Storage(TensorIx),
    /// An op's workspace.
    Workspace(OpIx),
}

/// The buffers of positive size of `g` run in `schedule` (a valid order, or a valid schedule
/// with repeats), each with what it holds: workspaces in step order, then storages by tensor
/// index and, for a storage made more than once, by time.
pub fn lifetimes(g: &Graph, schedule: &[OpIx]) -> (Vec<Buffer>, Vec<Slot>) {
    let n_t = g.num_tensors();
    let end = schedule.len() as u64 + 1;
    let frees = frees_of(g, schedule);
    // The time the live instance of each storage was made (u64::MAX: none live).
    let mut open = vec![u64::MAX; n_t];
    for s in g.input_storages() {
        open[s as usize] = 0;
    }
    let mut bufs = Vec::new();
    let mut slots = Vec::new();
    // (storage, lower, upper) of every instance, in the order they are freed.
    let mut instances: Vec<(TensorIx, u64, u64)> = Vec::new();
    for (i, &v) in schedule.iter().enumerate() {
        let t = i as u64 + 1;
        for &s in g.creates(v) {
            // The simulator frees an instance before its producer runs again; an instance
            // still open here would be a bug there, kept visible as an overlap for the checks.
            if open[s as usize] != u64::MAX {
                instances.push((s, open[s as usize], t + 1));
            }
            open[s as usize] = t;
        }
        if g.workspace(v) > 0 {
            bufs.push(Buffer {
                lower: t,
                upper: t + 1,
                size: g.workspace(v),
            });
            slots.push(Slot::Workspace(v));
        }
        for &s in frees.after(i) {
            if open[s as usize] != u64::MAX {
                instances.push((s, open[s as usize], t + 1));
                open[s as usize] = u64::MAX;
            }
        }
    }
    for (s, &lower) in open.iter().enumerate() {
        if lower != u64::MAX {
            instances.push((s as TensorIx, lower, end));
        }
    }
    instances.sort_unstable_compact();
    for (s, lower, upper) in instances {
        let size = g.size(s);
        if size == 0 {
            continue;
        }
        bufs.push(Buffer { lower, upper, size });
        slots.push(Slot::Storage(s));
    }
    (bufs, slots)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The doc example of `simulate_schedule`: a -> b -> c, d reads a and c.
    fn chain() -> Graph {
        Graph::from_json(
            r#"{
          "tensors": [{"id": "x", "bytes": 1}, {"id": "a", "bytes": 100}, {"id": "b", "bytes": 10},
                      {"id": "c", "bytes": 10}, {"id": "d", "bytes": 1}],
          "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"]},
                  {"id": "B", "inputs": ["a"], "outputs": ["b"]},
                  {"id": "C", "inputs": ["b"], "outputs": ["c"], "workspace": 100},
                  {"id": "D", "inputs": ["a", "c"], "outputs": ["d"]}],
          "outputs": ["d"]
        }"#,
        )
        .unwrap()
    }

    fn max_live(bufs: &[Buffer], end: u64) -> u64 {
        (0..end)
            .map(|t| {
                bufs.iter()
                    .filter(|b| b.lower <= t && t < b.upper)
                    .map(|b| b.size)
                    .sum()
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn a_recomputed_storage_has_one_buffer_per_run() {
        let g = chain();
        let s = g.schedule_from_ids(&["A", "B", "C", "A", "D"]).unwrap();
        let (bufs, slots) = lifetimes(&g, &s);
        let a = g.tensor_ix("a").unwrap();
        let runs: Vec<Buffer> = bufs
            .iter()
            .zip(&slots)
            .filter(|(_, &sl)| sl == Slot::Storage(a))
            .map(|(b, _)| *b)
            .collect();
        // Made by step 1 and read by step 2; made again by step 4 and read by step 5.
        assert_eq!(
            runs,
            vec![
                Buffer {
                    lower: 1,
                    upper: 3,
                    size: 100
                },
                Buffer {
                    lower: 4,
                    upper: 6,
                    size: 100
                }
            ]
        );
        let peak = crate::recompute::schedule_peak(&g, &s);
        assert_eq!(max_live(&bufs, s.len() as u64 + 1), peak);
    }

    #[test]
    fn on_an_order_the_most_live_is_the_peak() {
        let g = chain();
        let o = g.order_from_ids(&["A", "B", "C", "D"]).unwrap();
        let (bufs, _) = lifetimes(&g, &o);
        assert_eq!(max_live(&bufs, 5), crate::simulate::peak_of(&g, &o));
    }
}
