//! Best fit on the skyline, after E. Burke, G. Kendall and G. Whitwell, "A New Placement Heuristic
//! for the Orthogonal Stock-Cutting Problem" (Operations Research 52(4), 2004), as Y. Sekiyama et
//! al. adapt it to fixed lifetimes ("Profile-guided memory optimization for deep neural networks",
//! arXiv:1804.10001, 2018). Where best fit ([`super::best_fit`]) takes the buffers in a fixed order
//! and gives each the best gap, this takes the *lowest place* first and gives it the best buffer:
//!
//! the placed buffers' tops over time form a skyline of flat segments. Take the lowest segment
//! (the earliest on ties); among the unplaced buffers whose lifetime lies inside it, place the one
//! that fills it best (by the pick rule: longest lifetime, largest size or largest area first) on
//! it; when none fits, raise the segment to its lower neighbour (the bytes under it are given up
//! for that time). Memory is filled from the bottom, time slot by time slot, which keeps nested
//! (stack-like) lifetimes of forward/backward passes and elimination trees tight.
//!
//! O(n log n) per placement at worst (a range scan of the unplaced buffers starting inside the
//! segment), no overlap graph needed. Ran forward and on reversed time (the greedy is not
//! symmetric in time), and with an edge rule of our own (a buffer that meets an end of the
//! segment first, so the free time left there stays in one piece): on the real graphs of
//! docs/layout.md no one variant is best everywhere.

use std::collections::{BTreeMap, BTreeSet};

use super::problem::Buffer;

/// Which buffer fills the lowest segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Longest lifetime first, then largest (Sekiyama et al.).
    Duration,
    /// Largest first, then longest lifetime.
    Size,
    /// Largest size × lifetime first.
    Area,
}

/// A buffer's priority (higher first), compared lexicographically.
pub type Prio = (u128, u128);

/// How long [`improve`] runs and with which moves.
#[derive(Clone, Copy, Debug)]
pub struct Rounds {
    /// Most rounds (it also stops at the budget's deadline).
    pub max: u64,
    /// Also move a buffer under a top buffer last.
    pub mixed: bool,
}

/// A variant of the greedy: the pick rule, whether time runs backwards, and whether a buffer
/// meeting an end of the segment goes first.
pub type Variant = (Pick, bool, bool);

/// Every pick rule, forward and on reversed time, with and without the edge rule: the portfolio
/// `auto` runs (in this order, until one reaches the bound).
pub const VARIANTS: [Variant; 12] = [
    (Pick::Duration, false, false),
    (Pick::Area, false, true),
    (Pick::Size, false, true),
    (Pick::Duration, false, true),
    (Pick::Duration, true, false),
    (Pick::Area, false, false),
    (Pick::Area, true, false),
    (Pick::Size, false, false),
    (Pick::Size, true, false),
    (Pick::Area, true, true),
    (Pick::Size, true, true),
    (Pick::Duration, true, true),
];

/// The priority of each buffer under `pick` (higher is placed first where it fits).
pub fn priorities(bufs: &[Buffer], pick: Pick) -> Vec<(u128, u128)> {
    bufs.iter()
        .map(|b| {
            let (d, s) = ((b.upper - b.lower) as u128, b.size as u128);
            match pick {
                Pick::Duration => (d, s),
                Pick::Size => (s, d),
                Pick::Area => (s * d, s),
            }
        })
        .collect()
}

/// Offsets and height for `bufs` (zero-size buffers get offset 0) by the greedy `variant`.
pub fn place(bufs: &[Buffer], (pick, reversed, edges): Variant) -> (Vec<u64>, u64) {
    place_by(bufs, &priorities(bufs, pick), reversed, edges)
}

