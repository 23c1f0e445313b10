//! Planning: run an orderer, re-check its order with the simulator, and report the plan of
//! docs/design.md §3 with a true lower bound and an honest `optimal` flag.
//!
//! The core has no clock of its own: deadlines are read through [`Clock`], which the native and
//! wasm layers implement; without one, only the state budget limits a search.

// The budget types and the orderers' result live in `budget` and `order` (which import nothing
// from here); they stay reachable under `plan::` as before.
pub use crate::budget::{Budget, Clock, NoClock, Progress, DEFAULT_MAX_MEMORY_BYTES};
pub use crate::order::Ordering;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use crate::bounds::cut::{cut_bound, during_in, CutNetwork};
use crate::bounds::{lower_bound, BoundKind};
use crate::error::Error;
use crate::graph::Graph;
use crate::order;
use crate::order::exact::{part_lower_bound, part_lower_bound_until};
use crate::recompute::{self, Found, RecomputeMethod};
use crate::simulate::{checked_peak, peak_of};
use crate::OpIx;

/// A planning method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// The file's order.
    Program,
    /// Memory-aware greedy list scheduling ([`order::greedy`]).
    Greedy,
    /// Series-parallel hill-valley ordering ([`order::series_parallel`]); series-parallel graphs only.
    Sp,
    /// SP-ization, then series-parallel ordering ([`order::spize`]).
    Spize,
    /// Local search applied to the greedy order ([`order::local_search`]).
    Local,
    /// PyTorch Inductor's `reorder_for_peak_memory` ([`order::inductor`]).
    Inductor,
    /// XLA's `DefaultMemoryScheduler` ([`order::xla`]).
    Xla,
    /// Liu's optimal algorithm for in-forests ([`order::liu`]); refuses other graphs.
    Liu,
    /// Best-first search over downsets with proofs ([`order::exact`]).
    Exact,
    /// Liu where it applies, else exact search within the budget, else the best heuristic
    /// ([`order::auto`]).
    Auto,
}

impl Method {
    /// Every method, in the order `compare` lists them.
    pub const ALL: &'static [Method] = &[
        Method::Program,
        Method::Greedy,
        Method::Sp,
        Method::Spize,
        Method::Local,
        Method::Inductor,
        Method::Xla,
        Method::Liu,
        Method::Exact,
        Method::Auto,
    ];

    /// The name used on the command line and in plans.
    pub fn name(self) -> &'static str {
        match self {
            Method::Program => "program",
            Method::Greedy => "greedy",
            Method::Sp => "sp",
            Method::Spize => "spize",
            Method::Local => "local",
            Method::Inductor => "inductor",
            Method::Xla => "xla",
            Method::Liu => "liu",
            Method::Exact => "exact",
            Method::Auto => "auto",
        }
    }

    fn known() -> String {
        Method::ALL
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = Error;
    fn from_str(s: &str) -> Result<Method, Error> {
        Method::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| Error::UnknownMethod {
                name: s.to_string(),
                known: Method::known(),
            })
    }
}

/// Options for [`plan`] and [`compare`].
#[derive(Clone, Debug)]
pub struct PlanOptions {
    /// The method to plan with (default `auto`).
    pub method: Method,
    /// Time a search may take, in milliseconds (needs a real [`Clock`]).
    pub budget_ms: Option<f64>,
    /// Most states a search may expand.
    pub max_states: u64,
    /// Most bytes an exact search's state table may hold ([`Budget::max_memory_bytes`]).
    pub max_memory_bytes: u64,
    /// A bound on the plan's peak (inputs included, as the simulator counts): the plan is then
    /// the schedule within it that recomputes least (docs/design.md §3). `None`: an order.
    pub memory_limit: Option<u64>,
    /// How a memory limit is met ([`RecomputeMethod`]; default `auto`).
    pub recompute_method: RecomputeMethod,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            method: Method::Auto,
            budget_ms: Some(100.0),
            max_states: 2_000_000,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            memory_limit: None,
            recompute_method: RecomputeMethod::Auto,
        }
    }
}

