//! One group's buffers renumbered by a preorder, with what the search reads of them (sizes,
//! sections, overlaps, the preorder's keys), and the preorders tried.

use crate::sort::CompactSort;
use std::cmp::Reverse;

use crate::layout::overlaps::Overlaps;
use crate::layout::problem::{Buffer, Sections};

/// Static preorders (MiniMalloc's names: W = lifetime width, A = area, T = the largest total
/// size of a section the buffer spans; larger first).
pub(super) const PREORDERS: [[Key; 3]; 3] = [
    [Key::Width, Key::Area, Key::Total],
    [Key::Total, Key::Area, Key::Width],
    [Key::Total, Key::Width, Key::Area],
];

#[derive(Clone, Copy, Debug)]
pub(super) enum Key {
    Width,
    Area,
    Total,
    /// Lower offset in a known layout first (a warm start, [`super::Solver::seed`]).
    Seed,
}

/// The seeded preorder: the incumbent's offsets, then its larger buffers.
pub(super) const SEEDED: [Key; 3] = [Key::Seed, Key::Area, Key::Width];

/// One group, its buffers renumbered by a preorder (rank 0 first).
pub(super) struct Instance {
    /// Group position of each rank.
    pub(super) pos: Vec<u32>,
    pub(super) size: Vec<u64>,
    pub(super) lo: Vec<u32>,
    pub(super) hi: Vec<u32>,
    pub(super) adj_start: Vec<u32>,
    pub(super) adj: Vec<u32>,
    /// Ranks live in each section.
    pub(super) mem_start: Vec<u32>,
    pub(super) mem: Vec<u32>,
    pub(super) total: Vec<u64>,
    /// cut[s]: buffers live in both section s and s + 1.
    pub(super) cut: Vec<u32>,
    pub(super) width: Vec<u64>,
    pub(super) area: Vec<u128>,
    /// Per rank: `u64::MAX` minus its offset in the seed layout (0 when unseeded), so that
    /// larger-first sorting puts lower offsets first.
    pub(super) seed: Vec<u64>,
    pub(super) keys: [Key; 3],
}

impl Instance {
    pub(super) fn new(
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
        pos.sort_by_key_compact(|&i| {
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

    pub(super) fn adj(&self, r: u32) -> &[u32] {
        &self.adj[self.adj_start[r as usize] as usize..self.adj_start[r as usize + 1] as usize]
    }

    pub(super) fn members(&self, s: u32) -> &[u32] {
        &self.mem[self.mem_start[s as usize] as usize..self.mem_start[s as usize + 1] as usize]
    }
}
