//! Recognition of two-terminal series-parallel graphs (Valdes, Tarjan and Lawler, "The
//! recognition of series parallel digraphs", SIAM J. Comput. 11(2), 1982, reduction form): add a
//! virtual source before every op without producers and a virtual sink after every op without
//! consumers, then repeatedly apply *series* reductions (an op with one incoming and one outgoing
//! edge is folded into a single edge) and *parallel* reductions (two edges between the same ops
//! become one). Each edge carries the decomposition tree of the ops folded into it. The graph is
//! two-terminal series-parallel when a single source→sink edge remains; its tree orders every op.
//!
//! Iterative throughout (a million-op chain must not overflow the stack).

use std::collections::{HashMap, VecDeque};

use crate::graph::Graph;
use crate::OpIx;

/// Index of a node in [`Tree::nodes`].
pub type NodeId = u32;

/// A node of a series-parallel decomposition tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// One op.
    Leaf(OpIx),
    /// Children run one after another.
    Series(VecDeque<NodeId>),
    /// Children are independent.
    Parallel(VecDeque<NodeId>),
}

/// An arena of tree nodes (unreachable entries are leftovers of flattening).
#[derive(Clone, Debug, Default)]
pub struct Tree {
    /// Every node made, addressed by [`NodeId`].
    pub nodes: Vec<Node>,
}

impl Tree {
    /// A new leaf for op `v`.
    pub fn leaf(&mut self, v: OpIx) -> NodeId {
        self.nodes.push(Node::Leaf(v));
        (self.nodes.len() - 1) as NodeId
    }

    fn kind_len(&self, id: NodeId, series: bool) -> usize {
        match &self.nodes[id as usize] {
            Node::Series(c) if series => c.len(),
            Node::Parallel(c) if !series => c.len(),
            _ => 0,
        }
    }

    fn take_children(&mut self, id: NodeId, series: bool) -> Option<VecDeque<NodeId>> {
        match &mut self.nodes[id as usize] {
            Node::Series(c) if series => Some(std::mem::take(c)),
            Node::Parallel(c) if !series => Some(std::mem::take(c)),
            _ => None,
        }
    }

    fn combine(&mut self, parts: &[Option<NodeId>], series: bool) -> Option<NodeId> {
        let mut present = parts.iter().flatten();
        let first = *present.next()?;
        if present.next().is_none() {
            return Some(first);
        }
        // Flatten same-kind children into the part with the most of them, adding the others at
        // its front or back: smaller into larger keeps long chains (built in either direction)
        // at O(n log n) in all.
        let big = (0..parts.len())
            .filter(|&i| parts[i].is_some())
            .max_by_key(|&i| (self.kind_len(parts[i].unwrap_or(0), series), usize::MAX - i))
            .unwrap_or(0);
        let big_id = parts[big].unwrap_or(first);
        let mut kids = self
            .take_children(big_id, series)
            .unwrap_or_else(|| VecDeque::from([big_id]));
        for &p in parts[..big].iter().rev().flatten() {
            match self.take_children(p, series) {
                Some(c) => c.into_iter().rev().for_each(|x| kids.push_front(x)),
                None => kids.push_front(p),
            }
        }
        for &p in parts[big + 1..].iter().flatten() {
            match self.take_children(p, series) {
                Some(c) => kids.extend(c),
                None => kids.push_back(p),
            }
        }
        self.nodes.push(if series {
            Node::Series(kids)
        } else {
            Node::Parallel(kids)
        });
        Some((self.nodes.len() - 1) as NodeId)
    }

    /// Series composition of the present parts, flattened.
    pub fn series(&mut self, parts: &[Option<NodeId>]) -> Option<NodeId> {
        self.combine(parts, true)
    }

    /// Parallel composition of the present parts, flattened.
    pub fn parallel(&mut self, parts: &[Option<NodeId>]) -> Option<NodeId> {
        self.combine(parts, false)
    }
}

/// The multigraph left by the reductions: vertices are ops plus `source` and `sink`; every edge
/// carries the tree of the ops folded into it (`None`: no ops, a plain dependency).
pub struct Reduced {
    /// The trees the edges carry.
    pub tree: Tree,
    /// The virtual source vertex (before every op without producers).
    pub source: u32,
    /// The virtual sink vertex (after every op without consumers).
    pub sink: u32,
    /// Remaining ops, in file order.
    pub vertices: Vec<u32>,
    /// Remaining edges (from, to, content), sorted.
    pub edges: Vec<(u32, u32, Option<NodeId>)>,
}

impl Reduced {
    /// The decomposition tree's root when the graph reduced to one source→sink edge.
    pub fn root(&self) -> Option<Option<NodeId>> {
        match self.edges.as_slice() {
            [(s, t, c)] if *s == self.source && *t == self.sink && self.vertices.is_empty() => {
                Some(*c)
            }
            [] if self.vertices.is_empty() => Some(None),
            _ => None,
        }
    }
}

/// A multiplicative hash for the (from, to) edge keys: SipHash's DoS resistance buys nothing
/// here and costs a third of the reduction's time.
#[derive(Default)]
struct EdgeHasher(u64);

