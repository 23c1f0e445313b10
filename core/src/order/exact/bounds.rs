//! The admissible lower bounds of the exact search, per state: what the next op and every op
//! still to run must have on top of it ([`Bounds::h`]), the pair bound for two ops neither of
//! which precedes the other ([`Bounds::pair_bound`], the pairs of `pairs.rs`), and at the start
//! of a part the minimum cut of `cut.rs` ([`Bounds::static_bound`]).

use super::bits::{has, weight, BitMatrix};
use super::cut::CutNet;
use super::pairs::{pair_sets, pairs_by_op, Pair, PairTables, MAX_PAIR_OPS};
use super::part::{Lineage, Part, NIL};

/// A part's bound tables.
pub(super) struct Bounds {
    /// (largest possible need, op), largest first: see [`Bounds::h`].
    by_need: Vec<(u64, u32)>,
    /// Pairs of incomparable ops for the pair bound of [`Bounds::h`]: (u, v, static potential),
    /// largest potential first, with `pair_bits` rows 2k = P(u, v) and 2k + 1 = P(v, u)
    /// (storage bitsets, see [`pair_sets`]).
    pub(super) pairs: Vec<Pair>,
    pair_bits: BitMatrix,
    /// Per op: the storages its strict ancestors make (storage bitsets; empty without pairs).
    pub(super) made_anc: BitMatrix,
    /// Per op: its pairs, and the most they can add to its bound (see [`pairs_by_op`]).
    op_pairs: Vec<Vec<u32>>,
    share_in: Vec<u64>,
    extra_first: Vec<u64>,
    /// The part's cut network, for its start bound (parts of 2 to [`MAX_PAIR_OPS`] ops).
    pub(super) cut: Option<CutNet>,
}

impl Bounds {
    /// The tables of `part`. Its pair tables and start cut (O(ops²) and a flow per op) are cut
    /// short once `stop()` is true: the bounds are then weaker, never wrong.
    pub(super) fn new(part: &Part, lineage: &Lineage, stop: &dyn Fn() -> bool) -> Bounds {
        let m = part.m();
        let PairTables {
            pairs,
            bits: pair_bits,
            made_anc,
        } = pair_sets(part, lineage, stop);
        let (op_pairs, share_in, extra_first) = pairs_by_op(m, &pairs);
        let mut by_need: Vec<(u64, u32)> = (0..m)
            .map(|v| {
                let c = part.cross.row(v);
                (
                    part.untouched + part.step[v] + weight(c.iter().copied(), &part.st.size),
                    v as u32,
                )
            })
            .collect();
        by_need.sort_unstable_by(|x, y| y.cmp(x));
        Bounds {
            by_need,
            pairs,
            pair_bits,
            made_anc,
            op_pairs,
            share_in,
            extra_first,
            cut: ((2..=MAX_PAIR_OPS).contains(&m) && !stop()).then(|| CutNet::new(part, stop)),
        }
    }

    /// Admissible lower bound on the peak of any completion from `set`: the next op runs on
    /// top of `live`; and each op still to run has on top of it every storage live now or made
    /// by its ancestors that one of its descendants (or itself) still needs, or that is never
    /// freed.
    pub(super) fn h(
        &self,
        part: &Part,
        set: &[u64],
        live: u64,
        scratch: &mut [u64],
        cap: u64,
    ) -> u64 {
        let mut ready = vec![0u64; part.words];
        part.ready_mask(set, &mut ready);
        let worst = self.h_single(part, set, &ready, live, scratch, cap);
        if worst < cap {
            worst.max(self.pair_bound(part, set, scratch, worst, cap, NIL).0)
        } else {
            worst
        }
    }

