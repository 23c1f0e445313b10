//! Property tests of the recompute model and planner (docs/design.md §1 "Recomputation", §3
//! "Plans with a memory limit") on thousands of small random graphs with views, workspace,
//! donated inputs, graph outputs, multi-output ops, `recompute: false` ops and non-unit costs:
//!
//! - the schedule simulator agrees with `simulate` on orders, and with a naive simulator
//!   written from the text of the model (`common/recompute.rs`) on schedules with repeats,
//!   including which schedules it rejects and why;
//! - `plan` with a memory limit against brute force over every schedule up to a length.

mod common;
#[path = "common/recompute.rs"]
mod recompute;

use peakorder::recompute::{
    added_cost, check_schedule, checked_schedule_peak, exact, least_peak_bound, run_counts,
    schedule_peak, simulate_schedule,
};
use peakorder::referee::least_peak;
use peakorder::{plan, simulate, Budget, Graph, NoClock, OpIx, PlanOptions};
use proptest::prelude::*;
use recompute::{
    any_recompute_graph, cap_for, naive_schedule, recompute_graph, schedule_with_repeats,
    training_graph, Brute,
};

fn ids(g: &Graph, s: &[OpIx]) -> Vec<String> {
    g.op_ids(s)
}

/// On an order, the schedule simulator is the order simulator.
fn orders_agree(g: &Graph, draws: &[u16]) -> Result<(), TestCaseError> {
    let order = schedule_with_repeats(g, draws, 0, false);
    let want = simulate(g, &order).unwrap();
    match simulate_schedule(g, &order) {
        Ok(got) => {
            prop_assert_eq!(got.peak_bytes, want.peak_bytes);
            prop_assert_eq!(got.peak_step, want.peak_step);
            prop_assert_eq!(&got.live_at_peak, &want.live_at_peak);
            prop_assert_eq!(&got.steps, &want.steps);
            prop_assert_eq!(got.inputs_bytes, want.inputs_bytes);
            prop_assert_eq!(schedule_peak(g, &order), want.peak_bytes);
        }
        Err(e) => {
            // Every order is a schedule.
            prop_assert_eq!(e.code(), "stale_view");
            prop_assert!(false, "an order rejected: {}", e);
        }
    }
    Ok(())
}

/// On any schedule, the simulator and the naive one agree: on whether it is valid (and the
/// error's code), the peak, and memory during and after every step.
fn schedules_agree(
    c: &common::Case,
    draws: &[u16],
    extra: usize,
    any_op: bool,
) -> Result<Option<bool>, TestCaseError> {
    let g = &c.graph;
    let s = schedule_with_repeats(g, draws, extra, any_op);
    let naive = naive_schedule(&c.spec, &ids(g, &s));
    let core = simulate_schedule(g, &s);
    match (&naive, &core) {
        (Ok(n), Ok(sim)) => {
            prop_assert_eq!(sim.peak_bytes, n.peak, "peak of {:?}", ids(g, &s));
            let steps: Vec<(u64, u64)> = sim
                .steps
                .iter()
                .map(|st| (st.during_bytes, st.after_bytes))
                .collect();
            prop_assert_eq!(&steps, &n.steps, "steps of {:?}", ids(g, &s));
            prop_assert!(check_schedule(g, &s).is_ok());
            prop_assert_eq!(checked_schedule_peak(g, &s).unwrap(), n.peak);
            prop_assert_eq!(g.schedule_from_ids(&ids(g, &s)).unwrap(), s.clone());
            let repeats = run_counts(g, &s).iter().any(|&r| r > 1);
            let cost: f64 = (0..s.len())
                .filter(|&i| s[..i].contains(&s[i]))
                .map(|i| g.ops()[s[i] as usize].cost)
                .sum();
            prop_assert_eq!(added_cost(g, &s), cost);
            Ok(Some(repeats))
        }
        (Err(code), Err(e)) => {
            prop_assert_eq!(*code, e.code(), "{:?}: {}", ids(g, &s), e);
            prop_assert!(check_schedule(g, &s).is_err());
            Ok(None)
        }
        _ => Err(TestCaseError::fail(format!(
            "{:?}: naive {:?}, core {:?}",
            ids(g, &s),
            naive.map(|n| n.peak),
            core.map(|s| s.peak_bytes)
        ))),
    }
}

/// Hand-made bad schedules: a `recompute: false` op run twice, a view read (or left as an
/// output) after its storage was made again but it was not.
fn bad_schedules_rejected(g: &Graph, draws: &[u16]) -> Result<(), TestCaseError> {
    let order = schedule_with_repeats(g, draws, 0, false);
    let t = g.tensors();
    for (v, op) in g.ops().iter().enumerate() {
        if !op.recompute {
            let mut s = order.clone();
            s.push(v as OpIx);
            let e = check_schedule(g, &s).unwrap_err();
            prop_assert_eq!(e.code(), "not_recomputable");
            prop_assert!(e.to_string().contains(&op.id), "{}", e);
        }
    }
    for (i, ten) in t.iter().enumerate() {
        let (Some(a), Some(p)) = (ten.alias_of, ten.producer) else {
            continue;
        };
        let Some(q) = t[a as usize].producer.filter(|&q| q != p) else {
            continue;
        };
        if !g.ops()[q as usize].recompute {
            continue;
        }
        // The base made again, then a reader of the view: stale.
        for &u in g.users(ten.root) {
            let reads_view = g.ops()[u as usize].inputs.contains(&(i as u32));
            if u != p && u != q && g.ops()[u as usize].recompute && reads_view {
                let mut s = order.clone();
                s.extend([q, u]);
                let e = check_schedule(g, &s).unwrap_err();
                prop_assert_eq!(e.code(), "stale_view", "{}", e);
            }
        }
        if g.outputs().contains(&(i as u32)) {
            let mut s = order.clone();
            s.push(q);
            let e = check_schedule(g, &s).unwrap_err();
            prop_assert_eq!(e.code(), "stale_view", "{}", e);
        }
    }
    Ok(())
}

