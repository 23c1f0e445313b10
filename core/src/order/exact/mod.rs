//! Exact search: the optimal peak as a bottleneck shortest path over the lattice of downsets.
//!
//! Memory after a set S of ops has run depends only on S (DESIGN.md §1), so an order is a path
//! through the downsets (sets closed under predecessors) from ∅ to all ops, and its peak is the
//! largest step cost on the path: live(S) + alloc(v) + workspace(v). We search it best-first:
//! A* (P. E. Hart, N. J. Nilsson, B. Raphael, "A formal basis for the heuristic determination of
//! minimum cost paths", IEEE Trans. SSC 4(2), 1968) with `max` in place of `+`. The problem is
//! NP-hard in general (see M. Kayaaslan, T. Lambert, L. Marchal, B. Uçar, "Scheduling
//! series-parallel task graphs to minimize peak memory", TCS 707, 2018), so the search is pruned:
//!
//! - **an upper bound**: the best heuristic order, improved now and then by finishing a popped
//!   state greedily; only strictly better paths are searched, so an exhausted search proves the
//!   best order optimal;
//! - **admissible lower bounds** per state: the next op runs on top of live(S); every op still
//!   to run has on top of it the storages, live now or made by its ancestors, that it or one of
//!   its descendants still needs (or that are never freed); and for two ops neither of which
//!   precedes the other, whichever runs second has on top of it what the first one left behind:
//!   storages its ancestors made that are still needed, or a valley of the paths to a common
//!   descendant, after J. W. H. Liu, "An application of generalized tree pebbling to sparse
//!   matrix factorization", SIAM J. Algebraic Discrete Methods 8(3), 1987 (see `pairs.rs`), and
//!   the first has on top of it what the second still needs; at the start of each part, the
//!   minimum cut of `cut.rs`;
//! - **a second search from the end** (`backward.rs`): whichever direction runs out of states
//!   under the best peak first proves it;
//! - **dominance rules**: an op that runs under a lower bound of the final peak and frees at least
//!   what it allocates can run at once, and so can a chain of successors that stays under it and
//!   ends at its own lowest memory, and a block of ready ops that together free a shared input
//!   (`Part::closure` and `Part::block` give the argument);
//! - **divide and conquer**: an op that every other op must precede or follow (a cut) splits every
//!   order into the same three parts, searched separately, largest upper bound first, skipping a
//!   part whose incumbent is under the proven bound; and a part made of independent components is
//!   first solved component by component, the orders merged as independent chains.
//!
//! States are bitsets of the part's ops (`bits.rs`) in an arena, indexed by a hash table of `u32`
//! ids; the table's memory is capped ([`Budget::max_memory_bytes`]). When the budget runs out
//! the search returns its best order and the smallest open f-value as a proven lower bound,
//! with `optimal: false`. Independent components are in `components.rs`; `check.rs` tests every
//! bound against dynamic programming on small graphs.

mod backward;
mod bits;
mod check;
mod components;
mod cut;
mod pairs;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use hashbrown::HashTable;

use crate::bounds::lower_bound;
use crate::graph::Graph;
use crate::plan::{Budget, Ordering, Progress};
use crate::simulate::MemState;
use crate::OpIx;

use bits::{has, hash_words, put, weight, ByteSums};
#[doc(hidden)]
pub use check::check_bound_admissible;
use components::solve_components;
use pairs::{pair_sets, pairs_by_op, Pair, PairTables, MAX_PAIR_OPS};

const NIL: u32 = u32::MAX;

/// Longest chain the dominance closure tries (see [`Part::closure`]).
const MAX_CHAIN: usize = 8;

/// Most ops in a block of the dominance closure (see [`Part::block`]).
const MAX_BLOCK: usize = 4;

/// Most backward expansions per forward one (see [`Part::search`]). Measured on the 60-op
/// families (`benches/states.rs`, 200 seeds each): the slowest seed took 72 ms at 1, 58 at 4
/// and 8, 58 at 16; all seeds together 1.72 s, 1.45 s, 1.39 s, 1.43 s.
const BACK_PER_FORWARD: usize = 8;

/// Parts larger than this are not searched (a state costs O(ops) to expand, and setting a part
/// up costs O(ops × storages)).
pub const MAX_PART_OPS: usize = 1024;

/// Parts of at least this many ops read the clock before each child of an expansion.
const CHECK_EACH_CHILD_OPS: usize = 128;

/// About how long setting up a part of `ops` takes, in milliseconds. Two terms dominate: for
/// each storage each op reads, all its users (0.25 µs each, measured on a 1,004-op workflow
/// whose 1,000 tasks read one input: 1.0M of them, 250 ms), and every op against every storage
/// of the part (5 ns each: a 1,024-op elimination tree, 2M pairs, 10 ms).
fn setup_ms(g: &Graph, ops: &[OpIx]) -> f64 {
    let (mut readers, mut storages) = (0u64, 0u64);
    for &v in ops {
        readers += g
            .reads(v)
            .iter()
            .map(|&s| g.users(s).len() as u64 + 1)
            .sum::<u64>();
        storages += (g.reads(v).len() + g.creates(v).len()) as u64;
    }
    readers as f64 * 3e-4 + (ops.len() as u64 * storages) as f64 * 6e-6
}

/// Positions in `order` (a topological order) of its cut ops: ops that every other op precedes
/// or follows. Linear time: the op at position i is a cut when every earlier op has a successor
/// at or before i (so, inductively, reaches it) and every later op a predecessor at or after i.
pub fn cut_positions(g: &Graph, order: &[OpIx]) -> Vec<usize> {
    let n = order.len();
    let mut pos = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    let mut prefix_ok = vec![false; n];
    let mut worst = 0usize; // largest "earliest successor" among ops before i
    for i in 0..n {
        prefix_ok[i] = worst <= i;
        let v = order[i];
        let min_succ = g
            .succs(v)
            .iter()
            .map(|&w| pos[w as usize])
            .min()
            .unwrap_or(usize::MAX);
        worst = worst.max(min_succ);
    }
    let mut cuts = Vec::new();
    // Smallest "latest predecessor" among ops after i (-1 for an op with none: never a cut).
    let mut low = i64::MAX;
    for i in (0..n).rev() {
        if prefix_ok[i] && low >= i as i64 {
            cuts.push(i);
        }
        let v = order[i];
        let max_pred = g.preds(v).iter().map(|&p| pos[p as usize] as i64).max();
        low = low.min(max_pred.unwrap_or(-1));
    }
    cuts.reverse();
    cuts
}

/// A lower bound on every order's peak from the cut decomposition of `order` (a topological
/// order): the memory while each cut op runs is forced, and each part between cuts of at most
/// `max_part_ops` ops gets the bound of the search's `h` at its start. See
/// [`crate::bounds::part_lower_bound`].
pub fn cut_part_bound(g: &Graph, order: &[OpIx], max_part_ops: usize) -> u64 {
    cut_part_bound_until(g, order, max_part_ops, &|| false)
}

/// [`cut_part_bound`], skipping the remaining parts' crossing bounds once `stop()` is true (a
/// part of [`MAX_PART_OPS`] ops costs tens of milliseconds, and a plan's deadline covers it).
pub fn cut_part_bound_until(
    g: &Graph,
    order: &[OpIx],
    max_part_ops: usize,
    stop: &dyn Fn() -> bool,
) -> u64 {
    let n = order.len();
    let mut state = MemState::new(g);
    let mut live_before = Vec::with_capacity(n);
    let mut during = Vec::with_capacity(n);
    for &v in order {
        live_before.push(state.live());
        during.push(state.run(v).0);
    }
    let mut pos = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    let mut bound = g.inputs_bytes();
    let mut start = 0;
    let cuts = cut_positions(g, order);
    for c in cuts.iter().copied().chain(std::iter::once(n)) {
        if c > start && c - start <= max_part_ops && !stop() {
            let part = Part::new(g, order, &pos, start, c, live_before[start], stop);
            bound = bound.max(part.static_bound());
        }
        if c < n {
            bound = bound.max(during[c]);
        }
        start = c + 1;
    }
    bound
}

