//! The peak step splits the problem in two: the buffers live at a peak step `t` are stacked from
//! offset 0 with no hole (as in [`super::peak_first`]); every other buffer lives either wholly
//! before `t` or wholly after it, so with the stack fixed the two sides are independent problems,
//! each solved for itself and aimed at the peak: a move on one side is judged by that side's
//! height, not hidden by the other side's excess, and a side at the peak is left alone.
//!
//! Each side gets the best of the four best-fit ranks around the stack, then hill climbing with
//! the stack fixed ([`super::hill_climb::improve_around`]). With the stack latest dying lowest,
//! the side after the peak also gets the skyline ([`super::skyline`]): cut to start at `t`, the
//! stack is a staircase of buffers live from the side's first step, nested (no hole between
//! them), the start [`super::stacked`] gives the skyline, and its iterated greedy improves it.
//! On the training steps of docs/layout.md the side before the peak fits the peak by best fit
//! (the forward pass) and the skyline fits the side after it (the backward pass): efficientnet_b0
//! in 71 ms, jax-train-resnet50 in 224 ms, where the whole problem's greedies stayed above.
//! Our own construction; every layout is re-checked by the caller.

use super::best_fit::{self, Rank, UNPLACED};
use super::hill_climb;
use super::overlaps::Overlaps;
use super::peak_first::{self, Stack};
use super::problem::Buffer;
use super::skyline::{self, Variant};
use super::stacked;
use crate::budget::Budget;
use crate::sort::CompactSort;

/// The skyline variants tried on the staircase side, the first of [`skyline::VARIANTS`]: on the
/// training steps of docs/layout.md the first fits where any does; the split runs before the
/// other methods, so it stays cheap where it does not fit.
const SKY_VARIANTS: usize = 4;

/// The share of a side's climbing time for its first start where it has two (without, then with
/// [`anchored_next`]'s anchor): on torch-train-squeezenet1_1 the first fits in milliseconds, on
/// torch-train-swin_t only the second does.
const ALT_FIRST_SHARE: f64 = 0.25;

/// One side: the stack's buffers first, then the side's own, as positions into `bufs` of the
/// side's subproblem; its overlap graph; what is placed before the climb (the stack, and the
/// side's outer staircase); its best order of the rest and layout so far.
struct Side {
    members: Vec<u32>,
    bufs: Vec<Buffer>,
    overlaps: Overlaps,
    base: Vec<u64>,
    order: Vec<u32>,
    placed: (Vec<u64>, u64),
    /// The side before the peak step (else after it).
    before: bool,
    /// The skyline variant that gave `placed`, where one did (after the peak, on the side with
    /// the stack's lifetimes cut to start at the peak step).
    sky: Option<Variant>,
    /// How many of `members` are placed in `base` (the stack, then [`anchored_next`]'s).
    fixed: usize,
}

