//! Helpers of the recompute property tests (`prop_recompute*.rs`): small random graphs with
//! non-unit costs and `recompute: false` ops, random schedules with repeats, a naive schedule
//! simulator written from the text of docs/design.md §1 "Recomputation" (over ids, sharing no
//! code with the core), and the brute-force referee over every schedule up to a length.
//!
//! Included by the test files as `#[path = "common/recompute.rs"] mod recompute;` next to
//! `mod common;` (whose strategies it builds on).
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::ops::RangeInclusive;

use peakorder::dtype::Dtype;
use peakorder::format::{GraphSpec, OpSpec, TensorSpec};
use peakorder::generators::{Draw, Tape};
use peakorder::recompute::checked_schedule_peak;
use peakorder::{Graph, OpIx};
use proptest::prelude::*;

use crate::common::{any_graph, Case};

/// Costs an op may get: a draw of 0 gives the default (1), so shrinking removes them.
const COSTS: [f64; 6] = [1.0, 2.0, 3.0, 1.0, 5.0, 0.0];

/// `spec` with a cost for every op and some ops `recompute: false`, read from `draws` (two per
/// op; 0s give the defaults).
pub fn with_costs(spec: &GraphSpec, draws: &[u16]) -> GraphSpec {
    let mut t = Tape::new(draws);
    let mut spec = spec.clone();
    for op in &mut spec.ops {
        let c = COSTS[t.below(COSTS.len() as u64) as usize];
        op.cost = (c != 1.0).then_some(c);
        op.recompute = t.percent(15).then_some(false);
    }
    spec
}

/// A training step of `n` ops: a chain of forward ops, each keeping its activation for the
/// backward op that reads it, then the backward chain (the shape recomputation is for), with
/// sizes, views, workspace, skip reads and a donated input drawn from `r`.
pub fn training<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let acts = [8, 16, 4, 40, 24, 2, 1, 0];
    let grads = [4, 1, 8, 16, 0, 2];
    let work = [16, 8, 40, 4];
    let mut spec = GraphSpec::default();
    let tensor = |spec: &mut GraphSpec, bytes: Option<u64>, alias: Option<String>| {
        let id = format!("t{}", spec.tensors.len());
        spec.tensors.push(TensorSpec {
            id: id.clone(),
            bytes,
            alias_of: alias,
            ..Default::default()
        });
        id
    };
    let ws = |r: &mut D| {
        if r.percent(30) {
            Some(work[r.below(4) as usize])
        } else {
            None
        }
    };
    let x = tensor(&mut spec, Some(acts[r.below(8) as usize]), None);
    if r.percent(30) {
        spec.tensors[0].donated = Some(true);
    }
    let forward = n.div_ceil(2).max(1);
    let mut kept = vec![x];
    for i in 0..forward {
        let a = tensor(&mut spec, Some(acts[r.below(8) as usize]), None);
        let mut outputs = vec![a.clone()];
        let mut keep = a.clone();
        let mut inputs = vec![kept[i].clone()];
        if r.percent(15) {
            // The op also makes a view of its activation, which the rest reads.
            keep = tensor(&mut spec, None, Some(a.clone()));
            outputs.push(keep.clone());
        } else if i > 0 && r.percent(20) {
            // Or a view of its input, which the backward reads instead: made again only by
            // this op, after the input's producer runs again.
            let view = tensor(&mut spec, None, Some(kept[i].clone()));
            outputs.push(view.clone());
            kept[i] = view;
        }
        if i > 0 && r.percent(15) {
            inputs.push(kept[r.below(i as u64) as usize].clone()); // a skip connection
        }
        spec.ops.push(OpSpec {
            id: format!("f{i}"),
            inputs,
            outputs,
            workspace: ws(r),
            ..Default::default()
        });
        kept.push(keep);
    }
    // Backward: b_j reads the gradient of a_j and f_j's input a_{j-1}.
    let mut grad = kept[forward].clone();
    for (k, j) in (0..forward)
        .rev()
        .take(n.saturating_sub(forward))
        .enumerate()
    {
        let next = tensor(&mut spec, Some(grads[r.below(6) as usize]), None);
        let mut inputs = vec![grad.clone(), kept[j].clone()];
        if r.percent(15) {
            inputs.push(kept[r.below(forward as u64 + 1) as usize].clone());
        }
        spec.ops.push(OpSpec {
            id: format!("b{k}"),
            inputs,
            outputs: vec![next.clone()],
            workspace: ws(r),
            ..Default::default()
        });
        grad = next;
    }
    spec.outputs.push(grad);
    if r.percent(15) {
        spec.outputs.push(kept[forward].clone());
    }
    spec
}

