//! `auto`, the default method: a portfolio that proves what it can.
//!
//! 1. An in-forest that Liu's algorithm solves exactly ([`super::liu`]) gets Liu's order: optimal.
//! 2. Otherwise the near-linear heuristics run ([`fallback_candidates`]: greedy,
//!    Inductor's three, XLA's three, SP-ization, as late as possible, the program order), each after a look at the
//!    clock, and the best order is the incumbent.
//! 3. On large graphs, first the long moves across the peak ([`defer`]) on the best order:
//!    the proof search's root then has a lower incumbent to bound its scans by.
//!    The proof search ([`crate::bounds::branching::Search`], one for every phase below, each
//!    run going on where the last one ended) takes a share of the time: the whole-graph cut
//!    bound (every heuristic's order bounds each op's cut from above, so few flows are
//!    needed), the last-of-set bound within a part of that share, then precedence branching,
//!    whose nodes' orders improve the incumbent as it goes. Most real graphs are proven right
//!    there. On small graphs (up to 200 ops) only the two bounds run here, and branching after
//!    the exact search; on large ones at a short budget (the default) the bounds, a short
//!    dive, then the exact search, then branching for the rest of the share.
//! 4. The exact search ([`super::exact`]) starts from that order with that bound as its floor,
//!    and proves it optimal or improves it.
//! 5. When neither finished, local search ([`local_search::improve_best`]) polishes the best
//!    candidates and the searches' orders with the time left (and, separately, the order the
//!    bounds' minimising downsets suggest, [`Search::hinted`]); then the long moves across the
//!    peak ([`defer`]) carry whole jobs to the other side of the peak op. The best proven
//!    bound is kept.
//! 6. Local search usually stops (no move helps) well before the deadline: the proof search
//!    runs once more until the deadline, with the polished order as its incumbent, from its
//!    open nodes (or, once its tree is large, from a restarted one, when the old tree's
//!    nodes, seeded by the polished order, stop lowering the best peak).
//!
//! Steps 3 to 6 run in epochs of doubling length ([`auto_order`]): every epoch runs them all
//! within its own time, going on from what the epochs before found, so that a larger budget
//! runs the same first epochs as a smaller one, and more. Step 2 runs within the first epoch;
//! the heuristics that do not fit run at the start of the next ones. The epochs and every
//! share in them are measured on a [`WorkClock`], the work done (edges scanned by flows, ops
//! simulated, states expanded, [`crate::work`]), not the machine's time: where a phase ends is
//! the same in every run, and the deadline, on the caller's clock, only cuts the run short.
//!
//! So `auto` is never above any peer heuristic once they have all run (Inductor's and XLA's
//! choices are among the candidates), and `optimal` is only claimed when proven.

use crate::bounds::branching::{Limits, Proof, Search};
use crate::bounds::{lower_bound, BoundKind};
use crate::budget::Budget;
use crate::graph::Graph;
use crate::order::exact::exact_search_above;
use crate::order::{defer, liu, Ordering};
use crate::simulate::peak_of;
use crate::sort::CompactSort;
use crate::work::WorkClock;
use crate::OpIx;

mod candidates;
mod phases;
pub use candidates::{fallback_candidates, heuristic_candidates};
use candidates::{timed_candidates, Heuristics, Pass};