/// Lays `bufs` out from the stack of step `t` by `stack`, each side improved until it is at most
/// `stop_at` high or `budget` ends (the sides share it). `None` where a side's greedy layout is
/// above `climb_within` (far above the goal the climb does not reach it, and the time is better
/// spent by the caller's other methods), where a side's overlap graph has more than `max_pairs`
/// pairs, or where the skyline did not keep the stack in place.
pub fn place(
    bufs: &[Buffer],
    t: u64,
    stack: Stack,
    stop_at: u64,
    climb_within: u64,
    budget: &Budget,
    max_pairs: usize,
) -> Option<(Vec<u64>, u64)> {
    let first = peak_first::stack_at(bufs, t, stack);
    let k = first.len();
    let mut sides = Vec::with_capacity(2);
    // The staircase side first: where even the skyline leaves it far above the goal, the split
    // gives up before the other side's work (it runs before the caller's other methods).
    let sides_first = if stack == Stack::Birth {
        [true, false]
    } else {
        [false, true]
    };
    for before in sides_first {
        // After the peak, with the stack latest dying lowest, the side is also tried with the
        // buffers born at the next step where those dying there were ([`anchored_next`]), where
        // its greedies without them stay above the goal: on torch-train-swin_t that fits the
        // peak, on torch-train-squeezenet1_1 it does not (and the side fits without).
        let mut alts: Vec<Side> = Vec::with_capacity(2);
        for anchor in [false, true] {
            if anchor && (alts.iter().any(|s| s.placed.1 <= stop_at) || budget.expired()) {
                break;
            }
            let next = if anchor && !before && stack == Stack::Death {
                anchored_next(bufs, &first, t)
            } else {
                (Vec::new(), Vec::new())
            };
            if anchor && next.0.is_empty() {
                break;
            }
            let mut members = first.clone();
            let fixed = k + next.0.len();
            members.extend_from_slice(&next.0);
            members.extend((0..bufs.len() as u32).filter(|&i| {
                let b = &bufs[i as usize];
                b.size > 0
                    && if before {
                        b.upper <= t
                    } else {
                        b.lower > t && !next.0.contains(&i)
                    }
            }));
            let local: Vec<Buffer> = members.iter().map(|&i| bufs[i as usize]).collect();
            let pos: Vec<u32> = (0..local.len() as u32).collect();
            let overlaps = Overlaps::of(&local, &pos, max_pairs)?;
            let mut base = vec![UNPLACED; local.len()];
            let mut h = 0;
            for p in 0..k {
                base[p] = h;
                h += local[p].size;
            }
            base[k..fixed].copy_from_slice(&next.1);
            // The stack, cut to the side's steps, is a nested staircase of buffers all live from the
            // side's first step (latest dying lowest, after the peak) or to its last (earliest born
            // lowest, before it): the skyline's start ([`super::stacked`]). It goes first: on the
            // training steps its first variant fits the side after the peak.
            let mut placed: Option<(Vec<u64>, u64)> = None;
            let mut sky = None;
            if (!before && stack == Stack::Death) || (before && stack == Stack::Birth) {
                let cut = cut_at(&local, k, t, before);
                let st: Vec<u32> = (0..fixed as u32).collect();
                for v in skyline::VARIANTS.into_iter().take(SKY_VARIANTS) {
                    if placed.as_ref().is_some_and(|p| p.1 <= stop_at) || budget.expired() {
                        break;
                    }
                    let p = stacked::place_stack(&cut, v, &st);
                    if p.0[..fixed] == base[..fixed] && placed.as_ref().map_or(true, |b| p.1 < b.1)
                    {
                        (placed, sky) = (Some(p), Some(v));
                    }
                }
            }
            let mut order = Vec::new();
            for rank in [
                None,
                Some(Rank::Size),
                Some(Rank::Conflicts),
                Some(Rank::Duration),
                Some(Rank::Area),
            ] {
                if placed
                    .as_ref()
                    .is_some_and(|p| p.1 <= stop_at || budget.expired())
                {
                    break;
                }
                let o: Vec<u32> = match rank {
                    Some(rank) => best_fit::ranked(&local, &overlaps, rank)
                        .into_iter()
                        .filter(|&p| base[p as usize] == UNPLACED)
                        .collect(),
                    None => {
                        let mut o: Vec<u32> = (fixed as u32..local.len() as u32).collect();
                        o.sort_by_key_compact(|&p| {
                            let b = &local[p as usize];
                            if before {
                                (u64::MAX - b.upper, b.lower, p)
                            } else {
                                (b.lower, u64::MAX - b.upper, p)
                            }
                        });
                        o
                    }
                };
                let p = best_fit::place_into(&local, &overlaps, base.clone(), &o);
                if placed.as_ref().map_or(true, |b| p.1 < b.1) {
                    (placed, sky, order) = (Some(p), None, o);
                }
            }
            let Some(placed) = placed else {
                break;
            };
            alts.push(Side {
                members,
                bufs: local,
                overlaps,
                base,
                order,
                placed,
                before,
                sky,
                fixed,
            });
        }
        alts.retain(|s| s.placed.1 <= climb_within);
        if alts.is_empty() {
            return None;
        }
        sides.push(alts);
    }
    // Hill climbing on the sides above the goal, sharing the time left; on a side with two
    // starts, the first (without the anchor) gets ALT_FIRST_SHARE of the side's time, the
    // second the rest; the lowest result is kept.
    let above: Vec<usize> = (0..sides.len())
        .filter(|&s| sides[s].iter().all(|a| a.placed.1 > stop_at))
        .collect();
    for (done, &s) in above.iter().enumerate() {
        if budget.expired() {
            break;
        }
        let one = budget.share(1.0 / (above.len() - done) as f64, budget.max_states);
        let n = sides[s].len();
        for a in 0..n {
            if one.expired() || sides[s][..a].iter().any(|x| x.placed.1 <= stop_at) {
                break;
            }
            let frac = if a + 1 < n { ALT_FIRST_SHARE } else { 1.0 };
            let part = one.share(frac, one.max_states);
            climb(&mut sides[s][a], first.len(), t, stop_at, &part);
        }
    }
    let mut off = vec![0u64; bufs.len()];
    let mut h = 0;
    for alts in &sides {
        let side = alts.iter().min_by_key(|a| a.placed.1)?;
        for (p, &i) in side.members.iter().enumerate() {
            off[i as usize] = side.placed.0[p];
        }
        h = h.max(side.placed.1);
    }
    Some((off, h))
}

