//! The join-free bound: the first-free bound ([`super::first_free`]) for storages an op makes,
//! not only graph inputs.
//!
//! Take an op z (the join) and a set B of storages, each freed once read (not pinned), made by
//! z or one of its ancestors (or a graph input), and read by some descendant of z. In every
//! order z runs before each storage of B can be freed (a reader after z is still to come), and
//! every storage of B is made by then. So some storage s of B is freed first, right after its
//! last reader x runs, and while x runs z has run, every other reader of s has run and all of B
//! is live. The peak is at least
//! `min over s in B, x reading s (not z, not an ancestor of z) of |B| + cut(x with z and the
//! other readers of s before it)`,
//! the cut of [`super::cut`] on the graph with B's storages weighed 0 (they are counted in
//! |B|); an x whose forced predecessors free another storage of B is skipped (x is not the first
//! free there).
//!
//! Why: on a training step the plan's peak is an SGD update (`mul` of a weight gradient, then
//! `sub` from the weight, docs/design.md §1: the new weight is a graph output), and the cut of
//! that `mul` waits until the whole backward pass has run (mobilenet_v2: a downset of 674 of 781
//! ops, 12.6 MB against the plan's 29.9 MB), holding only the gradient, while no single op's cut
//! is charged for the held gradient. With z at the end of the forward pass and B the saved
//! activations and weights, the first of them freed is freed late in the backward pass, with
//! every other one still live: 28.43 → 29.93 MB on mobilenet_v2 (the plan: 29.94 MB).
//!
//! Which z and B: z is sampled along a known order, B is the `k` largest storages of z's set
//! (all of them is rarely best: a small weight whose update can run early frees first). The
//! memory at B's first free in the known order bounds each set from above (there every storage
//! of B is live, z and the other readers have run), so sets are scanned by that, largest first,
//! and the scan ends when the next cannot beat the best (or after a few sets, see
//! [`MAX_SETS`]); within a set the candidates are taken by a cheap lower bound, smallest
//! first, each flow capped at the least so far.

use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::OpIx;

use super::cases::{free_candidates, frees_another, least_free, live_network};
use super::cut::during_in;

/// How many joins are sampled along the order.
const JOINS: usize = 48;
/// Each join's sets: B = the k largest, k shrinking by this factor (in fifths).
const SHRINK_FIFTHS: usize = 4;
/// The scan tries at most this many sets and flows, and takes a set's value only when it is
/// within 1/256 of the best peak (a set below that stops at its first flow under it): on the
/// training steps it proves, the set that does is among the first four, found within 50
/// flows; where it cannot help (swin_t: 1,126 flows, 0.7 s over 112 sets for nothing) it
/// must leave the time to branching.
const MAX_SETS: usize = 8;
const MAX_FLOWS: usize = 48;
/// And copies of the graph for at most this many joins (one costs about a parse of it).
const MAX_JOINS: usize = 3;

/// The result of [`join_free_bound`] (`complete`: false when `stop()` ended the scan before
/// every set that could beat the bound was tried).
pub type JoinFree = super::Computed;

/// Ops reachable from `v` (not `v`), upwards (`up`) or downwards.
fn reach(g: &Graph, v: OpIx, up: bool, seen: &mut Vec<bool>, stack: &mut Vec<OpIx>) {
    seen.clear();
    seen.resize(g.num_ops(), false);
    stack.clear();
    stack.push(v);
    while let Some(u) = stack.pop() {
        let next = if up { g.preds(u) } else { g.succs(u) };
        for &p in next {
            if !std::mem::replace(&mut seen[p as usize], true) {
                stack.push(p);
            }
        }
    }
}

