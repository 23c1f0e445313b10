//! Scheduling a series-parallel decomposition tree (Kayaaslan, Lambert, Marchal and Uçar,
//! "Scheduling series-parallel task graphs to minimize peak memory", Theoretical Computer Science
//! 707 (2018), which extends Liu's hill–valley merging for trees, "An application of generalized
//! tree pebbling to sparse matrix factorization", SIAM J. Algebraic Discrete Methods 8(3), 1987):
//! every tree node gets a schedule cut into segments at its canonical hills and valleys (hills
//! strictly falling, valleys strictly rising). A series node concatenates its children's
//! schedules; a parallel node interleaves its branches' segments in non-increasing order of hill
//! minus valley, which keeps each branch's own order.
//!
//! **Not optimal here.** The paper's optimality proof assumes every edge carries its own data. In
//! our model (docs/design.md §1) a tensor read by several ops is one storage, freed once after its
//! last reader. We charge that free to the reader itself when there is one; when the readers sit
//! in several branches of a parallel node, to the end of the merged segment holding the last of
//! them (segment membership is tracked with a union-find over ops). Segments are coarser than ops
//! and the merge order does not weigh the shared free, so a storage can stay live longer than in
//! the best order. So this is a heuristic: its peak is never reported as optimal on its account.
//!
//! All passes are iterative (a million-op chain must not overflow the stack); segments are linked
//! lists of ops, so concatenation is O(1) and a node's work is linear in its segment count.

use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::OpIx;

use super::recognize::{Node, NodeId, Tree};

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

    par_free.sort_unstable_compact();
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
                all.sort_by_key_compact(|a| std::cmp::Reverse(a.0));
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
