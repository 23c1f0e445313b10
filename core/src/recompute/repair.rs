//! Peak repair: start from the order itself, with nothing recomputed, and while a step is over
//! the limit add the one recomputation that removes the most excess per unit of cost.
//!
//! This is Capuchin's recomputation selection (Peng, Shi, Zhang, Xu, Lin, Yuan, Wang, Pan, Tan,
//! Wu, Rong, "Capuchin: Tensor-based GPU Memory Management for Deep Learning", ASPLOS 2020,
//! §4.4: candidates ranked by memory saved per unit of added time, chosen one at a time and the
//! peak re-evaluated), made exact in this memory model: the candidates are the storages live
//! across the highest step; recomputing one means running its producer again just before the
//! storage's next read, so that its instance dies at its read before the peak instead of living
//! across it. The saving counted is the excess it removes (bytes above the limit, summed over
//! steps), net of the excess its producer's inputs add by living until the new run.
//!
//! Eviction ([`super::evict`]) decides at each step with what it knows then and prefers many
//! small storages to one large one when a single recomputation would do; this pass looks at the
//! whole schedule and takes the largest saving first, which is what shallow limits need. Each
//! step is checked by the schedule simulator: a schedule is only accepted when its excess falls,
//! so the pass ends, and the result is valid and within the limit or not returned at all.

use super::prune::prune;
use super::schedule::{added_cost, check_schedule, checked_schedule_peak, frees_of};
use super::{Found, Outcome};
use crate::budget::Budget;
use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::{OpIx, TensorIx};

/// Candidates evaluated exactly per repair, best estimated first ([`plan`]).
const TRIALS: usize = 6;

/// The same for [`plan_wide`]: the estimate misranks on wide plateaus (googlenet's training
/// step at 50% of its range costs 13 with 6, 11 with 48, the referee's best), and the passes
/// with 48 took 50-70 ms more there.
const WIDE_TRIALS: usize = 48;

/// The most levels of a recomputation's inputs, gone by then, that a repair makes again with
/// it (beyond that they are kept live instead); passes run at each depth up to this.
const MAX_DEPTH: usize = 2;

/// A schedule longer than this many runs per op is given up.
const MAX_RUNS_PER_OP: usize = 64;

/// A schedule within `limit` that runs `order` (a complete topological order of `g`) and
/// recomputes what the repairs chose, pruned of what it does not need; `Unknown` when the
/// repairs cannot bring every step within the limit (eviction may still).
///
/// ```
/// use peakorder::recompute::{repair, simulate_schedule, Outcome};
/// use peakorder::{Budget, Graph, NoClock};
///
/// // `a` (100 B) is read by B and again by D: keeping it lives across C's 100 B workspace.
/// let g = Graph::from_json(r#"{
///   "tensors": [{"id": "x", "bytes": 1}, {"id": "a", "bytes": 100}, {"id": "b", "bytes": 10},
///               {"id": "c", "bytes": 10}, {"id": "d", "bytes": 1}],
///   "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"]},
///           {"id": "B", "inputs": ["a"], "outputs": ["b"]},
///           {"id": "C", "inputs": ["b"], "outputs": ["c"], "workspace": 100},
///           {"id": "D", "inputs": ["a", "c"], "outputs": ["d"]}],
///   "outputs": ["d"]
/// }"#).unwrap();
/// let order = g.order_from_ids(&["A", "B", "C", "D"]).unwrap();
/// let budget = Budget::new(&NoClock, None, 1_000);
/// let Outcome::Found(f) = repair::plan(&g, &order, 121, &budget) else { panic!() };
/// assert_eq!(g.op_ids(&f.schedule), ["A", "B", "C", "A", "D"]);
/// assert_eq!(simulate_schedule(&g, &f.schedule).unwrap().peak_bytes, 121);
/// ```
pub fn plan(g: &Graph, order: &[OpIx], limit: u64, budget: &Budget) -> Outcome {
    plan_trials(g, order, limit, TRIALS, budget)
}

