//! Exact recompute search for small graphs: the schedule within a limit whose repeated runs
//! cost least ([`search`]), and the least peak of any schedule ([`least`]), both proven.
//!
//! A schedule (docs/design.md §1, "Recomputation") is a walk over *states*: the ops run at
//! least once, the storages live, and the view links current (a view is current when its
//! producer ran after its base's latest run). One step runs an op whose read storages are
//! live, whose input views (and the bases of the views it makes) are current, and whose
//! outputs' old instances are gone; then it frees any of the storages it touched (read or
//! made). The simulator frees only after a step, and only storages that step touched, so
//! every schedule is such a walk (free what the simulator frees); and since the simulator
//! frees each instance no later than a walk can, a walk's schedule re-simulates to a peak at
//! most the walk's. What the rest of a schedule may do depends on the state alone, so a best
//! path is an optimal schedule. This is the problem Checkmate solves as an MILP (Jain et al.,
//! "Checkmate: Breaking the Memory Wall with Optimal Tensor Rematerialization", MLSys 2020),
//! solved here by search:
//!
//! - [`search`] is A* (Hart, Nilsson and Raphael, "A Formal Basis for the Heuristic
//!   Determination of Minimum Cost Paths", IEEE Trans. SSC 1968) on added cost over the walks
//!   whose every step stays within the limit. The heuristic sums the cost of the ops that
//!   must run again (a storage or view still needed is gone and its producer has run); one
//!   step removes at most the op it runs from that set, so the heuristic is consistent.
//! - [`least`] searches the same states for the least bottleneck (the largest memory along the
//!   walk: Dijkstra's algorithm with `max` in place of `+`), bounded below by what each op
//!   still to run (or that must run again) needs while it runs.
//!
//! Caps (the states are bitsets): [`MAX_OPS`] ops, [`MAX_SLOTS`] storages that can be freed
//! (made by an op, or donated inputs), [`MAX_LINKS`] view links. Larger graphs get
//! [`Outcome::Unknown`] / `None`; the planner calls this on at most 16 ops.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hashbrown::HashTable;

use super::schedule::{added_cost, checked_schedule_peak};
use super::{Found, Least, Outcome};
use crate::budget::Budget;
use crate::graph::Graph;
use crate::OpIx;

/// Most ops a graph may have (the ops-run bitset is a `u32`).
pub const MAX_OPS: usize = 32;
/// Most storages that can be freed (the live bitset is a `u64`).
pub const MAX_SLOTS: usize = 64;
/// Most view links: views whose producer differs from their base's (a `u32`).
pub const MAX_LINKS: usize = 32;

/// Expansions between clock reads (an expansion of a 20-op state takes up to tens of µs).
const CHECK_EVERY: u64 = 64;
/// No parent / no op (the start state).
const NIL: u32 = u32::MAX;

/// The graph as bitsets over ops, freeable storages ("slots") and view links.
struct Model {
    n: usize,
    /// Every op.
    all: u32,
    /// Ops that may run more than once.
    recomputable: u32,
    preds: Vec<u32>,
    /// Slots each op reads (storages that are never freed are left out: always live).
    reads: Vec<u64>,
    /// Slots each op makes.
    creates: Vec<u64>,
    /// Links each op needs current: along the alias chains of its inputs and of the bases of
    /// the views it makes.
    need_cur: Vec<u32>,
    /// Links each op makes current (it produces the view) or stale (it produces the base).
    sets_cur: Vec<u32>,
    clears_cur: Vec<u32>,
    /// Bytes each op allocates plus its workspace.
    extra: Vec<u64>,
    cost: Vec<f64>,
    /// Least memory while each op runs: never-freed bytes, its reads, its outputs, workspace.
    floor: Vec<u64>,
    size: Vec<u64>,
    /// Each slot's producer; `None` for a donated input.
    producer: Vec<Option<u8>>,
    /// Ops reading each slot.
    users: Vec<u32>,
    /// Slots holding graph outputs (their last instance lives to the end).
    outputs: u64,
    /// Every slot.
    slots: u64,
    /// Each link's view producer, and the ops that need it current.
    link_op: Vec<u8>,
    link_users: Vec<u32>,
    /// Links the graph outputs need current at the end.
    goal_cur: u32,
    /// Bytes never freed (graph inputs the caller owns).
    fixed: u64,
    start_live: u64,
    /// Most of the start's and the end's memory: every schedule's peak is at least this.
    base_floor: u64,
}

