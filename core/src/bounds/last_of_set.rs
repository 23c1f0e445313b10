//! The last-of-a-set bound: for any set S of ops, some op of S runs last among them, and when
//! it runs every other op of S has run. So every order's peak is at least
//! `min over x in S of cut(x with S \ {x} forced before x)` ([`super::cut`]), where an x that
//! some other op of S must follow cannot be last and is skipped. Mirrored, some op of S runs
//! first, before every other op of S: the peak is also at least
//! `min over x in S of cut(x with S \ {x} forced after x)`.
//!
//! The cut alone lets each op of S pick the moment that suits it, before or after the others;
//! these bounds do not, which is what a fan of similar ops needs (many readers of one input,
//! whose outputs pile up until the last one runs; the producers of one op's inputs, which must
//! all be live together), and what an op with several consumers needs: until the first of
//! them runs, all of its outputs are live (a training step's weight gradient, waiting for its
//! update, while the backward pass goes on). The sets tried are the readers of each storage,
//! the predecessors of each op, the sinks of the graph and the heavy ops at halving thresholds of
//! their own memory (last of the set), and the successors
//! of each op and the sources of the graph (first of the set), with at least two ops each,
//! largest total output first. The last of the sinks is the last op of the order: everything
//! else has run, so what the graph keeps to the end (its outputs) is live beside that op's
//! inputs, outputs and workspace, which is what the simple end bound misses on workflows whose
//! many outputs pile up (WfCommons mag, cycles, 1000genome).
//!
//! Most sets need no flow: in any order, the set's last op runs after the rest of the set, so
//! the memory while it runs in a known order is an upper bound on the set's bound (for the
//! first of a set, the memory while its first op runs). Sets are taken by that upper bound,
//! largest first, and the scan stops once it cannot beat the best bound so far (as the cut scan
//! does). Deciding whether a set can beat the best takes one flow in most cases: its ops are
//! tried from the smallest upper bound, and the first whose cut (capped just above the best)
//! stays at or under the best ends the set.

use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::OpIx;

use super::cases::{least_case, scan, Case, Hint, Scanned};
use super::cut::CutNetwork;
use super::own_memory;

/// Which end of a set a bound looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// Some op of the set runs after all the others.
    Last,
    /// Some op of the set runs before all the others.
    First,
}

/// A set of ops, and which end of it the bound looks at.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpSet {
    /// Last or first of the set.
    pub end: End,
    /// Its ops, sorted, without repeats.
    pub ops: Vec<OpIx>,
}

/// The result of [`last_of_set_bound`]: the bound, the set that gave it (`by`), and for that
/// set its op of the least cut and that cut's minimising downset (`hint`).
pub type LastOfSet = Scanned<OpSet>;

/// How many halving thresholds [`candidate_sets`] tries for its heavy-op sets.
const HEAVY_THRESHOLDS: usize = 24;

/// How many groups of alike ops [`candidate_sets`] makes sets of.
const MAX_ALIKE_GROUPS: usize = 64;

/// The candidate sets of `g` (with `net`'s arcs): readers of each storage and predecessors of
/// each op (last of the set), successors of each op (first of the set), two or more ops each,
/// deduplicated, largest total output first; and the heavy ops at halving thresholds (last of
/// the set).
pub fn candidate_sets(g: &Graph, net: &CutNetwork) -> Vec<OpSet> {
    candidate_sets_until(g, net, &|| false).0
}

