//! Property tests for destroy and repair (`recompute::rework`) and the hoists of repair it
//! relies on: on thousands of small random graphs (views, workspaces, donated inputs,
//! multi-output ops, `recompute: false` ops, non-unit costs), from schedules that repair,
//! eviction or random repeats give, what it returns is valid and within the limit by the
//! simulator, never dearer than where it started, and never below brute force's optimum.

mod common;
#[path = "common/recompute.rs"]
mod recompute;

use peakorder::recompute::{
    added_cost, check_schedule, evict, repair, rework, schedule_peak, simulate_schedule, Outcome,
};
use peakorder::{peak_of, Budget, Graph, NoClock, OpIx};
use proptest::prelude::*;
use recompute::{cap_for, recompute_graph, Brute};

fn budget() -> Budget<'static> {
    Budget::new(&NoClock, None, 100_000)
}

/// `rework` from `start` (valid, within `limit`): valid, within it, no dearer, and not below
/// brute force's optimum where the result is short enough for brute force to have seen it.
fn check_from(
    g: &Graph,
    start: Vec<OpIx>,
    limit: u64,
    brute: Option<&Brute>,
) -> Result<(), TestCaseError> {
    let before = added_cost(g, &start);
    let r = rework::rework(g, start, limit, &budget());
    let sim = simulate_schedule(g, &r)
        .map_err(|e| TestCaseError::fail(format!("invalid schedule: {e}")))?;
    prop_assert!(
        sim.peak_bytes <= limit,
        "peak {} over {limit}",
        sim.peak_bytes
    );
    prop_assert!(r.len() >= g.num_ops());
    let after = added_cost(g, &r);
    prop_assert!(
        after <= before,
        "rework {after} dearer than its start {before}"
    );
    if let Some(b) = brute {
        if r.len() <= b.cap {
            let (best, _) = b
                .best_within(limit)
                .expect("a schedule within the limit exists");
            prop_assert!(
                after + 1e-9 >= best,
                "rework's {after} below brute force's {best}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn rework_of_planned_schedules_valid_no_dearer_never_below_brute_force(
        case in recompute_graph(1..=7),
        frac in 0.0f64..1.0,
    ) {
        let g = &case.graph;
        let order = peakorder::order::greedy::greedy_order(g);
        let top = peak_of(g, &order);
        let (bound, _) = peakorder::recompute::least_peak_bound(g);
        let limit = bound + ((top - bound.min(top)) as f64 * frac) as u64;
        let brute = Brute::new(g, cap_for(g));
        for plan in [repair::plan, evict::plan] {
            if let Outcome::Found(f) = plan(g, &order, limit, &budget()) {
                check_from(g, f.schedule, limit, Some(&brute))?;
            }
        }
    }

    #[test]
    fn rework_of_random_schedules_valid_and_no_dearer(
        case in recompute_graph(1..=14),
        draws in prop::collection::vec(any::<u16>(), 64),
        extra in 0usize..8,
        slack in 0u64..64,
    ) {
        let g = &case.graph;
        let within = recompute::repeated_within(g, &draws, extra, slack);
        prop_assume!(within.is_some());
        let (s, limit) = within.unwrap();
        check_from(g, s, limit, None)?;
    }
}

/// Four small recomputations where one large one does (the graph of repair's own test): from
/// the dear schedule, taking out one small op's run leaves an excess that repair meets by
/// making `big` again, and pruning then drops the other three.
#[test]
fn rework_replaces_several_small_recomputations_by_one() {
    let g = recompute::one_large_or_four_small();
    // During W: 1 + 100 + 1 + 60 with the four small ones made again after it: 162.
    let dear = g
        .schedule_from_ids(&[
            "B", "S1", "S2", "S3", "S4", "W", "S1", "S2", "S3", "S4", "Y",
        ])
        .unwrap();
    assert_eq!(schedule_peak(&g, &dear), 162);
    let r = rework::rework(&g, dear, 162, &budget());
    assert_eq!(added_cost(&g, &r), 1.0);
    assert!(schedule_peak(&g, &r) <= 162);
    check_schedule(&g, &r).unwrap();
}