/// [`plan`] with more candidates evaluated exactly per repair ([`WIDE_TRIALS`]): slower, and
/// cheaper where the estimate misranks; `auto` runs it in the time its other methods leave.
pub fn plan_wide(g: &Graph, order: &[OpIx], limit: u64, budget: &Budget) -> Outcome {
    plan_trials(g, order, limit, WIDE_TRIALS, budget)
}

fn plan_trials(g: &Graph, order: &[OpIx], limit: u64, trials: usize, budget: &Budget) -> Outcome {
    if checked_schedule_peak(g, order).is_err() {
        return Outcome::Unknown;
    }
    let mut best: Option<Found> = None;
    // Each depth is a pass of its own: making more again per repair reaches limits a
    // shallower pass cannot, and a shallower pass is often cheaper where both do (the greedy
    // choices differ). The first pass runs whatever the clock says, the others in the time
    // left.
    for depth in 0..=MAX_DEPTH {
        if depth > 0 && budget.expired() {
            break;
        }
        let Some(schedule) = repaired(g, order, limit, depth, trials, budget) else {
            continue;
        };
        let stop = || budget.expired();
        let schedule = if schedule.len() > order.len() {
            prune(g, schedule, limit, &stop)
        } else {
            schedule
        };
        // The simulator is the reference (each repair was checked; prune re-checks too).
        if !checked_schedule_peak(g, &schedule).is_ok_and(|p| p <= limit) {
            continue;
        }
        let cost = added_cost(g, &schedule);
        if best.as_ref().map_or(true, |b| cost < b.added_cost) {
            best = Some(Found {
                schedule,
                added_cost: cost,
                cost_bound: 0.0,
            });
        }
        if cost == 0.0 {
            break;
        }
    }
    best.map_or(Outcome::Unknown, Outcome::Found)
}

/// One pass of repairs that make inputs again up to `depth` levels deep; the schedule once
/// every step is within the limit, or `None` when no repair lowers the excess.
fn repaired(
    g: &Graph,
    order: &[OpIx],
    limit: u64,
    depth: usize,
    trials: usize,
    budget: &Budget,
) -> Option<Vec<OpIx>> {
    repaired_from(g, order.to_vec(), limit, depth, trials, budget)
}

/// [`repaired`] from any valid schedule (the rework pass, [`super::rework`], starts from a
/// found one with one op's repeats taken out).
pub(super) fn repaired_from(
    g: &Graph,
    start: Vec<OpIx>,
    limit: u64,
    depth: usize,
    trials: usize,
    budget: &Budget,
) -> Option<Vec<OpIx>> {
    let max_len = g.num_ops().saturating_mul(MAX_RUNS_PER_OP);
    let mut schedule = start;
    let mut profile = Profile::of(g, &schedule, limit);
    while profile.excess > 0 {
        if budget.expired() || schedule.len() >= max_len {
            return None;
        }
        let (s, p) = profile.best_repair(g, &schedule, limit, depth, trials)?;
        schedule = s;
        profile = p;
    }
    Some(schedule)
}

/// Memory per step of a valid schedule, against the limit.
struct Profile {
    /// Bytes while each step runs.
    mem: Vec<u64>,
    /// Sum over steps of the bytes above the limit.
    excess: u128,
    /// The steps over the limit, ascending (the saving of a repair counts only there).
    over_steps: Vec<usize>,
    /// For each storage, its instances as (made at, freed after) steps; made at -1: a graph
    /// input; freed after `n`: never.
    lives: Vec<Vec<(i64, usize)>>,
}