/// Runs one orderer.
pub fn run_method(g: &Graph, method: Method, budget: &Budget) -> Result<Ordering, Error> {
    // A search given less time than it needs to set up (a few passes over the graph) returns
    // the order it starts from, without those passes: a 1 ms budget on a 100,000-op graph.
    // Read on the clock when asked.
    let short = || budget.less_left_than(SETUP_PASSES * pass_ms(g));
    match method {
        Method::Program => order::program::program_order(g).map(Ordering::heuristic),
        Method::Greedy => Ok(Ordering::heuristic(order::greedy::greedy_order(g))),
        Method::Sp => order::series_parallel::sp_order(g).map(Ordering::heuristic),
        Method::Spize => Ok(Ordering::heuristic(order::spize::spize_order(g))),
        Method::Local => {
            // The greedy start costs about 0.4 µs per op: with no time for it, the program
            // order (one pass) is the start, when it is topological.
            let start = match order::program::program_order(g) {
                Ok(p) if budget.less_left_than(greedy_ms(g)) => p,
                _ => order::greedy::greedy_order(g),
            };
            // Local search sets up (a bound, a simulation, a tree over the steps) before it
            // first reads the clock.
            if short() {
                return Ok(Ordering::heuristic(start));
            }
            Ok(Ordering::heuristic(order::local_search::improve(
                g, &start, budget,
            )))
        }
        Method::Inductor => Ok(Ordering::heuristic(order::inductor::inductor_order(g))),
        Method::Xla => Ok(Ordering::heuristic(order::xla::xla_order(g))),
        Method::Liu => order::liu::liu_order(g).map(|order| Ordering {
            order,
            proven_optimal: true,
            lower_bound: None,
            bound_by: Some(BoundKind::Liu),
        }),
        // Both start by scoring the heuristics' orders (a check and a simulation each) and
        // set up for seconds more only when the clock leaves room: with less than that, the
        // program order, else the first heuristic, as they would return.
        // An in-forest is the exception: Liu's algorithm is near-linear and exact, and `auto`
        // promises its optimum there whatever the budget.
        Method::Exact | Method::Auto
            if short() && !(method == Method::Auto && g.is_in_forest()) =>
        {
            Ok(Ordering::heuristic(
                order::program::program_order(g).unwrap_or_else(|_| order::greedy::greedy_order(g)),
            ))
        }
        Method::Exact => Ok(order::auto::exact_with_heuristics(g, budget)),
        Method::Auto => Ok(order::auto::auto_order(g, budget)),
    }
}

/// About how long the greedy order takes on `g` (0.4 µs per op, measured on 100,000 ops).
fn greedy_ms(g: &Graph) -> f64 {
    g.num_ops() as f64 * 4e-4
}

/// Passes over the graph a search pays before it first reads the clock (see [`run_method`]).
const SETUP_PASSES: f64 = 6.0;

/// About how long one pass over `g` (a check, a simulation) takes: 20 ns per op and storage,
/// the most measured on the two 100,000-op families (`benches/budget.rs --phases`) once a
/// heap full of freed blocks makes every large allocation slow.
fn pass_ms(g: &Graph) -> f64 {
    (g.num_ops() + g.num_tensors()) as f64 * 2e-5
}

/// A plan (docs/design.md §3).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    /// Op ids in the order to run them.
    pub order: Vec<String>,
    /// The order's peak (simulated).
    pub peak_bytes: u64,
    /// Memory at the start (every graph input).
    pub inputs_bytes: u64,
    /// A true lower bound on every order's peak.
    pub lower_bound_bytes: u64,
    /// True only when proven: the peak equals the lower bound, or an exact method finished.
    pub optimal: bool,
    /// What proved the plan optimal ([`BoundKind::name`]: `"liu"`, `"search"`, `"cut"`,
    /// `"last-of-set"`, `"branching"`, `"part"`, `"simple"`); `None` unless `optimal`.
    pub proof: Option<&'static str>,
    /// What gave `lower_bound_bytes` (the same names).
    pub lower_bound_by: &'static str,
    /// The method's name.
    pub method: String,
    /// Peak of the file's order; `None` when the file's order is not topological.
    pub program_order_peak_bytes: Option<u64>,
    /// Time the method took, on the caller's clock.
    pub elapsed_ms: f64,
    /// The order as op indices.
    #[serde(skip)]
    pub order_ix: Vec<OpIx>,
    /// With a memory limit: what the schedule recomputes and what it costs (flattened into the
    /// plan's JSON; absent without a limit).
    #[serde(flatten)]
    pub recompute: Option<RecomputeInfo>,
}

