//! Local improvement of a greedy layout, after the hill climbing of TVM's unified static memory
//! planner (USMP, `tir.usmp.algo.hill_climb`): the layout is the best-fit placement of a buffer
//! order ([`super::best_fit`]), and the search perturbs the order and keeps a perturbation when the
//! height does not grow. Moves: take a buffer that reaches the current top and move it to a
//! random earlier position (it then gets first pick of the gaps), or swap two random buffers.
//! Sideways moves are kept, so the search drifts across plateaus. A fixed-seed generator makes
//! runs reproducible; the clock is read after every placement.

use super::best_fit;
use super::overlaps::Overlaps;
use super::problem::Buffer;
use crate::budget::Budget;
use crate::sort::CompactSort;

/// Improves `(order, offsets, height)` until `stop_at` is reached or the budget ends.
pub fn improve(
    bufs: &[Buffer],
    overlaps: &Overlaps,
    order: Vec<u32>,
    best: (Vec<u64>, u64),
    stop_at: u64,
    budget: &Budget,
) -> (Vec<u64>, u64) {
    let base = vec![best_fit::UNPLACED; bufs.len()];
    improve_around(bufs, overlaps, &base, order, best, stop_at, budget)
}

/// [`improve`] around buffers already placed: `base` holds their offsets (`UNPLACED` for the
/// others), which no move changes; `order` lists the others.
pub fn improve_around(
    bufs: &[Buffer],
    overlaps: &Overlaps,
    base: &[u64],
    mut order: Vec<u32>,
    mut best: (Vec<u64>, u64),
    stop_at: u64,
    budget: &Budget,
) -> (Vec<u64>, u64) {
    let n = order.len();
    if n < 2 || best.1 <= stop_at || budget.expired() {
        return best;
    }
    let mut rng = SplitMix(0x9e37_79b9_7f4a_7c15 ^ n as u64);
    let mut pos = vec![0usize; bufs.len()];
    // The layout of `order` (`best` may be another, better one): a move changes the order from
    // some position on, and best fit places the buffers before it as before, so only the rest
    // is placed again.
    // The climb follows `order`'s own layout (a move is kept when it does not raise that) and
    // keeps the best seen apart: started from an order worse than `best`, it still climbs
    // (judged against `best` it would keep nothing until one move beat `best` outright).
    let (mut cur, mut cur_h) = best_fit::place_into(bufs, overlaps, base.to_vec(), &order);
    let mut rounds: u64 = 0;
    while best.1 > stop_at && !budget.expired() && rounds < budget.max_states {
        rounds += 1;
        for (p, &b) in order.iter().enumerate() {
            pos[b as usize] = p;
        }
        let mut trial = order.clone();
        // The first position the move changes.
        let changed = if rng.below(2) == 0 {
            // A buffer at the top, moved earlier.
            let mut tops: Vec<usize> = order
                .iter()
                .map(|&b| b as usize)
                .filter(|&b| bufs[b].size > 0 && cur[b] + bufs[b].size == cur_h)
                .collect();
            // By index, so that the choice does not depend on the order.
            tops.sort_unstable_compact();
            if tops.is_empty() {
                break;
            }
            let b = tops[rng.below(tops.len() as u64) as usize];
            let from = pos[b];
            if from == 0 {
                continue;
            }
            let to = rng.below(from as u64) as usize;
            let item = trial.remove(from);
            trial.insert(to, item);
            to
        } else {
            let i = rng.below(n as u64) as usize;
            let j = rng.below(n as u64) as usize;
            trial.swap(i, j);
            i.min(j)
        };
        let mut start = base.to_vec();
        for &b in &trial[..changed] {
            start[b as usize] = cur[b as usize];
        }
        let placed = best_fit::place_into(bufs, overlaps, start, &trial[changed..]);
        if placed.1 <= cur_h {
            cur_h = placed.1;
            if placed.1 <= best.1 {
                best.0.clone_from(&placed.0);
                best.1 = placed.1;
            }
            cur = placed.0;
            order = trial;
        }
    }
    best
}

/// SplitMix64: a small, fixed-seed generator (no dependency, same sequence everywhere).
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}