/// (ops run, storages live, links current), packed.
type Key = u128;

#[inline]
fn pack(ran: u32, live: u64, cur: u32) -> Key {
    u128::from(ran) | u128::from(live) << 32 | u128::from(cur) << 96
}
#[inline]
fn unpack(k: Key) -> (u32, u64, u32) {
    (k as u32, (k >> 32) as u64, (k >> 96) as u32)
}

/// Iterates the set bits of a mask.
#[inline]
fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            b
        })
    })
}

impl Model {
    /// `None` when the graph exceeds the caps.
    fn new(g: &Graph) -> Option<Model> {
        let n = g.num_ops();
        if n > MAX_OPS {
            return None;
        }
        let tensors = g.tensors();
        let t = g.num_tensors();
        // Slots: every storage root except graph inputs that are never freed.
        let mut slot_of = vec![None::<u8>; t];
        let mut size = Vec::new();
        let mut producer = Vec::new();
        let mut fixed = 0u64;
        let mut start_live = 0u64;
        for s in 0..t {
            let ten = &tensors[s];
            if ten.alias_of.is_some() {
                continue;
            }
            if ten.producer.is_none() && g.pinned(s as u32) {
                fixed += g.size(s as u32);
                continue;
            }
            if size.len() == MAX_SLOTS {
                return None;
            }
            let k = size.len();
            slot_of[s] = Some(k as u8);
            size.push(g.size(s as u32));
            producer.push(ten.producer.map(|p| p as u8));
            if ten.producer.is_none() {
                start_live |= 1 << k;
            }
        }
        let mask_of = |ts: &[u32]| -> u64 {
            ts.iter()
                .filter_map(|&s| slot_of[s as usize])
                .fold(0, |m, k| m | 1 << k)
        };
        let users: Vec<u32> = (0..t)
            .filter(|&s| slot_of[s].is_some())
            .map(|s| g.users(s as u32).iter().fold(0, |m, &v| m | 1 << v))
            .collect();
        let outputs = (0..t)
            .filter_map(|s| slot_of[s].filter(|_| g.pinned(s as u32)))
            .fold(0u64, |m, k| m | 1 << k);

        // Links: a view whose producer and its base's producer both exist and differ (the
        // stale-view rule of `check_schedule`).
        let mut link_of = vec![None::<u8>; t];
        let mut link_op = Vec::new();
        let mut link_base_op = Vec::new();
        for (i, ten) in tensors.iter().enumerate() {
            let Some(a) = ten.alias_of else { continue };
            if let (Some(p), Some(q)) = (ten.producer, tensors[a as usize].producer) {
                if p != q {
                    if link_op.len() == MAX_LINKS {
                        return None;
                    }
                    link_of[i] = Some(link_op.len() as u8);
                    link_op.push(p as u8);
                    link_base_op.push(q);
                }
            }
        }
        // The links along the alias chain from `x` up (chains are acyclic: validated).
        let chain = |mut x: u32| -> u32 {
            let mut m = 0u32;
            loop {
                if let Some(l) = link_of[x as usize] {
                    m |= 1 << l;
                }
                match tensors[x as usize].alias_of {
                    Some(a) => x = a,
                    None => return m,
                }
            }
        };
        let ops = g.ops();
        let mut need_cur = vec![0u32; n];
        for (v, op) in ops.iter().enumerate() {
            for &x in &op.inputs {
                need_cur[v] |= chain(x);
            }
            for &o in &op.outputs {
                if let Some(a) = tensors[o as usize].alias_of {
                    need_cur[v] |= chain(a);
                }
            }
        }
        let mut sets_cur = vec![0u32; n];
        let mut clears_cur = vec![0u32; n];
        let mut link_users = vec![0u32; link_op.len()];
        for l in 0..link_op.len() {
            sets_cur[link_op[l] as usize] |= 1 << l;
            clears_cur[link_base_op[l] as usize] |= 1 << l;
            link_users[l] = (0..n)
                .filter(|&v| need_cur[v] >> l & 1 == 1)
                .fold(0, |m, v| m | 1 << v);
        }
        // A view an op makes of a view it makes itself is current with it.
        for v in 0..n {
            need_cur[v] &= !sets_cur[v];
        }
        let goal_cur = g.outputs().iter().fold(0, |m, &x| m | chain(x));

        let weight = |m: u64| bits(m).map(|k| size[k]).sum::<u64>();
        let reads: Vec<u64> = (0..n as u32).map(|v| mask_of(g.reads(v))).collect();
        let creates: Vec<u64> = (0..n as u32).map(|v| mask_of(g.creates(v))).collect();
        let extra: Vec<u64> = (0..n as u32).map(|v| g.alloc(v) + g.workspace(v)).collect();
        let floor = (0..n)
            .map(|v| fixed + weight(reads[v]) + extra[v])
            .collect();
        let base_floor = g.inputs_bytes().max(fixed + weight(outputs));
        Some(Model {
            n,
            all: if n == 32 { u32::MAX } else { (1u32 << n) - 1 },
            recomputable: (0..n)
                .filter(|&v| ops[v].recompute)
                .fold(0, |m, v| m | 1 << v),
            preds: (0..n as u32)
                .map(|v| g.preds(v).iter().fold(0, |m, &p| m | 1 << p))
                .collect(),
            reads,
            creates,
            need_cur,
            sets_cur,
            clears_cur,
            extra,
            cost: ops.iter().map(|o| o.cost).collect(),
            floor,
            slots: if size.len() == 64 {
                u64::MAX
            } else {
                (1u64 << size.len()) - 1
            },
            size,
            producer,
            users,
            outputs,
            link_op,
            link_users,
            goal_cur,
            fixed,
            start_live,
            base_floor,
        })
    }

