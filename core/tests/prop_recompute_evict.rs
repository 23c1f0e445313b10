//! Property tests for eviction along an order (`recompute::evict`): on thousands of small random
//! graphs and on generated training steps, every schedule it returns is valid and within its
//! limit by the simulator, its least limit is a schedule's true peak and never below the
//! proven bound, and the planner's schedule at a limit never costs more than at a lower one
//! it also found.

mod common;

use common::any_graph;
use peakorder::generators::models::transformer;
use peakorder::recompute::{evict, least_peak_bound, simulate_schedule, Outcome};
use peakorder::{peak_of, plan, Budget, Graph, NoClock, OpIx, PlanOptions};
use proptest::prelude::*;

fn budget() -> Budget<'static> {
    Budget::new(&NoClock, None, 100_000)
}

fn greedy(g: &Graph) -> Vec<OpIx> {
    peakorder::order::greedy::greedy_order(g)
}

/// Every schedule evict returns at `limit` is valid and within it.
fn check_at(g: &Graph, order: &[OpIx], limit: u64) -> Result<(), TestCaseError> {
    match evict::plan(g, order, limit, &budget()) {
        Outcome::Found(f) => {
            let s = simulate_schedule(g, &f.schedule)
                .map_err(|e| TestCaseError::fail(format!("invalid schedule: {e}")))?;
            prop_assert!(
                s.peak_bytes <= limit,
                "peak {} over the limit {limit}",
                s.peak_bytes
            );
            prop_assert_eq!(
                f.added_cost,
                peakorder::recompute::added_cost(g, &f.schedule)
            );
        }
        Outcome::Unknown => {}
        Outcome::Infeasible { .. } => prop_assert!(false, "evict claims a proof it cannot make"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn schedules_valid_and_within_limit(case in any_graph(1..=24), frac in 0.0f64..1.0) {
        let g = Graph::from_spec(case.build()).unwrap();
        let order = greedy(&g);
        let top = peak_of(&g, &order);
        let (bound, _) = least_peak_bound(&g);
        prop_assert!(bound <= top);
        let limit = bound + ((top - bound) as f64 * frac) as u64;
        check_at(&g, &order, limit)?;
        // The least limit: a real schedule's peak, between the bound and the order's peak.
        let l = evict::least(&g, &order, &budget()).expect("the order itself fits");
        let s = simulate_schedule(&g, &l.schedule).unwrap();
        prop_assert_eq!(s.peak_bytes, l.peak);
        prop_assert!(l.bound <= l.peak && l.peak <= top);
        check_at(&g, &order, l.peak)?;
    }
}

/// A transformer training step: evict fits every limit down to its least, and the planner's
/// cost does not rise as the limit grows.
#[test]
fn transformer_step_fits_down_to_least() {
    let g = Graph::from_spec(transformer(3, 2, 64, 128, false)).unwrap();
    let base = plan(&g, &PlanOptions::default(), &NoClock).unwrap();
    let least = evict::least(&g, &base.order_ix, &budget()).unwrap();
    assert!(
        least.peak < base.peak_bytes,
        "{} vs {}",
        least.peak,
        base.peak_bytes
    );
    let mut last = f64::INFINITY;
    for k in 0..=10u64 {
        let limit = least.peak + (base.peak_bytes - least.peak) * k / 10;
        let opts = PlanOptions {
            memory_limit: Some(limit),
            ..PlanOptions::default()
        };
        let p = plan(&g, &opts, &NoClock).unwrap();
        let s = simulate_schedule(&g, &p.order_ix).unwrap();
        assert!(s.peak_bytes <= limit);
        let info = p.recompute.unwrap();
        eprintln!(
            "limit {limit}: peak {} added {} ({} runs recomputed) by {}",
            s.peak_bytes,
            info.added_cost,
            p.order_ix.len() - g.num_ops(),
            info.recompute_method
        );
        assert!(
            info.added_cost <= last * 1.25 + 1.0,
            "cost rose: {} after {last}",
            info.added_cost
        );
        last = info.added_cost;
    }
}
