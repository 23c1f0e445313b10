//! The nested-set bound: the first of a set S, then the last of a set among its ancestors.
//! In an order where x runs first among S, every ancestor of x runs before x, so before the
//! rest of S; and among a set A of x's ancestors some a runs last, after the rest of A. So
//! every order's peak is at least
//! `min over x in S of max(cut(x, S \ {x} after), max over A of min over a in A of
//! cut(a, A \ {a} before, S \ {x} after))` ([`super::cut`]; an x or a that cannot be first or
//! last is skipped). Mirrored, for the last of S and a set of its descendants, the first of
//! which runs with S \ {x} before it.
//!
//! The first of a set ([`super::last_of_set`]) sees the moment x runs; the heaviest moment
//! the order it describes must pass may come just before, at the last of x's ancestors of one
//! kind. WfCommons montage-2mass: until the first band's `mBgModel` runs, every band's images
//! are live (raw or projected), but the peak is that band's last `mProject`, which also holds
//! its own raw image while it writes the projection (1.5 MB more). The sets A are the alike
//! ops of [`super::last_of_set::alike_groups`] (coarse: successors not compared) among x's
//! ancestors (descendants), the ends only. It refines one set, the one that gave the first-of-set (last-of-set) bound.

use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::OpIx;

use super::cut::CutNetwork;
use super::last_of_set::{End, OpSet};

/// How many groups of alike ancestors (descendants) are tried for each op of the set, the
/// heaviest (by output bytes) first.
const MAX_GROUPS: usize = 4;

/// The largest set refined: each of its ops costs a flow and a walk, and more (a thousand bwa
/// tasks reading one index) would take the time the proof search needs.
const MAX_SET_OPS: usize = 64;

/// The result of [`nested_set_bound`] (`complete`: false when `stop()` ended it early, and then
/// `bytes` is the floor).
pub type NestedSet = super::Computed;

