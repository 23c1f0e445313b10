//! The long moves across the peak (`order::defer`) on small random graphs and random valid
//! orders: the result is a valid order of the graph, never above the order it started from
//! (the simulator says), never below the brute-force optimum, and an order that is already
//! optimal is never made worse; and on the graphs where moving one job past the peak is
//! enough, it finds an order at least as low as the best such move.

use peakorder::generators::small::{
    dag, fork_join, in_forest, pieces, series_parallel, sp_pinned_outputs, uniform_dag,
    wide_layered,
};
use peakorder::generators::Rng;
use peakorder::order::defer::defer_across_peak;
use peakorder::referee::least_peak as brute_force;
use peakorder::simulate::{peak_of, simulate};
use peakorder::{Budget, Graph, NoClock, OpIx};
use proptest::prelude::*;

fn graph(kind: u8, seed: u64, n: usize) -> Graph {
    let mut r = Rng::new(seed);
    let spec = match kind % 8 {
        0 => dag(&mut r, n),
        1 => series_parallel(&mut r, n),
        2 => pieces(&mut r, n),
        3 => in_forest(&mut r, n),
        4 => sp_pinned_outputs(&mut r, n),
        5 => fork_join(&mut r, n),
        6 => uniform_dag(&mut r, n),
        _ => wide_layered(&mut r, n),
    };
    Graph::from_spec(spec).expect("the generators make valid graphs")
}

/// A random valid order of `g` (a seeded topological sort).
fn random_order(g: &Graph, seed: u64) -> Vec<OpIx> {
    let mut rng = Rng::new(seed);
    let mut missing: Vec<usize> = (0..g.num_ops() as OpIx).map(|v| g.preds(v).len()).collect();
    let mut ready: Vec<OpIx> = (0..g.num_ops() as OpIx)
        .filter(|&v| missing[v as usize] == 0)
        .collect();
    let mut order = Vec::new();
    while !ready.is_empty() {
        let k = rng.range(0, ready.len() as u64 - 1) as usize;
        let v = ready.swap_remove(k);
        order.push(v);
        for &w in g.succs(v) {
            missing[w as usize] -= 1;
            if missing[w as usize] == 0 {
                ready.push(w);
            }
        }
    }
    order
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn moves_keep_the_order_valid_and_never_raise_the_peak(
        kind in 0u8..8,
        seed in any::<u64>(),
        order_seed in any::<u64>(),
        n in 1usize..=12,
    ) {
        let g = graph(kind, seed, n);
        let start = random_order(&g, order_seed);
        let budget = Budget::new(&NoClock, None, u64::MAX);
        let moved = defer_across_peak(&g, &start, &budget);
        let sim = simulate(&g, &moved).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(moved.len(), g.num_ops());
        let before = peak_of(&g, &start);
        prop_assert!(sim.peak_bytes <= before, "peak {} above the start's {}", sim.peak_bytes, before);
        if n <= 10 {
            let best = brute_force(&g);
            prop_assert!(sim.peak_bytes >= best);
            if before == best {
                prop_assert_eq!(sim.peak_bytes, best);
            }
        }
    }
}
