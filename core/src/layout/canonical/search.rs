//! The depth-first search over canonical placements of one instance, within a capacity (see
//! the rules in [`super`]): an explicit stack of frames and an undo trail.

use crate::sort::CompactSort;
use std::cmp::Reverse;

use crate::budget::Budget;

use super::instance::{Instance, Key};

/// Counts search nodes across calls, against the budget's `max_states`.
pub struct Nodes {
    /// Nodes expanded so far.
    pub used: u64,
}

const UNPLACED: u64 = u64::MAX;
/// Sections with more members than this are rescanned only as far as the check needs.
pub(super) const LONG_SECTION: usize = 32;

#[derive(Clone, Copy)]
enum Undo {
    MinOff(u32, u64),
    Floor(u32, u64),
    Lowest(u32, u64),
    Place(u32),
}

/// A range of sections and the buffers (ranks) that live there.
#[derive(Clone, Copy)]
struct Part {
    sec_lo: u32,
    sec_hi: u32,
    bufs_lo: u32,
    bufs_hi: u32,
}

enum Frame {
    /// Tries each candidate in turn.
    Choice {
        part: u32,
        cand_lo: u32,
        cand_hi: u32,
        next: u32,
        /// Trail length before the current trial.
        mark: u32,
        /// The current trial was hatless: no sibling needs trying after it.
        stop: bool,
    },
    /// Independent parts, solved one after the other.
    And {
        parts_lo: u32,
        parts_hi: u32,
        next: u32,
        /// Lengths of `part_bufs` and `parts` to restore when this frame ends.
        bufs_mark: u32,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ev {
    Drive,
    ChildOk,
    ChildFail,
}

pub(super) enum Run {
    Found,
    Infeasible,
    NodeLimit,
    Expired,
}

pub(super) struct Search<'a> {
    inst: &'a Instance,
    capacity: u64,
    pub(super) off: Vec<u64>,
    min_off: Vec<u64>,
    floor: Vec<u64>,
    /// Per section: a lower bound on the `min_off` of its unplaced buffers (`u64::MAX` when
    /// none); exact unless the section is `dirty`.
    lowest: Vec<u64>,
    /// Per section: a buffer that may have held its minimum left it (placed, or raised) since
    /// `lowest` was last computed. Rescans wait for the check that needs them (most trials
    /// fail on a section that needs none), and an undone rescan leaves the section dirty.
    dirty: Vec<bool>,
    total: Vec<u64>,
    cut: Vec<u32>,
    trail: Vec<Undo>,
    parts: Vec<Part>,
    part_bufs: Vec<u32>,
    cands: Vec<u32>,
    /// The buffers the last placement raised, with their `min_off` before it ([`Search::check`]).
    raised: Vec<(u32, u64)>,
    pub(super) long_section: usize,
}

impl<'a> Search<'a> {
    pub(super) fn new(inst: &'a Instance, capacity: u64) -> Search<'a> {
        let n = inst.size.len();
        let nsec = inst.total.len();
        Search {
            inst,
            capacity,
            off: vec![UNPLACED; n],
            min_off: vec![0; n],
            floor: vec![0; nsec],
            lowest: vec![0; nsec],
            total: inst.total.clone(),
            cut: inst.cut.clone(),
            trail: Vec::new(),
            parts: vec![Part {
                sec_lo: 0,
                sec_hi: nsec as u32,
                bufs_lo: 0,
                bufs_hi: n as u32,
            }],
            part_bufs: (0..n as u32).collect(),
            cands: Vec::new(),
            raised: Vec::new(),
            long_section: LONG_SECTION,
            dirty: vec![false; nsec],
        }
    }

    fn undo_to(&mut self, mark: u32) {
        while self.trail.len() > mark as usize {
            match self.trail.pop() {
                Some(Undo::MinOff(r, old)) => self.min_off[r as usize] = old,
                Some(Undo::Floor(s, old)) => self.floor[s as usize] = old,
                Some(Undo::Lowest(s, old)) => {
                    self.lowest[s as usize] = old;
                    self.dirty[s as usize] = true;
                }
                Some(Undo::Place(r)) => {
                    let r = r as usize;
                    self.off[r] = UNPLACED;
                    let (lo, hi) = (self.inst.lo[r] as usize, self.inst.hi[r] as usize);
                    for t in &mut self.total[lo..hi] {
                        *t += self.inst.size[r];
                    }
                    for c in &mut self.cut[lo..hi - 1] {
                        *c += 1;
                    }
                }
                None => break,
            }
        }
    }

    /// Places rank `r` at its `min_off`. Returns (hatless, a cut dropped to zero).
    fn place(&mut self, r: u32) -> (bool, bool) {
        let inst = self.inst;
        let ru = r as usize;
        let o = self.min_off[ru];
        let top = o + inst.size[ru];
        self.off[ru] = o;
        self.raised.clear();
        self.trail.push(Undo::Place(r));
        let (lo, hi) = (inst.lo[ru], inst.hi[ru]);
        let mut split = false;
        for s in lo..hi {
            let su = s as usize;
            self.total[su] -= inst.size[ru];
            if self.floor[su] < top {
                self.trail.push(Undo::Floor(s, self.floor[su]));
                self.floor[su] = top;
            }
            // `r` leaves the unplaced buffers: where it held the minimum, it may move.
            if self.lowest[su] == o {
                self.dirty[su] = true;
            }
        }
        for c in &mut self.cut[lo as usize..hi as usize - 1] {
            *c -= 1;
            split |= *c == 0;
        }
        // Raise the overlapping unplaced buffers onto `r`.
        let mut hatless = true;
        for &x in inst.adj(r) {
            let xu = x as usize;
            if self.off[xu] != UNPLACED {
                continue;
            }
            hatless = false;
            let old = self.min_off[xu];
            if old < top {
                self.trail.push(Undo::MinOff(x, old));
                self.min_off[xu] = top;
                self.raised.push((x, old));
            }
        }
        (hatless, split)
    }

    /// Section inference over a part, with every later offset at least `o`: the unplaced
    /// buffers of a section need their total above its floor, which is at least the top of what
    /// is placed there, `o`, and the lowest offset any of them can still take.
    fn check(&mut self, part: Part, o: u64) -> bool {
        let (lo, hi) = (part.sec_lo as usize, part.sec_hi as usize);
        let cap = self.capacity;
        let fits = |f: u64, l: u64, t: u64| {
            let l = if l == u64::MAX { 0 } else { l };
            f.max(o).max(l) + t <= cap
        };
        // First with the bounds as they are (stale ones are lower, so this is necessary), then
        // with the dirty sections rescanned, only where the rescan can still fail the check.
        if !self.floor[lo..hi]
            .iter()
            .zip(&self.lowest[lo..hi])
            .zip(&self.total[lo..hi])
            .all(|((&f, &l), &t)| fits(f, l, t))
        {
            return false;
        }
        // The buffers the placement raised: where one held its section's minimum, the section
        // may move (marked here, not when placed: most trials fail the pass above).
        for &(x, old) in &self.raised {
            let xu = x as usize;
            for s in self.inst.lo[xu]..self.inst.hi[xu] {
                if self.lowest[s as usize] == old {
                    self.dirty[s as usize] = true;
                }
            }
        }
        self.raised.clear();
        for s in lo..hi {
            if !self.dirty[s] {
                continue;
            }
            let old = self.lowest[s];
            // The check fails here only if every unplaced buffer of the section sits above
            // `room`: the scan stops at the first one that does not, and the section stays
            // dirty with its bound as it was (still a lower bound), so every check decides as
            // a full rescan would. Members are listed by preorder rank and the search places
            // roughly in that order, so the unplaced ones are found sooner from the end.
            // Small sections are rescanned in full (cheap, and then clean).
            let members = self.inst.members(s as u32);
            let room = if members.len() > self.long_section {
                cap.saturating_sub(self.total[s])
            } else {
                0
            };
            let mut lowest = u64::MAX;
            let mut open = false;
            for &x in members.iter().rev() {
                let xu = x as usize;
                if self.off[xu] == UNPLACED {
                    lowest = lowest.min(self.min_off[xu]);
                    if lowest == old {
                        break;
                    }
                    if lowest < room {
                        open = true;
                        break;
                    }
                }
            }
            if open {
                continue;
            }
            self.dirty[s] = false;
            if lowest != old {
                self.trail.push(Undo::Lowest(s as u32, old));
                self.lowest[s] = lowest;
                if !fits(self.floor[s], lowest, self.total[s]) {
                    return false;
                }
            }
        }
        true
    }

    /// Makes the choice frame of `part` after a placement at (`last_off`, position `last` in
    /// `part_bufs`, which lists each part's buffers in its preorder), or returns `None` when the
    /// part has nothing left to place. Candidates are positions in `part_bufs`.
    fn enter(&mut self, part: u32, last_off: u64, last: u32) -> Option<Frame> {
        let p = self.parts[part as usize];
        let mut min_height = u64::MAX;
        let mut any = false;
        for &r in &self.part_bufs[p.bufs_lo as usize..p.bufs_hi as usize] {
            if self.off[r as usize] == UNPLACED {
                any = true;
                min_height = min_height.min(self.min_off[r as usize] + self.inst.size[r as usize]);
            }
        }
        if !any {
            return None;
        }
        // Every later offset is at least the one placed now, and a section keeps the bytes of its
        // unplaced buffers above that offset (in the sections of the placed buffer, its top is
        // above the offset by its size, and its section totals drop by as much): a candidate
        // whose `min_off` leaves less room than the fullest section's unplaced total fails
        // the section inference, and is not tried.
        let fullest = self.total[p.sec_lo as usize..p.sec_hi as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        let Some(room) = self.capacity.checked_sub(fullest) else {
            return Some(self.dead_end(part));
        };
        let cand_lo = self.cands.len() as u32;
        for k in p.bufs_lo..p.bufs_hi {
            let r = self.part_bufs[k as usize];
            let m = self.min_off[r as usize];
            if self.off[r as usize] == UNPLACED
                && m < min_height
                && m <= room
                && (m, k) >= (last_off, last)
            {
                self.cands.push(k);
            }
        }
        let (min_off, bufs) = (&self.min_off, &self.part_bufs);
        self.cands[cand_lo as usize..]
            .sort_unstable_by_key(|&k| (min_off[bufs[k as usize] as usize], k));
        Some(Frame::Choice {
            part,
            cand_lo,
            cand_hi: self.cands.len() as u32,
            next: cand_lo,
            mark: self.trail.len() as u32,
            stop: false,
        })
    }

    /// A choice frame with no candidate: it fails when driven.
    fn dead_end(&self, part: u32) -> Frame {
        let at = self.cands.len() as u32;
        Frame::Choice {
            part,
            cand_lo: at,
            cand_hi: at,
            next: at,
            mark: self.trail.len() as u32,
            stop: false,
        }
    }

    /// Splits the unplaced buffers of `part` at the section boundaries no unplaced buffer
    /// crosses; pushes the pieces and returns their range in `parts`.
    fn split(&mut self, part: u32) -> (u32, u32) {
        let p = self.parts[part as usize];
        let parts_lo = self.parts.len() as u32;
        let mut unplaced: Vec<u32> = self.part_bufs[p.bufs_lo as usize..p.bufs_hi as usize]
            .iter()
            .copied()
            .filter(|&r| self.off[r as usize] == UNPLACED)
            .collect();
        unplaced.sort_unstable_by_key(|&r| (self.inst.lo[r as usize], r));
        let mut k = 0;
        while k < unplaced.len() {
            let sec_lo = self.inst.lo[unplaced[k] as usize];
            let mut sec_hi = self.inst.hi[unplaced[k] as usize];
            let bufs_lo = self.part_bufs.len() as u32;
            while k < unplaced.len() && self.inst.lo[unplaced[k] as usize] < sec_hi {
                let r = unplaced[k];
                sec_hi = sec_hi.max(self.inst.hi[r as usize]);
                self.part_bufs.push(r);
                k += 1;
            }
            // Each piece gets its own preorder, with the section totals of what is left
            // (MiniMalloc re-sorts every sub-problem the same way).
            let inst = self.inst;
            let total = &self.total;
            let key = |r: u32, k: Key| -> u128 {
                let r = r as usize;
                match k {
                    Key::Width => inst.width[r] as u128,
                    Key::Area => inst.area[r],
                    Key::Total => total[inst.lo[r] as usize..inst.hi[r] as usize]
                        .iter()
                        .copied()
                        .max()
                        .unwrap_or(0) as u128,
                    Key::Seed => inst.seed[r] as u128,
                }
            };
            let keys = inst.keys;
            self.part_bufs[bufs_lo as usize..].sort_by_key_compact(|&r| {
                (
                    Reverse(key(r, keys[0])),
                    Reverse(key(r, keys[1])),
                    Reverse(key(r, keys[2])),
                    r,
                )
            });
            self.parts.push(Part {
                sec_lo,
                sec_hi,
                bufs_lo,
                bufs_hi: self.part_bufs.len() as u32,
            });
        }
        (parts_lo, self.parts.len() as u32)
    }

    pub(super) fn run(&mut self, budget: &Budget, nodes: &mut Nodes, limit: u64) -> Run {
        let mut stack: Vec<Frame> = Vec::new();
        let mut local: u64 = 0;
        // Trials, failed ones included: on a large group one trial (a placement, its checks and
        // its undo) can cost a good fraction of a millisecond, and a run of failed trials counts
        // no node, so the clock is read by trials, not by nodes (budgets are promises).
        let mut trials: u64 = 0;
        let mut ev = match self.enter(0, 0, 0) {
            Some(f) => {
                stack.push(f);
                Ev::Drive
            }
            None => Ev::ChildOk,
        };
        loop {
            let Some(frame) = stack.last_mut() else {
                return if ev == Ev::ChildOk {
                    Run::Found
                } else {
                    Run::Infeasible
                };
            };
            match frame {
                Frame::Choice {
                    part,
                    cand_lo,
                    cand_hi,
                    next,
                    mark,
                    stop,
                } => {
                    if ev == Ev::ChildOk {
                        self.cands.truncate(*cand_lo as usize);
                        stack.pop();
                        continue;
                    }
                    let (part, cand_hi, mark) = (*part, *cand_hi, *mark);
                    let stopped = ev == Ev::ChildFail && *stop;
                    let mut trial = *next;
                    self.undo_to(mark);
                    let mut pushed: Option<Frame> = None;
                    let mut ok_now = false;
                    let mut hatless_last = false;
                    if !stopped {
                        while trial < cand_hi {
                            let k = self.cands[trial as usize];
                            let r = self.part_bufs[k as usize];
                            trial += 1;
                            trials += 1;
                            if trials % 64 == 0 && budget.expired() {
                                return Run::Expired;
                            }
                            let o = self.min_off[r as usize];
                            let (hatless, split) = self.place(r);
                            hatless_last = hatless;
                            if !self.check(self.parts[part as usize], o) {
                                self.undo_to(mark);
                                if hatless {
                                    trial = cand_hi;
                                }
                                continue;
                            }
                            local += 1;
                            nodes.used += 1;
                            if local > limit {
                                return Run::NodeLimit;
                            }
                            if nodes.used >= budget.max_states {
                                return Run::Expired;
                            }
                            if split {
                                let bufs_mark = self.part_bufs.len() as u32;
                                let (lo, hi) = self.split(part);
                                pushed = Some(Frame::And {
                                    parts_lo: lo,
                                    parts_hi: hi,
                                    next: lo,
                                    bufs_mark,
                                });
                            } else {
                                match self.enter(part, o, k) {
                                    Some(f) => pushed = Some(f),
                                    None => ok_now = true,
                                }
                            }
                            break;
                        }
                    }
                    let Some(Frame::Choice { next, stop, .. }) = stack.last_mut() else {
                        unreachable_frame();
                        return Run::Infeasible;
                    };
                    *next = trial;
                    *stop = hatless_last;
                    if ok_now {
                        // The part is complete: this frame succeeds.
                        ev = Ev::ChildOk;
                    } else if let Some(f) = pushed {
                        stack.push(f);
                        ev = Ev::Drive;
                    } else {
                        // Every candidate failed.
                        if let Some(Frame::Choice { cand_lo, .. }) = stack.pop() {
                            self.cands.truncate(cand_lo as usize);
                        }
                        ev = Ev::ChildFail;
                    }
                }
                Frame::And {
                    parts_lo,
                    parts_hi,
                    next,
                    bufs_mark,
                } => {
                    match ev {
                        Ev::ChildFail => {
                            let (lo, bm) = (*parts_lo, *bufs_mark);
                            stack.pop();
                            self.parts.truncate(lo as usize);
                            self.part_bufs.truncate(bm as usize);
                            continue;
                        }
                        Ev::ChildOk => *next += 1,
                        Ev::Drive => {}
                    }
                    if *next == *parts_hi {
                        let (lo, bm) = (*parts_lo, *bufs_mark);
                        stack.pop();
                        self.parts.truncate(lo as usize);
                        self.part_bufs.truncate(bm as usize);
                        ev = Ev::ChildOk;
                        continue;
                    }
                    let part = *next;
                    match self.enter(part, 0, 0) {
                        Some(f) => {
                            stack.push(f);
                            ev = Ev::Drive;
                        }
                        None => ev = Ev::ChildOk,
                    }
                }
            }
        }
    }
}

/// The top of the stack is always the frame being driven; reaching this is a bug, reported by
/// the caller's re-check rather than by a panic.
fn unreachable_frame() {
    debug_assert!(false, "the driven frame left the stack");
}
