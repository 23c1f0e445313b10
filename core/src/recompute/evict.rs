//! Eviction along a planned order: run the order; when the next run would pass the limit, free
//! the live storage whose loss costs least per byte and per step until it is needed again, and
//! compute it again (with whatever it needs, recursively) just before its next reader.
//!
//! This is Dynamic Tensor Rematerialization (Kirisame, Lyubomirsky, Haan, Brennan, He, Roesch,
//! Chen, Tatlock, "Dynamic Tensor Rematerialization", ICLR 2021) made offline: DTR's score
//! `cost / (bytes × staleness)` is taken with the *future* distance to the next use, which the
//! planned order knows (Belady's rule weighted by cost and size), and the cost counts the
//! evicted inputs a recomputation would also need (DTR's evicted neighbourhood, one level).
//! Several weightings of the score are tried within the budget and the cheapest schedule kept;
//! the least limit is found by bisection on the limit.
//!
//! The tracked memory is an upper bound on what the schedule simulator counts: a storage this
//! pass frees (or evicts) at step `t` is freed by the simulator at its last use before `t`, and
//! a replaced output of a recomputed op is freed by it no later than the recomputation. A
//! storage is evicted only when it can surely be made again at its next use: it is not pinned,
//! its producer is `recompute: true`, and each storage that producer reads can be had then
//! (pinned; or live still, as a donated input or a `recompute: false` op's output is until its
//! last use in the order; or made again in turn), decided for every storage in one pass.

use super::prune::prune;
use super::schedule::{added_cost, checked_schedule_peak};
use super::{Found, Least, Outcome};
use crate::budget::Budget;
use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::{OpIx, TensorIx};

/// Score weightings tried in turn: exponents of (cost, bytes, distance to the next use), and
/// whether the cost counts the whole evicted neighbourhood (true) or one level of it. Neither
/// cost wins everywhere: the deep one avoids long recompute chains on convolutional steps and
/// falls into recompute storms on some long elementwise chains (JAX's ResNet-50 at half its
/// range), where the shallow one does not.
const WEIGHTS: &[Weights] = &[
    Weights(1.0, 1.0, 1.0, false),
    Weights(1.0, 1.0, 1.0, true),
    Weights(0.0, 1.0, 1.0, false),
    Weights(1.0, 1.0, 2.0, false),
    Weights(1.0, 1.0, 0.5, true),
    Weights(1.0, 0.5, 1.0, false),
    Weights(1.0, 2.0, 1.0, true),
];

/// Limits tried below the one asked for, as fractions of the way from the proven bound to it.
const LADDER: &[f64] = &[0.97, 0.9, 0.8, 0.65];

/// One weighting of the eviction score (see [`WEIGHTS`]).
#[derive(Clone, Copy, Debug)]
struct Weights(f64, f64, f64, bool);

/// A schedule longer than this many runs per op is given up (the limit forces a recompute
/// storm that no budget would finish).
const MAX_RUNS_PER_OP: usize = 64;

