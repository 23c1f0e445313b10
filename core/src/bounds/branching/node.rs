//! What the search keeps: its nodes (a set of arcs with an order that keeps them, its bound and
//! the cuts found for it) and the orders that bound its children's cuts.

use std::rc::Rc;

use crate::bounds::cut::Known;
use crate::OpIx;

/// "The first op runs before the second."
pub(super) type Arc = (OpIx, OpIx);

/// An open node with the pair to branch it by and the other pair it suggested (see
/// [`super::evaluate::Eval`]).
pub(super) type Open = (Node, Option<Arc>, Option<Arc>);

pub(super) struct Node {
    pub(super) arcs: Vec<(OpIx, OpIx)>,
    pub(super) bound: u64,
    pub(super) order: Vec<OpIx>,
    /// The peak of `order`.
    pub(super) peak: u64,
    /// The cuts computed for this node (each exact while its downset stays one).
    pub(super) known: Vec<(OpIx, Known)>,
    /// Orders that bound its children's cuts (see [`super::repair::repaired_upper`]).
    pub(super) bounders: Vec<Bounder>,
    /// The search's seed (by its number) repaired to keep this node's arcs (see
    /// `Search::offer_seed`).
    pub(super) seed: Option<(u64, Bounder)>,
}

/// An order of the graph that keeps the first `keeps` arcs of the node holding it.
#[derive(Clone)]
pub(super) struct Bounder {
    pub(super) order: Rc<Vec<OpIx>>,
    /// The memory while each op runs in `order` (by op), and its peak.
    pub(super) during: Rc<Vec<u64>>,
    pub(super) peak: u64,
    pub(super) keeps: usize,
}

/// What `node` holds in memory (its order, its arcs, its cuts' downsets and its share of its
/// bounders and seed): what [`super::Limits::max_bytes`] counts.
pub(super) fn node_bytes(node: &Node) -> u64 {
    let words = node.order.len().div_ceil(64) as u64;
    // A bounder is shared by the nodes below the one that repaired it: each pays its share.
    let bounders: usize = node
        .bounders
        .iter()
        .map(|b| 24 + b.order.len() * 12 / Rc::strong_count(&b.order))
        .sum::<usize>()
        + node
            .seed
            .iter()
            .map(|(_, b)| 24 + b.order.len() * 12 / Rc::strong_count(&b.order))
            .sum::<usize>();
    (node.order.len() * 4 + node.arcs.len() * 8 + bounders) as u64
        + node.known.len() as u64 * (32 + 8 * words)
}
