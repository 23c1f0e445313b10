//! PyTorch Inductor's `reorder_for_peak_memory`, written from its published description
//! (`torch/_inductor/memory.py`, PyTorch 2.6+): try three topological sorts, estimate each one's
//! peak, and keep the best of them and the program order.
//!
//! - **LPMF** (least peak memory first; after Kim et al., DAC 2006, "Buffer memory optimization
//!   for video codec application modeled in Simulink"): keep the highest memory seen so far. Among
//!   the ready ops, if some would run without exceeding it, pick the one whose run leaves the least
//!   memory behind (smallest `allocated − freed`); otherwise pick the one whose run peaks lowest
//!   (smallest outputs + workspace). Ties go to the earlier op in the file.
//! - **BFS**: a ready op's priority is the sorted list of the positions at which its predecessors
//!   ran; the lexicographically smallest goes first (FIFO: consume buffers soon after they are made).
//! - **DFS**: visit ops in ascending order of "bytes written plus bytes read", emitting each op
//!   after a depth-first visit of its predecessors in the same ascending order (post-order).
//!
//! Inductor scans the whole ready set at every LPMF step (quadratic in the graph's width). Here
//! the ready set lives in a segment tree over ops ranked by their run-time size, so each step is
//! O(log V): "least `allocated − freed` among ready ops whose size fits under the running
//! maximum" is a prefix-minimum query. Our own simulator measures every candidate's peak.

use crate::sort::CompactSort;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::Graph;
use crate::simulate::{peak_of, MemState};
use crate::OpIx;

/// Memory while `v` runs, above live memory (Inductor's `mem1` minus live memory).
fn run_size(g: &Graph, v: OpIx) -> u64 {
    g.alloc(v) + g.workspace(v)
}

/// Min segment tree over ranks; a leaf holds `(net, op)` while its op is ready, `EMPTY` otherwise.
struct MinTree {
    n: usize,
    t: Vec<(i128, OpIx)>,
}

const EMPTY: (i128, OpIx) = (i128::MAX, OpIx::MAX);

impl MinTree {
    fn new(len: usize) -> Self {
        let n = len.next_power_of_two().max(1);
        MinTree {
            n,
            t: vec![EMPTY; 2 * n],
        }
    }
    fn set(&mut self, i: usize, val: (i128, OpIx)) {
        let mut p = i + self.n;
        self.t[p] = val;
        while p > 1 {
            p /= 2;
            self.t[p] = self.t[2 * p].min(self.t[2 * p + 1]);
        }
    }
    /// Minimum over ranks `[0, end)`.
    fn prefix_min(&self, end: usize) -> (i128, OpIx) {
        let (mut lo, mut hi) = (self.n, end.min(self.n) + self.n);
        let mut best = EMPTY;
        while lo < hi {
            if lo & 1 == 1 {
                best = best.min(self.t[lo]);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                best = best.min(self.t[hi]);
            }
            lo /= 2;
            hi /= 2;
        }
        best
    }
    /// The smallest rank holding a ready op.
    fn leftmost(&self) -> Option<usize> {
        if self.t[1] == EMPTY {
            return None;
        }
        let mut p = 1;
        while p < self.n {
            p = if self.t[2 * p] != EMPTY {
                2 * p
            } else {
                2 * p + 1
            };
        }
        Some(p - self.n)
    }
}

/// Inductor's LPMF order (see the module docs), O((V + E) log V).
pub fn lpmf_order(g: &Graph) -> Vec<OpIx> {
    let n = g.num_ops();
    // Ops ranked by (run size, index): ops that fit under a threshold form a prefix of ranks.
    let mut by_size: Vec<OpIx> = (0..n as OpIx).collect();
    by_size.sort_by_key_compact(|&v| (run_size(g, v), v));
    let sizes: Vec<u64> = by_size.iter().map(|&v| run_size(g, v)).collect();
    let mut rank = vec![0usize; n];
    for (r, &v) in by_size.iter().enumerate() {
        rank[v as usize] = r;
    }
    let mut tree = MinTree::new(n);
    let mut state = MemState::new(g);
    let mut missing: Vec<u32> = (0..n as OpIx).map(|v| g.preds(v).len() as u32).collect();
    let mut ready = vec![false; n];
    let mut done = vec![false; n];
    let net = |state: &MemState, v: OpIx| g.alloc(v) as i128 - state.frees(v) as i128;

    // Inductor starts its running maximum at the larger of the start memory and the memory the
    // graph outputs alone will hold at the end.
    let mut seen = vec![false; g.num_tensors()];
    let mut outputs_bytes: u64 = 0;
    for &t in g.outputs() {
        let s = g.tensors()[t as usize].root;
        if !seen[s as usize] && g.tensors()[s as usize].producer.is_some() {
            seen[s as usize] = true;
            outputs_bytes += g.size(s);
        }
    }
    let fixed: u64 = g
        .input_storages()
        .filter(|&s| g.pinned(s))
        .map(|s| g.size(s))
        .sum();
    let mut max_memory = g.inputs_bytes().max(fixed + outputs_bytes);

    for v in 0..n as OpIx {
        if missing[v as usize] == 0 {
            ready[v as usize] = true;
            tree.set(rank[v as usize], (net(&state, v), v));
        }
    }
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let live = state.live();
        // (i) ops that run without exceeding the running maximum: least net first.
        let fit = max_memory.saturating_sub(live);
        let end = if max_memory >= live {
            sizes.partition_point(|&s| s <= fit)
        } else {
            0
        };
        let mut pick = tree.prefix_min(end);
        if pick == EMPTY {
            // (ii) otherwise the smallest run size, then least net.
            let Some(r0) = tree.leftmost() else { break };
            let end = sizes.partition_point(|&s| s <= sizes[r0]);
            pick = tree.prefix_min(end);
        }
        let v = pick.1;
        tree.set(rank[v as usize], EMPTY);
        ready[v as usize] = false;
        done[v as usize] = true;
        order.push(v);
        let (during, _) = state.run(v);
        max_memory = max_memory.max(during);
        for &s in g.reads(v) {
            if state.remaining_users(s) == 1 {
                if let Some(&u) = g.users(s).iter().find(|&&u| !done[u as usize]) {
                    if ready[u as usize] {
                        tree.set(rank[u as usize], (net(&state, u), u));
                    }
                }
            }
        }
        for &w in g.succs(v) {
            missing[w as usize] -= 1;
            if missing[w as usize] == 0 {
                ready[w as usize] = true;
                tree.set(rank[w as usize], (net(&state, w), w));
            }
        }
    }
    order
}