/// The part of an epoch's time left that the proof search may use, then the part of what is
/// left after it that the exact search may use, before local search takes the rest: the exact search
/// proves most small graphs, the proof search most large ones, and local search improves plans
/// the searches could not prove. Measured on the real-graph corpus and the 60-op families
/// (docs/benchmarks.md).
const PROOF_SHARE_SMALL: f64 = 0.3;
const PROOF_SHARE: f64 = 0.5;
/// Small graphs: the exact search proves corpus graphs in under 10 ms or not at all, and on
/// the 120-197-op workflows branching proves them after it (docs/optimal.md: was 0.7).
const EXACT_SHARE_SMALL: f64 = 0.2;
const EXACT_SHARE: f64 = 0.5;
/// Large graphs at a short budget: the exact search runs right after the proof search's root,
/// within this part of the time left (see [`State::large_short`]).
const EXACT_FIRST_SHARE: f64 = 0.5;
/// Large graphs at a short budget: the part of the time left that a last-of-set scan cut short
/// in the first run gets to start over before local search (see [`State::large_short`]).
const RESCAN_SHARE: f64 = 0.6;
/// Large graphs at a short budget: the part of the time left that branching may take before
/// the exact search (a short dive).
const DIVE_SHARE: f64 = 0.15;
/// Large graphs: the part of a proof search phase that the last-of-set scan may use before
/// branching gets the rest (the scan can take thousands of flows on a training step and raise
/// nothing there, while it is what proves the workflows whose tasks share one input).
const SETS_SHARE: f64 = 0.8;
/// The last run of the proof search starts its tree over from the root (with the polished
/// order, the root's cuts and the bounds kept) once the tree has this many nodes (after the
/// first epoch; see [`State::polish_and_prove`]): a fresh
/// dive then gets further than the old tree (at 10 s: efficientnet_b0, mobilenet_v2 and _v3
/// closer to their bounds, googlenet proven), while a young tree is better continued (at
/// the default budget, 3 to 150 nodes: densenet121 proven).
const RESTART_NODES: u64 = 256;
/// Large graphs: after its bounds, the first run's branching stops after this share of the
/// time left, or this many ms, whichever is longer (when that ends before the run's share).
const FIRST_BRANCH_SHARE: f64 = 0.1;
const FIRST_BRANCH_MIN_MS: f64 = 200.0;
/// ... or when the tree's root order was this many times the polished order's peak.
const RESTART_ABOVE: f64 = 1.03;
/// ... but only once the tree has this many nodes.
const RESTART_MIN_NODES: u64 = 32;
/// Before a restart, the old tree goes on from its open nodes, whose children take the
/// polished order repaired for their arcs when it is lower ([`Search::offer_seed`]), as long as
/// each this many nodes lower the best peak: the JAX ResNet-26 step's tree, restarted after
/// 32 nodes, needed 30 more to find the optimum its bound already met (proven at 114-122
/// ms); continued, a few (57-78 ms, docs/optimal.md).
const CONTINUE_NODES: u64 = 4;
/// Before a restart, after each round of the old tree that lowered the best peak, a fresh tree
/// from the best order gets this many nodes: its root's split and the other pair's (see
/// [`Search::probe`]).
const PROBE_NODES: u64 = 4;
/// The part of the time left after local search that the long moves across the peak may use.
const DEFER_SHARE: f64 = 0.5;
/// Large graphs, first epoch: the part of the proof search's time that the long moves across
/// the peak may take on the best order before its root, whose scans take ops and sets by the
/// memory known orders give them: a lower incumbent leaves fewer to compute (the Keras
/// ResNet-50 steps: 14 flows, not 183-272; proven in 32-42 ms, not 110-200; docs/optimal.md).
const EARLY_DEFER_SHARE: f64 = 0.3;
/// Passes over the graph that a last-of-set scan takes to start over, or the join-free bound
/// after it to copy the graph (see [`State::epoch`] and [`State::large_short`]).
const SCAN_PASSES: f64 = 128.0;
/// Passes over the graph that the proof search's root takes before its first flow (see
/// [`State::epoch`]).
const ROOT_PASSES: f64 = 16.0;
/// Small graphs: the part of what the exact search left that branching may use.
const BRANCH_SHARE_SMALL: f64 = 0.6;
/// Graphs of up to this many ops get the `_SMALL` shares.
const SMALL_OPS: usize = 200;

/// Exact search seeded with the best heuristic order (the `exact` method); the heuristics
/// read the clock between them, as in [`auto_order`].
pub fn exact_with_heuristics(g: &Graph, budget: &Budget) -> Ordering {
    let (candidates, pass, _) = timed_candidates(g, budget);
    let incumbent = candidates
        .into_iter()
        .next()
        .map(|c| c.1)
        .unwrap_or_default();
    if !pass.room(budget, 4.0) {
        return Ordering::heuristic(incumbent);
    }
    crate::order::exact::exact_search(g, budget, incumbent).into()
}

