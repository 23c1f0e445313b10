//! Divide and conquer: an op that every other op must precede or follow (a cut op) splits every
//! order into the same three parts, which the search solves one by one.

use crate::graph::Graph;
use crate::OpIx;

/// Parts larger than this are not searched (a state costs O(ops) to expand, and setting a part
/// up costs O(ops × storages)).
pub const MAX_PART_OPS: usize = 1024;

/// Positions in `order` (a topological order) of its cut ops: ops that every other op precedes
/// or follows. Linear time: the op at position i is a cut when every earlier op has a successor
/// at or before i (so, inductively, reaches it) and every later op a predecessor at or after i.
pub fn cut_positions(g: &Graph, order: &[OpIx]) -> Vec<usize> {
    let n = order.len();
    let mut pos = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    let mut prefix_ok = vec![false; n];
    let mut worst = 0usize; // largest "earliest successor" among ops before i
    for i in 0..n {
        prefix_ok[i] = worst <= i;
        let v = order[i];
        let min_succ = g
            .succs(v)
            .iter()
            .map(|&w| pos[w as usize])
            .min()
            .unwrap_or(usize::MAX);
        worst = worst.max(min_succ);
    }
    let mut cuts = Vec::new();
    // Smallest "latest predecessor" among ops after i (-1 for an op with none: never a cut).
    let mut low = i64::MAX;
    for i in (0..n).rev() {
        if prefix_ok[i] && low >= i as i64 {
            cuts.push(i);
        }
        let v = order[i];
        let max_pred = g.preds(v).iter().map(|&p| pos[p as usize] as i64).max();
        low = low.min(max_pred.unwrap_or(-1));
    }
    cuts.reverse();
    cuts
}

/// The parts of a topological order of `n` ops whose cut ops are at `cuts` (ascending): the runs
/// between cuts, and each cut op as a part of its own, as position ranges in order.
pub(super) fn parts(cuts: &[usize], n: usize) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let mut start = 0;
    for &c in cuts {
        if c > start {
            parts.push((start, c));
        }
        parts.push((c, c + 1));
        start = c + 1;
    }
    if start < n {
        parts.push((start, n));
    }
    parts
}
