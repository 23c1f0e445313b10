//! Memory-aware greedy list scheduling.
//!
//! Rule: among the ready ops (all predecessors done), run the one whose run changes live memory
//! the least: smallest `allocated − freed` (so an op that frees more than it allocates goes
//! first); ties go to the op whose run peaks lowest (smallest outputs + workspace), then to the
//! earlier op in the file. What an op frees changes as other ops run (it frees an input only when
//! it is that input's last user), so ready ops sit in a heap with lazy invalidation: when a
//! storage is left with one remaining user, that user's key is recomputed and pushed again.
//! O((V + E) log V).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::Graph;
use crate::simulate::MemState;
use crate::OpIx;

type Key = (i128, u64, OpIx);

fn key(g: &Graph, state: &MemState, v: OpIx) -> Key {
    let net = g.alloc(v) as i128 - state.frees(v) as i128;
    (net, g.alloc(v) + g.workspace(v), v)
}

/// The greedy order (see the module docs for the rule).
pub fn greedy_order(g: &Graph) -> Vec<OpIx> {
    let n = g.num_ops();
    let mut missing: Vec<u32> = (0..n as OpIx).map(|v| g.preds(v).len() as u32).collect();
    let mut done = vec![false; n];
    let mut current: Vec<Option<Key>> = vec![None; n];
    let mut state = MemState::new(g);
    let mut heap: BinaryHeap<Reverse<Key>> = BinaryHeap::new();
    for v in 0..n as OpIx {
        if missing[v as usize] == 0 {
            let k = key(g, &state, v);
            current[v as usize] = Some(k);
            heap.push(Reverse(k));
        }
    }
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(k)) = heap.pop() {
        let v = k.2;
        if current[v as usize] != Some(k) {
            continue; // stale entry
        }
        current[v as usize] = None;
        done[v as usize] = true;
        order.push(v);
        state.run(v);
        for &s in g.reads(v) {
            if state.remaining_users(s) == 1 {
                // The one user left may now free `s`: refresh its key if it is ready.
                if let Some(&u) = g.users(s).iter().find(|&&u| !done[u as usize]) {
                    if current[u as usize].is_some() {
                        let k = key(g, &state, u);
                        current[u as usize] = Some(k);
                        heap.push(Reverse(k));
                    }
                }
            }
        }
        for &w in g.succs(v) {
            missing[w as usize] -= 1;
            if missing[w as usize] == 0 {
                let k = key(g, &state, w);
                current[w as usize] = Some(k);
                heap.push(Reverse(k));
            }
        }
    }
    order
}
