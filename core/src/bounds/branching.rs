//! Precedence branching: an anytime proof search over "x runs before y" decisions, on top of
//! the whole-graph cut bound ([`super::cut`]).
//!
//! Every order runs x before y or y before x, so the least peak is the smaller of the least
//! peaks with either arc added, and each of those is at least the cut bound of the graph with
//! that arc. Applied recursively this is a branch and bound (A. H. Land, A. G. Doig, "An
//! automatic method of solving discrete programming problems", Econometrica 28(3), 1960) whose
//! nodes are sets of added arcs; searched best-first, the smallest bound among the open nodes is
//! a lower bound on every order's peak at any moment, so the search can stop whenever the
//! budget says and still report a true bound.
//!
//! Which pair to branch on: the cut bound of a node is the largest op cut, and each op's cut
//! comes with a downset D_v (the ops that run before v at the minimum). In an order the sets of
//! ops before each op are nested, so two ops whose downsets contradict each other (u in D_v
//! and v in D_u: each says the other runs first) cannot both reach their cut: with the arc
//! "u before v", D_u is no downset any more, and with "v before u", D_v is not. The search
//! branches on such a pair among the node's largest cuts; failing one, on two ops that separate
//! two downsets that are not nested (x in D_u only, y in D_v only).
//! A node whose order's peak op gives the pair keeps the cuts' pair too: when the first split
//! raises neither child (both open at the node's bound), the node is split by the other pair
//! instead if its children's bounds are higher (a light strong branching: googlenet's
//! training step is proven at a 1000 ms budget in 172 ms instead of 436, and at 100 ms).
//!
//! Each node also has an order that keeps its arcs: its parent's, repaired (the later of the
//! two ops moved after the other, with what depends on it, or the other moved before, with
//! what it depends on; the better of the two). Those orders are real orders of the graph, so a
//! node's order that beats the best known one becomes the incumbent: the same work gives a
//! better plan and a better bound. The node's order also bounds each op's cut from above,
//! which is what keeps the number of flows per node small (see [`super::cut::cut_bound`]).
//!
//! Here: the search ([`prove`], [`Search`]); by job, in submodules: what it keeps (`node`), a
//! node's evaluation (`evaluate`) and the pair it branches by (`pairs`), the orders repaired to
//! keep a node's arcs (`repair`), and the whole-graph bounds the root tries (`root_bounds`).

mod evaluate;
mod node;
mod pairs;
mod repair;
mod root_bounds;

use crate::sort::CompactSort;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use crate::bounds::BoundKind;
use crate::graph::Graph;
use crate::simulate::peak_of;
use crate::OpIx;

use super::cut::{during_in, CutNetwork, Known};
use evaluate::{evaluate, Eval};
use node::{node_bytes, Arc, Bounder, Node, Open};
use pairs::still_valid;
use repair::{repair_during, repaired, repaired_upper};
use root_bounds::{Against, RootBounds};

/// How many times [`super::first_free::repaired`] repairs each hinted order at its peak.
const REPAIR_ROUNDS: usize = 32;

/// The outcome of [`prove`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// A true lower bound on every order's peak: at least the floor passed in.
    pub bound: u64,
    /// The best order found (the incumbent passed in, or a better one).
    pub order: Vec<OpIx>,
    /// Its peak.
    pub peak: u64,
    /// Which bound gave `bound`: the floor's kind, [`BoundKind::Cut`],
    /// [`BoundKind::LastOfSet`] or [`BoundKind::Branching`].
    pub source: BoundKind,
    /// Nodes evaluated.
    pub nodes: u64,
    /// Maximum flows computed.
    pub flows: u64,
    /// True when the search ran out of open nodes: `bound` is then final.
    pub finished: bool,
}

/// Whether `v` is reachable from `u` along the graph's edges and `arcs`.
fn reaches(net: &CutNetwork, u: OpIx, v: OpIx, seen: &mut [bool]) -> bool {
    seen.iter_mut().for_each(|s| *s = false);
    let mut stack = vec![u];
    seen[u as usize] = true;
    while let Some(x) = stack.pop() {
        if x == v {
            return true;
        }
        for &w in net.succs(x) {
            if !seen[w as usize] {
                seen[w as usize] = true;
                stack.push(w);
            }
        }
    }
    false
}

