//! Runs a layout method on a fixed-interval problem under a budget, and re-checks the result.
//!
//! `auto` and `exact` split the problem first ([`super::decompose`]): buffers spanning their group
//! go at its bottom, and the independent groups left (leaves) are laid out one by one. Each leaf
//! gets the fast portfolio (best fit by size, lifetime, conflicts and area, and best fit in
//! allocation order); where the arena is still above the lower bound, the exact search
//! ([`super::canonical`]) runs as a decision procedure on the leaves above a target arena: first
//! the lower bound itself (real graphs nearly always fit there), then halving the gap. A proof
//! that a leaf cannot fit raises the bound, so `optimal` is reported only when proven. Without a
//! capacity, `auto` asks the search's cheap rounds first (a tenth of the budget), then runs the
//! skyline's iterated greedy on the large groups still above their bound, then the search again;
//! it keeps a quarter of what is left for local improvement ([`super::hill_climb`]) of the
//! leaves the search could not settle. With a capacity, the search stops at the first layout within it.
//! Without one, on problems of up to 1,000 buffers, `auto` descends ([`descend`], issue 32): the
//! decision questions at the bound and at a target walking down from the greedy arena, in turns
//! by time (80% of the budget, [`super::rounds`]), then the portfolio with the rest.
//!
//! The single heuristics (`size`, `duration`, `conflicts`, `area`, `online`) run on the whole
//! problem as their authors describe them, with no decomposition: they are the baselines.

use super::best_fit::{self, Rank};
use super::canonical::{Nodes, Solver};
use super::check::{check, Conflict};
use super::decompose::decompose;
use super::hill_climb;
use super::online;
use super::options::LayoutMethod;
use super::overlaps::Overlaps;
use super::peak_first;
use super::peak_split;
pub use super::problem::height;
use super::problem::{peak_live, Buffer, Problem};
use super::repack;
use super::rounds::{arena_of, seed, Group, Search};
use super::skyline::{self, Variant};
use super::stacked;
use crate::budget::Budget;
use crate::error::Error;
use crate::sort::CompactSort;

/// Most overlapping pairs a group may have for the overlap-graph methods (best fit, exact
/// search); beyond it only the O(n log n) allocation-order best fit runs on that group.
pub const MAX_PAIRS: usize = 4_000_000;
/// Share of `auto`'s budget (without a capacity, up to [`DESCENT_MAX_BUFFERS`]) for the
/// decision search's descent ([`descend`]), before the portfolio. At 0.6 MiniMalloc's D missed
/// 1,048,576 in one of two runs at a load of 6.6 (1,060,864); at 0.8 it fit in both, and of the
/// real graphs of up to 1,000 buffers only etree-grid3d-5x5x5-nd came out worse (1.0054 of its
/// peak against 1.0019; docs/layout.md).
const DESCENT_SHARE: f64 = 0.8;
/// Problems of more buffers than this keep the portfolio's whole budget (no descent).
const DESCENT_MAX_BUFFERS: usize = 1_000;
/// Share of `auto`'s budget for the iterated skyline greedy, before the exact search.
const SKYLINE_SHARE: f64 = 0.5;
/// Groups smaller than this leave the iterated skyline greedy's time to the exact search and
/// hill climbing, which suit them better.
const SKYLINE_MIN_BUFFERS: usize = 200;
/// The starts of the iterated skyline greedy besides the best greedy variant.
const SKYLINE_STARTS: [Variant; 3] = [
    (skyline::Pick::Duration, false, false),
    (skyline::Pick::Area, false, true),
    (skyline::Pick::Duration, false, true),
];
/// Share of a group's iterated-greedy time for its first start (the best greedy variant).
const FIRST_START_SHARE: f64 = 0.5;
/// Most rounds of the iterated skyline greedy per group (it also stops at the deadline).
const SKYLINE_ROUNDS: u64 = 2_000;
/// Share of `auto`'s budget for the exact search's cheap first rounds, before the skyline.
const PRE_SEARCH_SHARE: f64 = 0.1;
/// The pre-search's largest node limit, per buffer of the group.
const PRE_SEARCH_SCALE: u64 = 64;
/// Share of each group's local-improvement time for ruin and recreate ([`repack`]), before hill
/// climbing.
const REPACK_SHARE: f64 = 0.5;
/// Share of the time left for a group's best fit from the peak ([`peak_first`]).
const PEAK_FIRST_SHARE: f64 = 0.25;
/// [`SKYLINE_SHARE`] where a group's best layout came from a best-fit order.
const ORDERED_SHARE: f64 = 0.75;
/// Share of a group's iterated-greedy time for hill climbing from its best-fit order, where one
/// gave its best layout.
const ORDER_SHARE: f64 = 0.5;
/// Share of the time left for a large group's peak split ([`peak_split`]), before the greedies.
const SPLIT_SHARE: f64 = 0.3;
/// The peak split gives up where a side's greedy layout is above the bound by more than 1/this
/// of it (1.5%): on the training steps of docs/layout.md those within it reach or near the bound
/// by climbing (greedy googlenet 1.0124, swin_t 1.0006), those above (mobilenet_v3_small 1.020,
/// densenet121 1.026, wf-taxprofiler-001 1.084) fit, or come closest, by the later methods,
/// given the time.
const SPLIT_CLIMB_WITHIN: u64 = 67;
/// Most (buffer, section) memberships a group may have for the exact search.
const MAX_SPANS: u64 = 8_000_000;