/// The part of a [`Plan`] that a memory limit adds (docs/design.md §3).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecomputeInfo {
    /// The limit asked for.
    pub memory_limit_bytes: u64,
    /// What found the schedule: `order` (an order fits: nothing recomputed), `exact`,
    /// `revolve`, `evict` or `repair`.
    pub recompute_method: &'static str,
    /// The cost of the repeated runs (the sum of their ops' `cost`).
    pub added_cost: f64,
    /// A proven lower bound on the added cost of every schedule within the limit.
    pub added_cost_lower_bound: f64,
    /// How often each op that runs more than once runs, by op id.
    pub runs: BTreeMap<String, u32>,
    /// The least peak the planner found any schedule to reach (unlimited recomputation).
    pub least_limit_bytes: u64,
    /// A proven lower bound on every schedule's peak.
    pub least_limit_lower_bound_bytes: u64,
    /// The op whose run forces `least_limit_lower_bound_bytes`, if one does.
    pub least_limit_op: Option<String>,
}

/// Whether `order` is the file's order.
fn is_identity(order: &[OpIx]) -> bool {
    order.iter().enumerate().all(|(i, &v)| v as usize == i)
}

fn program_peak(g: &Graph) -> Option<u64> {
    order::program::program_order(g)
        .ok()
        .map(|o| peak_of(g, &o))
}

/// What a caller can hook into a search: a cancel flag and a progress callback.
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    /// When set to true, a search stops as if its budget ran out.
    pub cancel: Option<&'a AtomicBool>,
    /// Called now and then while a search runs.
    pub progress: Option<&'a dyn Fn(&Progress)>,
}

fn make_budget<'a>(
    opts: &PlanOptions,
    clock: &'a dyn Clock,
    start: f64,
    hooks: &Hooks<'a>,
) -> Budget<'a> {
    let mut b = Budget::new(clock, opts.budget_ms.map(|b| start + b), opts.max_states);
    b.max_memory_bytes = opts.max_memory_bytes;
    b.cancel = hooks.cancel;
    b.progress = hooks.progress;
    b
}

/// Runs `method`, re-checks its order and measures its peak.
fn plan_one<'a>(
    g: &Graph,
    opts: &PlanOptions,
    clock: &'a dyn Clock,
    hooks: &Hooks<'a>,
) -> Result<(Ordering, u64, f64), Error> {
    let start = clock.now_ms();
    // The method's deadline leaves room for the re-check below, which every plan pays.
    let mut budget = make_budget(opts, clock, start, hooks);
    budget.deadline_ms = budget.deadline_ms.map(|d| start.max(d - pass_ms(g)));
    let ordering = run_method(g, opts.method, &budget)?;
    // Every order is re-checked: a planner bug must surface as a failed check, never as a
    // silently wrong plan.
    let peak = checked_peak(g, &ordering.order)?;
    let elapsed = (clock.now_ms() - start).max(0.0);
    Ok((ordering, peak, elapsed))
}

/// Plans `g` with `opts.method`: the order, its peak, a true lower bound and whether the order
/// is proven optimal. The order is re-checked by the simulator before it is returned.
///
/// ```
/// use peakorder::examples::{seed_graph, SeedOptions};
/// use peakorder::{plan, Graph, Method, NoClock, PlanOptions};
///
/// // The nvFuser report's graph: ten relu → matmul → relu → matmul paths over 0.25 MiB tensors,
/// // listed breadth-first as nvFuser ran them.
/// let g = Graph::from_spec(seed_graph(SeedOptions::default())).unwrap();
/// let p = plan(&g, &PlanOptions::default(), &NoClock).unwrap();
/// assert_eq!(p.method, "auto");
/// assert_eq!(p.program_order_peak_bytes, Some(5_767_168)); // 5.50 MiB as written
/// assert_eq!(p.peak_bytes, 3_670_016); // 3.50 MiB planned, path by path
/// assert!(p.optimal && p.lower_bound_bytes == p.peak_bytes);
///
/// // Any other method by name; `greedy` gives no proof of its own.
/// let opts = PlanOptions { method: "greedy".parse::<Method>().unwrap(), ..PlanOptions::default() };
/// assert!(plan(&g, &opts, &NoClock).unwrap().peak_bytes >= p.peak_bytes);
/// ```
pub fn plan(g: &Graph, opts: &PlanOptions, clock: &dyn Clock) -> Result<Plan, Error> {
    plan_hooked(g, opts, clock, &Hooks::default())
}