/// The budget of one phase: `fraction` of the time left before `budget`'s deadline.
fn share<'a>(budget: &Budget<'a>, fraction: f64) -> Budget<'a> {
    budget.share(fraction, budget.max_states)
}

fn proven(order: Vec<OpIx>, by: BoundKind) -> Ordering {
    Ordering {
        order,
        proven_optimal: true,
        lower_bound: None,
        bound_by: Some(by),
    }
}

/// The proof search's result as the plan when it proved its order optimal; else its bound
/// and order folded into the best so far.
fn fold(p: Proof, bound: &mut (u64, BoundKind), best: &mut (u64, Vec<OpIx>)) -> Option<Ordering> {
    if p.bound >= p.peak {
        return Some(proven(p.order, p.source));
    }
    if p.bound > bound.0 {
        *bound = (p.bound, p.source);
    }
    if p.peak < best.0 {
        *best = (p.peak, p.order);
    }
    None
}

/// The proof search's limits within `budget`: its clock (`stop`, and `sets_stop` for the
/// last-of-set scan), and caps on its nodes, flows and memory in step with the state and
/// memory caps of the exact search (a node costs a few dozen flows, and a flow about what a
/// few expansions do).
fn limits<'b>(
    budget: &Budget,
    stop: &'b dyn Fn() -> bool,
    sets_stop: &'b dyn Fn() -> bool,
    max_nodes: u64,
) -> Limits<'b> {
    Limits {
        max_nodes,
        max_flows: (budget.max_states / 8).max(1),
        max_bytes: budget.max_memory_bytes / 2,
        stop,
        sets_stop,
    }
}

/// The first epoch of `auto`'s search (see [`auto_order`]): the default budget, 100 ms, for
/// which the shares were measured (with a first epoch of 30 ms, efficientnet_b0's training
/// step restarted its proof tree after 2 nodes and stayed at 1.037 of its bound at 100 ms and
/// 1.020 at 1 s; at 100 ms it is at 1.002 and proven at 1 s in 161 ms), or 4 µs per op on
/// large graphs (100 passes, so that every phase sets up within it: 400 ms on 100,000 ops).
const EPOCH_MS: f64 = 100.0;
const EPOCH_MS_PER_OP: f64 = 4e-3;
/// A budget shorter than [`EPOCH_MS`] runs epochs of doubling length from this part of it
/// (see [`auto_order`]).
const SHORT_EPOCH: f64 = 0.1;
/// ... when it is under this part of it: the plan keeps a pass over the graph for its re-check,
/// so the default budget reaches `auto` a little under [`EPOCH_MS`], and runs one epoch.
const SHORT_BELOW: f64 = 0.9;

/// The `auto` portfolio (see the module docs).
///
/// After the heuristics, the search runs in epochs of doubling length, ending 100, 300, 700,
/// ... ms of work ([`WorkClock`]) after `auto` started, the deadline cutting the one it falls
/// in (a budget under 90 ms runs epochs ending 10, 30, 70 ms of work).
/// Each epoch runs every phase (the proof search, the exact search,
/// local search, the proof search again), each taking shares of the epoch's time, and every
/// phase goes on from what the ones before found: the proof search from its open nodes, the
/// exact search and local search from the best order and above the best bound (a later
/// epoch skips local search, and on large graphs the exact search, when the best order is
/// the one they already ended on). So a run is the same work, cut by the deadline: a larger
/// budget does what a smaller one did, then more, each phase going on from where it was,
/// where phases that split the whole budget in advance skipped, at 300 ms, a proof that fits
/// in 268 ms, and phases cut by a share of the real time took another path when the machine
/// was busy (issue 32).
/// Without a deadline, or with one an hour or more away, one epoch with the whole budget.
pub fn auto_order(g: &Graph, budget: &Budget) -> Ordering {
    if let Ok(order) = liu::liu_order(g) {
        return proven(order, BoundKind::Liu);
    }
    let now = budget.clock.now_ms();
    match budget.deadline_ms {
        // The phases and epochs run on the work done (`crate::work`), the deadline on the
        // caller's clock: where a phase ends is then the same in every run, whatever the load,
        // and a larger budget does what a smaller one did, then more (issue 32).
        Some(d) if d - now < UNBOUNDED_MS => {
            let clock = WorkClock::new(budget.clock, Some(d));
            // No deadline on the work clock: the clock's own, real one ends the run.
            let worked = Budget {
                clock: &clock,
                deadline_ms: None,
                ..*budget
            };
            epochs(g, &worked, Some(d - now))
        }
        _ => epochs(g, budget, None),
    }
}