/// A solved problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// One offset per buffer (0 for zero-size buffers).
    pub offsets: Vec<u64>,
    /// Bytes the arena needs: the highest buffer top.
    pub arena: u64,
    /// A proven lower bound on every layout's arena (the peak of live bytes, raised by the
    /// search's proofs; above the capacity when none fits it).
    pub lower_bound: u64,
    /// Proven: `arena == lower_bound`.
    pub optimal: bool,
    /// Exact search nodes expanded.
    pub nodes: u64,
}

/// Lays out `problem` with `method`; `capacity` (if any) is the arena to fit in, after which the
/// search stops.
pub fn solve(
    problem: &Problem,
    method: LayoutMethod,
    capacity: Option<u64>,
    budget: &Budget,
) -> Result<Placement, Error> {
    let bufs = problem.buffers();
    let lower = problem.lower_bound();
    let (offsets, mut bound, nodes) = match method {
        LayoutMethod::Auto if capacity.is_none() => descend(bufs, lower, budget),
        LayoutMethod::Auto | LayoutMethod::Exact => {
            let ask = capacity.map_or(Ask::Least, Ask::Within);
            let (off, bound, nodes) = by_groups(bufs, method, ask, budget);
            (off, bound.max(lower), nodes)
        }
        LayoutMethod::Online => (online::place(bufs).0, lower, 0),
        LayoutMethod::Size
        | LayoutMethod::Duration
        | LayoutMethod::Conflicts
        | LayoutMethod::Area
        | LayoutMethod::Local => {
            let all: Vec<u32> = (0..bufs.len() as u32).collect();
            let overlaps =
                Overlaps::of(bufs, &all, MAX_PAIRS).ok_or_else(|| Error::NotApplicable {
                    method: method.name().into(),
                    reason: format!(
                        "more than {MAX_PAIRS} pairs of buffers overlap in time; use auto or online"
                    ),
                })?;
            let off = match method.rank() {
                Some(rank) => {
                    best_fit::place(bufs, &overlaps, &best_fit::ranked(bufs, &overlaps, rank)).0
                }
                None => {
                    let (order, placed) = best_ranked(bufs, &overlaps, budget);
                    hill_climb::improve(bufs, &overlaps, order, placed, lower, budget).0
                }
            };
            (off, lower, 0)
        }
    };
    let arena = height(bufs, &offsets);
    if let Err(c) = check(bufs, &offsets, arena, problem.align()) {
        return Err(Error::BadLayout {
            what: format!("the {} layout", method.name()),
            reason: format!("failed its own check ({}); this is a bug", describe(c)),
        });
    }
    // A proof can never pass a layout that exists; the clamp only guards against a bug.
    bound = bound.min(arena.max(lower));
    Ok(Placement {
        offsets,
        arena,
        lower_bound: bound,
        optimal: arena == bound,
        nodes,
    })
}

