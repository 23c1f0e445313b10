//! Property tests for peak repair (`recompute::repair`): on thousands of small random graphs
//! with views, workspace, donated inputs, graph outputs, multi-output ops, `recompute: false`
//! ops and non-unit costs, every schedule it returns is valid and within its limit by the
//! simulator, its added cost is what the schedule costs, it never beats brute force's optimum
//! (brute force over every schedule up to a length is the referee), and `plan` with
//! `recompute_method: repair` reports it; on generated training steps likewise.

mod common;
#[path = "common/recompute.rs"]
mod recompute;

use peakorder::recompute::{
    added_cost, least_peak_bound, repair, simulate_schedule, Outcome, RecomputeMethod,
};
use peakorder::{peak_of, plan, Budget, Graph, NoClock, OpIx, PlanOptions};
use proptest::prelude::*;
use recompute::{cap_for, recompute_graph, Brute};

fn budget() -> Budget<'static> {
    Budget::new(&NoClock, None, 100_000)
}

fn greedy(g: &Graph) -> Vec<OpIx> {
    peakorder::order::greedy::greedy_order(g)
}

/// A limit `frac` of the way from the least peak bound to the order's peak.
fn limit_at(g: &Graph, order: &[OpIx], frac: f64) -> u64 {
    let top = peak_of(g, order);
    let (bound, _) = least_peak_bound(g);
    bound + ((top - bound.min(top)) as f64 * frac) as u64
}

/// What repair returns at `limit` is a valid schedule within it, costing what it says, and
/// never below the cheapest schedule brute force finds within the limit.
fn check_at(
    g: &Graph,
    order: &[OpIx],
    limit: u64,
    brute: Option<&Brute>,
) -> Result<bool, TestCaseError> {
    // The wide variant (more candidates per repair) obeys the same rules.
    check_with(repair::plan_wide, g, order, limit, brute)?;
    check_with(repair::plan, g, order, limit, brute)
}

