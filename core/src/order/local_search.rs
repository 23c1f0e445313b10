//! Local search over orders: first-improvement hill climbing with single-op moves around the
//! peak (in the spirit of the insertion neighbourhoods of list-scheduling local search, e.g.
//! Sinnen, "Task Scheduling for Parallel Systems", 2007, ch. 5).
//!
//! Only memory near a peak step can lower the peak, so each round looks at the steps where the
//! order reaches its peak and tries moving a nearby op across that step, within the window its
//! dependencies allow: an op that runs before the peak and whose consumers all run after it moves
//! just after the peak (or as late as it may), and an op after the peak whose producers all ran
//! before it moves just before the peak (or as early as it may). A move is accepted when it
//! lowers the peak, or keeps it and lowers the number of steps that reach it.
//!
//! Re-evaluation is incremental: a move of an op from position `i` to `j` changes memory only at
//! positions between them, so only that stretch is re-simulated (knowing, per storage, which op
//! is its last user); the rest of the profile comes from a max-and-count segment tree over
//! positions. A move costs O(|i − j| · degree + log V), and moves span at most [`WINDOW`] steps.
//! Once no move improves, an iterated local search kicks a few random ops across a peak step
//! and climbs again, keeping the best order found, until [`KICKS`] kicks in a row fail.
//! Work is bounded by the budget: `max_states` caps the number of moves evaluated, and the
//! deadline (through the [`Clock`](crate::budget::Clock)) is checked as the search goes.

use crate::bounds::lower_bound;
use crate::budget::Budget;
use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::OpIx;

/// Longest stretch a single move may span.
pub const WINDOW: usize = 48;
/// Peak steps examined per round.
const PEAKS_PER_ROUND: usize = 4;

const NONE: OpIx = OpIx::MAX;

/// Max-and-count segment tree over positions.
struct MaxCount {
    n: usize,
    t: Vec<(u64, u32)>,
}

fn join(a: (u64, u32), b: (u64, u32)) -> (u64, u32) {
    match a.0.cmp(&b.0) {
        std::cmp::Ordering::Greater => a,
        std::cmp::Ordering::Less => b,
        std::cmp::Ordering::Equal => (a.0, a.1 + b.1),
    }
}

impl MaxCount {
    fn new(values: &[u64]) -> Self {
        let n = values.len().next_power_of_two().max(1);
        let mut t = vec![(0, 0); 2 * n];
        for (i, &v) in values.iter().enumerate() {
            t[n + i] = (v, 1);
        }
        for p in (1..n).rev() {
            t[p] = join(t[2 * p], t[2 * p + 1]);
        }
        MaxCount { n, t }
    }
    /// Sets positions `lo..lo + values.len()`, then their ancestors level by level:
    /// O(len + log n) rather than O(len · log n).
    fn set_range(&mut self, lo: usize, values: &[u64]) {
        if values.is_empty() {
            return;
        }
        let (mut a, mut b) = (lo + self.n, lo + values.len() - 1 + self.n);
        for (k, &v) in values.iter().enumerate() {
            self.t[a + k] = (v, 1);
        }
        while a > 1 {
            a /= 2;
            b /= 2;
            for p in a..=b {
                self.t[p] = join(self.t[2 * p], self.t[2 * p + 1]);
            }
        }
    }
    /// (max, count of max) over `[lo, hi)`; (0, 0) when empty.
    fn query(&self, lo: usize, hi: usize) -> (u64, u32) {
        let (mut lo, mut hi) = (lo + self.n, hi + self.n);
        let mut acc = (0, 0);
        while lo < hi {
            if lo & 1 == 1 {
                acc = join(acc, self.t[lo]);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                acc = join(acc, self.t[hi]);
            }
            lo /= 2;
            hi /= 2;
        }
        acc
    }
    fn root(&self) -> (u64, u32) {
        self.t[1]
    }
    /// Up to `limit` positions holding the value `m`, leftmost first.
    fn positions_of(&self, m: u64, limit: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![1usize];
        while let Some(p) = stack.pop() {
            if out.len() >= limit || self.t[p].0 != m || self.t[p].1 == 0 {
                continue;
            }
            if p >= self.n {
                out.push(p - self.n);
            } else {
                stack.push(2 * p + 1);
                stack.push(2 * p);
            }
        }
        out
    }
}

/// Move the ops at positions `[a, b]` (a block, kept in order) so that the block starts at `j`
/// (when `j < a`) or ends at `j` (when `j > b`).
#[derive(Clone, Copy, Debug)]
struct Move {
    a: usize,
    b: usize,
    j: usize,
}

