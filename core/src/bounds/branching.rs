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

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use crate::bounds::BoundKind;
use crate::graph::Graph;
use crate::simulate::peak_of;
use crate::OpIx;

use super::cut::{cut_bound_known, during_in, has, to_bits, CutNetwork, Known};
use super::last_of_set::{candidate_sets_until, last_of_set_bound_from, End, ScanMemo};

/// A child repairs the search's start orders to bound its cuts (see
/// [`Search::repaired_upper`]) when more ops than this (or a quarter of the graph's) are above
/// its floor in its own order.
const BOUNDERS_ABOVE: usize = 48;

/// Downsets kept per node to choose the next pair from (the cut scan computes at least this
/// many). 4, not 12: the scan stops sooner, nodes are cheaper and the search dives deeper
/// (corpus at 100 ms: 96 -> 97 proven, wf-cutandrun; jax-train-resnet14 1.013 -> 1.002 by a
/// deeper node's order; mnasnet1_0's proof takes 1,050 flows instead of 1,900).
const KEEP_CUTS: usize = 4;

/// Clock reads the first-free bound may make per op of the graph (on top of a few thousand).
const FIRST_FREE_READS_PER_OP: u64 = 4;

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

/// "The first op runs before the second."
type Arc = (OpIx, OpIx);

/// An open node with the pair to branch it by and the other pair it suggested (see
/// [`Eval`]).
type Open = (Node, Option<Arc>, Option<Arc>);

struct Node {
    arcs: Vec<(OpIx, OpIx)>,
    bound: u64,
    order: Vec<OpIx>,
    /// The peak of `order`.
    peak: u64,
    /// The cuts computed for this node (each exact while its downset stays one).
    known: Vec<(OpIx, Known)>,
    /// Orders that bound its children's cuts (see [`Search::repaired_upper`]).
    bounders: Vec<Bounder>,
}

/// An order of the graph that keeps the first `keeps` arcs of the node holding it.
#[derive(Clone)]
struct Bounder {
    order: Rc<Vec<OpIx>>,
    /// The memory while each op runs in `order` (by op), and its peak.
    during: Rc<Vec<u64>>,
    peak: u64,
    keeps: usize,
}