impl std::hash::Hasher for EdgeHasher {
    fn finish(&self) -> u64 {
        // Fold the product's well-mixed high half into the low bits the table indexes by.
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

type EdgeMap = HashMap<u64, u32, std::hash::BuildHasherDefault<EdgeHasher>>;

fn key(u: u32, w: u32) -> u64 {
    ((u as u64) << 32) | w as u64
}

/// Edges in one arena, threaded on doubly linked out- and in-lists per vertex, so that removing
/// and adding edges costs O(1) and no vertex owns an allocation.
struct Edges {
    from: Vec<u32>,
    to: Vec<u32>,
    content: Vec<Option<NodeId>>,
    next_out: Vec<u32>,
    prev_out: Vec<u32>,
    next_in: Vec<u32>,
    prev_in: Vec<u32>,
    head_out: Vec<u32>,
    head_in: Vec<u32>,
    out_deg: Vec<u32>,
    in_deg: Vec<u32>,
    index: EdgeMap,
}

const NO_EDGE: u32 = u32::MAX;

impl Edges {
    fn new(nv: usize, capacity: usize) -> Self {
        Edges {
            from: Vec::with_capacity(capacity),
            to: Vec::with_capacity(capacity),
            content: Vec::with_capacity(capacity),
            next_out: Vec::with_capacity(capacity),
            prev_out: Vec::with_capacity(capacity),
            next_in: Vec::with_capacity(capacity),
            prev_in: Vec::with_capacity(capacity),
            head_out: vec![NO_EDGE; nv],
            head_in: vec![NO_EDGE; nv],
            out_deg: vec![0; nv],
            in_deg: vec![0; nv],
            index: EdgeMap::with_capacity_and_hasher(capacity, Default::default()),
        }
    }

    /// Adds u→w; an existing u→w absorbs it by parallel composition (returns true then).
    fn add(&mut self, tree: &mut Tree, u: u32, w: u32, c: Option<NodeId>) -> bool {
        if let Some(&e) = self.index.get(&key(u, w)) {
            self.content[e as usize] = tree.parallel(&[self.content[e as usize], c]);
            return true;
        }
        let e = self.from.len() as u32;
        self.from.push(u);
        self.to.push(w);
        self.content.push(c);
        self.next_out.push(self.head_out[u as usize]);
        self.prev_out.push(NO_EDGE);
        if self.head_out[u as usize] != NO_EDGE {
            self.prev_out[self.head_out[u as usize] as usize] = e;
        }
        self.head_out[u as usize] = e;
        self.next_in.push(self.head_in[w as usize]);
        self.prev_in.push(NO_EDGE);
        if self.head_in[w as usize] != NO_EDGE {
            self.prev_in[self.head_in[w as usize] as usize] = e;
        }
        self.head_in[w as usize] = e;
        self.out_deg[u as usize] += 1;
        self.in_deg[w as usize] += 1;
        self.index.insert(key(u, w), e);
        false
    }

    fn remove(&mut self, e: u32) -> Option<NodeId> {
        let (u, w) = (self.from[e as usize], self.to[e as usize]);
        let ei = e as usize;
        let (no, po) = (self.next_out[ei], self.prev_out[ei]);
        if po != NO_EDGE {
            self.next_out[po as usize] = no;
        } else {
            self.head_out[u as usize] = no;
        }
        if no != NO_EDGE {
            self.prev_out[no as usize] = po;
        }
        let (ni, pi) = (self.next_in[ei], self.prev_in[ei]);
        if pi != NO_EDGE {
            self.next_in[pi as usize] = ni;
        } else {
            self.head_in[w as usize] = ni;
        }
        if ni != NO_EDGE {
            self.prev_in[ni as usize] = pi;
        }
        self.out_deg[u as usize] -= 1;
        self.in_deg[w as usize] -= 1;
        self.index.remove(&key(u, w));
        self.content[ei].take()
    }
}

/// Applies series and parallel reductions until none applies.
pub fn reduce(g: &Graph) -> Reduced {
    let n = g.num_ops() as u32;
    let (source, sink) = (n, n + 1);
    let mut tree = Tree::default();
    let nv = n as usize + 2;
    let n_edges: usize = (0..n).map(|v| g.preds(v).len() + 2).sum();
    let mut edges = Edges::new(nv, n_edges);
    let mut removed = vec![false; nv];
    let mut work: Vec<u32> = Vec::new();
    for v in 0..n {
        if g.preds(v).is_empty() {
            edges.add(&mut tree, source, v, None);
        }
        for &p in g.preds(v) {
            edges.add(&mut tree, p, v, None);
        }
        if g.succs(v).is_empty() {
            edges.add(&mut tree, v, sink, None);
        }
    }
    // Process ops in reverse so that popping yields file order: chains then grow at their end.
    work.extend((0..n).rev());
    while let Some(x) = work.pop() {
        if x >= n || removed[x as usize] {
            continue;
        }
        let xi = x as usize;
        if edges.in_deg[xi] != 1 || edges.out_deg[xi] != 1 {
            continue;
        }
        let (e1, e2) = (edges.head_in[xi], edges.head_out[xi]);
        let (u, w) = (edges.from[e1 as usize], edges.to[e2 as usize]);
        let c1 = edges.remove(e1);
        let c2 = edges.remove(e2);
        removed[xi] = true;
        let leaf = tree.leaf(x);
        let c = tree.series(&[c1, Some(leaf), c2]);
        // A parallel merge lowers the degrees of u and w; either way they may reduce now.
        edges.add(&mut tree, u, w, c);
        work.push(w);
        work.push(u);
    }
    let vertices: Vec<u32> = (0..n).filter(|&v| !removed[v as usize]).collect();
    let mut list: Vec<(u32, u32, Option<NodeId>)> = edges
        .index
        .values()
        .map(|&e| {
            (
                edges.from[e as usize],
                edges.to[e as usize],
                edges.content[e as usize],
            )
        })
        .collect();
    list.sort_unstable_by_key(|&(u, w, _)| (u, w));
    Reduced {
        tree,
        source,
        sink,
        vertices,
        edges: list,
    }
}