/// Small graphs for the recompute tests: any family (views, workspace, donated inputs, graph
/// outputs anywhere, multi-output ops), or a training step, with costs and `recompute: false`
/// ops drawn on top.
pub fn recompute_graph(ops: RangeInclusive<usize>) -> BoxedStrategy<Case> {
    prop_oneof![any_recompute_graph(ops.clone()), training_graph(ops)].boxed()
}

/// Any family of `common`, with costs and `recompute: false` ops drawn on top.
pub fn any_recompute_graph(ops: RangeInclusive<usize>) -> BoxedStrategy<Case> {
    let costs = prop::collection::vec(any::<u16>(), 2 * *ops.end() + 2);
    (any_graph(ops), costs)
        .prop_map(|(c, d)| Case::new(c.family, with_costs(&c.spec, &d)))
        .boxed()
}

/// [`training`] steps, with costs and `recompute: false` ops.
pub fn training_graph(ops: RangeInclusive<usize>) -> BoxedStrategy<Case> {
    let max = *ops.end();
    let costs = prop::collection::vec(any::<u16>(), 2 * max + 2);
    let tape = prop::collection::vec(any::<u16>(), 16 + 8 * max);
    (ops, tape, costs)
        .prop_map(|(n, t, d)| {
            let spec = training(&mut Tape::new(&t), n.max(1));
            Case::new("training", with_costs(&spec, &d))
        })
        .boxed()
}

/// A schedule with repeats: a topological order (picks from `draws`) with `extra` runs
/// inserted after each chosen op's first run; `any_op` lets `recompute: false` ops repeat too.
pub fn schedule_with_repeats(g: &Graph, draws: &[u16], extra: usize, any_op: bool) -> Vec<OpIx> {
    let mut t = Tape::new(draws);
    let mut order = crate::common::topo_order_by(g, |k| t.below(k as u64) as usize);
    let n = g.num_ops();
    if n == 0 {
        return order;
    }
    for _ in 0..extra {
        let v = t.below(n as u64) as OpIx;
        if !any_op && !g.ops()[v as usize].recompute {
            continue;
        }
        let first = order.iter().position(|&u| u == v).unwrap();
        let at = first + 1 + t.below((order.len() - first) as u64) as usize;
        order.insert(at, v);
        // Often remake the views of what it made too, so that fewer schedules are stale.
        if t.percent(60) {
            let mut at = at + 1;
            for w in 0..n as OpIx {
                let remakes_view = g.ops()[w as usize].outputs.iter().any(|&o| {
                    g.tensors()[o as usize]
                        .alias_of
                        .is_some_and(|a| g.tensors()[a as usize].producer == Some(v))
                });
                if w != v && remakes_view && order[..at].contains(&w) {
                    order.insert(at, w);
                    at += 1;
                }
            }
        }
    }
    order
}

/// What the naive simulator says of a schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct NaiveRun {
    pub peak: u64,
    /// (during, after) per step.
    pub steps: Vec<(u64, u64)>,
}

