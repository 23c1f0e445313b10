//! The long moves across the peak (`order::defer`) on small random graphs (the shared
//! shrinking strategies) and random valid orders: the result is a valid order of the graph,
//! never above the order it started from (the simulator says), never below the brute-force
//! optimum, and an order that is already optimal stays optimal.

mod common;

use common::{any_graph, random_order};
use peakorder::order::defer::defer_across_peak;
use peakorder::referee::least_peak as brute_force;
use peakorder::simulate::{peak_of, simulate};
use peakorder::{Budget, NoClock};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn moves_keep_the_order_valid_and_never_raise_the_peak(
        c in any_graph(1..=10),
        order_seed in any::<u64>(),
    ) {
        let g = &c.graph;
        let start = random_order(g, order_seed);
        let budget = Budget::new(&NoClock, None, u64::MAX);
        let moved = defer_across_peak(g, &start, &budget);
        let sim = simulate(g, &moved).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(moved.len(), g.num_ops());
        let before = peak_of(g, &start);
        prop_assert!(sim.peak_bytes <= before, "peak {} above the start's {}", sim.peak_bytes, before);
        let best = brute_force(g);
        prop_assert!(sim.peak_bytes >= best);
        if before == best {
            prop_assert_eq!(sim.peak_bytes, best);
        }
    }
}
