//! Backward search: the same lattice of downsets, searched from the end of a part towards its
//! start, as the second half of a bidirectional search (I. Pohl, "Bi-directional search",
//! Machine Intelligence 6, 1971).
//!
//! The forward bounds look at what the ops still to run need, so they are weakest when the
//! memory-critical ops sit at the end of a part (several branches whose last ops must each run
//! on top of the others' results): every way of reaching those ops has to be searched. Seen from
//! the end, those ops come first and the bound is tight at once. A state is still a downset S;
//! a backward step removes an op of S that no other op of S needs, and costs what the forward
//! step adding it costs (memory after a set depends only on the set). Its bound looks at the
//! ops already run: each op of S ran on top of the storages its ancestors made that it or a
//! later op needs, of those live at the start that it or a later op needs, and of the storages
//! live after S that it or an ancestor made (they stayed live from then on); and every pair of
//! the pair bound whose two ops are both in S gives its bound at the start of the part.
//!
//! When the backward search runs out of states under the best peak known, no order beats it:
//! the incumbent is optimal, whatever the forward search still has open. When it reaches the
//! empty set first, that path (reversed) is an optimal order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hashbrown::HashTable;

use super::bits::{has, hash_words, put, unset, BitMatrix};
use super::model::Model;
use super::part::{Part, NIL};

/// What one backward step found.
pub(super) enum Status {
    /// States with f below the best peak remain.
    Open,
    /// None remain: no order beats the best peak known.
    Exhausted,
    /// An optimal order of the part (local op indices) and its peak.
    Found(Vec<u32>, u64),
}

#[derive(Clone, Copy)]
struct Rec {
    /// The A* cost: the peak of the best path found from the end to this state.
    cost: u64,
    live: u64,
    parent: u32,
    /// The ops removed from the parent to reach this state, in `Backward::log`.
    log_at: u32,
    log_len: u32,
}

/// An open state: (f, ops in the set, cost, id), smallest first, so ties go to the state closest
/// to the start.
type OpenEntry = (u64, u32, u64, u32);

pub(super) struct Backward {
    keys: BitMatrix,
    recs: Vec<Rec>,
    log: Vec<u32>,
    table: HashTable<u32>,
    open: BinaryHeap<Reverse<OpenEntry>>,
    /// Per op: its in-part successors (op bitset).
    succ_mask: BitMatrix,
    /// Storages live at the start of the part.
    start_live: Vec<u64>,
    /// Each op's bound from the start's storages alone (see the module docs).
    start_need: Vec<u64>,
    /// The pairs' bounds at the start, largest first: (bound, u, v).
    pairs: Vec<(u64, u32, u32)>,
    /// The least f still open (a lower bound on the part's peak), once something was expanded.
    pub(super) lower_bound: u64,
    scratch: Vec<u64>,
    child: Vec<u64>,
}

impl Backward {
    /// A backward search of the part of `model` from its end, under `floor` (a lower bound on
    /// the peak).
    pub(super) fn new(model: &Model, floor: u64) -> Backward {
        let part = &model.part;
        let (m, w, sw) = (part.m(), part.words, part.st.words);
        let mut succ_mask = BitMatrix::new(m, w);
        for (i, succs) in part.succs.iter().enumerate() {
            for &s in succs {
                put(succ_mask.row_mut(i), s);
            }
        }
        let mut start_live = vec![0u64; sw];
        part.live_set(&vec![0u64; w], &mut start_live);
        let start_need = (0..m).map(|v| part.need(v, &start_live)).collect();
        let mut pairs: Vec<(u64, u32, u32)> = model
            .bounds
            .start_pair_values(part)
            .into_iter()
            .zip(&model.bounds.pairs)
            .map(|(x, p)| (x, p.u, p.v))
            .collect();
        pairs.sort_unstable_by(|a, b| b.cmp(a));

        // The root: every op of the part has run.
        let mut full = vec![0u64; w];
        let mut live = part.live0;
        for i in 0..m as u32 {
            live = live + part.alloc[i as usize] - part.frees(&full, i);
            put(&mut full, i);
        }
        let mut table = HashTable::new();
        table.insert_unique(hash_words(&full), 0u32, |_| hash_words(&full));
        let mut keys = BitMatrix::with_width(w);
        keys.push(&full);
        let mut b = Backward {
            keys,
            recs: vec![Rec {
                cost: floor,
                live,
                parent: NIL,
                log_at: 0,
                log_len: 0,
            }],
            log: Vec::new(),
            table,
            open: BinaryHeap::new(),
            succ_mask,
            start_live,
            start_need,
            pairs,
            lower_bound: 0,
            scratch: vec![0u64; sw],
            child: vec![0u64; w],
        };
        let mut scratch = std::mem::take(&mut b.scratch);
        let h = b.h(model, &full, &mut scratch);
        b.scratch = scratch;
        b.open.push(Reverse((floor.max(h), m as u32, floor, 0)));
        b
    }

    /// States open.
    pub(super) fn open_len(&self) -> usize {
        self.open.len()
    }

    /// Bytes held by the search's tables.
    pub(super) fn bytes(&self) -> u64 {
        (self.keys.bytes()
            + self.recs.len() * std::mem::size_of::<Rec>()
            + self.open.len() * std::mem::size_of::<OpenEntry>()
            + 3 * self.table.allocation_size()) as u64
    }