struct Search<'g> {
    g: &'g Graph,
    order: Vec<OpIx>,
    pos: Vec<u32>,
    during: Vec<u64>,
    after: Vec<u64>,
    tree: MaxCount,
    /// The last user of each storage in the current order (`NONE` without users).
    last_user: Vec<OpIx>,
    // Scratch for one evaluation.
    seg: Vec<OpIx>,
    new_during: Vec<u64>,
    new_after: Vec<u64>,
    overrides: Vec<(u32, OpIx)>,
    /// `override_epoch[s] == epoch` when storage `s` has an entry in `overrides` for the move
    /// being evaluated, at `override_index[s]`: O(1) lookups even for an op reading thousands.
    override_epoch: Vec<u32>,
    override_index: Vec<u32>,
    epoch: u32,
}

impl<'g> Search<'g> {
    fn new(g: &'g Graph, order: &[OpIx]) -> Self {
        let n = order.len();
        let mut pos = vec![0u32; g.num_ops()];
        for (i, &v) in order.iter().enumerate() {
            pos[v as usize] = i as u32;
        }
        let mut during = Vec::with_capacity(n);
        let mut after = Vec::with_capacity(n);
        let mut state = crate::simulate::MemState::new(g);
        for &v in order {
            let (d, a) = state.run(v);
            during.push(d);
            after.push(a);
        }
        let last_user = (0..g.num_tensors() as u32)
            .map(|s| {
                g.users(s)
                    .iter()
                    .copied()
                    .max_by_key(|&u| pos[u as usize])
                    .unwrap_or(NONE)
            })
            .collect();
        let tree = MaxCount::new(&during);
        Search {
            g,
            order: order.to_vec(),
            pos,
            during,
            after,
            tree,
            last_user,
            seg: Vec::new(),
            new_during: Vec::new(),
            new_after: Vec::new(),
            overrides: Vec::new(),
            override_epoch: vec![0; g.num_tensors()],
            override_index: vec![0; g.num_tensors()],
            epoch: 0,
        }
    }

    /// Latest position `v` may move to (before its first consumer).
    fn latest(&self, v: OpIx) -> usize {
        let n = self.order.len();
        self.g
            .succs(v)
            .iter()
            .map(|&w| self.pos[w as usize] as usize)
            .min()
            .map_or(n - 1, |p| p - 1)
    }

    /// Earliest position `v` may move to (after its last producer).
    fn earliest(&self, v: OpIx) -> usize {
        self.g
            .preds(v)
            .iter()
            .map(|&p| self.pos[p as usize] as usize + 1)
            .max()
            .unwrap_or(0)
    }

    /// Position of `x` after moving the block at positions `[m.a, m.b]` to `m.j`.
    fn new_pos(&self, x: OpIx, m: Move) -> usize {
        let p = self.pos[x as usize] as usize;
        let len = m.b - m.a + 1;
        let in_block = p >= m.a && p <= m.b;
        if m.j > m.b {
            if in_block {
                p + (m.j - m.b)
            } else if p > m.b && p <= m.j {
                p - len
            } else {
                p
            }
        } else if in_block {
            p - (m.a - m.j)
        } else if p >= m.j && p < m.a {
            p + len
        } else {
            p
        }
    }

