//! Training chains: the binomial checkpointing optimum (Griewank & Walther, "Algorithm 799:
//! Revolve: an implementation of checkpointing for the reverse or adjoint mode of computational
//! differentiation", ACM TOMS 26(1), 2000; the optimum is Griewank's, "Achieving logarithmic
//! growth of temporal and spatial complexity in reverse automatic differentiation",
//! Optimization Methods and Software 1, 1992), exact in this memory model.
//!
//! **The graphs** ([`Chain::detect`], O(ops + tensors); anything else is [`Outcome::Unknown`]):
//! inputs `x` (`a0`, any size, donated or not) and `y` (the target, donated); forward ops
//! `f1..fn`, `fi` reading `a{i-1}` alone and making `ai`; a loss reading `an` and `y` and making
//! `gn`; backward ops `bi` reading `a{i-1}` and `gi` and making `g{i-1}`; the one graph output
//! `g0`; nothing else (no views, no workspace, one output per op). `y`, every `ai` (`i ≥ 1`) and
//! every `gi` have one size `S > 0`; the forward ops have one cost `c` and may be recomputed.
//! The loss's and the backward ops' costs and `recompute` flags are free: the schedules here
//! never repeat them, and the bound below counts forward runs only.
//! `generators::chain_train` makes these graphs.
//!
//! **Slots.** A limit `M` gives `s = ⌊(M − X − 2S) / S⌋` activation slots (`X` the size of `x`).
//! Before the last run of `b1`, one tensor of size `S` is always live besides the activations —
//! `y` until the loss, then the gradient — and two while the loss or a backward op runs (see the
//! proof). So while a forward op runs, `x`, that tensor, its output and at most `s` other
//! activations fit (its input among them); while the loss or a backward op runs, `x`, two such
//! tensors and at most `s` activations (the one it reads among them). `s ≥ n` needs no
//! recomputation; `s = 1` is the least: `X + 3S` ([`least`]), and a limit below it is
//! [`Outcome::Infeasible`] with that least peak.
//!
//! **The optimum.** Call serving position `k` running the op that reads `ak` for the backward:
//! the loss for `k = n`, `b{k+1}` below. Positions are served in the order `n, n−1, …, 0`, and
//! `a0` is always there. With `P(l, s)` the fewest forward runs that serve `l` positions above
//! a held one (`P(1, s) = 0`; `P(l, 0) = ∞` for `l ≥ 2`):
//! `P(l, s) = min_{1 ≤ j < l} j + P(l − j, s − 1) + P(j, s)` — advance `j` steps and keep that
//! activation, serve the `l − j` positions above it with one slot less, then the `j` below it
//! with the slot back. Its closed form (Griewank 1992): with `β(s, t) = C(s + t, s)` and `t` the
//! least with `β(s, t) ≥ l`, `P(l, s) = t·l − β(s + 1, t − 1)`; equivalently
//! `P(l, s) − P(l − 1, s) = t(l, s)`, which is how [`forward_runs`] sums it in O(l + s). The
//! chain needs `P(n + 1, min(s, n))` forward runs, so the added cost is `c · (P(n + 1, s) − n)`.
//! The schedule is built from that recursion with an explicit stack (no recursion whose depth
//! grows with `n`), choosing each split by binary search: `j ↦ j + P(l − j, s − 1) + P(j, s)`
//! is convex (its differences `1 + t(j + 1, s) − t(l − j, s − 1)` never decrease), so the
//! least `j` where the difference is non-negative is a minimiser. Every schedule is re-checked
//! by the simulator and its forward runs counted against `P` before it is returned.
//!
//! **Why no schedule within the limit does better.** (1) *Tokens.* Take the last run of `b1`
//! (it makes the output). It read a `g1` made by an earlier run of `b2`, which read a `g2`
//! made earlier still, …, down to a `gn` made by a run of the loss, which read `y`; `y` has no
//! producer, so it was live from the start. These instances are live over consecutive
//! intervals that cover every step up to that last `b1` run, and two are live at each of the
//! runs on that chain (one read, one made). `x` is live throughout too (read by that last `b1`,
//! never made again). (2) *Slots.* So while a forward op `fj` runs, memory is at least
//! `X + S + S·(|A| + 1)`, with `A` the activations live before it (`a{j−1}` among them; the
//! previous `aj` is freed before it is made again); within `M`: `|A| ≤ s`. While a run on the
//! chain serves position `k`, memory is at least `X + 2S + S·|A|` with `ak ∈ A` (`k ≥ 1`):
//! `|A| ≤ s`. Activations only appear by forward runs. (3) *The game.* So the forward runs of
//! any schedule within `M` play this game: positions `1..n` over a free `0`; a move pebbles
//! `j` when `j − 1` is pebbled (or `j = 1`) and at most `s` are pebbled before it; pebbles
//! are removed at will; positions `n, …, 1` must be served in that order, each while pebbled
//! with at most `s` pebbles down. This is the reversal of `n + 1` steps with `s` checkpoints
//! whose least number of forward steps Griewank (1992) proved to be `P(n + 1, s)`
//! (`p(l, c) = t·l − β(c + 1, t − 1)` in Revolve's paper), with one difference in our favour
//! to check: a pebble is read where it lies, where Revolve copies a checkpoint into its working
//! state first. The tests check that the game's least equals `P` by exhaustive search (all
//! `n ≤ 14`, `s ≤ 10`), and that the schedules of the graph itself, searched exhaustively in
//! this memory model, cost exactly `c · (P(n + 1, s) − n)` (small `n`). (4) Each forward run
//! costs `c` and every op runs at least once, so any schedule adds at least
//! `c · (P(n + 1, s) − n)`; reruns of the loss or of backward ops only add to it.
//!
//! Heterogeneous chains (sizes or costs that differ; Rotor, Beaumont et al., "Optimal
//! checkpointing for heterogeneous chains", 2019) are not recognised: they are `Unknown` here.

