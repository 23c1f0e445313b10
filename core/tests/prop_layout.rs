//! Property tests of the static memory layout (core/src/layout): on thousands of small random
//! problems every method's layout is valid by a naive pairwise check written from the
//! definition, and the exact method's arena equals the brute-force optimum (every integer offset
//! tried); on random graphs run in random valid orders, every layout is valid by a naive walk of
//! the memory model (docs/design.md §1), its bound is the order's aligned peak, and views share
//! their storage's offset. MiniMalloc's 11 challenging instances are each placed within their
//! capacity.

mod common;

use std::time::Instant;

use common::{random_graph, random_order};
use peakorder::generators::Rng;
use peakorder::layout::problem::{Buffer, Problem};
use peakorder::layout::{
    csv, layout_intervals, plan_and_layout, reorder, skyline, solve, stacked, LayoutMethod,
    LayoutOptions,
};
use peakorder::{layout, simulate, Clock, Graph, Hooks, NoClock, OpIx, PlanOptions};
use proptest::prelude::*;

/// Unbounded options for exact comparisons (no clock: only the node cap stops a search).
fn exact_opts(method: LayoutMethod, align: u64) -> LayoutOptions {
    LayoutOptions {
        method,
        align,
        budget_ms: None,
        max_states: u64::MAX,
        capacity: None,
    }
}

fn aligned(size: u64, align: u64) -> u64 {
    size.div_ceil(align) * align
}

/// Most aligned bytes live at one integer time.
fn naive_peak(bufs: &[Buffer], align: u64) -> u64 {
    let end = bufs.iter().map(|b| b.upper).max().unwrap_or(0);
    (0..end)
        .map(|t| {
            bufs.iter()
                .filter(|b| b.lower <= t && t < b.upper)
                .map(|b| aligned(b.size, align))
                .sum()
        })
        .max()
        .unwrap_or(0)
}

/// Every pair live at a common time is disjoint in bytes; offsets aligned; inside the arena.
fn naive_valid(bufs: &[Buffer], off: &[u64], arena: u64, align: u64) -> Result<(), String> {
    for (i, a) in bufs.iter().enumerate() {
        let sa = aligned(a.size, align);
        if off[i] % align != 0 || off[i] + sa > arena {
            return Err(format!(
                "buffer {i} at {} (size {sa}) outside/misaligned",
                off[i]
            ));
        }
        for (j, b) in bufs.iter().enumerate().skip(i + 1) {
            let sb = aligned(b.size, align);
            let time = a.lower < b.upper && b.lower < a.upper;
            let space = off[i] < off[j] + sb && off[j] < off[i] + sa;
            if time && space && sa > 0 && sb > 0 {
                return Err(format!("buffers {i} and {j} overlap"));
            }
        }
    }
    Ok(())
}

/// The smallest arena of any layout: every aligned integer offset tried, by depth-first search.
fn brute_force(bufs: &[Buffer], align: u64) -> u64 {
    let sizes: Vec<u64> = bufs.iter().map(|b| aligned(b.size, align)).collect();
    let mut idx: Vec<usize> = (0..bufs.len()).filter(|&i| sizes[i] > 0).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    fn fits(
        k: usize,
        idx: &[usize],
        bufs: &[Buffer],
        sizes: &[u64],
        off: &mut [u64],
        h: u64,
        align: u64,
    ) -> bool {
        if k == idx.len() {
            return true;
        }
        let i = idx[k];
        let mut o = 0;
        while o + sizes[i] <= h {
            let clash = idx[..k].iter().any(|&j| {
                bufs[i].overlaps(&bufs[j]) && o < off[j] + sizes[j] && off[j] < o + sizes[i]
            });
            if !clash {
                off[i] = o;
                if fits(k + 1, idx, bufs, sizes, off, h, align) {
                    return true;
                }
            }
            o += align;
        }
        false
    }
    let mut off = vec![0u64; bufs.len()];
    let mut h = naive_peak(bufs, align);
    while !fits(0, &idx, bufs, &sizes, &mut off, h, align) {
        h += align;
    }
    h
}

fn problem(bufs: &[Buffer], align: u64) -> Problem {
    Problem::new(bufs.to_vec(), align, &|i| format!("#{i}")).expect("valid problem")
}

