//! Training chains (placeholder until Revolve lands).
use super::{Least, Outcome};
use crate::graph::Graph;

/// The cheapest schedule within `limit`, when `g` is a training chain.
pub fn plan(_g: &Graph, _limit: u64) -> Outcome {
    Outcome::Unknown
}

/// The least peak of any schedule, when `g` is a training chain.
pub fn least(_g: &Graph) -> Option<Least> {
    None
}