/// [`auto_order`]'s epochs on `budget`'s clock; `work_length`: the budget's length when the
/// clock is a [`WorkClock`], whose real deadline ends the epoch it falls in.
fn epochs(g: &Graph, budget: &Budget, work_length: Option<f64>) -> Ordering {
    // Epochs end at fixed times from here, whatever the budget (see `epoch_budget`).
    let start = budget.clock.now_ms();
    let length = work_length.or(budget.deadline_ms.map(|d| d - start));
    let worked = work_length.is_some();
    let mut len = EPOCH_MS.max(g.num_ops() as f64 * EPOCH_MS_PER_OP);
    // A budget well under the first epoch, on a graph whose heuristics fit in a tenth of it:
    // epochs of doubling length from a tenth of it (ending 10, 30, 70 ms), cut by the deadline,
    // so that a 30 ms budget runs what a 10 ms one does first, then more. Not on larger graphs,
    // whose first epoch grows with them: a tenth of it would not hold one heuristic.
    if len == EPOCH_MS && length.is_some_and(|l| l < SHORT_BELOW * len) {
        len *= SHORT_EPOCH;
    }
    // The heuristics run within the first epoch; those that do not fit run in the next ones.
    let first_end = start + len;
    let (mut candidates, pass, mut heuristics) =
        timed_candidates(g, &epoch_budget(budget, first_end, worked));
    let incumbent = candidates.first().map(|c| c.1.clone()).unwrap_or_default();
    // The proof search simulates every candidate and builds its network before its first flow.
    if !pass.room(budget, 4.0 + 2.0 * candidates.len() as f64) || incumbent.is_empty() {
        return Ordering::heuristic(incumbent);
    }
    let others: Vec<&[OpIx]> = candidates.iter().skip(1).map(|c| &c.1[..]).collect();
    let floor = (lower_bound(g), BoundKind::Simple);
    // One search for every phase and epoch: each run goes on where the last one ended.
    let search = Search::new(g, incumbent.clone(), &others, floor);
    let peak = candidates[0].0;
    let mut state = State {
        g,
        search,
        bound: floor,
        best: (peak, incumbent),
        tree_peak: peak,
        tree_nodes: 0,
        exact_from: None,
        polished: None,
        early: None,
        later_epoch: false,
    };
    let mut end = start;
    loop {
        end += len;
        let epoch = epoch_budget(budget, end, worked);
        let last = !worked && epoch.deadline_ms == budget.deadline_ms;
        state.later_epoch = end > first_end;
        if end > first_end {
            state.more_candidates(&mut heuristics, &epoch, &mut candidates);
        }
        if let Some(done) = state.epoch(&epoch, &pass, &candidates) {
            return done;
        }
        // A caller's clock that never reaches its deadline would let epochs on the work clock
        // go on for ever; work runs at most a few times ahead of real time (a step costs 1-10
        // ns, counted at 4), so past this many times the budget the clock is not moving.
        let stuck = worked && length.is_some_and(|l| end - start >= STUCK_AFTER * l);
        if last || stuck || budget.cancelled() || !pass.room(budget, 4.0) {
            break;
        }
        len *= 2.0;
    }
    state.result()
}