/// `auto` without a capacity, on problems of up to [`DESCENT_MAX_BUFFERS`] buffers: the
/// search's decision questions (as `--capacity` asks them: unseeded, no skyline) at the bound
/// and at a target descending from the greedy arena, asked in turns at each node limit
/// ([`Search`]'s `descend`), within [`DESCENT_SHARE`] of the budget; where the bound is not
/// reached, the portfolio with the time left, the better layout kept. Every proof of the search
/// raises the bound. Before, MiniMalloc's instance D came out at 1,051,648 to 1,115,136 bytes in
/// 1 s while `--capacity 1048576` fits it in 0.12 s: the portfolio's search, seeded from the
/// greedy layouts and asked for the bound (986,112) first, gets lost where a looser question
/// is decided at once; and asking the bound alone first (half the budget) left D and J too
/// little time to walk down. Larger problems (the training steps' thousands of buffers) keep the
/// portfolio's whole budget, which is what they were measured with (docs/layout.md).
fn descend(bufs: &[Buffer], lower: u64, budget: &Budget) -> (Vec<u64>, u64, u64) {
    if bufs.len() > DESCENT_MAX_BUFFERS {
        let (off, bound, nodes) = by_groups(bufs, LayoutMethod::Auto, Ask::Least, budget);
        return (off, bound.max(lower), nodes);
    }
    let mut part = budget.share(DESCENT_SHARE, budget.max_states);
    part.progress = None;
    let (mut off, b, mut nodes) = by_groups(bufs, LayoutMethod::Auto, Ask::Descend, &part);
    let mut bound = b.max(lower);
    let best = height(bufs, &off);
    if best <= bound || budget.expired() || nodes >= budget.max_states {
        return (off, bound, nodes);
    }
    let rest = budget.share(1.0, budget.max_states - nodes);
    let (o, b, n) = by_groups(bufs, LayoutMethod::Auto, Ask::Least, &rest);
    nodes += n;
    bound = bound.max(b);
    if height(bufs, &o) < best {
        off = o;
    }
    (off, bound, nodes)
}

fn describe(c: Conflict) -> String {
    match c {
        Conflict::Overlap { a, b, at } => format!("buffers #{a} and #{b} overlap at time {at}"),
        Conflict::Outside { a } => format!("buffer #{a} ends above the arena"),
        Conflict::Misaligned { a } => format!("buffer #{a} is misaligned"),
    }
}

/// A best-fit placement order and what it gives: (order, (offsets, height)).
type Ranked = (Vec<u32>, (Vec<u64>, u64));

/// The best of the four ranked best-fit orders (after the first, only those tried before the
/// budget's deadline).
fn best_ranked(bufs: &[Buffer], overlaps: &Overlaps, budget: &Budget) -> Ranked {
    let mut best: Option<Ranked> = None;
    for rank in [Rank::Size, Rank::Duration, Rank::Conflicts, Rank::Area] {
        if best.is_some() && budget.expired() {
            break;
        }
        let order = best_fit::ranked(bufs, overlaps, rank);
        let placed = best_fit::place(bufs, overlaps, &order);
        if best.as_ref().map_or(true, |(_, (_, h))| placed.1 < *h) {
            best = Some((order, placed));
        }
    }
    best.unwrap_or_default()
}

/// What [`by_groups`] is asked for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ask {
    /// The least arena: the portfolio, then the search (seeded), then local improvement.
    Least,
    /// Any layout within this arena (`--capacity`, MiniMalloc's decision question).
    Within(u64),
    /// The search's decision questions only, the target descending from the greedy arena
    /// ([`Search`]'s `descend`).
    Descend,
}

