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
//!
//! Here: the decision questions ([`Solver`], [`solve`]); by job, in submodules: a group's
//! buffers renumbered by a preorder (`instance`) and the search itself (`search`).

mod instance;
mod search;

use std::cell::OnceCell;

use super::overlaps::Overlaps;
use super::problem::{Buffer, Sections};
use crate::budget::Budget;
use instance::{Instance, PREORDERS, SEEDED};
use search::{Run, Search, LONG_SECTION};

pub use search::Nodes;

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
