//! The flags the planning subcommands share, as clap `Args` flattened into each: the search's
//! limits (`plan`, `compare`, `run`, `fuse`; `report` takes the time budget alone, which is all
//! the page's planner takes) and the method (`plan`, `run`, `report`). Defaults come from the core ([`PlanOptions::default`]; `fuse` overrides them
//! with [`FuseOptions::default`] and `run` its method, see their `Args`), never from numbers
//! copied here.

use std::sync::OnceLock;

use clap::Args;
use peakorder::fusion::FuseOptions;
use peakorder::recompute::RecomputeMethod;
use peakorder::{Method, PlanOptions};

use super::CliError;

/// Bytes per `--max-memory-mb` unit.
const MIB: u64 = 1 << 20;

fn default_budget_ms() -> f64 {
    PlanOptions::default().budget_ms.unwrap_or(f64::MAX)
}

fn default_max_states() -> u64 {
    PlanOptions::default().max_states
}

fn default_max_memory_mb() -> u64 {
    PlanOptions::default().max_memory_bytes / MIB
}

fn default_method() -> String {
    PlanOptions::default().method.name().to_string()
}

/// How long a search may take.
#[derive(Args, Debug, Clone)]
pub struct BudgetArg {
    /// Time budget for searches, in milliseconds.
    #[arg(long, default_value_t = default_budget_ms(), value_parser = parse_budget_ms)]
    pub budget_ms: f64,
}

/// How much a search may do: its time and its states and memory.
#[derive(Args, Debug, Clone)]
pub struct SearchLimits {
    #[command(flatten)]
    pub budget: BudgetArg,
    /// Most states a search may expand.
    #[arg(long, default_value_t = default_max_states())]
    pub max_states: u64,
    /// Most memory the exact search's state table may hold, in MiB.
    #[arg(long, default_value_t = default_max_memory_mb())]
    pub max_memory_mb: u64,
}

impl SearchLimits {
    /// The core's options for planning with `method` within these limits.
    pub fn plan_options(&self, method: Method) -> PlanOptions {
        PlanOptions {
            method,
            budget_ms: Some(self.budget.budget_ms),
            max_states: self.max_states,
            max_memory_bytes: self.max_memory_bytes(),
            ..PlanOptions::default()
        }
    }

    /// The core's fusion options within these limits.
    pub fn fuse_options(&self, peak_limit: Option<u64>) -> FuseOptions {
        FuseOptions {
            peak_limit,
            budget_ms: Some(self.budget.budget_ms),
            max_states: self.max_states,
            max_memory_bytes: self.max_memory_bytes(),
        }
    }

    fn max_memory_bytes(&self) -> u64 {
        self.max_memory_mb.saturating_mul(MIB)
    }
}

/// Which method plans the order.
#[derive(Args, Debug, Clone)]
pub struct MethodArg {
    /// Planning method: auto (optimal where it can prove it), liu, exact, or a heuristic (see
    /// `peakorder compare` for the list).
    #[arg(long, short, default_value_t = default_method())]
    pub method: String,
}

impl MethodArg {
    /// The method named (an unknown name is bad input, exit code 2).
    pub fn method(&self) -> Result<Method, CliError> {
        Ok(self.method.parse()?)
    }
}

/// A bound on the peak, met by recomputing what must be (`plan`, `compare`, `run`).
#[derive(Args, Debug, Clone)]
pub struct MemoryLimitArg {
    /// Fit the plan's peak (inputs included, as `simulate` counts it) into this many bytes,
    /// recomputing the least it can: a whole number of bytes or a number with a unit (64MiB,
    /// 1.5GiB, 2GB). Below the least limit any schedule reaches, exit 2 (`infeasible`).
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    pub memory_limit: Option<String>,
    /// How a memory limit is met: auto (the chain optimum on training chains, the exact search
    /// on small graphs, else the cheaper of peak repair and eviction), exact, revolve, evict
    /// or repair.
    #[arg(long, value_name = "METHOD", default_value_t = RecomputeMethod::default().name().to_string(), requires = "memory_limit")]
    pub recompute_method: String,
}

impl MemoryLimitArg {
    /// The limit in bytes, if one was given (a malformed one is bad input naming the value).
    pub fn limit(&self) -> Result<Option<u64>, CliError> {
        self.memory_limit
            .as_deref()
            .map(|text| {
                peakorder::units::parse_bytes(text)
                    .map_err(|e| CliError::Input(format!("--memory-limit: {e}")))
            })
            .transpose()
    }

    /// The recompute method named (an unknown name is bad input).
    pub fn method(&self) -> Result<RecomputeMethod, CliError> {
        self.recompute_method
            .parse()
            .map_err(|e| CliError::Input(format!("--recompute-method: {e}")))
    }

    /// `opts` with this limit and method.
    pub fn apply(&self, opts: PlanOptions) -> Result<PlanOptions, CliError> {
        Ok(PlanOptions {
            memory_limit: self.limit()?,
            recompute_method: self.method()?,
            ..opts
        })
    }
}

/// `fuse`'s defaults for the limits: the fusion search plans hundreds of fused graphs, so it
/// gets more than one plan's budget ([`FuseOptions::default`]). Static text, as clap wants it.
pub fn fuse_default_budget_ms() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        FuseOptions::default()
            .budget_ms
            .unwrap_or(f64::MAX)
            .to_string()
    })
}

/// See [`fuse_default_budget_ms`].
pub fn fuse_default_max_states() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| FuseOptions::default().max_states.to_string())
}

/// A time budget: a finite number of milliseconds >= 0. NaN would make a deadline that never
/// passes, so it is refused like any other bad number (exit code 2).
fn parse_budget_ms(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(b) if b.is_finite() && b >= 0.0 => Ok(b),
        _ => Err(format!("{s:?} is not a number of milliseconds >= 0")),
    }
}