    /// Simulates the stretch the move rearranges; returns the resulting (peak, steps at peak)
    /// of the whole order.
    fn evaluate(&mut self, m: Move) -> (u64, u32) {
        let g = self.g;
        let (lo, hi) = (m.a.min(m.j), m.b.max(m.j));
        // The window's ops are re-simulated (their reads and writes), and two queries of the
        // tree.
        crate::work::add(4 * (hi - lo + 1) as u64 + 32);
        self.seg.clear();
        if m.j > m.b {
            self.seg.extend_from_slice(&self.order[m.b + 1..=m.j]);
            self.seg.extend_from_slice(&self.order[m.a..=m.b]);
        } else {
            self.seg.extend_from_slice(&self.order[m.a..=m.b]);
            self.seg.extend_from_slice(&self.order[m.j..m.a]);
        }
        // Which op frees each storage the block reads, after the move (pinned storages are
        // never freed, so their last user does not matter).
        self.overrides.clear();
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Wrapped: old stamps could collide with the new epoch.
            self.override_epoch.fill(0);
            self.epoch = 1;
        }
        let block = m.a..=m.b;
        for k in m.a..=m.b {
            let x = self.order[k];
            for &s in g.reads(x) {
                if g.pinned(s) || self.override_epoch[s as usize] == self.epoch {
                    continue;
                }
                let old = self.last_user[s as usize];
                let old_in_block = block.contains(&(self.pos[old as usize] as usize));
                let last = if m.j < m.a && old_in_block {
                    // The last reader moves earlier: another may now be last; look at all.
                    g.users(s)
                        .iter()
                        .copied()
                        .max_by_key(|&u| self.new_pos(u, m))
                        .unwrap_or(NONE)
                } else {
                    // Otherwise only the block's own readers can overtake the old last one.
                    let mut best = old;
                    for &u in &self.order[m.a..=m.b] {
                        if g.reads(u).contains(&s) && self.new_pos(u, m) > self.new_pos(best, m) {
                            best = u;
                        }
                    }
                    best
                };
                self.override_epoch[s as usize] = self.epoch;
                self.override_index[s as usize] = self.overrides.len() as u32;
                self.overrides.push((s, last));
            }
        }
        let mut live = if lo == 0 {
            g.inputs_bytes()
        } else {
            self.after[lo - 1]
        };
        self.new_during.clear();
        self.new_after.clear();
        for k in 0..self.seg.len() {
            let x = self.seg[k];
            self.new_during.push(live + g.alloc(x) + g.workspace(x));
            live += g.alloc(x);
            for &s in g.reads(x) {
                if g.pinned(s) {
                    continue;
                }
                let last = if self.override_epoch[s as usize] == self.epoch {
                    self.overrides[self.override_index[s as usize] as usize].1
                } else {
                    self.last_user[s as usize]
                };
                if last == x {
                    live -= g.size(s);
                }
            }
            for &s in g.creates(x) {
                if g.users(s).is_empty() && !g.pinned(s) {
                    live -= g.size(s);
                }
            }
            self.new_after.push(live);
        }
        debug_assert_eq!(live, self.after[hi]);
        let mut inside = (0u64, 0u32);
        for &d in &self.new_during {
            inside = join(inside, (d, 1));
        }
        let outside = join(
            self.tree.query(0, lo),
            self.tree.query(hi + 1, self.order.len()),
        );
        join(outside, inside)
    }

    /// Commits the move last evaluated.
    fn apply(&mut self, m: Move) {
        let lo = m.a.min(m.j);
        for (k, &x) in self.seg.iter().enumerate() {
            let p = lo + k;
            self.order[p] = x;
            self.pos[x as usize] = p as u32;
            self.during[p] = self.new_during[k];
            self.after[p] = self.new_after[k];
        }
        self.tree.set_range(lo, &self.new_during);
        for &(s, l) in &self.overrides {
            self.last_user[s as usize] = l;
        }
    }
}

/// Bytes `v` frees as the last user of its inputs in the current order (optimistic for a move
/// earlier: another reader may become the last one).
fn frees_as_last(s: &Search, v: OpIx) -> u64 {
    let g = s.g;
    g.reads(v)
        .iter()
        .filter(|&&t| s.last_user[t as usize] == v && !g.pinned(t))
        .map(|&t| g.size(t))
        .sum()
}

/// Longest block moved as one.
const MAX_BLOCK: usize = 8;