/// docs/design.md §1 "Recomputation", read literally over ids: each instance of a storage
/// lives from the run that makes it until its last use before its producer's next run (or
/// right after it is made when nothing reads it before then); a graph input the caller owns
/// is never freed, a donated one after its last use; a graph output's last instance lives to
/// the end. Errors by code, as `check_schedule` orders them.
pub fn naive_schedule(spec: &GraphSpec, schedule: &[String]) -> Result<NaiveRun, &'static str> {
    let tensor: HashMap<&str, &TensorSpec> =
        spec.tensors.iter().map(|t| (t.id.as_str(), t)).collect();
    let bytes = |id: &str| -> u64 {
        let t = tensor[id];
        if t.alias_of.is_some() {
            return 0;
        }
        match (t.bytes, &t.shape, &t.dtype) {
            (Some(b), _, _) => b,
            (None, Some(shape), Some(dt)) => {
                shape.iter().product::<u64>() * Dtype::parse(dt).unwrap().size()
            }
            _ => unreachable!(),
        }
    };
    let root = |id: &str| -> String {
        let mut cur = tensor[id];
        while let Some(a) = &cur.alias_of {
            cur = tensor[a.as_str()];
        }
        cur.id.clone()
    };
    let producer: HashMap<&str, &str> = spec
        .ops
        .iter()
        .flat_map(|o| o.outputs.iter().map(move |t| (t.as_str(), o.id.as_str())))
        .collect();
    let op: HashMap<&str, &OpSpec> = spec.ops.iter().map(|o| (o.id.as_str(), o)).collect();
    // What a run of an op reads (storages that must be live): its inputs', and the storages of
    // the views it makes (unless it makes that storage itself); and what it makes.
    let reads = |o: &OpSpec| -> Vec<String> {
        let mut r: Vec<String> = o.inputs.iter().map(|t| root(t)).collect();
        for t in &o.outputs {
            if tensor[t.as_str()].alias_of.is_some() {
                let s = root(t);
                if producer.get(s.as_str()) != Some(&o.id.as_str()) {
                    r.push(s);
                }
            }
        }
        r.sort();
        r.dedup();
        r
    };
    let makes = |o: &OpSpec| -> Vec<String> {
        o.outputs
            .iter()
            .filter(|t| tensor[t.as_str()].alias_of.is_none())
            .cloned()
            .collect()
    };
    let output_roots: Vec<String> = spec.outputs.iter().map(|t| root(t)).collect();

    // Validity: order, repeats of `recompute: false`, views made from the current base.
    let mut runs: HashMap<&str, usize> = HashMap::new();
    let mut version: HashMap<&str, usize> = HashMap::new(); // of each produced tensor
    let mut made_from: HashMap<&str, usize> = HashMap::new(); // base's version, per view
    let current = |t: &str, version: &HashMap<&str, usize>, made_from: &HashMap<&str, usize>| {
        let mut t = t;
        while let Some(a) = &tensor[t].alias_of {
            let base = version.get(a.as_str()).copied().unwrap_or(0);
            if producer.contains_key(t) && made_from.get(t).copied().unwrap_or(0) != base {
                return false;
            }
            t = a.as_str();
        }
        true
    };
    for (i, id) in schedule.iter().enumerate() {
        let o = op[id.as_str()];
        let needs: Vec<&str> = o
            .inputs
            .iter()
            .chain(
                o.outputs
                    .iter()
                    .filter_map(|t| tensor[t.as_str()].alias_of.as_ref())
                    // A view of a view this op makes is made with it (design.md §1).
                    .filter(|a| producer.get(a.as_str()) != Some(&id.as_str())),
            )
            .map(|t| t.as_str())
            .collect();
        if runs.get(id.as_str()).copied().unwrap_or(0) == 0 {
            for t in &needs {
                if let Some(p) = producer.get(t) {
                    if *p != id.as_str() && runs.get(p).copied().unwrap_or(0) == 0 {
                        return Err("not_topological");
                    }
                }
            }
        } else if o.recompute == Some(false) {
            return Err("not_recomputable");
        }
        if needs.iter().any(|t| !current(t, &version, &made_from)) {
            return Err("stale_view");
        }
        *runs.entry(id.as_str()).or_default() += 1;
        for t in &o.outputs {
            version.insert(t.as_str(), i + 1);
        }
        for t in &o.outputs {
            if let Some(a) = &tensor[t.as_str()].alias_of {
                let v = version.get(a.as_str()).copied().unwrap_or(0);
                made_from.insert(t.as_str(), v);
            }
        }
    }
    if spec.ops.iter().any(|o| !runs.contains_key(o.id.as_str())) {
        return Err("missing_op");
    }
    if spec
        .outputs
        .iter()
        .any(|t| !current(t, &version, &made_from))
    {
        return Err("stale_view");
    }

    // Memory: which instance of each storage is live after step k (k = -1: the start).
    let steps: Vec<(Vec<String>, Vec<String>)> = schedule
        .iter()
        .map(|id| (reads(op[id.as_str()]), makes(op[id.as_str()])))
        .collect();
    let storages: Vec<&TensorSpec> = spec
        .tensors
        .iter()
        .filter(|t| t.alias_of.is_none())
        .collect();
    let alive_after = |s: &TensorSpec, k: isize| -> bool {
        let read_at = |j: usize| steps[j].0.contains(&s.id);
        let made_at = |j: usize| steps[j].1.contains(&s.id);
        let len = steps.len() as isize;
        let is_output = output_roots.contains(&s.id);
        if !producer.contains_key(s.id.as_str()) {
            // A graph input: the caller's is never freed; a donated one after its last use.
            if s.donated != Some(true) || is_output {
                return true;
            }
            let reads: Vec<usize> = (0..steps.len()).filter(|&j| read_at(j)).collect();
            return reads.is_empty() || reads.iter().any(|&j| j as isize > k);
        }
        if !(0..=k).any(|j| made_at(j as usize)) {
            return false;
        }
        let next_make = (k + 1..len).find(|&j| made_at(j as usize)).unwrap_or(len);
        (k + 1..next_make).any(|j| read_at(j as usize)) || (next_make == len && is_output)
    };
    let live_bytes = |k: isize| -> u64 {
        storages
            .iter()
            .filter(|s| alive_after(s, k))
            .map(|s| bytes(&s.id))
            .sum()
    };
    let mut peak = live_bytes(-1);
    let mut out = Vec::new();
    for (i, id) in schedule.iter().enumerate() {
        let o = op[id.as_str()];
        let during = live_bytes(i as isize - 1)
            + steps[i].1.iter().map(|m| bytes(m)).sum::<u64>()
            + o.workspace.unwrap_or(0);
        peak = peak.max(during);
        out.push((during, live_bytes(i as isize)));
    }
    Ok(NaiveRun { peak, steps: out })
}