/// The best lower bound for a plan of `g` whose order (of `method`) peaks at `peak`, and what
/// gave it. A proven optimum is itself the best bound. Otherwise, the method's own bound, the
/// part bound and (for the methods that do not compute it themselves) the whole-graph cut
/// bound with the plan's order for its upper bounds: the last two cost tens of milliseconds on
/// large graphs, so they share the search's deadline (`stop`); past it, the bounds in hand
/// are reported (still true, maybe less tight).
fn plan_bound(
    g: &Graph,
    method: Method,
    ordering: &Ordering,
    peak: u64,
    stop: &dyn Fn() -> bool,
) -> (u64, BoundKind) {
    if ordering.proven_optimal {
        return (peak, ordering.bound_by.unwrap_or(BoundKind::Search));
    }
    let offer = |best: &mut (u64, BoundKind), b: u64, by: BoundKind| {
        if b > best.0 {
            *best = (b, by);
        }
    };
    let mut best = (lower_bound(g), BoundKind::Simple);
    if let Some(b) = ordering.lower_bound {
        offer(&mut best, b, ordering.bound_by.unwrap_or(BoundKind::Search));
    }
    // Past the deadline the part bound is the simple bound again (another pass): skipped.
    if best.0 < peak && !stop() {
        offer(&mut best, part_lower_bound_until(g, stop), BoundKind::Part);
    }
    if best.0 < peak && method != Method::Auto && !stop() {
        let net = CutNetwork::new(g, &[]);
        let upper = during_in(g, &ordering.order);
        let c = cut_bound(g, &net, &upper, best.0, 0, stop);
        offer(&mut best, c.bytes, BoundKind::Cut);
    }
    (best.0.min(peak), best.1)
}

/// [`plan`] with a cancel flag and a progress callback.
pub fn plan_hooked<'a>(
    g: &Graph,
    opts: &PlanOptions,
    clock: &'a dyn Clock,
    hooks: &Hooks<'a>,
) -> Result<Plan, Error> {
    if let Some(limit) = opts.memory_limit {
        return plan_limited(g, opts, limit, clock, hooks);
    }
    let budget = make_budget(opts, clock, clock.now_ms(), hooks);
    let (ordering, peak, elapsed_ms) = plan_one(g, opts, clock, hooks)?;
    let (bound, by) = plan_bound(g, opts.method, &ordering, peak, &|| budget.expired());
    let optimal = ordering.proven_optimal || peak == bound;
    Ok(Plan {
        order: g.op_ids(&ordering.order),
        peak_bytes: peak,
        inputs_bytes: g.inputs_bytes(),
        lower_bound_bytes: bound,
        optimal,
        proof: optimal.then_some(by.name()),
        lower_bound_by: by.name(),
        method: opts.method.name().to_string(),
        // The plan's order is often the file's (a short budget, a graph already in order):
        // its peak is then known, and another pass is saved.
        program_order_peak_bytes: if is_identity(&ordering.order) {
            Some(peak)
        } else {
            program_peak(g)
        },
        elapsed_ms,
        order_ix: ordering.order,
        recompute: None,
    })
}

/// Shares of the budget with a memory limit: the order first (it decides whether anything
/// must be recomputed, and the eviction follows it), then the schedule, then the least limit.
const ORDER_SHARE: f64 = 0.5;
const SCHEDULE_SHARE: f64 = 0.6;