/// The result of an exact search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact {
    pub order: Vec<OpIx>,
    pub peak: u64,
    /// A proven lower bound on every order's peak (equal to `peak` when `optimal`).
    pub lower_bound: u64,
    pub optimal: bool,
    /// States expanded.
    pub states: u64,
}

impl From<Exact> for Ordering {
    fn from(e: Exact) -> Ordering {
        Ordering {
            order: e.order,
            proven_optimal: e.optimal,
            lower_bound: Some(e.lower_bound),
            bound_by: Some(crate::bounds::BoundKind::Search),
        }
    }
}

/// Exact search seeded with `incumbent`, a complete topological order of `g` (the best heuristic
/// order known). Never fails: when the budget runs out it returns the best order found and a
/// proven lower bound.
pub fn exact_search(g: &Graph, budget: &Budget, incumbent: Vec<OpIx>) -> Exact {
    exact_search_above(g, budget, incumbent, 0)
}

/// [`exact_search`] with `floor`, a lower bound already proven (e.g. the whole-graph cut
/// bound): an incumbent at the floor is optimal at once, and the floor is the least bound the
/// search reports.
pub fn exact_search_above(g: &Graph, budget: &Budget, incumbent: Vec<OpIx>, floor: u64) -> Exact {
    let given_floor = floor;
    let n = g.num_ops();
    // The memory before and during each step of the incumbent.
    let mut state = MemState::new(g);
    let mut live_before = Vec::with_capacity(n);
    let mut during = Vec::with_capacity(n);
    for &v in &incumbent {
        live_before.push(state.live());
        during.push(state.run(v).0);
    }
    let ub_peak = during.iter().copied().fold(g.inputs_bytes(), u64::max);
    let mut floor = lower_bound(g).max(given_floor).min(ub_peak);
    let mut ctx = Ctx {
        states: 0,
        budget,
        stopped: false,
        best_peak: ub_peak,
        others: 0,
        check_every: (512 / n.max(1) as u64).clamp(1, 256),
        since_check: 0,
        checks: 0,
    };
    if ub_peak == floor {
        return Exact {
            order: incumbent,
            peak: ub_peak,
            lower_bound: floor,
            optimal: true,
            states: 0,
        };
    }
    // Parts between cut ops; a cut op is a part of its own.
    let cuts = cut_positions(g, &incumbent);
    let mut pos = vec![0usize; n];
    for (i, &v) in incumbent.iter().enumerate() {
        pos[v as usize] = i;
    }
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for &c in &cuts {
        if c > start {
            parts.push((start, c));
        }
        parts.push((c, c + 1));
        start = c + 1;
    }
    if start < n {
        parts.push((start, n));
    }
    let part_ub = |&(a, b): &(usize, usize)| during[a..b].iter().copied().max().unwrap_or(0);
    let mut by_ub: Vec<usize> = (0..parts.len()).collect();
    by_ub.sort_by_key(|&p| Reverse(part_ub(&parts[p])));
    let mut solved: Vec<Option<Vec<OpIx>>> = vec![None; parts.len()];
    let mut solved_peak: Vec<Option<u64>> = vec![None; parts.len()];
    let part_ub_of = |r: &(usize, usize)| part_ub(r);
    let mut peak = g.inputs_bytes();
    let mut all_proven = true;
    for &p in &by_ub {
        let (a, b) = parts[p];
        let ub = part_ub(&parts[p]);
        if ub <= floor || b - a == 1 {
            // Under the proven bound (or forced): the incumbent's part is as good as any.
            floor = floor.max(if b - a == 1 { ub } else { floor });
            peak = peak.max(ub);
            continue;
        }
        let too_slow = || {
            // Setting a part up reads, for every storage an op reads, all its users: with one
            // input read by a thousand ops that is a million steps. Not when it would not end
            // before the deadline.
            budget.deadline_ms.is_some_and(|d| {
                let left = d - budget.clock.now_ms();
                setup_ms(g, &incumbent[a..b]) > left
            })
        };
        if b - a > MAX_PART_OPS || ctx.stopped || budget.expired() || too_slow() {
            // Too wide to search state by state, or out of time: keep the incumbent's part.
            ctx.stopped |= b - a <= MAX_PART_OPS;
            all_proven = false;
            peak = peak.max(ub);
            continue;
        }
        let part = Part::new(g, &incumbent, &pos, a, b, live_before[a], &|| {
            budget.expired()
        });
        floor = floor.max(part.static_bound().min(ub));
        if ub <= floor {
            peak = peak.max(ub);
            continue;
        }
        // Independent components: solved one by one and merged; searched jointly only if the
        // merge is not proven optimal.
        let (mut part_order, mut part_ub) = (incumbent[a..b].to_vec(), ub);
        if let Some(c) = solve_components(g, &incumbent, &pos, a, b, live_before[a], &mut ctx) {
            floor = floor.max(c.lower_bound.min(ub));
            if c.peak < part_ub {
                (part_order, part_ub) = (c.order, c.peak);
            }
            if part_ub <= floor {
                peak = peak.max(part_ub);
                solved[p] = Some(part_order);
                solved_peak[p] = Some(part_ub);
                continue;
            }
        }
        ctx.others = parts
            .iter()
            .enumerate()
            .filter(|&(q, _)| q != p)
            .map(|(q, r)| solved_peak[q].unwrap_or_else(|| part_ub_of(r)))
            .max()
            .unwrap_or(0);
        let r = part.search(&mut ctx, &part_order, part_ub, floor);
        solved_peak[p] = Some(r.peak);
        floor = floor.max(r.lower_bound);
        peak = peak.max(r.peak);
        all_proven &= r.optimal;
        solved[p] = Some(r.order);
    }
    let mut order = Vec::with_capacity(n);
    for (p, &(a, b)) in parts.iter().enumerate() {
        match &solved[p] {
            Some(o) => order.extend_from_slice(o),
            None => order.extend_from_slice(&incumbent[a..b]),
        }
    }
    let lower = floor.min(peak);
    Exact {
        optimal: all_proven || lower == peak,
        order,
        peak,
        lower_bound: lower,
        states: ctx.states,
    }
}

struct Ctx<'b, 'a> {
    states: u64,
    budget: &'b Budget<'a>,
    stopped: bool,
    best_peak: u64,
    /// Largest best peak among the parts other than the one being searched.
    others: u64,
    /// Expansions between clock reads (fewer for large parts, whose expansions cost more): at
    /// 60 ops every 8; from 512 ops on, every one (an expansion of a 446-op part can take
    /// milliseconds).
    check_every: u64,
    /// Expansions since the clock was last read, and clock reads so far.
    since_check: u64,
    checks: u64,
}

impl Ctx<'_, '_> {
    /// Counts one expansion (forward or backward) without looking at the budget: the next
    /// [`Ctx::tick`] does.
    fn count(&mut self) {
        self.states += 1;
        self.since_check += 1;
    }

