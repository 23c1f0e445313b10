//! The bounds that hold for the whole graph, tried at the root after its cut bound, in turn:
//! last of a set (the set that gave it refined by the nested set), first free, rewrite set,
//! join free, either side. Each raises the search's floor, which bounds every node; each runs
//! once, or again in the next run when the clock cut it short. Their minimising downsets are
//! starts for orders (hints).

use std::cell::Cell;

use crate::bounds::cases::Hint;
use crate::bounds::cut::CutNetwork;
use crate::bounds::last_of_set::{
    alike_groups, candidate_sets_until, last_of_set_bound_from, End, ScanMemo,
};
use crate::bounds::{either_side, first_free, join_free, nested_set, rewrite_set, BoundKind};
use crate::graph::Graph;
use crate::OpIx;

/// Clock reads the first-free bound may make per op of the graph (on top of a few thousand).
const FIRST_FREE_READS_PER_OP: u64 = 4;

/// Which of the whole-graph bounds are done.
#[derive(Default)]
pub(super) struct RootBounds {
    /// The last-of-set scan went through every set.
    pub(super) sets_done: bool,
    /// Where a last-of-set scan cut short stopped (the next run goes on from there).
    pub(super) scan_memo: ScanMemo,
    /// The first-free bound ran (or was cut off by its cap, for good).
    first_free_done: bool,
    /// The join-free bound ran (or was cut off by its cap, for good).
    join_free_done: bool,
    /// The rewrite-set bound ran.
    rewrites_done: bool,
    /// The either-side scan went through every split.
    splits_done: bool,
}

/// What the whole-graph bounds are computed against.
pub(super) struct Against<'a> {
    pub(super) g: &'a Graph,
    /// The best order so far, and its peak (no bound needs to exceed it).
    pub(super) best: &'a [OpIx],
    pub(super) best_peak: u64,
    /// The order of the least open node, if any (it bounds the last-of-set scan's sets).
    pub(super) top: Option<&'a [OpIx]>,
    /// More orders that bound the scans' sets and splits.
    pub(super) others: &'a [Vec<OpIx>],
    /// Read before every flow; `sets_stop` too, for the last-of-set and either-side scans.
    pub(super) stop: &'a dyn Fn() -> bool,
    pub(super) sets_stop: &'a dyn Fn() -> bool,
}

impl RootBounds {
    /// Runs the bounds not done yet while `floor` (a true bound on every order, and what
    /// proved it) is under the best peak, raising it; adds their flows to `flows` and returns
    /// the hints they gave.
    pub(super) fn run(
        &mut self,
        at: &Against,
        floor: &mut (u64, BoundKind),
        flows: &mut u64,
    ) -> Vec<Hint> {
        let (g, stop, best_peak) = (at.g, at.stop, at.best_peak);
        let mut hints = Vec::new();
        let mut orders = vec![at.best];
        orders.extend(at.others.iter().map(|o| &o[..]));
        if !self.sets_done && floor.0 < best_peak && !stop() && !(at.sets_stop)() {
            // The last-of-set bound holds for the whole graph, so it floors every node.
            let net = CutNetwork::new(g, &[]);
            let sets_stop = || stop() || (at.sets_stop)();
            let (sets, listed) = candidate_sets_until(g, &net, &sets_stop);
            // Each order costs a simulation: the two best and three more bound the sets well.
            let mut orders = vec![at.best];
            orders.extend(at.top);
            orders.extend(at.others.iter().map(|o| &o[..]));
            let los = last_of_set_bound_from(
                g,
                &net,
                &sets,
                &orders,
                floor.0,
                best_peak,
                &sets_stop,
                &mut self.scan_memo,
            );
            *flows += los.flows as u64;
            hints.extend(los.hint);
            if los.bytes > floor.0 {
                let kind = match los.by.as_ref().map(|s| s.end) {
                    Some(End::First) => BoundKind::FirstOfSet,
                    _ => BoundKind::LastOfSet,
                };
                *floor = (los.bytes, kind);
            }
            // The set that gave the bound, refined by the last (first) of a group of its ops'
            // ancestors (descendants).
            if let Some(set) = los.by.filter(|_| floor.0 < best_peak) {
                let groups = alike_groups(g, &net, true);
                let ns = nested_set::nested_set_bound(
                    g, &net, &set, &groups, floor.0, best_peak, &sets_stop,
                );
                *flows += ns.flows as u64;
                if ns.bytes > floor.0 {
                    *floor = (ns.bytes, BoundKind::NestedSet);
                }
            }
            // Cut short, the scan runs again in the next run (sets that could not beat the
            // bound then are dismissed by a cheap capped flow); branching gets the rest of
            // this one.
            self.sets_done = los.complete && listed;
        }
        // The first free, the join free and the either side are capped (by the clock reads,
        // about one per flow phase) so that a graph where they cannot help (a training step)
        // keeps its time for branching; cut short, each is still a bound, and the search goes
        // on.
        let reads_cap = FIRST_FREE_READS_PER_OP * g.num_ops() as u64 + 4096;
        if self.sets_done && !self.first_free_done && floor.0 < best_peak && !stop() {
            let reads = Cell::new(0u64);
            let ff_stop = || stop() || reads.replace(reads.get() + 1) > reads_cap;
            let ff = first_free::first_free_bound(g, at.best, floor.0, best_peak, &ff_stop);
            hints.extend(ff.hint);
            *flows += ff.flows as u64;
            if ff.bytes > floor.0 {
                *floor = (ff.bytes, BoundKind::FirstFree);
            }
            // Stopped by the clock (not its cap), it runs again in the next run.
            self.first_free_done = ff.complete || !stop();
        }
        if self.first_free_done && !self.rewrites_done && floor.0 < best_peak && !stop() {
            // The first (last) of the large rewrites (an SGD step's updates).
            let rs = rewrite_set::rewrite_set_bound(g, &orders, floor.0, best_peak, stop);
            *flows += rs.flows as u64;
            hints.extend(rs.hint);
            if rs.bytes > floor.0 {
                *floor = (rs.bytes, BoundKind::RewriteSet);
            }
            self.rewrites_done = rs.complete;
        }
        if self.first_free_done && !self.join_free_done && floor.0 < best_peak && !stop() {
            // The first free of what a join leaves live (a training step's saved activations
            // and weights).
            let reads = Cell::new(0u64);
            let jf_stop = || stop() || reads.replace(reads.get() + 1) > reads_cap;
            let jf = join_free::join_free_bound(g, at.best, floor.0, best_peak, &jf_stop);
            *flows += jf.flows as u64;
            if jf.bytes > floor.0 {
                *floor = (jf.bytes, BoundKind::JoinFree);
            }
            self.join_free_done = jf.complete || !stop();
        }
        if self.sets_done
            && self.first_free_done
            && !self.splits_done
            && floor.0 < best_peak
            && !stop()
            && !(at.sets_stop)()
        {
            // Within the sets' share; cut short by the clock, it runs again in the next run.
            let net = CutNetwork::new(g, &[]);
            let reads = Cell::new(0u64);
            let clock = || stop() || (at.sets_stop)();
            let sets_stop = || clock() || reads.replace(reads.get() + 1) > reads_cap;
            let splits = either_side::candidate_splits(g, &net, &sets_stop);
            let es = either_side::either_side_bound(
                g, &net, &splits, &orders, floor.0, best_peak, &sets_stop,
            );
            *flows += es.flows as u64;
            hints.extend(es.hint);
            if es.bytes > floor.0 {
                *floor = (es.bytes, BoundKind::EitherSide);
            }
            self.splits_done = es.complete || !clock();
        }
        hints
    }
}
