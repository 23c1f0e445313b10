//! The program order: the ops in the order the file lists them, when that order is topological.

use crate::error::Error;
use crate::graph::Graph;
use crate::OpIx;

/// The file's order, or the error naming the first op that runs before its input exists.
pub fn program_order(g: &Graph) -> Result<Vec<OpIx>, Error> {
    let order: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
    // Validation knows whether the file's order is topological (every op's predecessors come
    // before it in the file), so this costs no pass over the graph: every plan pays it, and a
    // 1 ms plan of a 100,000-op graph has room for about one pass. When it is not, the full
    // check names the first op that runs too early.
    if !g.program_is_topological() {
        g.check_order(&order)?;
    }
    Ok(order)
}