/// The nested-set bound of `set` (see the module comment) with the groups `groups` (sets of
/// ops, e.g. [`super::last_of_set::alike_groups`]), or `floor` when it is not above it or the
/// set has more than [`MAX_SET_OPS`] ops. Cuts
/// are capped at `cap` (no bound needs to exceed the best known peak). `stop()` is read
/// before each flow.
pub fn nested_set_bound(
    g: &Graph,
    net: &CutNetwork,
    set: &OpSet,
    groups: &[Vec<OpIx>],
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
) -> NestedSet {
    let n = g.num_ops();
    let mut out = NestedSet {
        bytes: floor,
        complete: true,
        flows: 0,
    };
    if set.ops.len() > MAX_SET_OPS {
        return out;
    }
    let mut least = u64::MAX;
    let mut side = vec![false; n];
    let mut mark = vec![false; n];
    let mut stack = Vec::new();
    let mut seen = Seen::new(n);
    for &x in &set.ops {
        let rest: Vec<OpIx> = set.ops.iter().copied().filter(|&y| y != x).collect();
        let (before, after): (&[OpIx], &[OpIx]) = match set.end {
            End::First => (&[], &rest),
            End::Last => (&rest, &[]),
        };
        if stop() {
            return NestedSet {
                complete: false,
                ..out
            };
        }
        let base = net.during_between(g, x, before, after, cap, stop);
        out.flows += 1;
        if !base.finished {
            return NestedSet {
                complete: false,
                ..out
            };
        }
        if base.bytes == u64::MAX {
            continue; // x is never first (last) of the set
        }
        let mut value = base.bytes;
        // x's ancestors (first of the set) or descendants (last).
        side.iter_mut().for_each(|s| *s = false);
        stack.clear();
        stack.push(x);
        while let Some(u) = stack.pop() {
            let next = match set.end {
                End::First => net.preds(u),
                End::Last => net.succs(u),
            };
            for &w in next {
                if !side[w as usize] {
                    side[w as usize] = true;
                    stack.push(w);
                }
            }
        }
        let mut within: Vec<(u64, Vec<OpIx>)> = groups
            .iter()
            .map(|grp| {
                let inner: Vec<OpIx> = grp.iter().copied().filter(|&a| side[a as usize]).collect();
                let w = inner
                    .iter()
                    .map(|&a| g.alloc(a))
                    .fold(0, u64::saturating_add);
                (w, inner)
            })
            .filter(|(_, inner)| inner.len() >= 2)
            .collect();
        within.sort_by_key_compact(|(w, _)| std::cmp::Reverse(*w));
        for (_, inner) in within.into_iter().take(MAX_GROUPS) {
            if value >= cap {
                break;
            }
            // Only the ends of the group: the others run before (after) one of them.
            // Each end is a walk over part of the graph, and a group can hold thousands of
            // ops: the clock is read before each.
            inner.iter().for_each(|&a| mark[a as usize] = true);
            let mut ends: Vec<OpIx> = Vec::new();
            let mut stopped = false;
            for &a in &inner {
                if stop() {
                    stopped = true;
                    break;
                }
                if !reaches_marked(net, a, set.end, &mark, &mut stack, &mut seen) {
                    ends.push(a);
                }
            }
            inner.iter().for_each(|&a| mark[a as usize] = false);
            if stopped {
                return NestedSet {
                    complete: false,
                    ..out
                };
            }
            let mut group_least = u64::MAX;
            for &a in &ends {
                let others: Vec<OpIx> = ends.iter().copied().filter(|&b| b != a).collect();
                // Last of the group among x's ancestors (first among its descendants), with
                // the rest of S after (before) it.
                let (b2, a2): (Vec<OpIx>, Vec<OpIx>) = match set.end {
                    End::First => (others, rest.clone()),
                    End::Last => (rest.clone(), others),
                };
                if stop() {
                    return NestedSet {
                        complete: false,
                        ..out
                    };
                }
                let c = net.during_between(g, a, &b2, &a2, cap, stop);
                out.flows += 1;
                if !c.finished {
                    return NestedSet {
                        complete: false,
                        ..out
                    };
                }
                if c.bytes != u64::MAX {
                    group_least = group_least.min(c.bytes);
                }
                if group_least <= value {
                    break; // this group cannot raise x's value
                }
            }
            if group_least != u64::MAX {
                value = value.max(group_least);
            }
        }
        least = least.min(value);
        if least <= floor {
            return out; // this set cannot beat the floor
        }
    }
    if least != u64::MAX && least > floor {
        out.bytes = least.min(cap);
    }
    out
}

/// The ops one walk has visited, by stamp: a walk per op of a group, a group of hundreds on a
/// training step, so neither a fresh set (hashing every visit took 15 ms of densenet121's
/// 40 ms of root bounds) nor a cleared vector per walk.
struct Seen {
    stamp: Vec<u32>,
    now: u32,
}

impl Seen {
    fn new(n: usize) -> Seen {
        Seen {
            stamp: vec![0; n],
            now: 0,
        }
    }

    /// Starts a walk: nothing is visited.
    fn clear(&mut self) {
        self.now = self.now.wrapping_add(1);
        if self.now == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.now = 1;
        }
    }

    /// Visits `v`; true when this walk had not visited it yet.
    fn insert(&mut self, v: OpIx) -> bool {
        let s = &mut self.stamp[v as usize];
        std::mem::replace(s, self.now) != self.now
    }
}

/// Whether an op marked in `mark` lies strictly below `a` (`End::First`: the group's ends
/// are those that can run last among it) or strictly above it (`End::Last`).
fn reaches_marked(
    net: &CutNetwork,
    a: OpIx,
    end: End,
    mark: &[bool],
    stack: &mut Vec<OpIx>,
    seen: &mut Seen,
) -> bool {
    seen.clear();
    stack.clear();
    stack.push(a);
    while let Some(u) = stack.pop() {
        let next = match end {
            End::First => net.succs(u),
            End::Last => net.preds(u),
        };
        for &w in next {
            if mark[w as usize] {
                return true;
            }
            if seen.insert(w) {
                stack.push(w);
            }
        }
    }
    false
}
