//! The program order: the ops in the order the file lists them, when that order is topological.

use crate::error::Error;
use crate::graph::Graph;
use crate::OpIx;

/// The file's order, or the error naming the first op that runs before its input exists.
pub fn program_order(g: &Graph) -> Result<Vec<OpIx>, Error> {
    let order: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
    // The file's order is topological exactly when every op's predecessors come before it in
    // the file: one pass over the predecessor lists, no scratch memory (every plan pays it).
    if !is_topological(g) {
        g.check_order(&order)?;
    }
    Ok(order)
}

/// Whether the file's order is topological.
pub fn is_topological(g: &Graph) -> bool {
    (0..g.num_ops() as OpIx).all(|v| g.preds(v).iter().all(|&p| p < v))
}