/// Improves `side` (its stack of `k` cut at `t`) toward `stop_at` within `budget`: the skyline's
/// iterated greedy where the skyline gave its start, else hill climbing around its fixed
/// buffers. A skyline result that moved a fixed buffer is dropped (the start is kept).
fn climb(side: &mut Side, k: usize, t: u64, stop_at: u64, budget: &Budget) {
    let start = std::mem::take(&mut side.placed);
    if let Some((pick, reversed, edges)) = side.sky {
        let fixed = side.fixed;
        let cut = cut_at(&side.bufs, k, t, side.before);
        let st: Vec<u32> = (0..fixed as u32).collect();
        let mut prio = skyline::priorities(&cut, pick);
        let mut cur = start.clone();
        for mixed in [false, true] {
            let half = budget.share(if mixed { 1.0 } else { 0.5 }, budget.max_states);
            let from = std::mem::take(&mut cur);
            cur = skyline::improve_on(
                &cut,
                &mut prio,
                (reversed, edges),
                &st,
                from,
                stop_at,
                &half,
                skyline::Rounds {
                    max: budget.max_states.min(2_000),
                    mixed,
                },
            );
            if cur.1 <= stop_at {
                break;
            }
        }
        side.placed = if cur.0[..fixed] == side.base[..fixed] {
            cur
        } else {
            start
        };
        return;
    }
    side.placed = hill_climb::improve_around(
        &side.bufs,
        &side.overlaps,
        &side.base,
        side.order.clone(),
        start,
        stop_at,
        budget,
    );
}

/// The side's buffers with the first `k` (the stack) cut to the side's steps: to end after step
/// `t` (`before`) or to start at it.
fn cut_at(local: &[Buffer], k: usize, t: u64, before: bool) -> Vec<Buffer> {
    let mut cut = local.to_vec();
    for b in &mut cut[..k] {
        if before {
            b.upper = t + 1;
        } else {
            b.lower = t;
        }
    }
    cut
}

/// The buffers born at step `t + 1`, latest dying first, and their offsets: where the stack
/// `first` (latest dying lowest, so those dying at `t + 1` on top) frees its top bytes at
/// `t + 1`, they are stacked there, latest dying lowest, as long as they fit; the rest are left
/// to the side's methods. Where `t + 1` is a peak step too, it is then hole-free as well: on
/// torch-train-swin_t (two peak steps in a row) a buffer born at the second one sat 98,304 bytes
/// above the peak, placed by the side's greedies.
pub fn anchored_next(bufs: &[Buffer], first: &[u32], t: u64) -> (Vec<u32>, Vec<u64>) {
    let top: u64 = first.iter().map(|&i| bufs[i as usize].size).sum();
    let freed: u64 = first
        .iter()
        .map(|&i| &bufs[i as usize])
        .filter(|b| b.upper == t + 1)
        .map(|b| b.size)
        .sum();
    let mut born: Vec<u32> = (0..bufs.len() as u32)
        .filter(|&i| {
            let b = &bufs[i as usize];
            b.size > 0 && b.lower == t + 1
        })
        .collect();
    born.sort_by_key_compact(|&i| (u64::MAX - bufs[i as usize].upper, i));
    let (mut ids, mut offs) = (Vec::new(), Vec::new());
    let mut at = top - freed;
    for i in born {
        let size = bufs[i as usize].size;
        if at + size <= top {
            ids.push(i);
            offs.push(at);
            at += size;
        }
    }
    (ids, offs)
}
