//! SP-ization: make any DAG series-parallel by adding synchronisation, so that the
//! series-parallel orderer ([`series_parallel`](super::series_parallel)) applies. After
//! González-Escribano, van Gemund and Cardeñoso-Payo, "Mapping unstructured applications into
//! nested parallelism" (VECPAR 2002), whose SP-ization synchronises a DAG level by level.
//!
//! We first apply the series and parallel reductions, which fold every series-parallel part of
//! the graph into edges without adding any constraint. Only the irreducible core that remains is
//! synchronised: its ops are placed on levels by longest path from the source, each level becomes
//! a parallel composition, and the levels run in series. An edge's folded ops run in the branch of
//! the op it enters (they need only its tail, which sits on an earlier level). Every original
//! dependency is kept, so the result is a valid order; the added synchronisation can cost memory,
//! which is why this is one candidate among several, never a claim of optimality.

use crate::graph::Graph;
use crate::order::series_parallel::{reduce, schedule_tree, NodeId};
use crate::OpIx;

/// The SP-ized order of `g` (equal to the `sp` order when `g` is series-parallel).
pub fn spize_order(g: &Graph) -> Vec<OpIx> {
    let mut r = reduce(g);
    if let Some(root) = r.root() {
        return schedule_tree(g, &r.tree, root);
    }
    let nv = g.num_ops() + 2;
    let (source, sink) = (r.source, r.sink);
    // In-edges per vertex, and the core's longest-path levels (Kahn's algorithm).
    let mut ins: Vec<Vec<(u32, Option<NodeId>)>> = vec![Vec::new(); nv];
    let mut outs: Vec<Vec<u32>> = vec![Vec::new(); nv];
    for &(u, w, c) in &r.edges {
        ins[w as usize].push((u, c));
        outs[u as usize].push(w);
    }
    let mut indeg: Vec<u32> = ins.iter().map(|e| e.len() as u32).collect();
    let mut level = vec![0u32; nv];
    let mut queue = vec![source];
    let mut head = 0;
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        for &w in &outs[u as usize] {
            level[w as usize] = level[w as usize].max(level[u as usize] + 1);
            indeg[w as usize] -= 1;
            if indeg[w as usize] == 0 {
                queue.push(w);
            }
        }
    }
    let top = r
        .vertices
        .iter()
        .map(|&v| level[v as usize])
        .max()
        .unwrap_or(0);
    let mut by_level: Vec<Vec<u32>> = vec![Vec::new(); top as usize + 1];
    for &v in &r.vertices {
        by_level[level[v as usize] as usize].push(v);
    }
    let mut stages: Vec<Option<NodeId>> = Vec::with_capacity(by_level.len() + 1);
    for ops in &by_level {
        let mut branches: Vec<Option<NodeId>> = Vec::with_capacity(ops.len());
        for &v in ops {
            let incoming: Vec<Option<NodeId>> = ins[v as usize].iter().map(|&(_, c)| c).collect();
            let before = r.tree.parallel(&incoming);
            let leaf = r.tree.leaf(v);
            branches.push(r.tree.series(&[before, Some(leaf)]));
        }
        stages.push(r.tree.parallel(&branches));
    }
    let last: Vec<Option<NodeId>> = ins[sink as usize].iter().map(|&(_, c)| c).collect();
    stages.push(r.tree.parallel(&last));
    let root = r.tree.series(&stages);
    schedule_tree(g, &r.tree, root)
}