/// A schedule within `limit` that follows `order` (a complete topological order of `g`),
/// recomputing what it evicts; the cheapest over the score weightings tried within the budget.
/// `Unknown` when none fits.
pub fn plan(g: &Graph, order: &[OpIx], limit: u64, budget: &Budget) -> Outcome {
    let statics = Statics::new(g, order);
    let mut found: Vec<(f64, Vec<OpIx>)> = Vec::new();
    for (k, &w) in WEIGHTS.iter().enumerate() {
        // The first weighting runs to the end whatever the clock says: a schedule late is
        // better than none. The others only in the time left.
        let stop = || k > 0 && budget.expired();
        if stop() {
            break;
        }
        let Some(s) = Pass::new(g, &statics, limit, w).run(order, &stop) else {
            continue;
        };
        // Re-checked: the tracked memory is an upper bound, the simulator is the reference.
        match checked_schedule_peak(g, &s) {
            Ok(p) if p <= limit => {}
            _ => continue,
        }
        let c = added_cost(g, &s);
        let zero = c == 0.0;
        found.push((c, s));
        if zero {
            break;
        }
    }
    // A tighter limit can steer the greedy choices to a cheaper schedule (its cost is not
    // monotone in the limit): in the time left, the first two weightings at limits part of
    // the way down to the bound; what they find is within `limit` too.
    let (bound, _) = super::least_peak_bound(g);
    for &frac in LADDER {
        if budget.expired() || found.first().is_some_and(|f| f.0 == 0.0) {
            break;
        }
        let lower = bound + ((limit - bound.min(limit)) as f64 * frac) as u64;
        for &w in &WEIGHTS[..2] {
            if budget.expired() {
                break;
            }
            let stop = || budget.expired();
            if let Some(s) = Pass::new(g, &statics, lower, w).run(order, &stop) {
                if checked_schedule_peak(g, &s).is_ok_and(|p| p <= limit) {
                    found.push((added_cost(g, &s), s));
                }
            }
        }
    }
    // Drop what each schedule does not need, cheapest first, while time is left; a weighting
    // that lost may win once pruned.
    found.sort_by_compact(|a, b| a.0.total_cmp(&b.0));
    let mut best: Option<(f64, Vec<OpIx>)> = None;
    let stop = || budget.expired();
    for (k, (c, s)) in found.into_iter().enumerate() {
        if k > 0 && stop() {
            if best.as_ref().map_or(true, |b| c < b.0) {
                best = Some((c, s));
            }
            continue;
        }
        let s = if c > 0.0 {
            prune(g, s, limit, &stop)
        } else {
            s
        };
        let c = added_cost(g, &s);
        if best.as_ref().map_or(true, |b| c < b.0) {
            best = Some((c, s));
        }
    }
    match best {
        Some((added_cost, schedule)) => Outcome::Found(Found {
            schedule,
            added_cost,
            cost_bound: 0.0,
        }),
        None => Outcome::Unknown,
    }
}

/// The least peak eviction along `order` reaches: bisection on the limit between the proven
/// bound and the order's own peak (a limit some weighting fits is an upper end).
pub fn least(g: &Graph, order: &[OpIx], budget: &Budget) -> Option<Least> {
    let statics = Statics::new(g, order);
    let (bound, _) = super::least_peak_bound(g);
    let stop = || budget.expired();
    let fits = |limit: u64| -> Option<(Vec<OpIx>, u64)> {
        for &w in WEIGHTS.iter().take(3) {
            if let Some(s) = Pass::new(g, &statics, limit, w).run(order, &stop) {
                if let Ok(p) = checked_schedule_peak(g, &s) {
                    if p <= limit {
                        return Some((s, p));
                    }
                }
            }
        }
        None
    };
    let top = checked_schedule_peak(g, order).ok()?;
    let mut best = (order.to_vec(), top);
    let (mut lo, mut hi) = (bound, top);
    // Invariant: `hi` fits (best holds a schedule of peak <= hi); below `lo` nothing was
    // found to. Bisection to within 1/1024 of the peak: each probe is a few passes.
    while lo < hi && hi - lo > hi / 1024 && !budget.expired() {
        let mid = lo + (hi - lo) / 2;
        match fits(mid) {
            Some((s, p)) => {
                hi = p.min(mid);
                best = (s, p);
            }
            None => lo = mid + 1,
        }
    }
    Some(Least {
        schedule: best.0,
        peak: best.1,
        bound,
    })
}

/// What every pass over one order shares: where each storage is read in the order, and which
/// storages can always be made again.
struct Statics {
    /// Positions in the order of the ops that read each storage, ascending (CSR).
    use_start: Vec<u32>,
    use_pos: Vec<u32>,
    /// The last position of the order at which each storage can surely be made again (its
    /// producer runs again, and what it reads can be had then); -1: never.
    regen: Vec<i64>,
    /// Views (transitively) of each storage root, and the direct views of each tensor.
    views_of_root: Vec<Vec<TensorIx>>,
}

