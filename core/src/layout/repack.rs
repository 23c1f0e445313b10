//! Ruin and recreate on the top of a layout, after G. Schrimpf et al., "Record Breaking
//! Optimization Results Using the Ruin and Recreate Principle" (J. Comput. Phys. 159, 2000): take
//! a buffer that reaches the arena's top, free every buffer live with it (in time) whose top lies
//! above a random depth, and place the freed ones again by best fit ([`super::best_fit`], the
//! smallest gap) around the buffers kept, largest or longest first with a few random swaps. The
//! result is kept when the arena does not grow and fewer buffers reach its top (sideways moves
//! drift across plateaus). The greedies fill memory from the bottom and leave their mistakes at
//! the top; this re-decides only there. A fixed-seed generator makes runs reproducible; the clock
//! is read after every round.

use super::best_fit::{self, UNPLACED};
use super::hill_climb::SplitMix;
use super::overlaps::Overlaps;
use super::problem::Buffer;
use crate::budget::Budget;
use crate::sort::CompactSort;

/// Most rounds (it also stops at the budget's deadline).
pub const MAX_ROUNDS: u64 = 100_000;

fn tops(bufs: &[Buffer], off: &[u64], h: u64) -> usize {
    bufs.iter()
        .zip(off)
        .filter(|(b, &o)| b.size > 0 && o + b.size == h)
        .count()
}

/// Improves `best` (offsets, height) until `stop_at` is reached, the budget ends or `max_rounds`
/// rounds have run.
pub fn improve(
    bufs: &[Buffer],
    overlaps: &Overlaps,
    mut best: (Vec<u64>, u64),
    stop_at: u64,
    budget: &Budget,
    max_rounds: u64,
) -> (Vec<u64>, u64) {
    let n = bufs.len();
    if n < 2 {
        return best;
    }
    let mut rng = SplitMix(0x6a09_e667_f3bc_c908 ^ n as u64);
    let mut best_tops = tops(bufs, &best.0, best.1);
    let mut rounds = 0u64;
    let mut freed: Vec<u32> = Vec::new();
    while best.1 > stop_at && rounds < max_rounds && !budget.expired() {
        rounds += 1;
        let (off, h) = (&best.0, best.1);
        let top: Vec<usize> = (0..n)
            .filter(|&b| bufs[b].size > 0 && off[b] + bufs[b].size == h)
            .collect();
        let Some(&t) = top.get(rng.below(top.len() as u64) as usize) else {
            break;
        };
        // The depth: a random share (1/64 to 1/2) of the arena below the top.
        let depth = h >> (1 + rng.below(6));
        let floor = h.saturating_sub(depth.max(bufs[t].size));
        freed.clear();
        freed.push(t as u32);
        freed.extend(overlaps.row(t).iter().copied().filter(|&x| {
            bufs[x as usize].size > 0 && off[x as usize] + bufs[x as usize].size > floor
        }));
        let key = rng.below(3);
        freed.sort_by_key_compact(|&x| {
            let b = &bufs[x as usize];
            let (d, s) = ((b.upper - b.lower) as u128, b.size as u128);
            std::cmp::Reverse(match key {
                0 => (s, d),
                1 => (d, s),
                _ => (s * d, s),
            })
        });
        for _ in 0..rng.below(4) {
            let i = rng.below(freed.len() as u64) as usize;
            let j = rng.below(freed.len() as u64) as usize;
            freed.swap(i, j);
        }
        let mut start = best.0.clone();
        for &x in &freed {
            start[x as usize] = UNPLACED;
        }
        let placed = best_fit::place_into(bufs, overlaps, start, &freed);
        if placed.1 <= best.1 {
            let k = tops(bufs, &placed.0, placed.1);
            if placed.1 < best.1 || k <= best_tops {
                best_tops = k;
                best = placed;
            }
        }
    }
    best
}