/// `plan` with a limit drawn between the least peak bound and the best order's peak (and
/// either side of them) agrees with brute force.
fn plan_matches_brute(g: &Graph, d: u16) -> Result<(), TestCaseError> {
    let brute = Brute::new(g, cap_for(g));
    let (lpb, _) = least_peak_bound(g);
    let opt = least_peak(g);
    let lo = lpb.saturating_sub(1);
    let limit = lo + (opt + 1 - lo) * u64::from(d) / 65_535;
    let opts = PlanOptions {
        memory_limit: Some(limit),
        ..PlanOptions::default()
    };
    let least = exact::least(g, &Budget::new(&NoClock, None, u64::MAX)).unwrap();
    let brute_min = brute.min_peak().unwrap();
    let r = plan(g, &opts, &NoClock);
    if limit < lpb {
        let e = r.unwrap_err();
        prop_assert_eq!(e.code(), "infeasible");
        return Ok(());
    }
    let want = brute.best_within(limit);
    let p = match r {
        Ok(p) => p,
        Err(e) => {
            prop_assert_eq!(e.code(), "infeasible", "{}", e);
            prop_assert!(
                want.is_none(),
                "infeasible, but brute force found {:?}",
                want
            );
            prop_assert!(limit < least.peak);
            return Ok(());
        }
    };
    let s = g.schedule_from_ids(&p.order).unwrap();
    let peak = checked_schedule_peak(g, &s).unwrap();
    prop_assert!(peak <= limit, "peak {} over the limit {}", peak, limit);
    prop_assert_eq!(peak, p.peak_bytes);
    let info = p.recompute.as_ref().unwrap();
    prop_assert_eq!(info.added_cost, added_cost(g, &s));
    prop_assert_eq!(info.memory_limit_bytes, limit);
    if let Some((cost, _)) = want {
        prop_assert!(
            info.added_cost <= cost + 1e-9,
            "added {} above brute force {}",
            info.added_cost,
            cost
        );
        prop_assert!(info.added_cost_lower_bound <= cost + 1e-9);
        if s.len() <= brute.cap {
            prop_assert_eq!(info.added_cost, cost, "{:?} vs brute force", p.order);
        }
    } else {
        prop_assert!(s.len() > brute.cap, "brute force missed {:?}", p.order);
    }
    prop_assert!(p.optimal, "small graphs are proven");
    prop_assert_eq!(info.added_cost_lower_bound, info.added_cost);
    if limit >= opt {
        prop_assert_eq!(info.added_cost, 0.0);
        prop_assert_eq!(info.recompute_method, "order");
    }
    // The least limit: proven exactly on small graphs.
    prop_assert!(info.least_limit_lower_bound_bytes <= brute_min);
    prop_assert!(info.least_limit_lower_bound_bytes <= least.peak);
    prop_assert!(info.least_limit_bytes >= least.peak);
    prop_assert_eq!(info.least_limit_bytes, least.peak);
    prop_assert_eq!(info.least_limit_lower_bound_bytes, least.peak);
    if least.schedule.len() <= brute.cap {
        prop_assert_eq!(info.least_limit_bytes, brute_min);
    }
    prop_assert!(p.lower_bound_bytes <= peak);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Orders: the schedule simulator is `simulate`.
    #[test]
    fn schedule_simulator_on_orders(
        c in any_recompute_graph(0..=10),
        draws in prop::collection::vec(any::<u16>(), 12),
    ) {
        orders_agree(&c.graph, &draws)?;
    }

    /// Hand-made bad schedules are rejected with their codes.
    #[test]
    fn bad_schedules_have_codes(
        c in recompute_graph(1..=8),
        draws in prop::collection::vec(any::<u16>(), 12),
    ) {
        bad_schedules_rejected(&c.graph, &draws)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Schedules with repeats (of recomputable ops): the naive simulator's peak and steps.
    #[test]
    fn schedule_simulator_with_repeats(
        c in recompute_graph(1..=7),
        draws in prop::collection::vec(any::<u16>(), 40),
        extra in 0usize..5,
    ) {
        schedules_agree(&c, &draws, extra, false)?;
    }

    /// Any op repeated, `recompute: false` ones too: the same verdicts and codes.
    #[test]
    fn schedule_checker_codes(
        c in recompute_graph(1..=7),
        draws in prop::collection::vec(any::<u16>(), 40),
        extra in 1usize..4,
    ) {
        schedules_agree(&c, &draws, extra, true)?;
    }

    /// The planner with a memory limit on tiny graphs is brute force.
    #[test]
    fn plan_with_limit_is_brute_force(c in any_recompute_graph(1..=5), d in any::<u16>()) {
        plan_matches_brute(&c.graph, d)?;
    }

    /// The same on training steps, where recomputation pays.
    #[test]
    fn plan_with_limit_on_training_steps(c in training_graph(2..=7), d in any::<u16>()) {
        plan_matches_brute(&c.graph, d)?;
    }
}