impl Statics {
    fn new(g: &Graph, order: &[OpIx]) -> Statics {
        let t = g.num_tensors();
        let mut count = vec![0u32; t + 1];
        for &v in order {
            for &s in g.reads(v) {
                count[s as usize + 1] += 1;
            }
        }
        for i in 0..t {
            count[i + 1] += count[i];
        }
        let use_start = count.clone();
        let mut fill = count;
        let mut use_pos = vec![0u32; use_start[t] as usize];
        for (i, &v) in order.iter().enumerate() {
            for &s in g.reads(v) {
                use_pos[fill[s as usize] as usize] = i as u32;
                fill[s as usize] += 1;
            }
        }
        // Until which position of the order each storage can be made again (`regen`), and
        // until which it can be had at all (`avail`: made again, or still live from its last
        // making: a storage never evicted lives to its last use in the order). Producers come
        // before their readers, so one forward pass decides both.
        let tensors = g.tensors();
        let mut last_use = vec![-1i64; t];
        for (i, &v) in order.iter().enumerate() {
            for &s in g.reads(v) {
                last_use[s as usize] = i as i64;
            }
        }
        let mut regen = vec![-1i64; t];
        let mut avail = vec![-1i64; t];
        for s in 0..t {
            if g.pinned(s as TensorIx) {
                avail[s] = i64::MAX;
            } else if tensors[s].producer.is_none() {
                avail[s] = last_use[s];
            }
        }
        for &v in order {
            let op = &g.ops()[v as usize];
            let inputs_until = g
                .reads(v)
                .iter()
                .map(|&r| avail[r as usize])
                .min()
                .unwrap_or(i64::MAX);
            for &s in g.creates(v) {
                if g.pinned(s) {
                    continue;
                }
                regen[s as usize] = if op.recompute { inputs_until } else { -1 };
                avail[s as usize] = regen[s as usize].max(last_use[s as usize]);
            }
        }
        let mut views_of_root = vec![Vec::new(); t];
        for (i, tt) in tensors.iter().enumerate() {
            if tt.alias_of.is_some() {
                views_of_root[tt.root as usize].push(i as TensorIx);
            }
        }
        Statics {
            use_start,
            use_pos,
            regen,
            views_of_root,
        }
    }

    fn uses(&self, s: TensorIx) -> &[u32] {
        &self.use_pos[self.use_start[s as usize] as usize..self.use_start[s as usize + 1] as usize]
    }
}

/// One eviction pass at one limit and one weighting.
struct Pass<'a> {
    g: &'a Graph,
    st: &'a Statics,
    limit: u64,
    weights: Weights,
    /// Tracked live bytes (an upper bound on the simulator's).
    live_bytes: u64,
    live: Vec<bool>,
    /// Tensors whose current instance exists (a storage live; a view made after its base).
    valid: Vec<bool>,
    /// For a storage not live: what making it again costs ([`Pass::recompute_cost`] when it
    /// went).
    rebuild: Vec<f64>,
    /// Pins against eviction: storages the running op and the pending recomputations read.
    locked: Vec<u32>,
    /// Index into each storage's uses of its next use at or after the current position.
    next_use: Vec<u32>,
    /// Live storages that may be evicted (unordered; stale entries skipped).
    candidates: Vec<TensorIx>,
    in_candidates: Vec<bool>,
    schedule: Vec<OpIx>,
    pos: u32,
}

