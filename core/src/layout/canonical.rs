//! Exact layout of one group: depth-first search over *canonical* solutions, after MiniMalloc
//! (M. D. Moffitt, "MiniMalloc: A Lightweight Memory Allocator for Hardware-Accelerated Machine
//! Learning", ASPLOS 2023). Our own implementation of the paper's rules:
//!
//! * **Canonical placements.** Every layout can be pushed down until each buffer rests on the
//!   floor or on a buffer it overlaps in time; listed by offset, each buffer then sits exactly on
//!   the highest buffer placed before it that it overlaps. So the search only decides the *order*
//!   of buffers: each goes at its `min_off` (the top of the placed buffers it overlaps), offsets
//!   never decrease along a branch, and ties are broken by a static preorder.
//! * **Section inference.** Time is cut into sections (elementary intervals). In each section the
//!   unplaced buffers still need their total size above the section's floor (the top of what is
//!   placed there, at least the current offset, at least the lowest `min_off` of the unplaced
//!   buffers there), so a branch where that exceeds the capacity is cut.
//! * **Dominance.** A buffer is never placed at or above the lowest top any unplaced buffer could
//!   reach: that buffer would fit entirely below it, a layout another branch finds.
//! * **Hatless pruning.** A buffer that overlaps no unplaced buffer cannot affect any other: its
//!   offset is final, so once it has been tried, its siblings need not be.
//! * **Dynamic decomposition.** When placing a buffer leaves no unplaced buffer crossing a section
//!   boundary, the two sides are independent and are solved one after the other, each from its own
//!   root; a side that fails fails the branch, a side that succeeds is never revisited.
//! * **Restarts.** Several static preorders are tried round-robin with a node limit that doubles
//!   each round (the paper's WAT, TAW, TWA), so one unlucky order does not take all the time.
//!
//! The search is a decision procedure: it finds a layout within a capacity, or proves there is
//! none (every rule above keeps the search complete; the property tests check it against brute
//! force). It is iterative (an explicit stack, an undo trail), reads the budget's clock every
//! 1,024 nodes and counts its nodes against the budget's state limit.

use std::cell::OnceCell;
use std::cmp::Reverse;

use super::overlaps::Overlaps;
use super::problem::{Buffer, Sections};
use crate::budget::Budget;

/// What a decision search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Offsets (per buffer of the group) of a layout within the capacity.
    Found(Vec<u64>),
    /// No layout fits the capacity (proven).
    Infeasible,
    /// Every preorder hit the round's node limit: undecided, try again with a higher one.
    Limit,
    /// The budget ran out first.
    Stopped,
}

/// Static preorders (MiniMalloc's names: W = lifetime width, A = area, T = the largest total
/// size of a section the buffer spans; larger first).
const PREORDERS: [[Key; 3]; 3] = [
    [Key::Width, Key::Area, Key::Total],
    [Key::Total, Key::Area, Key::Width],
    [Key::Total, Key::Width, Key::Area],
];

#[derive(Clone, Copy, Debug)]
enum Key {
    Width,
    Area,
    Total,
    /// Lower offset in a known layout first (a warm start, [`Solver::seed`]).
    Seed,
}

/// The seeded preorder: the incumbent's offsets, then its larger buffers.
const SEEDED: [Key; 3] = [Key::Seed, Key::Area, Key::Width];

/// Counts search nodes across calls, against the budget's `max_states`.
pub struct Nodes {
    /// Nodes expanded so far.
    pub used: u64,
}

/// The exact search of one group (sizes > 0), ready to answer decision questions.
pub struct Solver {
    /// The static preorders' instances, each built when a round first reaches it (on large
    /// groups the seeded preorder often decides alone, and each build costs tens of ms).
    instances: Vec<OnceCell<Instance>>,
    bufs: Vec<Buffer>,
    overlaps: Overlaps,
    sections: Sections,
    section_total: Vec<u64>,
    /// The preorder of a known layout, tried first when set ([`Solver::seed`]).
    seeded: Option<Instance>,
    largest: u64,
    densest: u64,
    /// Sections with more members than this are rescanned only as far as a check needs.
    long_section: usize,
}

impl Solver {
    /// Prepares the search of `bufs` (their overlap graph given).
    pub fn new(bufs: &[Buffer], overlaps: &Overlaps) -> Solver {
        let positions: Vec<u32> = (0..bufs.len() as u32).collect();
        let sections = Sections::cliques(bufs, &positions);
        let mut section_total = vec![0u64; sections.clique_count()];
        for (i, b) in bufs.iter().enumerate() {
            for t in &mut section_total[sections.lo[i] as usize..sections.hi[i] as usize] {
                *t += b.size;
            }
        }
        let densest = section_total.iter().copied().max().unwrap_or(0);
        Solver {
            instances: PREORDERS.iter().map(|_| OnceCell::new()).collect(),
            bufs: bufs.to_vec(),
            overlaps: overlaps.clone(),
            sections,
            section_total,
            seeded: None,
            largest: bufs.iter().map(|b| b.size).max().unwrap_or(0),
            densest,
            long_section: LONG_SECTION,
        }
    }

