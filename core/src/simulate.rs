//! The memory simulator: the reference implementation of docs/design.md §1.
//!
//! [`MemState`] is the incremental form (run one op at a time) that planners share;
//! [`simulate`] checks an order and reports memory at every step; [`peak_of`] is the fast path
//! for orders already known to be valid.

use serde::Serialize;

use crate::error::Error;
use crate::graph::Graph;
use crate::{OpIx, TensorIx};

/// Memory while an order runs, one op at a time.
#[derive(Clone, Debug)]
pub struct MemState<'g> {
    g: &'g Graph,
    remaining: Vec<u32>,
    live: u64,
}

impl<'g> MemState<'g> {
    /// The state at the start: every graph input live.
    pub fn new(g: &'g Graph) -> Self {
        let remaining = (0..g.num_tensors() as u32)
            .map(|s| g.users(s).len() as u32)
            .collect();
        MemState {
            g,
            remaining,
            live: g.inputs_bytes(),
        }
    }

    /// Bytes live now (between ops).
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Users of storage `s` that have not run yet.
    pub fn remaining_users(&self, s: TensorIx) -> u32 {
        self.remaining[s as usize]
    }

    /// Memory while `v` runs if it runs next.
    pub fn during(&self, v: OpIx) -> u64 {
        self.live + self.g.alloc(v) + self.g.workspace(v)
    }

    /// Bytes that running `v` next would free.
    pub fn frees(&self, v: OpIx) -> u64 {
        let g = self.g;
        let mut freed = 0;
        for &s in g.reads(v) {
            if self.remaining[s as usize] == 1 && !g.pinned(s) {
                freed += g.size(s);
            }
        }
        for &s in g.creates(v) {
            if g.users(s).is_empty() && !g.pinned(s) {
                freed += g.size(s);
            }
        }
        freed
    }

    /// Runs `v` (the caller guarantees its predecessors ran); returns (during, after).
    pub fn run(&mut self, v: OpIx) -> (u64, u64) {
        let g = self.g;
        let during = self.during(v);
        crate::work::add(1 + (g.reads(v).len() + g.creates(v).len()) as u64);
        self.live += g.alloc(v);
        for &s in g.reads(v) {
            let r = &mut self.remaining[s as usize];
            *r -= 1;
            if *r == 0 && !g.pinned(s) {
                self.live -= g.size(s);
            }
        }
        for &s in g.creates(v) {
            if g.users(s).is_empty() && !g.pinned(s) {
                self.live -= g.size(s);
            }
        }
        (during, self.live)
    }
}

/// Memory around one op of an order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The op's index.
    #[serde(skip)]
    pub op_ix: OpIx,
    /// The op's id.
    pub op: String,
    /// Memory while the op runs: live + its outputs + its workspace.
    pub during_bytes: u64,
    /// Memory after it ran and freed what it could.
    pub after_bytes: u64,
}

/// The result of simulating an order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Simulation {
    /// The highest memory at the start or during any op.
    pub peak_bytes: u64,
    /// Memory at the start (every graph input).
    pub inputs_bytes: u64,
    /// Index in `steps` of the first step that reaches the peak; `None` when the peak is the
    /// start memory and no op exceeds it.
    pub peak_step: Option<usize>,
    /// Tensors (storage owners) live at the peak, the running op's outputs included.
    pub live_at_peak: Vec<String>,
    /// One entry per op, in order.
    pub steps: Vec<Step>,
}

/// Simulates `order`, which must be a complete topological order of `g`: memory during and
/// after every step (docs/design.md §1), the peak, and what is live at the peak.
///
/// ```
/// use peakorder::{simulate, Graph};
///
/// let g = Graph::from_json(r#"{
///   "tensors": [{"id": "x", "bytes": 100}, {"id": "y", "bytes": 40}, {"id": "z", "bytes": 10}],
///   "ops": [{"id": "f", "inputs": ["x"], "outputs": ["y"], "workspace": 20},
///           {"id": "g", "inputs": ["y"], "outputs": ["z"]}],
///   "outputs": ["z"]
/// }"#).unwrap();
/// let order = g.order_from_ids(&["f", "g"]).unwrap();
/// let s = simulate(&g, &order).unwrap();
/// // x is a graph input the caller owns (not `donated`): it stays live to the end.
/// assert_eq!(s.steps[0].during_bytes, 100 + 40 + 20); // input, output, workspace
/// assert_eq!(s.steps[0].after_bytes, 100 + 40);
/// assert_eq!(s.steps[1].during_bytes, 100 + 40 + 10);
/// assert_eq!(s.steps[1].after_bytes, 100 + 10); // y freed after its last reader
/// assert_eq!((s.peak_bytes, s.peak_step), (160, Some(0)));
/// assert_eq!(s.live_at_peak, ["x", "y"]);
///
/// // An order that breaks a dependency is an error naming the ops, never a wrong answer.
/// assert_eq!(simulate(&g, &[1, 0]).unwrap_err().code(), "not_topological");
/// ```
pub fn simulate(g: &Graph, order: &[OpIx]) -> Result<Simulation, Error> {
    g.check_order(order)?;
    let mut state = MemState::new(g);
    let mut steps = Vec::with_capacity(order.len());
    let mut peak = g.inputs_bytes();
    let mut peak_step = None;
    for (i, &v) in order.iter().enumerate() {
        let (during, after) = state.run(v);
        if during > peak {
            peak = during;
            peak_step = Some(i);
        }
        steps.push(Step {
            op_ix: v,
            op: g.ops()[v as usize].id.clone(),
            during_bytes: during,
            after_bytes: after,
        });
    }
    let live_at_peak = live_set_at(g, order, peak_step)
        .into_iter()
        .map(|t| g.tensors()[t as usize].id.clone())
        .collect();
    Ok(Simulation {
        peak_bytes: peak,
        inputs_bytes: g.inputs_bytes(),
        peak_step,
        live_at_peak,
        steps,
    })
}

