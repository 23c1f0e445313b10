//! Exact recompute search (placeholder until the search lands).
use super::{Least, Outcome};
use crate::budget::Budget;
use crate::graph::Graph;

/// The cheapest schedule within `limit`.
pub fn search(_g: &Graph, _limit: u64, _budget: &Budget) -> Outcome {
    Outcome::Unknown
}

/// The least peak of any schedule.
pub fn least(_g: &Graph, _budget: &Budget) -> Option<Least> {
    None
}