    /// Counts one expansion; true when the search must stop.
    fn tick(&mut self, bytes: u64, lb: u64) -> bool {
        self.count();
        if self.stopped {
            return true;
        }
        if self.states >= self.budget.max_states || bytes > self.budget.max_memory_bytes {
            self.stopped = true;
        } else if self.since_check >= self.check_every || self.checks == 0 {
            self.since_check = 0;
            self.checks += 1;
            if self.budget.expired() {
                self.stopped = true;
            }
            if self.checks % 16 == 1 {
                self.budget.report(&Progress {
                    states: self.states,
                    best_peak: self.best_peak,
                    lower_bound: lb,
                });
            }
        }
        self.stopped
    }
}

struct PartResult {
    order: Vec<OpIx>,
    peak: u64,
    lower_bound: u64,
    optimal: bool,
}

/// A storage that ops of the part read.
struct Read {
    size: u64,
    /// Freed inside the part once every in-part user ran (not pinned, no user after the part).
    freeable: bool,
    /// In-part users other than the reader.
    others: Vec<u32>,
}

/// One part of the graph between cut ops, with local op indices (their positions in the
/// incumbent's part, a topological order) and local storage indices for the storages its ops
/// read or make.
struct Part {
    ops: Vec<OpIx>,
    words: usize,
    reads: Vec<Vec<Read>>,
    alloc: Vec<u64>,
    step: Vec<u64>,
    /// Bytes op i frees no matter what: its own outputs nobody reads.
    self_free: Vec<u64>,
    live0: u64,
    // Local storages: size, producer (local op or NIL if made before the part), users (local op
    // bitset), never freed inside the part, freed right after its producer.
    st_size: Vec<u64>,
    /// Sums of `st_size` over storage bitsets.
    sums: ByteSums,
    st_producer: Vec<u32>,
    st_users: Vec<u64>,
    st_perm: Vec<bool>,
    st_transient: Vec<bool>,
    st_words: usize,
    /// Bytes live at the start that the part never touches (live throughout).
    untouched: u64,
    /// Per op: storages that, once made, stay live until the op has run (`cross`), and those of
    /// them made by the op's ancestors (`made`), as storage bitsets.
    cross: Vec<u64>,
    made: Vec<u64>,
    /// (largest possible need, op), largest first: see [`Part::h`].
    by_need: Vec<(u64, u32)>,
    /// Per op: its in-part predecessors as an op bitset.
    pred_mask: Vec<u64>,
    /// Ops that can free at least what they allocate (the only ones the closure may run), as
    /// an op bitset.
    closable: Vec<u64>,
    /// In-part successors of each op.
    succs: Vec<Vec<u32>>,
    /// Ops that can start a chain for [`Part::chain`]: some successor chain from them could end
    /// at or below its start even if every op freed all it possibly can.
    chain_starts: Vec<u32>,
    /// Pairs of incomparable ops for the pair bound of [`Part::h`]: (u, v, static potential),
    /// largest potential first, with `pair_bits[2k]` = P(u, v) and `pair_bits[2k + 1]` = P(v, u)
    /// (storage bitsets, see [`pair_sets`]).
    pairs: Vec<Pair>,
    pair_bits: Vec<u64>,
    /// Per op: the storages its strict ancestors make (storage bitsets; empty without pairs).
    made_anc: Vec<u64>,
    /// Per op: its pairs, and the most they can add to its bound (see [`pairs_by_op`]).
    op_pairs: Vec<Vec<u32>>,
    share_in: Vec<u64>,
    extra_first: Vec<u64>,
    /// The in-part users of each storage that the part frees and that 2 to [`MAX_BLOCK`] ops
    /// use, for [`Part::block`].
    blocks: Vec<Vec<u32>>,
    /// The same users as op bitsets, `words` per block.
    block_masks: Vec<u64>,
    /// The part's cut network, for its start bound (parts of 2 to [`MAX_PAIR_OPS`] ops).
    cut: Option<cut::CutNet>,
}

/// An open state: (f, ops still to run, live bytes, g, state id), smallest first.
type OpenEntry = (u64, u32, u64, u64, u32);

#[derive(Clone, Copy)]
struct Rec {
    g: u64,
    /// The admissible bound `h` of this state.
    h: u64,
    /// Whether `h` includes the pair bound (computed only when the state is first popped: most
    /// states generated are never popped).
    paired: bool,
    /// The pair that gave `h` (or a pair to try first: the parent's), NIL if none.
    witness: u32,
    live: u64,
    parent: u32,
    log_at: u32,
    log_len: u32,
}

impl Part {
    /// The part `order[a..b]` of a topological order; `pos` gives every op's position in it and
    /// `live0` the memory after `order[..a]`.
    fn new(
        g: &Graph,
        order: &[OpIx],
        pos: &[usize],
        a: usize,
        b: usize,
        live0: u64,
        stop: &dyn Fn() -> bool,
    ) -> Part {
        Part::of_ops(g, &order[a..b], pos, a, live0, stop)
    }

