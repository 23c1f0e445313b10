//! SP-ization: make any DAG series-parallel by adding synchronisation, so that the
//! series-parallel orderer ([`series_parallel`](super::series_parallel)) applies. After
//! González-Escribano, van Gemund and Cardeñoso-Payo, "Mapping unstructured applications into
//! nested parallelism" (VECPAR 2002), whose SP-ization synchronises a DAG level by level.
//!
//! We first apply the series and parallel reductions, which fold every series-parallel part of
//! the graph into edges without adding any constraint. Only the irreducible core that remains is
//! synchronised, in two ways, keeping the lower peak:
//! - by levels, as in the paper: core ops are placed on levels by longest path from the source,
//!   each level becomes a parallel composition, and the levels run in series;
//! - as a chain: the core ops in the greedy order ([`greedy`](super::greedy)), one after another.
//!
//! Either way an edge's folded ops run just before the op it enters (they need only its tail,
//! which comes earlier), scheduled by hill–valley merging. Every original dependency is kept, so
//! the result is a valid order; the added synchronisation can cost memory, which is why this is
//! one candidate among several, never a claim of optimality.

use crate::graph::Graph;
use crate::order::series_parallel::{reduce, schedule_tree, NodeId};
use crate::simulate::peak_of;
use crate::OpIx;

/// The SP-ized order of `g` (equal to the `sp` order when `g` is series-parallel).
pub fn spize_order(g: &Graph) -> Vec<OpIx> {
    let mut r = reduce(g);
    if let Some(root) = r.root() {
        return schedule_tree(g, &r.tree, root);
    }
    let nv = g.num_ops() + 2;
    let (source, sink) = (r.source, r.sink);
    // In- and out-edges per vertex as compressed rows (the edge list is sorted by tail).
    let m = r.edges.len();
    let mut out_start = vec![0usize; nv + 1];
    let mut in_start = vec![0usize; nv + 1];
    for &(u, w, _) in &r.edges {
        out_start[u as usize + 1] += 1;
        in_start[w as usize + 1] += 1;
    }
    for i in 0..nv {
        out_start[i + 1] += out_start[i];
        in_start[i + 1] += in_start[i];
    }
    let mut in_edges: Vec<u32> = vec![0; m];
    let mut fill = in_start.clone();
    for (e, &(_, w, _)) in r.edges.iter().enumerate() {
        in_edges[fill[w as usize]] = e as u32;
        fill[w as usize] += 1;
    }
    let ins = |v: u32| {
        in_edges[in_start[v as usize]..in_start[v as usize + 1]]
            .iter()
            .map(|&e| r.edges[e as usize].2)
    };
    let outs = |u: u32| {
        r.edges[out_start[u as usize]..out_start[u as usize + 1]]
            .iter()
            .map(|&(_, w, _)| w)
    };
    let mut indeg: Vec<u32> = (0..nv)
        .map(|v| (in_start[v + 1] - in_start[v]) as u32)
        .collect();
    let mut level = vec![0u32; nv];
    let mut queue = vec![source];
    let mut head = 0;
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        for w in outs(u) {
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
    // Second variant, on its own copy of the arena (building a tree consumes flattened nodes):
    // the core as one chain in the greedy order.
    let mut chain_tree = r.tree.clone();
    let greedy = crate::order::greedy::greedy_order(g);
    let mut rank = vec![0u32; nv];
    for (i, &v) in greedy.iter().enumerate() {
        rank[v as usize] = i as u32;
    }
    let mut core: Vec<u32> = r.vertices.clone();
    core.sort_unstable_by_key(|&v| rank[v as usize]);
    let mut links: Vec<Option<NodeId>> = Vec::with_capacity(core.len() + 1);
    for &v in &core {
        let incoming: Vec<Option<NodeId>> = ins(v).collect();
        let before = chain_tree.parallel(&incoming);
        let leaf = chain_tree.leaf(v);
        links.push(chain_tree.series(&[before, Some(leaf)]));
    }
    let last: Vec<Option<NodeId>> = ins(sink).collect();
    links.push(chain_tree.parallel(&last));
    let chain_root = chain_tree.series(&links);
    let chained = schedule_tree(g, &chain_tree, chain_root);

    let mut stages: Vec<Option<NodeId>> = Vec::with_capacity(by_level.len() + 1);
    for ops in &by_level {
        let mut branches: Vec<Option<NodeId>> = Vec::with_capacity(ops.len());
        for &v in ops {
            let incoming: Vec<Option<NodeId>> = ins(v).collect();
            let before = r.tree.parallel(&incoming);
            let leaf = r.tree.leaf(v);
            branches.push(r.tree.series(&[before, Some(leaf)]));
        }
        stages.push(r.tree.parallel(&branches));
    }
    let last: Vec<Option<NodeId>> = ins(sink).collect();
    stages.push(r.tree.parallel(&last));
    let root = r.tree.series(&stages);
    let levelled = schedule_tree(g, &r.tree, root);
    if peak_of(g, &chained) < peak_of(g, &levelled) {
        chained
    } else {
        levelled
    }
}