/// The brute-force referee: every schedule of at most `cap` steps (each op at least once, first
/// runs in topological order, no repeat of a `recompute: false` op), simulated by the core's
/// reference simulator (`checked_schedule_peak`, which also rejects stale views). Keeps, for
/// every peak reached, the cheapest schedule reaching it.
pub struct Brute {
    pub cap: usize,
    /// Schedules simulated.
    pub schedules: usize,
    /// peak -> (least added cost at that peak, a schedule with it).
    by_peak: BTreeMap<u64, (f64, Vec<OpIx>)>,
}

impl Brute {
    pub fn new(g: &Graph, cap: usize) -> Brute {
        let n = g.num_ops();
        let mut b = Brute {
            cap,
            schedules: 0,
            by_peak: BTreeMap::new(),
        };
        let mut runs = vec![0u32; n];
        let mut prefix = Vec::with_capacity(cap);
        b.extend(g, &mut prefix, &mut runs, n, 0.0);
        b
    }

    fn extend(
        &mut self,
        g: &Graph,
        prefix: &mut Vec<OpIx>,
        runs: &mut [u32],
        unrun: usize,
        cost: f64,
    ) {
        if unrun == 0 {
            self.schedules += 1;
            match checked_schedule_peak(g, prefix) {
                Ok(p) => {
                    let e = self
                        .by_peak
                        .entry(p)
                        .or_insert_with(|| (f64::INFINITY, Vec::new()));
                    if cost < e.0 {
                        *e = (cost, prefix.clone());
                    }
                }
                Err(e) => assert_eq!(e.code(), "stale_view", "{e}"),
            }
        }
        if prefix.len() + unrun.max(1) > self.cap {
            return;
        }
        for v in 0..g.num_ops() as OpIx {
            let op = &g.ops()[v as usize];
            let again = runs[v as usize] > 0;
            if again && !op.recompute {
                continue;
            }
            if !again && g.preds(v).iter().any(|&p| runs[p as usize] == 0) {
                continue;
            }
            prefix.push(v);
            runs[v as usize] += 1;
            let (u, c) = if again {
                (unrun, cost + op.cost)
            } else {
                (unrun - 1, cost)
            };
            self.extend(g, prefix, runs, u, c);
            runs[v as usize] -= 1;
            prefix.pop();
        }
    }

