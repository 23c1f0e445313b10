//! Greedy best fit in a fixed buffer order, the placement rule of TensorFlow Lite's
//! `ArenaPlanner` (`SimpleMemoryArena`: long-lived tensors first, then by size, each in the
//! smallest gap among the tensors live at the same time) and of XLA's buffer assignment
//! (`GlobalDecreasingSizeBestFitHeap`, run with a spatial order — by size — and a temporal one —
//! by lifetime — keeping the smaller result). TVM's USMP `greedy_by_conflicts` is the same rule
//! with buffers taken by how many others they overlap.
//!
//! Each buffer, in turn, looks at the already placed buffers it overlaps in time, and takes the
//! smallest gap between them that fits it (the lowest such gap on ties), or goes on top of them.

use crate::sort::CompactSort;
use std::cmp::Reverse;

use super::overlaps::Overlaps;
use super::problem::Buffer;

/// The orders the portfolio tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rank {
    /// Largest first, longer lifetimes first on ties (TFLite, XLA's spatial order).
    Size,
    /// Longest lifetime first, then largest (XLA's temporal order).
    Duration,
    /// Most overlapping buffers first, then largest (TVM USMP `greedy_by_conflicts`).
    Conflicts,
    /// Largest size × lifetime first.
    Area,
}

/// The buffer order of `rank` (ties: earlier start, then index).
pub fn ranked(bufs: &[Buffer], overlaps: &Overlaps, rank: Rank) -> Vec<u32> {
    let mut order: Vec<u32> = (0..bufs.len() as u32).collect();
    let dur = |i: u32| bufs[i as usize].upper - bufs[i as usize].lower;
    let size = |i: u32| bufs[i as usize].size;
    let lower = |i: u32| bufs[i as usize].lower;
    match rank {
        Rank::Size => {
            order.sort_by_key_compact(|&i| (Reverse(size(i)), Reverse(dur(i)), lower(i), i))
        }
        Rank::Duration => {
            order.sort_by_key_compact(|&i| (Reverse(dur(i)), Reverse(size(i)), lower(i), i))
        }
        Rank::Conflicts => order.sort_by_key_compact(|&i| {
            (
                Reverse(overlaps.degree(i as usize)),
                Reverse(size(i)),
                lower(i),
                i,
            )
        }),
        Rank::Area => order.sort_by_key_compact(|&i| {
            (
                Reverse(size(i) as u128 * dur(i) as u128),
                Reverse(size(i)),
                lower(i),
                i,
            )
        }),
    }
    order
}

/// Places `bufs` in `order` (every index once); returns the offsets and the height.
pub fn place(bufs: &[Buffer], overlaps: &Overlaps, order: &[u32]) -> (Vec<u64>, u64) {
    place_into(bufs, overlaps, vec![UNPLACED; bufs.len()], order)
}

/// The offset of a buffer [`place_into`] is still to place.
pub const UNPLACED: u64 = u64::MAX;

/// As [`place`], around the buffers already placed in `off` (the others [`UNPLACED`]), which
/// keep their offsets; `order` lists the unplaced ones. Returns the offsets and the height of all.
pub fn place_into(
    bufs: &[Buffer],
    overlaps: &Overlaps,
    mut off: Vec<u64>,
    order: &[u32],
) -> (Vec<u64>, u64) {
    let mut height = bufs
        .iter()
        .zip(&off)
        .filter(|(b, &o)| b.size > 0 && o != UNPLACED)
        .map(|(b, &o)| o + b.size)
        .max()
        .unwrap_or(0);
    let mut taken: Vec<(u64, u64)> = Vec::new();
    for &b in order {
        let b = b as usize;
        let size = bufs[b].size;
        if size == 0 {
            off[b] = 0;
            continue;
        }
        taken.clear();
        taken.extend(
            overlaps
                .row(b)
                .iter()
                .filter(|&&x| off[x as usize] != UNPLACED && bufs[x as usize].size > 0)
                .map(|&x| (off[x as usize], off[x as usize] + bufs[x as usize].size)),
        );
        taken.sort_unstable_compact();
        let mut top = 0u64;
        let mut best: Option<(u64, u64)> = None; // (gap, offset)
        for &(start, end) in &taken {
            if start > top {
                let gap = start - top;
                if gap >= size && best.map_or(true, |(g, _)| gap < g) {
                    best = Some((gap, top));
                }
            }
            top = top.max(end);
        }
        let at = best.map_or(top, |(_, o)| o);
        off[b] = at;
        height = height.max(at + size);
    }
    (off, height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::check::check;

    #[test]
    fn takes_the_smallest_gap() {
        let b = |lower, upper, size| Buffer { lower, upper, size };
        // X, Y, Z live throughout; P and Q leave gaps of 3 and 2 bytes between them after time 1.
        let bufs = [
            b(0, 4, 1),
            b(0, 1, 3),
            b(0, 4, 1),
            b(0, 1, 2),
            b(0, 4, 1),
            b(1, 2, 2),
        ];
        let o = Overlaps::of(&bufs, &[0, 1, 2, 3, 4, 5], 100).unwrap();
        let (off, h) = place(&bufs, &o, &[0, 1, 2, 3, 4, 5]);
        assert_eq!(off, vec![0, 1, 4, 5, 7, 5]);
        assert_eq!(h, 8);
        assert_eq!(check(&bufs, &off, h, 1), Ok(()));
        assert_eq!(ranked(&bufs, &o, Rank::Size), vec![1, 3, 5, 0, 2, 4]);
    }
}
