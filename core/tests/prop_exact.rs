//! Exact search and `auto` against brute force over all topological orders.

mod order_gen;

use order_gen::{
    brute_force, dag, fork_join, in_forest, pieces, series_parallel, sp_pinned_outputs,
    uniform_dag, wide_layered, Rng,
};
use peakorder::bounds::lower_bound;
use peakorder::order::auto::auto_order;
use peakorder::order::exact::{check_bound_admissible, exact_search, part_lower_bound};
use peakorder::order::greedy::greedy_order;
use peakorder::plan::Budget;
use peakorder::simulate::simulate;
use peakorder::{plan, Graph, Method, NoClock, PlanOptions};
use proptest::prelude::*;

fn graph(kind: u8, seed: u64, n: usize) -> Graph {
    let mut r = Rng::new(seed);
    match kind % 8 {
        0 => dag(&mut r, n),
        1 => series_parallel(&mut r, n),
        2 => pieces(&mut r, n),
        3 => in_forest(&mut r, n),
        4 => sp_pinned_outputs(&mut r, n),
        5 => fork_join(&mut r, n),
        6 => uniform_dag(&mut r, n),
        _ => wide_layered(&mut r, n),
    }
}

/// With room to finish, exact search proves the brute-force optimum: its order simulates to it,
/// it reports it, and says `optimal`. Returns the result for further checks.
fn exact_matches_brute_force(
    kind: u8,
    seed: u64,
    n: usize,
) -> Result<peakorder::order::exact::Exact, TestCaseError> {
    let g = graph(kind, seed, n);
    let budget = Budget::new(&NoClock, None, u64::MAX);
    let r = exact_search(&g, &budget, greedy_order(&g));
    let sim = simulate(&g, &r.order).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let best = brute_force(&g);
    prop_assert!(r.optimal);
    prop_assert_eq!(sim.peak_bytes, best);
    prop_assert_eq!(r.peak, best);
    Ok(r)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// With room to finish, exact search proves the brute-force optimum.
    #[test]
    fn exact_is_optimal(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10) {
        let r = exact_matches_brute_force(kind, seed, n)?;
        // Finished: its bound is the optimum it proved (r.peak, the brute-force optimum).
        prop_assert_eq!(r.lower_bound, r.peak);
    }

    /// The search's bound never exceeds what the best completion of a set of ops needs, at
    /// every downset (checked against dynamic programming over all of them).
    #[test]
    fn bound_is_admissible_everywhere(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=12) {
        let g = graph(kind, seed, n);
        let r = check_bound_admissible(&g, &greedy_order(&g));
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    /// With a tiny budget, exact search still returns a valid order, a true lower bound, and
    /// claims optimality only when it holds.
    #[test]
    fn exact_is_honest_when_cut_short(
        kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10, states in 0u64..20,
    ) {
        let g = graph(kind, seed, n);
        let budget = Budget::new(&NoClock, None, states);
        let r = exact_search(&g, &budget, greedy_order(&g));
        let sim = simulate(&g, &r.order).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let best = brute_force(&g);
        prop_assert!(sim.peak_bytes <= r.peak);
        prop_assert!(r.lower_bound <= best);
        prop_assert!(best <= sim.peak_bytes);
        if r.optimal {
            prop_assert_eq!(sim.peak_bytes, best);
        }
    }

    /// The stronger bound is a true lower bound, and at least the linear one.
    #[test]
    fn part_lower_bound_is_true(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10) {
        let g = graph(kind, seed, n);
        let b = part_lower_bound(&g);
        prop_assert!(lower_bound(&g) <= b);
        prop_assert!(b <= brute_force(&g));
    }

    /// `auto` (through `plan`, as the CLI calls it) is optimal and says so.
    #[test]
    fn auto_plan_is_optimal(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10) {
        let g = graph(kind, seed, n);
        let opts = PlanOptions { method: Method::Auto, budget_ms: None, max_states: u64::MAX, ..PlanOptions::default() };
        let p = plan(&g, &opts, &NoClock).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let best = brute_force(&g);
        prop_assert!(p.optimal);
        prop_assert_eq!(p.peak_bytes, best);
        prop_assert_eq!(p.lower_bound_bytes, best);
        let budget = Budget::new(&NoClock, None, u64::MAX);
        let o = auto_order(&g, &budget);
        prop_assert!(o.proven_optimal);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Larger graphs (11–15 ops): more cut parts, longer chains for the dominance rules.
    #[test]
    fn exact_is_optimal_on_larger_graphs(kind in 0u8..8, seed in any::<u64>(), n in 11usize..=15) {
        exact_matches_brute_force(kind, seed, n)?;
    }
}

/// A cancelled search still returns a valid order and an honest flag.
#[test]
fn cancelled_search_returns_its_best() {
    use std::sync::atomic::AtomicBool;
    let cancel = AtomicBool::new(true);
    for seed in 0..200u64 {
        let g = graph((seed % 4) as u8, seed, 10);
        let mut budget = Budget::new(&NoClock, None, u64::MAX);
        budget.cancel = Some(&cancel);
        let r = exact_search(&g, &budget, greedy_order(&g));
        let sim = simulate(&g, &r.order).unwrap();
        let best = brute_force(&g);
        assert!(r.lower_bound <= best && best <= sim.peak_bytes);
        assert!(!r.optimal || sim.peak_bytes == best);
    }
}
