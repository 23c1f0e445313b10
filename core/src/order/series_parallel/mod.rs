//! Series-parallel ordering: recognise a two-terminal series-parallel graph and build its
//! decomposition tree (`recognize.rs`, Valdes, Tarjan and Lawler 1982), then schedule the tree by
//! hill–valley merging (`schedule.rs`, Kayaaslan, Lambert, Marchal and Uçar 2018). A heuristic in
//! our memory model (see `schedule.rs` for why the paper's optimality does not carry over).

mod recognize;
mod schedule;

pub use recognize::{reduce, Node, NodeId, Reduced, Tree};
pub use schedule::schedule_tree;

use crate::error::Error;
use crate::graph::Graph;
use crate::OpIx;

/// The series-parallel order of `g`, or `NotApplicable` when `g` is not series-parallel (use
/// `spize`, which adds synchronisation first).
pub fn sp_order(g: &Graph) -> Result<Vec<OpIx>, Error> {
    let r = reduce(g);
    match r.root() {
        Some(root) => Ok(schedule_tree(g, &r.tree, root)),
        None => Err(Error::NotApplicable {
            method: "sp".into(),
            reason: format!(
                "the graph is not series-parallel ({} ops left after series and parallel \
                 reductions); `spize` makes it series-parallel first",
                r.vertices.len()
            ),
        }),
    }
}