/// On the work clock, the epochs end once this many times the budget's length of work is
/// done, whatever the caller's clock says (see [`epochs`]).
const STUCK_AFTER: f64 = 64.0;
/// A budget this long or longer is one epoch (see [`epoch_budget`]).
const UNBOUNDED_MS: f64 = 3_600_000.0;

/// The budget of an epoch that ends at `end` (on the budget's clock), or the caller's budget
/// when its deadline comes first. The ends are fixed times from `auto`'s start (100, 300,
/// 700, ... ms), not lengths from the end of the heuristics, and the last epoch is cut by the
/// deadline rather than merged into the one before: so a budget's epochs are exactly the first
/// epochs of every larger budget (a 300 ms budget used to be one epoch, with other shares than
/// the 100 ms one, and ended worse than it on the Keras ResNet-50 steps).
fn epoch_budget<'a>(budget: &Budget<'a>, end: f64, worked: bool) -> Budget<'a> {
    match budget.deadline_ms {
        // On the work clock every epoch ends at its own end: the real deadline cuts the one
        // it falls in, wherever the work clock stands then.
        _ if worked => Budget {
            deadline_ms: Some(end),
            ..*budget
        },
        // A deadline an hour or more away binds nothing: such a run is bounded by its state cap
        // (`--budget-ms 1e9 --max-states N`), and one epoch makes it do the same work on every
        // machine, as epochs cut by the clock would not (the wasm and native plans of one graph
        // must agree).
        Some(d) if d - budget.clock.now_ms() >= UNBOUNDED_MS => *budget,
        Some(d) if end < d => Budget {
            deadline_ms: Some(end),
            ..*budget
        },
        _ => *budget,
    }
}

/// What `auto` knows, carried from phase to phase and from epoch to epoch.
struct State<'g> {
    g: &'g Graph,
    search: Search<'g>,
    /// The best bound so far, and what proved it.
    bound: (u64, BoundKind),
    /// The best order so far, and its peak.
    best: (u64, Vec<OpIx>),
    /// The best peak when the proof search's tree was last (re)started, and its node count
    /// then (see [`State::polish_and_prove`]).
    tree_peak: u64,
    tree_nodes: u64,
    /// The best peak the exact search last started from (large graphs run it again in a
    /// later epoch only from a better order: from the same one it rarely gets further, and
    /// its set-up alone took 200 ms of a 550 ms epoch on efficientnet_b0's step).
    exact_from: Option<u64>,
    /// The best peak after the last local search that ended within its time: from the same
    /// order it would find the same again.
    polished: Option<u64>,
    /// The peak of the early deferral's order while it is the best (see
    /// [`State::early_defer`]).
    early: Option<u64>,
    /// The epoch is not the first (see [`State::polish_and_prove`]'s restarts).
    later_epoch: bool,
}