/// The storages a join-free set of `z` can hold, largest first: freed once read, made by z or
/// an ancestor (`anc`) or a graph input, and read by a descendant (`desc`).
pub fn join_storages(g: &Graph, z: OpIx, anc: &[bool], desc: &[bool]) -> Vec<u32> {
    let mut out: Vec<u32> = (0..g.num_tensors() as u32)
        .filter(|&s| g.tensors()[s as usize].root == s && g.size(s) > 0 && !g.pinned(s))
        .filter(|&s| match g.tensors()[s as usize].producer {
            None => true,
            Some(p) => p == z || anc[p as usize],
        })
        .filter(|&s| g.users(s).iter().any(|&u| desc[u as usize]))
        .collect();
    out.sort_by_key_compact(|&s| (std::cmp::Reverse(g.size(s)), s));
    out
}

/// What every set of one join shares: `g` with each storage of the join's set
/// ([`join_storages`]) made a donated graph input (taken from its producer's outputs), and
/// the precedences that took away kept as extra arcs (producer before each reader). With z
/// forced before x, each producer is in every downset the cut weighs, so such an input is
/// paid exactly when the storage is (a reader after the downset), and
/// [`super::cut::CutNetwork::with_live`] can count any part B of them live: one graph per join, not one
/// per set.
pub struct Join {
    /// The join.
    pub z: OpIx,
    /// Its storages, largest first ([`join_storages`]).
    pub storages: Vec<u32>,
    anc: Vec<bool>,
    h: Graph,
    arcs: Vec<(OpIx, OpIx)>,
}

impl Join {
    /// The join `z` of `g`; `None` when it has no storages (or the copy's sizes overflowed: they
    /// cannot, only producers change).
    pub fn new(g: &Graph, z: OpIx) -> Option<Join> {
        let (mut anc, mut desc, mut stack) = (Vec::new(), Vec::new(), Vec::new());
        reach(g, z, true, &mut anc, &mut stack);
        reach(g, z, false, &mut desc, &mut stack);
        let storages = join_storages(g, z, &anc, &desc);
        if storages.is_empty() {
            return None;
        }
        let mut arcs = Vec::new();
        for &s in &storages {
            if let Some(p) = g.tensors()[s as usize].producer {
                arcs.extend(g.users(s).iter().map(|&r| (p, r)));
            }
        }
        // Made directly, not through a spec validated again: on the 7,310-op traced NASNet-Large
        // that took 13 ms without a clock read, the longest such stretch of its plan.
        let h = g.with_inputs(&storages)?;
        Some(Join {
            z,
            storages,
            anc,
            h,
            arcs,
        })
    }

    /// The bound for B = the first `k` of [`Join::storages`]: exactly the formula's minimum
    /// (or `cap`, when that reaches it), or some value at or under `floor` once the scan finds
    /// the set cannot beat it; `None` when `stop()` cut it short.
    pub fn bound(
        &self,
        g: &Graph,
        k: usize,
        floor: u64,
        cap: u64,
        stop: &dyn Fn() -> bool,
        flows: &mut usize,
    ) -> Option<u64> {
        let (z, h) = (self.z, &self.h);
        let b = &self.storages[..k.min(self.storages.len())];
        if b.is_empty() {
            return Some(floor);
        }
        // Each step below is a pass over the join's copy of the graph, before the first flow
        // reads the clock (on the 7,310-op Keras step, together about 12 ms).
        if stop() {
            return None;
        }
        let (net, live) = live_network(h, &self.arcs, b);
        if !net.usable() {
            return Some(floor);
        }
        if stop() {
            return None;
        }
        // The candidates' cheap bound: the constant (B included), the op's own memory and what
        // else it reads.
        let mut cands = free_candidates(g, h, &net, b, &live, |x| x == z || self.anc[x as usize]);
        cands.sort_unstable_compact();
        let (mut seen, mut stack) = (Vec::new(), Vec::new());
        let before_of = |x: OpIx, s: u32, before: &mut Vec<OpIx>| {
            before.extend(g.users(s).iter().copied().filter(|&y| y != x));
            before.push(z);
            !frees_another(g, x, before, b, &[s], &mut seen, &mut stack)
        };
        let cut = |_: OpIx, _: u32, c: u64, _: u64, _: &mut usize| Some(c);
        least_free(h, &net, &cands, floor, cap, before_of, cut, stop, flows).map(|r| r.0)
    }
}