use super::schedule::{added_cost, checked_schedule_peak};
use super::{Found, Least, Outcome};
use crate::graph::Graph;
use crate::{OpIx, TensorIx};

/// A recognised homogeneous training chain (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// `forward[i]` is `f{i+1}`: reads `ai`, makes `a{i+1}`.
    pub forward: Vec<OpIx>,
    /// The loss: reads `an` and the target, makes `gn`.
    pub loss: OpIx,
    /// `backward[i]` is `b{i+1}`: reads `ai` and `g{i+1}`, makes `gi`.
    pub backward: Vec<OpIx>,
    /// `S`: bytes of every activation `a1..an`, of the target and of every gradient.
    pub activation_bytes: u64,
    /// `X`: bytes of the input `x` (`a0`).
    pub input_bytes: u64,
    /// `c`: the cost of every forward op.
    pub forward_cost: f64,
}

impl Chain {
    /// The chain `g` is, if it is one (O(ops + tensors); never panics).
    pub fn detect(g: &Graph) -> Option<Chain> {
        let ops = g.ops();
        let m = ops.len();
        if m < 3 || m % 2 == 0 {
            return None;
        }
        let n = (m - 1) / 2;
        if g.num_tensors() != 2 * n + 3 || g.outputs().len() != 1 {
            return None;
        }
        if g.tensors().iter().any(|t| t.alias_of.is_some())
            || ops.iter().any(|o| o.workspace != 0 || o.outputs.len() != 1)
        {
            return None;
        }
        let mut inputs = g.input_storages();
        let (Some(i0), Some(i1), None) = (inputs.next(), inputs.next(), inputs.next()) else {
            return None;
        };
        match_chain(g, n, i0, i1).or_else(|| match_chain(g, n, i1, i0))
    }

