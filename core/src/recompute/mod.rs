//! Recomputation planned with the order: fit a program into a byte limit with the least added
//! cost (docs/design.md §1 "Recomputation", §3 "Plans with a memory limit"; docs/recompute.md).
//!
//! A *schedule* is an order in which an op may run more than once ([`schedule`]). Given a
//! limit on the peak, the planner looks for the schedule whose repeated runs cost least:
//! - [`exact`]: a best-first search over (ops run, storages live) states, proven optimal, for
//!   small graphs;
//! - [`chain`]: the optimal checkpointing schedule of a training chain (Griewank & Walther,
//!   "Revolve", ACM TOMS 2000), exact in this memory model;
//! - [`evict`]: for large graphs, eviction along a planned order with cost-aware choices
//!   (Kirisame et al., "Dynamic Tensor Rematerialization", ICLR 2021), then [`prune`]: the
//!   recomputations the schedule does not need are dropped;
//! - [`repair`]: for large graphs too, the order with recomputations added one at a time where
//!   they remove the most excess per unit of cost (Capuchin's selection, Peng et al., ASPLOS
//!   2020), then [`prune`];
//! - [`rework`]: destroy and repair of a found schedule (one op's repeats out, [`repair`]'s
//!   passes from there, [`prune`]), kept when cheaper.
//!
//! Each returns a schedule that [`schedule::simulate_schedule`] re-checks before it is
//! reported, and a lower bound on the added cost ([`bounds`]).

pub mod bounds;
pub mod chain;
pub mod choose;
pub mod evict;
pub mod exact;
pub mod prune;
pub mod repair;
pub mod rework;
pub mod schedule;

pub use bounds::{added_cost_bound, least_peak_bound};
pub use schedule::{
    added_cost, check_schedule, checked_schedule_peak, run_counts, schedule_peak, simulate_schedule,
};

use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::OpIx;

/// A recompute planning method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RecomputeMethod {
    /// The chain optimum where the graph is a training chain, the exact search on small graphs,
    /// else eviction.
    #[default]
    Auto,
    /// [`exact`]: proven optimal within the budget.
    Exact,
    /// [`chain`]: training chains only.
    Revolve,
    /// [`evict`]: any graph.
    Evict,
    /// [`repair`]: any graph.
    Repair,
}

impl RecomputeMethod {
    /// Every method, in the order `compare` lists them.
    pub const ALL: &'static [RecomputeMethod] = &[
        RecomputeMethod::Auto,
        RecomputeMethod::Exact,
        RecomputeMethod::Revolve,
        RecomputeMethod::Evict,
        RecomputeMethod::Repair,
    ];

    /// The name used on the command line and in plans.
    pub fn name(self) -> &'static str {
        match self {
            RecomputeMethod::Auto => "auto",
            RecomputeMethod::Exact => "exact",
            RecomputeMethod::Revolve => "revolve",
            RecomputeMethod::Evict => "evict",
            RecomputeMethod::Repair => "repair",
        }
    }
}

impl fmt::Display for RecomputeMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RecomputeMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<RecomputeMethod, Error> {
        RecomputeMethod::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| Error::UnknownMethod {
                name: s.to_string(),
                known: RecomputeMethod::ALL
                    .iter()
                    .map(|m| m.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// A schedule a method found within a limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// A valid schedule (every op at least once) whose peak is within the limit.
    pub schedule: Vec<OpIx>,
    /// Its added cost ([`schedule::added_cost`]).
    pub added_cost: f64,
    /// A proven lower bound on the added cost of every schedule within the limit.
    pub cost_bound: f64,
}

/// What a method says about one limit.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A schedule within the limit.
    Found(Found),
    /// Proven: no schedule is within the limit. `least` is the least peak any schedule
    /// reaches, when the method knows it.
    Infeasible {
        /// The least peak of any schedule, if known.
        least: Option<u64>,
    },
    /// The method does not apply, or ran out of budget without an answer.
    Unknown,
}

/// The least peak a method can reach with unlimited recomputation, and a proven lower bound.
#[derive(Clone, Debug, PartialEq)]
pub struct Least {
    /// A schedule that reaches `peak`.
    pub schedule: Vec<OpIx>,
    /// Its peak.
    pub peak: u64,
    /// A proven lower bound on every schedule's peak.
    pub bound: u64,
}