/// The cuts of `known` still valid once `x` must run before `y`: those whose downset holds y
/// without x (or that are y's own, without x) are ruled out.
fn still_valid(known: &[(OpIx, Known)], x: OpIx, y: OpIx) -> Vec<(OpIx, Known)> {
    known
        .iter()
        .filter(|(v, k)| has(&k.before, x) || (!has(&k.before, y) && *v != y))
        .cloned()
        .collect()
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

fn positions(order: &[OpIx]) -> Vec<usize> {
    let mut pos = vec![0usize; order.len()];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    pos
}

/// The two repairs of `order` (y at `py` before x at `px`) for the arc x -> y (keeping every
/// arc of `net`, which holds it): y and what depends on it moved right after x, or x and what
/// it depends on moved right before y.
fn candidates(
    net: &CutNetwork,
    order: &[OpIx],
    py: usize,
    px: usize,
    x: OpIx,
    y: OpIx,
) -> (Vec<OpIx>, Vec<OpIx>) {
    let n = order.len();
    // Ops between y and x (inclusive) that depend on y: they move right after x.
    let mut later = vec![false; n];
    later[y as usize] = true;
    for &v in &order[py..=px] {
        if v != y && net.preds(v).iter().any(|&p| later[p as usize]) {
            later[v as usize] = true;
        }
    }
    let mut a = Vec::with_capacity(n);
    a.extend_from_slice(&order[..py]);
    a.extend(order[py..=px].iter().filter(|&&v| !later[v as usize]));
    a.extend(order[py..=px].iter().filter(|&&v| later[v as usize]));
    a.extend_from_slice(&order[px + 1..]);
    // Ops between y and x that x depends on: they move right before y.
    let mut earlier = vec![false; n];
    earlier[x as usize] = true;
    for &v in order[py..=px].iter().rev() {
        if v != x && net.succs(v).iter().any(|&s| earlier[s as usize]) {
            earlier[v as usize] = true;
        }
    }
    let mut b = Vec::with_capacity(n);
    b.extend_from_slice(&order[..py]);
    b.extend(order[py..=px].iter().filter(|&&v| earlier[v as usize]));
    b.extend(order[py..=px].iter().filter(|&&v| !earlier[v as usize]));
    b.extend_from_slice(&order[px + 1..]);
    (a, b)
}

/// `order` changed so that `x` runs before `y`: the better of the two [`candidates`], given
/// the memory while each op runs in `order` (`during`, by op, as [`during_in`] has it); the
/// repaired order, the same for it, and its peak. The two
/// candidates differ from `order` only between y and x, and after the same ops the same
/// storages are live, so only that stretch is simulated (from the state before y, once) and
/// every other op keeps its value: one partial simulation instead of three whole ones.
fn repair_during(
    g: &Graph,
    net: &CutNetwork,
    order: &[OpIx],
    during: &[u64],
    x: OpIx,
    y: OpIx,
) -> (Vec<OpIx>, Vec<u64>, u64) {
    let pos = positions(order);
    let (px, py) = (pos[x as usize], pos[y as usize]);
    let (lo, hi) = (px.min(py), px.max(py));
    let rest = order[..lo]
        .iter()
        .chain(&order[hi + 1..])
        .map(|&v| during[v as usize])
        .fold(g.inputs_bytes(), u64::max);
    if px < py {
        let peak = order[lo..=hi]
            .iter()
            .map(|&v| during[v as usize])
            .fold(rest, u64::max);
        return (order.to_vec(), during.to_vec(), peak);
    }
    let (a, b) = candidates(net, order, py, px, x, y);
    let mut start = crate::simulate::MemState::new(g);
    for &v in &order[..py] {
        start.run(v);
    }
    let stretch = |o: &[OpIx]| -> (Vec<u64>, u64) {
        let mut st = start.clone();
        let d: Vec<u64> = o[py..=px].iter().map(|&v| st.run(v).0).collect();
        let peak = d.iter().copied().fold(rest, u64::max);
        (d, peak)
    };
    let ((da, pa), (db, pb)) = (stretch(&a), stretch(&b));
    let (o, d, p) = if pa <= pb { (a, da, pa) } else { (b, db, pb) };
    let mut out = during.to_vec();
    for (&v, &dv) in o[py..=px].iter().zip(&d) {
        out[v as usize] = dv;
    }
    (o, out, p)
}

/// `b`'s order repaired (see [`repair_during`]) to keep every arc of `arcs` (all of them in `net`),
/// with its memory by op and its peak (see [`repair_during`]).
fn repaired(g: &Graph, net: &CutNetwork, b: &Bounder, arcs: &[Arc]) -> Bounder {
    let mut pos = positions(&b.order);
    let mut out: Option<(Vec<OpIx>, Vec<u64>, u64)> = None;
    for &(x, y) in arcs {
        if pos[x as usize] > pos[y as usize] {
            let (o, d) = out
                .as_ref()
                .map_or((&b.order[..], &b.during[..]), |(o, d, _)| (&o[..], &d[..]));
            let next = repair_during(g, net, o, d, x, y);
            pos = positions(&next.0);
            out = Some(next);
        }
    }
    match out {
        Some((o, d, p)) => Bounder {
            order: Rc::new(o),
            during: Rc::new(d),
            peak: p,
            keeps: arcs.len(),
        },
        None => Bounder {
            keeps: arcs.len(),
            ..b.clone()
        },
    }
}

/// Two cuts (a, D_a), (b, D_b) can both hold in one order only if one downset, with its op,
/// lies inside the other: D_a ∪ {a} ⊆ D_b or D_b ∪ {b} ⊆ D_a. Otherwise there are x in
/// D_a ∪ {a} outside D_b and y in D_b ∪ {b} outside D_a (neither precedes the other), and
/// "x before y" rules out D_b while "y before x" rules out D_a. Returns such (x, y) for the
/// first inconsistent pair of cuts, largest cuts first.
fn inconsistent_pair(g: &Graph, order: &[OpIx], cuts: &[(OpIx, Known)]) -> Option<(OpIx, OpIx)> {
    // Of the ops that separate the two downsets, the one that allocates the most: an arc on it
    // moves the most memory. Measured on 12 unproven corpus graphs (1 s each): this proved two
    // more than taking the op itself, or else the last separating op of the order.
    let pick = |a: OpIx, da: &[u64], db: &[u64]| -> Option<OpIx> {
        order
            .iter()
            .copied()
            .filter(|&u| (u == a || has(da, u)) && !has(db, u))
            .max_by_key(|&u| (g.alloc(u).saturating_add(g.workspace(u)), u == a))
    };
    for (i, (a, ka)) in cuts.iter().enumerate() {
        for (b, kb) in &cuts[i + 1..] {
            if a == b {
                continue;
            }
            let (da, db) = (&ka.before, &kb.before);
            // Whether some op of D_a ∪ {a} is outside D_b, on the words (most pairs of cuts
            // are nested: no pass over the order for them).
            let outside = |a: OpIx, da: &[u64], db: &[u64]| {
                !has(db, a) || da.iter().zip(db).any(|(x, y)| x & !y != 0)
            };
            if !outside(*a, da, db) || !outside(*b, db, da) {
                continue;
            }
            if let (Some(x), Some(y)) = (pick(*a, da, db), pick(*b, db, da)) {
                return Some((x, y));
            }
        }
    }
    None
}

/// An order in which every cut of `cuts` (pairwise consistent, see [`inconsistent_pair`])
/// holds: the cuts by downset size, each downset's new ops then its op, the rest after, each
/// group in `order`'s order (so the graph's edges and any arc `order` keeps are kept).
fn realize(order: &[OpIx], cuts: &[(OpIx, Known)]) -> Vec<OpIx> {
    let mut by_size: Vec<usize> = (0..cuts.len()).collect();
    by_size.sort_by_key(|&i| cuts[i].1.before.iter().map(|w| w.count_ones()).sum::<u32>());
    let mut placed = vec![false; order.len()];
    let mut out = Vec::with_capacity(order.len());
    for i in by_size {
        let (v, k) = &cuts[i];
        if placed[*v as usize] {
            continue;
        }
        for &u in order {
            if has(&k.before, u) && !placed[u as usize] {
                placed[u as usize] = true;
                out.push(u);
            }
        }
        placed[*v as usize] = true;
        out.push(*v);
    }
    out.extend(order.iter().filter(|&&u| !placed[u as usize]));
    out
}

/// The pair that sets `order` against the cut of the op at its peak (the first step that
/// reaches it, when the step is an op's): u runs at the peak after the ops P before it in
/// `order`, while its cut says u can run after some other downset D. For the first op y of D
/// outside P (after u in `order`), "u before y" rules D out and "y before u" rules out the
/// order's arrangement; failing one, for the last op x of P outside D, "u before x" rules out
/// the order's and "x before u" D. Either way the peak op's own memory is what the children
/// settle, which branching on the largest cuts alone may never reach (a training step's
/// weight update: its cut lets it run last, the next backward op's lets it run first).
fn peak_pair(
    g: &Graph,
    net: &CutNetwork,
    order: &[OpIx],
    known: &mut [Option<Known>],
    flows: &mut u64,
    stop: &dyn Fn() -> bool,
) -> Option<(OpIx, OpIx)> {
    let during = during_in(g, order);
    let (at, &u) = order
        .iter()
        .enumerate()
        .max_by_key(|&(i, &v)| (during[v as usize], Reverse(i)))?;
    if known[u as usize].is_none() {
        let c = net.during_until(g, u, &[], during[u as usize].saturating_add(1), stop);
        *flows += 1;
        let before = c.before.filter(|_| c.finished)?;
        known[u as usize] = Some(Known {
            bytes: c.bytes,
            before: to_bits(&before),
        });
    }
    let k = known[u as usize].as_ref().expect("computed above");
    // The middle candidate splits the orders most evenly between the two children.
    let pick = |c: Vec<OpIx>| -> Option<OpIx> { c.get(c.len() / 2).copied() };
    let later: Vec<OpIx> = order[at + 1..]
        .iter()
        .copied()
        .filter(|&y| has(&k.before, y))
        .collect();
    if let Some(y) = pick(later) {
        return Some((u, y));
    }
    let earlier: Vec<OpIx> = order[..at]
        .iter()
        .rev()
        .copied()
        .filter(|&x| !has(&k.before, x))
        .collect();
    pick(earlier).map(|x| (x, u))
}

/// What evaluating a node found.
struct Eval {
    node: Node,
    /// The cut bound was computed in full (not cut short by the budget).
    complete: bool,
    /// The pair to branch on; `None` when the node is solved (its order reaches its bound) or
    /// nothing is left to branch on.
    pair: Option<(OpIx, OpIx)>,
    /// Another pair to branch on, when the cuts and the order's peak suggest two (see
    /// [`Search::run`]: tried when `pair` raises neither child).
    alt: Option<(OpIx, OpIx)>,
}

/// Most rounds of "realize the cuts, compute the cuts of the ops still above the bound".
const MAX_ROUNDS: usize = 8;
/// Ops above the bound whose cuts one round computes.
const PER_ROUND: usize = 4;

/// Evaluates a node: the cut bound of the graph with its arcs (at least `floor`) and the
/// downsets of the largest cuts. Then either two of them are inconsistent (the pair to branch
/// on), or they all hold in one order: if its peak is the bound, the node is solved; if not,
/// the ops above the bound in it get their cuts too, and the check repeats.
#[allow(clippy::too_many_arguments)]
fn evaluate(
    g: &Graph,
    arcs: Vec<(OpIx, OpIx)>,
    order: Vec<OpIx>,
    peak: u64,
    upper: Vec<u64>,
    inherited: Vec<(OpIx, Known)>,
    floor: u64,
    flows: &mut u64,
    stop: &dyn Fn() -> bool,
) -> Eval {
    let net = CutNetwork::new(g, &arcs);
    let mut known: Vec<Option<Known>> = vec![None; g.num_ops()];
    for (v, k) in inherited {
        known[v as usize] = Some(k);
    }
    let c = cut_bound_known(g, &net, &upper, &mut known, floor, KEEP_CUTS, stop);
    *flows += c.flows as u64;
    let bound = c.bytes;
    let mut cuts = c.cuts;
    let mut order = order;
    let mut peak = peak;
    let mut pair = None;
    let mut complete = c.complete;
    if complete {
        'rounds: for _ in 0..MAX_ROUNDS {
            // Each round is O(ops x cuts) before any flow: on a large graph, a millisecond.
            if stop() {
                complete = false;
                break;
            }
            pair = inconsistent_pair(g, &order, &cuts);
            if pair.is_some() {
                break;
            }
            let o = realize(&order, &cuts);
            let d = during_in(g, &o);
            // The peak, as `peak_of` has it, from the same simulation.
            let p = d.iter().copied().fold(g.inputs_bytes(), u64::max);
            if p < peak {
                (order, peak) = (o.clone(), p);
            }
            if p <= bound {
                break; // solved
            }
            let mut above: Vec<OpIx> = (0..g.num_ops() as OpIx)
                .filter(|&u| d[u as usize] > bound && cuts.iter().all(|x| x.0 != u))
                .collect();
            // Cuts already known need no flow.
            let fresh = above.len();
            for &u in &above[..fresh] {
                if let Some(k) = &known[u as usize] {
                    cuts.push((u, k.clone()));
                }
            }
            above.retain(|&u| known[u as usize].is_none());
            above.sort_by_key(|&u| Reverse(d[u as usize]));
            if above.is_empty() {
                break; // the start or the end is above the bound, not an op
            }
            for &u in above.iter().take(PER_ROUND) {
                if stop() {
                    complete = false;
                    break 'rounds;
                }
                let cu = net.during_until(g, u, &[], d[u as usize].saturating_add(1), stop);
                *flows += 1;
                if !cu.finished {
                    complete = false;
                    break 'rounds;
                }
                if let Some(before) = cu.before {
                    let k = Known {
                        bytes: cu.bytes,
                        before: to_bits(&before),
                    };
                    known[u as usize] = Some(k.clone());
                    cuts.push((u, k));
                }
            }
        }
    }
    if complete && peak > bound && !stop() {
        // The order's peak op and its own cut say where the order and the bound disagree.
        if let Some(p) = peak_pair(g, &net, &order, &mut known, flows, stop) {
            pair = Some(p);
        }
    }
    // The cuts' own pair, when the peak's replaced it (or none was found in the rounds).
    let mut alt = None;
    if peak > bound {
        let cut_pair = inconsistent_pair(g, &order, &cuts);
        if pair.is_none() {
            pair = cut_pair;
        } else if cut_pair != pair {
            alt = cut_pair;
        }
    }
    let known = known
        .into_iter()
        .enumerate()
        .filter_map(|(v, k)| k.map(|k| (v as OpIx, k)))
        .collect();
    Eval {
        node: Node {
            arcs,
            bound,
            order,
            peak,
            known,
            bounders: Vec::new(),
        },
        complete,
        pair,
        alt,
    }
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

fn node_bytes(node: &Node) -> u64 {
    let words = node.order.len().div_ceil(64) as u64;
    // A bounder is shared by the nodes below the one that repaired it: each pays its share.
    let bounders: usize = node
        .bounders
        .iter()
        .map(|b| 24 + b.order.len() * 12 / Rc::strong_count(&b.order))
        .sum();
    (node.order.len() * 4 + node.arcs.len() * 8 + bounders) as u64
        + node.known.len() as u64 * (32 + 8 * words)
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
    /// The last-of-set scan went through every set.
    sets_done: bool,
    /// Where a last-of-set scan cut short stopped (the next run goes on from there).
    scan_memo: ScanMemo,
    /// The first-free bound ran (or was cut off by its cap, for good).
    first_free_done: bool,
    /// The join-free bound ran (or was cut off by its cap, for good).
    join_free_done: bool,
    /// The rewrite-set bound ran.
    rewrites_done: bool,
    /// The either-side scan went through every split.
    splits_done: bool,
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
            sets_done: false,
            scan_memo: ScanMemo::default(),
            first_free_done: false,
            join_free_done: false,
            rewrites_done: false,
            splits_done: false,
            hinted: None,
            root_bound: floor.0,
            flows: 0,
            nodes: 0,
            open: BinaryHeap::new(),
            store: Vec::new(),
            held: 0,
            stuck: false,
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

    /// [`Search::offer`] with `order`'s peak, known already.
    fn offer_peak(&mut self, order: &[OpIx], p: u64) {
        if p < self.best_peak {
            self.best_peak = p;
            self.best = order.to_vec();
        }
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
        }
    }

    /// The lowest order started from a bound's minimising downset, if any (see
    /// `first_free::prefixed`).
    pub fn hinted(&self) -> Option<&[OpIx]> {
        self.hinted.as_ref().map(|h| &h.1[..])
    }

    /// Whether the last-of-set scan has gone through every set (a scan cut short runs again,
    /// from its start, in the next run).
    pub fn sets_done(&self) -> bool {
        self.sets_done
    }

    /// How many ops of the set the last-of-set scan was cut short on it has done (see
    /// [`ScanMemo`]): what the next run need not compute again.
    pub fn scan_progress(&self) -> usize {
        self.scan_memo.progress()
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

    /// The root: the cut bound, then the last-of-set bound (with `limits.sets_stop`).
    /// False when cut short.
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
        // Starts for orders from the bounds' minimising downsets (see first_free::prefixed).
        let mut hints = Vec::new();
        if !self.sets_done {
            if self.floor < self.best_peak && !stop() && !(limits.sets_stop)() {
                // The last-of-set bound holds for the whole graph, so it floors every node.
                let net = CutNetwork::new(g, &[]);
                let sets_stop = || stop() || (limits.sets_stop)();
                let (sets, listed) = candidate_sets_until(g, &net, &sets_stop);
                // Each order costs a simulation: the two best and three more bound the sets
                // well.
                let top = self
                    .open
                    .peek()
                    .and_then(|&(_, _, id)| self.store[id].as_ref());
                let mut orders = vec![&self.best[..]];
                orders.extend(top.map(|n| &n.0.order[..]));
                orders.extend(self.others.iter().map(|o| &o[..]));
                let los = last_of_set_bound_from(
                    g,
                    &net,
                    &sets,
                    &orders,
                    self.floor,
                    self.best_peak,
                    &sets_stop,
                    &mut self.scan_memo,
                );
                self.flows += los.flows as u64;
                hints.extend(los.hint);
                if los.bytes > self.floor {
                    self.floor = los.bytes;
                    self.floor_by = match los.by.as_ref().map(|s| s.end) {
                        Some(End::First) => BoundKind::FirstOfSet,
                        _ => BoundKind::LastOfSet,
                    };
                }
                // The set that gave the bound, refined by the last (first) of a group of its
                // ops' ancestors (descendants).
                if let Some(set) = los.by.filter(|_| self.floor < self.best_peak) {
                    let groups = super::last_of_set::alike_groups(g, &net, true);
                    let ns = super::nested_set::nested_set_bound(
                        g,
                        &net,
                        &set,
                        &groups,
                        self.floor,
                        self.best_peak,
                        &sets_stop,
                    );
                    self.flows += ns.flows as u64;
                    if ns.bytes > self.floor {
                        (self.floor, self.floor_by) = (ns.bytes, BoundKind::NestedSet);
                    }
                }
                // Cut short, the scan runs again in the next run (sets that could not beat
                // the bound then are dismissed by a cheap capped flow); branching gets the
                // rest of this one.
                self.sets_done = los.complete && listed;
            }
            self.root_bound = self.root_bound.max(self.floor);
        }
        if self.sets_done && !self.first_free_done && self.floor < self.best_peak && !stop() {
            // Its flows are capped (by the clock reads, about one per flow phase) so that a
            // graph where it cannot help (a training step) keeps its time for branching; cut
            // short, it is still a bound, and the search goes on.
            let reads = std::cell::Cell::new(0u64);
            let cap = FIRST_FREE_READS_PER_OP * g.num_ops() as u64 + 4096;
            let ff_stop = || stop() || reads.replace(reads.get() + 1) > cap;
            let ff = super::first_free::first_free_bound(
                g,
                &self.best,
                self.floor,
                self.best_peak,
                &ff_stop,
            );
            hints.extend(ff.hint);
            self.flows += ff.flows as u64;
            if ff.bytes > self.floor {
                (self.floor, self.floor_by) = (ff.bytes, BoundKind::FirstFree);
            }
            // Stopped by the clock (not its cap), it runs again in the next run.
            self.first_free_done = ff.complete || !stop();
            self.root_bound = self.root_bound.max(self.floor);
        }
        if self.first_free_done && !self.rewrites_done && self.floor < self.best_peak && !stop() {
            // The first (last) of the large rewrites (an SGD step's updates).
            let mut orders = vec![&self.best[..]];
            orders.extend(self.others.iter().map(|o| &o[..]));
            let rs =
                super::rewrite_set::rewrite_set_bound(g, &orders, self.floor, self.best_peak, stop);
            self.flows += rs.flows as u64;
            hints.extend(rs.hint);
            if rs.bytes > self.floor {
                (self.floor, self.floor_by) = (rs.bytes, BoundKind::RewriteSet);
            }
            self.rewrites_done = rs.complete;
            self.root_bound = self.root_bound.max(self.floor);
        }
        if self.first_free_done && !self.join_free_done && self.floor < self.best_peak && !stop() {
            // The first free of what a join leaves live (a training step's saved activations
            // and weights); capped like the first free.
            let reads = std::cell::Cell::new(0u64);
            let cap = FIRST_FREE_READS_PER_OP * g.num_ops() as u64 + 4096;
            let jf_stop = || stop() || reads.replace(reads.get() + 1) > cap;
            let jf = super::join_free::join_free_bound(
                g,
                &self.best,
                self.floor,
                self.best_peak,
                &jf_stop,
            );
            self.flows += jf.flows as u64;
            if jf.bytes > self.floor {
                (self.floor, self.floor_by) = (jf.bytes, BoundKind::JoinFree);
            }
            self.join_free_done = jf.complete || !stop();
            self.root_bound = self.root_bound.max(self.floor);
        }
        if self.sets_done
            && self.first_free_done
            && !self.splits_done
            && self.floor < self.best_peak
            && !stop()
            && !(limits.sets_stop)()
        {
            // Within the sets' share, and capped like the first free (by the clock reads)
            // so that a graph where it cannot help keeps its time for branching; cut short
            // by the clock, it runs again in the next run.
            let net = CutNetwork::new(g, &[]);
            let reads = std::cell::Cell::new(0u64);
            let cap = FIRST_FREE_READS_PER_OP * g.num_ops() as u64 + 4096;
            let clock = || stop() || (limits.sets_stop)();
            let sets_stop = || clock() || reads.replace(reads.get() + 1) > cap;
            let splits = super::either_side::candidate_splits(g, &net, &sets_stop);
            let mut orders = vec![&self.best[..]];
            orders.extend(self.others.iter().map(|o| &o[..]));
            let es = super::either_side::either_side_bound(
                g,
                &net,
                &splits,
                &orders,
                self.floor,
                self.best_peak,
                &sets_stop,
            );
            self.flows += es.flows as u64;
            hints.extend(es.hint);
            if es.bytes > self.floor {
                (self.floor, self.floor_by) = (es.bytes, BoundKind::EitherSide);
            }
            self.splits_done = es.complete || !clock();
            self.root_bound = self.root_bound.max(self.floor);
        }
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

    /// Lowers `upper` (a child's bounds on its cuts, from its own order) by its parent's
    /// bounders (the search's start orders at the root), each repaired to keep the child's
    /// `arcs`, when more than [`BOUNDERS_ABOVE`] ops (or a quarter of them) not in `inherited` are above `floor` by
    /// the child's order alone; returns the child's bounders. The root bounds its cuts by
    /// all of those orders, so it needs a dozen flows where a child bounded by its one order
    /// needed 100 to 300 (the first levels on convnext_tiny's and googlenet's training steps);
    /// the repaired orders bring a child back to about a dozen. A bounder that lowers no op
    /// above the floor is dropped for the subtree; one repaired is kept with the child, so a
    /// grandchild repairs it for one more arc only. Repaired orders are offered as
    /// incumbents too.
    fn repaired_upper(
        &mut self,
        parent: &[Bounder],
        net: &CutNetwork,
        arcs: &[Arc],
        inherited: &[(OpIx, Known)],
        floor: u64,
        upper: &mut [u64],
    ) -> Vec<Bounder> {
        let g = self.g;
        let mut inherits = vec![false; g.num_ops()];
        for (v, _) in inherited {
            inherits[*v as usize] = true;
        }
        let open = (0..g.num_ops())
            .filter(|&u| upper[u] > floor && !inherits[u])
            .count();
        // Each repair and simulation is O(ops): worth it only when it saves flows.
        if open <= BOUNDERS_ABOVE.min(g.num_ops() / 4) {
            return parent.to_vec();
        }
        let own = upper.to_vec();
        let mut kept = Vec::with_capacity(parent.len());
        for b in parent {
            let r = if b.keeps < arcs.len() {
                repaired(g, net, b, &arcs[b.keeps..])
            } else {
                b.clone()
            };
            let mut useful = false;
            for (u, &d) in r.during.iter().enumerate() {
                if d < upper[u] {
                    useful |= own[u] > floor && !inherits[u];
                    upper[u] = d;
                }
            }
            if useful {
                self.offer_peak(&r.order, r.peak);
                kept.push(r);
            }
        }
        kept
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
            let (order, mut upper, peak) =
                repair_during(g, &net, &node.order, &parent_during, x, y);
            self.offer_peak(&order, peak);
            self.nodes += 1;
            let inherited = still_valid(&node.known, x, y);
            let floor = node.bound.max(self.floor);
            let bounders =
                self.repaired_upper(&node.bounders, &net, &arcs, &inherited, floor, &mut upper);
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
                b.sort_unstable();
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
