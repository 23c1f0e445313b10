//! Eviction along an order (placeholder until it lands).
use super::{Least, Outcome};
use crate::budget::Budget;
use crate::graph::Graph;
use crate::OpIx;

/// A schedule within `limit` that follows `order`, recomputing what it evicted.
pub fn plan(_g: &Graph, _order: &[OpIx], _limit: u64, _budget: &Budget) -> Outcome {
    Outcome::Unknown
}

/// The least peak eviction along `order` reaches.
pub fn least(_g: &Graph, _order: &[OpIx], _budget: &Budget) -> Option<Least> {
    None
}
