//! The program order: the ops in the order the file lists them, when that order is topological.

use crate::error::Error;
use crate::graph::Graph;
use crate::OpIx;

/// The file's order, or the error naming the first op that runs before its input exists.
pub fn program_order(g: &Graph) -> Result<Vec<OpIx>, Error> {
    let order: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
    g.check_order(&order)?;
    Ok(order)
}
