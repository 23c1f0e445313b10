//! The cut bound on the whole graph.
//!
//! Every order runs an op v right after some downset D (a set closed under predecessors) that
//! holds all of v's predecessors and not v, so the peak is at least
//! `min over such D of live(D) + alloc(v) + workspace(v)`, where live(D) is what D leaves
//! live: each storage whose producer is in D (or that is live from the start) and that is
//! never freed or has a reader outside D. The minimum is a minimum cut of a flow network, the
//! "project selection" construction (J. Kleinberg, É. Tardos, *Algorithm Design*, 2005, §7.11):
//! an op on the source side is in D; an infinite arc from each op to each of its predecessors
//! keeps D closed; a storage with several readers is a node, reached from its producer (or the
//! source, for a donated input) by an arc of its size and reaching each reader by an infinite
//! arc, so the cut pays its size exactly when its producer is in D and some reader is not (one
//! reader: a single arc producer → reader); a graph output pays its size once produced (an arc
//! to the sink). Views are counted on their base storage, which [`Graph::users`] already
//! does. One maximum flow per op ([`crate::maxflow`], Dinic's algorithm).
//!
//! The bound is the largest of these cuts, but most ops cannot give it: the memory while v
//! runs in any known order is an upper bound on v's cut, so ops are taken by that bound,
//! largest first, and the scan stops once the next op's upper bound is not above the best cut
//! so far. On training graphs the op at the plan's peak usually gives the bound at once. Cut
//! short (by the caller's `stop`), the largest cut computed so far is still a true bound.
//!
//! The same network takes extra precedence arcs ("x runs before y"), which is what the proof
//! search of [`super::branching`] needs, and reports the minimising downset.

use std::cell::RefCell;
use std::rc::Rc;

use crate::graph::Graph;
use crate::maxflow::{Network, INF};
use crate::OpIx;

/// A storage as the network sees it.
#[derive(Clone, Debug)]
struct Storage {
    size: u64,
    /// Its producer, or `None` for a (donated) graph input.
    producer: Option<OpIx>,
    /// Never freed once made.
    pinned: bool,
    /// Range in [`CutNetwork::users`].
    users: (u32, u32),
}

/// What every op's network is built from: the storages that can be live after a downset, and
/// the precedences (the graph's, plus any extra arcs).
#[derive(Clone, Debug)]
pub struct CutNetwork {
    storages: Vec<Storage>,
    users: Vec<OpIx>,
    /// Predecessors and successors with the extra arcs, as CSR rows.
    pred_start: Vec<u32>,
    preds: Vec<OpIx>,
    succ_start: Vec<u32>,
    succs: Vec<OpIx>,
    /// Bytes live after every downset: storages live from the start and never freed.
    constant: u64,
    /// False when the finite capacities could add up to [`INF`]: the network would then not
    /// tell an infinite arc from a sum of sizes, and gives no bound.
    usable: bool,
    /// Buffers reused from one op's cut to the next.
    scratch: RefCell<Scratch>,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    side: Vec<u8>,
    local: Vec<u32>,
    free: Vec<OpIx>,
    stack: Vec<OpIx>,
    fans: Vec<u32>,
    /// Per free op: bytes of its arcs from the source and to the sink.
    ends: Vec<(u64, u64)>,
    net: Network,
}

/// One op's minimum cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpCut {
    /// The least memory while the op runs, over every order (with the extra arcs); or the cap
    /// the caller gave, when the cut reaches it; `u64::MAX` when no order runs the ops asked
    /// for before it.
    pub bytes: u64,
    /// The ops of a minimising downset (those that run before the op), when `bytes` is below
    /// the cap.
    pub before: Option<Vec<bool>>,
    /// False when the flow was given up (see [`CutNetwork::during_until`]).
    pub finished: bool,
}

const FREE: u8 = 0;
const BEFORE: u8 = 1;
const AFTER: u8 = 2;