/// Storages live while step `at` runs (or at the start for `None`), in tensor order.
fn live_set_at(g: &Graph, order: &[OpIx], at: Option<usize>) -> Vec<TensorIx> {
    let mut live = vec![false; g.num_tensors()];
    for s in g.input_storages() {
        live[s as usize] = true;
    }
    let mut remaining: Vec<u32> = (0..g.num_tensors() as u32)
        .map(|s| g.users(s).len() as u32)
        .collect();
    if let Some(at) = at {
        for &v in &order[..at] {
            for &s in g.creates(v) {
                live[s as usize] = !g.users(s).is_empty() || g.pinned(s);
            }
            for &s in g.reads(v) {
                remaining[s as usize] -= 1;
                if remaining[s as usize] == 0 && !g.pinned(s) {
                    live[s as usize] = false;
                }
            }
        }
        for &s in g.creates(order[at]) {
            live[s as usize] = true;
        }
    }
    (0..g.num_tensors() as u32)
        .filter(|&s| live[s as usize] && g.size(s) > 0)
        .collect()
}

/// Peak of an order already known to be valid (no checks, no allocation per step).
pub fn peak_of(g: &Graph, order: &[OpIx]) -> u64 {
    let mut state = MemState::new(g);
    let mut peak = g.inputs_bytes();
    for &v in order {
        peak = peak.max(state.run(v).0);
    }
    peak
}

/// Checks `order` as [`Graph::check_order`] does and returns its peak as [`peak_of`] does, in
/// one pass over the graph: what `plan` pays for re-checking every order it returns (on a
/// 100,000-op graph a pass costs milliseconds, and a 1 ms budget has room for about one).
/// The same errors as [`Graph::check_order`]: on a failure the slow check names the op.
pub fn checked_peak(g: &Graph, order: &[OpIx]) -> Result<u64, Error> {
    match fast_checked_peak(g, order) {
        Some(peak) => Ok(peak),
        None => {
            g.check_order(order)?;
            // The fast pass refused an order the full check accepts: cannot happen, but the
            // full check is the reference, so its verdict stands.
            Ok(peak_of(g, order))
        }
    }
}

/// The one pass of [`checked_peak`]: `None` when `order` is not a complete topological order.
/// One scratch allocation (users left per storage, then one bit per op run): with a heap full
/// of small freed blocks, as after parsing a large graph, each large allocation can cost as
/// much as the pass itself.
fn fast_checked_peak(g: &Graph, order: &[OpIx]) -> Option<u64> {
    let (n, t) = (g.num_ops(), g.num_tensors());
    if order.len() != n {
        return None;
    }
    let mut scratch: Vec<u32> = Vec::with_capacity(t + n / 32 + 1);
    scratch.extend((0..t as u32).map(|s| g.users(s).len() as u32));
    scratch.resize(t + n / 32 + 1, 0);
    let (remaining, done) = scratch.split_at_mut(t);
    let is_done = |done: &[u32], v: OpIx| done[v as usize / 32] & (1 << (v % 32)) != 0;
    let mut live = g.inputs_bytes();
    let mut peak = live;
    for &v in order {
        if v as usize >= n || is_done(done, v) || g.preds(v).iter().any(|&p| !is_done(done, p)) {
            return None;
        }
        done[v as usize / 32] |= 1 << (v % 32);
        let alloc = g.alloc(v);
        peak = peak.max(live + alloc + g.workspace(v));
        live += alloc;
        // A storage's readers all run after its producer: one with no users left when it is
        // created is freed at once, as `MemState::run` frees it.
        for &s in g.reads(v) {
            let r = &mut remaining[s as usize];
            *r -= 1;
            if *r == 0 && !g.pinned(s) {
                live -= g.size(s);
            }
        }
        for &s in g.creates(v) {
            if remaining[s as usize] == 0 && !g.pinned(s) {
                live -= g.size(s);
            }
        }
    }
    Some(peak)
}