/// `auto` / `exact`: decomposition, portfolio, then the exact search. Returns (offsets, proven
/// bound, nodes).
fn by_groups(
    bufs: &[Buffer],
    method: LayoutMethod,
    ask: Ask,
    budget: &Budget,
) -> (Vec<u64>, u64, u64) {
    let capacity = match ask {
        Ask::Within(c) => Some(c),
        Ask::Least | Ask::Descend => None,
    };
    // The portfolio's phases (peak split, seeds, skyline, local improvement) run only when the
    // least arena is asked; the decision questions go straight to the search.
    let least = ask == Ask::Least;
    let forest = decompose(bufs);
    let mut offsets = vec![0u64; bufs.len()];
    for &(i, o) in &forest.stacked {
        offsets[i as usize] = o;
    }
    let mut groups: Vec<Group> = forest
        .leaves
        .into_iter()
        .map(|leaf| {
            let local: Vec<Buffer> = leaf.buffers.iter().map(|&i| bufs[i as usize]).collect();
            let pos: Vec<u32> = (0..local.len() as u32).collect();
            let overlaps = Overlaps::of(&local, &pos, MAX_PAIRS);
            let bound = peak_live(&local, pos);
            let (mut off, mut h) = online::place(&local);
            // The peak step's split first, on large groups: on the training steps it fits the
            // peak where the whole problem's greedies (a third of a second and more there) do not.
            // Not with a capacity: there the search's decision question is asked (MiniMalloc's
            // instances), and the split's time would only delay it.
            if h > bound && least && local.len() >= SKYLINE_MIN_BUFFERS && !budget.expired() {
                if let Some(placed) = split_start(&local, bound, budget) {
                    if placed.1 < h {
                        (off, h) = placed;
                    }
                }
            }
            // The skyline fills memory from the bottom, time slot by time slot; it needs no
            // overlap graph, so it also runs where best fit cannot.
            let mut sky: Option<(Variant, u64)> = None;
            for v in skyline::VARIANTS {
                if h <= bound || budget.expired() {
                    break;
                }
                let placed = skyline::place(&local, v);
                if sky.map_or(true, |(_, sh)| placed.1 < sh) {
                    sky = Some((v, placed.1));
                }
                if placed.1 < h {
                    (off, h) = placed;
                }
            }
            // The same from a staircase of the buffers live at the start or at the end
            // (inputs, outputs) stacked at the bottom.
            let mut stair: Option<(Variant, Vec<u32>, u64)> = None;
            for end in [stacked::End::Last, stacked::End::First] {
                if h <= bound || budget.expired() {
                    break;
                }
                let Some(stack) = stacked::stack(&local, end) else {
                    continue;
                };
                let mut won: Option<(Variant, u64)> = None;
                for v in skyline::VARIANTS {
                    if h <= bound || budget.expired() {
                        break;
                    }
                    let placed = stacked::place_stack(&local, v, &stack);
                    if won.map_or(true, |(_, wh)| placed.1 < wh) {
                        won = Some((v, placed.1));
                    }
                    if placed.1 < h {
                        (off, h) = placed;
                    }
                }
                if let Some((v, wh)) = won {
                    if stair.as_ref().map_or(true, |s| wh < s.2) {
                        stair = Some((v, stack, wh));
                    }
                }
            }
            let mut g = Group {
                base: leaf.base,
                members: leaf.buffers,
                overlaps,
                order: None,
                off,
                height: h,
                bound,
                searchable: false,
                sky: sky.map(|(v, _)| v),
                stair: stair.map(|(v, st, _)| (v, st)),
                bufs: local,
            };
            if let Some(ov) = &g.overlaps {
                if g.height > bound && !budget.expired() {
                    let (order, placed) = best_ranked(&g.bufs, ov, budget);
                    if placed.1 <= g.height {
                        (g.off, g.height) = placed;
                        g.order = Some(order);
                    }
                }
                // Best fit from the peak step's buffers, stacked first: a share of the time
                // left, so that on large groups the later phases still run.
                let pf = budget.share(PEAK_FIRST_SHARE, budget.max_states);
                for (t, stack, rank) in peak_first::candidates(&g.bufs) {
                    if g.height <= bound || pf.expired() {
                        break;
                    }
                    let order = peak_first::order(&g.bufs, ov, t, stack, rank);
                    let placed = best_fit::place(&g.bufs, ov, &order);
                    if placed.1 < g.height {
                        (g.off, g.height) = placed;
                        g.order = Some(order);
                    }
                }
                let spans: u64 = {
                    let s = super::problem::Sections::of(
                        &g.bufs,
                        &(0..g.bufs.len() as u32).collect::<Vec<_>>(),
                    );
                    s.lo.iter().zip(&s.hi).map(|(&l, &h)| (h - l) as u64).sum()
                };
                g.searchable = spans <= MAX_SPANS;
            }
            g
        })
        .collect();
    let global_bound = groups
        .iter()
        .map(|g| g.base + g.bound)
        .max()
        .unwrap_or(0)
        .max(forest.stacked_top);
    let mut nodes = Nodes { used: 0 };
    let mut lo = global_bound; // every arena below `lo` is proven impossible
    let mut solvers: Vec<Option<Solver>> = groups
        .iter()
        .map(|g| match (&g.overlaps, g.searchable) {
            // Building a solver takes tens of ms on groups of thousands of buffers: not after
            // the deadline.
            (Some(ov), true) if !budget.expired() => Some(Solver::new(&g.bufs, ov)),
            _ => None,
        })
        .collect();
    let mut search = Search {
        stacked_top: forest.stacked_top,
        capacity,
        lo: &mut lo,
        nodes: &mut nodes,
        scale: 2,
        max_states: budget.max_states,
    };
    // `auto` without a capacity first asks the exact search the cheap questions (node limits up
    // to PRE_SEARCH_SCALE × the group's size, a small share of the time): on some real graphs
    // (wf-taxprofiler-001) it fits the bound in milliseconds where the skyline's iterated greedy
    // would spend half the budget and not.
    // Without a capacity, every search starts from the best layout known (a seeded preorder,
    // tried first). With one (MiniMalloc's decision question) the greedy layouts are far above
    // it and the seed only costs nodes: instance K took 1.9 s with it, 0.2 s without.
    let seeded = least;
    if seeded && !budget.expired() {
        seed(&groups, &mut solvers);
    }
    if method == LayoutMethod::Auto && least {
        let pre = budget.share(PRE_SEARCH_SHARE, budget.max_states);
        search.run(&mut groups, &solvers, &pre, Some(PRE_SEARCH_SCALE));
    }
    // Iterated greedy on the skyline for the groups above their bound: a share of the budget,
    // split evenly between them (`auto` without a capacity only: `exact` gives the search all
    // its time, and a capacity asks the search's decision question, which on MiniMalloc's
    // instances it answers far better than the greedy).
    if method == LayoutMethod::Auto && least {
        let todo: Vec<usize> = (0..groups.len())
            .filter(|&k| {
                let g = &groups[k];
                g.height > g.bound && g.sky.is_some() && g.bufs.len() >= SKYLINE_MIN_BUFFERS
            })
            .collect();
        // Hill climbing from a best-fit order gets more of the time than the skyline alone: on
        // the training steps it keeps improving where the exact search, next, finds nothing.
        let ordered = todo.iter().any(|&k| groups[k].order.is_some());
        let fraction = if ordered {
            ORDERED_SHARE
        } else {
            SKYLINE_SHARE
        };
        let share = budget.share(fraction, budget.max_states);
        for (done, &k) in todo.iter().enumerate() {
            let g = &mut groups[k];
            let Some(found) = g.sky else {
                continue;
            };
            let left = (todo.len() - done) as f64;
            let one = share.share(1.0 / left, share.max_states);
            // Where a best-fit order gave the best layout (the peak-first stacks on training
            // steps), hill climbing from it gets half of the group's time first: on googlenet it
            // takes 1.0124 to 1.0092 where the skyline's starts do not move.
            let skyline_won = g.order.is_none();
            if let (Some(order), Some(ov)) = (&g.order, &g.overlaps) {
                let half = one.share(ORDER_SHARE, one.max_states);
                let start = (std::mem::take(&mut g.off), g.height);
                (g.off, g.height) =
                    hill_climb::improve(&g.bufs, ov, order.clone(), start, g.bound, &half);
                if g.height <= g.bound {
                    continue;
                }
            }
            let rounds = budget.max_states.min(SKYLINE_ROUNDS);
            let goal = g.bound;
            // The best greedy start is often not the best start for the iterated greedy: a few
            // starts (the best variant and those that won most often on the real graphs of
            // docs/layout.md) share the time evenly.
            let mut starts: Vec<(Variant, &[u32])> = vec![(found, &[])];
            if let Some((v, st)) = &g.stair {
                starts.push((*v, st));
            }
            for v in SKYLINE_STARTS {
                if !starts.contains(&(v, &[])) {
                    starts.push((v, &[]));
                }
            }
            let mut best: Option<(Vec<u64>, u64)> = None;
            for (s, &(v @ (pick, reversed, edges), stack)) in starts.iter().enumerate() {
                if one.expired() {
                    break;
                }
                // Where the skyline gave the best greedy layout, its best variant gets half the
                // time (where there are others): on regnet_y_400mf it reaches the bound only
                // with more than an even share. Elsewhere (a best-fit order won: googlenet,
                // shufflenet_v2) the starts share the time evenly.
                let part = match (s, starts.len()) {
                    (_, 1) => 1.0,
                    (0, _) if skyline_won => FIRST_START_SHARE,
                    (s, n) => 1.0 / (n - s) as f64,
                };
                let this = one.share(part, one.max_states);
                let mut cur = stacked::place_stack(&g.bufs, v, stack);
                let mut prio = skyline::priorities(&g.bufs, pick);
                for mixed in [false, true] {
                    let half = this.share(if mixed { 1.0 } else { 0.5 }, this.max_states);
                    let start = std::mem::take(&mut cur);
                    cur = skyline::improve_on(
                        &g.bufs,
                        &mut prio,
                        (reversed, edges),
                        stack,
                        start,
                        goal,
                        &half,
                        skyline::Rounds { max: rounds, mixed },
                    );
                    if cur.1 <= goal {
                        break;
                    }
                }
                if best.as_ref().map_or(true, |b| cur.1 < b.1) {
                    best = Some(cur);
                }
                if best.as_ref().is_some_and(|b| b.1 <= goal) || one.expired() {
                    break;
                }
            }
            let Some(best) = best else { continue };
            let (off, h) = best;
            if h < g.height {
                g.off = off;
                g.height = h;
                g.order = None;
            }
        }
    }
    if seeded && !budget.expired() {
        seed(&groups, &mut solvers);
    }
    // `auto` leaves a quarter of the remaining time to local improvement (none after a descent).
    let search_deadline = match (method, budget.deadline_ms) {
        (LayoutMethod::Auto, Some(d)) if ask != Ask::Descend => {
            let now = budget.clock.now_ms();
            Some(now + (d - now).max(0.0) * 0.75)
        }
        (_, d) => d,
    };
    let search_budget = Budget {
        clock: budget.clock,
        deadline_ms: search_deadline,
        max_states: budget.max_states,
        max_memory_bytes: budget.max_memory_bytes,
        cancel: budget.cancel,
        progress: None,
    };
    if ask == Ask::Descend {
        search.descend(&mut groups, &solvers, grain(bufs), &search_budget);
    } else {
        search.run(&mut groups, &solvers, &search_budget, None);
    }
    // Local improvement of the groups that still reach above the bound.
    if method == LayoutMethod::Auto
        && ask != Ask::Descend
        && capacity.map_or(true, |c| arena_of(&groups, forest.stacked_top) > c)
    {
        let goal = capacity.unwrap_or(lo).max(lo);
        let above = groups.iter().filter(|g| g.top() > goal).count();
        for (done, g) in groups.iter_mut().filter(|g| g.top() > goal).enumerate() {
            if budget.expired() {
                break;
            }
            let Some(ov) = &g.overlaps else { continue };
            let stop_at = goal.saturating_sub(g.base);
            // Ruin and recreate on the top of the best layout first (half of this group's share),
            // then hill climbing over best-fit orders.
            let one = budget.share(1.0 / (above - done) as f64, budget.max_states);
            let half = one.share(REPACK_SHARE, one.max_states);
            let start = (std::mem::take(&mut g.off), g.height);
            (g.off, g.height) = repack::improve(
                &g.bufs,
                ov,
                start,
                stop_at,
                &half,
                budget.max_states.min(repack::MAX_ROUNDS),
            );
            if g.height <= stop_at || budget.expired() {
                continue;
            }
            // Without a best-fit order behind the best layout (the skyline's or the search's),
            // its buffers by offset: best fit of them gives that layout back or one close to it,
            // so the climb starts at the best layout instead of far above it.
            let order = g.order.take().unwrap_or_else(|| by_offset(&g.bufs, &g.off));
            let start = best_fit::place(&g.bufs, ov, &order);
            let start = if start.1 <= g.height {
                start
            } else {
                (std::mem::take(&mut g.off), g.height)
            };
            let (off, h) = hill_climb::improve(&g.bufs, ov, order, start, stop_at, &one);
            g.off = off;
            g.height = h;
        }
    }
    for g in &groups {
        for (k, &i) in g.members.iter().enumerate() {
            offsets[i as usize] = g.base + g.off[k];
        }
    }
    (offsets, lo, nodes.used)
}

