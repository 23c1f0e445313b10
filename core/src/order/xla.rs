//! XLA's `DefaultMemoryScheduler`, written from its published description
//! (`xla/service/hlo_memory_scheduler.cc`): run three schedulers and keep the one with the lowest
//! peak, ties going to list, then DFS, then post-order.
//!
//! - **List**: greedy list scheduling; a ready op's priority is `bytes freed − bytes defined`
//!   (an input counts as freed when the op is its last unscheduled user; graph inputs and graph
//!   outputs are never counted as freed), then its number of users; the highest goes first, and
//!   among equals the most recently (re)inserted one (XLA keeps the ready list in a multimap and
//!   takes its last entry). When a buffer is left with one unscheduled user, that user's priority
//!   is recomputed. Ready ops sit in a heap with lazy invalidation: O((V + E) log V).
//! - **DFS**: a post-order depth-first traversal that visits an op's operands in decreasing
//!   cumulative "extra users" (fan-out beyond one, summed over everything upstream), then
//!   decreasing cumulative bytes defined upstream, then by id (we use the file order).
//! - **Post-order**: a plain post-order from each op without users, operands in the order written.
//!
//! Ops without users are visited in file order, the producers of graph outputs last (XLA visits
//! unreachable roots, then the computation's root). Traversals are iterative.

use crate::sort::CompactSort;
use std::collections::BinaryHeap;

use crate::graph::Graph;
use crate::order::inductor::best_of;
use crate::OpIx;

/// Every op's predecessors in operand order (producers of its inputs as written, then any other
/// dependency, such as the producer a view's storage comes from), as compressed rows.
struct Operands {
    start: Vec<usize>,
    data: Vec<OpIx>,
}

impl Operands {
    fn new(g: &Graph) -> Self {
        let n = g.num_ops();
        let mut start = Vec::with_capacity(n + 1);
        let mut data: Vec<OpIx> = Vec::with_capacity(n * 2);
        // `stamp[p] == v + 1` marks p as already in v's row: dedup in O(degree), not O(degree²).
        let mut stamp = vec![0u32; n];
        start.push(0);
        for v in 0..n as OpIx {
            let producers = g.ops()[v as usize]
                .inputs
                .iter()
                .filter_map(|&t| g.tensors()[t as usize].producer);
            for p in producers.chain(g.preds(v).iter().copied()) {
                if p != v && stamp[p as usize] != v + 1 {
                    stamp[p as usize] = v + 1;
                    data.push(p);
                }
            }
            start.push(data.len());
        }
        Operands { start, data }
    }
    fn row(&self, v: OpIx) -> &[OpIx] {
        &self.data[self.start[v as usize]..self.start[v as usize + 1]]
    }
}

/// Start points of XLA's traversals: ops without users in file order, output producers last.
fn roots(g: &Graph) -> Vec<OpIx> {
    let n = g.num_ops();
    let mut is_out = vec![false; n];
    let mut out_ops = Vec::new();
    for &t in g.outputs() {
        if let Some(p) = g.tensors()[t as usize].producer {
            if !is_out[p as usize] {
                is_out[p as usize] = true;
                out_ops.push(p);
            }
        }
    }
    let mut r: Vec<OpIx> = (0..n as OpIx)
        .filter(|&v| g.succs(v).is_empty() && !is_out[v as usize])
        .collect();
    r.extend(out_ops);
    // Every op reaches some op without users, so these roots cover the graph.
    r
}

/// Iterative post-order DFS from `starts`, visiting each op's predecessors in row order.
fn post_order_with(g: &Graph, starts: &[OpIx], preds: &Operands) -> Vec<OpIx> {
    let n = g.num_ops();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<(OpIx, usize)> = Vec::new();
    // Any op a root does not reach (none in a valid graph) is still emitted, in file order.
    for r in starts.iter().copied().chain(0..n as OpIx) {
        if seen[r as usize] {
            continue;
        }
        seen[r as usize] = true;
        stack.push((r, 0));
        while let Some(top) = stack.last_mut() {
            let row = preds.row(top.0);
            if top.1 < row.len() {
                let p = row[top.1];
                top.1 += 1;
                if !seen[p as usize] {
                    seen[p as usize] = true;
                    stack.push((p, 0));
                }
            } else {
                order.push(top.0);
                stack.pop();
            }
        }
    }
    order
}

/// XLA's post-order scheduler.
pub fn post_order(g: &Graph) -> Vec<OpIx> {
    post_order_with(g, &roots(g), &Operands::new(g))
}

