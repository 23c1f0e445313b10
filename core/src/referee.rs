//! The referee: the least peak over every topological order of a small graph, exactly.
//!
//! What memory holds after a set of ops has run does not depend on the order they ran in
//! (docs/design.md §1: a storage is freed once every reader of it has run), so the least peak
//! of the orders that start with a given downset (a set of ops closed under predecessors) is a
//! function of that downset alone. That is Held and Karp's dynamic program over subsets ("A
//! dynamic programming approach to sequencing problems", J. SIAM 10(1), 1962), here over
//! downsets: every order is accounted for, none is enumerated. Memory comes from the
//! simulator's [`MemState`] (the reference implementation of the model), never from a
//! planner's own accounting, and the referee checks as it goes that two orders of one downset
//! leave the same memory.
//!
//! Test support: the property tests, the regression corpus and the fuzz target (through
//! [`crate::invariants`]) and the exact search's bound checks
//! ([`crate::order::exact::check_bound_admissible`]) all use this one referee.

use std::collections::BTreeMap;

use crate::graph::Graph;
use crate::simulate::MemState;
use crate::OpIx;

/// Most ops the referee takes: it keeps a few tables of `2^n` entries.
pub const MAX_OPS: usize = 20;

const NONE: u64 = u64::MAX;

/// Every downset of a small graph with the memory after it and the least peaks before and after
/// it. A set is a bit mask over op indices (bit `v` is op `v`).
#[derive(Clone, Debug)]
pub struct Downsets {
    n: usize,
    inputs_bytes: u64,
    /// Per op: its outputs and workspace (what running it adds to live memory while it runs).
    step: Vec<u64>,
    /// Per op: its predecessors.
    preds: Vec<u64>,
    /// Per set: bytes live after it ran; `NONE` when the set is not a downset.
    live: Vec<u64>,
    /// Per downset: the least, over orders of it, of the highest memory during its steps.
    prefix: Vec<u64>,
    /// Per downset: the last op of an order reaching `prefix`.
    last: Vec<u8>,
    /// Per downset: the least, over orders of the rest, of the highest memory during their steps.
    completion: Vec<u64>,
}

impl Downsets {
    /// Tables for `g`. Panics when `g` has more than [`MAX_OPS`] ops (test support: a caller
    /// sizes its graphs), or when two orders of one downset leave different memory (the
    /// simulator would be wrong).
    pub fn new(g: &Graph) -> Downsets {
        let n = g.num_ops();
        assert!(
            n <= MAX_OPS,
            "the referee takes at most {MAX_OPS} ops, not {n}"
        );
        let sets = 1usize << n;
        let step: Vec<u64> = (0..n as OpIx)
            .map(|v| g.alloc(v).saturating_add(g.workspace(v)))
            .collect();
        let preds: Vec<u64> = (0..n as OpIx)
            .map(|v| g.preds(v).iter().fold(0, |m, &p| m | 1 << p))
            .collect();
        let mut live = vec![NONE; sets];
        let mut prefix = vec![NONE; sets];
        let mut last = vec![u8::MAX; sets];
        // Downsets in increasing order (a downset plus an op is a larger number), each with the
        // simulator's state after it; a state is dropped once its downset is expanded.
        let start = MemState::new(g);
        live[0] = start.live();
        prefix[0] = 0;
        let mut frontier: BTreeMap<u64, MemState> = BTreeMap::new();
        frontier.insert(0, start);
        while let Some((s, state)) = frontier.pop_first() {
            for (v, &before) in preds.iter().enumerate() {
                if s >> v & 1 == 1 || before & !s != 0 {
                    continue;
                }
                let mut next = state.clone();
                let (during, after) = next.run(v as OpIx);
                let t = s | 1 << v;
                if live[t as usize] == NONE {
                    live[t as usize] = after;
                    frontier.insert(t, next);
                } else {
                    assert_eq!(
                        live[t as usize], after,
                        "two orders of one downset leave different memory"
                    );
                }
                let cost = prefix[s as usize].max(during);
                if cost < prefix[t as usize] {
                    prefix[t as usize] = cost;
                    last[t as usize] = v as u8;
                }
            }
        }
        // Least peak of the remaining steps, from the whole graph down.
        let full = sets - 1;
        let mut completion = vec![NONE; sets];
        completion[full] = 0;
        for s in (0..full).rev() {
            if live[s] == NONE {
                continue;
            }
            completion[s] = (0..n)
                .filter(|&v| s >> v & 1 == 0 && preds[v] & !(s as u64) == 0)
                .map(|v| live[s].saturating_add(step[v]).max(completion[s | 1 << v]))
                .min()
                .expect("a downset short of the whole graph has a ready op");
        }
        Downsets {
            n,
            inputs_bytes: g.inputs_bytes(),
            step,
            preds,
            live,
            prefix,
            last,
            completion,
        }
    }

