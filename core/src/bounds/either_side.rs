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
//! freed. The sets T tried, for each op m: the ops unordered with m that read a storage m reads
//! with at most k readers, for k = 2, 4, 8, ... (the storages shared with few others, the
//! outputs m and T both consume, come first; a large k adds the readers of a reference file
//! read by every job).
//!
//! As in [`super::last_of_set`], most candidates need no flow: in a known order, the memory
//! while m runs (some t before it) or while the first t runs (none before) bounds the
//! candidate from above, so candidates are taken by that, largest first, and the scan stops
//! once it cannot beat the best bound; within a candidate, a first flow capped just above the
//! best usually shows it cannot.

use crate::graph::Graph;
use crate::OpIx;

use super::cut::CutNetwork;
use super::first_free::Hint;

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

/// The result of [`either_side_bound`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EitherSide {
    /// A true lower bound on every order's peak, at least the `floor` passed in.
    pub bytes: u64,
    /// The split that gave it (none when the floor was not beaten).
    pub split: Option<Split>,
    /// False when `stop()` ended the scan before every split was tried.
    pub complete: bool,
    /// Maximum flows computed.
    pub flows: usize,
    /// The least alternative of the split that gave the bound: its op and minimising downset.
    pub hint: Option<Hint>,
}

/// How many reader-count thresholds (2, 4, 8, ...) [`candidate_splits`] tries per op.
const READER_THRESHOLDS: usize = 8;

/// Marks the ops reachable from `v` along `next` (not `v` itself).
fn reach(n: usize, v: OpIx, next: impl Fn(OpIx) -> Vec<OpIx>, stack: &mut Vec<OpIx>) -> Vec<bool> {
    let mut seen = vec![false; n];
    stack.clear();
    stack.push(v);
    while let Some(u) = stack.pop() {
        for w in next(u) {
            if !seen[w as usize] {
                seen[w as usize] = true;
                stack.push(w);
            }
        }
    }
    seen
}

/// The candidate splits of `g` (with `net`'s arcs), both sides: for each op m, the ops
/// unordered with m that read a storage m reads with at most k readers, for k doubling from 2
/// (see the module comment), deduplicated.
pub fn candidate_splits(g: &Graph, net: &CutNetwork) -> Vec<Split> {
    let n = g.num_ops();
    let mut out: Vec<Split> = Vec::new();
    let mut stack = Vec::new();
    for m in 0..n as OpIx {
        // Only storages with another reader can give a T.
        let mut shared: Vec<(usize, u32)> = g
            .reads(m)
            .iter()
            .map(|&s| (g.users(s).len(), s))
            .filter(|&(r, _)| r >= 2)
            .collect();
        if shared.is_empty() {
            continue;
        }
        shared.sort_unstable();
        let up = reach(n, m, |u| net.preds(u).to_vec(), &mut stack);
        let down = reach(n, m, |u| net.succs(u).to_vec(), &mut stack);
        let mut k = 2usize;
        let mut next = 0;
        let mut t: Vec<OpIx> = Vec::new();
        let mut last_len = 0;
        for _ in 0..READER_THRESHOLDS {
            while next < shared.len() && shared[next].0 <= k {
                let s = shared[next].1;
                t.extend(
                    g.users(s)
                        .iter()
                        .copied()
                        .filter(|&w| w != m && !up[w as usize] && !down[w as usize]),
                );
                next += 1;
            }
            t.sort_unstable();
            t.dedup();
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

/// The alternatives of a split: (op, ops before it, ops after it); the bound is the least cut
/// over them.
fn alternatives(s: &Split) -> Vec<(OpIx, Vec<OpIx>, Vec<OpIx>)> {
    let m = s.op;
    let mut alts = Vec::with_capacity(2 * s.others.len());
    for &t in &s.others {
        let rest: Vec<OpIx> = s.others.iter().copied().filter(|&u| u != t).collect();
        match s.side {
            Side::Before => {
                alts.push((m, vec![t], Vec::new()));
                alts.push((t, vec![m], rest));
            }
            Side::After => {
                alts.push((m, Vec::new(), vec![t]));
                alts.push((t, rest, vec![m]));
            }
        }
    }
    alts
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
    let n = g.num_ops();
    let mut upper = vec![u64::MAX; n];
    let mut split_upper = vec![u64::MAX; splits.len()];
    for order in orders {
        let during = super::cut::during_in(g, order);
        let mut pos = vec![0usize; n];
        for (i, &v) in order.iter().enumerate() {
            pos[v as usize] = i;
        }
        for v in 0..n {
            upper[v] = upper[v].min(during[v]);
        }
        for (k, s) in splits.iter().enumerate() {
            let pm = pos[s.op as usize];
            let at = |&&v: &&OpIx| pos[v as usize];
            // The case this order is in, and the op whose memory bounds it.
            let x = match s.side {
                Side::Before => match s.others.iter().min_by_key(at) {
                    Some(&t) if pos[t as usize] > pm => t,
                    _ => s.op,
                },
                Side::After => match s.others.iter().max_by_key(at) {
                    Some(&t) if pos[t as usize] < pm => t,
                    _ => s.op,
                },
            };
            split_upper[k] = split_upper[k].min(during[x as usize]);
        }
    }
    let mut by_upper: Vec<usize> = (0..splits.len()).collect();
    by_upper.sort_by_key(|&k| std::cmp::Reverse(split_upper[k]));
    let mut best = EitherSide {
        bytes: floor,
        split: None,
        complete: true,
        flows: 0,
        hint: None,
    };
    'splits: for k in by_upper {
        if best.bytes >= cap || split_upper[k] <= best.bytes {
            break;
        }
        let s = &splits[k];
        let mut alts = alternatives(s);
        alts.sort_by_key(|a| upper[a.0 as usize]);
        // Each alternative's value may be capped at the split's upper bound (the least of them
        // is at most that) and at `cap`.
        let cap2 = cap.min(split_upper[k]);
        let cap1 = best.bytes.saturating_add(1).min(cap2);
        let mut least = u64::MAX;
        let mut least_hint: Option<Hint> = None;
        let mut probed = false;
        for (x, before, after) in &alts {
            if stop() {
                best.complete = false;
                break 'splits;
            }
            let c = if probed { cap2 } else { cap1 };
            let probe = net.during_between(g, *x, before, after, c, stop);
            best.flows += 1;
            if !probe.finished {
                best.complete = false;
                break 'splits;
            }
            if probe.bytes == u64::MAX {
                continue; // no order takes this alternative
            }
            if probe.bytes <= best.bytes {
                continue 'splits; // this split cannot beat the best
            }
            let mut downset = probe.before;
            let exact = if probed || cap1 >= cap2 {
                probe.bytes.min(cap2)
            } else {
                best.flows += 1;
                let exact = net.during_between(g, *x, before, after, cap2, stop);
                if !exact.finished {
                    best.complete = false;
                    break 'splits;
                }
                downset = exact.before;
                exact.bytes
            };
            probed = true;
            if exact < least {
                least = exact;
                least_hint = downset.map(|d| (*x, d));
            }
        }
        if least != u64::MAX && least > best.bytes {
            best.bytes = least;
            best.split = Some(s.clone());
            best.hint = least_hint;
        }
    }
    best
}
