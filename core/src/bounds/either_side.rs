//! The either-side bound: a case split on whether an op m runs before or after a set T of
//! ops it is unordered with. Every order either runs some t of T before m, and then m runs with
//! t before it, or runs all of T after m, and then the first op t of T runs with m before it
//! and the rest of T after it. So every order's peak is at least
//! `min(min over t in T of cut(m, t before), min over t in T of cut(t, m before, T \ {t} after))`
//! ([`super::cut`]; an alternative no order can take is skipped). Mirrored (`Side::After`),
//! some t of T runs after m, or all of T run before m and the last of them runs with m after
//! it and the rest of T before it.
//!
//! It is the pairwise argument no single cut or set sees: a cut lets m and each op of T choose
//! the side that suits it, each on its own; the last of a set forces one op to follow all the
//! others. On WfCommons soykb a merge reads the outputs of every `haplotype_caller` job and ten
//! `genotype_gvcfs` jobs read a chromosome's share of them each: a genotype job run before the
//! merge leaves its output live at the merge; all of them after, and the first one runs while
//! every haplotype output is still live (the merge's and its own readers'), beside the merge's
//! outputs. The cut lets that genotype job run after the other nine, most haplotype outputs
//! freed. The sets T tried, for each of the 128 heaviest ops m: the ops unordered with m that
//! read a storage m reads with at most k readers, for k = 2, 4, 8, ... (the storages shared
//! with few others, the outputs m and T both consume, come first; a large k adds the readers
//! of a reference file read by every job), while T has at most 32 ops.
//!
//! As in [`super::last_of_set`], most candidates need no flow: in a known order, the memory
//! while m runs (some t before it) or while the first t runs (none before) bounds the
//! candidate from above, so candidates are taken by that, largest first, and the scan stops
//! once it cannot beat the best bound; within a candidate, a first flow capped just above the
//! best usually shows it cannot.

use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::OpIx;

use super::cases::{least_case, scan, Case, Scanned};
use super::cut::CutNetwork;
use super::own_memory;

/// Which case split a candidate makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Some op of T runs before m, or all of T after it.
    Before,
    /// Some op of T runs after m, or all of T before it.
    After,
}

/// An op m and a set T of ops unordered with it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Split {
    /// Which case split.
    pub side: Side,
    /// The op m.
    pub op: OpIx,
    /// The set T, sorted, without repeats, without m.
    pub others: Vec<OpIx>,
}

/// The result of [`either_side_bound`]: the bound, the split that gave it (`by`), and its
/// least alternative's op and minimising downset (`hint`).
pub type EitherSide = Scanned<Split>;

/// How many reader-count thresholds (2, 4, 8, ...) [`candidate_splits`] tries per op.
const READER_THRESHOLDS: usize = 8;

/// The largest T [`candidate_splits`] makes: each t costs two flows, and a larger T is
/// reached through storages read by many jobs (a reference file), whose readers rarely
/// decide anything.
const MAX_OTHERS: usize = 32;

/// How many ops [`candidate_splits`] tries as m: the heaviest by their own memory (what they
/// read, make and use as workspace). Each costs a walk over the graph (its ancestors and
/// descendants).
const MAX_OPS: usize = 128;

/// The candidate splits of `g` (with `net`'s arcs), both sides: for each of the [`MAX_OPS`]
/// heaviest ops m, the other readers of the storages m reads with at most k readers, for k
/// doubling from 2 (see the module comment), without the ops ordered with m (on one side of
/// it in every order, they only weaken the split), at most [`MAX_OTHERS`] of them. `stop()` is
/// read once per op (cut short, fewer splits).
pub fn candidate_splits(g: &Graph, net: &CutNetwork, stop: &dyn Fn() -> bool) -> Vec<Split> {
    let n = g.num_ops();
    let mut ops: Vec<OpIx> = (0..n as OpIx).collect();
    ops.sort_by_key_compact(|&v| std::cmp::Reverse(own_memory(g, v)));
    let mut out: Vec<Split> = Vec::new();
    let mut shared: Vec<(usize, u32)> = Vec::new();
    let mut t: Vec<OpIx> = Vec::new();
    let (mut seen, mut stack) = (Vec::new(), Vec::new());
    let mut tried = 0;
    for &m in &ops {
        if tried == MAX_OPS || stop() {
            break;
        }
        // Only storages with another reader can give a T.
        shared.clear();
        shared.extend(
            g.reads(m)
                .iter()
                .map(|&s| (g.users(s).len(), s))
                .filter(|&(r, _)| r >= 2),
        );
        if shared.is_empty() {
            continue;
        }
        tried += 1;
        shared.sort_unstable_compact();
        ordered_with(n, net, m, &mut seen, &mut stack);
        t.clear();
        let mut k = 2usize;
        let mut next = 0;
        let mut last_len = 0;
        for _ in 0..READER_THRESHOLDS {
            while next < shared.len() && shared[next].0 <= k {
                let s = shared[next].1;
                t.extend(
                    g.users(s)
                        .iter()
                        .copied()
                        .filter(|&w| w != m && seen[w as usize] == 0),
                );
                next += 1;
            }
            t.sort_unstable_compact();
            t.dedup();
            if t.len() > MAX_OTHERS {
                break;
            }
            if t.len() > last_len {
                last_len = t.len();
                for side in [Side::Before, Side::After] {
                    out.push(Split {
                        side,
                        op: m,
                        others: t.clone(),
                    });
                }
            }
            if next == shared.len() {
                break;
            }
            k = k.saturating_mul(2);
        }
    }
    out
}