/// [`plan_hooked`] with a memory limit: the schedule within `limit` that recomputes least.
fn plan_limited<'a>(
    g: &Graph,
    opts: &PlanOptions,
    limit: u64,
    clock: &'a dyn Clock,
    hooks: &Hooks<'a>,
) -> Result<Plan, Error> {
    let start = clock.now_ms();
    let budget = make_budget(opts, clock, start, hooks);
    let order_opts = PlanOptions {
        budget_ms: budget.share_ms(ORDER_SHARE, None),
        memory_limit: None,
        ..opts.clone()
    };
    let (ordering, order_peak, _) = plan_one(g, &order_opts, clock, hooks)?;
    let order_stop = make_budget(&order_opts, clock, start, hooks);
    let (order_bound, _) = plan_bound(g, opts.method, &ordering, order_peak, &|| {
        order_stop.expired()
    });
    let (peak_bound, bound_op) = recompute::least_peak_bound(g);

    let found = if order_peak <= limit {
        Some((
            Found {
                schedule: ordering.order.clone(),
                added_cost: 0.0,
                cost_bound: 0.0,
            },
            "order",
        ))
    } else if limit < peak_bound {
        None
    } else {
        let phase = budget.share(SCHEDULE_SHARE, opts.max_states);
        recompute::choose::find_schedule(g, opts.recompute_method, &ordering.order, limit, &phase)?
    };
    // A planner bug must surface, never as a schedule over the limit: re-check.
    let found = match found {
        Some((f, by)) => match recompute::checked_schedule_peak(g, &f.schedule) {
            Ok(p) if p <= limit => Some((f, by, p)),
            _ => None,
        },
        None => None,
    };

    let least =
        recompute::choose::least_limit(g, &ordering.order, &budget, found.as_ref().map(|f| f.2));
    // The least limit's own schedule is a schedule too: at a limit the methods missed but it
    // meets (as at the least limit itself), it is the plan.
    let found = found.or_else(|| {
        let l = least.as_ref().filter(|l| l.peak <= limit)?;
        let schedule = recompute::prune::prune(g, l.schedule.clone(), limit, &|| budget.expired());
        let peak = recompute::checked_schedule_peak(g, &schedule).ok()?;
        let added_cost = recompute::added_cost(g, &schedule);
        Some((
            Found {
                schedule,
                added_cost,
                cost_bound: 0.0,
            },
            "evict",
            peak,
        ))
    });
    let least_peak = least
        .as_ref()
        .map_or(order_peak, |l| l.peak)
        .min(order_peak);
    let least_bound = least
        .as_ref()
        .map_or(peak_bound, |l| l.bound.max(peak_bound));
    let Some((found, by, peak)) = found else {
        return Err(Error::Infeasible {
            limit,
            least: least_peak,
            bound: least_bound,
            op: (limit < peak_bound)
                .then_some(bound_op)
                .flatten()
                .map(|v| g.ops()[v as usize].id.clone()),
        });
    };
    let added = recompute::added_cost(g, &found.schedule);
    let cost_bound = found
        .cost_bound
        .max(recompute::added_cost_bound(g, limit, order_bound))
        .min(added);
    let optimal = added <= cost_bound * (1.0 + 1e-12);
    let runs = recompute::run_counts(g, &found.schedule)
        .into_iter()
        .enumerate()
        .filter(|&(_, r)| r > 1)
        .map(|(v, r)| (g.ops()[v].id.clone(), r))
        .collect();
    let elapsed_ms = (clock.now_ms() - start).max(0.0);
    Ok(Plan {
        order: g.op_ids(&found.schedule),
        peak_bytes: peak,
        inputs_bytes: g.inputs_bytes(),
        lower_bound_bytes: least_bound.min(peak),
        optimal,
        proof: optimal.then_some(by),
        lower_bound_by: "recompute",
        method: opts.method.name().to_string(),
        program_order_peak_bytes: program_peak(g),
        elapsed_ms,
        order_ix: found.schedule,
        recompute: Some(RecomputeInfo {
            memory_limit_bytes: limit,
            recompute_method: by,
            added_cost: added,
            added_cost_lower_bound: cost_bound,
            runs,
            least_limit_bytes: least_peak.min(peak),
            least_limit_lower_bound_bytes: least_bound.min(least_peak.min(peak)),
            least_limit_op: bound_op.map(|v| g.ops()[v as usize].id.clone()),
        }),
    })
}