    /// The least added cost of a schedule within `limit`, and one such schedule.
    pub fn best_within(&self, limit: u64) -> Option<(f64, &[OpIx])> {
        self.by_peak
            .range(..=limit)
            .map(|(_, (c, s))| (*c, s.as_slice()))
            .min_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// The least peak of any schedule it saw.
    pub fn min_peak(&self) -> Option<u64> {
        self.by_peak.keys().next().copied()
    }

    /// Every peak some schedule reaches, ascending.
    pub fn peaks(&self) -> impl Iterator<Item = u64> + '_ {
        self.by_peak.keys().copied()
    }
}

/// Most schedules brute force simulates per graph (a few tens of milliseconds).
pub const MAX_SCHEDULES: usize = 40_000;

/// The length cap for brute force on `g`: three runs beyond the ops, fewer where that would
/// mean more than [`MAX_SCHEDULES`] schedules.
pub fn cap_for(g: &Graph) -> usize {
    let n = g.num_ops();
    (n..=n + 3)
        .rev()
        .find(|&cap| count_schedules(g, cap, MAX_SCHEDULES) <= MAX_SCHEDULES)
        .unwrap_or(n)
}

/// How many schedules brute force would simulate at `cap` (counting stops past `stop`).
fn count_schedules(g: &Graph, cap: usize, stop: usize) -> usize {
    fn go(
        g: &Graph,
        len: usize,
        runs: &mut [u32],
        unrun: usize,
        cap: usize,
        count: &mut usize,
        stop: usize,
    ) {
        if unrun == 0 {
            *count += 1;
        }
        if *count > stop || len + unrun.max(1) > cap {
            return;
        }
        for v in 0..g.num_ops() as OpIx {
            let again = runs[v as usize] > 0;
            if (again && !g.ops()[v as usize].recompute)
                || (!again && g.preds(v).iter().any(|&p| runs[p as usize] == 0))
            {
                continue;
            }
            runs[v as usize] += 1;
            go(
                g,
                len + 1,
                runs,
                if again { unrun } else { unrun - 1 },
                cap,
                count,
                stop,
            );
            runs[v as usize] -= 1;
        }
    }
    let mut count = 0;
    go(
        g,
        0,
        &mut vec![0; g.num_ops()],
        g.num_ops(),
        cap,
        &mut count,
        stop,
    );
    count
}

/// Two forward branches, `big` (100 B) and four `s*` (10 B each), all made by cheap ops from
/// `x` and read again by `Y` after `W`'s 60 B workspace step: one large recomputation (`B`)
/// fits where four small ones would otherwise be needed (repair's and rework's own tests).
pub fn one_large_or_four_small() -> Graph {
    Graph::from_json(
        r#"{
      "tensors": [{"id": "x", "bytes": 1}, {"id": "big", "bytes": 100},
                  {"id": "s1", "bytes": 10}, {"id": "s2", "bytes": 10},
                  {"id": "s3", "bytes": 10}, {"id": "s4", "bytes": 10},
                  {"id": "w", "bytes": 1}, {"id": "y", "bytes": 1}],
      "ops": [{"id": "B", "inputs": ["x"], "outputs": ["big"]},
              {"id": "S1", "inputs": ["x"], "outputs": ["s1"]},
              {"id": "S2", "inputs": ["x"], "outputs": ["s2"]},
              {"id": "S3", "inputs": ["x"], "outputs": ["s3"]},
              {"id": "S4", "inputs": ["x"], "outputs": ["s4"]},
              {"id": "W", "inputs": ["x"], "outputs": ["w"], "workspace": 60},
              {"id": "Y", "inputs": ["big", "s1", "s2", "s3", "s4", "w"], "outputs": ["y"]}],
      "outputs": ["y"]
    }"#,
    )
    .expect("the fixture is valid")
}

/// A valid schedule with repeats of `g` ([`schedule_with_repeats`]) and a limit `slack` bytes
/// above its peak; `None` when the draws give an invalid one (the caller `prop_assume`s).
pub fn repeated_within(
    g: &Graph,
    draws: &[u16],
    extra: usize,
    slack: u64,
) -> Option<(Vec<OpIx>, u64)> {
    let s = schedule_with_repeats(g, draws, extra, false);
    peakorder::recompute::check_schedule(g, &s).ok()?;
    let limit = peakorder::recompute::schedule_peak(g, &s) + slack;
    Some((s, limit))
}
