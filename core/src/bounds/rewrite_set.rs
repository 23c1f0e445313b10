//! The rewrite-set bound: the first (and the last) of a set of large rewrites, the ops that read
//! a storage of at least X bytes and allocate at least X bytes.
//!
//! Any set S of ops gives a bound ([`super::last_of_set`]): some op of S runs before all the
//! others, so the least over x in S of x's cut with the rest of S after it is a bound (and
//! mirrored, the last). These sets are what an SGD step's updates need: each weight W is
//! rewritten by a `mul` (the scaled gradient, |W| bytes read and made) and a `sub` (the new
//! weight, a graph output, docs/design.md §1), and each such pair needs 2|W| on top of every
//! weight. The cut of one update may wait for the others, and so for the end of the backward
//! pass, holding what their gradients are made from; the first update of the large weights
//! cannot: every other large weight's gradient is still to come, its inputs held (or it is
//! made and held, which is more). torch-train-vit_b_16: X = 7 MB, 72 ops (the fc and qkv
//! weights' `mul`s and `sub`s), 384.1 → 391.3 MB, the plan's peak.
//!
//! Which X: the distinct values of min(largest storage read, bytes allocated) over the ops,
//! largest first, the first [`THRESHOLDS`] of them that make a set of two ops or more.

use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::OpIx;

use super::cut::CutNetwork;
use super::last_of_set::{last_of_set_bound, End, LastOfSet, OpSet};

/// How many thresholds X are tried.
const THRESHOLDS: usize = 16;

/// The rewrite sets of `g`: for each threshold X, the ops that read a storage of at least X
/// bytes and allocate at least X, first and last of the set; sets of two ops or more, without
/// repeats.
pub fn rewrite_sets(g: &Graph) -> Vec<OpSet> {
    let n = g.num_ops() as OpIx;
    let weight: Vec<u64> = (0..n)
        .map(|v| {
            let read = g.reads(v).iter().map(|&t| g.size(t)).max().unwrap_or(0);
            read.min(g.alloc(v))
        })
        .collect();
    let mut xs: Vec<u64> = weight.iter().copied().filter(|&w| w > 0).collect();
    // Integers, largest first: a compact sort gives std's result with less wasm code.
    xs.sort_by_compact(|a, b| b.cmp(a));
    xs.dedup();
    let mut sets: Vec<OpSet> = Vec::new();
    let mut last_len = 0;
    for x in xs {
        let ops: Vec<OpIx> = (0..n).filter(|&v| weight[v as usize] >= x).collect();
        if ops.len() < 2 || ops.len() == last_len {
            continue;
        }
        last_len = ops.len();
        sets.push(OpSet {
            end: End::First,
            ops: ops.clone(),
        });
        sets.push(OpSet {
            end: End::Last,
            ops,
        });
        if sets.len() >= 2 * THRESHOLDS {
            break;
        }
    }
    sets
}

/// The largest rewrite-set bound and `floor` (see [`last_of_set_bound`]: `orders` bound the
/// sets from above, `cap` is the best known peak, `stop()` is read before each flow).
pub fn rewrite_set_bound(
    g: &Graph,
    orders: &[&[OpIx]],
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
) -> LastOfSet {
    let net = CutNetwork::new(g, &[]);
    let sets = rewrite_sets(g);
    if sets.is_empty() || orders.is_empty() || floor >= cap {
        return LastOfSet {
            bytes: floor,
            by: None,
            complete: true,
            flows: 0,
            hint: None,
        };
    }
    last_of_set_bound(g, &net, &sets, orders, floor, cap, stop)
}