/// Inductor's BFS order: FIFO by the positions at which each op's predecessors ran.
pub fn bfs_order(g: &Graph) -> Vec<OpIx> {
    let n = g.num_ops();
    let mut missing: Vec<u32> = (0..n as OpIx).map(|v| g.preds(v).len() as u32).collect();
    let mut pos = vec![0u32; n];
    let mut heap: BinaryHeap<Reverse<(Vec<u32>, OpIx)>> = BinaryHeap::new();
    for v in 0..n as OpIx {
        if missing[v as usize] == 0 {
            heap.push(Reverse((Vec::new(), v)));
        }
    }
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse((_, v))) = heap.pop() {
        pos[v as usize] = order.len() as u32;
        order.push(v);
        for &w in g.succs(v) {
            missing[w as usize] -= 1;
            if missing[w as usize] == 0 {
                let mut key: Vec<u32> = g.preds(w).iter().map(|&p| pos[p as usize]).collect();
                key.sort_unstable_compact();
                heap.push(Reverse((key, w)));
            }
        }
    }
    order
}

/// Inductor's DFS order: post-order, visiting ops and their predecessors in ascending
/// "bytes written plus bytes read" (iterative: a long chain must not overflow the stack).
pub fn dfs_order(g: &Graph) -> Vec<OpIx> {
    let n = g.num_ops();
    // Inductor counts buffers it may free: graph inputs the caller keeps are left out.
    let weight: Vec<(u64, OpIx)> = (0..n as OpIx)
        .map(|v| {
            let reads: u64 = g
                .reads(v)
                .iter()
                .filter(|&&s| !(g.tensors()[s as usize].producer.is_none() && g.pinned(s)))
                .map(|&s| g.size(s))
                .sum();
            (g.alloc(v) + reads, v)
        })
        .collect();
    let mut roots: Vec<OpIx> = (0..n as OpIx).collect();
    roots.sort_by_key_compact(|&v| weight[v as usize]);
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    // Stack of (op, its predecessors sorted by weight, next one to visit).
    let mut stack: Vec<(OpIx, Vec<OpIx>, usize)> = Vec::new();
    for &r in &roots {
        if seen[r as usize] {
            continue;
        }
        seen[r as usize] = true;
        let mut ps = g.preds(r).to_vec();
        ps.sort_by_key_compact(|&p| weight[p as usize]);
        stack.push((r, ps, 0));
        while let Some(top) = stack.last_mut() {
            if top.2 < top.1.len() {
                let p = top.1[top.2];
                top.2 += 1;
                if !seen[p as usize] {
                    seen[p as usize] = true;
                    let mut ps = g.preds(p).to_vec();
                    ps.sort_by_key_compact(|&q| weight[q as usize]);
                    stack.push((p, ps, 0));
                }
            } else {
                order.push(top.0);
                stack.pop();
            }
        }
    }
    order
}

/// Inductor's choice: the lowest peak among the program order (when it is topological), LPMF,
/// BFS and DFS, ties going to the earlier in that list.
pub fn inductor_order(g: &Graph) -> Vec<OpIx> {
    let mut candidates = Vec::with_capacity(4);
    if let Ok(p) = crate::order::program::program_order(g) {
        candidates.push(p);
    }
    candidates.push(lpmf_order(g));
    candidates.push(bfs_order(g));
    candidates.push(dfs_order(g));
    best_of(g, candidates)
}

/// The candidate with the lowest peak; the first one on ties.
pub(crate) fn best_of(g: &Graph, candidates: Vec<Vec<OpIx>>) -> Vec<OpIx> {
    let mut best: Option<(u64, Vec<OpIx>)> = None;
    for c in candidates {
        let p = peak_of(g, &c);
        let better = match &best {
            None => true,
            Some((bp, _)) => p < *bp,
        };
        if better {
            best = Some((p, c));
        }
    }
    best.map(|(_, c)| c).unwrap_or_default()
}