/// XLA's DFS scheduler.
pub fn dfs_order(g: &Graph) -> Vec<OpIx> {
    let n = g.num_ops();
    let mut operands = Operands::new(g);
    let starts = roots(g);
    let topo = post_order_with(g, &starts, &operands);
    // Cumulative statistics in a topological order, capped as XLA caps them (a DAG counts
    // shared ancestors once per path; the caps keep the sums from overflowing).
    let mut extra_users = vec![0u64; n];
    let mut total_sizes = vec![0u64; n];
    let mut cumulative: u64 = 0;
    for &v in &topo {
        let mut eu = (g.succs(v).len() as u64).saturating_sub(1);
        let mut ts = g.alloc(v);
        cumulative = cumulative.saturating_add(g.alloc(v));
        for &p in g.preds(v) {
            eu = eu.saturating_add(extra_users[p as usize]);
            ts = ts.saturating_add(total_sizes[p as usize]);
        }
        extra_users[v as usize] = eu.min(n as u64);
        total_sizes[v as usize] = ts.min(cumulative);
    }
    for v in 0..n {
        let (a, b) = (operands.start[v], operands.start[v + 1]);
        operands.data[a..b].sort_by_compact(|&x, &y| {
            extra_users[y as usize]
                .cmp(&extra_users[x as usize])
                .then(total_sizes[y as usize].cmp(&total_sizes[x as usize]))
                .then(x.cmp(&y))
        });
    }
    post_order_with(g, &starts, &operands)
}

/// XLA's list scheduler.
pub fn list_order(g: &Graph) -> Vec<OpIx> {
    let n = g.num_ops();
    let mut remaining: Vec<u32> = (0..g.num_tensors() as u32)
        .map(|s| g.users(s).len() as u32)
        .collect();
    // XLA ignores buffers defined by parameters: a graph input never counts as freed.
    let counts_as_freed = |s: u32| !g.pinned(s) && g.tensors()[s as usize].producer.is_some();
    let priority = |remaining: &[u32], v: OpIx| -> (i128, u64) {
        let freed: u64 = g
            .reads(v)
            .iter()
            .filter(|&&s| remaining[s as usize] == 1 && counts_as_freed(s))
            .map(|&s| g.size(s))
            .sum();
        (freed as i128 - g.alloc(v) as i128, g.succs(v).len() as u64)
    };
    let mut missing: Vec<u32> = (0..n as OpIx).map(|v| g.preds(v).len() as u32).collect();
    let mut current: Vec<Option<(i128, u64, u64)>> = vec![None; n];
    let mut done = vec![false; n];
    let mut heap: BinaryHeap<((i128, u64, u64), OpIx)> = BinaryHeap::new();
    let mut seq: u64 = 0;
    let mut push = |heap: &mut BinaryHeap<_>,
                    current: &mut Vec<Option<(i128, u64, u64)>>,
                    remaining: &[u32],
                    v: OpIx| {
        let (p, users) = priority(remaining, v);
        seq += 1;
        let k = (p, users, seq);
        current[v as usize] = Some(k);
        heap.push((k, v));
    };
    for v in 0..n as OpIx {
        if missing[v as usize] == 0 {
            push(&mut heap, &mut current, &remaining, v);
        }
    }
    let mut order = Vec::with_capacity(n);
    while let Some((k, v)) = heap.pop() {
        if current[v as usize] != Some(k) {
            continue;
        }
        current[v as usize] = None;
        done[v as usize] = true;
        order.push(v);
        for &s in g.reads(v) {
            remaining[s as usize] -= 1;
        }
        for &w in g.succs(v) {
            missing[w as usize] -= 1;
            if missing[w as usize] == 0 {
                push(&mut heap, &mut current, &remaining, w);
            }
        }
        for &s in g.reads(v) {
            if remaining[s as usize] == 1 {
                if let Some(&u) = g.users(s).iter().find(|&&u| !done[u as usize]) {
                    if let Some(old) = current[u as usize] {
                        // Reinsert only when the priority changed, as XLA does.
                        if priority(&remaining, u) != (old.0, old.1) {
                            push(&mut heap, &mut current, &remaining, u);
                        }
                    }
                }
            }
        }
    }
    order
}

/// XLA's choice: the lowest peak among list, DFS and post-order, in that order of preference.
pub fn xla_order(g: &Graph) -> Vec<OpIx> {
    best_of(g, vec![list_order(g), dfs_order(g), post_order(g)])
}