    /// A part made of `ops` (listed in a topological order): ops at positions before `a` in the
    /// order `pos` describes have run, `live0` is the memory then, and every other op runs
    /// after the part (or alongside it, when `ops` is one independent component of a part: what
    /// they read is never freed here).
    /// The part of `ops`. Its pair tables and start cut (O(ops²) and one flow per op) are left
    /// out, or cut short, once `stop()` is true: the bounds are then weaker, never wrong.
    fn of_ops(
        g: &Graph,
        ops: &[OpIx],
        pos: &[usize],
        a: usize,
        live0: u64,
        stop: &dyn Fn() -> bool,
    ) -> Part {
        let m = ops.len();
        let words = m.div_ceil(64).max(1);
        let mut index: HashMap<OpIx, u32> = HashMap::with_capacity(m);
        for (i, &v) in ops.iter().enumerate() {
            index.insert(v, i as u32);
        }
        let local = |v: OpIx| index.get(&v).copied().unwrap_or(NIL);
        let before = |v: OpIx| pos[v as usize] < a;
        // A storage is "permanent" inside the part when it is never freed there.
        let perm =
            |s: u32| g.pinned(s) || g.users(s).iter().any(|&u| !before(u) && local(u) == NIL);
        let mut preds = Vec::with_capacity(m);
        let mut reads = Vec::with_capacity(m);
        let mut alloc = Vec::with_capacity(m);
        let mut step = Vec::with_capacity(m);
        let mut self_free = Vec::with_capacity(m);
        for (i, &v) in ops.iter().enumerate() {
            preds.push(
                g.preds(v)
                    .iter()
                    .map(|&p| local(p))
                    .filter(|&p| p != NIL)
                    .collect::<Vec<_>>(),
            );
            reads.push(
                g.reads(v)
                    .iter()
                    .map(|&s| Read {
                        size: g.size(s),
                        freeable: !perm(s),
                        others: g
                            .users(s)
                            .iter()
                            .map(|&u| local(u))
                            .filter(|&u| u != NIL && u != i as u32)
                            .collect(),
                    })
                    .collect::<Vec<_>>(),
            );
            alloc.push(g.alloc(v));
            step.push(g.alloc(v) + g.workspace(v));
            self_free.push(
                g.creates(v)
                    .iter()
                    .filter(|&&s| g.users(s).is_empty() && !g.pinned(s))
                    .map(|&s| g.size(s))
                    .sum(),
            );
        }
        // Local storages: what the part reads or makes.
        let mut sts: Vec<u32> = ops
            .iter()
            .flat_map(|&v| g.reads(v).iter().chain(g.creates(v)).copied())
            .collect();
        sts.sort_unstable();
        sts.dedup();
        let st_words = sts.len().div_ceil(64).max(1);
        let mut st_size = Vec::with_capacity(sts.len());
        let mut st_producer = Vec::with_capacity(sts.len());
        let mut st_users = vec![0u64; sts.len() * words];
        let mut st_perm = Vec::with_capacity(sts.len());
        let mut st_transient = Vec::with_capacity(sts.len());
        let mut touched_live = 0;
        for (k, &s) in sts.iter().enumerate() {
            let producer = g.tensors()[s as usize].producer.map_or(NIL, local);
            let made_before = g.tensors()[s as usize].producer.map_or(true, before);
            st_size.push(g.size(s));
            st_producer.push(producer);
            for &u in g.users(s) {
                let lu = local(u);
                if lu != NIL {
                    put(&mut st_users[k * words..(k + 1) * words], lu);
                }
            }
            st_perm.push(perm(s));
            st_transient.push(producer != NIL && g.users(s).is_empty() && !g.pinned(s));
            // Live at the start: made before, and not freed before (a user remains, or never).
            let users_left = g.users(s).iter().any(|&u| !before(u));
            let never_freed = g.pinned(s)
                || (g.users(s).is_empty() && g.tensors()[s as usize].producer.is_none());
            if made_before && (never_freed || users_left) {
                touched_live += g.size(s);
            }
        }
        // Ancestors and descendants-or-self inside the part (local order is topological).
        let mut anc = vec![0u64; m * words];
        for i in 0..m {
            for &p in &preds[i] {
                let (lo, hi) = anc.split_at_mut(i * words);
                let pa = &lo[p as usize * words..(p as usize + 1) * words];
                for (x, y) in hi[..words].iter_mut().zip(pa) {
                    *x |= y;
                }
                put(&mut anc[i * words..(i + 1) * words], p);
            }
        }
        let mut desc = vec![0u64; m * words];
        for i in (0..m).rev() {
            put(&mut desc[i * words..(i + 1) * words], i as u32);
            for &p in &preds[i] {
                let (lo, hi) = desc.split_at_mut(i * words);
                let di = &hi[..words];
                for (x, y) in lo[p as usize * words..(p as usize + 1) * words]
                    .iter_mut()
                    .zip(di)
                {
                    *x |= y;
                }
            }
        }
        let mut cross = vec![0u64; m * st_words];
        let mut made = vec![0u64; m * st_words];
        for v in 0..m {
            let dv = &desc[v * words..(v + 1) * words];
            let av = &anc[v * words..(v + 1) * words];
            for k in 0..sts.len() {
                let users = &st_users[k * words..(k + 1) * words];
                let crosses = st_perm[k] || users.iter().zip(dv).any(|(x, y)| x & y != 0);
                if crosses && !st_transient[k] {
                    put(&mut cross[v * st_words..(v + 1) * st_words], k as u32);
                    let p = st_producer[k];
                    if p != NIL && p != v as u32 && has(av, p) {
                        put(&mut made[v * st_words..(v + 1) * st_words], k as u32);
                    }
                }
            }
        }
        let untouched = live0 - touched_live;
        let tables = pair_sets(
            m,
            words,
            st_words,
            &anc,
            &desc,
            &st_producer,
            &st_users,
            &st_perm,
            &st_transient,
            &st_size,
            &cross,
            &step,
            untouched,
            stop,
        );
        let PairTables {
            pairs,
            bits: pair_bits,
            made_anc,
        } = tables;
        let (op_pairs, share_in, extra_first) = pairs_by_op(m, &pairs);
        let mut by_need: Vec<(u64, u32)> = (0..m)
            .map(|v| {
                let c = &cross[v * st_words..(v + 1) * st_words];
                (
                    untouched + step[v] + weight(c.iter().copied(), &st_size),
                    v as u32,
                )
            })
            .collect();
        by_need.sort_unstable_by(|x, y| y.cmp(x));
        let mut pred_mask = vec![0u64; m * words];
        for (i, ps) in preds.iter().enumerate() {
            for &p in ps {
                put(&mut pred_mask[i * words..(i + 1) * words], p);
            }
        }
        let mut closable = vec![0u64; words];
        for i in (0..m as u32).filter(|&i| {
            let most: u64 = reads[i as usize]
                .iter()
                .filter(|r| r.freeable)
                .map(|r| r.size)
                .sum::<u64>()
                + self_free[i as usize];
            most >= alloc[i as usize]
        }) {
            put(&mut closable, i);
        }
        let mut succs = vec![Vec::new(); m];
        for (i, ps) in preds.iter().enumerate() {
            for &p in ps {
                succs[p as usize].push(i as u32);
            }
        }
        // best[v]: least cumulative (alloc − most it can free) over successor chains from v of
        // at most MAX_CHAIN ops, by rounds in reverse topological order.
        let optimistic: Vec<i128> = (0..m)
            .map(|i| {
                let most: u64 = reads[i]
                    .iter()
                    .filter(|r| r.freeable)
                    .map(|r| r.size)
                    .sum::<u64>()
                    + self_free[i];
                alloc[i] as i128 - most as i128
            })
            .collect();
        let mut best = optimistic.clone();
        for _ in 1..MAX_CHAIN {
            let prev = best.clone();
            for v in 0..m {
                if let Some(t) = succs[v].iter().map(|&w| prev[w as usize]).min() {
                    best[v] = optimistic[v].min(optimistic[v] + t);
                }
            }
        }
        let chain_starts = (0..m as u32)
            .filter(|&v| {
                succs[v as usize]
                    .iter()
                    .any(|&w| optimistic[v as usize] + best[w as usize] <= 0)
            })
            .collect();
        // Storages freed in the part with a few users there: their users may form a block.
        let blocks = (0..sts.len())
            .filter(|&k| !st_perm[k] && !st_transient[k])
            .map(|k| {
                (0..m as u32)
                    .filter(|&u| has(&st_users[k * words..(k + 1) * words], u))
                    .collect::<Vec<u32>>()
            })
            .filter(|us| (2..=MAX_BLOCK).contains(&us.len()))
            .collect::<Vec<_>>();
        let mut block_masks = vec![0u64; blocks.len() * words];
        for (b, users) in blocks.iter().enumerate() {
            for &u in users {
                put(&mut block_masks[b * words..(b + 1) * words], u);
            }
        }
        let mut part = Part {
            cut: None,
            made_anc,
            blocks,
            block_masks,
            op_pairs,
            share_in,
            extra_first,
            pairs,
            pair_bits,
            chain_starts,
            succs,
            closable,
            by_need,
            pred_mask,
            ops: ops.to_vec(),
            words,
            reads,
            alloc,
            step,
            self_free,
            live0,
            sums: ByteSums::new(&st_size),
            st_size,
            st_producer,
            st_users,
            st_perm,
            st_transient,
            st_words,
            untouched,
            cross,
            made,
        };
        if (2..=MAX_PAIR_OPS).contains(&m) && !stop() {
            part.cut = Some(cut::CutNet::new(&part, stop));
        }
        part
    }

    fn m(&self) -> usize {
        self.ops.len()
    }

    /// Bytes live at the start, among the storages the part touches, that it never frees.
    fn perm_at_start(&self) -> u64 {
        let mut set = vec![0u64; self.st_words];
        self.live_set(&vec![0u64; self.words], &mut set);
        (0..self.st_size.len() as u32)
            .filter(|&k| has(&set, k) && self.st_perm[k as usize])
            .map(|k| self.st_size[k as usize])
            .sum()
    }

    #[inline]
    fn ready(&self, set: &[u64], i: u32) -> bool {
        let w = self.words;
        let need = &self.pred_mask[i as usize * w..(i as usize + 1) * w];
        !has(set, i) && need.iter().zip(set).all(|(p, s)| p & !s == 0)
    }