/// As [`place`], the buffer filling a segment being the one of highest `prio` (ties: the earlier
/// start, then the lower index); `reversed` runs time backwards; with `edges`, a buffer that
/// meets an end of the segment goes first (both ends before one), so that the free time it
/// leaves on the segment stays in one piece.
pub fn place_by(
    bufs: &[Buffer],
    prio: &[(u128, u128)],
    reversed: bool,
    edges: bool,
) -> (Vec<u64>, u64) {
    place_on(bufs, prio, reversed, edges, &[])
}

/// As [`place_by`], with the buffers `stack` placed first, in that order, each on the skyline
/// segment that holds its whole lifetime (one whose lifetime spans several segments is left to
/// the greedy). For a laminar family (no two lifetimes cross: each pair is disjoint or nested),
/// parents before children, this leaves no hole: at every time the stacked buffers live then
/// hold exactly the bottom bytes ([`super::stacked`]). The greedy fills the rest on top.
pub fn place_on(
    bufs: &[Buffer],
    prio: &[(u128, u128)],
    reversed: bool,
    edges: bool,
    stack: &[u32],
) -> (Vec<u64>, u64) {
    let mut off = vec![0u64; bufs.len()];
    let end = bufs.iter().map(|b| b.upper).max().unwrap_or(0);
    // Reversed time maps [lower, upper) to [end - upper, end - lower): overlaps are unchanged.
    let span = |b: &Buffer| {
        if reversed {
            (end - b.upper, end - b.lower)
        } else {
            (b.lower, b.upper)
        }
    };
    // Unplaced buffers by start: (start, index).
    let mut unplaced: BTreeSet<(u64, u32)> = BTreeSet::new();
    let (mut t0, mut t1) = (u64::MAX, 0u64);
    for (i, b) in bufs.iter().enumerate() {
        if b.size > 0 {
            let (l, u) = span(b);
            unplaced.insert((l, i as u32));
            t0 = t0.min(l);
            t1 = t1.max(u);
        }
    }
    if unplaced.is_empty() {
        return (off, 0);
    }
    let mut sky = Skyline::new(t0, t1);
    let mut height = 0u64;
    for &i in stack {
        let Some(b) = bufs.get(i as usize) else {
            continue;
        };
        let (l, u) = span(b);
        if b.size == 0 {
            continue;
        }
        let Some((_, e, h)) = sky.at(l) else {
            continue;
        };
        if u > e || !unplaced.remove(&(l, i)) {
            continue;
        }
        off[i as usize] = h;
        height = height.max(h + b.size);
        sky.raise(l, u, h + b.size);
    }
    if unplaced.is_empty() {
        return (off, height);
    }
    while let Some((s, e, h)) = sky.lowest() {
        let mut best: Option<((u8, Prio), u32)> = None;
        for &(l, i) in unplaced.range((s, 0)..(e, 0)) {
            let (_, u) = span(&bufs[i as usize]);
            if u <= e {
                let touch = if edges {
                    (l == s) as u8 + (u == e) as u8
                } else {
                    0
                };
                let k = (touch, prio[i as usize]);
                if best.map_or(true, |(bk, _)| k > bk) {
                    best = Some((k, i));
                }
            }
        }
        match best {
            Some((_, i)) => {
                let (l, u) = span(&bufs[i as usize]);
                unplaced.remove(&(l, i));
                let top = h + bufs[i as usize].size;
                off[i as usize] = h;
                height = height.max(top);
                sky.raise(l, u, top);
                if unplaced.is_empty() {
                    break;
                }
            }
            None => {
                if !sky.raise_to_neighbour(s) {
                    // One segment spans everything yet holds none: cannot happen (every
                    // unplaced buffer lies inside the whole span); stop rather than loop.
                    break;
                }
            }
        }
    }
    (off, height)
}

