//! Series-parallel ordering: Kayaaslan, Lambert, Marchal and Uçar, "Scheduling series-parallel
//! task graphs to minimize peak memory", Theoretical Computer Science 707 (2018).
//!
//! 1. **Recognition** (Valdes, Tarjan and Lawler, "The recognition of series parallel digraphs",
//!    SIAM J. Comput. 11(2), 1982, reduction form): add a virtual source before every op without
//!    producers and a virtual sink after every op without consumers, then repeatedly apply
//!    *series* reductions (an op with one incoming and one outgoing edge is folded into a single
//!    edge) and *parallel* reductions (two edges between the same ops become one). Each edge
//!    carries the decomposition tree of the ops folded into it. The graph is two-terminal
//!    series-parallel when a single source→sink edge remains; its tree orders every op.
//! 2. **Scheduling** (the paper's algorithm, which extends Liu's hill–valley merging for trees,
//!    "An application of generalized tree pebbling to sparse matrix factorization", SIAM J.
//!    Algebraic Discrete Methods 8(3), 1987): every tree node gets a schedule cut into segments at
//!    its canonical hills and valleys (hills strictly falling, valleys strictly rising). A series
//!    node concatenates its children's schedules; a parallel node interleaves its branches'
//!    segments in non-increasing order of hill minus valley, which keeps each branch's own order.
//!
//! **Not optimal here.** The paper's optimality proof assumes every edge carries its own data. In
//! our model (docs/design.md §1) a tensor read by several ops is one storage, freed once after its last
//! reader. We charge that free to the reader itself when there is one; when the readers sit in
//! several branches of a parallel node, to the end of the merged segment holding the last of them
//! (segment membership is tracked with a union-find over ops). Segments are coarser than ops and
//! the merge order does not weigh the shared free, so a storage can stay live longer than in the
//! best order. So this is a heuristic: its peak is never reported as optimal on its account.
//!
//! All passes are iterative (a million-op chain must not overflow the stack); segments are linked
//! lists of ops, so concatenation is O(1) and a node's work is linear in its segment count.

use std::collections::{HashMap, VecDeque};

use crate::error::Error;
use crate::graph::Graph;
use crate::OpIx;

/// Index of a node in [`Tree::nodes`].
pub type NodeId = u32;

/// A node of a series-parallel decomposition tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Leaf(OpIx),
    /// Children run one after another.
    Series(VecDeque<NodeId>),
    /// Children are independent.
    Parallel(VecDeque<NodeId>),
}

/// An arena of tree nodes (unreachable entries are leftovers of flattening).
#[derive(Clone, Debug, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