/// [`candidate_sets`], reading `stop()` before each pass over the graph (a heavy-op threshold,
/// an alike group's two ends: 64 groups on a 4,000-op graph take a few ms); true with the sets
/// when every pass ran. Cut short, the sets made so far are still candidates (any set is
/// sound), fewer of them.
pub fn candidate_sets_until(
    g: &Graph,
    net: &CutNetwork,
    stop: &dyn Fn() -> bool,
) -> (Vec<OpSet>, bool) {
    let mut complete = true;
    let mut sets: Vec<OpSet> = Vec::new();
    let mut add = |end: End, ops: &[OpIx]| {
        let mut ops = ops.to_vec();
        ops.sort_unstable_compact();
        ops.dedup();
        if ops.len() >= 2 {
            sets.push(OpSet { end, ops });
        }
    };
    for w in 0..g.num_ops() as OpIx {
        add(End::Last, net.preds(w));
        add(End::First, net.succs(w));
    }
    for t in 0..g.num_tensors() as u32 {
        add(End::Last, g.users(t));
    }
    // Every op is an ancestor of a sink (or one), so when the last sink runs every other op
    // has run: the end of the order, where what the graph keeps (its outputs) meets the last
    // op's own memory. Mirrored, the first source runs before any other op.
    let n = g.num_ops() as OpIx;
    let sinks: Vec<OpIx> = (0..n).filter(|&v| net.succs(v).is_empty()).collect();
    add(End::Last, &sinks);
    let sources: Vec<OpIx> = (0..n).filter(|&v| net.preds(v).is_empty()).collect();
    add(End::First, &sources);
    // The heavy ops: those whose own memory (reads, outputs, workspace) is at least a threshold,
    // for thresholds halving from the largest. The last of them runs after the rest, and the
    // light ops free to follow it (those with no heavy descendant) are all that can keep their
    // outputs off its peak: on workflows whose outputs pile up, a tiny sink (a samplesheet
    // check) may run last, but the last heavy op still meets nearly every output (WfCommons
    // atacseq). Any set is sound (see the module comment); these only add candidates.
    let own: Vec<u64> = (0..n).map(|v| own_memory(g, v)).collect();
    let top = own.iter().copied().max().unwrap_or(0);
    // A topological order of the network (Kahn), for the heavy-descendant pass.
    let mut indeg: Vec<usize> = (0..n).map(|v| net.preds(v).len()).collect();
    let mut topo: Vec<OpIx> = (0..n).filter(|&v| indeg[v as usize] == 0).collect();
    let mut head = 0;
    while head < topo.len() {
        let v = topo[head];
        head += 1;
        for &w in net.succs(v) {
            indeg[w as usize] -= 1;
            if indeg[w as usize] == 0 {
                topo.push(w);
            }
        }
    }
    let mut theta = top / 2;
    let mut last_len = 0;
    for _ in 0..HEAVY_THRESHOLDS {
        if theta == 0 {
            break;
        }
        if stop() {
            complete = false;
            break;
        }
        // Only the heavy ops with no heavy descendant: the others run before one of those, so
        // before the last, and the set's bound is the same with fewer ops to try.
        let mut below = vec![false; n as usize];
        for &v in topo.iter().rev() {
            below[v as usize] = net
                .succs(v)
                .iter()
                .any(|&w| below[w as usize] || own[w as usize] >= theta);
        }
        let heavy: Vec<OpIx> = (0..n)
            .filter(|&v| own[v as usize] >= theta && !below[v as usize])
            .collect();
        let count = (0..n).filter(|&v| own[v as usize] >= theta).count();
        if count == n as usize {
            break;
        }
        if count > last_len {
            last_len = count;
            add(End::Last, &heavy);
        }
        theta /= 2;
    }
    // Alike ops (as many predecessors, successors, storages read and outputs: in a workflow,
    // the same task run once per sample or image band): one of them runs first and one last.
    // Montage runs one `mBgModel` per band, and until the first of them runs every band's
    // images are live, raw or projected (WfCommons montage-2mass). Only those with no alike op
    // below them (last of the set) or above them (first): the others run before (after) one
    // of those, and the bound is the same. (Not by `kind`: planners ignore it, docs/design.md.)
    // Each group costs a pass over the graph: the heaviest (by output bytes) only.
    let mut kinds = alike_groups(g, net, false);
    kinds.sort_by_key_compact(|k| {
        std::cmp::Reverse(k.iter().map(|&v| g.alloc(v)).fold(0, u64::saturating_add))
    });
    kinds.truncate(MAX_ALIKE_GROUPS);
    let mut mark = vec![false; n as usize];
    let mut reach = vec![false; n as usize];
    for ops in &kinds {
        if !complete || stop() {
            complete = false;
            break;
        }
        for &v in ops {
            mark[v as usize] = true;
        }
        for (end, order) in [
            (End::Last, topo.iter().rev().collect::<Vec<_>>()),
            (End::First, topo.iter().collect()),
        ] {
            // reach[v]: an op of the kind lies strictly below (above) v.
            for &&v in &order {
                let next = match end {
                    End::Last => net.succs(v),
                    End::First => net.preds(v),
                };
                reach[v as usize] = next.iter().any(|&w| reach[w as usize] || mark[w as usize]);
            }
            let ends: Vec<OpIx> = ops
                .iter()
                .copied()
                .filter(|&v| !reach[v as usize])
                .collect();
            add(end, &ends);
        }
        for &v in ops {
            mark[v as usize] = false;
        }
    }
    sets.sort_unstable_by(|a, b| (&a.ops, a.end as u8).cmp(&(&b.ops, b.end as u8)));
    sets.dedup();
    let weight = |s: &OpSet| -> u64 {
        s.ops
            .iter()
            .map(|&v| g.alloc(v))
            .fold(0, u64::saturating_add)
    };
    sets.sort_by_key_compact(|s| std::cmp::Reverse(weight(s)));
    (sets, complete)
}

