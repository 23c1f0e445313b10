//! Liu's optimal order for in-forests.
//!
//! J. W. H. Liu, "An application of generalized tree pebbling to sparse matrix factorization",
//! SIAM J. Algebraic Discrete Methods 8(3), 1987: each subtree's schedule is cut into hill–valley
//! segments, and the children's segments are merged by (hill − valley) descending. We use the
//! equivalent job formulation of H. M. Abdel-Wahab and T. Kameda, "Scheduling to minimize maximum
//! cumulative cost subject to series-parallel precedence constraints", Operations Research 26(1),
//! 1978, which also covers memory that goes *down* (donated inputs freed mid-run).
//!
//! ## When it is exact in our model
//! Liu's model needs the memory after a set of ops to be a sum of per-op amounts fixed in advance.
//! In docs/design.md §1 that holds exactly when
//! 1. every op has at most one successor (the dependencies form an in-forest), and
//! 2. every storage that is freed at all has a *determined last user*: one of its users that every
//!    other user must precede (for a storage with one user, that user).
//!
//! Then op `v` is a job with rise `r = alloc + workspace` (memory while it runs, above what was
//! live) and net change `n = alloc − freed`, where `freed` counts the storages whose determined
//! last user is `v` (and `v`'s own outputs nobody reads), unless pinned. Pinned storages, graph
//! outputs consumed later, views, multi-output ops and workspace all fit; a storage read by two ops
//! neither of which must run after the other (e.g. a donated input read by two leaves) does not:
//! when it is freed depends on the order, and [`liu_order`] refuses it with
//! [`Error::NotApplicable`].
//!
//! ## The algorithm
//! A *segment* is a run of ops with rise `r` (peak above the memory before it) and net `n`. Two
//! independent segments are best run in this order: those that free memory (`n < 0`) first, by
//! rise ascending; then the others by `r − n` (hill − valley) descending. A chain whose segments
//! are out of that order is merged at the violation (the two run back to back in some optimal
//! order). Children first, each subtree's segments sit in a max-heap keyed by that order; an op
//! melds its children's heaps, then merges its own job with the heap's last segments while they
//! are out of order. Leftist heaps meld in O(log n) and every merge removes a segment, so the whole
//! run is O(n log n). Everything is iterative.

use crate::error::{show_id, Error};
use crate::graph::Graph;
use crate::{OpIx, TensorIx};

const NIL: u32 = u32::MAX;

/// Why `g` is not an in-forest that Liu's algorithm solves exactly, or `None` when it is.
pub fn not_applicable_reason(g: &Graph) -> Option<String> {
    last_users(g).err()
}

/// True when [`liu_order`] applies to `g` (and is then optimal).
pub fn applies(g: &Graph) -> bool {
    not_applicable_reason(g).is_none()
}

fn op_name(g: &Graph, v: OpIx) -> String {
    show_id(&g.ops()[v as usize].id)
}

fn tensor_name(g: &Graph, t: TensorIx) -> String {
    show_id(&g.tensors()[t as usize].id)
}

/// For each storage, its determined last user (`NIL` if none or pinned); or why there is none.
fn last_users(g: &Graph) -> Result<Vec<u32>, String> {
    let n = g.num_ops();
    for v in 0..n as OpIx {
        let s = g.succs(v);
        if s.len() > 1 {
            let others = if s.len() > 2 {
                format!(", {} and {} more", op_name(g, s[1]), s.len() - 2)
            } else {
                format!(" and {}", op_name(g, s[1]))
            };
            return Err(format!(
                "op {} feeds {} ops ({}{others}), so the graph is not an in-forest",
                op_name(g, v),
                s.len(),
                op_name(g, s[0]),
            ));
        }
    }
    // Postorder numbers and subtree sizes of the forest (children = preds), iteratively: a user
    // precedes `u` in every order exactly when it lies in `u`'s subtree.
    let mut post = vec![0u32; n];
    let mut size = vec![1u32; n];
    let mut counter = 0u32;
    let mut stack: Vec<(OpIx, usize)> = Vec::new();
    for root in 0..n as OpIx {
        if !g.succs(root).is_empty() {
            continue;
        }
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            let preds = g.preds(v);
            if i < preds.len() {
                top.1 += 1;
                stack.push((preds[i], 0));
            } else {
                stack.pop();
                post[v as usize] = counter;
                counter += 1;
                if let Some(&(p, _)) = stack.last() {
                    size[p as usize] += size[v as usize];
                }
            }
        }
    }
    let mut last = vec![NIL; g.num_tensors()];
    for s in 0..g.num_tensors() as TensorIx {
        let users = g.users(s);
        if users.is_empty() || g.pinned(s) {
            continue;
        }
        let &cand = users
            .iter()
            .max_by_key(|&&u| post[u as usize])
            .expect("non-empty");
        let lo = post[cand as usize] + 1 - size[cand as usize];
        if let Some(&other) = users
            .iter()
            .find(|&&u| u != cand && !(lo..=post[cand as usize]).contains(&post[u as usize]))
        {
            return Err(format!(
                "storage {} is read by ops {} and {}, and neither must run after the other, so \
                 when it is freed depends on the order",
                tensor_name(g, s),
                op_name(g, other),
                op_name(g, cand)
            ));
        }
        last[s as usize] = cand;
    }
    Ok(last)
}

