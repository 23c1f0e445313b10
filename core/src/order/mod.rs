//! Orderers: pure functions from a [`Graph`](crate::Graph) to an order of its ops.
//!
//! One algorithm per module. Each returns a complete topological order; the planner re-checks
//! it with the simulator before reporting it.

pub mod auto;
pub mod exact;
pub mod greedy;
pub mod inductor;
pub mod liu;
pub mod local_search;
pub mod program;
pub mod series_parallel;
pub mod spize;
pub mod xla;
