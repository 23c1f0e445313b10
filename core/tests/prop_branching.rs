//! The proof search kept between runs (`bounds::branching::Search`, as `auto` runs it: a
//! first run cut short, orders found elsewhere offered, more runs going on from the open
//! nodes, from a restarted tree or from a probed one) against brute force on small random graphs: after every run the bound is at most
//! the optimum, the order is valid and simulates to the peak reported, and a finished search
//! has met the optimum.

mod common;

use common::seeded_graph;

use std::cell::Cell;

use peakorder::bounds::branching::{Limits, Proof, Search};
use peakorder::bounds::BoundKind;
use peakorder::order::greedy::greedy_order;
use peakorder::order::{alap, inductor, xla};
use peakorder::referee::{best_order, least_peak as brute_force};
use peakorder::simulate::simulate;
use peakorder::Graph;
use proptest::prelude::*;

/// A stop that turns true after `calls` reads (a clock that runs out mid-flow, mid-node, or
/// mid-scan, depending on `calls`).
fn after(calls: u64, count: &Cell<u64>) -> impl Fn() -> bool + '_ {
    count.set(0);
    move || {
        count.set(count.get() + 1);
        count.get() > calls
    }
}

/// What every run of the search must give, against the optimum `best`: an order that simulates
/// to the peak reported, a peak at or above the optimum, a bound at or below it, and, finished,
/// both at it.
fn check_run(g: &Graph, r: &Proof, best: u64, run: usize) -> Result<(), TestCaseError> {
    let sim = simulate(g, &r.order).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(sim.peak_bytes, r.peak);
    prop_assert!(
        r.bound <= best,
        "run {}: bound {} above the optimum {}",
        run,
        r.bound,
        best
    );
    prop_assert!(r.peak >= best);
    if r.finished {
        prop_assert_eq!(r.bound, best);
        prop_assert_eq!(r.peak, best);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Runs cut short at random points, with another order offered and the tree restarted
    /// between them, never give
    /// a bound above the optimum; a finished run has met it.
    #[test]
    fn resumed_search_bound_is_true(
        kind in 0u8..8,
        seed in any::<u64>(),
        n in 1usize..=10,
        runs in prop::collection::vec((0u64..60, 0u64..60, 1u64..40), 1..5),
    ) {
        let g = seeded_graph(kind, seed, n);
        let best = brute_force(&g);
        let others = [inductor::lpmf_order(&g), xla::list_order(&g)];
        let others: Vec<&[u32]> = others.iter().map(|o| &o[..]).collect();
        let mut search = Search::new(&g, greedy_order(&g), &others[..1], (0, BoundKind::Simple));
        let (count, sets_count) = (Cell::new(0), Cell::new(0));
        let mut nodes = 0;
        for (i, &(calls, set_calls, more)) in runs.iter().enumerate() {
            if i == 1 {
                search.offer(others[1]);
            }
            if i == 2 {
                search.restart();
            }
            nodes += more;
            let stop = after(calls, &count);
            let sets_stop = after(set_calls, &sets_count);
            let limits = Limits { max_nodes: nodes, sets_stop: &sets_stop, ..Limits::until(&stop) };
            check_run(&g, &search.run(&limits), best, i)?;
        }
        // And with no limit the search ends where a fresh one would.
        check_run(&g, &search.run(&Limits::until(&|| false)), best, runs.len())?;
    }

    /// Orders offered once the tree has a root, each lower than the last (the optimum's last
    /// of all, in some cases), are repaired by the children below them (the seed,
    /// `Search::offer_seed`, `Search::children`): every node's order stays a valid order, the bound a true one, and
    /// a finished search has met the optimum.
    #[test]
    fn seeded_children_keep_valid_orders(
        kind in 0u8..8,
        seed in any::<u64>(),
        n in 1usize..=10,
        runs in prop::collection::vec((0u64..60, 1u64..12), 1..6),
        optimum_last in any::<bool>(),
    ) {
        let g = seeded_graph(kind, seed, n);
        let (best, optimum) = best_order(&g);
        let mut orders = vec![
            greedy_order(&g),
            inductor::lpmf_order(&g),
            inductor::bfs_order(&g),
            inductor::dfs_order(&g),
            xla::list_order(&g),
            xla::dfs_order(&g),
            xla::post_order(&g),
            alap::alap_order(&g),
        ];
        let peak = |o: &[u32]| simulate(&g, o).map(|s| s.peak_bytes).unwrap_or(u64::MAX);
        // The worst first: it starts the search, the others are offered best last.
        orders.sort_by_key(|o| std::cmp::Reverse(peak(o)));
        if optimum_last {
            orders.push(optimum);
        }
        let mut search = Search::new(&g, orders[0].clone(), &[], (0, BoundKind::Simple));
        let count = Cell::new(0);
        let mut nodes = 1;
        // The root first, so that what is offered after it seeds the children.
        let r = search.run(&Limits { max_nodes: nodes, ..Limits::until(&|| false) });
        prop_assert!(r.bound <= best);
        for (i, &(calls, more)) in runs.iter().enumerate() {
            if let Some(o) = orders.get(i + 1) {
                search.offer_seed(o, peakorder::peak_of(&g, o));
            }
            nodes += more;
            let stop = after(calls, &count);
            check_run(&g, &search.run(&Limits { max_nodes: nodes, ..Limits::until(&stop) }), best, i)?;
        }
        check_run(&g, &search.run(&Limits::until(&|| false)), best, runs.len())?;
    }

    /// Fresh trees probed between runs (`Search::probe`, as `auto` runs it after a seeded
    /// round lowers the best order), cut short at random points, kept or not: the bound stays
    /// a true one, the order a valid one with the peak reported, and a finished search has
    /// met the optimum.
    #[test]
    fn probed_trees_keep_the_bound_true(
        kind in 0u8..8,
        seed in any::<u64>(),
        n in 1usize..=10,
        runs in prop::collection::vec((0u64..60, 1u64..12, 0u64..60, 1u64..6), 1..6),
    ) {
        let g = seeded_graph(kind, seed, n);
        let (best, optimum) = best_order(&g);
        let mut orders = [
            greedy_order(&g),
            inductor::lpmf_order(&g),
            xla::list_order(&g),
            alap::alap_order(&g),
            optimum,
        ];
        let peak = |o: &[u32]| simulate(&g, o).map(|s| s.peak_bytes).unwrap_or(u64::MAX);
        orders[..4].sort_by_key(|o| std::cmp::Reverse(peak(o)));
        let mut search = Search::new(&g, orders[0].clone(), &[], (0, BoundKind::Simple));
        let count = Cell::new(0);
        let r = search.run(&Limits { max_nodes: 1, ..Limits::until(&|| false) });
        prop_assert!(r.bound <= best);
        for (i, &(calls, more, probe_calls, probe_nodes)) in runs.iter().enumerate() {
            if let Some(o) = orders.get(i + 1) {
                search.offer_seed(o, peakorder::peak_of(&g, o));
            }
            let stop = after(calls, &count);
            let max_nodes = search.nodes() + more;
            check_run(&g, &search.run(&Limits { max_nodes, ..Limits::until(&stop) }), best, i)?;
            let stop = after(probe_calls, &count);
            let max_nodes = search.nodes() + probe_nodes;
            let (r, _) = search.probe(&Limits { max_nodes, ..Limits::until(&stop) });
            check_run(&g, &r, best, i)?;
        }
        check_run(&g, &search.run(&Limits::until(&|| false)), best, runs.len())?;
    }
}