/// Marks in `seen` the ancestors (1) and descendants (2) of `m` in `net`.
fn ordered_with(n: usize, net: &CutNetwork, m: OpIx, seen: &mut Vec<u8>, stack: &mut Vec<OpIx>) {
    seen.clear();
    seen.resize(n, 0);
    for (mark, up) in [(1u8, true), (2u8, false)] {
        stack.clear();
        stack.push(m);
        while let Some(u) = stack.pop() {
            let next = if up { net.preds(u) } else { net.succs(u) };
            for &w in next {
                if seen[w as usize] & mark == 0 {
                    seen[w as usize] |= mark;
                    stack.push(w);
                }
            }
        }
    }
}

/// The alternative `i` of a split with T = `others` (see the module comment): (op, ops
/// before it, ops after it); the split's bound is the least cut over them.
fn alternative(side: Side, m: OpIx, others: &[OpIx], i: usize) -> (OpIx, Vec<OpIx>, Vec<OpIx>) {
    let t = others[i / 2];
    let rest = || others.iter().copied().filter(|&u| u != t).collect();
    match (side, i % 2) {
        (Side::Before, 0) => (m, vec![t], Vec::new()),
        (Side::Before, _) => (t, vec![m], rest()),
        (Side::After, 0) => (m, Vec::new(), vec![t]),
        (Side::After, _) => (t, rest(), vec![m]),
    }
}

/// The memory at the case `order` (with `pos`, its positions, and `during`, the memory
/// while each op runs in it) is in, for the split (m, T = `others`): an upper bound on the
/// split's bound.
fn case_upper(side: Side, m: OpIx, others: &[OpIx], pos: &[usize], during: &[u64]) -> u64 {
    let pm = pos[m as usize];
    let at = |&&v: &&OpIx| pos[v as usize];
    let x = match side {
        Side::Before => match others.iter().min_by_key(at) {
            Some(&t) if pos[t as usize] > pm => t,
            _ => m,
        },
        Side::After => match others.iter().max_by_key(at) {
            Some(&t) if pos[t as usize] < pm => t,
            _ => m,
        },
    };
    during[x as usize]
}

/// The largest either-side bound over `splits` and `floor`. `orders` are topological orders
/// of `g` that keep `net`'s arcs (at least one): they bound each split from above (see the
/// module comment). `cap` is a value no bound needs to exceed (the best known peak). `stop()`
/// is read before each flow.
pub fn either_side_bound(
    g: &Graph,
    net: &CutNetwork,
    splits: &[Split],
    orders: &[&[OpIx]],
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
) -> EitherSide {
    let upper_of =
        |s: &Split, pos: &[usize], during: &[u64]| case_upper(s.side, s.op, &s.others, pos, during);
    let least_of = |s: &Split, upper: &[u64], best: u64, cap_k: u64, flows: &mut usize| {
        if stop() {
            return Case::Stopped;
        }
        let others = &s.others[..];
        let mut alts: Vec<usize> = (0..2 * others.len()).collect();
        let op_of = |i: usize| if i % 2 == 0 { s.op } else { others[i / 2] };
        alts.sort_by_key_compact(|&i| upper[op_of(i) as usize]);
        let fill = |i: usize, before: &mut Vec<OpIx>, after: &mut Vec<OpIx>| {
            let (x, b, a) = alternative(s.side, s.op, others, i);
            before.extend(b);
            after.extend(a);
            x
        };
        least_case(g, net, &alts, fill, best, cap_k, flows, stop)
    };
    scan(g, splits, orders, floor, cap, upper_of, least_of)
}