    /// Bytes live in a state.
    fn bytes(&self, live: u64) -> u64 {
        self.fixed + bits(live).map(|s| self.size[s]).sum::<u64>()
    }

    fn start(&self) -> Key {
        pack(0, self.start_live, 0)
    }

    fn is_goal(&self, k: Key) -> bool {
        let (ran, live, cur) = unpack(k);
        ran == self.all && self.outputs & !live == 0 && self.goal_cur & !cur == 0
    }

    /// The least peak of any schedule (as `least_peak_bound`).
    fn bound(&self) -> u64 {
        self.floor.iter().copied().fold(self.base_floor, u64::max)
    }

    /// The ops that must run again from this state: a storage still needed (by an op yet to
    /// run, or as a graph output) is gone, or a view still needed is stale, and its producer
    /// has run. `None` when one of them cannot run again (the state is a dead end).
    fn must(&self, k: Key) -> Option<u32> {
        let (ran, live, cur) = unpack(k);
        let unrun = self.all & !ran;
        let mut must = 0u32;
        for s in bits(self.slots & !live) {
            if self.outputs >> s & 1 == 1 || self.users[s] & unrun != 0 {
                let p = self.producer[s]?;
                if ran >> p & 1 == 1 {
                    if self.recomputable >> p & 1 == 0 {
                        return None;
                    }
                    must |= 1 << p;
                }
            }
        }
        let links = if self.link_op.len() == 32 {
            u32::MAX
        } else {
            (1u32 << self.link_op.len()) - 1
        };
        for l in bits(u64::from(links & !cur)) {
            if self.goal_cur >> l & 1 == 1 || self.link_users[l] & unrun != 0 {
                let p = self.link_op[l];
                if ran >> p & 1 == 1 {
                    if self.recomputable >> p & 1 == 0 {
                        return None;
                    }
                    must |= 1 << p;
                }
            }
        }
        Some(must)
    }

    fn h_cost(&self, must: u32) -> f64 {
        bits(u64::from(must)).map(|v| self.cost[v]).sum()
    }

    /// A lower bound on the peak of every completion: each op still to run, and each that
    /// must run again, needs its floor while it runs.
    fn h_peak(&self, k: Key, must: u32) -> u64 {
        let (ran, _, _) = unpack(k);
        bits(u64::from((self.all & !ran) | must))
            .map(|v| self.floor[v])
            .fold(self.base_floor, u64::max)
    }

