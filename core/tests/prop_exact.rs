//! Exact search and `auto` against the referee (the least peak over all topological orders).

mod common;

use common::graphs;
use peakorder::bounds::lower_bound;
use peakorder::generators::small::Family;
use peakorder::generators::Rng;
use peakorder::order::auto::auto_order;
use peakorder::order::exact::{check_bound_admissible, exact_search, part_lower_bound, Exact};
use peakorder::order::greedy::greedy_order;
use peakorder::plan::Budget;
use peakorder::referee::least_peak;
use peakorder::simulate::simulate;
use peakorder::{plan, Graph, Method, NoClock, PlanOptions};
use proptest::prelude::*;

/// The search's result is honest whatever its budget: its order is valid and simulates to the
/// peak it reports, its bound is at most the optimum, and it claims optimality only at the
/// optimum (with its bound there too).
fn honest(g: &Graph, r: &Exact, best: u64) -> Result<(), TestCaseError> {
    let sim = simulate(g, &r.order).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(sim.peak_bytes, r.peak, "reported peak");
    prop_assert!(
        r.lower_bound <= best,
        "bound {} above the optimum {}",
        r.lower_bound,
        best
    );
    prop_assert!(r.lower_bound <= r.peak);
    if r.optimal {
        prop_assert_eq!(r.peak, best, "claims optimal");
        prop_assert_eq!(r.lower_bound, best);
    }
    Ok(())
}

/// With room to finish, exact search proves the optimum: it says `optimal`, and its order and
/// bound are the optimum.
fn exact_matches_the_referee(g: &Graph) -> Result<(), TestCaseError> {
    let budget = Budget::new(&NoClock, None, u64::MAX);
    let r = exact_search(g, &budget, greedy_order(g));
    let best = least_peak(g);
    honest(g, &r, best)?;
    prop_assert!(r.optimal, "did not finish");
    prop_assert_eq!(r.peak, best);
    prop_assert_eq!(r.lower_bound, best);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// With room to finish, exact search proves the optimum.
    #[test]
    fn exact_is_optimal(c in graphs(Family::ALL, 1..=10)) {
        exact_matches_the_referee(&c.graph)?;
    }

    /// The search's bound never exceeds what the best completion of a set of ops needs, at
    /// every downset (checked against the referee's tables over all of them).
    #[test]
    fn bound_is_admissible_everywhere(c in graphs(Family::ALL, 1..=12)) {
        let r = check_bound_admissible(&c.graph, &greedy_order(&c.graph));
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    /// With a tiny budget, exact search is still honest.
    #[test]
    fn exact_is_honest_when_cut_short(c in graphs(Family::ALL, 1..=10), states in 0u64..20) {
        let g = &c.graph;
        let budget = Budget::new(&NoClock, None, states);
        let r = exact_search(g, &budget, greedy_order(g));
        honest(g, &r, least_peak(g))?;
    }

    /// The stronger bound is a true lower bound, and at least the linear one.
    #[test]
    fn part_lower_bound_is_true(c in graphs(Family::ALL, 1..=10)) {
        let g = &c.graph;
        let b = part_lower_bound(g);
        prop_assert!(lower_bound(g) <= b);
        prop_assert!(b <= least_peak(g));
    }

    /// `auto` (through `plan`, as the CLI calls it) is optimal and says so.
    #[test]
    fn auto_plan_is_optimal(c in graphs(Family::ALL, 1..=10)) {
        let g = &c.graph;
        let opts = PlanOptions { method: Method::Auto, budget_ms: None, max_states: u64::MAX, ..PlanOptions::default() };
        let p = plan(g, &opts, &NoClock).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let best = least_peak(g);
        prop_assert!(p.optimal);
        prop_assert_eq!(p.peak_bytes, best);
        prop_assert_eq!(p.lower_bound_bytes, best);
        let budget = Budget::new(&NoClock, None, u64::MAX);
        let o = auto_order(g, &budget);
        prop_assert!(o.proven_optimal);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Larger graphs (11–15 ops): more cut parts, longer chains for the dominance rules.
    #[test]
    fn exact_is_optimal_on_larger_graphs(c in graphs(Family::ALL, 11..=15)) {
        exact_matches_the_referee(&c.graph)?;
    }
}

/// A cancelled search still returns a valid order and an honest flag.
#[test]
fn cancelled_search_returns_its_best() {
    use std::sync::atomic::AtomicBool;
    let cancel = AtomicBool::new(true);
    for seed in 0..200u64 {
        let family = Family::ALL[seed as usize % Family::ALL.len()];
        let g = Graph::from_spec(family.build(&mut Rng::new(seed), 10)).unwrap();
        let mut budget = Budget::new(&NoClock, None, u64::MAX);
        budget.cancel = Some(&cancel);
        let r = exact_search(&g, &budget, greedy_order(&g));
        honest(&g, &r, least_peak(&g)).unwrap();
    }
}
