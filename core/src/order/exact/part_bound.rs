//! The part bound: a lower bound on every order's peak from the cut decomposition of a
//! topological order (the memory while each cut op runs is forced) and the exact search's bound
//! at the start of each part between cuts. Stronger than [`crate::bounds::lower_bound`] and
//! costlier (a part's tables are built for it), so plans compute it within their deadline.

use crate::bounds::lower_bound;
use crate::graph::Graph;
use crate::order::greedy::greedy_order;
use crate::simulate::MemState;
use crate::OpIx;

use super::decompose::{cut_positions, MAX_PART_OPS};
use super::model::Model;

/// Graphs larger than this get only [`lower_bound`] from [`part_lower_bound`].
pub const PART_BOUND_MAX_OPS: usize = 20_000;

/// A true lower bound at least [`lower_bound`]: the crossing bound of
/// [`cut_part_bound`] over the parts of the greedy order between cut ops
/// (parts of up to [`MAX_PART_OPS`] ops), for graphs of up to
/// [`PART_BOUND_MAX_OPS`] ops.
pub fn part_lower_bound(g: &Graph) -> u64 {
    part_lower_bound_until(g, &|| false)
}

/// [`part_lower_bound`], weaker (but still true) when `stop()` turns true before every part's
/// bound is in: a plan computes it after its search, inside the same deadline.
pub fn part_lower_bound_until(g: &Graph, stop: &dyn Fn() -> bool) -> u64 {
    let base = lower_bound(g);
    if g.num_ops() > PART_BOUND_MAX_OPS || stop() {
        return base;
    }
    let order = greedy_order(g);
    base.max(cut_part_bound_until(g, &order, MAX_PART_OPS, stop))
}

/// A lower bound on every order's peak from the cut decomposition of `order` (a topological
/// order): the memory while each cut op runs is forced, and each part between cuts of at most
/// `max_part_ops` ops gets the bound of the search's `h` at its start. See
/// [`part_lower_bound`].
pub fn cut_part_bound(g: &Graph, order: &[OpIx], max_part_ops: usize) -> u64 {
    cut_part_bound_until(g, order, max_part_ops, &|| false)
}

/// [`cut_part_bound`], skipping the remaining parts' crossing bounds once `stop()` is true (a
/// part of [`MAX_PART_OPS`] ops costs tens of milliseconds, and a plan's deadline covers it).
pub fn cut_part_bound_until(
    g: &Graph,
    order: &[OpIx],
    max_part_ops: usize,
    stop: &dyn Fn() -> bool,
) -> u64 {
    let n = order.len();
    let mut state = MemState::new(g);
    let mut live_before = Vec::with_capacity(n);
    let mut during = Vec::with_capacity(n);
    for &v in order {
        live_before.push(state.live());
        during.push(state.run(v).0);
    }
    let mut pos = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    let mut bound = g.inputs_bytes();
    let mut start = 0;
    let cuts = cut_positions(g, order);
    for c in cuts.iter().copied().chain(std::iter::once(n)) {
        if c > start && c - start <= max_part_ops && !stop() {
            // Not set up before `stop()`: this part adds nothing to the bound.
            if let Some(model) = Model::new(g, order, &pos, (start, c), live_before[start], stop) {
                bound = bound.max(model.static_bound());
            }
        }
        if c < n {
            bound = bound.max(during[c]);
        }
        start = c + 1;
    }
    bound
}