    fn frees(&self, set: &[u64], i: u32) -> u64 {
        let mut f = self.self_free[i as usize];
        for r in &self.reads[i as usize] {
            if r.freeable && r.others.iter().all(|&u| has(set, u)) {
                f += r.size;
            }
        }
        f
    }

    /// Runs the dominance closure in place and returns the most memory any op it ran used.
    ///
    /// An op that stays under `limit` (a lower bound on the final peak) and frees at least what
    /// it allocates can run at once. So can a *chain* (each op a successor of the one before)
    /// whose steps stay under `limit` and whose memory ends at or below every earlier point of
    /// it, the start included: moved to the front of any order, it only lowers the memory the
    /// other ops see, since what an op frees only grows as more ops have run.
    /// `ready` holds the ops ready after `set` and is kept up to date.
    fn closure(
        &self,
        set: &mut [u64],
        ready: &mut [u64],
        live: &mut u64,
        log: &mut Vec<u32>,
        limit: u64,
    ) -> u64 {
        let mut high = 0;
        loop {
            let mut any = false;
            for k in 0..self.words {
                let mut cand = self.closable[k] & ready[k];
                while cand != 0 {
                    let i = (k * 64) as u32 + cand.trailing_zeros();
                    cand &= cand - 1;
                    if *live + self.step[i as usize] > limit {
                        continue;
                    }
                    let f = self.frees(set, i);
                    if f >= self.alloc[i as usize] {
                        high = high.max(*live + self.step[i as usize]);
                        *live = *live + self.alloc[i as usize] - f;
                        self.mark_run(set, ready, i);
                        log.push(i);
                        any = true;
                        // Ops this one made ready are candidates too.
                        cand = self.closable[k] & ready[k] & !((2u64 << (i % 64)) - 1);
                    }
                }
            }
            if !any {
                any = self.chain(set, ready, live, log, limit, &mut high);
            }
            if !any {
                any = self.block(set, ready, live, log, limit, &mut high);
            }
            if !any {
                return high;
            }
        }
    }

    /// The ops ready after `set` (not run, every predecessor run), into `out`.
    fn ready_mask(&self, set: &[u64], out: &mut [u64]) {
        out.fill(0);
        for i in 0..self.m() as u32 {
            if self.ready(set, i) {
                put(out, i);
            }
        }
    }

    /// Adds op `i` (ready) to `set` and updates `ready`: `i` leaves it, and successors whose
    /// predecessors have all run join it.
    #[inline]
    fn mark_run(&self, set: &mut [u64], ready: &mut [u64], i: u32) {
        put(set, i);
        ready[(i / 64) as usize] &= !(1 << (i % 64));
        for &w in &self.succs[i as usize] {
            if self.ready(set, w) {
                put(ready, w);
            }
        }
    }

    /// Finds and runs one block for [`Part::closure`]; false if there is none.
    ///
    /// A block is the set T of the users still to run of a storage that the part frees (at most
    /// [`MAX_BLOCK`] ops), all of them ready, such that memory after all of T is at most memory
    /// after any subset of T (so running T together frees the storage and leaves less than any
    /// partial run), and some order of T stays under `limit`. Moved to the front of any order it
    /// never raises what the other ops see: for a subset Y of T run before an op w, memory before
    /// w drops by the net of T \ Y on top of a larger set, at most its net on top of Y, which is
    /// not positive (what ops free only grows as more ops have run). Single ops and chains are
    /// the rules above; this catches ops that free a shared input only together.
    fn block(
        &self,
        set: &mut [u64],
        ready: &mut [u64],
        live: &mut u64,
        log: &mut Vec<u32>,
        limit: u64,
        high: &mut u64,
    ) -> bool {
        let mut scratch = Vec::new();
        let mut t: Vec<u32> = Vec::with_capacity(MAX_BLOCK);
        let w = self.words;
        for (b, users) in self.blocks.iter().enumerate() {
            // Cheap rejections first: most blocks have a user that is not ready.
            let mask = &self.block_masks[b * w..(b + 1) * w];
            if (0..w).any(|k| mask[k] & !(ready[k] | set[k]) != 0) {
                continue;
            }
            t.clear();
            t.extend(users.iter().copied().filter(|&u| !has(set, u)));
            if t.len() < 2 {
                continue;
            }
            // Memory after S ∪ Y for every subset Y of T (ready ops are independent, so every
            // subset is a downset); mem[Y] via Y minus its highest member.
            let full = (1usize << t.len()) - 1;
            let mut mem = vec![0i128; full + 1];
            mem[0] = *live as i128;
            for y in 1..=full {
                let top = usize::BITS - 1 - y.leading_zeros();
                let rest = y & !(1 << top);
                scratch.clear();
                scratch.extend_from_slice(set);
                for (j, &u) in t.iter().enumerate() {
                    if rest >> j & 1 == 1 {
                        put(&mut scratch, u);
                    }
                }
                let v = t[top as usize];
                mem[y] =
                    mem[rest] + self.alloc[v as usize] as i128 - self.frees(&scratch, v) as i128;
            }
            if mem[..full].iter().any(|&x| mem[full] > x) {
                continue;
            }
            // An order of T under `limit`: reachable subsets, each with the member run last.
            let mut last = vec![u8::MAX; full + 1];
            last[0] = 0;
            for y in 0..full {
                if last[y] == u8::MAX {
                    continue;
                }
                for (j, &v) in t.iter().enumerate() {
                    let ny = y | 1 << j;
                    if ny != y
                        && last[ny] == u8::MAX
                        && mem[y] + self.step[v as usize] as i128 <= limit as i128
                    {
                        last[ny] = j as u8;
                    }
                }
            }
            if last[full] == u8::MAX {
                continue;
            }
            let mut seq = Vec::with_capacity(t.len());
            let mut y = full;
            while y != 0 {
                let j = last[y] as usize;
                seq.push(j);
                y &= !(1 << j);
            }
            let mut y = 0usize;
            for &j in seq.iter().rev() {
                let v = t[j];
                *high = (*high).max((mem[y] + self.step[v as usize] as i128) as u64);
                self.mark_run(set, ready, v);
                log.push(v);
                y |= 1 << j;
            }
            *live = mem[full] as u64;
            return true;
        }
        false
    }

    /// Finds and runs one chain for [`Part::closure`]; false if there is none.
    fn chain(
        &self,
        set: &mut [u64],
        ready: &mut [u64],
        live: &mut u64,
        log: &mut Vec<u32>,
        limit: u64,
        high: &mut u64,
    ) -> bool {
        let start = log.len();
        // `ready` as it was, to undo a chain that fails (taken when the first one is tried).
        let mut ready0: Vec<u64> = Vec::new();
        for &first in &self.chain_starts {
            if *live + self.step[first as usize] > limit || !has(ready, first) {
                continue;
            }
            if ready0.is_empty() {
                ready0.extend_from_slice(ready);
            }
            let (live0, high0) = (*live, *high);
            let mut low = *live; // least memory so far along the chain
            let mut v = first;
            loop {
                *high = (*high).max(*live + self.step[v as usize]);
                *live = *live + self.alloc[v as usize] - self.frees(set, v);
                self.mark_run(set, ready, v);
                log.push(v);
                if *live <= low && log.len() - start > 1 {
                    return true;
                }
                low = low.min(*live);
                if log.len() - start >= MAX_CHAIN {
                    break;
                }
                let next = self.succs[v as usize]
                    .iter()
                    .copied()
                    .find(|&w| *live + self.step[w as usize] <= limit && has(ready, w));
                match next {
                    Some(w) => v = w,
                    None => break,
                }
            }
            // Undo the failed chain.
            for &u in &log[start..] {
                set[(u / 64) as usize] &= !(1 << (u % 64));
            }
            ready.copy_from_slice(&ready0);
            log.truncate(start);
            *live = live0;
            *high = high0;
        }
        false
    }