/// Moves worth trying around peak position `p`.
///
/// For each op near the peak that may cross it: the op alone, then blocks of up to
/// [`MAX_BLOCK`] ops ending (moving later) or starting (moving earlier) with it, as long as the
/// block may move as one. A move across `p` can lower memory at `p` only if the moved ops hold
/// more there than they free (moving later) or free more than they add (moving earlier); other
/// moves are filtered out by that O(degree) test before any stretch is simulated.
fn candidates(s: &Search, p: usize) -> Vec<Move> {
    let g = s.g;
    let n = s.order.len();
    let mut out = Vec::new();
    // Single-op moves are tried first, blocks after them.
    let mut blocks = Vec::new();
    let lo = p.saturating_sub(WINDOW);
    let hi = (p + WINDOW).min(n - 1);
    let in_block = |q: u32, a: usize, b: usize| (q as usize) >= a && (q as usize) <= b;
    // The peak op itself, as early or as late as it may go.
    let x = s.order[p];
    let (e, l) = (s.earliest(x).max(lo), s.latest(x).min(hi));
    if e < p {
        out.push(Move { a: p, b: p, j: e });
    }
    if l > p {
        out.push(Move { a: p, b: p, j: l });
    }
    // Blocks before the peak that may run after it, nearest first: their outputs leave the
    // peak step, their frees move after it.
    for b in (lo..p).rev() {
        // `limit`: the last position the block [a, b] may end at.
        let mut limit = n - 1;
        let mut net: i128 = 0;
        for a in (b.saturating_sub(MAX_BLOCK - 1).max(lo)..=b).rev() {
            let u = s.order[a];
            for &w in g.succs(u) {
                let q = s.pos[w as usize];
                if !in_block(q, a, b) {
                    limit = limit.min(q as usize - 1);
                }
            }
            if limit < p {
                break;
            }
            net += g.alloc(u) as i128 - frees_as_last(s, u) as i128;
            if net > 0 {
                let to = if a == b { &mut out } else { &mut blocks };
                to.push(Move { a, b, j: p });
                let far = limit.min(hi);
                if far > p {
                    to.push(Move { a, b, j: far });
                }
            }
        }
    }
    // Blocks after the peak that may run before it: their frees join the peak step, their
    // outputs too.
    for a in p + 1..=hi {
        let mut limit = 0;
        let mut net: i128 = 0;
        for b in a..=(a + MAX_BLOCK - 1).min(hi) {
            let w = s.order[b];
            for &q in g.preds(w) {
                let q = s.pos[q as usize];
                if !in_block(q, a, b) {
                    limit = limit.max(q as usize + 1);
                }
            }
            if limit > p {
                break;
            }
            net += frees_as_last(s, w) as i128 - g.alloc(w) as i128;
            if net > 0 {
                let to = if a == b { &mut out } else { &mut blocks };
                to.push(Move { a, b, j: p });
                let far = limit.max(lo);
                if far < p {
                    to.push(Move { a, b, j: far });
                }
            }
        }
    }
    out.extend(blocks);
    out
}

/// Improves `order` (a valid order of `g`) by local search; never returns a worse order.
///
/// `budget.max_states` caps the number of moves evaluated; the deadline is honoured too.
pub fn improve(g: &Graph, order: &[OpIx], budget: &Budget) -> Vec<OpIx> {
    improve_counted(g, order, budget).0
}

/// [`improve`], also returning the number of moves evaluated.
pub fn improve_counted(g: &Graph, order: &[OpIx], budget: &Budget) -> (Vec<OpIx>, u64) {
    if order.len() < 2 || budget.max_states == 0 || budget.expired() {
        return (order.to_vec(), 0);
    }
    let floor = lower_bound(g).max(g.inputs_bytes());
    let t0 = budget.clock.now_ms();
    let mut s = Search::new(g, order);
    // A kick that does not pay off rebuilds the search from the best order, as long as this
    // first build took (8 to 10 ms on 100,000 ops, unread): with less time left than that, the
    // rebuild would run past the deadline, so the search stops instead.
    let setup_ms = budget.clock.now_ms() - t0;
    let mut evals: u64 = 0;
    if !climb(&mut s, floor, budget, &mut evals) {
        return (s.order, evals);
    }
    // Iterated local search (Lourenço, Martin and Stützle, "Iterated local search", Handbook of
    // Metaheuristics, 2003): from the best local optimum, kick a few ops across a peak step at
    // random and climb again; keep the result when it is better. Stops after `KICKS` kicks in a
    // row without improvement, or when the budget runs out.
    let mut best = (s.tree.root(), s.order.clone());
    let mut rng: u64 = 0x2545_F491_4F6C_DD1D ^ order.len() as u64;
    let mut stale = 0;
    while stale < KICKS && best.0 .0 > floor {
        for _ in 0..KICK_MOVES {
            kick(&mut s, &mut rng);
        }
        let more = climb(&mut s, floor, budget, &mut evals);
        let now = s.tree.root();
        if now.0 < best.0 .0 || (now.0 == best.0 .0 && now.1 < best.0 .1) {
            best = (now, s.order.clone());
            stale = 0;
        } else {
            stale += 1;
            if !more || budget.less_left_than(setup_ms) || budget.expired() {
                break;
            }
            s = Search::new(g, &best.1);
        }
        if !more {
            break;
        }
    }
    (best.1, evals)
}

/// Kicks without improvement after which the iterated search stops.
pub const KICKS: u32 = 24;
/// Random moves per kick.
const KICK_MOVES: usize = 3;

