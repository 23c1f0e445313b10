//! `auto`'s phases after the proof search's first run in an epoch ([`State::epoch`]): the exact
//! search, branching and local search on small graphs ([`State::small`]), on large ones at a
//! long epoch ([`State::large`]) and at a short one ([`State::large_short`]), then local search
//! and the proof search until the epoch's end ([`State::polish_and_prove`]).

use super::candidates::Pass;
use super::{
    fold, limits, proven, share, State, BRANCH_SHARE_SMALL, CONTINUE_NODES, DEFER_SHARE,
    EXACT_FIRST_SHARE, EXACT_SHARE, EXACT_SHARE_SMALL, PROBE_NODES, RESCAN_SHARE, RESTART_ABOVE,
    RESTART_MIN_NODES, RESTART_NODES, ROOT_PASSES, SCAN_PASSES, SMALL_OPS,
};
use crate::bounds::branching::Limits;
use crate::bounds::BoundKind;
use crate::budget::Budget;
use crate::order::{defer, local_search, Ordering};
use crate::simulate::peak_of;
use crate::OpIx;

impl State<'_> {
    /// Local search from the best three candidates and the best order so far, within
    /// `budget`; the plan when it reaches the bound.
    fn polish(
        &mut self,
        budget: &Budget,
        pass: &Pass,
        candidates: &[(u64, Vec<OpIx>)],
    ) -> Option<Ordering> {
        if self.polished == Some(self.best.0) {
            return None;
        }
        let mut starts: Vec<(u64, Vec<OpIx>)> = candidates.to_vec();
        // Not the early deferral's order: local search from it stays in a worse valley than
        // from the heuristics' (the Keras ResNet-50 `dots` step: 545.3 MB, where the
        // as-late-as-possible order polished, then deferred, gives 543.3 MB; at 1 s 1.0072 of
        // the bound in three runs, and 1.0199 with this order among the starts).
        if self.early != Some(self.best.0) {
            starts.push(self.best.clone());
        }
        // The peaks are known: scoring the starts again would cost a simulation each, unread.
        let (mut peak, mut polished) = local_search::improve_best_scored(self.g, starts, 3, budget);
        // The order the bounds' downsets suggest is often above the others before local
        // search and below them after it (a workflow whose sample with the smallest outputs
        // must run last). Not once the time is up: its simulation would only overrun.
        if let Some(hinted) = self.search.hinted().map(|h| h.to_vec()) {
            if !budget.expired() {
                let better = local_search::improve(self.g, &hinted, &share(budget, 0.5));
                let p = peak_of(self.g, &better);
                if p < peak {
                    (peak, polished) = (p, better);
                }
            }
        }
        // Local search's moves span a window of steps; whole jobs that may run on the other
        // side of the peak op move there next (half the time left at most: the proof search
        // gets the rest).
        // Its set-up (a simulation, the peak op's ancestors, the candidates) reads no clock.
        let defer_budget = share(budget, DEFER_SHARE);
        let deferred = pass.room(budget, 8.0);
        if deferred {
            polished = defer::defer_across_peak(self.g, &polished, &defer_budget);
            peak = peak_of(self.g, &polished);
        }
        if peak < self.best.0 {
            self.offer(&polished, peak);
            self.best = (peak, polished);
        }
        // Cut short (the long moves by their share too), the next epoch polishes again.
        if !budget.expired() && deferred && !defer_budget.expired() {
            self.polished = Some(self.best.0);
        }
        (self.bound.0 >= self.best.0).then(|| proven(self.best.1.clone(), self.bound.1))
    }

    /// Small graphs, after the proof search's root: the exact search, branching, local
    /// search, and branching again until the deadline.
    pub(super) fn small(
        &mut self,
        budget: &Budget,
        pass: &Pass,
        candidates: &[(u64, Vec<OpIx>)],
    ) -> Option<Ordering> {
        if let Some(done) = self.exact(budget, EXACT_SHARE_SMALL) {
            return Some(done);
        }
        if pass.room(budget, 4.0) && !budget.cancelled() {
            let branch_budget = share(budget, BRANCH_SHARE_SMALL);
            let stop = || branch_budget.expired();
            if let Some(done) = self.prove(budget, pass, &stop, &stop) {
                return Some(done);
            }
        }
        self.polish_and_prove(budget, pass, candidates)
    }

    /// Large graphs, after the first run of the proof search: the exact search (on most it
    /// ends at once: its set-up would not end in time), local search (it usually stops
    /// early), then the proof search again until the deadline, from its open nodes with the
    /// polished order as its incumbent (the last-of-set scan first, if the first run cut it
    /// short).
    pub(super) fn large(
        &mut self,
        budget: &Budget,
        pass: &Pass,
        candidates: &[(u64, Vec<OpIx>)],
    ) -> Option<Ordering> {
        if let Some(done) = self.exact(budget, EXACT_SHARE) {
            return Some(done);
        }
        self.polish_and_prove(budget, pass, candidates)
    }

    /// Large graphs at a short budget (the default), after the proof search's root: the exact
    /// search from the heuristics' best order, within [`EXACT_FIRST_SHARE`] of the time left,
    /// then branching until `stop` (the end of the proof search's share), local search, and
    /// branching again until the deadline. The exact search often ends at once on a large
    /// graph, but where it does not it proves in a few ms what branching would take long to
    /// (mnasnet1_0's training step: 4 ms from the heuristics' order and the root's bound; after
    /// branching's first run, from its order and higher bound, it did not in 26 ms).
    pub(super) fn large_short(
        &mut self,
        budget: &Budget,
        pass: &Pass,
        candidates: &[(u64, Vec<OpIx>)],
        stop: &dyn Fn() -> bool,
        sets_stop: &dyn Fn() -> bool,
    ) -> Option<Ordering> {
        if let Some(done) = self.exact(budget, EXACT_FIRST_SHARE) {
            return Some(done);
        }
        if !budget.cancelled() && pass.room(budget, 4.0) {
            if let Some(done) = self.prove(budget, pass, stop, sets_stop) {
                return Some(done);
            }
        }
        // A last-of-set scan cut short by its share starts over in the next run: before local
        // search, which on the bwa workflows takes half the time left and changes nothing,
        // while the scan is what proves them (1,000 flows, about 30 ms; 30-40 ms in its
        // share, so it flipped between runs). Only the scan: no node is expanded. Only when
        // it was cut short well into one set (on a training step the scan is cut short
        // among sets that cheap flows dismiss, and local search is what lowers its plan).
        if !self.search.sets_done()
            && self.search.scan_progress() > 0
            && !budget.cancelled()
            && pass.room(budget, SCAN_PASSES)
        {
            let rescan = share(budget, RESCAN_SHARE);
            let stop = || rescan.expired();
            let limits = Limits {
                max_nodes: self.search.nodes(),
                ..limits(budget, &stop, &stop, 0)
            };
            let p = self.search.run(&limits);
            if let Some(done) = fold(p, &mut self.bound, &mut self.best) {
                return Some(done);
            }
        }
        self.polish_and_prove(budget, pass, candidates)
    }

    /// The last two phases of both: local search, then the proof search until the deadline.
    /// Local search ends once no move helps, often well before the deadline: the rest of the
    /// time goes back to the proof search, which goes on from its open nodes (or, once its
    /// tree is large, from a restarted one) with the polished order as its incumbent.
    fn polish_and_prove(
        &mut self,
        budget: &Budget,
        pass: &Pass,
        candidates: &[(u64, Vec<OpIx>)],
    ) -> Option<Ordering> {
        if budget.cancelled() || !pass.room(budget, 4.0 + candidates.len() as f64) {
            return None;
        }
        if let Some(done) = self.polish(budget, pass, candidates) {
            return Some(done);
        }
        if !budget.cancelled() && pass.room(budget, 4.0) {
            let stop = || budget.expired();
            // The tree was built from the first candidate's order: one far above the polished
            // order steers it by the wrong peak (efficientnet_b0's training step: 46.99 MB
            // before, 40.60 MB after; restarted, the bound meets 40.51 MB at 100 ms, 39.09 MB
            // continued).
            // Only when the order is better than the one the tree grew from: from the same
            // order it would grow the same tree again (and in every epoch).
            let far_above = self.tree_peak as f64 > self.best.0 as f64 * RESTART_ABOVE;
            let grown = self.search.nodes() - self.tree_nodes >= RESTART_NODES;
            // A tree of a few nodes is not restarted (its cuts are what the next one starts
            // from: efficientnet_b0's step, restarted after 2 nodes, is at 1.037 at 100 ms,
            // after 52 at 1.002, as with one epoch).
            // Large graphs: branching only. A last-of-set scan cut short would start again
            // here, listing and bounding its sets before its first flow (12 ms on the `dots`
            // step, no clock read): near the deadline it ran past it (119 ms at 100). It goes
            // on in the next epoch's first run (on the workflows it proves, before local
            // search).
            let large = self.g.num_ops() > SMALL_OPS;
            let no_sets = || large || budget.expired();
            // A tree that has not raised the bound above its root's, grown from a worse
            // order than the polished one: a fresh tree from the polished order first, for a
            // few nodes (kept when at least as good, see `Search::probe`). The Keras ResNet-50
            // `dots` step's tree, grown from a heuristic's 545 MB, stayed at the root's cut
            // bound, 0.9933 of the optimum, at 100 ms; a fresh one from local search's
            // 538.47 MB meets the optimum in 3 nodes, 8 ms. Not once branching gave the bound:
            // that tree has raised it and goes on (NASNet-Large's layer graph, proven at 62-77
            // ms in three corpus runs, was unproven at 100 ms in three with a fresh tree here,
            // tied with the old one, taking its place).
            if large
                && self.bound.1 != BoundKind::Branching
                && self.best.0 < self.tree_peak
                && !budget.expired()
            {
                if let Some(done) = self.probe(budget, pass, &stop, &no_sets) {
                    return Some(done);
                }
            }
            if large && (grown || far_above) && self.best.0 < self.tree_peak {
                // The old tree first, while its nodes, seeded by the polished order, lower
                // the best peak (a restart starts over from the best order when they stop).
                loop {
                    let before = self.best.0;
                    let nodes = self.search.nodes() + CONTINUE_NODES;
                    let p = self.search.run(&limits(budget, &stop, &no_sets, nodes));
                    if let Some(done) = fold(p, &mut self.bound, &mut self.best) {
                        return Some(done);
                    }
                    if self.best.0 == before || budget.expired() {
                        break;
                    }
                    // A lower best order: a fresh tree from it, for a few nodes, may close at
                    // once where the old one would not (see `Search::probe`).
                    if let Some(done) = self.probe(budget, pass, &stop, &no_sets) {
                        return Some(done);
                    }
                }
            }
            let young_done = self.search.nodes() - self.tree_nodes >= RESTART_MIN_NODES;
            // In the first epoch a grown tree goes on: at 100 ms NASNet-Large's layer graph has
            // a tree of 250-260 nodes when local search ends, and it proved the optimum 30
            // nodes later, or not at all when it had passed 256 and restarted (ten runs of the
            // graph alone: proven in one; continued, in eight of eight, at 62-68 ms).
            let grown = grown && self.later_epoch;
            if (grown || far_above) && self.best.0 < self.tree_peak && young_done {
                self.search.restart();
                (self.tree_peak, self.tree_nodes) = (self.best.0, self.search.nodes());
            }
            return self.prove(budget, pass, &stop, &no_sets);
        }
        None
    }

    /// A fresh tree from the best order for [`PROBE_NODES`] nodes ([`crate::bounds::branching::Search::probe`]: kept in
    /// the old one's place when at least as good); the plan when it proves its order optimal.
    fn probe(
        &mut self,
        budget: &Budget,
        pass: &Pass,
        stop: &dyn Fn() -> bool,
        sets_stop: &dyn Fn() -> bool,
    ) -> Option<Ordering> {
        // A fresh tree evaluates its root first.
        if !pass.room(budget, ROOT_PASSES) {
            return None;
        }
        let (from, at) = (self.best.0, self.search.nodes());
        let nodes = at + PROBE_NODES;
        let (p, fresh) = self.search.probe(&limits(budget, stop, sets_stop, nodes));
        let done = fold(p, &mut self.bound, &mut self.best);
        if fresh {
            (self.tree_peak, self.tree_nodes) = (from, at);
        }
        done
    }
}