    /// Forward ops.
    pub fn n(&self) -> usize {
        self.forward.len()
    }

    /// The least limit with `slots` activation slots: `X + (slots + 2)·S` (`None` on overflow).
    pub fn limit(&self, slots: u64) -> Option<u64> {
        slots
            .checked_add(2)?
            .checked_mul(self.activation_bytes)?
            .checked_add(self.input_bytes)
    }

    /// The activation slots within `limit` (0 below two slots' worth or on overflow).
    pub fn slots(&self, limit: u64) -> u64 {
        self.limit(0)
            .and_then(|base| limit.checked_sub(base))
            .map_or(0, |rest| rest / self.activation_bytes)
    }

    /// The least peak of any schedule: `X + 3S` (one slot), proven (module doc).
    pub fn least_peak(&self) -> Option<u64> {
        self.limit(1)
    }

    /// The fewest forward runs of any schedule with `slots` slots: `P(n + 1, slots)`; `None`
    /// when no schedule fits (`slots == 0`).
    pub fn forward_runs(&self, slots: u64) -> Option<u64> {
        forward_runs(self.n() as u64 + 1, slots)
    }

    /// A schedule with `slots ≥ 1` slots and exactly [`Chain::forward_runs`] forward runs; `None`
    /// for 0 slots.
    pub fn schedule(&self, slots: u64) -> Option<Vec<OpIx>> {
        let n = self.n();
        let s = slots.min(n as u64);
        let table = Table::new(n as u64 + 1, s);
        let total = table.steps(n as u64 + 1, s)?;
        let mut out = Vec::with_capacity(usize::try_from(total).ok()? + n + 1);
        // (base, positions to serve from the base up, slots): serve base + l − 1 down to base.
        let mut stack: Vec<(usize, u64, u64)> = vec![(0, n as u64 + 1, s)];
        let mut runs = 0u64;
        while let Some((b, l, s)) = stack.pop() {
            if l == 1 {
                out.push(if b == n { self.loss } else { self.backward[b] });
                continue;
            }
            let j = table.split(l, s)?;
            // The split must meet the closed form; anything else is a bug, never a schedule.
            let here = j
                .checked_add(table.steps(l - j, s - 1)?)?
                .checked_add(table.steps(j, s)?)?;
            if here != table.steps(l, s)? {
                return None;
            }
            let ju = j as usize;
            out.extend_from_slice(&self.forward[b..b + ju]);
            runs += j;
            // The part above the kept activation first (popped next), then the part below.
            stack.push((b, j, s));
            stack.push((b + ju, l - j, s - 1));
        }
        (runs == total).then_some(out)
    }
}

