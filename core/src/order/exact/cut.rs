//! The cut bound: while an op v runs, the ops run before it form a downset that holds v's
//! ancestors (and, from a state, the state's ops) and none of v's descendants, and memory is
//! what that downset leaves live plus v's outputs and workspace. The least of that over all
//! such downsets is a lower bound on every order's peak, and it is a minimum cut: memory after
//! a downset is a sum over storages, each live when its producer has run (or it was live at the
//! start) and it is never freed in the part or some reader has not run, which is the cut of a
//! flow network (the "project selection" construction; J. Kleinberg, É. Tardos, *Algorithm
//! Design*, 2005, §7.11). One maximum flow per op ([`crate::maxflow`]).
//!
//! It sees what the other bounds cannot on wide graphs: an op that neither precedes nor follows
//! v either runs before it (and its outputs may stay live) or after it (and its inputs stay
//! live), and the cut weighs that choice for every such op at once. On 60-op DAGs whose ops read
//! tensors from anywhere before them it raised the start bound by 3-45% (23% on average, eight
//! seeds). The search uses it at the start of each part only: asked again per state it cost
//! more time than it saved states (`benches/states.rs`).

use crate::maxflow::{Network, INF};

use super::bits::has;
use super::part::{Part, NIL};

/// The part's flow network without the per-question edges.
pub(super) struct CutNet {
    net: Network,
    src: u32,
    snk: u32,
    /// Bytes live throughout the part that the network does not count.
    constant: u64,
    /// The largest cut of any op at the start of the part: a lower bound on its peak.
    pub start: u64,
}

impl CutNet {
    /// Built from the part's local tables: op nodes `0..m`, a node per storage freed in the
    /// part, source and sink.
    /// (The start bound is the largest cut computed before `stop()` turned true.)
    pub(super) fn new(part: &Part, stop: &dyn Fn() -> bool) -> CutNet {
        let m = part.m();
        let ns = part.st.len();
        let nodes = m + ns + 2;
        let (src, snk) = ((nodes - 2) as u32, (nodes - 1) as u32);
        let mut net = Network::new(nodes);
        let w = part.words;
        for v in 0..m {
            for k in 0..w {
                let mut preds = part.pred_mask.row(v)[k];
                while preds != 0 {
                    let p = (k * 64) as u32 + preds.trailing_zeros();
                    preds &= preds - 1;
                    net.add_edge(v as u32, p, INF);
                }
            }
        }
        let mut constant = part.untouched;
        for k in 0..ns {
            let size = part.st.size[k];
            let producer = part.st.producer[k];
            if size == 0 || part.st.transient[k] {
                continue;
            }
            if part.st.perm[k] {
                // Never freed in the part: live once made.
                if producer == NIL {
                    constant += size;
                } else {
                    net.add_edge(producer, snk, size);
                }
                continue;
            }
            let a = (m + k) as u32;
            net.add_edge(if producer == NIL { src } else { producer }, a, size);
            for u in 0..m as u32 {
                if has(part.st.users.row(k), u) {
                    net.add_edge(a, u, INF);
                }
            }
        }
        let mut cut = CutNet {
            net,
            src,
            snk,
            constant,
            start: 0,
        };
        let empty = vec![0u64; w];
        cut.start = (0..m as u32)
            .take_while(|_| !stop())
            .map(|v| cut.during(part, &empty, v, u64::MAX))
            .max()
            .unwrap_or(0);
        cut
    }

    /// The least memory while op `v` (not in `set`) runs, over every order that starts with
    /// `set`; or some value at least `cap` once it is known to reach `cap`.
    pub(super) fn during(&self, part: &Part, set: &[u64], v: u32, cap: u64) -> u64 {
        let fixed = self.constant + part.step[v as usize];
        if fixed >= cap {
            return fixed;
        }
        let mut net = self.net.clone();
        net.add_edge(v, self.snk, INF);
        let preds = part.pred_mask.row(v as usize);
        for (k, (&s, &p)) in set.iter().zip(preds).enumerate() {
            // The state's ops and v's predecessors run before v.
            let mut before = s | p;
            while before != 0 {
                let u = (k * 64) as u32 + before.trailing_zeros();
                before &= before - 1;
                net.add_edge(self.src, u, INF);
            }
        }
        fixed + net.max_flow(self.src, self.snk, cap - fixed)
    }
}