/// The gcd of the sizes (1 where there are none): every canonical arena is a multiple of it.
fn grain(bufs: &[Buffer]) -> u64 {
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    bufs.iter().fold(0, |g, b| gcd(g, b.size)).max(1)
}

/// The buffers by offset in `off` (then by birth): a best-fit order near the layout `off`.
fn by_offset(bufs: &[Buffer], off: &[u64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..bufs.len() as u32).collect();
    order.sort_by_key_compact(|&i| (off[i as usize], bufs[i as usize].lower, i));
    order
}

/// [`peak_split`] at the first peak step, stack latest dying lowest, in a share of the time left.
/// Its own function, kept out of [`by_groups`]: inlined there, MiniMalloc's instance A (which
/// never reaches it) measured 275-295 ms against main's 220-230 in alternating runs; out of
/// line, 231-270 against 250-268.
#[inline(never)]
fn split_start(local: &[Buffer], bound: u64, budget: &Budget) -> Option<(Vec<u64>, u64)> {
    let share = budget.share(SPLIT_SHARE, budget.max_states);
    let (t, _) = peak_first::peak_steps(local)?;
    peak_split::place(
        local,
        t,
        peak_first::Stack::Death,
        bound,
        bound.saturating_add(bound / SPLIT_CLIMB_WITHIN),
        &share,
        MAX_PAIRS,
    )
}