/// Segment `a` should run before segment `b` (strictly) under the exchange order.
#[inline]
fn key(r: i128, n: i128) -> (u8, i128) {
    if n < 0 {
        (0, r)
    } else {
        (1, -(r - n))
    }
}

struct Segments {
    r: Vec<i128>,
    n: Vec<i128>,
    head: Vec<OpIx>,
    tail: Vec<OpIx>,
    // Leftist max-heap links (the root is the segment that runs last).
    left: Vec<u32>,
    right: Vec<u32>,
    rank: Vec<u32>,
}

impl Segments {
    #[inline]
    fn k(&self, x: u32) -> ((u8, i128), u32) {
        // Ties go by index so that the result does not depend on the heap's shape.
        (key(self.r[x as usize], self.n[x as usize]), x)
    }
    #[inline]
    fn rank_of(&self, x: u32) -> u32 {
        if x == NIL {
            0
        } else {
            self.rank[x as usize]
        }
    }
    fn meld(&mut self, mut a: u32, mut b: u32, stack: &mut Vec<u32>) -> u32 {
        stack.clear();
        let mut root = loop {
            if a == NIL {
                break b;
            }
            if b == NIL {
                break a;
            }
            if self.k(a) < self.k(b) {
                std::mem::swap(&mut a, &mut b);
            }
            stack.push(a);
            a = self.right[a as usize];
        };
        while let Some(x) = stack.pop() {
            let xi = x as usize;
            self.right[xi] = root;
            if self.rank_of(self.left[xi]) < self.rank_of(self.right[xi]) {
                self.right[xi] = self.left[xi];
                self.left[xi] = root;
            }
            self.rank[xi] = self.rank_of(self.right[xi]) + 1;
            root = x;
        }
        root
    }
    fn pop(&mut self, root: u32, stack: &mut Vec<u32>) -> u32 {
        let (l, r) = (self.left[root as usize], self.right[root as usize]);
        self.meld(l, r, stack)
    }
}

