//! The pairs of the pair bound: for two ops neither of which precedes the other, what the one
//! that runs second must have on top of it (see [`pair_sets`] and [`super::bounds::Bounds::pair_bound`]).

use std::cmp::Reverse;

use super::bits::{has, put, weight, BitMatrix};
use super::part::{Lineage, Part, NIL};

/// Parts larger than this get no pair bound (its tables grow with the square of the ops).
pub(super) const MAX_PAIR_OPS: usize = 128;
/// Most pairs the pair bound scans per state.
pub(super) const MAX_PAIRS: usize = 2048;

/// The pairs of the pair bound. For ops u and v, neither an ancestor of the other, let P(u, v) be
/// the storages that u or an ancestor of u makes, that no ancestor of v makes, that are not freed
/// at once, and that are never freed in the part or read by a descendant of v. If u runs before
/// v, every storage of P(u, v) that is not made yet will be made before v runs and is still live
/// while v runs (a reader is still to come), and none of them is counted in v's own bound in
/// [`super::bounds::Bounds::h`] (those are live now, or made by v's ancestors, or v's outputs).
///
/// A second quantity adds the valleys of Liu's argument: let V(u, v) be the largest, over common
/// descendants x of u and v and paths u = p0 → p1 → … → x where each p(i+1) reads a storage s(i)
/// that p(i) makes, of the least size of s(i) along the path. If u runs before v, x runs after
/// v, so while v runs some p(i) has run and p(i+1) has not: s(i) is live. None of those
/// storages is made yet while u has not run, nor counted in v's own bound (their makers descend
/// from u, so none is v or an ancestor of v).
///
/// So every order from a state where u and v are still to run has a peak of at least
/// min(need(v) + max(unmade P(u, v), V(u, v)), need(u) + max(unmade P(v, u), V(v, u))). Only
/// pairs where both sides can add something are kept: (u, v, potential, V(u, v), V(v, u)).
/// Once `stop()` is true no more pairs are looked for (those found are each a bound).
pub(super) fn pair_sets(part: &Part, lineage: &Lineage, stop: &dyn Fn() -> bool) -> PairTables {
    let m = part.m();
    if !(2..=MAX_PAIR_OPS).contains(&m) {
        return PairTables::default();
    }
    let (st, st_words) = (&part.st, part.st.words);
    let (anc, desc) = (&lineage.anc, &lineage.desc);
    let (st_size, step, untouched) = (&st.size, &part.step, part.untouched);
    let ns = st.len();
    // made_star[x]: storages made by x or an ancestor of x; made_anc[x]: by a strict ancestor;
    // after[x]: storages never freed in the part or read by a strict descendant of x.
    let mut made_star = BitMatrix::new(m, st_words);
    let mut made_anc = BitMatrix::new(m, st_words);
    let mut after = BitMatrix::new(m, st_words);
    // into[x]: (maker, size) of the storages x keeps alive that an ancestor of x makes.
    let mut into: Vec<Vec<(u32, u64)>> = vec![Vec::new(); m];
    for (k, &p) in st.producer.iter().enumerate() {
        if p == NIL || st.transient[k] {
            continue;
        }
        let users = st.users.row(k);
        for (x, into_x) in into.iter_mut().enumerate() {
            if has(users, x as u32) && has(anc.row(x), p) {
                into_x.push((p, st_size[k]));
            }
        }
    }
    for x in 0..m {
        let (ax, dx) = (anc.row(x), desc.row(x));
        for k in 0..ns {
            if st.transient[k] {
                continue;
            }
            let p = st.producer[k];
            if p != NIL && (p as usize == x || has(ax, p)) {
                put(made_star.row_mut(x), k as u32);
                if p as usize != x {
                    put(made_anc.row_mut(x), k as u32);
                }
            }
            let users = st.users.row(k);
            let later = users.iter().zip(dx).enumerate().any(|(wi, (u, d))| {
                let me = if wi == x / 64 { 1u64 << (x % 64) } else { 0 };
                u & d & !me != 0
            });
            if st.perm[k] || later {
                put(after.row_mut(x), k as u32);
            }
        }
    }
    // bott[u * m + x]: the widest path bottleneck from u to its descendant x (0 if none).
    let mut bott = vec![0u64; m * m];
    for u in 0..m {
        let row = &mut bott[u * m..(u + 1) * m];
        row[u] = u64::MAX;
        // Local order is topological: makers come before their readers.
        for x in u + 1..m {
            let mut best = 0;
            for &(p, size) in &into[x] {
                if (p as usize) >= u {
                    best = best.max(row[p as usize].min(size));
                }
            }
            row[x] = best;
        }
    }
    // hops[u]: for each storage k that u makes, the widest path bottleneck from u to each x
    // over paths whose first storage is k (0 if none).
    let mut hops: Vec<Vec<(u32, Vec<u64>)>> = vec![Vec::new(); m];
    for (k, &u) in st.producer.iter().enumerate() {
        if u == NIL || st.transient[k] {
            continue;
        }
        let u = u as usize;
        let users = st.users.row(k);
        let mut row = vec![0u64; m];
        for x in u + 1..m {
            let mut best = if has(users, x as u32) { st_size[k] } else { 0 };
            for &(p, size) in &into[x] {
                if (p as usize) > u {
                    best = best.max(row[p as usize].min(size));
                }
            }
            row[x] = best;
        }
        hops[u].push((k as u32, row));
    }
    let need_max =
        |x: usize| untouched + step[x] + weight(part.cross.row(x).iter().copied(), st_size);
    let p_word =
        |u: usize, v: usize, w: usize| made_star.row(u)[w] & !made_anc.row(v)[w] & after.row(v)[w];
    let p_weight = |u: usize, v: usize| weight((0..st_words).map(|w| p_word(u, v, w)), st_size);
    let mut found: Vec<(Pair, Vec<u64>, Vec<u64>)> = Vec::new();
    for u in 0..m {
        // O(ops) pairs per u, each O(ops) common descendants: read the clock per u.
        if stop() {
            break;
        }
        let du = desc.row(u);
        for v in u + 1..m {
            // Local indices are a topological order: v can only be a descendant of u.
            if has(anc.row(v), u as u32) {
                continue;
            }
            // Valleys through common descendants; and the valleys of paths whose first storage
            // is not in P (so they add to it).
            let (mut vuv, mut vvu) = (0u64, 0u64);
            let (mut suv, mut svu) = (0u64, 0u64);
            let dv = desc.row(v);
            let (after_u, after_v) = (after.row(u), after.row(v));
            for (wi, (a, b)) in du.iter().zip(dv).enumerate() {
                let mut common = a & b;
                while common != 0 {
                    let x = wi * 64 + common.trailing_zeros() as usize;
                    common &= common - 1;
                    vuv = vuv.max(bott[u * m + x]);
                    vvu = vvu.max(bott[v * m + x]);
                    for (k, row) in &hops[u] {
                        if !has(after_v, *k) {
                            suv = suv.max(row[x]);
                        }
                    }
                    for (k, row) in &hops[v] {
                        if !has(after_u, *k) {
                            svu = svu.max(row[x]);
                        }
                    }
                }
            }
            // While the first of the two runs, what the second (or a descendant) still needs
            // is live too: beyond the first's own `cross`, that can add `extra`.
            let (cu, cv) = (part.cross.row(u), part.cross.row(v));
            let extra_u = weight(cv.iter().zip(cu).map(|(x, y)| x & !y), st_size);
            let extra_v = weight(cu.iter().zip(cv).map(|(x, y)| x & !y), st_size);
            let wuv = p_weight(u, v);
            let a = (wuv + suv).max(vuv);
            if a == 0 && extra_u == 0 {
                continue;
            }
            let wvu = p_weight(v, u);
            let b = (wvu + svu).max(vvu);
            if b == 0 && extra_v == 0 {
                continue;
            }
            let pot = (need_max(v) + a)
                .max(need_max(u) + extra_u)
                .min((need_max(u) + b).max(need_max(v) + extra_v));
            let puv: Vec<u64> = (0..st_words).map(|w| p_word(u, v, w)).collect();
            let pvu: Vec<u64> = (0..st_words).map(|w| p_word(v, u, w)).collect();
            let pair = Pair {
                u: u as u32,
                v: v as u32,
                pot,
                vuv,
                vvu,
                suv,
                svu,
                a_max: a,
                b_max: b,
                extra_u,
                extra_v,
            };
            found.push((pair, puv, pvu));
        }
    }
    found.sort_unstable_by_key(|x| Reverse(x.0.pot));
    found.truncate(MAX_PAIRS);
    let mut pairs = Vec::with_capacity(found.len());
    let mut bits = BitMatrix::with_width(st_words);
    for (pair, puv, pvu) in found {
        pairs.push(pair);
        bits.push(&puv);
        bits.push(&pvu);
    }
    PairTables {
        pairs,
        bits,
        made_anc,
    }
}