fn next_random(state: &mut u64) -> u64 {
    // xorshift64*: enough to pick kicks reproducibly.
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// Applies one random valid move of a single op across a peak step, whatever it costs.
fn kick(s: &mut Search, rng: &mut u64) {
    let n = s.order.len();
    let peaks = s.tree.positions_of(s.tree.root().0, PEAKS_PER_ROUND);
    if peaks.is_empty() {
        return;
    }
    let p = peaks[(next_random(rng) % peaks.len() as u64) as usize];
    let lo = p.saturating_sub(WINDOW);
    let hi = (p + WINDOW).min(n - 1);
    let i = lo + (next_random(rng) % (hi - lo + 1) as u64) as usize;
    let v = s.order[i];
    let (e, l) = (s.earliest(v).max(lo), s.latest(v).min(hi));
    if e >= l {
        return;
    }
    let j = e + (next_random(rng) % (l - e + 1) as u64) as usize;
    if j == i {
        return;
    }
    let m = Move { a: i, b: i, j };
    s.evaluate(m);
    s.apply(m);
}

/// First-improvement hill climbing until a local optimum (true) or the budget runs out (false).
fn climb(s: &mut Search, floor: u64, budget: &Budget, evals: &mut u64) -> bool {
    loop {
        let cur = s.tree.root();
        if cur.0 <= floor {
            return true;
        }
        if budget.expired() {
            return false;
        }
        let mut improved = false;
        for p in s.tree.positions_of(cur.0, PEAKS_PER_ROUND) {
            for m in candidates(s, p) {
                if *evals >= budget.max_states {
                    return false;
                }
                *evals += 1;
                if *evals % 64 == 0 && budget.expired() {
                    return false;
                }
                let (peak, c) = s.evaluate(m);
                if peak < cur.0 || (peak == cur.0 && c < cur.1) {
                    s.apply(m);
                    improved = true;
                    break;
                }
            }
            if improved {
                break;
            }
        }
        if !improved {
            return true;
        }
    }
}

/// Local search on several starting orders: the `k` lowest-peak distinct candidates, best first.
/// Each search but the last may use half of the budget left (moves and time); a search that
/// reaches a local optimum early leaves the rest to the next. Returns the best result, never
/// worse than the best candidate.
pub fn improve_best(g: &Graph, candidates: Vec<Vec<OpIx>>, k: usize, budget: &Budget) -> Vec<OpIx> {
    let scored = candidates
        .into_iter()
        .map(|o| (crate::simulate::peak_of(g, &o), o))
        .collect();
    improve_best_scored(g, scored, k, budget).1
}

/// [`improve_best`] on candidates whose peaks are known, returning the result's peak too: the
/// call `auto`'s polish makes (its candidates are scored already, and a simulation of each
/// costs milliseconds on 100,000 ops, unread by the clock).
pub fn improve_best_scored(
    g: &Graph,
    mut scored: Vec<(u64, Vec<OpIx>)>,
    k: usize,
    budget: &Budget,
) -> (u64, Vec<OpIx>) {
    scored.sort_by_key_compact(|c| c.0);
    // Identical orders would repeat the same search.
    scored.dedup_by(|a, b| a.1 == b.1);
    let k = k.clamp(1, scored.len().max(1));
    let mut moves_left = budget.max_states;
    let mut best: Option<(u64, Vec<OpIx>)> = None;
    for (i, (p, order)) in scored.into_iter().take(k).enumerate() {
        // Out of budget: the remaining candidates keep their peaks, and the best of them is the
        // first (they are sorted); setting up another search would only overrun the deadline.
        if i > 0 && (budget.expired() || moves_left == 0) {
            let wins = match &best {
                None => true,
                Some(b) => p < b.0,
            };
            if wins {
                best = Some((p, order));
            }
            break;
        }
        let last = i + 1 == k;
        let share = if last {
            budget.share(1.0, moves_left)
        } else {
            budget.share(0.5, moves_left / 2)
        };
        let (better, used) = improve_counted(g, &order, &share);
        moves_left = moves_left.saturating_sub(used);
        // The order came back as it went in (no time, or a local optimum): its peak is known.
        let bp = if better == order {
            p
        } else {
            crate::simulate::peak_of(g, &better)
        };
        let (bp, result) = if bp < p { (bp, better) } else { (p, order) };
        let wins = match &best {
            None => true,
            Some(b) => bp < b.0,
        };
        if wins {
            best = Some((bp, result));
        }
    }
    best.unwrap_or_default()
}
