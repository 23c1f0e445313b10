//! The dominance rules of the exact search: moves that some optimal order makes, so a state
//! takes them at once instead of branching ([`Closure::run`] gives the argument of each).
//!
//! - An op that stays under a lower bound of the final peak and frees at least what it
//!   allocates runs at once;
//! - so does a chain of successors that stays under it and ends at its own lowest memory
//!   ([`MAX_CHAIN`] ops at most);
//! - and a block of ready ops that together free a shared input ([`MAX_BLOCK`] ops at most).

use super::bits::{has, put, unset, BitMatrix};
use super::part::Part;

/// Longest chain the dominance closure tries (see [`Closure::run`]).
pub(super) const MAX_CHAIN: usize = 8;

/// Most ops in a block of the dominance closure (see [`Closure::block`]).
pub(super) const MAX_BLOCK: usize = 4;

/// What the rules need of a part beyond its state, built once per part.
pub(super) struct Dominance {
    /// Ops that can free at least what they allocate (the only ones the closure may run), as
    /// an op bitset.
    closable: Vec<u64>,
    /// Ops that can start a chain for [`Closure::chain`]: some successor chain from them could
    /// end at or below its start even if every op freed all it possibly can.
    chain_starts: Vec<u32>,
    /// The in-part users of each storage that the part frees and that 2 to [`MAX_BLOCK`] ops
    /// use, for [`Closure::block`].
    blocks: Vec<Vec<u32>>,
    /// The same users as op bitsets, one row per block.
    block_masks: BitMatrix,
}

impl Dominance {
    pub(super) fn new(part: &Part) -> Dominance {
        let m = part.m();
        let (reads, alloc, self_free, succs) =
            (&part.reads, &part.alloc, &part.self_free, &part.succs);
        let mut closable = vec![0u64; part.words];
        for i in (0..m as u32).filter(|&i| {
            let most: u64 = reads[i as usize]
                .iter()
                .filter(|r| r.freeable)
                .map(|r| r.size)
                .sum::<u64>()
                + self_free[i as usize];
            most >= alloc[i as usize]
        }) {
            put(&mut closable, i);
        }
        // best[v]: least cumulative (alloc − most it can free) over successor chains from v of
        // at most MAX_CHAIN ops, by rounds in reverse topological order.
        let optimistic: Vec<i128> = (0..m)
            .map(|i| {
                let most: u64 = reads[i]
                    .iter()
                    .filter(|r| r.freeable)
                    .map(|r| r.size)
                    .sum::<u64>()
                    + self_free[i];
                alloc[i] as i128 - most as i128
            })
            .collect();
        let mut best = optimistic.clone();
        for _ in 1..MAX_CHAIN {
            let prev = best.clone();
            for v in 0..m {
                if let Some(t) = succs[v].iter().map(|&w| prev[w as usize]).min() {
                    best[v] = optimistic[v].min(optimistic[v] + t);
                }
            }
        }
        let chain_starts = (0..m as u32)
            .filter(|&v| {
                succs[v as usize]
                    .iter()
                    .any(|&w| optimistic[v as usize] + best[w as usize] <= 0)
            })
            .collect();
        // Storages freed in the part with a few users there: their users may form a block.
        let st = &part.st;
        let blocks = (0..st.len())
            .filter(|&k| !st.perm[k] && !st.transient[k])
            .map(|k| {
                (0..m as u32)
                    .filter(|&u| has(st.users.row(k), u))
                    .collect::<Vec<u32>>()
            })
            .filter(|us| (2..=MAX_BLOCK).contains(&us.len()))
            .collect::<Vec<_>>();
        let mut block_masks = BitMatrix::new(blocks.len(), part.words);
        for (b, users) in blocks.iter().enumerate() {
            for &u in users {
                put(block_masks.row_mut(b), u);
            }
        }
        Dominance {
            closable,
            chain_starts,
            blocks,
            block_masks,
        }
    }
}

/// The rules applied to one part: its state and its tables.
#[derive(Clone, Copy)]
pub(super) struct Closure<'p> {
    pub(super) part: &'p Part,
    pub(super) tables: &'p Dominance,
}

