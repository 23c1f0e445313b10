//! A part's state: the ops of one part of the graph between cut ops, with local op indices
//! (their positions in a topological order of the part) and local storage indices for the
//! storages they read or make, and what the searches ask of a state (a set of ops run, as an op
//! bitset): which ops are ready, what an op frees, which storages are live, what an op needs.
//!
//! The tables of the dominance rules ([`super::dominance`]) and of the bounds
//! ([`super::bounds`]) are built from this one; [`super::model`] holds the three together.

use crate::sort::CompactSort;
use std::collections::HashMap;

use crate::graph::Graph;
use crate::OpIx;

use super::bits::{has, put, unset, BitMatrix, ByteSums};

/// No op or storage (a storage made before the part has no local producer).
pub(super) const NIL: u32 = u32::MAX;

/// Ops set up between two reads of the deadline in [`Part::of_ops`] (a 400-op part of
/// mobilenet_v3_small's training step took 6 ms to set up unread).
const STOP_EVERY: usize = 32;

/// A storage that ops of the part read.
pub(super) struct Read {
    pub(super) size: u64,
    /// Freed inside the part once every in-part user ran (not pinned, no user after the part).
    pub(super) freeable: bool,
    /// In-part users other than the reader.
    pub(super) others: Vec<u32>,
}

/// The storages the part's ops read or make, by local index.
pub(super) struct Storages {
    pub(super) size: Vec<u64>,
    /// The local op that makes it, or NIL if it was made before the part.
    pub(super) producer: Vec<u32>,
    /// Its in-part users, one op bitset per storage.
    pub(super) users: BitMatrix,
    /// Never freed inside the part.
    pub(super) perm: Vec<bool>,
    /// Freed right after its producer (made in the part, read by nobody, not pinned).
    pub(super) transient: Vec<bool>,
    /// Words of a storage bitset.
    pub(super) words: usize,
}

impl Storages {
    pub(super) fn len(&self) -> usize {
        self.size.len()
    }
}

/// One part of the graph; see the module docs.
pub(super) struct Part {
    pub(super) ops: Vec<OpIx>,
    /// Words of an op bitset.
    pub(super) words: usize,
    pub(super) reads: Vec<Vec<Read>>,
    pub(super) alloc: Vec<u64>,
    /// alloc + workspace: what op i adds while it runs.
    pub(super) step: Vec<u64>,
    /// Bytes op i frees no matter what: its own outputs nobody reads.
    pub(super) self_free: Vec<u64>,
    /// Memory at the start of the part.
    pub(super) live0: u64,
    pub(super) st: Storages,
    /// Sums of `st.size` over storage bitsets.
    pub(super) sums: ByteSums,
    /// Bytes live at the start that the part never touches (live throughout).
    pub(super) untouched: u64,
    /// Per op: storages that, once made, stay live until the op has run (`cross`), and those of
    /// them made by the op's ancestors (`made`), as storage bitsets.
    pub(super) cross: BitMatrix,
    pub(super) made: BitMatrix,
    /// Per op: its in-part predecessors as an op bitset.
    pub(super) pred_mask: BitMatrix,
    /// In-part successors of each op.
    pub(super) succs: Vec<Vec<u32>>,
}

/// Per op of a part: its ancestors and its descendants-or-self (op bitsets). The pair tables
/// are built from them; the searches do not need them.
pub(super) struct Lineage {
    pub(super) anc: BitMatrix,
    pub(super) desc: BitMatrix,
}