impl State<'_> {
    /// Offers `order` to the proof search; on large graphs as the seed of its children too
    /// (see [`Search::offer_seed`]): on `wf-smrnaseq-001` (197 ops) seeded trees stayed at
    /// 908.9 MB at 1 s in six runs, where unseeded ones got to 890.6-900.7 MB.
    /// `peak` is `order`'s (known: a simulation saved).
    fn offer(&mut self, order: &[OpIx], peak: u64) {
        if self.g.num_ops() > SMALL_OPS {
            self.search.offer_seed(order, peak);
        } else {
            self.search.offer_peak(order, peak);
        }
    }

    /// The heuristics that did not fit in the epochs before, within `budget` (the start of an
    /// epoch), added to `candidates` (best first); the best of them is the best order when it
    /// is lower, and local search starts from them again.
    fn more_candidates(
        &mut self,
        heuristics: &mut Heuristics,
        budget: &Budget,
        candidates: &mut Vec<(u64, Vec<OpIx>)>,
    ) {
        let more = heuristics.more(self.g, budget, candidates.len());
        if more.is_empty() {
            return;
        }
        if more[0].0 < self.best.0 {
            self.offer(&more[0].1, more[0].0);
            self.best = more[0].clone();
        }
        candidates.extend(more);
        candidates.sort_by_key_compact(|c| c.0);
        self.polished = None;
    }

    fn result(self) -> Ordering {
        if self.bound.0 >= self.best.0 {
            return proven(self.best.1, self.bound.1);
        }
        unproven(self.best.1, self.bound)
    }

    /// One epoch within `budget` (see [`auto_order`]): the proof search (on small graphs only
    /// its root, the bounds, cheap), then the phases of [`State::small`], [`State::large`] or
    /// [`State::large_short`]; the plan when one of them proves its order optimal.
    fn epoch(
        &mut self,
        budget: &Budget,
        pass: &Pass,
        candidates: &[(u64, Vec<OpIx>)],
    ) -> Option<Ordering> {
        let small = self.g.num_ops() <= SMALL_OPS;
        // Small graphs: only the root of the proof search (the cut and last-of-set bounds,
        // cheap) before the exact search, which proves most of them; branching comes after,
        // if needed. Large ones: the proof search first, the last-of-set scan within a part
        // of its time.
        let proof_budget = share(
            budget,
            if small {
                PROOF_SHARE_SMALL
            } else {
                PROOF_SHARE
            },
        );
        let stop = || proof_budget.expired();
        // Within the proof search's share, which it is for (taken from the whole epoch, it
        // left the `dots` step's root 54 ms, not 15, and local search too little).
        if !small && self.search.nodes() == 0 {
            self.early_defer(&proof_budget, pass, candidates.len());
        }
        let sets_budget = share(&proof_budget, if small { 1.0 } else { SETS_SHARE });
        // A last-of-set scan cut short in an epoch before starts over here, listing and
        // bounding its sets before its first flow (12 ms on the `dots` step, no clock read):
        // only with room for that (on the work clock an epoch can start a few ms before the
        // real deadline; the `dots` step then ended at 115 ms of 100).
        let scan_room = self.search.nodes() == 0 || pass.room(budget, SCAN_PASSES);
        let sets_stop = || !scan_room || sets_budget.expired();
        // A long epoch's first run ends well before half of it: its bounds (the root, with
        // the last-of-set scan in its share) as before, then branching for a tenth of the
        // time left or 200 ms. At 10 s the training steps' proofs came right after a first
        // run of 5 s, once the order was polished (googlenet, efficientnet_b0, the JAX
        // ResNets: 5.0-5.4 s, now 1.0-1.4 s); in a short epoch the cap is longer than the
        // run's share.
        let cap = budget.deadline_ms.and_then(|d| {
            let now = budget.clock.now_ms();
            let cap_ms = FIRST_BRANCH_MIN_MS.max(FIRST_BRANCH_SHARE * (d - now));
            (now + cap_ms < proof_budget.deadline_ms.unwrap_or(f64::INFINITY)).then_some(cap_ms)
        });
        // The root (in later epochs already done: the run returns at once). Its network, its
        // order's simulation and its candidates' upper bounds come before its first flow reads
        // the clock: not without room for them (on the 100,000-op layered graph, started a
        // pass before a 100 ms deadline, it ended 5-9 ms past it).
        if !self.root_room(budget, pass) {
            return None;
        }
        let p = self.search.run(&limits(
            budget,
            &stop,
            &sets_stop,
            self.search.nodes().max(1),
        ));
        let p = match cap {
            _ if p.bound >= p.peak || small => p,
            Some(cap_ms) => {
                let until = budget.clock.now_ms() + cap_ms;
                let stop = || proof_budget.expired() || budget.clock.now_ms() >= until;
                // A scan cut short by its share stays so (as in one run).
                self.search
                    .run(&limits(budget, &stop, &sets_stop, u64::MAX))
            }
            // Large graphs in a short epoch (the default budget): the root, then a short
            // dive (what proves torch-train-resnet50 in 14 ms), then the exact search, then
            // branching for the rest of the share (see `State::large_short`).
            None => {
                let dive_ms = budget
                    .deadline_ms
                    .map_or(f64::INFINITY, |d| DIVE_SHARE * (d - budget.clock.now_ms()));
                let until = budget.clock.now_ms() + dive_ms;
                let stop = || proof_budget.expired() || budget.clock.now_ms() >= until;
                self.search
                    .run(&limits(budget, &stop, &sets_stop, u64::MAX))
            }
        };
        if let Some(done) = fold(p, &mut self.bound, &mut self.best) {
            return Some(done);
        }
        if budget.cancelled() || !pass.room(budget, 4.0) {
            return None;
        }
        if small {
            self.small(budget, pass, candidates)
        } else if cap.is_none() {
            self.large_short(budget, pass, candidates, &stop, &sets_stop)
        } else {
            self.large(budget, pass, candidates)
        }
    }

    /// The exact search within `fraction` of the time left, from the best order and above the
    /// best bound; the plan when it proves its order optimal.
    fn exact(&mut self, budget: &Budget, fraction: f64) -> Option<Ordering> {
        if self.g.num_ops() > SMALL_OPS && self.exact_from == Some(self.best.0) {
            return None;
        }
        self.exact_from = Some(self.best.0);
        let exact_budget = share(budget, fraction);
        let searched = exact_search_above(self.g, &exact_budget, self.best.1.clone(), self.bound.0);
        if searched.optimal {
            return Some(proven(searched.order, BoundKind::Search));
        }
        if searched.lower_bound > self.bound.0 {
            self.bound = (searched.lower_bound, BoundKind::Search);
            self.search.raise(self.bound);
        }
        if searched.peak < self.best.0 {
            self.offer(&searched.order, searched.peak);
            self.best = (searched.peak, searched.order);
        }
        None
    }

    /// Large graphs, before the proof search's root: the long moves across the peak from the
    /// best order (see [`EARLY_DEFER_SHARE`]).
    fn early_defer(&mut self, budget: &Budget, pass: &Pass, candidates: usize) {
        // Its set-up (a simulation, the peak op's ancestors, the candidates) reads no clock.
        if budget.cancelled() || !pass.room(budget, 8.0 + candidates as f64) {
            return;
        }
        let deferred =
            defer::defer_across_peak(self.g, &self.best.1, &share(budget, EARLY_DEFER_SHARE));
        // Cut by the deadline, its order is not simulated: a pass past it (4 ms on 100,000
        // ops).
        if budget.expired() {
            return;
        }
        let peak = peak_of(self.g, &deferred);
        if peak < self.best.0 {
            self.search.offer_peak(&deferred, peak);
            self.best = (peak, deferred);
            self.early = Some(peak);
        }
    }

    /// Whether the proof search may run: its root is done, or there is room for its set-up
    /// (the 100,000-op layered graph's root, started a pass before a 100 ms deadline, ended
    /// 5-11 ms past it).
    fn root_room(&self, budget: &Budget, pass: &Pass) -> bool {
        self.search.root_done() || pass.room(budget, ROOT_PASSES)
    }

    /// One more run of the proof search until `stop` (the last-of-set scan until
    /// `sets_stop`); the plan when it proves its order optimal.
    fn prove(
        &mut self,
        budget: &Budget,
        pass: &Pass,
        stop: &dyn Fn() -> bool,
        sets_stop: &dyn Fn() -> bool,
    ) -> Option<Ordering> {
        if !self.root_room(budget, pass) {
            return None;
        }
        let p = self.search.run(&limits(budget, stop, sets_stop, u64::MAX));
        fold(p, &mut self.bound, &mut self.best)
    }
}

