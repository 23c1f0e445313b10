//! The skyline greedy ([`super::skyline`]) started from a staircase: the buffers live from the
//! first time (inputs, longest first) or those live to the last time (outputs: a training step's
//! updated weights and gradients, a workflow's result files; earliest born first) stacked at the
//! bottom, one on another, before the greedy fills the rest on top.
//!
//! Such buffers share an end, so their lifetimes nest: stacked longest first, the ones live at
//! any time hold exactly the bottom bytes, with no hole between them. The plain greedy instead
//! takes them one by one as its lowest segment reaches them, and a growing set of outputs born
//! among the temporaries breaks its segments into slivers. Our own construction; every layout
//! is re-checked by the caller.

use super::problem::Buffer;
use super::skyline::{self, Variant};
use crate::sort::CompactSort;

/// Which end the stacked buffers share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Live from the group's first time.
    First,
    /// Live to the group's last time.
    Last,
}

/// The buffers to stack for `end`, in placement order. `None` when no buffer (or every buffer)
/// lives at that end: the plain skyline is that layout.
pub fn stack(bufs: &[Buffer], end: End) -> Option<Vec<u32>> {
    let live: Vec<u32> = (0..bufs.len() as u32)
        .filter(|&i| bufs[i as usize].size > 0)
        .collect();
    let t0 = live.iter().map(|&i| bufs[i as usize].lower).min()?;
    let t1 = live.iter().map(|&i| bufs[i as usize].upper).max()?;
    let mut stack: Vec<u32> = live
        .iter()
        .copied()
        .filter(|&i| match end {
            End::First => bufs[i as usize].lower == t0,
            End::Last => bufs[i as usize].upper == t1,
        })
        .collect();
    if stack.is_empty() || stack.len() == live.len() {
        return None;
    }
    // Longest first (ties: larger first), so each lifetime lies inside the one before it.
    stack.sort_by_key_compact(|&i| {
        let b = &bufs[i as usize];
        (
            std::cmp::Reverse(b.upper - b.lower),
            std::cmp::Reverse(b.size),
            i,
        )
    });
    Some(stack)
}

/// Offsets and height: the buffers [`stack`] chooses for `end` stacked at the bottom, the rest
/// by the skyline `variant` on top. `None` where [`stack`] is.
pub fn place(bufs: &[Buffer], variant: Variant, end: End) -> Option<(Vec<u64>, u64)> {
    let stack = stack(bufs, end)?;
    Some(place_stack(bufs, variant, &stack))
}

/// As [`place`], with a stack from [`stack`].
pub fn place_stack(bufs: &[Buffer], variant: Variant, stack: &[u32]) -> (Vec<u64>, u64) {
    let (pick, reversed, edges) = variant;
    skyline::place_on(
        bufs,
        &skyline::priorities(bufs, pick),
        reversed,
        edges,
        stack,
    )
}