impl Part {
    /// A part made of `ops` (listed in a topological order): ops at positions before `a` in the
    /// order `pos` describes have run, `live0` is the memory then, and every other op runs
    /// after the part (or alongside it, when `ops` is one independent component of a part: what
    /// they read is never freed here). `None` once `stop()` is true.
    pub(super) fn of_ops(
        g: &Graph,
        ops: &[OpIx],
        pos: &[usize],
        a: usize,
        live0: u64,
        stop: &dyn Fn() -> bool,
    ) -> Option<(Part, Lineage)> {
        let m = ops.len();
        let words = m.div_ceil(64).max(1);
        let mut index: HashMap<OpIx, u32> = HashMap::with_capacity(m);
        for (i, &v) in ops.iter().enumerate() {
            index.insert(v, i as u32);
        }
        let local = |v: OpIx| index.get(&v).copied().unwrap_or(NIL);
        let before = |v: OpIx| pos[v as usize] < a;
        // A storage is "permanent" inside the part when it is never freed there.
        let perm =
            |s: u32| g.pinned(s) || g.users(s).iter().any(|&u| !before(u) && local(u) == NIL);
        let mut preds = Vec::with_capacity(m);
        let mut reads = Vec::with_capacity(m);
        let mut alloc = Vec::with_capacity(m);
        let mut step = Vec::with_capacity(m);
        let mut self_free = Vec::with_capacity(m);
        for (i, &v) in ops.iter().enumerate() {
            // Setting a part up can take milliseconds (every read lists its storage's users):
            // the deadline is read as it goes, and a part set up too late is not set up at all.
            if i % STOP_EVERY == STOP_EVERY - 1 && stop() {
                return None;
            }
            preds.push(
                g.preds(v)
                    .iter()
                    .map(|&p| local(p))
                    .filter(|&p| p != NIL)
                    .collect::<Vec<_>>(),
            );
            reads.push(
                g.reads(v)
                    .iter()
                    .map(|&s| Read {
                        size: g.size(s),
                        freeable: !perm(s),
                        others: g
                            .users(s)
                            .iter()
                            .map(|&u| local(u))
                            .filter(|&u| u != NIL && u != i as u32)
                            .collect(),
                    })
                    .collect::<Vec<_>>(),
            );
            alloc.push(g.alloc(v));
            step.push(g.alloc(v) + g.workspace(v));
            self_free.push(
                g.creates(v)
                    .iter()
                    .filter(|&&s| g.users(s).is_empty() && !g.pinned(s))
                    .map(|&s| g.size(s))
                    .sum(),
            );
        }
        // Local storages: what the part reads or makes.
        let mut sts: Vec<u32> = ops
            .iter()
            .flat_map(|&v| g.reads(v).iter().chain(g.creates(v)).copied())
            .collect();
        sts.sort_unstable_compact();
        sts.dedup();
        let mut st = Storages {
            size: Vec::with_capacity(sts.len()),
            producer: Vec::with_capacity(sts.len()),
            users: BitMatrix::new(sts.len(), words),
            perm: Vec::with_capacity(sts.len()),
            transient: Vec::with_capacity(sts.len()),
            words: sts.len().div_ceil(64).max(1),
        };
        let mut touched_live = 0;
        for (k, &s) in sts.iter().enumerate() {
            let producer = g.tensors()[s as usize].producer.map_or(NIL, local);
            let made_before = g.tensors()[s as usize].producer.map_or(true, before);
            st.size.push(g.size(s));
            st.producer.push(producer);
            for &u in g.users(s) {
                let lu = local(u);
                if lu != NIL {
                    put(st.users.row_mut(k), lu);
                }
            }
            st.perm.push(perm(s));
            st.transient
                .push(producer != NIL && g.users(s).is_empty() && !g.pinned(s));
            // Live at the start: made before, and not freed before (a user remains, or never).
            let users_left = g.users(s).iter().any(|&u| !before(u));
            let never_freed = g.pinned(s)
                || (g.users(s).is_empty() && g.tensors()[s as usize].producer.is_none());
            if made_before && (never_freed || users_left) {
                touched_live += g.size(s);
            }
        }
        // Ancestors and descendants-or-self inside the part (local order is topological).
        let mut anc = BitMatrix::new(m, words);
        for (i, ps) in preds.iter().enumerate() {
            for &p in ps {
                anc.or_row(i, p as usize);
                put(anc.row_mut(i), p);
            }
        }
        let mut desc = BitMatrix::new(m, words);
        for i in (0..m).rev() {
            put(desc.row_mut(i), i as u32);
            for &p in &preds[i] {
                desc.or_row(p as usize, i);
            }
        }
        let mut cross = BitMatrix::new(m, st.words);
        let mut made = BitMatrix::new(m, st.words);
        for v in 0..m {
            if v % STOP_EVERY == STOP_EVERY - 1 && stop() {
                return None;
            }
            let (dv, av) = (desc.row(v), anc.row(v));
            for k in 0..st.len() {
                let users = st.users.row(k);
                let crosses = st.perm[k] || users.iter().zip(dv).any(|(x, y)| x & y != 0);
                if crosses && !st.transient[k] {
                    put(cross.row_mut(v), k as u32);
                    let p = st.producer[k];
                    if p != NIL && p != v as u32 && has(av, p) {
                        put(made.row_mut(v), k as u32);
                    }
                }
            }
        }
        let mut pred_mask = BitMatrix::new(m, words);
        for (i, ps) in preds.iter().enumerate() {
            for &p in ps {
                put(pred_mask.row_mut(i), p);
            }
        }
        let mut succs = vec![Vec::new(); m];
        for (i, ps) in preds.iter().enumerate() {
            for &p in ps {
                succs[p as usize].push(i as u32);
            }
        }
        let part = Part {
            ops: ops.to_vec(),
            words,
            reads,
            alloc,
            step,
            self_free,
            live0,
            sums: ByteSums::new(&st.size),
            st,
            untouched: live0 - touched_live,
            cross,
            made,
            pred_mask,
            succs,
        };
        Some((part, Lineage { anc, desc }))
    }

