//! Orderers: pure functions from a [`Graph`](crate::Graph) to an order of its ops.
//!
//! One algorithm per module. Each returns a complete topological order; the planner re-checks
//! it with the simulator before reporting it.

pub mod alap;
pub mod auto;
pub mod defer;
pub mod exact;
pub mod greedy;
pub mod inductor;
pub mod liu;
pub mod local_search;
pub mod program;
pub mod series_parallel;
pub mod spize;
pub mod xla;

use crate::bounds::BoundKind;
use crate::OpIx;

/// What an orderer found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ordering {
    /// A complete topological order.
    pub order: Vec<OpIx>,
    /// The method proved no order has a lower peak.
    pub proven_optimal: bool,
    /// A lower bound the method proved, beyond [`crate::bounds::lower_bound`].
    pub lower_bound: Option<u64>,
    /// What gave `lower_bound` (or proved the order optimal).
    pub bound_by: Option<BoundKind>,
}

impl Ordering {
    /// An order with no proof attached.
    pub fn heuristic(order: Vec<OpIx>) -> Ordering {
        Ordering {
            order,
            proven_optimal: false,
            lower_bound: None,
            bound_by: None,
        }
    }
}
