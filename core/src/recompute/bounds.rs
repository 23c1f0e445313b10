//! Lower bounds for schedules with recomputation: on every schedule's peak (the least limit),
//! and on the cost a limit forces.

use crate::graph::Graph;
use crate::{OpIx, TensorIx};

/// A proven lower bound on the peak of every schedule, however much it recomputes, and the op
/// that forces it (`None` when the start or the end does).
///
/// Whatever a schedule recomputes, while op `v` runs its read storages, its outputs, its
/// workspace and every storage that is never freed (graph inputs the caller owns) are live
/// at once; so is every donated input that an op after `v` reads (it cannot be made again, so
/// it lives from the start to its last reader, and a descendant of `v` runs after `v`'s first
/// run). At the start every graph input is live, and at the end every graph output.
///
/// ```
/// use peakorder::recompute::least_peak_bound;
/// use peakorder::Graph;
/// let g = Graph::from_json(r#"{
///   "tensors": [{"id": "x", "bytes": 10}, {"id": "a", "bytes": 100}, {"id": "b", "bytes": 1},
///               {"id": "w", "bytes": 7, "donated": true}],
///   "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"], "workspace": 5},
///           {"id": "B", "inputs": ["a", "w"], "outputs": ["b"]}],
///   "outputs": ["b"]
/// }"#).unwrap();
/// let (bound, op) = least_peak_bound(&g);
/// // While A runs: x (never freed), w (B reads it later), a and A's workspace.
/// assert_eq!(bound, 10 + 7 + 100 + 5);
/// assert_eq!(op, Some(g.op_ix("A").unwrap()));
/// ```
pub fn least_peak_bound(g: &Graph) -> (u64, Option<OpIx>) {
    // Storages never freed: graph inputs the caller owns.
    let never_freed: u64 = g
        .input_storages()
        .filter(|&s| g.pinned(s))
        .map(|s| g.size(s))
        .sum();
    let mut best = (g.inputs_bytes(), None);
    let outputs_end = never_freed
        + g.tensors()
            .iter()
            .enumerate()
            .filter(|(s, t)| t.producer.is_some() && t.alias_of.is_none() && g.pinned(*s as u32))
            .map(|(s, _)| g.size(s as u32))
            .sum::<u64>();
    if outputs_end > best.0 {
        best = (outputs_end, None);
    }
    let later = DonatedLater::new(g);
    for v in 0..g.num_ops() as OpIx {
        let reads: u64 = g
            .reads(v)
            .iter()
            .filter(|&&s| !(g.pinned(s) && g.tensors()[s as usize].producer.is_none()))
            .map(|&s| g.size(s))
            .sum();
        let during = never_freed + reads + g.alloc(v) + g.workspace(v) + later.bytes(g, v);
        if during > best.0 {
            best = (during, Some(v));
        }
    }
    best
}

/// The donated inputs that ops after each op read, as bit sets over the donated inputs
/// (empty when the sets would take more than [`DonatedLater::MAX_WORDS`] words: the bound
/// then does without them).
struct DonatedLater {
    donated: Vec<TensorIx>,
    words: usize,
    /// Per op: the donated inputs its strict descendants read.
    bits: Vec<u64>,
}

impl DonatedLater {
    const MAX_WORDS: usize = 1 << 22;

    fn new(g: &Graph) -> DonatedLater {
        let donated: Vec<TensorIx> = g
            .input_storages()
            .filter(|&s| !g.pinned(s) && g.size(s) > 0)
            .collect();
        let words = donated.len().div_ceil(64);
        let n = g.num_ops();
        if words == 0 || n.saturating_mul(words) > Self::MAX_WORDS {
            return DonatedLater {
                donated: Vec::new(),
                words: 0,
                bits: Vec::new(),
            };
        }
        let mut index = vec![u32::MAX; g.num_tensors()];
        for (k, &s) in donated.iter().enumerate() {
            index[s as usize] = k as u32;
        }
        // Reads of each op and of all its descendants, in reverse topological order.
        let order = crate::order::greedy::greedy_order(g);
        let mut reach = vec![0u64; n * words];
        let mut bits = vec![0u64; n * words];
        for &v in order.iter().rev() {
            let v = v as usize;
            for &u in g.succs(v as OpIx) {
                let u = u as usize;
                for w in 0..words {
                    let x = reach[u * words + w];
                    bits[v * words + w] |= x;
                }
            }
            for w in 0..words {
                reach[v * words + w] = bits[v * words + w];
            }
            for &s in g.reads(v as OpIx) {
                let k = index[s as usize];
                if k != u32::MAX {
                    reach[v * words + k as usize / 64] |= 1 << (k % 64);
                }
            }
        }
        DonatedLater {
            donated,
            words,
            bits,
        }
    }

    /// Bytes of the donated inputs a strict descendant of `v` reads and `v` does not.
    fn bytes(&self, g: &Graph, v: OpIx) -> u64 {
        if self.words == 0 {
            return 0;
        }
        let row = &self.bits[v as usize * self.words..(v as usize + 1) * self.words];
        let mut total = 0;
        for (w, &word) in row.iter().enumerate() {
            let mut x = word;
            while x != 0 {
                let k = w * 64 + x.trailing_zeros() as usize;
                x &= x - 1;
                let s = self.donated[k];
                if !g.reads(v).contains(&s) {
                    total += g.size(s);
                }
            }
        }
        total
    }
}

/// A proven lower bound on the cost any schedule within `limit` adds, given a proven lower
/// bound on every order's peak (`order_bound`): when no order fits, some op runs twice, and
/// the cheapest op that may is the least that can cost.
pub fn added_cost_bound(g: &Graph, limit: u64, order_bound: u64) -> f64 {
    if order_bound <= limit {
        return 0.0;
    }
    g.ops()
        .iter()
        .filter(|o| o.recompute)
        .map(|o| o.cost)
        .fold(f64::INFINITY, f64::min)
        .min(f64::MAX)
}
