//! Schedules: orders in which an op may run more than once (docs/design.md §1, "Recomputation").
//!
//! Running an op again allocates its outputs again and needs its inputs live. Each storage is
//! freed after its last use before its producer's next run (or right after it is made, when
//! nothing reads it before then), exactly as an order frees it otherwise; a pinned storage's
//! last instance stays to the end. A view must be made again after its storage is: views are
//! recomputed with their storage.
//!
//! [`simulate_schedule`] is the reference implementation: every recompute planner's schedule is
//! re-checked by it, and on a schedule without repeats it agrees with [`crate::simulate()`].

use crate::error::Error;
use crate::graph::Graph;
use crate::simulate::{Simulation, Step};
use crate::{OpIx, TensorIx};

// Defined here, not in `graph`, so that the graph does not import the schedule back.
impl Graph {
    /// Resolves a schedule given as op ids (an op may repeat: docs/design.md §1,
    /// "Recomputation"), checking it as [`check_schedule`] does.
    pub fn schedule_from_ids<S: AsRef<str>>(&self, ids: &[S]) -> Result<Vec<OpIx>, Error> {
        let mut schedule = Vec::with_capacity(ids.len());
        for id in ids {
            let id = id.as_ref();
            schedule.push(
                self.op_ix(id)
                    .ok_or_else(|| Error::UnknownOp { op: id.to_string() })?,
            );
        }
        check_schedule(self, &schedule)?;
        Ok(schedule)
    }
}

/// Which storages each step of a schedule frees: `free_after[i]` lists the storages freed
/// right after step `i` (its reads whose last use it is, and its outputs nothing reads before
/// they are made again).
#[derive(Clone, Debug, Default)]
pub struct Frees {
    offsets: Vec<u32>,
    storages: Vec<TensorIx>,
}