fn buffers() -> impl Strategy<Value = Vec<Buffer>> {
    let buf = (0u64..6, 1u64..5, prop_oneof![1 => Just(0u64), 8 => 1u64..6]).prop_map(
        |(lower, len, size)| Buffer {
            lower,
            upper: lower + len,
            size,
        },
    );
    prop::collection::vec(buf, 1..8)
}

fn random_buffers(rng: &mut Rng, n: usize) -> Vec<Buffer> {
    (0..n)
        .map(|_| {
            let lower = rng.range(0, 6);
            Buffer {
                lower,
                upper: lower + rng.range(1, 4),
                size: rng.range(1, 5),
            }
        })
        .collect()
}

/// Checks every method on one problem against the naive checks and the brute-force optimum.
fn check_problem(bufs: &[Buffer], align: u64) -> Result<(), String> {
    let p = problem(bufs, align);
    let best = brute_force(bufs, align);
    let lb = naive_peak(bufs, align);
    if p.lower_bound() != lb {
        return Err(format!("bound {} != naive peak {lb}", p.lower_bound()));
    }
    let clock = NoClock;
    for &m in LayoutMethod::ALL {
        let budget = peakorder::Budget::new(&clock, None, 1 << 24);
        let placed = solve::solve(&p, m, None, &budget).map_err(|e| e.to_string())?;
        naive_valid(bufs, &placed.offsets, placed.arena, align).map_err(|e| format!("{m}: {e}"))?;
        if placed.arena < best || placed.lower_bound > best {
            return Err(format!(
                "{m}: arena {} bound {} vs optimum {best}",
                placed.arena, placed.lower_bound
            ));
        }
        if placed.optimal && placed.arena != best {
            return Err(format!(
                "{m}: claims optimal at {} but optimum is {best}",
                placed.arena
            ));
        }
        if matches!(m, LayoutMethod::Exact | LayoutMethod::Auto)
            && !(placed.optimal && placed.arena == best)
        {
            return Err(format!(
                "{m}: arena {} optimal {} but optimum is {best}",
                placed.arena, placed.optimal
            ));
        }
    }
    // Capacity mode: fits the optimum and anything above it (the pruning must stay sound with
    // slack), and proves one byte less impossible.
    for (capacity, fits) in [
        (best, true),
        (best + 1, true),
        (best + 3 * align, true),
        (best - align.min(best), best == 0),
    ] {
        if capacity == best && !fits {
            continue;
        }
        let budget = peakorder::Budget::new(&clock, None, u64::MAX);
        let placed = solve::solve(&p, LayoutMethod::Auto, Some(capacity), &budget)
            .map_err(|e| e.to_string())?;
        naive_valid(bufs, &placed.offsets, placed.arena, align)?;
        if (placed.arena <= capacity) != fits {
            return Err(format!("capacity {capacity}: arena {}", placed.arena));
        }
        if !fits && placed.lower_bound <= capacity {
            return Err(format!("capacity {capacity} infeasible but not proven"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn every_method_valid_and_exact_is_optimal(bufs in buffers(), align in prop_oneof![3 => Just(1u64), 1 => Just(2u64), 1 => Just(3u64)]) {
        check_problem(&bufs, align).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn exact_matches_brute_force_on_larger_seeded_instances() {
    // Denser than the proptest's instances (5 to 9 buffers over 6 time steps). Random interval
    // instances this small essentially never need more than their peak of live bytes (none in
    // several hundred thousand tried), so the search's proofs are exercised by the capacity
    // checks (one byte below the optimum) and by the MiniMalloc instances below.
    let mut rng = Rng::new(19);
    for _ in 0..3000 {
        let n = rng.range(5, 9) as usize;
        let bufs = random_buffers(&mut rng, n);
        check_problem(&bufs, 1).unwrap_or_else(|e| panic!("{bufs:?}: {e}"));
    }
}

/// The skyline greedy (`auto`'s portfolio, not a method of its own) and its iterated greedy:
/// every variant valid by the naive check, its height the highest top, never below the optimum
/// (`best`, when known) or the naive peak; the iterated greedy never worse than its start.
fn check_skyline(bufs: &[Buffer], align: u64, best: Option<u64>) -> Result<(), String> {
    let p = problem(bufs, align);
    let floor = best.unwrap_or_else(|| naive_peak(bufs, align));
    let top = |off: &[u64]| {
        bufs.iter()
            .zip(off)
            .filter(|(b, _)| b.size > 0)
            .map(|(b, &o)| o + aligned(b.size, align))
            .max()
            .unwrap_or(0)
    };
    let clock = NoClock;
    for v @ (pick, rev, edges) in skyline::VARIANTS {
        let (off, h) = skyline::place(p.buffers(), v);
        naive_valid(bufs, &off, h, align).map_err(|e| format!("{v:?}: {e}"))?;
        if h != top(&off) || h < floor {
            return Err(format!(
                "{v:?}: height {h}, top {}, floor {floor}",
                top(&off)
            ));
        }
        // The same greedy from a staircase of the buffers live at the first or the last time.
        for end in [stacked::End::First, stacked::End::Last] {
            if let Some((off, h)) = stacked::place(p.buffers(), v, end) {
                naive_valid(bufs, &off, h, align).map_err(|e| format!("{v:?} {end:?}: {e}"))?;
                if h != top(&off) || h < floor {
                    return Err(format!(
                        "{v:?} {end:?}: height {h}, top {}, floor {floor}",
                        top(&off)
                    ));
                }
            }
        }
        let budget = peakorder::Budget::new(&clock, None, 1 << 20);
        let mut prio = skyline::priorities(p.buffers(), pick);
        let mixed = h % 2 == 0;
        let start = (off, h);
        let (off2, h2) = skyline::improve(
            p.buffers(),
            &mut prio,
            (rev, edges),
            start,
            0,
            &budget,
            skyline::Rounds { max: 30, mixed },
        );
        naive_valid(bufs, &off2, h2, align).map_err(|e| format!("improve {v:?}: {e}"))?;
        if h2 != top(&off2) || h2 > h || h2 < floor {
            return Err(format!(
                "improve {v:?}: height {h2} from {h}, floor {floor}"
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn skyline_layouts_are_valid(bufs in buffers(), align in prop_oneof![3 => Just(1u64), 1 => Just(2u64), 1 => Just(3u64)]) {
        let best = brute_force(&bufs, align);
        check_skyline(&bufs, align, Some(best)).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn skyline_layouts_are_valid_on_larger_seeded_instances() {
    // Up to 60 buffers over a longer time span: many segments, raises and merges.
    let mut rng = Rng::new(23);
    for _ in 0..1000 {
        let n = rng.range(10, 60) as usize;
        let bufs: Vec<Buffer> = (0..n)
            .map(|_| {
                let lower = rng.range(0, 30);
                Buffer {
                    lower,
                    upper: lower + rng.range(1, 12),
                    size: rng.range(0, 9),
                }
            })
            .collect();
        check_skyline(&bufs, 1 + rng.range(0, 3), None).unwrap_or_else(|e| panic!("{bufs:?}: {e}"));
    }
}

/// The naive check of a graph layout, from docs/design.md §1's text: at the start and while each
/// op runs, the storages live then (and the op's workspace) are pairwise disjoint in bytes.
fn naive_graph_check(g: &Graph, order: &[OpIx], l: &peakorder::Layout) -> Result<(), String> {
    let n = order.len();
    let pos: Vec<usize> = {
        let mut p = vec![0; g.num_ops()];
        for (i, &v) in order.iter().enumerate() {
            p[v as usize] = i;
        }
        p
    };
    // Live steps of each storage, 0 = start, i + 1 = while order[i] runs.
    let mut spans: Vec<(u64, u64, u64, String)> = Vec::new(); // (offset, size, first..=last as packed, id)
    let mut live_steps: Vec<(usize, usize)> = Vec::new();
    for (s, t) in g.tensors().iter().enumerate() {
        if t.alias_of.is_some() || t.bytes == 0 {
            continue;
        }
        let first = t.producer.map_or(0, |p| pos[p as usize] + 1);
        let users: Vec<usize> = g
            .users(s as u32)
            .iter()
            .map(|&u| pos[u as usize] + 1)
            .collect();
        let last = if g.pinned(s as u32) {
            n
        } else {
            users.iter().copied().max().unwrap_or(first)
        };
        spans.push((
            l.tensor_offsets[s],
            aligned(t.bytes, l.align),
            0,
            t.id.clone(),
        ));
        live_steps.push((first, last));
    }
    for (v, op) in g.ops().iter().enumerate() {
        if op.workspace > 0 {
            let step = pos[v] + 1;
            spans.push((
                l.op_workspace_offsets[v],
                aligned(op.workspace, l.align),
                0,
                format!("ws {}", op.id),
            ));
            live_steps.push((step, step));
        }
    }
    for step in 0..=n {
        let live: Vec<usize> = (0..spans.len())
            .filter(|&k| live_steps[k].0 <= step && step <= live_steps[k].1)
            .collect();
        for (x, &a) in live.iter().enumerate() {
            if spans[a].0 + spans[a].1 > l.arena_bytes {
                return Err(format!("{} above the arena", spans[a].3));
            }
            for &b in &live[x + 1..] {
                let (oa, sa) = (spans[a].0, spans[a].1);
                let (ob, sb) = (spans[b].0, spans[b].1);
                if oa < ob + sb && ob < oa + sa {
                    return Err(format!(
                        "{} and {} overlap at step {step}",
                        spans[a].3, spans[b].3
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The order's peak with each storage and workspace rounded up to `align`.
fn aligned_peak(g: &Graph, order: &[OpIx], align: u64) -> u64 {
    let sim = simulate(g, order).expect("valid order");
    if align == 1 {
        return sim.peak_bytes;
    }
    let (bufs, _) = peakorder::layout::lifetimes::lifetimes(g, order);
    naive_peak(&bufs, align)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn graph_layouts_are_valid(rg in random_graph(9), seed in any::<u64>(), align in prop_oneof![Just(1u64), Just(4u64), Just(64u64)]) {
        let g = Graph::from_spec(rg.build()).expect("valid random graph");
        let order = random_order(&g, seed);
        let peak = aligned_peak(&g, &order, align);
        for &m in LayoutMethod::ALL {
            let l = layout(&g, &order, &exact_opts(m, align), &NoClock).map_err(|e| TestCaseError::fail(e.to_string()))?;
            naive_graph_check(&g, &order, &l).map_err(|e| TestCaseError::fail(format!("{m}: {e}")))?;
            prop_assert!(l.arena_bytes >= peak, "{}: arena {} below the peak {}", m, l.arena_bytes, peak);
            prop_assert!(l.lower_bound_bytes >= peak && l.lower_bound_bytes <= l.arena_bytes);
            prop_assert_eq!(l.peak_bytes, simulate(&g, &order).unwrap().peak_bytes);
            if matches!(m, LayoutMethod::Exact | LayoutMethod::Auto) {
                prop_assert!(l.optimal, "{} did not finish on a tiny graph", m);
            }
            // Every tensor has an offset; a view's is its storage's.
            prop_assert_eq!(l.offsets.0.len(), g.num_tensors());
            for t in g.tensors() {
                prop_assert_eq!(l.tensor_offsets[g.tensor_ix(&t.id).unwrap() as usize], l.tensor_offsets[t.root as usize]);
            }
            let with_ws = g.ops().iter().filter(|o| o.workspace > 0).count();
            prop_assert_eq!(l.workspace_offsets.0.len(), with_ws);
            for row in &l.buffers {
                prop_assert!(row.first_step <= row.last_step && row.last_step <= order.len() as u64);
            }
        }
    }

    #[test]
    fn aimed_reorders_stay_topological_within_the_peak(rg in random_graph(9), seed in any::<u64>(), align in prop_oneof![Just(1u64), Just(16u64)]) {
        // The order search aimed at the top buffers (core/src/layout/reorder.rs), from a random
        // valid order: what it returns is a valid order of every op, its peak within the limit
        // (the start's), and its arena (by the skyline) a real layout's: at least the aligned
        // peak, and the full layout of that order no higher.
        let g = Graph::from_spec(rg.build()).expect("valid random graph");
        let order = random_order(&g, seed);
        let limit = simulate(&g, &order).unwrap().peak_bytes;
        let budget = peakorder::Budget::new(&NoClock, None, 1 << 20);
        let f = reorder::search(&g, &order, align, limit, &budget);
        g.check_order(&f.order).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(f.order.len(), order.len());
        let peak = simulate(&g, &f.order).unwrap().peak_bytes;
        prop_assert!(peak <= limit && f.peak == peak, "peak {} (said {}) over {}", peak, f.peak, limit);
        prop_assert!(f.arena >= aligned_peak(&g, &f.order, align));
        let l = layout(&g, &f.order, &exact_opts(LayoutMethod::Auto, align), &NoClock).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(l.arena_bytes <= f.arena);
        naive_graph_check(&g, &f.order, &l).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn order_search_keeps_the_peak_and_a_valid_layout(rg in random_graph(9), align in prop_oneof![Just(1u64), Just(16u64)]) {
        let g = Graph::from_spec(rg.build()).expect("valid random graph");
        let plan_opts = PlanOptions { budget_ms: None, ..PlanOptions::default() };
        let l = plan_and_layout(&g, &plan_opts, &exact_opts(LayoutMethod::Auto, align), 0.0, &NoClock, &Hooks::default())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let search = l.order_search.clone().expect("planned order");
        g.check_order(&l.order_ix).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(l.peak_bytes <= search.peak_limit_bytes);
        prop_assert!(l.arena_bytes <= search.planned_arena_bytes);
        naive_graph_check(&g, &l.order_ix, &l).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn aimed_reorders_move_ops_and_stay_valid_on_larger_seeded_graphs() {
    // Graphs of 20 to 60 ops in random valid orders, where the skyline often needs more than
    // the peak, so the search does move ops: every order it returns is topological, within the
    // start's peak, and laid out validly at no more than the arena it reports.
    let mut moved = 0;
    for seed in 0..400u64 {
        let n = 20 + (seed as usize * 7) % 41;
        let g = common::seeded_graph(seed as u8, seed, n);
        let order = random_order(&g, seed ^ 0x9e37);
        let limit = simulate(&g, &order).unwrap().peak_bytes;
        let budget = peakorder::Budget::new(&NoClock, None, 1 << 20);
        let f = reorder::search(&g, &order, 1, limit, &budget);
        g.check_order(&f.order)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let peak = simulate(&g, &f.order).unwrap().peak_bytes;
        assert!(
            peak <= limit && f.peak == peak,
            "seed {seed}: peak {peak} over {limit}"
        );
        let l = layout(&g, &f.order, &exact_opts(LayoutMethod::Size, 1), &NoClock).unwrap();
        naive_graph_check(&g, &f.order, &l).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        moved += (f.order != order) as u32;
    }
    assert!(
        moved > 0,
        "no search moved an op: the test exercises nothing"
    );
}

struct WallClock(Instant);

impl Clock for WallClock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1e3
    }
}

#[test]
fn minimalloc_challenging_instances_fit_their_capacity() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/minimalloc");
    for name in "ABCDEFGHIJK".chars() {
        let text = std::fs::read_to_string(dir.join(format!("{name}.1048576.csv"))).unwrap();
        let iv = csv::parse(&text).unwrap();
        let opts = LayoutOptions {
            capacity: Some(1_048_576),
            budget_ms: Some(60_000.0),
            ..LayoutOptions::default()
        };
        let l =
            layout_intervals(&iv, &opts, &WallClock(Instant::now()), &Hooks::default()).unwrap();
        assert!(l.within_capacity, "{name}: arena {}", l.arena_bytes);
        let bufs: Vec<Buffer> = iv.buffers.clone();
        naive_valid(&bufs, &l.offsets_ix, 1_048_576, 1).unwrap();
    }
}

/// Issue 32: without a capacity, `auto` reaches MiniMalloc's capacity on the two instances whose
/// peak is far below it (D: 986,112, J: 989,184), where asking the bound first never decides.
/// Bounded by search nodes, not by the clock, so that the machine's load cannot decide it.
fn loose_instances_fit_without_a_capacity(clock: &dyn Clock) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/minimalloc");
    for name in ['D', 'J'] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.1048576.csv"))).unwrap();
        let iv = csv::parse(&text).unwrap();
        let opts = LayoutOptions {
            budget_ms: None,
            max_states: 400_000,
            ..LayoutOptions::default()
        };
        let l = layout_intervals(&iv, &opts, clock, &Hooks::default()).unwrap();
        assert!(
            l.arena_bytes <= 1_048_576,
            "{name}: arena {}",
            l.arena_bytes
        );
        let bufs: Vec<Buffer> = iv.buffers.clone();
        naive_valid(&bufs, &l.offsets_ix, l.arena_bytes, 1).unwrap();
    }
}

#[test]
fn minimalloc_loose_instances_fit_without_a_capacity() {
    loose_instances_fit_without_a_capacity(&WallClock(Instant::now()));
}

/// The same with no clock at all (a budget of states alone): the two questions are balanced by
/// nodes, so the descending target still gets its turns.
#[test]
fn minimalloc_loose_instances_fit_without_a_capacity_or_a_clock() {
    loose_instances_fit_without_a_capacity(&NoClock);
}
