//! peakorder: order the operations of a tensor program so that peak memory is as low as possible.
//!
//! The data path reads straight through:
//! JSON ([`mod@format`]) → validated [`Graph`] (compact integer indices) → an orderer (a pure function
//! in [`order`]) → [`Plan`] → [`simulate()`].
//!
//! The memory model is the contract of `docs/design.md` §1; [`simulate()`] is its reference
//! implementation and every planner's result is re-checked by it.
//!
//! The crate does no I/O and has no clock of its own: callers that want deadlines pass a [`Clock`].

#![warn(missing_docs)]

pub mod bounds;
pub mod budget;
mod csr;
pub mod dtype;
pub mod error;
pub mod examples;
pub mod format;
pub mod fusion;
#[doc(hidden)]
pub mod generators;
pub mod graph;
mod id_index;
#[doc(hidden)]
pub mod invariants;
pub mod layout;
mod maxflow;
pub mod order;
pub mod plan;
pub mod recompute;
#[doc(hidden)]
pub mod referee;
pub mod simulate;
mod sort;
pub mod units;
pub mod work;

pub use bounds::lower_bound;
pub use budget::{Budget, Clock, NoClock, Progress};
pub use error::Error;
pub use graph::{Graph, Op, Tensor};
pub use layout::{layout, Layout, LayoutMethod, LayoutOptions};
pub use plan::{
    compare, compare_hooked, plan, plan_hooked, Comparison, Hooks, Method, MethodRow, Plan,
    PlanOptions,
};
pub use simulate::{peak_of, simulate, Simulation, Step};

/// Index of an op in [`Graph::ops`] (the file's order).
pub type OpIx = u32;
/// Index of a tensor in [`Graph::tensors`] (the file's order).
pub type TensorIx = u32;