    /// Ops in the part.
    pub(super) fn m(&self) -> usize {
        self.ops.len()
    }

    /// Bytes live at the start, among the storages the part touches, that it never frees.
    pub(super) fn perm_at_start(&self) -> u64 {
        let mut set = vec![0u64; self.st.words];
        self.live_set(&vec![0u64; self.words], &mut set);
        (0..self.st.len() as u32)
            .filter(|&k| has(&set, k) && self.st.perm[k as usize])
            .map(|k| self.st.size[k as usize])
            .sum()
    }

    /// Whether op `i` can run after `set`: not run, every predecessor run.
    #[inline]
    pub(super) fn ready(&self, set: &[u64], i: u32) -> bool {
        let need = self.pred_mask.row(i as usize);
        !has(set, i) && need.iter().zip(set).all(|(p, s)| p & !s == 0)
    }

    /// Bytes op `i` frees when it runs after `set`.
    pub(super) fn frees(&self, set: &[u64], i: u32) -> u64 {
        let mut f = self.self_free[i as usize];
        for r in &self.reads[i as usize] {
            if r.freeable && r.others.iter().all(|&u| has(set, u)) {
                f += r.size;
            }
        }
        f
    }

    /// The ops ready after `set` (not run, every predecessor run), into `out`.
    pub(super) fn ready_mask(&self, set: &[u64], out: &mut [u64]) {
        out.fill(0);
        for i in 0..self.m() as u32 {
            if self.ready(set, i) {
                put(out, i);
            }
        }
    }

    /// Adds op `i` (ready) to `set` and updates `ready`: `i` leaves it, and successors whose
    /// predecessors have all run join it.
    #[inline]
    pub(super) fn mark_run(&self, set: &mut [u64], ready: &mut [u64], i: u32) {
        put(set, i);
        unset(ready, i);
        for &w in &self.succs[i as usize] {
            if self.ready(set, w) {
                put(ready, w);
            }
        }
    }

    /// Storages live after `set` ran (as a storage bitset in `out`).
    pub(super) fn live_set(&self, set: &[u64], out: &mut [u64]) {
        out.fill(0);
        for k in 0..self.st.len() {
            let p = self.st.producer[k];
            if self.st.transient[k] || (p != NIL && !has(set, p)) {
                continue;
            }
            let users = self.st.users.row(k);
            let pending = users.iter().zip(set).any(|(u, s)| u & !s != 0);
            if self.st.perm[k] || pending {
                put(out, k as u32);
            }
        }
    }

    /// A lower bound on the memory while op `i` runs, given the storages live now: on top of
    /// its step, every storage live now or made by its ancestors that it or a descendant still
    /// needs, or that is never freed (see [`super::bounds::Bounds::h`]).
    pub(super) fn need(&self, i: usize, live_set: &[u64]) -> u64 {
        let words = self
            .cross
            .row(i)
            .iter()
            .zip(self.made.row(i))
            .zip(live_set)
            .map(|((c, mk), l)| mk | (c & l));
        self.untouched + self.step[i] + self.sums.sum(words)
    }

    /// A bound on the memory while op `i` runs before op `j` (neither run yet): [`Part::need`],
    /// plus what is live now that `j` or a descendant of `j` still needs.
    pub(super) fn need_beside(&self, i: usize, j: usize, live_set: &[u64]) -> u64 {
        let (ci, cj, made) = (self.cross.row(i), self.cross.row(j), self.made.row(i));
        let words = (0..self.st.words).map(|k| made[k] | ((ci[k] | cj[k]) & live_set[k]));
        self.untouched + self.step[i] + self.sums.sum(words)
    }

    /// Storages not made yet after `set`: made in the part by an op still to run.
    pub(super) fn unmade(&self, set: &[u64]) -> Vec<u64> {
        let mut unmade = vec![0u64; self.st.words];
        for k in 0..self.st.len() {
            let p = self.st.producer[k];
            if p != NIL && !has(set, p) {
                put(&mut unmade, k as u32);
            }
        }
        unmade
    }
}