    /// Storages live after `set` ran (as a storage bitset in `out`).
    fn live_set(&self, set: &[u64], out: &mut [u64]) {
        out.fill(0);
        let w = self.words;
        for k in 0..self.st_size.len() {
            let p = self.st_producer[k];
            if self.st_transient[k] || (p != NIL && !has(set, p)) {
                continue;
            }
            let users = &self.st_users[k * w..(k + 1) * w];
            let pending = users.iter().zip(set).any(|(u, s)| u & !s != 0);
            if self.st_perm[k] || pending {
                put(out, k as u32);
            }
        }
    }

    /// Admissible lower bound on the peak of any completion from `set`: the next op runs on
    /// top of `live`; and each op still to run has on top of it every storage live now or made
    /// by its ancestors that one of its descendants (or itself) still needs, or that is never
    /// freed.
    fn h(&self, set: &[u64], live: u64, scratch: &mut [u64], cap: u64) -> u64 {
        let mut ready = vec![0u64; self.words];
        self.ready_mask(set, &mut ready);
        let worst = self.h_single(set, &ready, live, scratch, cap);
        if worst < cap {
            worst.max(self.pair_bound(set, scratch, worst, cap, NIL).0)
        } else {
            worst
        }
    }

    /// [`Part::h`] without the pair bound; leaves the storages live after `set` in `scratch`.
    fn h_single(
        &self,
        set: &[u64],
        ready: &[u64],
        live: u64,
        scratch: &mut [u64],
        cap: u64,
    ) -> u64 {
        let sw = self.st_words;
        let mut next = u64::MAX;
        for (k, &word) in ready.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let i = k * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                next = next.min(live + self.step[i]);
            }
        }
        let mut worst = if next == u64::MAX { 0 } else { next };
        self.live_set(set, scratch);
        // Ops by their largest possible need, so the scan stops once no op can beat `worst`.
        for &(most, i) in &self.by_need {
            if most <= worst || worst >= cap {
                break;
            }
            if has(set, i) {
                continue;
            }
            let ii = i as usize;
            let cross = &self.cross[ii * sw..(ii + 1) * sw];
            let made = &self.made[ii * sw..(ii + 1) * sw];
            let words = cross
                .iter()
                .zip(made)
                .zip(scratch.iter())
                .map(|((c, mk), l)| mk | (c & l));
            let need = self.untouched + self.step[ii] + self.sums.sum(words);
            worst = worst.max(need);
        }
        worst
    }

    /// The bound `need` of op `i` in [`Part::h`], given the storages live now.
    fn need(&self, i: usize, live_set: &[u64]) -> u64 {
        let sw = self.st_words;
        let cross = &self.cross[i * sw..(i + 1) * sw];
        let made = &self.made[i * sw..(i + 1) * sw];
        let words = cross
            .iter()
            .zip(made)
            .zip(live_set)
            .map(|((c, mk), l)| mk | (c & l));
        self.untouched + self.step[i] + self.sums.sum(words)
    }

    /// A bound on the memory while op `i` runs before op `j` (neither run yet): [`Part::need`],
    /// plus what is live now that `j` or a descendant of `j` still needs.
    fn need_beside(&self, i: usize, j: usize, live_set: &[u64]) -> u64 {
        let sw = self.st_words;
        let ci = &self.cross[i * sw..(i + 1) * sw];
        let cj = &self.cross[j * sw..(j + 1) * sw];
        let made = &self.made[i * sw..(i + 1) * sw];
        let words = (0..sw).map(|k| made[k] | ((ci[k] | cj[k]) & live_set[k]));
        self.untouched + self.step[i] + self.sums.sum(words)
    }

    /// The pair bound (see [`pair_sets`]) from `set`, where `live_set` holds the storages live
    /// now; only pairs that could beat `worst` are looked at.
    ///
    /// The scan stops once the bound reaches `cap` (nothing above it matters to the caller).
    /// `hint` is a pair to try first (the one that gave a nearby state its bound, or NIL); the
    /// result comes with the pair that gave it (NIL if none beat `worst`).
    fn pair_bound(
        &self,
        set: &[u64],
        live_set: &[u64],
        mut worst: u64,
        cap: u64,
        hint: u32,
    ) -> (u64, u32) {
        let mut witness = NIL;
        if self.pairs.is_empty() {
            return (worst, witness);
        }
        let m = self.m();
        let needs = self.needs_held(set, live_set);
        let held_max = needs.iter().map(|n| n.1).max().unwrap_or(0);
        // A pair beats `worst` only if, whichever runs first, one of its ops' bounds rises
        // above it, so one of the two is "hot": its need plus the most a pair can add to it
        // beats `worst`. Only the hot ops' pairs are scanned.
        let hot: Vec<u32> = (0..m as u32)
            .filter(|&x| {
                let add = self.share_in[x as usize].max(self.extra_first[x as usize].min(held_max));
                !has(set, x) && needs[x as usize].0 + add > worst
            })
            .collect();
        let unmade = self.unmade(set);
        let eval = |n: usize, worst: u64| self.pair_value(n, &needs, &unmade, live_set, worst);
        if hint != NIL {
            let pr = self.pairs[hint as usize];
            if !has(set, pr.u) && !has(set, pr.v) {
                let x = eval(hint as usize, worst);
                if x > worst {
                    (worst, witness) = (x, hint);
                }
            }
        }
        let mut done = vec![false; m];
        for &x in &hot {
            for &k in &self.op_pairs[x as usize] {
                if worst >= cap {
                    return (worst, witness);
                }
                let pr = &self.pairs[k as usize];
                if pr.pot <= worst {
                    break;
                }
                let other = if pr.u == x { pr.v } else { pr.u };
                if done[other as usize] || has(set, other) {
                    continue; // seen from the other side, or no longer a pair
                }
                let x = eval(k as usize, worst);
                if x > worst {
                    (worst, witness) = (x, k);
                }
            }
            done[x as usize] = true;
        }
        (worst, witness)
    }

    /// The bound of pair `n` from a state where `needs` holds each op's (`need`, `held`) (see
    /// [`Part::pair_bound`]), `unmade` the storages not made yet and `live_set` those live; 0
    /// when it cannot beat `worst`.
    fn pair_value(
        &self,
        n: usize,
        needs: &[(u64, u64)],
        unmade: &[u64],
        live_set: &[u64],
        worst: u64,
    ) -> u64 {
        let sw = self.st_words;
        let pr = self.pairs[n];
        let (u, v) = (pr.u, pr.v);
        let ((nv, hv), (nu, hu)) = (needs[v as usize], needs[u as usize]);
        // If u runs first: v has on top of it u's share, and u has on top of it what v still
        // needs from what is live now. Upper bounds first (the full sets, made or not; all
        // that v holds), then the exact shares.
        if (nv + pr.a_max).max(nu + hv.min(pr.extra_u)) <= worst
            || (nu + pr.b_max).max(nv + hu.min(pr.extra_v)) <= worst
        {
            return 0;
        }
        let puv = &self.pair_bits[2 * n * sw..(2 * n + 1) * sw];
        let pvu = &self.pair_bits[(2 * n + 1) * sw..(2 * n + 2) * sw];
        let a = (self.sums.sum(puv.iter().zip(unmade).map(|(x, y)| x & y)) + pr.suv).max(pr.vuv);
        let first = (nv + a).max(self.need_beside(u as usize, v as usize, live_set));
        if first <= worst {
            return 0;
        }
        let b = (self.sums.sum(pvu.iter().zip(unmade).map(|(x, y)| x & y)) + pr.svu).max(pr.vvu);
        first.min((nu + b).max(self.need_beside(v as usize, u as usize, live_set)))
    }

    /// Per op not in `set`: its `need` and the live bytes it or a descendant still needs
    /// (`held`), given the storages live now; (0, 0) for ops in `set`.
    fn needs_held(&self, set: &[u64], live_set: &[u64]) -> Vec<(u64, u64)> {
        let sw = self.st_words;
        (0..self.m())
            .map(|x| {
                if has(set, x as u32) {
                    return (0, 0);
                }
                let c = &self.cross[x * sw..(x + 1) * sw];
                let held = self.sums.sum(c.iter().zip(live_set).map(|(c, l)| c & l));
                (self.need(x, live_set), held)
            })
            .collect()
    }

    /// Storages not made yet after `set`: made in the part by an op still to run.
    fn unmade(&self, set: &[u64]) -> Vec<u64> {
        let mut unmade = vec![0u64; self.st_words];
        for k in 0..self.st_size.len() {
            let p = self.st_producer[k];
            if p != NIL && !has(set, p) {
                put(&mut unmade, k as u32);
            }
        }
        unmade
    }

    /// Every pair's bound at the start of the part (so in every order, since both ops of a
    /// pair run somewhere in it).
    fn start_pair_values(&self) -> Vec<u64> {
        let set = vec![0u64; self.words];
        let mut live_set = vec![0u64; self.st_words];
        self.live_set(&set, &mut live_set);
        let needs = self.needs_held(&set, &live_set);
        let unmade = self.unmade(&set);
        (0..self.pairs.len())
            .map(|n| self.pair_value(n, &needs, &unmade, &live_set, 0))
            .collect()
    }

    /// A lower bound on the part's peak in every order (the bound of `h` at the start).
    fn static_bound(&self) -> u64 {
        let set = vec![0u64; self.words];
        let mut scratch = vec![0u64; self.st_words];
        let start_cut = self.cut.as_ref().map_or(0, |c| c.start);
        self.h(&set, self.live0, &mut scratch, u64::MAX)
            .max(start_cut)
    }

    /// Completes `set` greedily, returning the ops and the peak. Two rules run and the better
    /// wins: least net growth first, and least new peak first (then least growth).
    fn complete(&self, set: &[u64], live: u64, peak: u64) -> (Vec<u32>, u64) {
        let a = self.complete_by(set, live, peak, false);
        let b = self.complete_by(set, live, peak, true);
        if b.1 < a.1 {
            b
        } else {
            a
        }
    }

    fn complete_by(
        &self,
        set: &[u64],
        mut live: u64,
        mut peak: u64,
        peak_first: bool,
    ) -> (Vec<u32>, u64) {
        let m = self.m() as u32;
        let mut set = set.to_vec();
        let mut out = Vec::new();
        loop {
            let mut best: Option<(u64, i128, u64, u32)> = None;
            for i in 0..m {
                if !self.ready(&set, i) {
                    continue;
                }
                let net = self.alloc[i as usize] as i128 - self.frees(&set, i) as i128;
                let during = live + self.step[i as usize];
                let k = if peak_first {
                    (peak.max(during), net, during, i)
                } else {
                    (0, net, self.step[i as usize], i)
                };
                if best.map_or(true, |b| k < b) {
                    best = Some(k);
                }
            }
            let Some((_, _, _, i)) = best else { break };
            peak = peak.max(live + self.step[i as usize]);
            live = live + self.alloc[i as usize] - self.frees(&set, i);
            put(&mut set, i);
            out.push(i);
        }
        (out, peak)
    }

    /// The op sequence that leads to state `id`.
    fn path(&self, recs: &[Rec], log: &[u32], mut id: u32) -> Vec<OpIx> {
        let mut chunks = Vec::new();
        while id != NIL {
            let r = recs[id as usize];
            chunks.push(&log[r.log_at as usize..(r.log_at + r.log_len) as usize]);
            id = r.parent;
        }
        chunks
            .into_iter()
            .rev()
            .flatten()
            .map(|&i| self.ops[i as usize])
            .collect()
    }

    fn search(&self, ctx: &mut Ctx, incumbent: &[OpIx], ub: u64, floor: u64) -> PartResult {
        let m = self.m();
        let w = self.words;
        let mut keys: Vec<u64> = Vec::new();
        let mut recs: Vec<Rec> = Vec::new();
        let mut log: Vec<u32> = Vec::new();
        let mut table: HashTable<u32> = HashTable::new();
        // Smallest f first; among equals the deepest state, then the one with least live memory,
        // so that plateaus of equal f are searched depth-first.
        let mut open: BinaryHeap<Reverse<OpenEntry>> = BinaryHeap::new();
        let full_count = m as u32;
        // Key words and record per state; the hash table and open entries apart.
        let bytes_per_state = (w * 8 + std::mem::size_of::<Rec>()) as u64;
        let bytes_per_open = std::mem::size_of::<OpenEntry>() as u64;
        // The best order known (the incumbent, improved by greedy completions of popped states)
        // and its peak: only strictly better paths are searched.
        let mut best: (Vec<OpIx>, u64) = (incumbent.to_vec(), ub);
        let mut ub = ub;

        // The root, closed under dominance. Any lower bound on the final peak may serve as the
        // closure's limit: an op run early under it never raises the peak.
        let mut scratch = vec![0u64; self.st_words];
        let mut set = vec![0u64; w];
        let mut live = self.live0;
        let mut g0 = self.live0.max(floor);
        let limit0 = g0.max(self.h(&set, live, &mut scratch, ub));
        let mut ready = vec![0u64; w];
        self.ready_mask(&set, &mut ready);
        g0 = g0.max(self.closure(&mut set, &mut ready, &mut live, &mut log, limit0));
        let root_h = self.h(&set, live, &mut scratch, ub);
        keys.extend_from_slice(&set);
        recs.push(Rec {
            g: g0,
            h: root_h,
            paired: true,
            witness: NIL,
            live,
            parent: NIL,
            log_at: 0,
            log_len: log.len() as u32,
        });
        table.insert_unique(hash_words(&set), 0, |&id| {
            hash_words(&keys[id as usize * w..(id as usize + 1) * w])
        });
        let count = |s: &[u64]| s.iter().map(|x| x.count_ones()).sum::<u32>();
        let f0 = g0.max(root_h);
        open.push(Reverse((f0, full_count - count(&set), live, g0, 0)));
        let mut lb = f0.min(ub);
        let mut goal: Option<u32> = None;
        let mut child = vec![0u64; w];
        let mut child_ready = vec![0u64; w];
        let mut expanded = 0u64;
        // Parts over MAX_PAIR_OPS ops search forward only: a backward expansion costs
        // O(ops²) there (every op of the set may be removable, each tried by the closure).
        let mut back = (2..=MAX_PAIR_OPS)
            .contains(&self.m())
            .then(|| backward::Backward::new(self, g0));
        let mut back_done = false;
        while let Some(&Reverse((f, _, _, gv, id))) = open.peek() {
            if f >= ub {
                break; // nothing open can beat the best order
            }
            lb = lb.max(f);
            if ctx.stopped {
                break; // cut short in the middle of an expansion (below): `lb` still holds
            }
            if recs[id as usize].g < gv {
                open.pop();
                continue; // stale: reached again with a lower peak
            }
            let at = id as usize * w;
            if count(&keys[at..at + w]) == full_count {
                goal = Some(id);
                break;
            }
            if !recs[id as usize].paired {
                // Its pair bound, now that the state is worth it; back in the queue if it rises.
                let r = &mut recs[id as usize];
                set.copy_from_slice(&keys[at..at + w]);
                self.live_set(&set, &mut scratch);
                // Only pairs that beat f matter now; a result above f is a pair's own bound.
                let (pb, witness) = self.pair_bound(&set, &scratch, f, ub, r.witness);
                if pb > f {
                    r.h = r.h.max(pb);
                    r.witness = witness;
                }

                r.paired = true;
                if r.h > f {
                    let e = (r.h, full_count - count(&set), r.live, r.g, id);
                    open.pop();
                    if r.h < ub {
                        open.push(Reverse(e));
                    }
                    continue;
                }
            }
            // The hash table is counted three times over: growing it allocates a table twice
            // its size while the old one still holds every id, and the cap must hold then too.
            let bytes = recs.len() as u64 * bytes_per_state
                + log.len() as u64 * 4
                + open.len() as u64 * bytes_per_open
                + 3 * table.allocation_size() as u64
                + back.as_ref().map_or(0, |b| b.bytes());
            if ctx.tick(bytes, lb) {
                break;
            }
            // Whichever side runs out first proves. The backward side goes while it has no
            // more open states than the forward one (Pohl's cardinality rule), up to
            // BACK_PER_FORWARD expansions per forward one: its expansions cost less, and on
            // the hard families it is the side that finishes.
            for _ in 0..BACK_PER_FORWARD {
                let Some(b) = back.as_mut().filter(|b| b.open_len() <= open.len()) else {
                    break;
                };
                ctx.count();
                match b.step(self, ub) {
                    backward::Status::Open => {}
                    backward::Status::Exhausted => {
                        back_done = true;
                        break;
                    }
                    backward::Status::Found(order, peak) => {
                        best = (order.iter().map(|&i| self.ops[i as usize]).collect(), peak);
                        ub = peak;
                        back_done = true;
                        break;
                    }
                }
            }
            if back_done {
                break;
            }
            open.pop();
            let rec = recs[id as usize];
            set.copy_from_slice(&keys[at..at + w]);
            // Now and then, finish this state greedily: a better incumbent prunes more.
            if expanded % 64 == 0 {
                let (rest, peak) = self.complete(&set, rec.live, rec.g);
                if peak < ub {
                    let mut o = self.path(&recs, &log, id);
                    o.extend(rest.iter().map(|&i| self.ops[i as usize]));
                    best = (o, peak);
                    ub = peak;
                    ctx.best_peak = ctx.others.max(ub);
                    if f >= ub {
                        continue;
                    }
                }
            }
            expanded += 1;
            self.ready_mask(&set, &mut ready);
            for i in (0..m as u32).filter(|&i| has(&ready, i)) {
                // On large parts one child's bound can take a millisecond: the clock is read
                // per child. Stopping here leaves `lb` true: every child's f is at least f.
                if m >= CHECK_EACH_CHILD_OPS && ctx.budget.expired() {
                    ctx.stopped = true;
                    break;
                }
                let d = rec.live + self.step[i as usize];
                let gc = rec.g.max(d);
                if gc >= ub {
                    continue;
                }
                child.copy_from_slice(&set);
                child_ready.copy_from_slice(&ready);
                let mut live = rec.live + self.alloc[i as usize] - self.frees(&set, i);
                self.mark_run(&mut child, &mut child_ready, i);
                let log_at = log.len();
                log.push(i);
                // `f` bounds every completion through the parent, so through the child too.
                let limit = gc.max(f);
                let gc =
                    gc.max(self.closure(&mut child, &mut child_ready, &mut live, &mut log, limit));
                if gc >= ub {
                    log.truncate(log_at);
                    continue;
                }
                // Memory after a set depends only on the set, and so does `h`: a state seen
                // before keeps its bound and is worth revisiting only with a lower peak.
                let hsh = hash_words(&child);
                let found = table
                    .find(hsh, |&c| {
                        keys[c as usize * w..(c as usize + 1) * w] == child[..]
                    })
                    .copied();
                let mut new_rec = Rec {
                    g: gc,
                    h: 0,
                    paired: false,
                    witness: rec.witness,
                    live,
                    parent: id,
                    log_at: log_at as u32,
                    log_len: (log.len() - log_at) as u32,
                };
                let (cid, fc) = match found {
                    Some(c) if recs[c as usize].g <= gc => {
                        log.truncate(log_at);
                        continue;
                    }
                    Some(c) => {
                        // Bounds every completion through the parent, so through the child.
                        let fc = gc.max(recs[c as usize].h).max(f);
                        if fc >= ub {
                            log.truncate(log_at);
                            continue;
                        }
                        new_rec.h = recs[c as usize].h;
                        new_rec.paired = recs[c as usize].paired;
                        new_rec.witness = recs[c as usize].witness;
                        recs[c as usize] = new_rec;
                        (c, fc)
                    }
                    None => {
                        new_rec.h = self.h_single(&child, &child_ready, live, &mut scratch, ub);
                        let c = recs.len() as u32;
                        keys.extend_from_slice(&child);
                        recs.push(new_rec);
                        table.insert_unique(hsh, c, |&x| {
                            hash_words(&keys[x as usize * w..(x as usize + 1) * w])
                        });
                        let fc = gc.max(new_rec.h).max(f);
                        if fc >= ub {
                            continue;
                        }
                        (c, fc)
                    }
                };
                open.push(Reverse((fc, full_count - count(&child), live, gc, cid)));
            }
        }
        if let Some(id) = goal {
            // Popped with the least f of all open states: optimal.
            let peak = recs[id as usize].g;
            return PartResult {
                order: self.path(&recs, &log, id),
                peak,
                lower_bound: peak,
                optimal: true,
            };
        }
        if back_done || !ctx.stopped {
            // Every path strictly better than the best order was ruled out (forward or
            // backward), or the backward search found an optimal order.
            return PartResult {
                order: best.0,
                peak: ub,
                lower_bound: ub,
                optimal: true,
            };
        }
        // Out of budget: the best order found, and the least open f as a bound.
        let lb = lb.max(back.map_or(0, |b| b.lower_bound));
        PartResult {
            order: best.0,
            peak: best.1,
            lower_bound: lb.min(best.1),
            optimal: lb >= best.1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{seed_graph, SeedOptions};
    use crate::order::greedy::greedy_order;
    use crate::plan::NoClock;

    #[test]
    fn cuts_of_a_chain_are_every_op() {
        let g = Graph::from_json(
            r#"{"tensors":[{"id":"x","bytes":1},{"id":"y","bytes":1},{"id":"z","bytes":1}],
            "ops":[{"id":"a","inputs":["x"],"outputs":["y"]},
                   {"id":"b","inputs":["y"],"outputs":["z"]}],
            "outputs":["z"]}"#,
        )
        .unwrap();
        assert_eq!(cut_positions(&g, &[0, 1]), vec![0, 1]);
    }

    #[test]
    fn seed_graph_is_proven() {
        let g = Graph::from_spec(seed_graph(SeedOptions {
            paths: 10,
            ..SeedOptions::default()
        }))
        .unwrap();
        let budget = Budget::new(&NoClock, None, 1_000_000);
        let r = exact_search(&g, &budget, greedy_order(&g));
        assert!(r.optimal);
        assert_eq!(r.peak, 3_670_016);
        g.check_order(&r.order).unwrap();
    }
}