impl Frees {
    /// Storages freed right after step `i`.
    pub fn after(&self, i: usize) -> &[TensorIx] {
        &self.storages[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// The frees of a schedule (which must name valid op indices), by one backward pass: a
/// storage read at step `i` is freed after `i` when no later step reads it before its
/// producer runs again, unless that instance is pinned (a graph input the caller owns, or a
/// graph output's last instance).
pub fn frees_of(g: &Graph, schedule: &[OpIx]) -> Frees {
    let t = g.num_tensors();
    // Per storage: a read seen after the current step and before the next make; a make seen
    // after the current step.
    let mut read_later = vec![false; t];
    let mut made_later = vec![false; t];
    let mut rev_offsets = Vec::with_capacity(schedule.len() + 1);
    let mut rev: Vec<TensorIx> = Vec::new();
    rev_offsets.push(0u32);
    let mut freed_here: Vec<TensorIx> = Vec::new();
    for &v in schedule.iter().rev() {
        freed_here.clear();
        for &s in g.reads(v) {
            let keep = g.pinned(s) && !made_later[s as usize];
            if !read_later[s as usize] && !keep {
                freed_here.push(s);
            }
        }
        for &s in g.creates(v) {
            let keep = g.pinned(s) && !made_later[s as usize];
            if !read_later[s as usize] && !keep {
                freed_here.push(s);
            }
        }
        for &s in g.reads(v) {
            read_later[s as usize] = true;
        }
        for &s in g.creates(v) {
            read_later[s as usize] = false;
            made_later[s as usize] = true;
        }
        rev.extend_from_slice(&freed_here);
        rev_offsets.push(rev.len() as u32);
    }
    // Reverse the rows into schedule order.
    let n = schedule.len();
    let mut offsets = Vec::with_capacity(n + 1);
    let mut storages = Vec::with_capacity(rev.len());
    offsets.push(0u32);
    for k in (0..n).rev() {
        storages.extend_from_slice(&rev[rev_offsets[k] as usize..rev_offsets[k + 1] as usize]);
        offsets.push(storages.len() as u32);
    }
    Frees { offsets, storages }
}

/// Checks a schedule: every op index known, every op run at least once, each run after a run
/// of each of its predecessors, no `recompute: false` op run twice, and every view read (or
/// left as a graph output) made after its storage's latest run. The error names the op.
pub fn check_schedule(g: &Graph, schedule: &[OpIx]) -> Result<(), Error> {
    let n = g.num_ops();
    let tensors = g.tensors();
    let ops = g.ops();
    let mut runs = vec![0u32; n];
    // Step at which each op last ran (u32::MAX: not yet).
    let mut last = vec![u32::MAX; n];
    // A view is current when its producer ran after the producer of the tensor it aliases, and
    // that one is current in turn (chains are short; walked iteratively).
    let stale = |t: TensorIx, last: &[u32]| -> Option<(TensorIx, TensorIx)> {
        let mut t = t;
        while let Some(a) = tensors[t as usize].alias_of {
            let mine = tensors[t as usize].producer.map(|p| last[p as usize]);
            let base = tensors[a as usize].producer.map(|p| last[p as usize]);
            if let (Some(mine), Some(base)) = (mine, base) {
                if base != u32::MAX && (mine == u32::MAX || base > mine) {
                    return Some((t, a));
                }
            }
            t = a;
        }
        None
    };
    for (i, &v) in schedule.iter().enumerate() {
        if v as usize >= n {
            return Err(Error::UnknownOp {
                op: format!("#{v}"),
            });
        }
        if runs[v as usize] == 0 {
            if let Some(&p) = g.preds(v).iter().find(|&&p| runs[p as usize] == 0) {
                return Err(g.not_topological(v, p));
            }
        } else if !ops[v as usize].recompute {
            let total = schedule.iter().filter(|&&u| u == v).count();
            return Err(Error::NotRecomputable {
                op: ops[v as usize].id.clone(),
                runs: total,
            });
        }
        let op = &ops[v as usize];
        // Inputs, and the bases of the views it makes (a view is made from a current base).
        let bases = op
            .outputs
            .iter()
            .filter_map(|&t| tensors[t as usize].alias_of)
            // Not a view of its own output: that one is made with it.
            .filter(|&a| tensors[a as usize].producer != Some(v));
        for t in op.inputs.iter().copied().chain(bases) {
            if let Some((view, base)) = stale(t, &last) {
                return Err(Error::StaleView {
                    op: Some(op.id.clone()),
                    tensor: tensors[view as usize].id.clone(),
                    base: tensors[base as usize].id.clone(),
                });
            }
        }
        runs[v as usize] += 1;
        last[v as usize] = i as u32;
    }
    if let Some(v) = (0..n).find(|&v| runs[v] == 0) {
        return Err(Error::MissingOp {
            op: ops[v].id.clone(),
            count: runs.iter().filter(|&&r| r == 0).count(),
        });
    }
    for &t in g.outputs() {
        if let Some((view, base)) = stale(t, &last) {
            return Err(Error::StaleView {
                op: None,
                tensor: tensors[view as usize].id.clone(),
                base: tensors[base as usize].id.clone(),
            });
        }
    }
    Ok(())
}

/// Peak of a schedule already known to be valid.
pub fn schedule_peak(g: &Graph, schedule: &[OpIx]) -> u64 {
    let frees = frees_of(g, schedule);
    let mut live = g.inputs_bytes();
    let mut peak = live;
    for (i, &v) in schedule.iter().enumerate() {
        peak = peak.max(live + g.alloc(v) + g.workspace(v));
        live += g.alloc(v);
        for &s in frees.after(i) {
            live -= g.size(s);
        }
    }
    peak
}

/// Checks a schedule and returns its peak.
pub fn checked_schedule_peak(g: &Graph, schedule: &[OpIx]) -> Result<u64, Error> {
    check_schedule(g, schedule)?;
    Ok(schedule_peak(g, schedule))
}

/// The cost a schedule adds to running every op once: the sum of `cost` over repeated runs.
pub fn added_cost(g: &Graph, schedule: &[OpIx]) -> f64 {
    let mut seen = vec![false; g.num_ops()];
    let mut added = 0.0;
    for &v in schedule {
        if std::mem::replace(&mut seen[v as usize], true) {
            added += g.ops()[v as usize].cost;
        }
    }
    added
}

/// How often each op runs, indexed by op.
pub fn run_counts(g: &Graph, schedule: &[OpIx]) -> Vec<u32> {
    let mut runs = vec![0u32; g.num_ops()];
    for &v in schedule {
        runs[v as usize] += 1;
    }
    runs
}

/// Simulates a schedule (docs/design.md §1): memory during and after every step, the peak, and
/// what is live at the peak. On a schedule without repeats this is [`crate::simulate()`].
///
/// ```
/// use peakorder::recompute::simulate_schedule;
/// use peakorder::Graph;
///
/// // a -> b -> c, and d reads a and c: keeping `a` costs 100 bytes across b and c.
/// let g = Graph::from_json(r#"{
///   "tensors": [{"id": "x", "bytes": 1}, {"id": "a", "bytes": 100}, {"id": "b", "bytes": 10},
///               {"id": "c", "bytes": 10}, {"id": "d", "bytes": 1}],
///   "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"]},
///           {"id": "B", "inputs": ["a"], "outputs": ["b"]},
///           {"id": "C", "inputs": ["b"], "outputs": ["c"], "workspace": 100},
///           {"id": "D", "inputs": ["a", "c"], "outputs": ["d"]}],
///   "outputs": ["d"]
/// }"#).unwrap();
/// let once = g.order_from_ids(&["A", "B", "C", "D"]).unwrap();
/// let again = g.schedule_from_ids(&["A", "B", "C", "A", "D"]).unwrap();
/// assert_eq!(simulate_schedule(&g, &once).unwrap().peak_bytes, 1 + 100 + 10 + 10 + 100);
/// // `a` is freed after B and made again for D: C runs without it.
/// assert_eq!(simulate_schedule(&g, &again).unwrap().peak_bytes, 1 + 10 + 10 + 100);
/// ```
pub fn simulate_schedule(g: &Graph, schedule: &[OpIx]) -> Result<Simulation, Error> {
    check_schedule(g, schedule)?;
    let frees = frees_of(g, schedule);
    let mut live = g.inputs_bytes();
    let mut peak = live;
    let mut peak_step = None;
    let mut steps = Vec::with_capacity(schedule.len());
    for (i, &v) in schedule.iter().enumerate() {
        let during = live + g.alloc(v) + g.workspace(v);
        if during > peak {
            peak = during;
            peak_step = Some(i);
        }
        live += g.alloc(v);
        for &s in frees.after(i) {
            live -= g.size(s);
        }
        steps.push(Step {
            op_ix: v,
            op: g.ops()[v as usize].id.clone(),
            during_bytes: during,
            after_bytes: live,
        });
    }
    let live_at_peak = live_at(g, schedule, &frees, peak_step)
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

/// Storages live while step `at` runs (or at the start), in tensor order.
fn live_at(g: &Graph, schedule: &[OpIx], frees: &Frees, at: Option<usize>) -> Vec<TensorIx> {
    let mut live = vec![false; g.num_tensors()];
    for s in g.input_storages() {
        live[s as usize] = true;
    }
    if let Some(at) = at {
        for (i, &v) in schedule[..at].iter().enumerate() {
            for &s in g.creates(v) {
                live[s as usize] = true;
            }
            for &s in frees.after(i) {
                live[s as usize] = false;
            }
        }
        for &s in g.creates(schedule[at]) {
            live[s as usize] = true;
        }
    }
    (0..g.num_tensors() as u32)
        .filter(|&s| live[s as usize] && g.size(s) > 0)
        .collect()
}