    /// [`Bounds::h`] without the pair bound; leaves the storages live after `set` in `scratch`.
    pub(super) fn h_single(
        &self,
        part: &Part,
        set: &[u64],
        ready: &[u64],
        live: u64,
        scratch: &mut [u64],
        cap: u64,
    ) -> u64 {
        let mut next = u64::MAX;
        for (k, &word) in ready.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let i = k * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                next = next.min(live + part.step[i]);
            }
        }
        let mut worst = if next == u64::MAX { 0 } else { next };
        part.live_set(set, scratch);
        // Ops by their largest possible need, so the scan stops once no op can beat `worst`.
        for &(most, i) in &self.by_need {
            if most <= worst || worst >= cap {
                break;
            }
            if has(set, i) {
                continue;
            }
            let ii = i as usize;
            let (cross, made) = (part.cross.row(ii), part.made.row(ii));
            let words = cross
                .iter()
                .zip(made)
                .zip(scratch.iter())
                .map(|((c, mk), l)| mk | (c & l));
            let need = part.untouched + part.step[ii] + part.sums.sum(words);
            worst = worst.max(need);
        }
        worst
    }

    /// The pair bound (see [`pair_sets`]) from `set`, where `live_set` holds the storages live
    /// now; only pairs that could beat `worst` are looked at.
    ///
    /// The scan stops once the bound reaches `cap` (nothing above it matters to the caller).
    /// `hint` is a pair to try first (the one that gave a nearby state its bound, or NIL); the
    /// result comes with the pair that gave it (NIL if none beat `worst`).
    pub(super) fn pair_bound(
        &self,
        part: &Part,
        set: &[u64],
        live_set: &[u64],
        mut worst: u64,
        cap: u64,
        hint: u32,
    ) -> (u64, u32) {
        let mut witness = NIL;
        if self.pairs.is_empty() {
            return (worst, witness);
        }
        let m = part.m();
        let needs = self.needs_held(part, set, live_set);
        let held_max = needs.iter().map(|n| n.1).max().unwrap_or(0);
        // A pair beats `worst` only if, whichever runs first, one of its ops' bounds rises
        // above it, so one of the two is "hot": its need plus the most a pair can add to it
        // beats `worst`. Only the hot ops' pairs are scanned.
        let hot: Vec<u32> = (0..m as u32)
            .filter(|&x| {
                let add = self.share_in[x as usize].max(self.extra_first[x as usize].min(held_max));
                !has(set, x) && needs[x as usize].0 + add > worst
            })
            .collect();
        let unmade = part.unmade(set);
        let eval =
            |n: usize, worst: u64| self.pair_value(part, n, &needs, &unmade, live_set, worst);
        if hint != NIL {
            let pr = self.pairs[hint as usize];
            if !has(set, pr.u) && !has(set, pr.v) {
                let x = eval(hint as usize, worst);
                if x > worst {
                    (worst, witness) = (x, hint);
                }
            }
        }
        let mut done = vec![false; m];
        for &x in &hot {
            for &k in &self.op_pairs[x as usize] {
                if worst >= cap {
                    return (worst, witness);
                }
                let pr = &self.pairs[k as usize];
                if pr.pot <= worst {
                    break;
                }
                let other = if pr.u == x { pr.v } else { pr.u };
                if done[other as usize] || has(set, other) {
                    continue; // seen from the other side, or no longer a pair
                }
                let x = eval(k as usize, worst);
                if x > worst {
                    (worst, witness) = (x, k);
                }
            }
            done[x as usize] = true;
        }
        (worst, witness)
    }

    /// The bound of pair `n` from a state where `needs` holds each op's (`need`, `held`) (see
    /// [`Bounds::pair_bound`]), `unmade` the storages not made yet and `live_set` those live; 0
    /// when it cannot beat `worst`.
    fn pair_value(
        &self,
        part: &Part,
        n: usize,
        needs: &[(u64, u64)],
        unmade: &[u64],
        live_set: &[u64],
        worst: u64,
    ) -> u64 {
        let pr = self.pairs[n];
        let (u, v) = (pr.u, pr.v);
        let ((nv, hv), (nu, hu)) = (needs[v as usize], needs[u as usize]);
        // If u runs first: v has on top of it u's share, and u has on top of it what v still
        // needs from what is live now. Upper bounds first (the full sets, made or not; all
        // that v holds), then the exact shares.
        if (nv + pr.a_max).max(nu + hv.min(pr.extra_u)) <= worst
            || (nu + pr.b_max).max(nv + hu.min(pr.extra_v)) <= worst
        {
            return 0;
        }
        let (puv, pvu) = (self.pair_bits.row(2 * n), self.pair_bits.row(2 * n + 1));
        let a = (part.sums.sum(puv.iter().zip(unmade).map(|(x, y)| x & y)) + pr.suv).max(pr.vuv);
        let first = (nv + a).max(part.need_beside(u as usize, v as usize, live_set));
        if first <= worst {
            return 0;
        }
        let b = (part.sums.sum(pvu.iter().zip(unmade).map(|(x, y)| x & y)) + pr.svu).max(pr.vvu);
        first.min((nu + b).max(part.need_beside(v as usize, u as usize, live_set)))
    }

    /// Per op not in `set`: its `need` and the live bytes it or a descendant still needs
    /// (`held`), given the storages live now; (0, 0) for ops in `set`.
    fn needs_held(&self, part: &Part, set: &[u64], live_set: &[u64]) -> Vec<(u64, u64)> {
        (0..part.m())
            .map(|x| {
                if has(set, x as u32) {
                    return (0, 0);
                }
                let c = part.cross.row(x);
                let held = part.sums.sum(c.iter().zip(live_set).map(|(c, l)| c & l));
                (part.need(x, live_set), held)
            })
            .collect()
    }

    /// Every pair's bound at the start of the part (so in every order, since both ops of a
    /// pair run somewhere in it).
    pub(super) fn start_pair_values(&self, part: &Part) -> Vec<u64> {
        let set = vec![0u64; part.words];
        let mut live_set = vec![0u64; part.st.words];
        part.live_set(&set, &mut live_set);
        let needs = self.needs_held(part, &set, &live_set);
        let unmade = part.unmade(&set);
        (0..self.pairs.len())
            .map(|n| self.pair_value(part, n, &needs, &unmade, &live_set, 0))
            .collect()
    }

    /// A lower bound on the part's peak in every order (the bound of `h` at the start).
    pub(super) fn static_bound(&self, part: &Part) -> u64 {
        let set = vec![0u64; part.words];
        let mut scratch = vec![0u64; part.st.words];
        let start_cut = self.cut.as_ref().map_or(0, |c| c.start);
        self.h(part, &set, part.live0, &mut scratch, u64::MAX)
            .max(start_cut)
    }
}
