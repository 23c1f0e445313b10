//! The last-of-a-set bound: for any set S of ops, some op of S runs last among them, and when
//! it runs every other op of S has run. So every order's peak is at least
//! `min over x in S of cut(x with S \ {x} forced before x)` ([`super::cut`]), where an x that
//! some other op of S must follow cannot be last and is skipped.
//!
//! The cut alone lets each op of S pick the moment that suits it, before or after the others;
//! this bound does not, which is what a fan of similar ops needs (many readers of one input,
//! whose outputs pile up until the last one runs; the producers of one op's inputs, which must
//! all be live together). The sets tried are the readers of each storage and the predecessors
//! of each op with at least two of them, largest total output first.
//!
//! Most sets need no flow: in any order, the set's last op runs after the rest of the set, so
//! the memory while it runs in a known order is an upper bound on the set's bound. Sets are
//! taken by that upper bound, largest first, and the scan stops once it cannot beat the best
//! bound so far (as the cut scan does). Deciding whether a set can beat the best takes one flow
//! in most cases: its ops are tried from the smallest upper bound, and the first whose cut
//! (capped just above the best) stays at or under the best ends the set.

use crate::graph::Graph;
use crate::OpIx;

use super::cut::CutNetwork;

/// The result of [`last_of_set_bound`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastOfSet {
    /// A true lower bound on every order's peak, at least the `floor` passed in.
    pub bytes: u64,
    /// The set that gave it (none when the floor was not beaten).
    pub set: Option<Vec<OpIx>>,
    /// False when `stop()` ended the scan before every set was tried.
    pub complete: bool,
    /// Maximum flows computed.
    pub flows: usize,
}

/// The candidate sets of `g` (with `net`'s arcs): readers of each storage and predecessors of
/// each op, two or more ops each, deduplicated, largest total output first.
pub fn candidate_sets(g: &Graph, net: &CutNetwork) -> Vec<Vec<OpIx>> {
    let mut sets: Vec<Vec<OpIx>> = Vec::new();
    for w in 0..g.num_ops() as OpIx {
        if net.preds(w).len() >= 2 {
            let mut s = net.preds(w).to_vec();
            s.sort_unstable();
            s.dedup();
            sets.push(s);
        }
    }
    for t in 0..g.num_tensors() as u32 {
        if g.users(t).len() >= 2 {
            let mut s = g.users(t).to_vec();
            s.sort_unstable();
            sets.push(s);
        }
    }
    sets.sort_unstable();
    sets.dedup();
    let weight = |s: &[OpIx]| -> u64 { s.iter().map(|&v| g.alloc(v)).fold(0, u64::saturating_add) };
    sets.sort_by_key(|s| std::cmp::Reverse(weight(s)));
    sets
}

/// The largest last-of-set bound over `sets` and `floor`. `orders` are topological orders of
/// `g` that keep `net`'s arcs (at least one): the memory while each op runs in them bounds its
/// cut, and while a set's last op runs, the set's bound. `cap` is a value no bound needs to
/// exceed (the best known peak: at or above it, a bound proves that order optimal and the exact
/// figure does not matter). `stop()` is read before each flow.
pub fn last_of_set_bound(
    g: &Graph,
    net: &CutNetwork,
    sets: &[Vec<OpIx>],
    orders: &[&[OpIx]],
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
) -> LastOfSet {
    let n = g.num_ops();
    let mut upper = vec![u64::MAX; n];
    let mut set_upper = vec![u64::MAX; sets.len()];
    for order in orders {
        let during = super::cut::during_in(g, order);
        let mut pos = vec![0usize; n];
        for (i, &v) in order.iter().enumerate() {
            pos[v as usize] = i;
        }
        for v in 0..n {
            upper[v] = upper[v].min(during[v]);
        }
        for (k, s) in sets.iter().enumerate() {
            if let Some(&last) = s.iter().max_by_key(|&&v| pos[v as usize]) {
                set_upper[k] = set_upper[k].min(during[last as usize]);
            }
        }
    }
    let mut by_upper: Vec<usize> = (0..sets.len()).collect();
    by_upper.sort_by_key(|&k| std::cmp::Reverse(set_upper[k]));
    let mut best = LastOfSet {
        bytes: floor,
        set: None,
        complete: true,
        flows: 0,
    };
    let mut rest: Vec<OpIx> = Vec::new();
    'sets: for k in by_upper {
        let s = &sets[k];
        if best.bytes >= cap || set_upper[k] <= best.bytes {
            break;
        }
        let mut xs = s.clone();
        xs.sort_by_key(|&x| upper[x as usize]);
        // The least over the ops that can be last, each value capped at `cap`.
        // The set's bound is at most its upper bound, so each value may be capped there.
        let cap2 = cap.min(set_upper[k]);
        let cap1 = best.bytes.saturating_add(1).min(cap2);
        let mut least = u64::MAX;
        let mut probed = false;
        for &x in &xs {
            if stop() {
                best.complete = false;
                break 'sets;
            }
            rest.clear();
            rest.extend(s.iter().copied().filter(|&y| y != x));
            // The first op only asks whether the set can beat the best (a flow capped just
            // above it is cheap); once one op has, the others' values are computed at once.
            let c = if probed { cap2 } else { cap1 };
            let probe = net.during_until(g, x, &rest, c, stop);
            best.flows += 1;
            if !probe.finished {
                best.complete = false;
                break 'sets;
            }
            let cut = probe.bytes;
            if cut == u64::MAX {
                continue; // another op of the set must follow x: x is never last
            }
            if cut <= best.bytes {
                continue 'sets; // at or under the best: this set cannot beat it
            }
            let exact = if probed || cap1 >= cap2 {
                cut.min(cap2)
            } else {
                best.flows += 1;
                let exact = net.during_until(g, x, &rest, cap2, stop);
                if !exact.finished {
                    best.complete = false;
                    break 'sets;
                }
                exact.bytes
            };
            probed = true;
            least = least.min(exact);
        }
        if least != u64::MAX && least > best.bytes {
            best.bytes = least;
            best.set = Some(s.clone());
        }
    }
    best
}