impl Profile {
    fn of(g: &Graph, schedule: &[OpIx], limit: u64) -> Profile {
        let n = schedule.len();
        let frees = frees_of(g, schedule);
        let mut lives: Vec<Vec<(i64, usize)>> = vec![Vec::new(); g.num_tensors()];
        for s in g.input_storages() {
            lives[s as usize].push((-1, n));
        }
        let mut mem = Vec::with_capacity(n);
        let mut live = g.inputs_bytes();
        let mut excess = 0u128;
        for (i, &v) in schedule.iter().enumerate() {
            let during = live + g.alloc(v) + g.workspace(v);
            excess += u128::from(during.saturating_sub(limit));
            mem.push(during);
            live += g.alloc(v);
            for &s in g.creates(v) {
                lives[s as usize].push((i as i64, n));
            }
            for &s in frees.after(i) {
                live -= g.size(s);
                if let Some(l) = lives[s as usize].last_mut() {
                    l.1 = i;
                }
            }
        }
        let over_steps = (0..n).filter(|&i| mem[i] > limit).collect();
        Profile {
            mem,
            excess,
            over_steps,
            lives,
        }
    }

    /// Whether storage `s` has an instance live while step `at` runs (made before it and freed
    /// no earlier than after it).
    fn live_during(&self, s: TensorIx, at: usize) -> bool {
        self.lives[s as usize]
            .iter()
            .any(|&(m, f)| m < at as i64 && f >= at)
    }

    /// The repair at the highest step that lowers the excess most per unit of cost, with the
    /// repaired schedule's profile; `None` when none lowers it.
    fn best_repair(
        &self,
        g: &Graph,
        schedule: &[OpIx],
        limit: u64,
        depth: usize,
        trials: usize,
    ) -> Option<(Vec<OpIx>, Profile)> {
        let n = schedule.len();
        let peak_step = (0..n).max_by_key(|&i| (self.mem[i], std::cmp::Reverse(i)))?;
        let over = |i: usize| self.mem[i].saturating_sub(limit);
        // Storages live across the peak step (made before it, read after it) that step does
        // not read, each with its last read (or making) before the step.
        let mut candidates: Vec<(TensorIx, usize)> = Vec::new();
        let reads_at_peak = g.reads(schedule[peak_step]);
        for (s, lives) in self.lives.iter().enumerate() {
            let s = s as TensorIx;
            let Some(p) = g.tensors()[s as usize].producer else {
                continue;
            };
            if !g.ops()[p as usize].recompute || g.size(s) == 0 || reads_at_peak.contains(&s) {
                continue;
            }
            if let Some(&(made, _)) = lives
                .iter()
                .find(|&&(m, f)| m < peak_step as i64 && f > peak_step)
            {
                candidates.push((s, made as usize));
            }
        }
        // Each candidate's last read before the peak step and first read after it.
        let mut prev = vec![usize::MAX; g.num_tensors()];
        let mut next = vec![usize::MAX; g.num_tensors()];
        for &(s, made) in &candidates {
            prev[s as usize] = made;
        }
        for (i, &v) in schedule.iter().enumerate() {
            for &s in g.reads(v) {
                let s = s as usize;
                if prev[s] == usize::MAX {
                    continue;
                }
                if i < peak_step && i > prev[s] {
                    prev[s] = i;
                } else if i > peak_step && next[s] == usize::MAX {
                    next[s] = i;
                }
            }
        }
        let uses = Uses::of(g, schedule);
        let mut scored: Vec<(f64, Insertion, usize)> = Vec::new();
        for &(s, _) in &candidates {
            let (a, b) = (prev[s as usize], next[s as usize]);
            if b == usize::MAX {
                // Live to the end (a graph output): nothing to read again.
                continue;
            }
            let size = g.size(s);
            let from = self.over_steps.partition_point(|&i| i <= a);
            let to = self.over_steps.partition_point(|&i| i < b);
            let gain: u128 = self.over_steps[from..to]
                .iter()
                .map(|&i| u128::from(over(i).min(size)))
                .sum();
            let p = g.tensors()[s as usize]
                .producer
                .expect("candidates have producers");
            for d in 0..=depth {
                let Some(ins) = self.insertion(g, schedule, p, b, d, limit, &uses) else {
                    continue;
                };
                if ins.loss < gain {
                    let rate = (gain - ins.loss) as f64 / ins.cost.max(1e-9);
                    scored.push((rate, ins, b));
                }
            }
        }
        scored.sort_by_compact(|x, y| y.0.total_cmp(&x.0));
        let mut best: Option<(f64, Vec<OpIx>, Profile)> = None;
        for (_, ins, b) in scored.iter().take(trials) {
            let mut trial = Vec::with_capacity(n + ins.runs.len());
            trial.extend_from_slice(&schedule[..*b]);
            trial.extend_from_slice(&ins.runs);
            // Hoisted runs leave their old places (all at or after `b`).
            trial.extend(
                (*b..n)
                    .filter(|i| !ins.moved.contains(i))
                    .map(|i| schedule[i]),
            );
            if check_schedule(g, &trial).is_err() {
                continue;
            }
            let prof = Profile::of(g, &trial, limit);
            if prof.excess >= self.excess {
                continue;
            }
            let rate = (self.excess - prof.excess) as f64 / ins.cost.max(1e-9);
            if best.as_ref().map_or(true, |b| rate > b.0) {
                best = Some((rate, trial, prof));
            }
        }
        best.map(|(_, s, p)| (s, p))
    }