    /// Adds (or replaces) a preorder taken from a known layout of the same buffers, `offsets`
    /// (one per buffer): buffers by offset, lowest first, so that the search's first descent
    /// rebuilds about that layout and its backtracking starts among the buffers at its top,
    /// the ones that reach above the target. It is tried before the static preorders; the
    /// search stays complete whatever the preorder.
    pub fn seed(&mut self, bufs: &[Buffer], overlaps: &Overlaps, offsets: &[u64]) {
        if offsets.len() != bufs.len() || bufs.is_empty() {
            return;
        }
        self.seeded = Some(Instance::new(
            bufs,
            overlaps,
            &self.sections,
            &self.section_total,
            &SEEDED,
            offsets,
        ));
    }

    /// Rescans sections of more than `members` buffers only as far as a check needs (default
    /// 32; the tests set 0 so that brute force covers the partial rescan). The answers do not
    /// depend on it, only the time.
    #[doc(hidden)]
    pub fn set_long_section(&mut self, members: usize) {
        self.long_section = members;
    }

    /// One round: the seeded preorder (if any) and each static preorder in turn with at most
    /// `limit` nodes (MiniMalloc's round robin).
    pub fn round(&self, capacity: u64, limit: u64, budget: &Budget, nodes: &mut Nodes) -> Outcome {
        if self.bufs.is_empty() {
            return Outcome::Found(Vec::new());
        }
        if self.largest > capacity || self.densest > capacity {
            return Outcome::Infeasible;
        }
        let statics = PREORDERS.iter().zip(&self.instances).map(|(keys, cell)| {
            cell.get_or_init(|| {
                Instance::new(
                    &self.bufs,
                    &self.overlaps,
                    &self.sections,
                    &self.section_total,
                    keys,
                    &[],
                )
            })
        });
        for inst in self.seeded.iter().chain(statics) {
            let mut search = Search::new(inst, capacity);
            search.long_section = self.long_section;
            match search.run(budget, nodes, limit) {
                Run::Found => {
                    let mut off = vec![0u64; inst.size.len()];
                    for (rank, &pos) in inst.pos.iter().enumerate() {
                        off[pos as usize] = search.off[rank];
                    }
                    return Outcome::Found(off);
                }
                Run::Infeasible => return Outcome::Infeasible,
                Run::Expired => return Outcome::Stopped,
                Run::NodeLimit => {}
            }
        }
        Outcome::Limit
    }
}

/// Searches for a layout of `bufs` (sizes > 0) within `capacity`, doubling the node limit from
/// twice the buffer count until the question is decided or the budget ends.
pub fn solve(
    bufs: &[Buffer],
    overlaps: &Overlaps,
    capacity: u64,
    budget: &Budget,
    nodes: &mut Nodes,
) -> Outcome {
    let solver = Solver::new(bufs, overlaps);
    let mut limit = 2 * bufs.len() as u64;
    loop {
        match solver.round(capacity, limit, budget, nodes) {
            Outcome::Limit => limit = limit.saturating_mul(2),
            other => return other,
        }
    }
}

/// One group, its buffers renumbered by a preorder (rank 0 first).
struct Instance {
    /// Group position of each rank.
    pos: Vec<u32>,
    size: Vec<u64>,
    lo: Vec<u32>,
    hi: Vec<u32>,
    adj_start: Vec<u32>,
    adj: Vec<u32>,
    /// Ranks live in each section.
    mem_start: Vec<u32>,
    mem: Vec<u32>,
    total: Vec<u64>,
    /// cut[s]: buffers live in both section s and s + 1.
    cut: Vec<u32>,
    width: Vec<u64>,
    area: Vec<u128>,
    /// Per rank: `u64::MAX` minus its offset in the seed layout (0 when unseeded), so that
    /// larger-first sorting puts lower offsets first.
    seed: Vec<u64>,
    keys: [Key; 3],
}