/// The groups of alike ops of `g` (with `net`'s arcs): as many predecessors, successors,
/// storages read and outputs (in a workflow, the same task run once per sample or band), two
/// or more ops each and not every op, sorted. `coarse`: the successors are not compared
/// (Montage's `mProject` jobs have as many readers as their image has overlaps).
pub fn alike_groups(g: &Graph, net: &CutNetwork, coarse: bool) -> Vec<Vec<OpIx>> {
    let n = g.num_ops();
    let mut by_shape: std::collections::HashMap<(usize, usize, usize, usize), Vec<OpIx>> =
        Default::default();
    for v in 0..n as OpIx {
        let shape = (
            net.preds(v).len(),
            if coarse { 0 } else { net.succs(v).len() },
            g.reads(v).len(),
            g.ops()[v as usize].outputs.len(),
        );
        by_shape.entry(shape).or_default().push(v);
    }
    let mut groups: Vec<Vec<OpIx>> = by_shape
        .into_values()
        .filter(|k| k.len() >= 2 && k.len() < n)
        .collect();
    groups.sort_unstable_compact();
    groups
}

/// The largest last-of-set (or first-of-set) bound over `sets` and `floor`. `orders` are
/// topological orders of `g` that keep `net`'s arcs (at least one): the memory while each op
/// runs in them bounds its cut, and while a set's last (first) op runs, the set's bound. `cap` is a value no bound needs to
/// exceed (the best known peak: at or above it, a bound proves that order optimal and the exact
/// figure does not matter). `stop()` is read before each flow.
pub fn last_of_set_bound(
    g: &Graph,
    net: &CutNetwork,
    sets: &[OpSet],
    orders: &[&[OpIx]],
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
) -> LastOfSet {
    last_of_set_bound_from(
        g,
        net,
        sets,
        orders,
        floor,
        cap,
        stop,
        &mut ScanMemo::default(),
    )
}

/// What a scan cut short had computed for the set it was on: the set, its ops whose cut was
/// computed, and the least of those cuts (capped) with its hint. A set of a thousand ops (bwa's
/// tasks reading one index) takes a thousand flows, about 30 ms: a scan stopped near its end
/// would otherwise start the set over, and flipped between proving and not at 100 ms.
#[derive(Clone, Debug)]
pub struct ScanMemo {
    partial: Option<(OpSet, Vec<OpIx>, u64, Option<Hint>)>,
    /// How many of a set's ops one step of the scan takes before they are recorded.
    chunk: usize,
}