/// Iterated greedy on the skyline: from the priorities `prio` (and their layout `best`), raise
/// the priority of a buffer that reaches the top above all others, so it is placed as soon as it
/// fits, and keep the change when the height does not grow (sideways moves drift across
/// plateaus), or (one move in three) of any buffer. `mixed` adds a move: a buffer under a top
/// buffer (live with it) placed last; on the real graphs each kind of move wins somewhere, so `auto`
/// runs both, one after the other. Stops at `stop_at`, at the budget's deadline or after
/// `max` rounds. A fixed-seed generator makes runs reproducible.
pub fn improve(
    bufs: &[Buffer],
    prio: &mut Vec<(u128, u128)>,
    (reversed, edges): (bool, bool),
    best: (Vec<u64>, u64),
    stop_at: u64,
    budget: &crate::budget::Budget,
    rounds: Rounds,
) -> (Vec<u64>, u64) {
    improve_on(
        bufs,
        prio,
        (reversed, edges),
        &[],
        best,
        stop_at,
        budget,
        rounds,
    )
}

/// As [`improve`], every layout started from the staircase `stack` (as [`place_on`]).
#[allow(clippy::too_many_arguments)]
pub fn improve_on(
    bufs: &[Buffer],
    prio: &mut Vec<(u128, u128)>,
    (reversed, edges): (bool, bool),
    stack: &[u32],
    mut best: (Vec<u64>, u64),
    stop_at: u64,
    budget: &crate::budget::Budget,
    Rounds {
        max: max_rounds,
        mixed,
    }: Rounds,
) -> (Vec<u64>, u64) {
    let n = bufs.len();
    if n < 2 {
        return best;
    }
    let mut rng = super::hill_climb::SplitMix(0x2545_f491_4f6c_dd1d ^ n as u64);
    let mut boost = u128::MAX / 2;
    let mut demote = u128::MAX / 4;
    let mut rounds = 0u64;
    while best.1 > stop_at && rounds < max_rounds && !budget.expired() {
        rounds += 1;
        let mut trial = prio.clone();
        let tops: Vec<usize> = (0..n)
            .filter(|&b| bufs[b].size > 0 && best.0[b] + bufs[b].size == best.1)
            .collect();
        if tops.is_empty() {
            return best;
        }
        let moves = 1 + rng.below(3);
        for _ in 0..moves {
            let t = tops[rng.below(tops.len() as u64) as usize];
            // Without `mixed`: a top buffer two times in three, any buffer the third.
            let kind = if mixed {
                rng.below(4)
            } else {
                [0, 0, 3][rng.below(3) as usize]
            };
            match kind {
                // A top buffer first.
                0 | 1 => {
                    boost += 1;
                    trial[t] = (boost, trial[t].1);
                }
                // A buffer under a top buffer (live with it, lower) last: it made the top wait.
                2 => {
                    let under: Vec<usize> = (0..n)
                        .filter(|&b| {
                            bufs[b].size > 0 && best.0[b] < best.0[t] && bufs[b].overlaps(&bufs[t])
                        })
                        .collect();
                    if !under.is_empty() {
                        let b = under[rng.below(under.len() as u64) as usize];
                        demote = demote.saturating_sub(1);
                        trial[b] = (demote, trial[b].1);
                    }
                }
                // Any buffer first.
                _ => {
                    let b = rng.below(n as u64) as usize;
                    boost += 1;
                    trial[b] = (boost, trial[b].1);
                }
            }
        }
        let placed = place_on(bufs, &trial, reversed, edges, stack);
        if placed.1 <= best.1 {
            best = placed;
            *prio = trial;
        }
    }
    best
}

/// Flat segments `[start, end)` at a height, covering `[t0, t1)`, with equal neighbours merged.
struct Skyline {
    /// start -> (end, height)
    segs: BTreeMap<u64, (u64, u64)>,
    /// (height, start) of every segment: the lowest first, the earliest on ties.
    by_height: BTreeSet<(u64, u64)>,
}

impl Skyline {
    fn new(t0: u64, t1: u64) -> Skyline {
        let mut s = Skyline {
            segs: BTreeMap::new(),
            by_height: BTreeSet::new(),
        };
        s.insert(t0, t1, 0);
        s
    }