impl Instance {
    fn new(
        bufs: &[Buffer],
        overlaps: &Overlaps,
        sections: &Sections,
        section_total: &[u64],
        keys: &[Key; 3],
        seed: &[u64],
    ) -> Instance {
        let n = bufs.len();
        let width = |i: usize| bufs[i].upper - bufs[i].lower;
        let area = |i: usize| bufs[i].size as u128 * width(i) as u128;
        let total = |i: usize| {
            section_total[sections.lo[i] as usize..sections.hi[i] as usize]
                .iter()
                .copied()
                .max()
                .unwrap_or(0)
        };
        let seed_key = |i: usize| seed.get(i).map_or(0, |&o| u64::MAX - o);
        let key = |i: usize, k: Key| -> u128 {
            match k {
                Key::Width => width(i) as u128,
                Key::Area => area(i),
                Key::Total => total(i) as u128,
                Key::Seed => seed_key(i) as u128,
            }
        };
        let mut pos: Vec<u32> = (0..n as u32).collect();
        pos.sort_by_key(|&i| {
            let i = i as usize;
            (
                Reverse(key(i, keys[0])),
                Reverse(key(i, keys[1])),
                Reverse(key(i, keys[2])),
                i,
            )
        });
        let mut rank = vec![0u32; n];
        for (r, &p) in pos.iter().enumerate() {
            rank[p as usize] = r as u32;
        }
        let size = pos.iter().map(|&p| bufs[p as usize].size).collect();
        let lo: Vec<u32> = pos.iter().map(|&p| sections.lo[p as usize]).collect();
        let hi: Vec<u32> = pos.iter().map(|&p| sections.hi[p as usize]).collect();
        let mut adj_start = Vec::with_capacity(n + 1);
        let mut adj = Vec::with_capacity(overlaps.pairs() * 2);
        adj_start.push(0);
        for &p in &pos {
            adj.extend(overlaps.row(p as usize).iter().map(|&q| rank[q as usize]));
            adj_start.push(adj.len() as u32);
        }
        let nsec = sections.clique_count();
        let mut count = vec![0u32; nsec + 1];
        for r in 0..n {
            for s in lo[r]..hi[r] {
                count[s as usize] += 1;
            }
        }
        let mut mem_start = vec![0u32; nsec + 1];
        for s in 0..nsec {
            mem_start[s + 1] = mem_start[s] + count[s];
        }
        let mut fill = mem_start.clone();
        let mut mem = vec![0u32; mem_start[nsec] as usize];
        for r in 0..n {
            for s in lo[r]..hi[r] {
                mem[fill[s as usize] as usize] = r as u32;
                fill[s as usize] += 1;
            }
        }
        let mut cut = vec![0u32; nsec.saturating_sub(1)];
        for r in 0..n {
            for s in lo[r]..hi[r].saturating_sub(1) {
                cut[s as usize] += 1;
            }
        }
        let width = pos.iter().map(|&p| width(p as usize)).collect();
        let area = pos.iter().map(|&p| area(p as usize)).collect();
        let seed = pos.iter().map(|&p| seed_key(p as usize)).collect();
        Instance {
            pos,
            size,
            lo,
            hi,
            adj_start,
            adj,
            mem_start,
            mem,
            total: section_total.to_vec(),
            cut,
            width,
            area,
            seed,
            keys: *keys,
        }
    }

    fn adj(&self, r: u32) -> &[u32] {
        &self.adj[self.adj_start[r as usize] as usize..self.adj_start[r as usize + 1] as usize]
    }

    fn members(&self, s: u32) -> &[u32] {
        &self.mem[self.mem_start[s as usize] as usize..self.mem_start[s as usize + 1] as usize]
    }
}

const UNPLACED: u64 = u64::MAX;
/// Sections with more members than this are rescanned only as far as the check needs.
const LONG_SECTION: usize = 32;

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

enum Run {
    Found,
    Infeasible,
    NodeLimit,
    Expired,
}

struct Search<'a> {
    inst: &'a Instance,
    capacity: u64,
    off: Vec<u64>,
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
    long_section: usize,
}

impl<'a> Search<'a> {
    fn new(inst: &'a Instance, capacity: u64) -> Search<'a> {
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
            self.part_bufs[bufs_lo as usize..].sort_by_key(|&r| {
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

    fn run(&mut self, budget: &Budget, nodes: &mut Nodes, limit: u64) -> Run {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::NoClock;
    use crate::layout::check::check;

    fn b(lower: u64, upper: u64, size: u64) -> Buffer {
        Buffer { lower, upper, size }
    }

    fn decide(bufs: &[Buffer], capacity: u64) -> Outcome {
        let pos: Vec<u32> = (0..bufs.len() as u32).collect();
        let o = Overlaps::of(bufs, &pos, usize::MAX).unwrap();
        let clock = NoClock;
        let budget = Budget::new(&clock, None, u64::MAX);
        solve(bufs, &o, capacity, &budget, &mut Nodes { used: 0 })
    }

    #[test]
    fn minimalloc_readme_example() {
        // benchmarks/examples/input.12.csv of MiniMalloc: fits in 12, not in 11... (peak 12).
        let bufs = [b(0, 3, 4), b(3, 9, 4), b(0, 9, 4), b(9, 21, 4), b(0, 21, 4)];
        match decide(&bufs, 12) {
            Outcome::Found(off) => assert_eq!(check(&bufs, &off, 12, 1), Ok(())),
            other => panic!("{other:?}"),
        }
        assert_eq!(decide(&bufs, 11), Outcome::Infeasible);
    }
}