/// What [`pair_sets`] computes: the pairs, and their sets P(u, v) and P(v, u) (storage bitsets,
/// rows 2k and 2k + 1 for pair k); and per op the storages its strict ancestors make (storage
/// bitsets, one row per op), which the backward search needs too.
#[derive(Default)]
pub(super) struct PairTables {
    pub(super) pairs: Vec<Pair>,
    pub(super) bits: BitMatrix,
    pub(super) made_anc: BitMatrix,
}

/// A pair of the pair bound; see [`pair_sets`].
#[derive(Clone, Copy)]
pub(super) struct Pair {
    pub(super) u: u32,
    pub(super) v: u32,
    /// An upper bound on what the pair can ever give.
    pub(super) pot: u64,
    /// V(u, v) and V(v, u).
    pub(super) vuv: u64,
    pub(super) vvu: u64,
    /// The same over paths whose first storage is not in P(u, v) (resp. P(v, u)): their
    /// storages are all outside it, so the valley adds to P's weight.
    pub(super) suv: u64,
    pub(super) svu: u64,
    /// Most u's share can add to v's bound when u runs first (P(u, v) all unmade, or V(u, v)),
    /// and v's to u's.
    pub(super) a_max: u64,
    pub(super) b_max: u64,
    /// Most that what v still needs can add to u's bound when u runs first, and the reverse.
    pub(super) extra_u: u64,
    pub(super) extra_v: u64,
}

/// The pairs of each op, by index into [`PairTables::pairs`], largest potential first; and per op x
/// the most any of its pairs can add to x's own bound (a partner's share when x runs second,
/// or what a partner still needs when x runs first), for [`super::bounds::Bounds::pair_bound`].
pub(super) fn pairs_by_op(m: usize, pairs: &[Pair]) -> (Vec<Vec<u32>>, Vec<u64>, Vec<u64>) {
    let mut lists = vec![Vec::new(); m];
    let mut share_in = vec![0u64; m];
    let mut extra_first = vec![0u64; m];
    // `pairs` is sorted by potential, so each list is too.
    for (k, p) in pairs.iter().enumerate() {
        lists[p.u as usize].push(k as u32);
        lists[p.v as usize].push(k as u32);
        share_in[p.v as usize] = share_in[p.v as usize].max(p.a_max);
        share_in[p.u as usize] = share_in[p.u as usize].max(p.b_max);
        extra_first[p.u as usize] = extra_first[p.u as usize].max(p.extra_u);
        extra_first[p.v as usize] = extra_first[p.v as usize].max(p.extra_v);
    }
    (lists, share_in, extra_first)
}
