//! Best fit from the peak: the buffers live at a step of peak live bytes go first, stacked one
//! on another from offset 0 (at that step they all overlap, so best fit puts each on the one
//! before), then the rest by a best-fit rank ([`super::best_fit`]) in the gaps around them.
//!
//! At a peak step every byte below the lower bound is live, so a layout at the bound has no hole
//! there; the greedies fill memory from the bottom in time order or by size and reach the peak
//! step with holes already fixed below it. Stacking that step's buffers first makes it tight by
//! construction, and the order of the stack decides how well the two sides fit around it: by
//! birth (earliest lowest; for the stack-like lifetimes of a training step, where the forward
//! pass's activations born first are used last by the backward pass, the latest dying too), by
//! death, or longest first. Our own construction (the peak-first idea is the one behind
//! MiniMalloc's section-by-section canonical search); every layout is re-checked by the caller.

use super::best_fit::{self, Rank};
use super::overlaps::Overlaps;
use super::problem::Buffer;
use crate::sort::CompactSort;

/// The first and the last step of peak live bytes (equal when there is one): `None` when no
/// buffer has bytes.
pub fn peak_steps(bufs: &[Buffer]) -> Option<(u64, u64)> {
    let mut ev: Vec<(u64, bool, u64)> = Vec::with_capacity(2 * bufs.len());
    for b in bufs.iter().filter(|b| b.size > 0) {
        // Ends before starts at the same time: [lower, upper) is half-open.
        ev.push((b.lower, true, b.size));
        ev.push((b.upper, false, b.size));
    }
    ev.sort_unstable_compact();
    let (mut live, mut peak) = (0u128, 0u128);
    let (mut first, mut last) = (None, None);
    let mut k = 0;
    while k < ev.len() {
        let t = ev[k].0;
        while k < ev.len() && ev[k].0 == t {
            let (_, starts, size) = ev[k];
            if starts {
                live += size as u128;
            } else {
                live -= size as u128;
            }
            k += 1;
        }
        // Live bytes stay at this level until the next event (there is one while any is live).
        let end = ev.get(k).map_or(t, |e| e.0 - 1);
        if live > peak {
            (peak, first, last) = (live, Some(t), Some(end));
        } else if live == peak && live > 0 {
            last = Some(end);
        }
    }
    Some((first?, last?))
}

/// How the buffers live at the peak step are stacked, bottom first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stack {
    /// Earliest born first (ties: latest dying first).
    Birth,
    /// Latest dying first (ties: earliest born first).
    Death,
    /// Longest lifetime first (ties: earliest born first).
    Length,
}

/// Whether `b` holds bytes at step `t`.
fn live_at(b: &Buffer, t: u64) -> bool {
    b.size > 0 && b.lower <= t && t < b.upper
}

/// The buffers live at step `t`, bottom first, by `stack`.
pub fn stack_at(bufs: &[Buffer], t: u64, stack: Stack) -> Vec<u32> {
    let mut first: Vec<u32> = (0..bufs.len() as u32)
        .filter(|&i| live_at(&bufs[i as usize], t))
        .collect();
    first.sort_by_key_compact(|&i| {
        let b = &bufs[i as usize];
        let (l, late) = (b.lower, u64::MAX - b.upper);
        match stack {
            Stack::Birth => (l, late, i),
            Stack::Death => (late, l, i),
            Stack::Length => (u64::MAX - (b.upper - b.lower), l, i),
        }
    });
    first
}

/// The best-fit order: the buffers live at step `t` stacked by `stack`, then the others by
/// `rank`.
pub fn order(bufs: &[Buffer], overlaps: &Overlaps, t: u64, stack: Stack, rank: Rank) -> Vec<u32> {
    let mut first = stack_at(bufs, t, stack);
    first.extend(
        best_fit::ranked(bufs, overlaps, rank)
            .into_iter()
            .filter(|&i| !live_at(&bufs[i as usize], t)),
    );
    first
}

/// Every (step, stack, rank) combination [`super::solve`] tries, the likeliest first: the stack by
/// death with each rank (best on the training steps of docs/layout.md: by size on
/// jax-train-resnet26/50 and swin_t, by conflicts on googlenet), then the other stacks, each at
/// the first and the last peak step.
pub fn candidates(bufs: &[Buffer]) -> Vec<(u64, Stack, Rank)> {
    let Some((a, b)) = peak_steps(bufs) else {
        return Vec::new();
    };
    let steps: Vec<u64> = if a == b { vec![a] } else { vec![a, b] };
    let mut out = Vec::new();
    for stack in [Stack::Death, Stack::Length, Stack::Birth] {
        for rank in [Rank::Size, Rank::Conflicts, Rank::Duration, Rank::Area] {
            for &t in &steps {
                out.push((t, stack, rank));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(lower: u64, upper: u64, size: u64) -> Buffer {
        Buffer { lower, upper, size }
    }

    #[test]
    fn finds_the_peak_steps() {
        // Live bytes by step: 2, 5, 3, 5, 5.
        let bufs = [b(0, 5, 2), b(1, 2, 3), b(2, 3, 1), b(3, 5, 3), b(0, 1, 0)];
        assert_eq!(peak_steps(&bufs), Some((1, 4)));
        assert_eq!(peak_steps(&[b(0, 2, 0)]), None);
    }

    #[test]
    fn stacks_the_peak_step_tight() {
        // Live bytes by step: 3, 5, 4, 4; the buffers of step 1 stacked first, the rest fits
        // around them at the peak.
        let bufs = [b(1, 4, 2), b(0, 2, 3), b(2, 3, 2), b(3, 4, 2)];
        let all: Vec<u32> = (0..bufs.len() as u32).collect();
        let ov = Overlaps::of(&bufs, &all, 100).unwrap();
        let (t, _) = peak_steps(&bufs).unwrap();
        let o = order(&bufs, &ov, t, Stack::Birth, Rank::Size);
        let (off, h) = best_fit::place(&bufs, &ov, &o);
        assert_eq!(crate::layout::check::check(&bufs, &off, h, 1), Ok(()));
        assert_eq!(h, 5);
    }
}