/// How much work [`prove`] (or one [`Search::run`]) may do.
pub struct Limits<'a> {
    /// Nodes evaluated (1: only the root, i.e. the cut and last-of-set bounds), counted over
    /// every run of one [`Search`].
    pub max_nodes: u64,
    /// Maximum flows, checked between nodes (a node takes a few dozen), counted likewise.
    pub max_flows: u64,
    /// Bytes the open nodes may hold (each keeps an order, its arcs and its cuts' downsets).
    pub max_bytes: u64,
    /// Read before every flow; the search stops once it is true.
    pub stop: &'a dyn Fn() -> bool,
    /// Read before every flow of the last-of-set scan too: once it is true the scan ends
    /// with the bound it has (still a bound) and branching goes on. On a training step the
    /// scan can take thousands of flows that raise nothing, while branching proves it.
    pub sets_stop: &'a dyn Fn() -> bool,
}

impl Limits<'_> {
    /// No limit but `stop`.
    pub fn until(stop: &dyn Fn() -> bool) -> Limits<'_> {
        Limits {
            max_nodes: u64::MAX,
            max_flows: u64::MAX,
            max_bytes: u64::MAX,
            stop,
            sets_stop: stop,
        }
    }
}

/// Searches for a proof that `incumbent` (a topological order of `g`) is optimal, raising the
/// lower bound above `floor` (a bound already proven, and what proved it) and improving the
/// order as it goes, until the two meet, the search runs out of pairs to branch on, or a limit
/// of `limits` is reached. `others` are more orders of `g` (the other heuristics'): they only
/// tighten the root's upper bounds.
pub fn prove(
    g: &Graph,
    incumbent: Vec<OpIx>,
    others: &[&[OpIx]],
    floor: (u64, BoundKind),
    limits: &Limits,
) -> Proof {
    let mut s = Search::new(g, incumbent, others, floor);
    s.run(limits)
}

/// Where the root stands.
enum Root {
    /// Not evaluated in full yet (a run was cut short): the cuts it found so far.
    Pending(Vec<(OpIx, Known)>),
    /// Evaluated, with the cuts it found.
    Done(Vec<(OpIx, Known)>),
}

/// The proof search of [`prove`], kept between runs: a later [`Search::run`] goes on from
/// the open nodes of the one before (nothing is computed twice), with orders found elsewhere
/// in the meantime offered by [`Search::offer`] (they close the nodes at or above them).
pub struct Search<'g> {
    g: &'g Graph,
    best: Vec<OpIx>,
    best_peak: u64,
    /// Upper bounds on each op's cut from every order seen before the root.
    upper: Vec<u64>,
    /// The incumbent and two of the other orders passed in: they bound the last-of-set
    /// scan's sets.
    others: Vec<Vec<OpIx>>,
    /// The orders the search started from (the incumbent and every other): the root's
    /// bounders (see [`Search::repaired_upper`]).
    bounders: Vec<Bounder>,
    /// A bound on the whole graph (the floor, the root's cut and last-of-set bounds).
    floor: u64,
    floor_by: BoundKind,
    /// The least bound the open nodes had when a run last ended (so a true bound).
    bound: u64,
    root: Root,
    /// Which of the whole-graph bounds are done.
    root_bounds: RootBounds,
    /// The lowest of the orders started from the bounds' minimising downsets, with its peak:
    /// a start for local search even when it is above the incumbent (it runs the ops the
    /// bound says end the order last, as the optimum may).
    hinted: Option<(u64, Vec<OpIx>)>,
    /// The root's own bound (above it, branching gave the bound).
    root_bound: u64,
    flows: u64,
    nodes: u64,
    /// Open nodes, smallest bound first; ties to the deepest (more arcs), so that the search
    /// reaches leaves, and their orders, early.
    open: BinaryHeap<(Reverse<u64>, usize, usize)>,
    /// Each open node with the pair to branch on it by.
    store: Vec<Option<Open>>,
    held: u64,
    /// No pair is left to branch on at the least open node: the bound is final.
    stuck: bool,
    /// The last order offered from outside ([`Search::offer_seed`]: local search's, the exact
    /// search's) that lowered the incumbent once the tree had a root, numbered. The tree's
    /// nodes keep their parents' orders, repaired for their arcs, so a better order found
    /// elsewhere would only close nodes: each child also repairs this one to keep its arcs
    /// and takes it when it is lower (see [`Search::children`]).
    seed: Option<(u64, Bounder)>,
}