impl Default for ScanMemo {
    fn default() -> Self {
        ScanMemo::with_chunk(64)
    }
}

impl ScanMemo {
    /// A memo that records a set's ops `chunk` at a time (at least one; 64 by default: each
    /// step costs one more flow, a capped probe).
    pub fn with_chunk(chunk: usize) -> Self {
        ScanMemo {
            partial: None,
            chunk: chunk.max(1),
        }
    }

    /// How many ops of the set a scan was cut short on have their cut computed.
    pub fn progress(&self) -> usize {
        self.partial.as_ref().map_or(0, |p| p.1.len())
    }
}

/// [`last_of_set_bound`], going on where a scan cut short left `memo` (the same `sets`, maybe
/// other orders and bounds): the ops of the set it was on whose cuts were computed are not
/// computed again. Each value kept is a cut capped at the cap of its scan, and the caps only
/// fall (the best peak) or bound the set's value anyway, so the least of them is still a bound.
#[allow(clippy::too_many_arguments)]
pub fn last_of_set_bound_from(
    g: &Graph,
    net: &CutNetwork,
    sets: &[OpSet],
    orders: &[&[OpIx]],
    floor: u64,
    cap: u64,
    stop: &dyn Fn() -> bool,
    memo: &mut ScanMemo,
) -> LastOfSet {
    // In a known order the set's last (first) op runs after (before) the rest of the set.
    let upper_of = |s: &OpSet, pos: &[usize], during: &[u64]| {
        let at = |&&v: &&OpIx| pos[v as usize];
        let end = match s.end {
            End::Last => s.ops.iter().max_by_key(at),
            End::First => s.ops.iter().min_by_key(at),
        };
        end.map_or(u64::MAX, |&x| during[x as usize])
    };
    let least_of = |s: &OpSet, upper: &[u64], best: u64, cap_k: u64, flows: &mut usize| {
        // The least over the ops that can be last (first).
        let mut fill = |i: usize, before: &mut Vec<OpIx>, after: &mut Vec<OpIx>| {
            let x = s.ops[i];
            let rest = match s.end {
                End::Last => before,
                End::First => after,
            };
            rest.extend(s.ops.iter().copied().filter(|&y| y != x));
            x
        };
        let mut by_op: Vec<usize> = (0..s.ops.len()).collect();
        by_op.sort_by_key_compact(|&i| upper[s.ops[i] as usize]);
        // Resumed: the ops done before count with their values.
        let (mut done, mut least, mut least_hint) = (Vec::new(), u64::MAX, None);
        if memo.partial.as_ref().is_some_and(|p| p.0 == *s) {
            let (_, d, l, h) = memo.partial.take().expect("checked");
            by_op.retain(|&i| !d.contains(&s.ops[i]));
            (done, least, least_hint) = (d, l.min(cap_k), h);
        }
        let mut case = if least <= best {
            Case::NoBetter
        } else {
            Case::Least(least, least_hint.clone())
        };
        for chunk in by_op.chunks(memo.chunk) {
            if !matches!(case, Case::Least(..)) {
                break;
            }
            match least_case(g, net, chunk, &mut fill, best, cap_k, flows, stop) {
                Case::Least(l, h) => {
                    done.extend(chunk.iter().map(|&i| s.ops[i]));
                    if l < least {
                        (least, least_hint) = (l, h);
                    }
                    case = Case::Least(least, least_hint.clone());
                }
                other => case = other,
            }
        }
        if matches!(case, Case::Stopped) {
            memo.partial = Some((s.clone(), done, least, least_hint));
        }
        case
    };
    scan(g, sets, orders, floor, cap, upper_of, least_of)
}