/// Liu's optimal order, or [`Error::NotApplicable`] naming why `g` does not qualify.
pub fn liu_order(g: &Graph) -> Result<Vec<OpIx>, Error> {
    let last = last_users(g).map_err(|reason| Error::NotApplicable {
        method: "liu".into(),
        reason,
    })?;
    let n = g.num_ops();
    // Each op's job: rise and net change.
    let mut freed = vec![0u64; n];
    for s in 0..g.num_tensors() as TensorIx {
        let u = last[s as usize];
        if u != NIL {
            freed[u as usize] += g.size(s);
        }
    }
    let mut seg = Segments {
        r: Vec::with_capacity(n),
        n: Vec::with_capacity(n),
        head: (0..n as OpIx).collect(),
        tail: (0..n as OpIx).collect(),
        left: vec![NIL; n],
        right: vec![NIL; n],
        rank: vec![1; n],
    };
    for v in 0..n as OpIx {
        let mut f = freed[v as usize];
        for &s in g.creates(v) {
            if g.users(s).is_empty() && !g.pinned(s) {
                f += g.size(s);
            }
        }
        seg.r.push(g.alloc(v) as i128 + g.workspace(v) as i128);
        seg.n.push(g.alloc(v) as i128 - f as i128);
    }
    let mut next_op = vec![NIL; n];
    let mut heap_of = vec![NIL; n];
    let mut missing: Vec<u32> = (0..n as OpIx).map(|v| g.preds(v).len() as u32).collect();
    let mut ready: Vec<OpIx> = (0..n as OpIx)
        .filter(|&v| missing[v as usize] == 0)
        .collect();
    let mut stack = Vec::new();
    let mut forest = NIL;
    // Segment `v` starts as op v's job; merged segments keep the index of their last op.
    while let Some(v) = ready.pop() {
        let mut h = NIL;
        for &c in g.preds(v) {
            h = seg.meld(h, heap_of[c as usize], &mut stack);
        }
        // Merge the chain's last segments into v's while they are out of order.
        while h != NIL && seg.k(v) <= seg.k(h) {
            let l = h as usize;
            h = seg.pop(h, &mut stack);
            let vi = v as usize;
            let (r, m) = (seg.r[l].max(seg.n[l] + seg.r[vi]), seg.n[l] + seg.n[vi]);
            next_op[seg.tail[l] as usize] = seg.head[vi];
            seg.head[vi] = seg.head[l];
            seg.r[vi] = r;
            seg.n[vi] = m;
        }
        seg.left[v as usize] = NIL;
        seg.right[v as usize] = NIL;
        seg.rank[v as usize] = 1;
        h = seg.meld(h, v, &mut stack);
        match g.succs(v).first() {
            Some(&p) => {
                heap_of[v as usize] = h;
                missing[p as usize] -= 1;
                if missing[p as usize] == 0 {
                    ready.push(p);
                }
            }
            None => forest = seg.meld(forest, h, &mut stack),
        }
    }
    // Pop segments last-first, then lay out their ops first-first.
    let mut segs = Vec::new();
    while forest != NIL {
        segs.push(forest);
        forest = seg.pop(forest, &mut stack);
    }
    let mut order = Vec::with_capacity(n);
    for &s in segs.iter().rev() {
        let mut v = seg.head[s as usize];
        loop {
            order.push(v);
            if v == seg.tail[s as usize] {
                break;
            }
            v = next_op[v as usize];
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{seed_graph, SeedOptions};

    #[test]
    fn the_seed_graph_qualifies() {
        // The paths are joined by the `a` chain into a caterpillar: every op feeds one op and
        // the shared inputs are pinned.
        let g = Graph::from_spec(seed_graph(SeedOptions::default())).unwrap();
        assert!(applies(&g), "{:?}", not_applicable_reason(&g));
        let order = liu_order(&g).unwrap();
        g.check_order(&order).unwrap();
    }

    #[test]
    fn refuses_a_shared_output() {
        let g = Graph::from_json(
            r#"{"tensors":[{"id":"x","bytes":1},{"id":"y","bytes":1},{"id":"a","bytes":1},
            {"id":"b","bytes":1}],
            "ops":[{"id":"p","inputs":["x"],"outputs":["y"]},
                   {"id":"u1","inputs":["y"],"outputs":["a"]},
                   {"id":"u2","inputs":["y"],"outputs":["b"]}],
            "outputs":["a","b"]}"#,
        )
        .unwrap();
        let e = liu_order(&g).unwrap_err();
        assert_eq!(e.code(), "not_applicable");
        assert!(e.to_string().contains("\"p\" feeds 2 ops"), "{e}");
    }

    #[test]
    fn refuses_a_donated_input_read_by_two_leaves() {
        let g = Graph::from_json(
            r#"{"tensors":[{"id":"x","bytes":4,"donated":true},{"id":"a","bytes":1},
            {"id":"b","bytes":1},{"id":"c","bytes":1}],
            "ops":[{"id":"u1","inputs":["x"],"outputs":["a"]},
                   {"id":"u2","inputs":["x"],"outputs":["b"]},
                   {"id":"j","inputs":["a","b"],"outputs":["c"]}],
            "outputs":["c"]}"#,
        )
        .unwrap();
        let e = liu_order(&g).unwrap_err();
        assert!(e.to_string().contains("storage \"x\""), "{e}");
    }
}