fn check_with(
    plan: fn(&Graph, &[OpIx], u64, &Budget) -> Outcome,
    g: &Graph,
    order: &[OpIx],
    limit: u64,
    brute: Option<&Brute>,
) -> Result<bool, TestCaseError> {
    match plan(g, order, limit, &budget()) {
        Outcome::Found(f) => {
            let s = simulate_schedule(g, &f.schedule)
                .map_err(|e| TestCaseError::fail(format!("invalid schedule: {e}")))?;
            prop_assert!(
                s.peak_bytes <= limit,
                "peak {} over the limit {limit}",
                s.peak_bytes
            );
            prop_assert_eq!(f.added_cost, added_cost(g, &f.schedule));
            prop_assert!(f.cost_bound <= f.added_cost);
            prop_assert!(f.schedule.len() >= g.num_ops());
            if let Some(b) = brute {
                if let Some((best, _)) = b.best_within(limit) {
                    if f.schedule.len() <= b.cap {
                        prop_assert!(
                            f.added_cost + 1e-9 >= best,
                            "repair's {} below brute force's optimum {best}",
                            f.added_cost
                        );
                    }
                } else {
                    prop_assert!(
                        f.schedule.len() > b.cap,
                        "brute force found nothing within {limit}"
                    );
                }
            }
            Ok(true)
        }
        Outcome::Unknown => Ok(false),
        Outcome::Infeasible { .. } => {
            Err(TestCaseError::fail("repair claims a proof it cannot make"))
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn schedules_valid_within_limit_and_never_below_brute_force(
        case in recompute_graph(1..=7),
        frac in 0.0f64..1.0,
    ) {
        let g = &case.graph;
        let order = greedy(g);
        let brute = Brute::new(g, cap_for(g));
        check_at(g, &order, limit_at(g, &order, frac), Some(&brute))?;
    }

    #[test]
    fn larger_graphs_valid_and_within_limit(case in recompute_graph(8..=40), frac in 0.0f64..1.0) {
        let g = &case.graph;
        let order = greedy(g);
        let limit = limit_at(g, &order, frac);
        check_at(g, &order, limit, None)?;
        // Along the order itself with the limit at its peak, nothing is recomputed.
        let top = peak_of(g, &order);
        match repair::plan(g, &order, top, &budget()) {
            Outcome::Found(f) => {
                prop_assert_eq!(f.added_cost, 0.0);
                prop_assert_eq!(f.schedule, order);
            }
            o => prop_assert!(false, "the order itself fits: {:?}", o),
        }
    }

    #[test]
    fn plan_reports_repair(case in recompute_graph(2..=30), frac in 0.0f64..1.0) {
        let g = &case.graph;
        let order = greedy(g);
        let limit = limit_at(g, &order, frac);
        let opts = PlanOptions {
            memory_limit: Some(limit),
            recompute_method: RecomputeMethod::Repair,
            ..PlanOptions::default()
        };
        if let Ok(p) = plan(g, &opts, &NoClock) {
            let s = g.schedule_from_ids(&p.order).unwrap();
            let sim = simulate_schedule(g, &s).unwrap();
            prop_assert!(sim.peak_bytes <= limit);
            prop_assert_eq!(sim.peak_bytes, p.peak_bytes);
            let info = p.recompute.unwrap();
            prop_assert_eq!(info.added_cost, added_cost(g, &s));
            prop_assert!(
                ["order", "repair", "evict"].contains(&info.recompute_method),
                "{}", info.recompute_method
            );
        }
    }
}

/// The case the module exists for: one large storage live across the peak, and several
/// small ones. Eviction at the peak frees small ones first; repair recomputes the large one
/// once. Two forward branches: `big` (cheap to make, 100 B) and four `s*` (10 B each, made by
/// cheap ops too), all read again after a 60 B workspace step.
#[test]
fn one_large_recomputation_beats_several_small() {
    let g = recompute::one_large_or_four_small();
    let order = g
        .order_from_ids(&["B", "S1", "S2", "S3", "S4", "W", "Y"])
        .unwrap();
    // Without recomputation: during W, 1 + 100 + 40 + 1 + 60 = 202.
    assert_eq!(peak_of(&g, &order), 202);
    let Outcome::Found(f) = repair::plan(&g, &order, 150, &budget()) else {
        panic!("repair finds a schedule")
    };
    assert_eq!(f.added_cost, 1.0);
    assert_eq!(
        g.op_ids(&f.schedule),
        ["B", "S1", "S2", "S3", "S4", "W", "B", "Y"]
    );
}

/// A storage whose view is read after the peak: making the storage again makes its view stale,
/// so the repair runs the view's op again too (without it the schedule is invalid and no repair
/// applied: convnext_tiny's and swin_t's large activations all have such views).
#[test]
fn a_recomputed_storage_gets_its_views_made_again() {
    let g = Graph::from_json(
        r#"{
      "tensors": [{"id": "x", "bytes": 1}, {"id": "a", "bytes": 100},
                  {"id": "av", "alias_of": "a"}, {"id": "b", "bytes": 10},
                  {"id": "c", "bytes": 10}, {"id": "d", "bytes": 1}],
      "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"]},
              {"id": "V", "inputs": ["a"], "outputs": ["av"]},
              {"id": "B", "inputs": ["av"], "outputs": ["b"]},
              {"id": "C", "inputs": ["b"], "outputs": ["c"], "workspace": 100},
              {"id": "D", "inputs": ["av", "c"], "outputs": ["d"]}],
      "outputs": ["d"]
    }"#,
    )
    .unwrap();
    let order = g.order_from_ids(&["A", "V", "B", "C", "D"]).unwrap();
    // During C: 1 + 100 + 10 + 10 + 100.
    assert_eq!(peak_of(&g, &order), 221);
    for plan in [repair::plan, repair::plan_wide] {
        let Outcome::Found(f) = plan(&g, &order, 121, &budget()) else {
            panic!("repair finds a schedule")
        };
        assert_eq!(g.op_ids(&f.schedule), ["A", "V", "B", "C", "A", "V", "D"]);
        assert_eq!(f.added_cost, 2.0);
        assert_eq!(simulate_schedule(&g, &f.schedule).unwrap().peak_bytes, 121);
    }
}