    /// The runs that make `p` again just before step `b`, with the excess they add and their
    /// cost: each input of a run that is not live then is made again too, `depth` levels deep
    /// (its producer run first), or else kept live from its last read until `b`; and the views
    /// of what the runs make that are read from `b` on are made again after them (a view read
    /// after its storage was made again must be made again too). An input whose producer
    /// already runs again after `b` is *hoisted* instead: that run moves to just before `b`
    /// (no added cost; its outputs live longer), which chains recomputations the way the
    /// referee's staggered runs do (regnet_y_400mf's training step at 50%). `None` when an
    /// input was never made before `b`, or such a view's producer is `recompute: false`.
    #[allow(clippy::too_many_arguments)]
    fn insertion(
        &self,
        g: &Graph,
        schedule: &[OpIx],
        p: OpIx,
        b: usize,
        depth: usize,
        limit: u64,
        uses: &Uses,
    ) -> Option<Insertion> {
        let over = |i: usize| self.mem[i].saturating_sub(limit);
        // The first repeated run of `q` at or after `b`: what a hoist moves.
        let later_run = |q: OpIx| -> Option<usize> {
            if uses.first[q as usize] >= b {
                return None;
            }
            (b..schedule.len()).find(|&i| schedule[i] == q)
        };
        // Runs to insert, dependencies first; inputs kept live longer; hoisted runs' old steps.
        let mut runs: Vec<OpIx> = Vec::new();
        let mut kept: Vec<TensorIx> = Vec::new();
        let mut moved: Vec<usize> = Vec::new();
        let mut loss = 0u128;
        // Extra excess of `bytes` live over steps `from..to`.
        let extra = |from: usize, to: usize, bytes: u64| -> u128 {
            (from..to)
                .map(|i| {
                    u128::from(self.mem[i].saturating_add(bytes).saturating_sub(limit) - over(i))
                })
                .sum()
        };
        // An explicit stack of (op, its depth, expanded); a hoist does not deepen, and each op
        // enters at most once, so it holds at most one entry per op.
        let mut stack = vec![(p, 0usize, false)];
        while let Some((v, d, expanded)) = stack.pop() {
            if expanded {
                if !runs.contains(&v) {
                    runs.push(v);
                }
                continue;
            }
            stack.push((v, d, true));
            for &r in g.reads(v) {
                if self.live_during(r, b) || kept.contains(&r) {
                    continue;
                }
                let q = g.tensors()[r as usize].producer;
                let queued = |q: OpIx, runs: &[OpIx], stack: &[(OpIx, usize, bool)]| {
                    runs.contains(&q) || stack.iter().any(|e| e.0 == q)
                };
                if let Some(q) = q {
                    if queued(q, &runs, &stack) {
                        continue;
                    }
                    if let Some(at) = later_run(q) {
                        moved.push(at);
                        let bytes: u64 = g.creates(q).iter().map(|&s| g.size(s)).sum();
                        loss += extra(b, at, bytes);
                        stack.push((q, d, false));
                        continue;
                    }
                }
                match q {
                    Some(q) if d < depth && g.ops()[q as usize].recompute => {
                        stack.push((q, d + 1, false));
                    }
                    _ => kept.push(r),
                }
            }
        }
        for &r in &kept {
            let &(_, freed) = self.lives[r as usize]
                .iter()
                .rev()
                .find(|&&(m, _)| m < b as i64)?;
            loss += extra(freed + 1, b, g.size(r));
        }
        // Without the views' runs the schedule would read stale views (check_schedule refuses
        // it): on convnext_tiny's step every large activation has one, so no repair applied.
        let makers = runs.len();
        for k in 0..makers {
            let r = runs[k];
            for &s in g.creates(r) {
                for &w in &uses.views_of_root[s as usize] {
                    if uses.last_use[w as usize] < b {
                        continue;
                    }
                    // The whole alias chain from `w` up to `s` is made again.
                    let mut t = w;
                    while let Some(a) = g.tensors()[t as usize].alias_of {
                        if let Some(q) = g.tensors()[t as usize].producer {
                            if !runs.contains(&q) {
                                if !g.ops()[q as usize].recompute {
                                    return None;
                                }
                                // A view run already made again later moves with its storage.
                                if let Some(at) = later_run(q).filter(|at| !moved.contains(at)) {
                                    moved.push(at);
                                }
                                runs.push(q);
                            }
                        }
                        t = a;
                    }
                }
            }
        }
        // First runs are in topological order: so are these, sorted by them.
        runs.sort_by_key_compact(|&v| uses.first[v as usize]);
        let moved_cost: f64 = moved
            .iter()
            .map(|&i| g.ops()[schedule[i] as usize].cost)
            .sum();
        let cost = runs.iter().map(|&v| g.ops()[v as usize].cost).sum::<f64>() - moved_cost;
        Some(Insertion {
            runs,
            moved,
            loss,
            cost: cost.max(0.0),
        })
    }
}