impl Closure<'_> {
    /// Runs the dominance closure in place and returns the most memory any op it ran used.
    ///
    /// An op that stays under `limit` (a lower bound on the final peak) and frees at least what
    /// it allocates can run at once. So can a *chain* (each op a successor of the one before)
    /// whose steps stay under `limit` and whose memory ends at or below every earlier point of
    /// it, the start included: moved to the front of any order, it only lowers the memory the
    /// other ops see, since what an op frees only grows as more ops have run.
    /// `ready` holds the ops ready after `set` and is kept up to date.
    pub(super) fn run(
        &self,
        set: &mut [u64],
        ready: &mut [u64],
        live: &mut u64,
        log: &mut Vec<u32>,
        limit: u64,
    ) -> u64 {
        let mut high = 0;
        loop {
            let mut any = false;
            for k in 0..self.part.words {
                let mut cand = self.tables.closable[k] & ready[k];
                while cand != 0 {
                    let i = (k * 64) as u32 + cand.trailing_zeros();
                    cand &= cand - 1;
                    if *live + self.part.step[i as usize] > limit {
                        continue;
                    }
                    let f = self.part.frees(set, i);
                    if f >= self.part.alloc[i as usize] {
                        high = high.max(*live + self.part.step[i as usize]);
                        *live = *live + self.part.alloc[i as usize] - f;
                        self.part.mark_run(set, ready, i);
                        log.push(i);
                        any = true;
                        // Ops this one made ready are candidates too.
                        cand = self.tables.closable[k] & ready[k] & !((2u64 << (i % 64)) - 1);
                    }
                }
            }
            if !any {
                any = self.chain(set, ready, live, log, limit, &mut high);
            }
            if !any {
                any = self.block(set, ready, live, log, limit, &mut high);
            }
            if !any {
                return high;
            }
        }
    }

    /// Finds and runs one block for [`Closure::run`]; false if there is none.
    ///
    /// A block is the set T of the users still to run of a storage that the part frees (at most
    /// [`MAX_BLOCK`] ops), all of them ready, such that memory after all of T is at most memory
    /// after any subset of T (so running T together frees the storage and leaves less than any
    /// partial run), and some order of T stays under `limit`. Moved to the front of any order it
    /// never raises what the other ops see: for a subset Y of T run before an op w, memory before
    /// w drops by the net of T \ Y on top of a larger set, at most its net on top of Y, which is
    /// not positive (what ops free only grows as more ops have run). Single ops and chains are
    /// the rules above; this catches ops that free a shared input only together.
    fn block(
        &self,
        set: &mut [u64],
        ready: &mut [u64],
        live: &mut u64,
        log: &mut Vec<u32>,
        limit: u64,
        high: &mut u64,
    ) -> bool {
        let mut scratch = Vec::new();
        let mut t: Vec<u32> = Vec::with_capacity(MAX_BLOCK);
        let w = self.part.words;
        for (b, users) in self.tables.blocks.iter().enumerate() {
            // Cheap rejections first: most blocks have a user that is not ready.
            let mask = self.tables.block_masks.row(b);
            if (0..w).any(|k| mask[k] & !(ready[k] | set[k]) != 0) {
                continue;
            }
            t.clear();
            t.extend(users.iter().copied().filter(|&u| !has(set, u)));
            if t.len() < 2 {
                continue;
            }
            // Memory after S ∪ Y for every subset Y of T (ready ops are independent, so every
            // subset is a downset); mem[Y] via Y minus its highest member.
            let full = (1usize << t.len()) - 1;
            let mut mem = vec![0i128; full + 1];
            mem[0] = *live as i128;
            for y in 1..=full {
                let top = usize::BITS - 1 - y.leading_zeros();
                let rest = y & !(1 << top);
                scratch.clear();
                scratch.extend_from_slice(set);
                for (j, &u) in t.iter().enumerate() {
                    if rest >> j & 1 == 1 {
                        put(&mut scratch, u);
                    }
                }
                let v = t[top as usize];
                mem[y] = mem[rest] + self.part.alloc[v as usize] as i128
                    - self.part.frees(&scratch, v) as i128;
            }
            if mem[..full].iter().any(|&x| mem[full] > x) {
                continue;
            }
            // An order of T under `limit`: reachable subsets, each with the member run last.
            let mut last = vec![u8::MAX; full + 1];
            last[0] = 0;
            for y in 0..full {
                if last[y] == u8::MAX {
                    continue;
                }
                for (j, &v) in t.iter().enumerate() {
                    let ny = y | 1 << j;
                    if ny != y
                        && last[ny] == u8::MAX
                        && mem[y] + self.part.step[v as usize] as i128 <= limit as i128
                    {
                        last[ny] = j as u8;
                    }
                }
            }
            if last[full] == u8::MAX {
                continue;
            }
            let mut seq = Vec::with_capacity(t.len());
            let mut y = full;
            while y != 0 {
                let j = last[y] as usize;
                seq.push(j);
                y &= !(1 << j);
            }
            let mut y = 0usize;
            for &j in seq.iter().rev() {
                let v = t[j];
                *high = (*high).max((mem[y] + self.part.step[v as usize] as i128) as u64);
                self.part.mark_run(set, ready, v);
                log.push(v);
                y |= 1 << j;
            }
            *live = mem[full] as u64;
            return true;
        }
        false
    }

    /// Finds and runs one chain for [`Closure::run`]; false if there is none.
    fn chain(
        &self,
        set: &mut [u64],
        ready: &mut [u64],
        live: &mut u64,
        log: &mut Vec<u32>,
        limit: u64,
        high: &mut u64,
    ) -> bool {
        let start = log.len();
        // `ready` as it was, to undo a chain that fails (taken when the first one is tried).
        let mut ready0: Vec<u64> = Vec::new();
        for &first in &self.tables.chain_starts {
            if *live + self.part.step[first as usize] > limit || !has(ready, first) {
                continue;
            }
            if ready0.is_empty() {
                ready0.extend_from_slice(ready);
            }
            let (live0, high0) = (*live, *high);
            let mut low = *live; // least memory so far along the chain
            let mut v = first;
            loop {
                *high = (*high).max(*live + self.part.step[v as usize]);
                *live = *live + self.part.alloc[v as usize] - self.part.frees(set, v);
                self.part.mark_run(set, ready, v);
                log.push(v);
                if *live <= low && log.len() - start > 1 {
                    return true;
                }
                low = low.min(*live);
                if log.len() - start >= MAX_CHAIN {
                    break;
                }
                let next = self.part.succs[v as usize]
                    .iter()
                    .copied()
                    .find(|&w| *live + self.part.step[w as usize] <= limit && has(ready, w));
                match next {
                    Some(w) => v = w,
                    None => break,
                }
            }
            // Undo the failed chain.
            for &u in &log[start..] {
                unset(set, u);
            }
            ready.copy_from_slice(&ready0);
            log.truncate(start);
            *live = live0;
            *high = high0;
        }
        false
    }
}