impl Tree {
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
    pub tree: Tree,
    pub source: u32,
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

/// A stretch of a schedule between valleys: its highest memory and its end memory, both
/// relative to the start of the node's schedule, and its ops as a linked list.
#[derive(Clone, Copy, Debug)]
struct Seg {
    hill: i128,
    valley: i128,
    head: OpIx,
    tail: OpIx,
}

const NIL: OpIx = OpIx::MAX;

/// Union-find over ops: two ops have the same root when they are in the same segment.
fn find(uf: &mut [OpIx], mut x: OpIx) -> OpIx {
    while uf[x as usize] != x {
        // Path halving keeps later finds short without recursion.
        uf[x as usize] = uf[uf[x as usize] as usize];
        x = uf[x as usize];
    }
    x
}

fn concat(next: &mut [OpIx], uf: &mut [OpIx], a: Seg, b: Seg) -> (OpIx, OpIx) {
    if a.head == NIL {
        return (b.head, b.tail);
    }
    if b.head == NIL {
        return (a.head, a.tail);
    }
    next[a.tail as usize] = b.head;
    let (ra, rb) = (find(uf, a.head), find(uf, b.head));
    uf[rb as usize] = ra;
    (a.head, b.tail)
}

/// Appends `s` keeping hills strictly falling and valleys strictly rising (Liu's canonical form).
fn push_canonical(stack: &mut Vec<Seg>, next: &mut [OpIx], uf: &mut [OpIx], s: Seg) {
    stack.push(s);
    while stack.len() >= 2 {
        let t = stack[stack.len() - 1];
        let p = stack[stack.len() - 2];
        if t.hill >= p.hill || t.valley <= p.valley {
            let (head, tail) = concat(next, uf, p, t);
            stack.pop();
            let last = stack.len() - 1;
            stack[last] = Seg {
                hill: p.hill.max(t.hill),
                valley: t.valley,
                head,
                tail,
            };
        } else {
            break;
        }
    }
}

/// Orders `g` by hill–valley merging over the decomposition tree rooted at `root`, which must
/// contain every op exactly once and respect every dependency.
pub fn schedule_tree(g: &Graph, tree: &Tree, root: Option<NodeId>) -> Vec<OpIx> {
    let n = g.num_ops();
    let Some(root) = root else {
        return Vec::new();
    };
    let nn = tree.nodes.len();
    // Parent, depth and position among siblings of every node under the root.
    let mut parent = vec![u32::MAX; nn];
    let mut depth = vec![0u32; nn];
    let mut index_in_parent = vec![0u32; nn];
    let mut leaf_of = vec![u32::MAX; n];
    let mut post: Vec<NodeId> = Vec::with_capacity(nn);
    let mut stack: Vec<(NodeId, bool)> = vec![(root, false)];
    while let Some((x, expanded)) = stack.pop() {
        if expanded {
            post.push(x);
            continue;
        }
        stack.push((x, true));
        match &tree.nodes[x as usize] {
            Node::Leaf(v) => leaf_of[*v as usize] = x,
            Node::Series(c) | Node::Parallel(c) => {
                for (k, &ch) in c.iter().enumerate() {
                    parent[ch as usize] = x;
                    depth[ch as usize] = depth[x as usize] + 1;
                    index_in_parent[ch as usize] = k as u32;
                    stack.push((ch, false));
                }
            }
        }
    }

    // Where each storage is freed: at a leaf (its op) or at the end of a parallel node.
    let mut leaf_free = vec![0u64; n];
    // (parallel node, storage) pairs: storages freed inside a parallel node, after the merged
    // segment holding their last reader.
    let mut par_free: Vec<(NodeId, u32)> = Vec::new();
    let lca = |set: &[NodeId]| -> NodeId {
        let mut a = set[0];
        for &b0 in &set[1..] {
            let mut b = b0;
            while depth[a as usize] > depth[b as usize] {
                a = parent[a as usize];
            }
            while depth[b as usize] > depth[a as usize] {
                b = parent[b as usize];
            }
            while a != b {
                a = parent[a as usize];
                b = parent[b as usize];
            }
        }
        a
    };
    let mut set: Vec<NodeId> = Vec::new();
    for s in 0..g.num_tensors() as u32 {
        if g.pinned(s) || g.size(s) == 0 || g.users(s).is_empty() {
            continue;
        }
        set.clear();
        set.extend(g.users(s).iter().map(|&u| leaf_of[u as usize]));
        loop {
            let a = lca(&set);
            match &tree.nodes[a as usize] {
                Node::Leaf(v) => {
                    leaf_free[*v as usize] += g.size(s);
                    break;
                }
                Node::Parallel(_) => {
                    par_free.push((a, s));
                    break;
                }
                Node::Series(_) => {
                    // Readers sit in several children: the last of those children frees it.
                    let child_of = |mut x: NodeId| {
                        while parent[x as usize] != a {
                            x = parent[x as usize];
                        }
                        x
                    };
                    let last = set
                        .iter()
                        .map(|&x| index_in_parent[child_of(x) as usize])
                        .max()
                        .unwrap_or(0);
                    set.retain(|&x| index_in_parent[child_of(x) as usize] == last);
                }
            }
        }
    }

    par_free.sort_unstable();
    let mut next = vec![NIL; n];
    let mut uf: Vec<OpIx> = (0..n as OpIx).collect();
    // Merged position of each segment at the parallel node being merged, by its root op.
    let mut seg_at = vec![0u32; n];
    // A leaf's single segment, computed where it is used (leaves own no vector).
    let leaf_seg = |v: OpIx| {
        let mut freed = leaf_free[v as usize];
        for &s in g.creates(v) {
            if g.users(s).is_empty() && !g.pinned(s) {
                freed += g.size(s);
            }
        }
        Seg {
            hill: (g.alloc(v) + g.workspace(v)) as i128,
            valley: g.alloc(v) as i128 - freed as i128,
            head: v,
            tail: v,
        }
    };
    let mut segs: Vec<Vec<Seg>> = vec![Vec::new(); nn];
    let take = |segs: &mut Vec<Vec<Seg>>, c: NodeId| match tree.nodes[c as usize] {
        Node::Leaf(v) => vec![leaf_seg(v)],
        _ => std::mem::take(&mut segs[c as usize]),
    };
    for &x in &post {
        let result = match &tree.nodes[x as usize] {
            Node::Leaf(_) => continue,
            Node::Series(children) => {
                let mut out: Vec<Seg> = Vec::new();
                let mut base: i128 = 0;
                for &c in children {
                    if let Node::Leaf(v) = tree.nodes[c as usize] {
                        let s = leaf_seg(v);
                        push_canonical(
                            &mut out,
                            &mut next,
                            &mut uf,
                            Seg {
                                hill: s.hill + base,
                                valley: s.valley + base,
                                ..s
                            },
                        );
                        base += s.valley;
                        continue;
                    }
                    let cs = take(&mut segs, c);
                    let end = cs.last().map_or(0, |s| s.valley);
                    for s in cs {
                        push_canonical(
                            &mut out,
                            &mut next,
                            &mut uf,
                            Seg {
                                hill: s.hill + base,
                                valley: s.valley + base,
                                ..s
                            },
                        );
                    }
                    base += end;
                }
                out
            }
            Node::Parallel(children) => {
                // (key, branch, segment): branches' own segments already fall in key.
                let mut all: Vec<(i128, usize, Seg)> = Vec::new();
                for (b, &c) in children.iter().enumerate() {
                    if let Node::Leaf(v) = tree.nodes[c as usize] {
                        let s = leaf_seg(v);
                        all.push((s.hill - s.valley, b, s));
                        continue;
                    }
                    for s in std::mem::take(&mut segs[c as usize]) {
                        all.push((s.hill - s.valley, b, s));
                    }
                }
                all.sort_by_key(|a| std::cmp::Reverse(a.0));
                // Storages read in several branches are freed after the merged segment that
                // holds their last reader.
                for (i, (_, _, s)) in all.iter().enumerate() {
                    let r = find(&mut uf, s.head);
                    seg_at[r as usize] = i as u32;
                }
                let mut free_after = vec![0i128; all.len()];
                let from = par_free.partition_point(|&(node, _)| node < x);
                let to = par_free.partition_point(|&(node, _)| node <= x);
                for &(_, st) in &par_free[from..to] {
                    let last = g
                        .users(st)
                        .iter()
                        .map(|&u| seg_at[find(&mut uf, u) as usize])
                        .max()
                        .unwrap_or(all.len() as u32 - 1);
                    free_after[last as usize] += g.size(st) as i128;
                }
                let mut at = vec![0i128; children.len()];
                let mut base: i128 = 0;
                let mut out: Vec<Seg> = Vec::new();
                for (i, (_, b, s)) in all.into_iter().enumerate() {
                    let hill = base + (s.hill - at[b]);
                    base += s.valley - at[b] - free_after[i];
                    at[b] = s.valley;
                    push_canonical(
                        &mut out,
                        &mut next,
                        &mut uf,
                        Seg {
                            hill,
                            valley: base,
                            ..s
                        },
                    );
                }
                out
            }
        };
        segs[x as usize] = result;
    }
    let root_segs = take(&mut segs, root);
    let mut order = Vec::with_capacity(n);
    for s in &root_segs {
        let mut v = s.head;
        while v != NIL {
            order.push(v);
            if v == s.tail {
                break;
            }
            v = next[v as usize];
        }
    }
    order
}

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