/// Matches the chain with `x` as `a0` and `y` as the target; every op must be given exactly one
/// role with exactly the inputs of that role.
fn match_chain(g: &Graph, n: usize, x: TensorIx, y: TensorIx) -> Option<Chain> {
    let ops = g.ops();
    let tensors = g.tensors();
    let mut seen = vec![false; ops.len()];
    let mut claim = |v: OpIx| !std::mem::replace(&mut seen[v as usize], true);
    let mut acts: Vec<TensorIx> = Vec::with_capacity(n + 1);
    acts.push(x);
    let mut forward = Vec::with_capacity(n);
    for k in 0..n {
        // The one reader of a_k that reads nothing else (b_{k+1} reads a gradient too).
        let mut f = None;
        for &u in g.users(acts[k]) {
            if ops[u as usize].inputs.len() == 1 {
                if f.is_some() {
                    return None;
                }
                f = Some(u);
            }
        }
        let f = f?;
        if !claim(f) {
            return None;
        }
        forward.push(f);
        acts.push(ops[f as usize].outputs[0]);
    }
    let pair = |v: OpIx, a: TensorIx, b: TensorIx| matches!(ops[v as usize].inputs.as_slice(), &[p, q] if (p, q) == (a, b) || (p, q) == (b, a));
    let &[loss] = g.users(acts[n]) else {
        return None;
    };
    if !pair(loss, acts[n], y) || !claim(loss) {
        return None;
    }
    let mut grad = ops[loss as usize].outputs[0];
    let mut grads = Vec::with_capacity(n + 1);
    grads.push(grad);
    let mut backward = vec![0; n];
    for k in (0..n).rev() {
        let &[b] = g.users(grad) else {
            return None;
        };
        if !pair(b, acts[k], grad) || !claim(b) {
            return None;
        }
        backward[k] = b;
        grad = ops[b as usize].outputs[0];
        grads.push(grad);
    }
    if g.outputs() != [grad] {
        return None;
    }
    // Every op has its role (2n + 1 claimed, all distinct) and the tensors are exactly
    // x, y, a1..an, gn..g0 (counted by the caller): the structure is the chain's.
    let s = g.size(y);
    if s == 0 || !tensors[y as usize].donated {
        return None;
    }
    if acts[1..].iter().chain(&grads).any(|&t| g.size(t) != s) {
        return None;
    }
    let c = ops[forward[0] as usize].cost;
    if forward
        .iter()
        .any(|&f| ops[f as usize].cost != c || !ops[f as usize].recompute)
    {
        return None;
    }
    Some(Chain {
        forward,
        loss,
        backward,
        activation_bytes: s,
        input_bytes: g.size(x),
        forward_cost: c,
    })
}

/// `P(l, s)`: the fewest forward steps that serve `l` positions over a held one with `s` slots
/// (the binomial optimum, module doc); `None` when impossible (`s == 0`, `l ≥ 2`).
///
/// ```
/// use peakorder::recompute::chain::forward_runs;
/// assert_eq!(forward_runs(5, 1), Some(10)); // one slot: 4 + 3 + 2 + 1
/// assert_eq!(forward_runs(5, 4), Some(4)); // every activation kept
/// assert_eq!(forward_runs(7, 2), Some(11));
/// assert_eq!(forward_runs(2, 0), None);
/// ```
pub fn forward_runs(l: u64, s: u64) -> Option<u64> {
    let s = s.min(l.saturating_sub(1));
    Table::new(l, s).steps(l, s)
}

/// Per slot count `s' = 1..=s`, the breakpoints `β(s', t)` for `t = 0, 1, …` up to the first
/// at least `l_max`, and `P` at each: `P(l, s')` and `t(l, s')` are then a binary search away.
/// Its size is `Σ_{s'} t(l_max, s')`: `l_max` for one slot, far less for more.
struct Table {
    offsets: Vec<usize>,
    beta: Vec<u64>,
    at: Vec<u64>,
}

impl Table {
    fn new(l_max: u64, s: u64) -> Table {
        let mut offsets = vec![0, 0];
        let mut beta = Vec::new();
        let mut at = Vec::new();
        for sp in 1..=s {
            let (mut b, mut p, mut t) = (1u64, 0u64, 0u64);
            beta.push(b);
            at.push(p);
            while b < l_max {
                t += 1;
                // β(s', t) = β(s', t − 1)·(s' + t)/t, exact; b < l_max keeps it in range.
                let next =
                    (b as u128 * (sp as u128 + t as u128) / t as u128).min(u64::MAX as u128) as u64;
                p = p.saturating_add(t.saturating_mul(next - b));
                b = next;
                beta.push(b);
                at.push(p);
            }
            offsets.push(beta.len());
        }
        Table { offsets, beta, at }
    }

    fn row(&self, s: u64) -> (&[u64], &[u64]) {
        let (lo, hi) = (self.offsets[s as usize], self.offsets[s as usize + 1]);
        (&self.beta[lo..hi], &self.at[lo..hi])
    }

    /// `t(k, s)`: the least `t` with `β(s, t) ≥ k` (`s ≥ 1`, `k ≤ l_max`).
    fn reps(&self, k: u64, s: u64) -> u64 {
        self.row(s).0.partition_point(|&b| b < k) as u64
    }