    /// Calls `emit(op, memory while it runs, added cost, next state)` for every step from `k`
    /// whose memory while it runs is at most `limit`.
    fn expand(&self, k: Key, limit: u64, mut emit: impl FnMut(u8, u64, f64, Key)) {
        let (ran, live, cur) = unpack(k);
        let bytes = self.bytes(live);
        for v in 0..self.n {
            let bit = 1u32 << v;
            let again = ran & bit != 0;
            if again {
                if self.recomputable & bit == 0 {
                    continue;
                }
            } else if self.preds[v] & !ran != 0 {
                continue;
            }
            if self.reads[v] & !live != 0
                || self.need_cur[v] & !cur != 0
                || self.creates[v] & live != 0
            {
                continue;
            }
            let during = bytes + self.extra[v];
            if during > limit {
                continue;
            }
            let cost = if again { self.cost[v] } else { 0.0 };
            let ran2 = ran | bit;
            let cur2 = (cur & !self.clears_cur[v]) | self.sets_cur[v];
            let live2 = live | self.creates[v];
            // Of what it touched, free for certain what no op can read again (not a graph
            // output; every reader has run and may not run again), and either way the rest.
            let may_run = (!ran2 | self.recomputable) & self.all;
            let mut dead = 0u64;
            let touched = self.reads[v] | self.creates[v];
            for s in bits(touched) {
                if self.outputs >> s & 1 == 0 && self.users[s] & may_run == 0 {
                    dead |= 1 << s;
                }
            }
            let optional = touched & !dead;
            let kept = live2 & !dead;
            // A run again that keeps none of what it makes and makes no view current is
            // useless: without it, every storage it read is freed no later, nothing is stale
            // that was not, and the cost is less.
            let may_be_useless = again && self.sets_cur[v] & !cur == 0;
            let mut sub = optional;
            loop {
                let next = kept & !sub;
                if !may_be_useless || next & self.creates[v] != 0 {
                    emit(v as u8, during, cost, pack(ran2, next, cur2));
                }
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & optional;
            }
        }
    }
}

/// A state reached: its key, the best value of a path to it (cost bits or peak), and how.
#[derive(Clone, Copy)]
struct Node {
    key: Key,
    val: u64,
    parent: u32,
    /// Steps on that path (a tie-break: shorter schedules first).
    steps: u16,
    op: u8,
}

/// The states reached, deduplicated, with the work spent on them.
struct Table<'b, 'a> {
    nodes: Vec<Node>,
    index: HashTable<u32>,
    expanded: u64,
    budget: &'b Budget<'a>,
}

/// An open state, largest first: the least priority (the A* `f`, or the bottleneck key), then
/// the most ops run, the fewest bytes live and the fewest steps (to dive towards a goal
/// among ties); `val` is the path's value when pushed (a later, better path makes it stale).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Open {
    prio: Reverse<u64>,
    ran: u32,
    bytes: Reverse<u64>,
    steps: Reverse<u16>,
    val: u64,
    node: u32,
}

impl Open {
    fn new(m: &Model, t: &Table, prio: u64, node: u32) -> Open {
        let n = t.nodes[node as usize];
        let (ran, live, _) = unpack(n.key);
        Open {
            prio: Reverse(prio),
            ran: ran.count_ones(),
            bytes: Reverse(m.bytes(live)),
            steps: Reverse(n.steps),
            val: n.val,
            node,
        }
    }
}

/// A non-negative cost as bits that order as the numbers do (`-0.0`, which a cost may be and
/// a sum of none is, becomes `0.0`).
#[inline]
fn order_bits(x: f64) -> u64 {
    (x + 0.0).to_bits()
}