/// The join-free bound of `g` for the join `z` and B = the first `k` of its storages
/// ([`join_storages`]); see [`Join::bound`]. `Some(floor)` when z has no storages.
pub fn join_free_of(
    g: &Graph,
    z: OpIx,
    k: usize,
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
    flows: &mut usize,
) -> Option<u64> {
    match Join::new(g, z) {
        Some(j) => j.bound(g, k, floor, cap, stop, flows),
        None => Some(floor),
    }
}

/// The join-free bound over joins sampled along `order` (a topological order of `g`) and, for
/// each, B = its largest storages: at least `floor`, capped at `cap` (the best peak known).
/// Cut short by `stop()`, the best value so far is still a bound.
pub fn join_free_bound(
    g: &Graph,
    order: &[OpIx],
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
) -> JoinFree {
    let n = g.num_ops();
    let mut out = JoinFree {
        bytes: floor,
        complete: true,
        flows: 0,
    };
    if n < 2 || order.len() != n || floor >= cap {
        return out;
    }
    let during = during_in(g, order);
    let mut pos = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    // Each storage's last reader in `order`.
    let last = |s: u32| g.users(s).iter().map(|&u| pos[u as usize]).max();
    // (upper bound from `order`, join, k): the memory at B's first free in `order`.
    let mut sets: Vec<(u64, OpIx, usize)> = Vec::new();
    let mut joins: Vec<OpIx> = Vec::new();
    let (mut anc, mut desc, mut stack) = (Vec::new(), Vec::new(), Vec::new());
    let step = (n / JOINS).max(1);
    for i in (step / 2..n).step_by(step) {
        if stop() {
            out.complete = false;
            return out;
        }
        let z = order[i];
        reach(g, z, true, &mut anc, &mut stack);
        reach(g, z, false, &mut desc, &mut stack);
        let b = join_storages(g, z, &anc, &desc);
        if b.is_empty() {
            continue;
        }
        let mut first = usize::MAX;
        let firsts: Vec<usize> = b
            .iter()
            .map(|&s| {
                first = first.min(last(s).unwrap_or(usize::MAX));
                first
            })
            .collect();
        let mut k = b.len();
        while k >= 1 {
            let upper = order
                .get(firsts[k - 1])
                .map_or(cap, |&x| during[x as usize]);
            if upper > floor {
                sets.push((upper.min(cap), joins.len() as OpIx, k));
            }
            k = if k == 1 {
                0
            } else {
                (k * SHRINK_FIFTHS / 5).min(k - 1)
            };
        }
        joins.push(z);
    }
    // Ties keep one join's sets together: its copy of the graph is made once.
    // Largest first; equal tuples are identical, so the compact (stable) sort gives std's
    // result with less wasm code.
    sets.sort_by_compact(|a, b| b.cmp(a));
    let mut join: Option<(OpIx, Join)> = None;
    let mut built = 0;
    for (tried, &(upper, j, k)) in sets.iter().enumerate() {
        if upper <= out.bytes || tried >= MAX_SETS || out.flows >= MAX_FLOWS {
            break;
        }
        if join.as_ref().map_or(true, |(at, _)| *at != j) {
            if built >= MAX_JOINS || stop() {
                out.complete = built >= MAX_JOINS;
                break;
            }
            built += 1;
            join = Join::new(g, joins[j as usize]).map(|jn| (j, jn));
        }
        let Some((_, jn)) = &join else {
            continue;
        };
        let target = out.bytes.max(cap - cap / 256);
        match jn.bound(g, k, target, upper, stop, &mut out.flows) {
            Some(v) if v > target => out.bytes = out.bytes.max(v.min(cap)),
            Some(_) => {}
            None => {
                out.complete = false;
                return out;
            }
        }
    }
    out
}