impl<'g> Search<'g> {
    /// A search from `incumbent` (see [`prove`]); no work is done before [`Search::run`]
    /// but simulating the orders.
    pub fn new(
        g: &'g Graph,
        incumbent: Vec<OpIx>,
        others: &[&[OpIx]],
        floor: (u64, BoundKind),
    ) -> Search<'g> {
        // Every known order bounds each op's cut from above: the tighter, the fewer flows.
        let bounders: Vec<Bounder> = std::iter::once(&incumbent[..])
            .chain(others.iter().copied())
            .map(|o| {
                let during = during_in(g, o);
                Bounder {
                    order: Rc::new(o.to_vec()),
                    peak: during.iter().copied().fold(g.inputs_bytes(), u64::max),
                    during: Rc::new(during),
                    keeps: 0,
                }
            })
            .collect();
        let mut upper = bounders[0].during.to_vec();
        for b in &bounders[1..] {
            for (u, &d) in upper.iter_mut().zip(b.during.iter()) {
                *u = (*u).min(d);
            }
        }
        let kept = others.iter().take(2).copied().map(|o| o.to_vec()).collect();
        let mut s = Search {
            g,
            best_peak: peak_of(g, &incumbent),
            best: incumbent,
            upper,
            others: kept,
            bounders,
            floor: floor.0,
            floor_by: floor.1,
            bound: floor.0,
            root: Root::Pending(Vec::new()),
            root_bounds: RootBounds::default(),
            hinted: None,
            root_bound: floor.0,
            flows: 0,
            nodes: 0,
            open: BinaryHeap::new(),
            store: Vec::new(),
            held: 0,
            stuck: false,
            seed: None,
        };
        for o in others {
            s.offer(o);
        }
        s
    }

    /// Takes `order` (a topological order of the graph) as the incumbent if it is lower.
    pub fn offer(&mut self, order: &[OpIx]) {
        let p = peak_of(self.g, order);
        self.offer_peak(order, p);
    }

    /// [`Search::offer`], and once the tree has a root, when `order` is lower than the
    /// incumbent, the seed of the children expanded from then on: each repairs it to keep its
    /// arcs and takes it as its order when that is lower than its parent's repaired (see
    /// [`Search::children`]).
    /// `p` is `order`'s peak (its callers know it).
    pub fn offer_seed(&mut self, order: &[OpIx], p: u64) {
        debug_assert_eq!(p, peak_of(self.g, order));
        if p < self.best_peak && matches!(self.root, Root::Done(_)) {
            let number = self.seed.as_ref().map_or(0, |s| s.0) + 1;
            let seed = Bounder {
                order: Rc::new(order.to_vec()),
                during: Rc::new(during_in(self.g, order)),
                peak: p,
                keeps: 0,
            };
            self.seed = Some((number, seed));
        }
        self.offer_peak(order, p);
    }

    /// [`Search::offer`] with `order`'s peak, known already.
    pub fn offer_peak(&mut self, order: &[OpIx], p: u64) {
        if p < self.best_peak {
            self.best_peak = p;
            self.best = order.to_vec();
        }
    }

    /// Whether the root has been evaluated (its cut bound complete): a run then starts from
    /// its open nodes, else it evaluates the root first, a network and its candidates' upper
    /// bounds before its first flow reads the clock.
    pub fn root_done(&self) -> bool {
        matches!(self.root, Root::Done(_))
    }

    /// Starts the branching over from the root with the best order so far, keeping what
    /// holds for the whole graph (the root's cuts, the floor, the last-of-set scan's result):
    /// a fresh dive from a better incumbent (after local search) gets further than the old
    /// tree, best-first with ties to the deepest, often does.
    pub fn restart(&mut self) {
        if let Root::Done(known) = &mut self.root {
            self.root = Root::Pending(std::mem::take(known));
            // The old tree's least open bound holds for every order: it floors the new one.
            if self.bound > self.floor {
                (self.floor, self.floor_by) = (self.bound, BoundKind::Branching);
            }
            self.open.clear();
            self.store.clear();
            self.held = 0;
            self.stuck = false;
            // The new root starts from the best order.
            self.seed = None;
        }
    }

    /// A fresh tree from the best order, as [`Search::restart`] starts, run within `limits`
    /// while this one is kept: when the fresh tree proves the best order optimal within them,
    /// or its least open bound is at least this tree's, it is the search's tree from then on;
    /// when not, this tree goes on as it was (the fresh tree's least open bound holds for
    /// every order too: the floor keeps it). A tree grown from a worse order splits on pairs that order's peaks gave:
    /// once a seeded node finds the optimum, a fresh root, evaluated with it, often closes
    /// in its first split (JAX ResNet-50's step: 2 nodes, where the old tree had 30 open
    /// below the optimum; docs/optimal.md).
    /// The second value says whether the fresh tree was kept: when it proved the order, and
    /// when its least open bound is at least the old tree's (it then goes on in its place).
    pub fn probe(&mut self, limits: &Limits) -> (Proof, bool) {
        let Root::Done(known) = &self.root else {
            return (self.run(limits), false);
        };
        let kept = (
            known.clone(),
            std::mem::take(&mut self.open),
            std::mem::take(&mut self.store),
            self.held,
            self.stuck,
            self.seed.clone(),
        );
        let kept_bound = kept
            .1
            .peek()
            .map_or(self.best_peak, |&(Reverse(b), _, _)| b)
            .max(self.floor)
            .min(self.best_peak);
        self.root = Root::Done(kept.0.clone());
        self.restart();
        let p = self.run(limits);
        if p.finished {
            return (p, true);
        }
        // Not proven: the old tree back, above the fresh one's least open bound (or, its root
        // cut short, above what the root found).
        if let Some(&(Reverse(b), _, _)) = self.open.peek() {
            let bound = b.max(self.floor).min(self.best_peak);
            // As high as the old tree's: the fresh tree, from the better order, goes on
            // instead (the JAX ResNet-26 step's finds its optimum within a few nodes, where the
            // old one waited for the restart; unless it has no pair left to branch on).
            if matches!(self.root, Root::Done(_)) && bound >= kept_bound && !self.stuck {
                return (self.finish(bound, false), true);
            }
            if bound > self.floor {
                (self.floor, self.floor_by) = (bound, BoundKind::Branching);
            }
        }
        let (known, open, store, held, stuck, seed) = kept;
        (self.root, self.open, self.store) = (Root::Done(known), open, store);
        (self.held, self.stuck, self.seed) = (held, stuck, seed);
        (self.finish(self.bound.max(self.floor), false), false)
    }

    /// The lowest order started from a bound's minimising downset, if any (see
    /// `first_free::prefixed`).
    pub fn hinted(&self) -> Option<&[OpIx]> {
        self.hinted.as_ref().map(|h| &h.1[..])
    }

    /// Whether the last-of-set scan has gone through every set (a scan cut short runs again,
    /// from its start, in the next run).
    pub fn sets_done(&self) -> bool {
        self.root_bounds.sets_done
    }

    /// How many ops of the set the last-of-set scan was cut short on it has done (see
    /// [`super::last_of_set::ScanMemo`]): what the next run need not compute again.
    pub fn scan_progress(&self) -> usize {
        self.root_bounds.scan_memo.progress()
    }

    /// Nodes evaluated so far, over every run.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Raises the search's floor to a bound proven elsewhere (and what proved it).
    pub fn raise(&mut self, floor: (u64, BoundKind)) {
        if floor.0 > self.floor {
            (self.floor, self.floor_by) = floor;
            self.root_bound = self.root_bound.max(floor.0);
        }
    }

    fn finish(&self, bound: u64, finished: bool) -> Proof {
        let bound = bound.max(self.floor).min(self.best_peak);
        Proof {
            bound,
            source: if bound > self.root_bound {
                BoundKind::Branching
            } else {
                self.floor_by
            },
            order: self.best.clone(),
            peak: self.best_peak,
            nodes: self.nodes,
            flows: self.flows,
            finished,
        }
    }

    /// The root: the cut bound, then the whole-graph bounds ([`RootBounds`], with
    /// `limits.sets_stop`). False when cut short.
    fn run_root(&mut self, limits: &Limits) -> bool {
        let g = self.g;
        let stop = limits.stop;
        if let Root::Pending(inherited) = &mut self.root {
            let inherited = std::mem::take(inherited);
            let mut upper = self.upper.clone();
            for (u, d) in upper.iter_mut().zip(during_in(g, &self.best)) {
                *u = (*u).min(d);
            }
            self.nodes = self.nodes.max(1);
            let root = evaluate(
                g,
                Vec::new(),
                self.best.clone(),
                self.best_peak,
                upper,
                inherited,
                self.floor,
                &mut self.flows,
                stop,
            );
            self.offer_peak(&root.node.order, root.node.peak);
            if !root.complete {
                // Cut short, the largest cut so far is still a bound; the cuts found so far
                // are the next run's start.
                let b = root.node.bound.min(self.best_peak);
                if b > self.floor {
                    (self.floor, self.floor_by) = (b, BoundKind::Cut);
                }
                self.root_bound = self.floor;
                self.root = Root::Pending(root.node.known);
                return false;
            }
            if root.node.bound > self.floor {
                (self.floor, self.floor_by) = (root.node.bound, BoundKind::Cut);
            }
            self.root = Root::Done(root.node.known.clone());
            let mut root = root;
            root.node.bounders = self.bounders.clone();
            self.held = node_bytes(&root.node);
            self.open.push((Reverse(root.node.bound), 0, 0));
            self.store.push(Some((root.node, root.pair, root.alt)));
        }
        // The whole-graph bounds; their minimising downsets are starts for orders (see
        // first_free::prefixed).
        let top = self
            .open
            .peek()
            .and_then(|&(_, _, id)| self.store[id].as_ref())
            .map(|n| &n.0.order[..]);
        let at = Against {
            g,
            best: &self.best,
            best_peak: self.best_peak,
            top,
            others: &self.others,
            stop,
            sets_stop: limits.sets_stop,
        };
        let mut floor = (self.floor, self.floor_by);
        let hints = self.root_bounds.run(&at, &mut floor, &mut self.flows);
        (self.floor, self.floor_by) = floor;
        self.root_bound = self.root_bound.max(self.floor);
        if !hints.is_empty() {
            let top = self
                .open
                .peek()
                .and_then(|&(_, _, id)| self.store[id].as_ref())
                .map(|n| n.0.order.clone());
            let bases: Vec<Vec<OpIx>> = std::iter::once(self.best.clone())
                .chain(top)
                .chain(self.others.iter().cloned())
                .collect();
            let net = CutNetwork::new(g, &[]);
            for h in &hints {
                for base in &bases {
                    let order = super::first_free::prefixed(base, h);
                    let order = super::first_free::repaired(g, &net, order, REPAIR_ROUNDS, stop);
                    let peak = peak_of(g, &order);
                    if self.hinted.as_ref().map_or(true, |b| peak < b.0) {
                        self.hinted = Some((peak, order.clone()));
                    }
                    self.offer(&order);
                }
            }
        }
        true
    }

    /// The children of `node` by `pair` (u, v): with "u before v", and with "v before u"
    /// (each left out if its arc closes a cycle); `None` when the budget cut one short.
    fn children(
        &mut self,
        node: &Node,
        (u, v): Arc,
        stop: &dyn Fn() -> bool,
        seen: &mut [bool],
    ) -> Option<Vec<Eval>> {
        let g = self.g;
        // Neither op can precede the other (each is outside a downset that holds the
        // other), so neither arc closes a cycle; checked anyway, as a cycle would void the
        // bounds.
        let mut children = Vec::new();
        let parent_during = during_in(g, &node.order);
        for (x, y) in [(u, v), (v, u)] {
            let mut arcs = node.arcs.clone();
            arcs.push((x, y));
            // With the arc x -> y, a path from y to x would be a cycle (the network is
            // built all the same: it only lists the arcs).
            let net = CutNetwork::new(g, &arcs);
            if reaches(&net, y, x, seen) {
                continue;
            }
            let (mut order, mut upper, mut peak) =
                repair_during(g, &net, &node.order, &parent_during, x, y);
            // The seed, repaired for the arcs it does not keep yet (one, below a node that
            // repaired it), replaces the parent's order when lower: after local search the
            // JAX ResNet-26 step's tree finds the optimum within a few nodes instead of
            // growing on from the early deferral's order (docs/optimal.md).
            let mut seed = None;
            if let Some((number, first)) = &self.seed {
                let base = match &node.seed {
                    Some((n, b)) if n == number => b,
                    _ => first,
                };
                let mut r = if base.keeps < arcs.len() {
                    repaired(g, &net, base, &arcs[base.keeps..])
                } else {
                    base.clone()
                };
                r.keeps = arcs.len();
                if r.peak < peak {
                    // Both orders keep every arc: each bounds every cut from above.
                    for (u, &d) in upper.iter_mut().zip(r.during.iter()) {
                        *u = (*u).min(d);
                    }
                    (order, peak) = (r.order.to_vec(), r.peak);
                }
                seed = Some((*number, r));
            }
            self.offer_peak(&order, peak);
            self.nodes += 1;
            let inherited = still_valid(&node.known, x, y);
            let floor = node.bound.max(self.floor);
            let mut offer = |o: &[OpIx], p: u64| self.offer_peak(o, p);
            let bounders = repaired_upper(
                g,
                &node.bounders,
                &net,
                &arcs,
                &inherited,
                floor,
                &mut upper,
                &mut offer,
            );
            let mut child = evaluate(
                g,
                arcs,
                order,
                peak,
                upper,
                inherited,
                floor,
                &mut self.flows,
                stop,
            );
            child.node.bounders = bounders;
            child.node.seed = seed;
            self.offer_peak(&child.node.order, child.node.peak);
            if !child.complete {
                return None;
            }
            children.push(child);
        }
        Some(children)
    }

    /// Runs the search within `limits` (see [`prove`]).
    pub fn run(&mut self, limits: &Limits) -> Proof {
        let g = self.g;
        let stop = limits.stop;
        if self.stuck || self.floor >= self.best_peak {
            return self.finish(self.bound, self.floor >= self.best_peak);
        }
        if !self.run_root(limits) {
            return self.finish(self.floor, false);
        }
        self.root_bound = self.root_bound.max(self.floor);
        let mut seen = vec![false; g.num_ops()];
        loop {
            let Some(&(Reverse(bound), _, id)) = self.open.peek() else {
                // Every node was closed at or above the best peak: it is optimal.
                return self.finish(self.best_peak, true);
            };
            let bound = bound.max(self.floor);
            self.bound = self.bound.max(bound.min(self.best_peak));
            if bound >= self.best_peak {
                return self.finish(self.best_peak, true);
            }
            if stop()
                || self.nodes >= limits.max_nodes
                || self.flows >= limits.max_flows
                || self.held >= limits.max_bytes
            {
                return self.finish(bound, false);
            }
            let (node, pair, alt) = self.store[id].take().expect("an open node is stored");
            let Some((u, v)) = pair else {
                // No pair to branch on: this node's bound is as far as the search gets.
                self.store[id] = Some((node, pair, alt));
                self.stuck = true;
                return self.finish(bound, false);
            };
            let Some(mut children) = self.children(&node, (u, v), stop, &mut seen) else {
                // This node (the least open bound) still bounds every order; it stays open,
                // to be expanded again by the next run.
                self.store[id] = Some((node, pair, alt));
                return self.finish(bound, false);
            };
            // A split that raises neither child (googlenet's training step: op 977 against
            // each op of an inception block, hundreds of nodes) leaves the whole subtree to
            // do twice; the other pair the node suggested may close or raise a child instead.
            let floor = node.bound.max(self.floor);
            let score = |kids: &[Eval], best: u64| -> (u64, u64) {
                // The children's bounds, least first, a closed (or cyclic, so missing) one
                // counting as the top.
                let mut b = [u64::MAX; 2];
                for (s, c) in b.iter_mut().zip(kids) {
                    *s = if c.node.bound >= best {
                        u64::MAX
                    } else {
                        c.node.bound
                    };
                }
                b.sort_unstable_compact();
                (b[0], b[1])
            };
            // Only the one other pair: retrying with the children's pairs too cost more than it
            // saved (googlenet at 100 ms: proven in 2 of 5 runs, 92-94 ms, against 4 of 4,
            // 65-76 ms). `evaluate` never gives the pair itself as `alt`.
            let dud = score(&children, self.best_peak).1 <= floor;
            if let Some(a) = alt.filter(|&a| dud && a != (u, v) && a != (v, u)) {
                let Some(other) = self.children(&node, a, stop, &mut seen) else {
                    self.store[id] = Some((node, pair, alt));
                    return self.finish(bound, false);
                };
                if score(&other, self.best_peak) > score(&children, self.best_peak) {
                    children = other;
                }
            }
            self.open.pop();
            self.held -= node_bytes(&node);
            for child in children {
                if child.node.bound < self.best_peak {
                    self.held += node_bytes(&child.node);
                    let depth = child.node.arcs.len();
                    self.open
                        .push((Reverse(child.node.bound), depth, self.store.len()));
                    self.store.push(Some((child.node, child.pair, child.alt)));
                }
            }
        }
    }
}