    /// `P(l, s)` for `l ≤ l_max`, `s ≤` the table's.
    fn steps(&self, l: u64, s: u64) -> Option<u64> {
        if l <= 1 {
            return Some(0);
        }
        if s == 0 {
            return None;
        }
        let (beta, at) = self.row(s);
        let t = beta.partition_point(|&b| b < l);
        let k = t.checked_sub(1)?;
        Some(at[k] + t as u64 * (l - beta[k]))
    }

    /// A best first advance for `l ≥ 2` positions with `s ≥ 1` slots.
    fn split(&self, l: u64, s: u64) -> Option<u64> {
        if s == 0 {
            return None;
        }
        if s == 1 {
            return Some(l - 1);
        }
        // The least j in [1, l − 2] with 1 + t(j + 1, s) ≥ t(l − j, s − 1), else l − 1.
        let (mut lo, mut hi) = (1, l - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if 1 + self.reps(mid + 1, s) >= self.reps(l - mid, s - 1) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    }
}

/// The cheapest schedule within `limit`, when `g` is a homogeneous training chain: the added
/// cost is `c · (P(n + 1, s) − n)` and proven least (module doc); `Infeasible` below one slot.
pub fn plan(g: &Graph, limit: u64) -> Outcome {
    let Some(chain) = Chain::detect(g) else {
        return Outcome::Unknown;
    };
    let slots = chain.slots(limit);
    if slots == 0 {
        return Outcome::Infeasible {
            least: chain.least_peak(),
        };
    }
    let Some(schedule) = chain.schedule(slots) else {
        return Outcome::Unknown;
    };
    match checked_schedule_peak(g, &schedule) {
        Ok(p) if p <= limit => {}
        _ => return Outcome::Unknown,
    }
    // The bound is the optimum, counted in forward runs (each costs c) and summed as the
    // planner sums costs: the schedule was checked to have exactly P(n + 1, s) of them.
    let added = added_cost(g, &schedule);
    Outcome::Found(Found {
        schedule,
        added_cost: added,
        cost_bound: added,
    })
}

/// The least peak of any schedule when `g` is a homogeneous training chain: `X + 3S`, reached
/// with one slot and proven (the loss's first run holds `x`, `y`, `an` and makes `gn`).
pub fn least(g: &Graph) -> Option<Least> {
    let chain = Chain::detect(g)?;
    let peak = chain.least_peak()?;
    let schedule = chain.schedule(1)?;
    match checked_schedule_peak(g, &schedule) {
        Ok(p) if p == peak => Some(Least {
            schedule,
            peak,
            bound: peak,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::chain_train::ChainTrain;

    #[test]
    fn detects_the_generated_chain_and_not_a_changed_one() {
        let spec = ChainTrain::new(5, 16).spec();
        let g = Graph::from_spec(spec.clone()).unwrap();
        let c = Chain::detect(&g).unwrap();
        assert_eq!((c.n(), c.activation_bytes, c.input_bytes), (5, 16, 16));
        let mut odd = spec.clone();
        odd.tensors[3].bytes = Some(17);
        assert!(Chain::detect(&Graph::from_spec(odd).unwrap()).is_none());
        let mut kept = spec;
        kept.tensors[1].donated = None;
        assert!(Chain::detect(&Graph::from_spec(kept).unwrap()).is_none());
    }

    #[test]
    fn one_slot_is_the_least() {
        let c = ChainTrain::new(4, 10);
        let g = Graph::from_spec(c.spec()).unwrap();
        let l = least(&g).unwrap();
        assert_eq!(l.peak, c.limit(1).unwrap());
        assert_eq!(
            plan(&g, l.peak - 1),
            Outcome::Infeasible {
                least: Some(l.peak)
            }
        );
    }
}