/// What [`Profile::insertion`] proposes: `runs` to insert before a step, the steps of the
/// runs they replace (`moved`, all at or after it), the excess added (estimated) and the net
/// added cost.
struct Insertion {
    runs: Vec<OpIx>,
    moved: Vec<usize>,
    loss: u128,
    cost: f64,
}

/// Where a schedule runs and reads what, for [`Profile::insertion`].
struct Uses {
    /// The step of each op's first run.
    first: Vec<usize>,
    /// Views (transitively) of each storage root.
    views_of_root: Vec<Vec<TensorIx>>,
    /// The last step at which each tensor is read (an input, or the base of a view made);
    /// `usize::MAX` for a graph output, which is read at the end; 0 when never.
    last_use: Vec<usize>,
}

impl Uses {
    fn of(g: &Graph, schedule: &[OpIx]) -> Uses {
        let mut first = vec![usize::MAX; g.num_ops()];
        for (i, &v) in schedule.iter().enumerate().rev() {
            first[v as usize] = i;
        }
        let tensors = g.tensors();
        let mut views_of_root = vec![Vec::new(); tensors.len()];
        for (i, t) in tensors.iter().enumerate() {
            if t.alias_of.is_some() {
                views_of_root[t.root as usize].push(i as TensorIx);
            }
        }
        let mut last_use = vec![0usize; tensors.len()];
        for (i, &v) in schedule.iter().enumerate() {
            let op = &g.ops()[v as usize];
            let bases = op
                .outputs
                .iter()
                .filter_map(|&t| tensors[t as usize].alias_of);
            for t in op.inputs.iter().copied().chain(bases) {
                last_use[t as usize] = i;
            }
        }
        for &t in g.outputs() {
            last_use[t as usize] = usize::MAX;
        }
        Uses {
            first,
            views_of_root,
            last_use,
        }
    }
}