fn csr(n: usize, pairs: impl Iterator<Item = (OpIx, OpIx)> + Clone) -> (Vec<u32>, Vec<OpIx>) {
    let mut start = vec![0u32; n + 1];
    for (a, _) in pairs.clone() {
        start[a as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut out = vec![0; start[n] as usize];
    for (a, b) in pairs {
        out[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
    }
    (start, out)
}

impl CutNetwork {
    /// The network of `g` with the extra precedence arcs `arcs` (`(x, y)`: x runs before y),
    /// which must not close a cycle with the graph's own.
    pub fn new(g: &Graph, arcs: &[(OpIx, OpIx)]) -> CutNetwork {
        CutNetwork::with_live(g, arcs, &[])
    }

    /// [`CutNetwork::new`], counting the graph inputs marked in `live` (by storage, indexed
    /// like the tensors; a shorter slice marks none past its end) as live after every downset,
    /// as if never freed: what [`super::first_free`] needs while no input has been freed yet.
    pub fn with_live(g: &Graph, arcs: &[(OpIx, OpIx)], live: &[bool]) -> CutNetwork {
        let n = g.num_ops();
        let mut storages = Vec::new();
        let mut users = Vec::new();
        let mut constant = 0u64;
        let mut finite = 0u64;
        for t in 0..g.num_tensors() as u32 {
            let size = g.size(t);
            if size == 0 {
                continue;
            }
            let producer = g.tensors()[t as usize].producer;
            let readers = g.users(t);
            let marked = live.get(t as usize).copied().unwrap_or(false);
            if producer.is_none() && (g.pinned(t) || readers.is_empty() || marked) {
                constant = constant.saturating_add(size);
                continue;
            }
            if producer.is_some() && readers.is_empty() && !g.pinned(t) {
                // Made and freed at once: only its producer's own step sees it.
                continue;
            }
            finite = finite.saturating_add(size);
            let a = users.len() as u32;
            users.extend_from_slice(readers);
            storages.push(Storage {
                size,
                producer,
                pinned: g.pinned(t),
                users: (a, users.len() as u32),
            });
        }
        // The arcs listed once, in a flat array: the two tables below walk them four times,
        // and a chain of nested iterators that the wasm build does not inline cost more than
        // the flows on a training step's proof (docs/wasm.md "Speed").
        let mut edges = Vec::with_capacity(n + arcs.len());
        for u in 0..n as OpIx {
            edges.extend(g.preds(u).iter().map(|&p| (p, u)));
        }
        edges.extend_from_slice(arcs);
        let (pred_start, preds) = csr(n, edges.iter().map(|&(a, b)| (b, a)));
        let (succ_start, succs) = csr(n, edges.iter().copied());
        CutNetwork {
            storages,
            users,
            pred_start,
            preds,
            succ_start,
            succs,
            constant,
            usable: finite < INF / 2,
            scratch: RefCell::default(),
        }
    }

    /// Whether the network can give bounds (see [`CutNetwork::usable`]).
    pub fn usable(&self) -> bool {
        self.usable
    }

    /// What every op's cut counts on top of what the downset leaves: the storages live from
    /// the start and never freed, and the op's own outputs and workspace.
    pub fn constant_during(&self, g: &Graph, v: OpIx) -> u64 {
        self.constant
            .saturating_add(g.alloc(v))
            .saturating_add(g.workspace(v))
    }

    /// Predecessors of `v`, the extra arcs included.
    pub fn preds(&self, v: OpIx) -> &[OpIx] {
        self.preds_of(v)
    }

    /// Successors of `v`, the extra arcs included.
    pub fn succs(&self, v: OpIx) -> &[OpIx] {
        self.succs_of(v)
    }

    fn preds_of(&self, v: OpIx) -> &[OpIx] {
        &self.preds[self.pred_start[v as usize] as usize..self.pred_start[v as usize + 1] as usize]
    }

    fn succs_of(&self, v: OpIx) -> &[OpIx] {
        &self.succs[self.succ_start[v as usize] as usize..self.succ_start[v as usize + 1] as usize]
    }

    /// The least memory while `v` runs over every order that keeps the network's arcs and runs
    /// every op of `before` before `v`; or `cap` once the cut is known to reach it; or
    /// `u64::MAX` when no such order exists (an op of `before` must follow `v`).
    ///
    /// v's ancestors (and `before`'s) run before it and its descendants after it in every such
    /// order, so they are merged into the source and the sink: the flow runs over the other
    /// ops only, whose storages the cut weighs.
    pub fn during(&self, g: &Graph, v: OpIx, before: &[OpIx], cap: u64) -> OpCut {
        self.during_until(g, v, before, cap, &|| false)
    }

    /// [`CutNetwork::during`], giving up between the flow's phases once `stop()` is true: then
    /// `finished` is false and `bytes` is only a lower bound on the cut (what has flowed).
    pub fn during_until(
        &self,
        g: &Graph,
        v: OpIx,
        before: &[OpIx],
        cap: u64,
        stop: &dyn Fn() -> bool,
    ) -> OpCut {
        self.during_between(g, v, before, &[], cap, stop)
    }

    /// [`CutNetwork::during_until`] with the ops of `after` (and so their descendants) forced
    /// to run after `v` as well: `u64::MAX` when no order runs `before`, then `v`, then
    /// `after` (an op of `after` is an ancestor of `v` or of an op of `before`).
    pub fn during_between(
        &self,
        g: &Graph,
        v: OpIx,
        before: &[OpIx],
        after: &[OpIx],
        cap: u64,
        stop: &dyn Fn() -> bool,
    ) -> OpCut {
        let n = g.num_ops();
        let fixed = self.constant_during(g, v);
        if fixed >= cap || !self.usable {
            return OpCut {
                bytes: fixed.min(cap),
                before: None,
                finished: true,
            };
        }
        let infeasible = OpCut {
            bytes: u64::MAX,
            before: None,
            finished: true,
        };
        // The sides, and the network from every storage and its readers, before the flow.
        crate::work::add((2 * n + self.storages.len() + self.users.len()) as u64);
        let mut scratch = self.scratch.borrow_mut();
        let Scratch {
            side,
            local,
            free,
            stack,
            fans,
            ends,
            net,
        } = &mut *scratch;
        // Sides: after (v and its descendants), before (ancestors of v and of `before`), free.
        side.clear();
        side.resize(n, FREE);
        side[v as usize] = AFTER;
        stack.clear();
        stack.push(v);
        for &a in after {
            if side[a as usize] == FREE {
                side[a as usize] = AFTER;
                stack.push(a);
            }
        }
        while let Some(u) = stack.pop() {
            for &w in self.succs_of(u) {
                if side[w as usize] == FREE {
                    side[w as usize] = AFTER;
                    stack.push(w);
                }
            }
        }
        for &b in before {
            match side[b as usize] {
                AFTER => return infeasible,
                FREE => {
                    side[b as usize] = BEFORE;
                    stack.push(b);
                }
                _ => {}
            }
        }
        for &p in self.preds_of(v) {
            match side[p as usize] {
                AFTER => return infeasible, // an op of `after` precedes v
                FREE => {
                    side[p as usize] = BEFORE;
                    stack.push(p);
                }
                _ => {}
            }
        }
        while let Some(u) = stack.pop() {
            for &p in self.preds_of(u) {
                match side[p as usize] {
                    AFTER => return infeasible,
                    FREE => {
                        side[p as usize] = BEFORE;
                        stack.push(p);
                    }
                    _ => {}
                }
            }
        }
        // Local node numbers: free ops first, then source and sink, then a node per shared
        // storage as it is found (`Network::add_node`).
        local.clear();
        local.resize(n, u32::MAX);
        free.clear();
        for u in 0..n {
            if side[u] == FREE {
                local[u] = free.len() as u32;
                free.push(u as OpIx);
            }
        }
        let mut paid = fixed;
        // Nodes: the free ops by their local numbers, the source and the sink, then one node
        // per storage with several free readers (and none after v), added as found. A free
        // op's arcs from the source and to the sink are summed in `ends` first.
        let nf = free.len() as u32;
        let (src, snk) = (nf, nf + 1);
        net.reset(nf as usize + 2);
        ends.clear();
        ends.resize(nf as usize, (0, 0));
        for st in &self.storages {
            let from = match st.producer {
                None => src,
                Some(p) => match side[p as usize] {
                    AFTER => continue, // not made before v
                    BEFORE => src,
                    _ => local[p as usize],
                },
            };
            if st.pinned {
                if from == src {
                    paid = paid.saturating_add(st.size);
                } else {
                    let e = &mut ends[from as usize].1;
                    *e = e.saturating_add(st.size);
                }
                continue;
            }
            let readers = &self.users[st.users.0 as usize..st.users.1 as usize];
            let mut after = false;
            fans.clear();
            for &u in readers {
                match side[u as usize] {
                    AFTER => after = true,
                    FREE => fans.push(local[u as usize]),
                    _ => {}
                }
            }
            if after {
                if from == src {
                    paid = paid.saturating_add(st.size);
                } else {
                    let e = &mut ends[from as usize].1;
                    *e = e.saturating_add(st.size);
                }
                continue;
            }
            match fans[..] {
                [] => {} // every reader runs before v: freed by then
                [u] if from == src => {
                    let e = &mut ends[u as usize].0;
                    *e = e.saturating_add(st.size);
                }
                [u] => net.add_edge(from, u, st.size),
                _ => {
                    let a = net.add_node();
                    net.add_edge(from, a, st.size);
                    for &u in fans.iter() {
                        net.add_edge(a, u, INF);
                    }
                }
            }
        }
        // Source -> u -> sink carries the smaller of the two at once: pushed before the flow
        // starts (the arcs' residual twins lead into the source or out of the sink, so no
        // residual path and no minimum cut's least source side needs them).
        for (i, &(a, b)) in ends.iter().enumerate() {
            let m = a.min(b);
            paid = paid.saturating_add(m);
            if a > m {
                net.add_edge(src, i as u32, a - m);
            }
            if b > m {
                net.add_edge(i as u32, snk, b - m);
            }
        }
        if paid >= cap {
            return OpCut {
                bytes: cap,
                before: None,
                finished: true,
            };
        }
        for (i, &u) in free.iter().enumerate() {
            for &p in self.preds_of(u) {
                if side[p as usize] == FREE {
                    net.add_edge(i as u32, local[p as usize], INF);
                }
            }
        }
        let limit = cap - paid;
        let (flow, finished) = net.max_flow_until(src, snk, limit, stop);
        if !finished {
            return OpCut {
                bytes: paid + flow,
                before: None,
                finished,
            };
        }
        if flow >= limit {
            return OpCut {
                bytes: cap,
                before: None,
                finished: true,
            };
        }
        let reach = net.source_side(src);
        let mut set: Vec<bool> = side.iter().map(|&s| s == BEFORE).collect();
        for (i, &u) in free.iter().enumerate() {
            set[u as usize] = reach[i];
        }
        OpCut {
            bytes: paid + flow,
            before: Some(set),
            finished: true,
        }
    }
}

/// A set of ops as bits (op v is bit v % 64 of word v / 64).
pub type Bits = Rc<[u64]>;

/// Whether op `v` is in `bits`.
pub fn has(bits: &[u64], v: OpIx) -> bool {
    bits[v as usize / 64] >> (v % 64) & 1 == 1
}

/// A set of ops given as flags, as [`Bits`].
pub fn to_bits(set: &[bool]) -> Bits {
    let mut w = vec![0u64; set.len().div_ceil(64)];
    for (v, &b) in set.iter().enumerate() {
        if b {
            w[v / 64] |= 1 << (v % 64);
        }
    }
    w.into()
}

/// An op's cut with its minimising downset: known exactly, as long as the downset stays a
/// downset (arcs added later can only rule it out, never lower the cut).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    /// The cut: the least memory while the op runs.
    pub bytes: u64,
    /// The ops of a downset that reaches it.
    pub before: Bits,
}

/// The cut bound of a whole graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CutBound {
    /// A true lower bound on every order's peak (at least the `floor` passed in).
    pub bytes: u64,
    /// The op whose cut gave it (none when the floor was not beaten).
    pub op: Option<OpIx>,
    /// True when every op's cut was either computed or known not to beat the bound.
    pub complete: bool,
    /// Maximum flows computed.
    pub flows: usize,
    /// Up to `keep` (see [`cut_bound`]) of the largest cuts seen, with their downsets.
    pub cuts: Vec<(OpIx, Known)>,
}

/// The largest op cut of `net` (built from `g`, with its extra arcs) and `floor`.
///
/// `upper[v]` is an upper bound on v's cut (memory while v runs in an order that keeps the
/// arcs): ops are taken by it, largest first, and the scan stops once it cannot beat the bound
/// so far, or when `stop()` turns true (checked before each flow). Each minimising downset D
/// found lowers the upper bound of every op that could run right after it (its predecessors in
/// D, itself not) to live(D) plus that op's own outputs and workspace, which often ends the
/// scan early. The scan goes on for at least `keep` cuts (the ops with the largest upper
/// bounds), and the `keep` largest are returned with their downsets.
pub fn cut_bound(
    g: &Graph,
    net: &CutNetwork,
    upper: &[u64],
    floor: u64,
    keep: usize,
    stop: &dyn Fn() -> bool,
) -> CutBound {
    cut_bound_known(
        g,
        net,
        upper,
        &mut vec![None; g.num_ops()],
        floor,
        keep,
        stop,
    )
}

/// [`cut_bound`] with cuts already known (`known[v]`, e.g. from the same graph with fewer
/// arcs, each still valid: its downset is a downset of `net`): those need no flow. Every cut
/// computed is recorded in `known`.
pub fn cut_bound_known(
    g: &Graph,
    net: &CutNetwork,
    upper: &[u64],
    known: &mut [Option<Known>],
    floor: u64,
    keep: usize,
    stop: &dyn Fn() -> bool,
) -> CutBound {
    use std::collections::BinaryHeap;
    let n = g.num_ops();
    let mut ub: Vec<u64> = (0..n)
        .map(|v| known[v].as_ref().map_or(upper[v], |k| k.bytes))
        .collect();
    let mut heap: BinaryHeap<(u64, OpIx)> = (0..n as OpIx).map(|v| (ub[v as usize], v)).collect();
    let mut done = vec![false; n];
    let mut best = CutBound {
        bytes: floor,
        op: None,
        complete: true,
        flows: 0,
        cuts: Vec::new(),
    };
    while let Some((u, v)) = heap.pop() {
        if done[v as usize] || u != ub[v as usize] {
            continue; // stale: its upper bound was lowered since
        }
        if u <= best.bytes && best.cuts.len() >= keep {
            break;
        }
        done[v as usize] = true;
        let k = match &known[v as usize] {
            Some(k) => k.clone(),
            None => {
                if stop() {
                    best.complete = false;
                    break;
                }
                // One byte over the upper bound: the cut stays under the cap, so its downset
                // is known.
                let c = net.during_until(g, v, &[], u.saturating_add(1), stop);
                best.flows += 1;
                if !c.finished {
                    // Given up mid-flow: what has flowed is still at most the cut.
                    best.bytes = best.bytes.max(c.bytes);
                    best.complete = false;
                    break;
                }
                let Some(set) = c.before else {
                    best.bytes = best.bytes.max(c.bytes);
                    continue;
                };
                let live = c.bytes - net.constant_during(g, v) + net.constant;
                for w in 0..n as OpIx {
                    if done[w as usize] || set[w as usize] || known[w as usize].is_some() {
                        continue;
                    }
                    if net.preds(w).iter().all(|&p| set[p as usize]) {
                        let via = live
                            .saturating_add(g.alloc(w))
                            .saturating_add(g.workspace(w));
                        if via < ub[w as usize] {
                            ub[w as usize] = via;
                            heap.push((via, w));
                        }
                    }
                }
                let k = Known {
                    bytes: c.bytes,
                    before: to_bits(&set),
                };
                known[v as usize] = Some(k.clone());
                k
            }
        };
        if k.bytes > best.bytes {
            best.bytes = k.bytes;
            best.op = Some(v);
        }
        if keep > 0 {
            let at = best.cuts.partition_point(|x| x.1.bytes >= k.bytes);
            if at < keep {
                best.cuts.insert(at, (v, k));
                best.cuts.truncate(keep);
            }
        }
    }
    best
}

/// Memory while each op runs in `order` (a topological order of `g`), indexed by op: an upper
/// bound on each op's cut.
pub fn during_in(g: &Graph, order: &[OpIx]) -> Vec<u64> {
    let mut state = crate::simulate::MemState::new(g);
    let mut during = vec![0u64; g.num_ops()];
    for &v in order {
        during[v as usize] = state.run(v).0;
    }
    during
}