    fn insert(&mut self, start: u64, end: u64, h: u64) {
        self.segs.insert(start, (end, h));
        self.by_height.insert((h, start));
    }

    fn remove(&mut self, start: u64) -> (u64, u64) {
        let (end, h) = self.segs.remove(&start).expect("a segment starts here");
        self.by_height.remove(&(h, start));
        (end, h)
    }

    /// The segment holding time `t`: (start, end, height).
    fn at(&self, t: u64) -> Option<(u64, u64, u64)> {
        let (&s, &(e, h)) = self.segs.range(..=t).next_back()?;
        (t < e).then_some((s, e, h))
    }

    /// The lowest segment: (start, end, height).
    fn lowest(&self) -> Option<(u64, u64, u64)> {
        let &(h, s) = self.by_height.iter().next()?;
        Some((s, self.segs[&s].0, h))
    }

    /// Sets `[l, u)`, which lies inside one segment, to height `top`.
    fn raise(&mut self, l: u64, u: u64, top: u64) {
        let (&s, _) = self
            .segs
            .range(..=l)
            .next_back()
            .expect("inside the skyline");
        let (e, h) = self.remove(s);
        if s < l {
            self.insert(s, l, h);
        }
        if u < e {
            self.insert(u, e, h);
        }
        self.insert(l, u, top);
        self.merge_around(l);
    }

    /// Raises the segment starting at `s` to its lower neighbour; false when it has none.
    fn raise_to_neighbour(&mut self, s: u64) -> bool {
        let (e, _) = self.segs[&s];
        let left = self.segs.range(..s).next_back().map(|(_, &(_, h))| h);
        let right = self.segs.get(&e).map(|&(_, h)| h);
        let h = match (left, right) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return false,
        };
        self.remove(s);
        self.insert(s, e, h);
        self.merge_around(s);
        true
    }

    /// Merges the segment starting at `s` with equal-height neighbours.
    fn merge_around(&mut self, mut s: u64) {
        let (mut e, h) = self.segs[&s];
        if let Some((&ls, &(_, lh))) = self.segs.range(..s).next_back() {
            if lh == h {
                self.remove(s);
                self.remove(ls);
                self.insert(ls, e, h);
                s = ls;
            }
        }
        if let Some(&(re, rh)) = self.segs.get(&e) {
            if rh == h {
                self.remove(e);
                self.remove(s);
                self.insert(s, re, h);
                e = re;
            }
        }
        let _ = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::check::check;

    fn b(lower: u64, upper: u64, size: u64) -> Buffer {
        Buffer { lower, upper, size }
    }

    #[test]
    fn fills_the_lowest_segment_with_the_longest_fit() {
        // A long buffer, then two short ones that reuse the same time slot above it, and one
        // after it ends: height 3 (the peak), with the short ones side by side in time.
        let bufs = [b(0, 4, 2), b(0, 2, 1), b(2, 4, 1), b(4, 6, 3), b(1, 2, 0)];
        for v in VARIANTS {
            let (off, h) = place(&bufs, v);
            assert_eq!(check(&bufs, &off, h, 1), Ok(()), "{v:?}");
            assert_eq!(h, 3, "{v:?}");
        }
        let (off, _) = place(&bufs, (Pick::Duration, false, false));
        assert_eq!(off, vec![0, 2, 2, 0, 0]);
    }

    #[test]
    fn raises_a_segment_nothing_fits() {
        // Nothing fits [1, 2) after 0 and 1 are placed on either side at the bottom; 2 spans it.
        let bufs = [b(0, 1, 2), b(2, 3, 2), b(0, 3, 1)];
        let (off, h) = place(&bufs, (Pick::Size, false, false));
        assert_eq!(check(&bufs, &off, h, 1), Ok(()));
        assert_eq!(h, 3);
    }
}