impl<'a> Pass<'a> {
    fn new(g: &'a Graph, st: &'a Statics, limit: u64, weights: Weights) -> Pass<'a> {
        let t = g.num_tensors();
        let mut live = vec![false; t];
        let mut valid = vec![false; t];
        for s in g.input_storages() {
            live[s as usize] = true;
        }
        for (i, tt) in g.tensors().iter().enumerate() {
            // Views of graph inputs exist from the start with their storage.
            if tt.producer.is_none() {
                valid[i] = true;
            }
        }
        Pass {
            g,
            st,
            limit,
            weights,
            live_bytes: g.inputs_bytes(),
            live,
            valid,
            rebuild: vec![0.0; t],
            locked: vec![0; t],
            next_use: vec![0; t],
            candidates: Vec::new(),
            in_candidates: vec![false; t],
            schedule: Vec::with_capacity(g.num_ops() * 2),
            pos: 0,
        }
    }

    /// Runs the whole order; the schedule, or `None` when the limit cannot be kept.
    fn run(mut self, order: &[OpIx], stop: &dyn Fn() -> bool) -> Option<Vec<OpIx>> {
        let g = self.g;
        if self.live_bytes > self.limit {
            return None;
        }
        let max_len = order.len().saturating_mul(MAX_RUNS_PER_OP);
        for (i, &v) in order.iter().enumerate() {
            self.pos = i as u32;
            if i % 64 == 0 && stop() {
                return None;
            }
            for &s in g.reads(v) {
                self.locked[s as usize] += 1;
            }
            for t in needed_tensors(g, v) {
                if !self.ensure(t, max_len)? {
                    return None;
                }
            }
            self.execute(v)?;
            for &s in g.reads(v) {
                self.locked[s as usize] -= 1;
                // Its use here is spent.
                let uses = self.st.uses(s);
                let mut k = self.next_use[s as usize] as usize;
                while k < uses.len() && uses[k] <= self.pos {
                    k += 1;
                }
                self.next_use[s as usize] = k as u32;
            }
            self.free_dead(v);
        }
        Some(self.schedule)
    }

    /// Makes tensor `t` current, recomputing what it needs (an explicit stack: chains of
    /// recomputations can be as deep as the graph). `Some(false)`: cannot be made.
    fn ensure(&mut self, t: TensorIx, max_len: usize) -> Option<bool> {
        let g = self.g;
        if self.valid[t as usize] {
            return Some(true);
        }
        let mut stack: Vec<(OpIx, bool)> = Vec::new();
        let push = |pass: &mut Pass, stack: &mut Vec<(OpIx, bool)>, t: TensorIx| -> bool {
            let Some(p) = g.tensors()[t as usize].producer else {
                return false;
            };
            if !g.ops()[p as usize].recompute {
                return false;
            }
            for &s in g.reads(p) {
                pass.locked[s as usize] += 1;
            }
            stack.push((p, false));
            true
        };
        if !push(self, &mut stack, t) {
            return Some(false);
        }
        while let Some(&(p, expanded)) = stack.last() {
            if !expanded {
                stack.last_mut().expect("non-empty").1 = true;
                for x in needed_tensors(g, p) {
                    if !self.valid[x as usize] && !push(self, &mut stack, x) {
                        return Some(false);
                    }
                }
                continue;
            }
            // Its inputs were pushed above it and are made now, unless a sibling's run
            // replaced one: then make that one again first.
            if let Some(x) = needed_tensors(g, p).find(|&x| !self.valid[x as usize]) {
                if !push(self, &mut stack, x) {
                    return Some(false);
                }
                continue;
            }
            stack.pop();
            if self.schedule.len() >= max_len {
                return None;
            }
            self.execute(p)?;
            for &s in g.reads(p) {
                self.locked[s as usize] -= 1;
            }
            self.free_dead(p);
        }
        Some(self.valid[t as usize])
    }

    /// Runs `v` (its inputs current and locked), evicting until it fits.
    fn execute(&mut self, v: OpIx) -> Option<()> {
        let g = self.g;
        // A recomputation replaces its outputs' old instances: the simulator has freed them by
        // their last use, no later than now.
        for &s in g.creates(v) {
            if self.live[s as usize] {
                self.drop_storage(s);
            }
        }
        let extra = g.alloc(v) + g.workspace(v);
        while self.live_bytes + extra > self.limit {
            let victim = self.pick_victim()?;
            self.drop_storage(victim);
        }
        for &s in g.creates(v) {
            self.live[s as usize] = true;
            self.live_bytes += g.size(s);
            if self.st.regen[s as usize] >= 0 && !self.in_candidates[s as usize] {
                self.in_candidates[s as usize] = true;
                self.candidates.push(s);
            }
        }
        for &t in &g.ops()[v as usize].outputs {
            self.valid[t as usize] = true;
        }
        // Views made from an earlier instance of what `v` made are stale now; views of a view
        // `v` made again likewise (they alias it transitively).
        for &t in &g.ops()[v as usize].outputs {
            self.invalidate_descendants(t, v);
        }
        self.schedule.push(v);
        Some(())
    }

    /// Views whose alias chain passes through `t` and that `v` did not just make.
    fn invalidate_descendants(&mut self, t: TensorIx, v: OpIx) {
        let g = self.g;
        let tensors = g.tensors();
        let root = tensors[t as usize].root;
        for &w in &self.st.views_of_root[root as usize] {
            if tensors[w as usize].producer == Some(v) {
                continue;
            }
            let mut a = tensors[w as usize].alias_of;
            while let Some(x) = a {
                if x == t {
                    self.valid[w as usize] = false;
                    break;
                }
                a = tensors[x as usize].alias_of;
            }
        }
    }

    /// Frees what `v` read or made that nothing will read again (in the order, or a pending
    /// recomputation: those are locked).
    fn free_dead(&mut self, v: OpIx) {
        let g = self.g;
        for &s in g.reads(v).iter().chain(g.creates(v)) {
            if self.live[s as usize]
                && self.locked[s as usize] == 0
                && !g.pinned(s)
                && self.next_use[s as usize] as usize >= self.st.uses(s).len()
            {
                self.drop_storage(s);
            }
        }
    }

    fn drop_storage(&mut self, s: TensorIx) {
        let g = self.g;
        // What making it again will cost, with what it needs that is gone too.
        self.rebuild[s as usize] = self.recompute_cost(s);
        self.live[s as usize] = false;
        self.live_bytes -= g.size(s);
        self.valid[s as usize] = false;
        for &w in &self.st.views_of_root[s as usize] {
            self.valid[w as usize] = false;
        }
    }

    /// The evictable live storage with the lowest score; `None` when nothing can go.
    fn pick_victim(&mut self) -> Option<TensorIx> {
        let g = self.g;
        let Weights(wc, wb, wd, _) = self.weights;
        let mut best: Option<(f64, TensorIx)> = None;
        let mut k = 0;
        while k < self.candidates.len() {
            let s = self.candidates[k];
            if !self.live[s as usize] {
                // Stale entry: drop it (order does not matter).
                self.in_candidates[s as usize] = false;
                self.candidates.swap_remove(k);
                continue;
            }
            k += 1;
            if self.locked[s as usize] > 0 || g.size(s) == 0 {
                continue;
            }
            let uses = self.st.uses(s);
            let next = self.next_use[s as usize] as usize;
            // Uses already passed in the order do not count (the pointer moves lazily).
            let next_pos = uses[next.min(uses.len())..]
                .iter()
                .copied()
                .find(|&p| p > self.pos);
            // Evicted now, it is made again just before its next use: it must be makeable then.
            if next_pos.is_some_and(|p| p as i64 > self.st.regen[s as usize]) {
                continue;
            }
            let score = match next_pos {
                None => 0.0,
                Some(p) => {
                    let dist = (p - self.pos) as f64;
                    let cost = self.recompute_cost(s);
                    pow(cost, wc) / (pow(g.size(s) as f64, wb) * pow(dist, wd))
                }
            };
            if best.map_or(true, |(b, _)| score < b) {
                best = Some((score, s));
            }
        }
        best.map(|(_, s)| s)
    }

    /// What making `s` again costs: its producer, and what making again each input that is
    /// gone costs (DTR's evicted neighbourhood, summed as a tree: an input shared by two
    /// paths counts twice, an over-estimate that steers away from long recompute chains).
    fn recompute_cost(&self, s: TensorIx) -> f64 {
        let g = self.g;
        let Some(p) = g.tensors()[s as usize].producer else {
            return f64::INFINITY;
        };
        let mut c = g.ops()[p as usize].cost;
        let deep = self.weights.3;
        for &r in g.reads(p) {
            if !self.live[r as usize] {
                if let Some(q) = g.tensors()[r as usize].producer {
                    c += if deep {
                        self.rebuild[r as usize]
                    } else {
                        g.ops()[q as usize].cost
                    };
                }
            }
        }
        let c = c.min(1e300);
        // A zero-cost op is still a run: keep the score ordered by bytes and distance.
        c.max(1e-9)
    }
}

fn pow(x: f64, e: f64) -> f64 {
    if e == 1.0 {
        x
    } else if e == 0.0 {
        1.0
    } else {
        x.powf(e)
    }
}

/// The tensors `v` needs current: its inputs and the bases of the views it makes.
fn needed_tensors(g: &Graph, v: OpIx) -> impl Iterator<Item = TensorIx> + '_ {
    let op = &g.ops()[v as usize];
    let bases = op
        .outputs
        .iter()
        .filter_map(|&t| g.tensors()[t as usize].alias_of)
        .filter(move |&a| g.tensors()[a as usize].producer != Some(v));
    op.inputs.iter().copied().chain(bases)
}