    /// A lower bound on the peak of every order of the part whose first ops are exactly `set`
    /// (see the module docs).
    pub(super) fn h(&self, model: &Model, set: &[u64], live_set: &mut [u64]) -> u64 {
        let (part, made_anc) = (&model.part, &model.bounds.made_anc);
        part.live_set(set, live_set);
        let mut worst = 0;
        for (k, &word) in set.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let v = k * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                // Live after `set` and made by an ancestor (or live since the start): live
                // while v ran. Everything else is in `start_need`.
                let (anc_made, made, cross) =
                    (made_anc.row(v), part.made.row(v), part.cross.row(v));
                let extra = (0..part.st.words).map(|i| {
                    let after = live_set[i] & (anc_made[i] | self.start_live[i]);
                    let counted = made[i] | (cross[i] & self.start_live[i]);
                    after & !counted
                });
                let need = self.start_need[v] + part.sums.sum(extra);
                worst = worst.max(need);
            }
        }
        for &(x, u, v) in &self.pairs {
            if x <= worst {
                break;
            }
            if has(set, u) && has(set, v) {
                worst = x;
                break;
            }
        }
        worst
    }

    /// Expands the best open state under `ub` (the best peak known).
    pub(super) fn step(&mut self, model: &Model, ub: u64) -> Status {
        let part = &model.part;
        loop {
            let Some(&Reverse((f, count, cost, id))) = self.open.peek() else {
                return Status::Exhausted;
            };
            if f >= ub {
                return Status::Exhausted;
            }
            self.lower_bound = self.lower_bound.max(f);
            self.open.pop();
            let rec = self.recs[id as usize];
            if rec.cost < cost {
                continue; // reached again with a lower peak
            }
            if count == 0 {
                return Status::Found(self.path(id), rec.cost);
            }
            let set = self.keys.row(id as usize).to_vec();
            let mut scratch = std::mem::take(&mut self.scratch);
            for i in 0..part.m() as u32 {
                let succ = self.succ_mask.row(i as usize);
                if !has(&set, i) || succ.iter().zip(&set).any(|(s, x)| s & x != 0) {
                    continue; // not in the set, or a later op of the set needs it
                }
                self.child.copy_from_slice(&set);
                unset(&mut self.child, i);
                let mut live = rec.live + part.frees(&self.child, i) - part.alloc[i as usize];
                let child_cost = rec.cost.max(live + part.step[i as usize]);
                if child_cost >= ub {
                    continue;
                }
                let log_at = self.log.len();
                self.log.push(i);
                let mut child = std::mem::take(&mut self.child);
                let high = self.closure(part, &mut child, &mut live, child_cost.max(f));
                self.child = child;
                let child_cost = child_cost.max(high);
                if child_cost >= ub {
                    self.log.truncate(log_at);
                    continue;
                }
                let hsh = hash_words(&self.child);
                let keys = &self.keys;
                let child = &self.child;
                let found = self
                    .table
                    .find(hsh, |&c| keys.row(c as usize) == child)
                    .copied();
                let new = Rec {
                    cost: child_cost,
                    live,
                    parent: id,
                    log_at: log_at as u32,
                    log_len: (self.log.len() - log_at) as u32,
                };
                let cid = match found {
                    Some(c) if self.recs[c as usize].cost <= child_cost => {
                        self.log.truncate(log_at);
                        continue;
                    }
                    Some(c) => {
                        self.recs[c as usize] = new;
                        c
                    }
                    None => {
                        let c = self.recs.len() as u32;
                        self.keys.push(&self.child);
                        self.recs.push(new);
                        let keys = &self.keys;
                        self.table
                            .insert_unique(hsh, c, |&x| hash_words(keys.row(x as usize)));
                        c
                    }
                };
                let fc = child_cost
                    .max(self.h(model, &self.child, &mut scratch))
                    .max(f);
                if fc < ub {
                    let left = self.child.iter().map(|x| x.count_ones()).sum::<u32>();
                    self.open.push(Reverse((fc, left, child_cost, cid)));
                }
            }
            self.scratch = scratch;
            return Status::Open;
        }
    }

    /// The forward order from the start to the full set, for the state `id` = the empty set.
    fn path(&self, mut id: u32) -> Vec<u32> {
        let mut order = Vec::new();
        while id != NIL {
            let r = self.recs[id as usize];
            let ops = &self.log[r.log_at as usize..(r.log_at + r.log_len) as usize];
            order.extend(ops.iter().rev());
            id = r.parent;
        }
        order
    }

    /// The mirror of the forward dominance rule: an op of `set` that no other op of it needs,
    /// that allocates at least what it frees on top of the rest of `set`, and whose step stays
    /// under `limit` (a lower bound on the peak of every order through this state) can be the
    /// last op before the rest: moved later, it never raises the memory the ops after it see
    /// (on top of fewer ops it frees no more, so its net change is never negative there), and
    /// its own step stays under `limit`. Removes such ops in place (logging them) and returns
    /// the most memory any of their steps used.
    fn closure(&mut self, part: &Part, set: &mut [u64], live: &mut u64, limit: u64) -> u64 {
        let mut high = 0;
        loop {
            let mut any = false;
            for i in (0..part.m() as u32).rev() {
                let succ = self.succ_mask.row(i as usize);
                if !has(set, i) || succ.iter().zip(set.iter()).any(|(s, x)| s & x != 0) {
                    continue;
                }
                unset(set, i);
                let frees = part.frees(set, i);
                let alloc = part.alloc[i as usize];
                let before = *live + frees - alloc;
                if alloc >= frees && before + part.step[i as usize] <= limit {
                    high = high.max(before + part.step[i as usize]);
                    *live = before;
                    self.log.push(i);
                    any = true;
                } else {
                    put(set, i);
                }
            }
            if !any {
                return high;
            }
        }
    }
}
