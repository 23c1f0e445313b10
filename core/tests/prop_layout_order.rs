//! Property tests of the order side of the layout (core/src/layout/reorder.rs): the producers of
//! pinned buffers moved early or late (`producers_moved`), and the order search with its kicks
//! (`search`). On thousands of random graphs in random valid orders every order returned is
//! topological, holds every op once, and its peak (re-checked by the simulator) stays within the
//! limit; with no limit the moves reach their ends (only other moved producers between a producer
//! and the op that bounds it); on tiny graphs the search's arena is never below the brute-force
//! best over every order within the limit, each laid out exactly; on larger seeded graphs every
//! order found is laid out validly at no more than the arena reported, and the search is
//! reproducible.

mod common;

use common::{random_graph, random_order, seeded_graph};
use peakorder::layout::reorder::{self, producers_moved, Toward};
use peakorder::layout::{LayoutMethod, LayoutOptions};
use peakorder::{layout, simulate, Budget, Graph, NoClock, OpIx};
use proptest::prelude::*;

fn exact_opts(method: LayoutMethod) -> LayoutOptions {
    LayoutOptions {
        method,
        align: 1,
        budget_ms: None,
        max_states: u64::MAX,
        capacity: None,
    }
}

fn peak(g: &Graph, order: &[OpIx]) -> u64 {
    simulate(g, order).expect("valid order").peak_bytes
}

fn pins(g: &Graph, v: OpIx) -> bool {
    g.creates(v).iter().any(|&s| g.pinned(s))
}

/// Every op once, in a topological order.
fn same_ops_topological(g: &Graph, start: &[OpIx], order: &[OpIx]) -> Result<(), String> {
    g.check_order(order).map_err(|e| e.to_string())?;
    let mut a = start.to_vec();
    let mut b = order.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    if a != b {
        return Err("not the same ops".into());
    }
    Ok(())
}

/// With no limit every producer of a pinned buffer went all the way: between it and its last
/// input's producer (early) or its first consumer (late) there are only other such producers.
fn moved_to_the_end(g: &Graph, order: &[OpIx], toward: Toward) -> Result<(), String> {
    let mut pos = vec![0usize; order.len()];
    for (k, &v) in order.iter().enumerate() {
        pos[v as usize] = k;
    }
    for &v in order.iter().filter(|&&v| pins(g, v)) {
        let at = pos[v as usize];
        let (lo, hi) = match toward {
            Toward::Early => (
                g.preds(v)
                    .iter()
                    .map(|&p| pos[p as usize] + 1)
                    .max()
                    .unwrap_or(0),
                at,
            ),
            Toward::Late => (
                at + 1,
                g.succs(v)
                    .iter()
                    .map(|&s| pos[s as usize])
                    .min()
                    .unwrap_or(order.len()),
            ),
        };
        if let Some(&w) = order[lo..hi].iter().find(|&&w| !pins(g, w)) {
            return Err(format!(
                "op {v} ({toward:?}) at {at}: op {w} (no pinned buffer) is between it and its end"
            ));
        }
    }
    Ok(())
}

