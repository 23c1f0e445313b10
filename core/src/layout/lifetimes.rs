//! The buffers of a graph run in a given order, with their lifetimes, from the memory model of
//! `docs/design.md` §1 (the walk [`crate::simulate`] does).
//!
//! Time 0 is the start (every graph input live); time `i + 1` is while `order[i]` runs. A storage
//! is live from the time its producer runs (0 for a graph input) to the time its last user runs,
//! or to the end when it is pinned; an output nobody uses lives only while its producer runs. An
//! op's workspace lives only while the op runs. The most bytes live at any time is exactly the
//! simulator's peak, so the order's peak is the layout's lower bound.

use super::problem::Buffer;
use crate::graph::Graph;
use crate::{OpIx, TensorIx};

/// What a buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A storage (its root tensor).
    Storage(TensorIx),
    /// An op's workspace.
    Workspace(OpIx),
}

/// The buffers of positive size of `g` run in `order` (a valid order), each with what it holds.
pub fn lifetimes(g: &Graph, order: &[OpIx]) -> (Vec<Buffer>, Vec<Slot>) {
    let n_t = g.num_tensors();
    let end = order.len() as u64 + 1;
    let mut first = vec![u64::MAX; n_t];
    let mut last = vec![u64::MAX; n_t];
    for s in g.input_storages() {
        first[s as usize] = 0;
    }
    let mut remaining: Vec<u32> = (0..n_t as u32).map(|s| g.users(s).len() as u32).collect();
    let mut bufs = Vec::new();
    let mut slots = Vec::new();
    for (i, &v) in order.iter().enumerate() {
        let t = i as u64 + 1;
        for &s in g.creates(v) {
            first[s as usize] = t;
        }
        if g.workspace(v) > 0 {
            bufs.push(Buffer {
                lower: t,
                upper: t + 1,
                size: g.workspace(v),
            });
            slots.push(Slot::Workspace(v));
        }
        for &s in g.reads(v) {
            remaining[s as usize] -= 1;
            if remaining[s as usize] == 0 && !g.pinned(s) {
                last[s as usize] = t;
            }
        }
        for &s in g.creates(v) {
            if g.users(s).is_empty() && !g.pinned(s) {
                last[s as usize] = t;
            }
        }
    }
    for s in 0..n_t {
        let size = g.size(s as TensorIx);
        if size == 0 || first[s] == u64::MAX {
            continue;
        }
        let upper = if last[s] == u64::MAX {
            end
        } else {
            last[s] + 1
        };
        bufs.push(Buffer {
            lower: first[s],
            upper,
            size,
        });
        slots.push(Slot::Storage(s as TensorIx));
    }
    (bufs, slots)
}