/// One row of [`compare`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MethodRow {
    /// The method's name.
    pub method: String,
    /// `None` when the method does not apply to this graph (see `error`).
    pub peak_bytes: Option<u64>,
    /// Proven: the method proved it, or its peak meets the best lower bound.
    pub optimal: bool,
    /// What proved this row's peak optimal (as [`Plan::proof`]); `None` unless `optimal`.
    pub proof: Option<&'static str>,
    /// Time the method took, on the caller's clock.
    pub elapsed_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Why the method does not apply, when it does not.
    pub error: Option<String>,
}

/// Every method side by side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The best lower bound: the part bound, the cut bound, or a method's proof.
    pub lower_bound_bytes: u64,
    /// What gave `lower_bound_bytes` ([`BoundKind::name`]).
    pub lower_bound_by: &'static str,
    /// Memory at the start (every graph input).
    pub inputs_bytes: u64,
    /// One row per method, in [`Method::ALL`]'s order.
    pub methods: Vec<MethodRow>,
}

/// Runs every method in [`Method::ALL`] with the same options otherwise.
pub fn compare(g: &Graph, opts: &PlanOptions, clock: &dyn Clock) -> Comparison {
    compare_hooked(g, opts, clock, &Hooks::default())
}

/// [`compare`] with a cancel flag and a progress callback.
pub fn compare_hooked<'a>(
    g: &Graph,
    opts: &PlanOptions,
    clock: &'a dyn Clock,
    hooks: &Hooks<'a>,
) -> Comparison {
    let simple = lower_bound(g);
    let part = part_lower_bound(g);
    let mut bound = if part > simple {
        (part, BoundKind::Part)
    } else {
        (simple, BoundKind::Simple)
    };
    let offer = |bound: &mut (u64, BoundKind), b: u64, by: BoundKind| {
        if b > bound.0 {
            *bound = (b, by);
        }
    };
    let mut runs = Vec::new();
    for &method in Method::ALL {
        let o = PlanOptions {
            method,
            ..opts.clone()
        };
        let r = plan_one(g, &o, clock, hooks);
        if let Ok((ordering, peak, _)) = &r {
            let by = ordering.bound_by.unwrap_or(BoundKind::Search);
            offer(&mut bound, ordering.lower_bound.unwrap_or(0), by);
            if ordering.proven_optimal {
                offer(&mut bound, *peak, by);
            }
        }
        runs.push((method, r));
    }
    // The cut bound, with every method's order bounding each op's cut from above.
    let best_peak = runs
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok().map(|x| x.1))
        .min()
        .unwrap_or(0);
    if bound.0 < best_peak {
        let net = CutNetwork::new(g, &[]);
        let mut upper = vec![u64::MAX; g.num_ops()];
        for (ordering, _, _) in runs.iter().filter_map(|(_, r)| r.as_ref().ok()) {
            for (u, x) in upper.iter_mut().zip(during_in(g, &ordering.order)) {
                *u = (*u).min(x);
            }
        }
        let c = cut_bound(g, &net, &upper, bound.0, 0, &|| false);
        offer(&mut bound, c.bytes.min(best_peak), BoundKind::Cut);
    }
    let methods = runs
        .into_iter()
        .map(|(method, r)| match r {
            Ok((ordering, peak, elapsed_ms)) => {
                let optimal = ordering.proven_optimal || peak <= bound.0;
                let by = if ordering.proven_optimal {
                    ordering.bound_by.unwrap_or(BoundKind::Search)
                } else {
                    bound.1
                };
                MethodRow {
                    method: method.name().to_string(),
                    peak_bytes: Some(peak),
                    optimal,
                    proof: optimal.then_some(by.name()),
                    elapsed_ms,
                    error: None,
                }
            }
            Err(e) => MethodRow {
                method: method.name().to_string(),
                peak_bytes: None,
                optimal: false,
                proof: None,
                elapsed_ms: 0.0,
                error: Some(e.to_string()),
            },
        })
        .collect();
    Comparison {
        lower_bound_bytes: bound.0,
        lower_bound_by: bound.1.name(),
        inputs_bytes: g.inputs_bytes(),
        methods,
    }
}