/// Every topological order of a tiny graph.
fn all_orders(g: &Graph) -> Vec<Vec<OpIx>> {
    let n = g.num_ops();
    let mut indeg: Vec<usize> = (0..n as OpIx).map(|v| g.preds(v).len()).collect();
    let mut out = Vec::new();
    let mut cur = Vec::new();
    // An explicit stack of (next candidate to try at this depth).
    let mut stack: Vec<usize> = vec![0];
    while let Some(top) = stack.last_mut() {
        if cur.len() == n {
            out.push(cur.clone());
            stack.pop();
            if let Some(v) = cur.pop() {
                for &s in g.succs(v) {
                    indeg[s as usize] += 1;
                }
            }
            continue;
        }
        let from = *top;
        let next = (from..n).find(|&v| indeg[v] == 0 && !cur.contains(&(v as OpIx)));
        match next {
            Some(v) => {
                *top = v + 1;
                cur.push(v as OpIx);
                for &s in g.succs(v as OpIx) {
                    indeg[s as usize] -= 1;
                }
                stack.push(0);
            }
            None => {
                stack.pop();
                if let Some(v) = cur.pop() {
                    for &s in g.succs(v) {
                        indeg[s as usize] += 1;
                    }
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn producers_moved_stay_topological_within_the_limit(
        rg in random_graph(12),
        seed in any::<u64>(),
        early in any::<bool>(),
        slack in 0u64..3,
    ) {
        let g = Graph::from_spec(rg.build()).expect("valid random graph");
        let start = random_order(&g, seed);
        let toward = if early { Toward::Early } else { Toward::Late };
        let base = peak(&g, &start);
        // The start's peak, a little more, or none at all.
        let limit = match slack { 0 => base, 1 => base + base / 4, _ => u64::MAX };
        let o = producers_moved(&g, &start, toward, limit);
        same_ops_topological(&g, &start, &o).map_err(TestCaseError::fail)?;
        let p = peak(&g, &o);
        prop_assert!(p <= limit.max(base), "peak {} over the limit {}", p, limit);
        if limit == u64::MAX {
            moved_to_the_end(&g, &o, toward).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn search_stays_topological_within_the_peak(rg in random_graph(10), seed in any::<u64>()) {
        let g = Graph::from_spec(rg.build()).expect("valid random graph");
        let start = random_order(&g, seed);
        let limit = peak(&g, &start);
        let f = reorder::search(&g, &start, 1, limit, &Budget::new(&NoClock, None, 1 << 16));
        same_ops_topological(&g, &start, &f.order).map_err(TestCaseError::fail)?;
        let p = peak(&g, &f.order);
        prop_assert!(p <= limit && f.peak == p, "peak {} (said {}) over {}", p, f.peak, limit);
        let l = layout(&g, &f.order, &exact_opts(LayoutMethod::Auto), &NoClock)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(l.arena_bytes <= f.arena, "layout {} above the reported {}", l.arena_bytes, f.arena);
        prop_assert!(f.arena >= p);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn search_never_beats_brute_force_on_tiny_graphs(rg in random_graph(6), seed in any::<u64>()) {
        // The best arena over every order within the limit, each laid out exactly, is a floor
        // that a real layout of the order the search returns cannot go under.
        let g = Graph::from_spec(rg.build()).expect("valid random graph");
        let start = random_order(&g, seed);
        let limit = peak(&g, &start);
        let f = reorder::search(&g, &start, 1, limit, &Budget::new(&NoClock, None, 1 << 16));
        let best = all_orders(&g)
            .into_iter()
            .filter(|o| peak(&g, o) <= limit)
            .map(|o| layout(&g, &o, &exact_opts(LayoutMethod::Exact), &NoClock).expect("layout").arena_bytes)
            .min()
            .expect("the start is one");
        prop_assert!(f.arena >= best, "search arena {} below the brute-force best {}", f.arena, best);
        let l = layout(&g, &f.order, &exact_opts(LayoutMethod::Exact), &NoClock).expect("layout");
        prop_assert!(l.arena_bytes >= best);
    }
}

#[test]
fn all_orders_enumerates_every_topological_order() {
    // The brute force's own check: a chain has one order, n independent ops n! of them.
    for seed in 0..50u64 {
        let g = seeded_graph(seed as u8, seed, 5);
        let orders = all_orders(&g);
        assert!(!orders.is_empty());
        for o in &orders {
            g.check_order(o).expect("topological");
        }
        let mut d = orders.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), orders.len(), "seed {seed}: an order twice");
        for k in 0..20 {
            let r = random_order(&g, k);
            assert!(orders.contains(&r), "seed {seed}: a valid order missed");
        }
    }
}

#[test]
fn search_on_larger_seeded_graphs_is_valid_and_reproducible() {
    // Graphs of 20 to 80 ops (pinned outputs among them) in random valid orders, where the
    // greedy layouts often need more than the peak, so producers and kicks do move ops.
    let mut moved = 0;
    let mut producers = 0;
    for seed in 0..300u64 {
        let n = 20 + (seed as usize * 13) % 61;
        let g = seeded_graph(if seed % 2 == 0 { 4 } else { seed as u8 }, seed, n);
        let start = random_order(&g, seed ^ 0x5eed);
        let limit = peak(&g, &start);
        for toward in [Toward::Early, Toward::Late] {
            let o = producers_moved(&g, &start, toward, limit);
            same_ops_topological(&g, &start, &o).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(
                peak(&g, &o) <= limit,
                "seed {seed}: {toward:?} over the limit"
            );
            producers += (o != start) as u32;
        }
        let budget = Budget::new(&NoClock, None, 4_000);
        let f = reorder::search(&g, &start, 1, limit, &budget);
        same_ops_topological(&g, &start, &f.order).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let p = peak(&g, &f.order);
        assert!(
            p <= limit && f.peak == p,
            "seed {seed}: peak {p} over {limit}"
        );
        let l = layout(&g, &f.order, &exact_opts(LayoutMethod::Size), &NoClock).unwrap();
        assert!(l.arena_bytes >= p);
        let again = reorder::search(&g, &start, 1, limit, &budget);
        assert_eq!(again.order, f.order, "seed {seed}: not reproducible");
        moved += (f.order != start) as u32;
    }
    assert!(
        moved > 0,
        "no search moved an op: the test exercises nothing"
    );
    assert!(
        producers > 0,
        "no producer moved: the test exercises nothing"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn kicks_stay_topological_within_the_limit(
        rg in random_graph(12),
        seed in any::<u64>(),
        moves in 1usize..6,
        ends in proptest::collection::vec(any::<u32>(), 0..4),
    ) {
        let g = Graph::from_spec(rg.build()).expect("valid random graph");
        let start = random_order(&g, seed);
        let limit = peak(&g, &start);
        let ends: Vec<OpIx> = ends.iter().map(|&e| e % g.num_ops().max(1) as u32).filter(|&e| (e as usize) < g.num_ops()).collect();
        let mut rng = reorder::Rng(seed | 1);
        let o = reorder::kick(&g, &start, &ends, limit, moves, &mut rng);
        same_ops_topological(&g, &start, &o).map_err(TestCaseError::fail)?;
        let p = peak(&g, &o);
        prop_assert!(p <= limit, "peak {} over the limit {}", p, limit);
    }
}

/// The planned order with one producer of a pinned buffer moved right after its last input's
/// producer, for every such producer that moves at least `min_steps` (at least one), kept where
/// the simulated peak stays at most `limit`: farthest first (ties: the later op first), `k` at
/// most. Written apart from `reorder::producers_early`, from the simulator's peak.
fn early_moves_by_brute_force(
    g: &Graph,
    start: &[OpIx],
    limit: u64,
    k: usize,
    min_steps: usize,
) -> Vec<Vec<OpIx>> {
    let mut moves: Vec<(usize, usize, usize)> = Vec::new();
    for (at, &v) in start.iter().enumerate() {
        if !pins(g, v) {
            continue;
        }
        let to = g
            .preds(v)
            .iter()
            .map(|&p| start.iter().position(|&w| w == p).expect("pred in order") + 1)
            .max()
            .unwrap_or(0);
        if to < at && at - to >= min_steps.max(1) {
            moves.push((at - to, at, to));
        }
    }
    moves.sort_unstable_by(|a, b| b.cmp(a));
    moves
        .into_iter()
        .map(|(_, at, to)| {
            let mut o = start.to_vec();
            let v = o.remove(at);
            o.insert(to, v);
            o
        })
        .filter(|o| peak(g, o) <= limit)
        .take(k)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn producers_early_are_the_farthest_single_moves_within_the_limit(
        rg in random_graph(12),
        seed in any::<u64>(),
        slack in 0u64..3,
        k in 0usize..4,
        min_steps in 0usize..4,
    ) {
        let g = Graph::from_spec(rg.build()).expect("valid random graph");
        let start = random_order(&g, seed);
        let base = peak(&g, &start);
        let limit = match slack { 0 => base, 1 => base + base / 4, _ => u64::MAX };
        let got = reorder::producers_early(&g, &start, limit, k, min_steps);
        for o in &got {
            same_ops_topological(&g, &start, o).map_err(TestCaseError::fail)?;
            let p = peak(&g, o);
            prop_assert!(p <= limit, "peak {} over the limit {}", p, limit);
        }
        let want = early_moves_by_brute_force(&g, &start, limit, k, min_steps);
        prop_assert_eq!(got, want);
    }
}
