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
//! Deciding whether a set can beat the best bound so far takes one flow in most cases: its ops
//! are tried from the smallest upper bound, and the first whose cut (capped just above the
//! best) stays at or under the best ends the set.

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

/// The largest last-of-set bound over `sets` and `floor`. `upper[v]` is an upper bound on op
/// v's cut (memory while it runs in some order), used to try each set's ops cheapest first;
/// `cap` is a value no bound needs to exceed (the best known peak: at or above it, a bound
/// proves that order optimal and the exact figure does not matter). `stop()` is read before
/// each flow.
pub fn last_of_set_bound(
    g: &Graph,
    net: &CutNetwork,
    sets: &[Vec<OpIx>],
    upper: &[u64],
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
) -> LastOfSet {
    let mut best = LastOfSet {
        bytes: floor,
        set: None,
        complete: true,
        flows: 0,
    };
    let mut rest: Vec<OpIx> = Vec::new();
    'sets: for s in sets {
        if best.bytes >= cap {
            break;
        }
        let mut xs = s.clone();
        xs.sort_by_key(|&x| upper[x as usize]);
        // The least over the ops that can be last, each value capped at `cap`.
        let mut least = u64::MAX;
        for &x in &xs {
            if stop() {
                best.complete = false;
                break 'sets;
            }
            rest.clear();
            rest.extend(s.iter().copied().filter(|&y| y != x));
            // First only whether it beats the best (cheap), then its value when it does.
            let cap1 = best.bytes.saturating_add(1).min(cap);
            let probe = net.during(g, x, &rest, cap1);
            best.flows += 1;
            if probe.bytes == u64::MAX {
                continue; // another op of the set must follow x: x is never last
            }
            if probe.bytes < cap1 {
                continue 'sets; // at or under the best: this set cannot beat it
            }
            let exact = if cap1 >= cap {
                cap
            } else {
                best.flows += 1;
                net.during(g, x, &rest, cap).bytes
            };
            least = least.min(exact);
        }
        if least != u64::MAX && least > best.bytes {
            best.bytes = least;
            best.set = Some(s.clone());
        }
    }
    best
}