#[inline]
fn hash(k: Key) -> u64 {
    let x = (k as u64) ^ ((k >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let x = (x ^ (x >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^ (x >> 29)
}

impl<'b, 'a> Table<'b, 'a> {
    fn new(budget: &'b Budget<'a>) -> Self {
        Table {
            nodes: Vec::new(),
            index: HashTable::new(),
            expanded: 0,
            budget,
        }
    }

    /// Records a path to `key` of value `val`; the node's index when it is new or improved.
    fn offer(&mut self, key: Key, val: u64, parent: u32, op: u8) -> Option<u32> {
        let steps = if parent == NIL {
            0
        } else {
            self.nodes[parent as usize].steps.saturating_add(1)
        };
        let nodes = &mut self.nodes;
        let h = hash(key);
        if let Some(&i) = self.index.find(h, |&i| nodes[i as usize].key == key) {
            let n = &mut nodes[i as usize];
            if val < n.val {
                *n = Node {
                    key,
                    val,
                    parent,
                    steps,
                    op,
                };
                return Some(i);
            }
            return None;
        }
        let i = nodes.len() as u32;
        nodes.push(Node {
            key,
            val,
            parent,
            steps,
            op,
        });
        self.index
            .insert_unique(h, i, |&j| hash(nodes[j as usize].key));
        Some(i)
    }

    /// Counts one expansion; true when the budget is spent.
    fn spent(&mut self, open: usize) -> bool {
        self.expanded += 1;
        let bytes = self.nodes.len() as u64 * (std::mem::size_of::<Node>() as u64 + 8)
            + open as u64 * std::mem::size_of::<Open>() as u64;
        self.expanded > self.budget.max_states
            || bytes > self.budget.max_memory_bytes
            || (self.expanded % CHECK_EVERY == 1 && self.budget.expired())
    }

    /// The ops along the best path to node `i`.
    fn path(&self, mut i: u32) -> Vec<OpIx> {
        let mut ops = Vec::new();
        while self.nodes[i as usize].parent != NIL {
            ops.push(OpIx::from(self.nodes[i as usize].op));
            i = self.nodes[i as usize].parent;
        }
        ops.reverse();
        ops
    }
}

/// The schedule within `limit` (peak as [`super::schedule::simulate_schedule`] counts, inputs
/// included) whose repeated runs cost least, proven: [`Outcome::Found`] with `cost_bound`
/// equal to its added cost; [`Outcome::Infeasible`] when no schedule is within the limit;
/// [`Outcome::Unknown`] when the budget ran out or the graph exceeds the caps.
///
/// ```
/// use peakorder::recompute::{exact, Outcome};
/// use peakorder::{Budget, Graph, NoClock};
/// // B and C both read `a`; C's workspace leaves no room for `a`, so `a` is made again.
/// let g = Graph::from_json(r#"{
///   "tensors": [{"id": "x", "bytes": 1}, {"id": "a", "bytes": 100}, {"id": "b", "bytes": 10},
///               {"id": "c", "bytes": 10}, {"id": "d", "bytes": 1}],
///   "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"], "cost": 3},
///           {"id": "B", "inputs": ["a"], "outputs": ["b"]},
///           {"id": "C", "inputs": ["b"], "outputs": ["c"], "workspace": 100},
///           {"id": "D", "inputs": ["a", "c"], "outputs": ["d"]}],
///   "outputs": ["d"]
/// }"#).unwrap();
/// let Outcome::Found(f) = exact::search(&g, 121, &Budget::new(&NoClock, None, 100_000)) else {
///     panic!()
/// };
/// assert_eq!(g.op_ids(&f.schedule), ["A", "B", "C", "A", "D"]);
/// assert_eq!((f.added_cost, f.cost_bound), (3.0, 3.0));
/// ```
pub fn search(g: &Graph, limit: u64, budget: &Budget) -> Outcome {
    let Some(m) = Model::new(g) else {
        return Outcome::Unknown;
    };
    if limit < m.bound() {
        return Outcome::Infeasible { least: None };
    }
    let mut t = Table::new(budget);
    let mut open: BinaryHeap<Open> = BinaryHeap::new();
    let start = m.start();
    let Some(must) = m.must(start) else {
        return Outcome::Infeasible { least: None };
    };
    t.offer(start, order_bits(0.0), NIL, 0);
    open.push(Open::new(&m, &t, order_bits(m.h_cost(must)), 0));
    while let Some(e) = open.pop() {
        let i = e.node;
        let node = t.nodes[i as usize];
        if e.val != node.val {
            continue; // a better path to it was found since
        }
        if t.spent(open.len()) {
            return Outcome::Unknown;
        }
        if m.is_goal(node.key) {
            // The heuristic is consistent: the first goal popped is the optimum.
            let proven = f64::from_bits(node.val);
            let schedule = t.path(i);
            return match checked_schedule_peak(g, &schedule) {
                Ok(p) if p <= limit => {
                    let added = added_cost(g, &schedule);
                    Outcome::Found(Found {
                        schedule,
                        added_cost: added,
                        cost_bound: proven.min(added),
                    })
                }
                // The model and the simulator disagree: a bug, never a wrong answer.
                _ => {
                    debug_assert!(false, "exact recompute schedule failed its re-check");
                    Outcome::Unknown
                }
            };
        }
        let g0 = f64::from_bits(node.val);
        m.expand(node.key, limit, |op, _, c, k| {
            let Some(must) = m.must(k) else { return };
            let g1 = g0 + c;
            if let Some(j) = t.offer(k, order_bits(g1), i, op) {
                let f1 = g1 + m.h_cost(must);
                open.push(Open::new(&m, &t, order_bits(f1), j));
            }
        });
    }
    Outcome::Infeasible { least: None }
}

/// The least peak of any schedule (unlimited recomputation), proven: `bound` equals `peak`.
/// `None` when the budget ran out or the graph exceeds the caps.
///
/// A planned order is the incumbent: the search looks only below its peak, so when no
/// schedule beats the best order (most graphs) it proves that without wading through the
/// schedules that tie with it.
pub fn least(g: &Graph, budget: &Budget) -> Option<Least> {
    let m = Model::new(g)?;
    // The best order the order planner finds in a fifth of the time (on graphs this small,
    // usually the optimum), and the greedy order when that one is worse.
    let planned = crate::order::auto::auto_order(g, &budget.share(0.2, budget.max_states)).order;
    let (order, incumbent) = [planned, crate::order::greedy::greedy_order(g)]
        .into_iter()
        .filter_map(|o| checked_schedule_peak(g, &o).ok().map(|p| (o, p)))
        .min_by_key(|x| x.1)
        .map_or((Vec::new(), None), |(o, p)| (o, Some(p)));
    let mut t = Table::new(budget);
    let mut open: BinaryHeap<Open> = BinaryHeap::new();
    let start = m.start();
    let must = m.must(start)?;
    let p0 = m.h_peak(start, must);
    let below = incumbent.map_or(u64::MAX, |u| u.saturating_sub(1));
    let done = || {
        // Nothing is below the incumbent: it is the least.
        incumbent.map(|p| Least {
            schedule: order.clone(),
            peak: p,
            bound: p,
        })
    };
    if incumbent == Some(m.bound()) {
        return done();
    }
    t.offer(start, p0, NIL, 0);
    open.push(Open::new(&m, &t, p0, 0));
    while let Some(e) = open.pop() {
        let i = e.node;
        let node = t.nodes[i as usize];
        if e.val != node.val {
            continue;
        }
        if t.spent(open.len()) {
            return None;
        }
        // A path's value is its peak or its state's bound, whichever is more (see below).
        let peak = node.val;
        if m.is_goal(node.key) {
            let schedule = t.path(i);
            return match checked_schedule_peak(g, &schedule) {
                // No walk is below `peak`, and the simulator's peak is at most the walk's.
                Ok(p) if p <= peak => Some(Least {
                    schedule,
                    peak: p,
                    bound: peak.min(p),
                }),
                _ => {
                    debug_assert!(false, "exact least schedule failed its re-check");
                    None
                }
            };
        }
        m.expand(node.key, below, |op, during, _, k| {
            let Some(must) = m.must(k) else { return };
            // A path with a lower peak under the same bound leads to the same values
            // everywhere after (the bound never exceeds the next step's memory or the next
            // state's bound), so with the bound folded in each state is expanded once.
            let val = peak.max(during).max(m.h_peak(k, must));
            if val > below {
                return;
            }
            if let Some(j) = t.offer(k, val, i, op) {
                open.push(Open::new(&m, &t, val, j));
            }
        });
    }
    // No schedule below the incumbent (or none at all, when no order passes the checker).
    done()
}