fn unproven(order: Vec<OpIx>, bound: (u64, BoundKind)) -> Ordering {
    Ordering {
        order,
        proven_optimal: false,
        lower_bound: Some(bound.0),
        bound_by: Some(bound.1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::NoClock;

    /// `w` writes a 100-byte result nobody reads and runs first; `p` makes 1,000 bytes that
    /// `q` reduces to one byte; then a chain of `n` one-byte ops from it and `z`, which reads
    /// the chain's ends: over 200 ops, so `auto` takes the large graphs' path. Run first, `w`
    /// holds its result through the peak at `q`.
    fn writer_first(n: usize) -> (Graph, Vec<OpIx>) {
        let mut tensors = vec![
            r#"{"id": "x", "bytes": 1}"#.to_string(),
            r#"{"id": "out_w", "bytes": 100}"#.to_string(),
            r#"{"id": "y", "bytes": 1000}"#.to_string(),
            r#"{"id": "c0", "bytes": 1}"#.to_string(),
        ];
        let mut ops = vec![
            r#"{"id": "w", "inputs": ["x"], "outputs": ["out_w"]}"#.to_string(),
            r#"{"id": "p", "inputs": ["x"], "outputs": ["y"]}"#.to_string(),
            r#"{"id": "q", "inputs": ["y"], "outputs": ["c0"]}"#.to_string(),
        ];
        for i in 1..=n {
            tensors.push(format!(r#"{{"id": "c{i}", "bytes": 1}}"#));
            ops.push(format!(
                r#"{{"id": "s{i}", "inputs": ["c{}"], "outputs": ["c{i}"]}}"#,
                i - 1
            ));
        }
        // `z` reads `q`'s output too, so `q` has two successors: not an in-forest.
        tensors.push(r#"{"id": "z_out", "bytes": 1}"#.to_string());
        ops.push(format!(
            r#"{{"id": "z", "inputs": ["c0", "c{n}"], "outputs": ["z_out"]}}"#
        ));
        let json = format!(
            r#"{{"tensors": [{}], "ops": [{}], "outputs": ["out_w", "z_out"]}}"#,
            tensors.join(","),
            ops.join(",")
        );
        let g = Graph::from_json(&json).unwrap();
        let order = (0..g.num_ops() as OpIx).collect();
        (g, order)
    }

    #[test]
    fn the_early_deferral_lowers_the_incumbent_before_the_root() {
        let (g, order) = writer_first(250);
        let before = peak_of(&g, &order);
        assert_eq!(before, 1 + 100 + 1000 + 1);
        let budget = Budget::new(&NoClock, None, u64::MAX);
        let floor = (lower_bound(&g), BoundKind::Simple);
        let mut state = State {
            g: &g,
            search: Search::new(&g, order.clone(), &[], floor),
            bound: floor,
            best: (before, order),
            tree_peak: before,
            tree_nodes: 0,
            exact_from: None,
            polished: None,
            early: None,
            later_epoch: false,
        };
        state.early_defer(&budget, &Pass::of(0.0), 1);
        g.check_order(&state.best.1).unwrap();
        assert_eq!(state.best.0, peak_of(&g, &state.best.1));
        assert_eq!(state.best.0, 1 + 1000 + 1);
        assert_eq!(state.early, Some(state.best.0));
    }

    /// A clock that never moves, with a deadline: the epochs on the work clock end anyway.
    #[test]
    fn epochs_end_when_the_callers_clock_does_not_move() {
        // Random layers that the run does not prove: only the deadline, or the guard, ends it.
        let spec = crate::generators::models::random_layered(1, 60, 12);
        let g = Graph::from_spec(spec).unwrap();
        let before = crate::work::done();
        let planned = auto_order(&g, &Budget::new(&NoClock, Some(1.0), u64::MAX));
        g.check_order(&planned.order).unwrap();
        // Epochs of 10, 20 and 40 ms of work from a 1 ms budget: the guard ends the run after
        // the one ending at 70 (its phases may run a little past their ends).
        let worked_ms = (crate::work::done() - before) as f64 * crate::work::MS_PER_UNIT;
        assert!(worked_ms < 2.0 * 70.0, "{worked_ms} ms of work");
    }

    #[test]
    fn auto_on_a_large_graph_proves_the_deferred_order() {
        let (g, _) = writer_first(250);
        // Not an in-forest: Liu's order does not apply.
        assert!(liu::liu_order(&g).is_err());
        let planned = auto_order(&g, &Budget::new(&NoClock, None, u64::MAX));
        g.check_order(&planned.order).unwrap();
        assert!(planned.proven_optimal);
        assert_eq!(peak_of(&g, &planned.order), 1 + 1000 + 1);
    }
}