    /// The set of every op.
    pub fn full(&self) -> u64 {
        (1u64 << self.n) - 1
    }

    /// Whether `set` is a downset (every predecessor of a member is a member).
    pub fn is_downset(&self, set: u64) -> bool {
        set <= self.full() && self.live[set as usize] != NONE
    }

    /// Every downset, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..=self.full()).filter(|&s| self.is_downset(s))
    }

    /// Bytes live after the ops of `set` ran (in any order); `None` for a set that is not a
    /// downset.
    pub fn live(&self, set: u64) -> Option<u64> {
        self.is_downset(set).then(|| self.live[set as usize])
    }

    /// The least, over every order of `set`, of the highest memory while one of its ops runs
    /// (0 for the empty set; the start memory is not a step).
    pub fn best_prefix(&self, set: u64) -> Option<u64> {
        self.is_downset(set).then(|| self.prefix[set as usize])
    }

    /// The least, over every order of the ops not in `set` (run after it), of the highest
    /// memory while one of them runs (0 for the whole graph).
    pub fn best_completion(&self, set: u64) -> Option<u64> {
        self.is_downset(set).then(|| self.completion[set as usize])
    }

    /// Memory while `v` runs right after `set`; `None` unless `set` is a downset and `v` is
    /// ready after it.
    pub fn during(&self, set: u64, v: OpIx) -> Option<u64> {
        let ready = set >> v & 1 == 0 && self.preds[v as usize] & !set == 0;
        (ready && self.is_downset(set))
            .then(|| self.live[set as usize].saturating_add(self.step[v as usize]))
    }

    /// The least peak over every topological order (the start memory included).
    pub fn least_peak(&self) -> u64 {
        self.inputs_bytes.max(self.prefix[self.full() as usize])
    }

    /// An order whose peak is [`Downsets::least_peak`].
    pub fn best_order(&self) -> Vec<OpIx> {
        let mut order = Vec::with_capacity(self.n);
        let mut s = self.full();
        while s != 0 {
            let v = self.last[s as usize];
            order.push(OpIx::from(v));
            s &= !(1 << v);
        }
        order.reverse();
        order
    }
}

/// The least peak over every topological order of `g` (at most [`MAX_OPS`] ops).
pub fn least_peak(g: &Graph) -> u64 {
    Downsets::new(g).least_peak()
}

/// The least peak over every topological order of `g` and an order reaching it.
pub fn best_order(g: &Graph) -> (u64, Vec<OpIx>) {
    let d = Downsets::new(g);
    (d.least_peak(), d.best_order())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::peak_of;

    fn branches() -> Graph {
        Graph::from_json(
            r#"{"tensors":[{"id":"x","bytes":8},{"id":"h1","bytes":100},{"id":"s1","bytes":1},
            {"id":"h2","bytes":100},{"id":"s2","bytes":1},{"id":"y","bytes":1}],
            "ops":[{"id":"p1","inputs":["x"],"outputs":["h1"]},{"id":"p2","inputs":["x"],"outputs":["h2"]},
            {"id":"q1","inputs":["h1"],"outputs":["s1"]},{"id":"q2","inputs":["h2"],"outputs":["s2"]},
            {"id":"j","inputs":["s1","s2"],"outputs":["y"]}],"outputs":["y"]}"#,
        )
        .unwrap()
    }

    #[test]
    fn finds_the_branch_by_branch_order() {
        let g = branches();
        let (peak, order) = best_order(&g);
        // x + h1 + s1 while q1 runs; breadth first would hold both 100-byte tensors.
        assert_eq!(peak, 110);
        assert_eq!(peak_of(&g, &order), 110);
        assert_eq!(g.op_ids(&order)[..2], ["p1", "q1"]);
        let d = Downsets::new(&g);
        assert_eq!(d.iter().count(), 10);
        assert!(!d.is_downset(0b00100)); // q1 without p1
        assert_eq!(d.live(0b00011), Some(208));
        assert_eq!(d.best_completion(0b00011), Some(209));
        assert_eq!(d.best_prefix(0b00011), Some(208));
        assert_eq!(d.during(0, 0), Some(108));
        assert_eq!(d.during(0, 2), None);
    }

    #[test]
    fn no_ops_peaks_at_the_inputs() {
        let g = Graph::from_json(r#"{"tensors":[{"id":"x","bytes":5}],"ops":[]}"#).unwrap();
        assert_eq!(best_order(&g), (5, vec![]));
    }
}
