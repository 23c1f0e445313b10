//! Planning: run an orderer, re-check its order with the simulator, and report the plan of
//! docs/design.md §3 with a true lower bound and an honest `optimal` flag.
//!
//! The core has no clock of its own: deadlines are read through [`Clock`], which the native and
//! wasm layers implement; without one, only the state budget limits a search.

// The budget types and the orderers' result live in `budget` and `order` (which import nothing
// from here); they stay reachable under `plan::` as before.
pub use crate::budget::{Budget, Clock, NoClock, Progress, DEFAULT_MAX_MEMORY_BYTES};
pub use crate::order::Ordering;

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use crate::error::Error;
use crate::graph::Graph;
use crate::order;
use crate::order::exact::{part_lower_bound, part_lower_bound_until};
use crate::simulate::peak_of;
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
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            method: Method::Auto,
            budget_ms: Some(100.0),
            max_states: 2_000_000,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
        }
    }
}

/// Runs one orderer.
pub fn run_method(g: &Graph, method: Method, budget: &Budget) -> Result<Ordering, Error> {
    match method {
        Method::Program => order::program::program_order(g).map(Ordering::heuristic),
        Method::Greedy => Ok(Ordering::heuristic(order::greedy::greedy_order(g))),
        Method::Sp => order::series_parallel::sp_order(g).map(Ordering::heuristic),
        Method::Spize => Ok(Ordering::heuristic(order::spize::spize_order(g))),
        Method::Local => Ok(Ordering::heuristic(order::local_search::improve(
            g,
            &order::greedy::greedy_order(g),
            budget,
        ))),
        Method::Inductor => Ok(Ordering::heuristic(order::inductor::inductor_order(g))),
        Method::Xla => Ok(Ordering::heuristic(order::xla::xla_order(g))),
        Method::Liu => order::liu::liu_order(g).map(|order| Ordering {
            order,
            proven_optimal: true,
            lower_bound: None,
        }),
        Method::Exact => Ok(order::auto::exact_with_heuristics(g, budget)),
        Method::Auto => Ok(order::auto::auto_order(g, budget)),
    }
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
    /// The method's name.
    pub method: String,
    /// Peak of the file's order; `None` when the file's order is not topological.
    pub program_order_peak_bytes: Option<u64>,
    /// Time the method took, on the caller's clock.
    pub elapsed_ms: f64,
    /// The order as op indices.
    #[serde(skip)]
    pub order_ix: Vec<OpIx>,
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
    let budget = make_budget(opts, clock, start, hooks);
    let ordering = run_method(g, opts.method, &budget)?;
    // Every order is re-checked: a planner bug must surface as a failed check, never as a
    // silently wrong plan.
    g.check_order(&ordering.order)?;
    let peak = peak_of(g, &ordering.order);
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

/// [`plan`] with a cancel flag and a progress callback.
pub fn plan_hooked<'a>(
    g: &Graph,
    opts: &PlanOptions,
    clock: &'a dyn Clock,
    hooks: &Hooks<'a>,
) -> Result<Plan, Error> {
    let budget = make_budget(opts, clock, clock.now_ms(), hooks);
    let (ordering, peak, elapsed_ms) = plan_one(g, opts, clock, hooks)?;
    // A proven optimum is itself the best lower bound. The stronger part bound costs tens of
    // milliseconds on a 5,000-op graph, so it shares the search's deadline: past it, only the
    // linear bound and the search's own are reported (still true, maybe less tight).
    let bound = if ordering.proven_optimal {
        peak
    } else {
        part_lower_bound_until(g, &|| budget.expired())
            .max(ordering.lower_bound.unwrap_or(0))
            .min(peak)
    };
    Ok(Plan {
        order: g.op_ids(&ordering.order),
        peak_bytes: peak,
        inputs_bytes: g.inputs_bytes(),
        lower_bound_bytes: bound,
        optimal: ordering.proven_optimal || peak == bound,
        method: opts.method.name().to_string(),
        program_order_peak_bytes: program_peak(g),
        elapsed_ms,
        order_ix: ordering.order,
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
    /// Time the method took, on the caller's clock.
    pub elapsed_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Why the method does not apply, when it does not.
    pub error: Option<String>,
}

/// Every method side by side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The best lower bound: the part bound, or a method's proof.
    pub lower_bound_bytes: u64,
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
    let mut bound = part_lower_bound(g);
    let mut runs = Vec::new();
    for &method in Method::ALL {
        let o = PlanOptions {
            method,
            ..opts.clone()
        };
        let r = plan_one(g, &o, clock, hooks);
        if let Ok((ordering, peak, _)) = &r {
            bound = bound.max(ordering.lower_bound.unwrap_or(0));
            if ordering.proven_optimal {
                bound = bound.max(*peak);
            }
        }
        runs.push((method, r));
    }
    let methods = runs
        .into_iter()
        .map(|(method, r)| match r {
            Ok((ordering, peak, elapsed_ms)) => MethodRow {
                method: method.name().to_string(),
                peak_bytes: Some(peak),
                optimal: ordering.proven_optimal || peak <= bound,
                elapsed_ms,
                error: None,
            },
            Err(e) => MethodRow {
                method: method.name().to_string(),
                peak_bytes: None,
                optimal: false,
                elapsed_ms: 0.0,
                error: Some(e.to_string()),
            },
        })
        .collect();
    Comparison {
        lower_bound_bytes: bound,
        inputs_bytes: g.inputs_bytes(),
        methods,
    }
}
