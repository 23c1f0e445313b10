//! The exact recompute search (`recompute::exact`) against brute force over every schedule up
//! to a length (`common/recompute.rs`), on thousands of small random graphs with views,
//! workspace, donated inputs, graph outputs, multi-output ops, `recompute: false` ops and
//! non-unit costs; and its honesty on larger graphs and small budgets.
//!
//! Brute force sees the schedules of at most `cap` steps; the search sees all of them. So the
//! search's optimum is at most brute force's, and equal whenever the search's own schedule has
//! at most `cap` steps (brute force saw that one too).

mod common;
#[path = "common/recompute.rs"]
mod recompute;

use peakorder::recompute::{
    added_cost, checked_schedule_peak, exact, least_peak_bound, simulate_schedule, Outcome,
};
use peakorder::referee::least_peak;
use peakorder::{Budget, Graph, NoClock};
use proptest::prelude::*;
use recompute::{any_recompute_graph, cap_for, recompute_graph, training_graph, Brute};

/// A clock that moves one millisecond each time it is read.
#[derive(Default)]
struct Ticks(std::cell::Cell<f64>);

impl peakorder::Clock for Ticks {
    fn now_ms(&self) -> f64 {
        self.0.set(self.0.get() + 1.0);
        self.0.get()
    }
}

fn unlimited() -> Budget<'static> {
    Budget::new(&NoClock, None, u64::MAX)
}

/// Costs are small integers: sums are exact, but compare with a hair of slack anyway.
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

/// The limits worth asking about: every peak brute force saw and one byte under it, the
/// bounds and the no-recompute optimum, each side.
fn limits(g: &Graph, brute: &Brute) -> Vec<u64> {
    let mut ls: Vec<u64> = brute
        .peaks()
        .flat_map(|p| [p.saturating_sub(1), p])
        .collect();
    let (lpb, _) = least_peak_bound(g);
    let opt = least_peak(g);
    ls.extend([
        lpb.saturating_sub(1),
        lpb,
        opt.saturating_sub(1),
        opt,
        opt + 1,
    ]);
    ls.sort_unstable();
    ls.dedup();
    ls
}

/// Checks a Found against the simulator and its own claims; returns the schedule length.
fn check_found(
    g: &Graph,
    limit: u64,
    f: &peakorder::recompute::Found,
) -> Result<usize, TestCaseError> {
    let peak = checked_schedule_peak(g, &f.schedule)
        .map_err(|e| TestCaseError::fail(format!("invalid schedule {:?}: {e}", f.schedule)))?;
    prop_assert!(peak <= limit, "peak {} over the limit {}", peak, limit);
    let sim = simulate_schedule(g, &f.schedule).unwrap();
    prop_assert_eq!(sim.peak_bytes, peak);
    prop_assert!(
        same(added_cost(g, &f.schedule), f.added_cost),
        "added cost as reported"
    );
    prop_assert!(f.cost_bound <= f.added_cost, "bound above the cost");
    prop_assert!(same(f.cost_bound, f.added_cost), "finished but not proven");
    Ok(f.schedule.len())
}

/// `exact::search` at every interesting limit agrees with brute force.
fn search_matches_brute(g: &Graph) -> Result<(), TestCaseError> {
    let brute = Brute::new(g, cap_for(g));
    for limit in limits(g, &brute) {
        let want = brute.best_within(limit);
        match exact::search(g, limit, &unlimited()) {
            Outcome::Found(f) => {
                let len = check_found(g, limit, &f)?;
                if let Some((cost, s)) = want {
                    prop_assert!(
                        f.added_cost <= cost + 1e-9,
                        "limit {}: exact {} ({:?}) above brute force {} ({:?})",
                        limit,
                        f.added_cost,
                        f.schedule,
                        cost,
                        s
                    );
                }
                if len <= brute.cap {
                    let Some((cost, _)) = want else {
                        return Err(TestCaseError::fail(format!(
                            "limit {limit}: brute force missed {:?}",
                            f.schedule
                        )));
                    };
                    prop_assert!(
                        same(f.added_cost, cost),
                        "limit {}: {} vs brute force {}",
                        limit,
                        f.added_cost,
                        cost
                    );
                }
            }
            Outcome::Infeasible { least } => {
                prop_assert!(
                    want.is_none(),
                    "limit {}: infeasible, but brute force found {:?}",
                    limit,
                    want
                );
                if let Some(l) = least {
                    prop_assert!(l > limit);
                }
            }
            Outcome::Unknown => {
                return Err(TestCaseError::fail(format!(
                    "limit {limit}: unknown with an unlimited budget"
                )))
            }
        }
    }
    Ok(())
}

/// `exact::least` is the least peak of every schedule, and `least_peak_bound` is below it.
fn least_matches_brute(g: &Graph) -> Result<(), TestCaseError> {
    let brute = Brute::new(g, cap_for(g));
    if brute.min_peak().is_none() {
        // Every order is a schedule: brute force always finds one.
        prop_assert!(false, "no schedule at all");
        prop_assert!(exact::least(g, &unlimited()).is_none());
        return Ok(());
    }
    let l = exact::least(g, &unlimited()).ok_or_else(|| TestCaseError::fail("least gave up"))?;
    let peak =
        checked_schedule_peak(g, &l.schedule).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(peak, l.peak, "reported peak");
    prop_assert_eq!(l.bound, l.peak, "finished but not proven");
    let (lpb, _) = least_peak_bound(g);
    prop_assert!(lpb <= l.peak);
    // Every graph has a schedule without repeats, so brute force always sees one.
    let min = brute.min_peak().expect("an order is a schedule");
    prop_assert!(
        lpb <= min,
        "least_peak_bound {} above brute force {}",
        lpb,
        min
    );
    prop_assert!(l.peak <= min, "least {} above brute force {}", l.peak, min);
    if l.schedule.len() <= brute.cap {
        prop_assert_eq!(l.peak, min);
    }
    prop_assert!(l.peak <= least_peak(g), "least above the best order");
    // The least limit is where the search turns feasible.
    let at = exact::search(g, l.peak, &unlimited());
    prop_assert!(matches!(at, Outcome::Found(_)), "at the least: {:?}", at);
    if l.peak > 0 {
        let below = exact::search(g, l.peak - 1, &unlimited());
        prop_assert!(
            matches!(below, Outcome::Infeasible { .. }),
            "below the least: {:?}",
            below
        );
    }
    Ok(())
}

/// On graphs too large for brute force: valid, within the limit, proven; the cost never rises
/// with the limit; feasible exactly from the least peak up; nothing recomputed once an order
/// fits.
fn consistent(g: &Graph, draws: &[u16]) -> Result<(), TestCaseError> {
    let budget = Budget::new(&NoClock, None, 200_000);
    let Some(l) = exact::least(g, &budget) else {
        return Ok(()); // out of budget: allowed on these sizes
    };
    prop_assert_eq!(checked_schedule_peak(g, &l.schedule).unwrap(), l.peak);
    let opt = least_peak(g);
    prop_assert!(least_peak_bound(g).0 <= l.peak && l.peak <= opt);
    if l.peak > 0 {
        let below = exact::search(g, l.peak - 1, &budget);
        prop_assert!(
            !matches!(below, Outcome::Found(_)),
            "below the least: {:?}",
            below
        );
    }
    let mut limits: Vec<u64> = draws
        .iter()
        .map(|&d| l.peak + (opt - l.peak) * u64::from(d) / 65_535)
        .chain([l.peak, opt])
        .collect();
    limits.sort_unstable();
    let mut last = f64::INFINITY;
    for limit in limits {
        match exact::search(g, limit, &budget) {
            Outcome::Found(f) => {
                check_found(g, limit, &f)?;
                prop_assert!(f.added_cost <= last + 1e-9, "cost rose with the limit");
                if limit >= opt {
                    prop_assert_eq!(f.added_cost, 0.0);
                }
                last = f.added_cost;
            }
            Outcome::Infeasible { .. } => {
                return Err(TestCaseError::fail(format!(
                    "limit {limit} at or above the least peak {}, infeasible",
                    l.peak
                )))
            }
            Outcome::Unknown => return Ok(()),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// The least added cost within each limit is brute force's.
    #[test]
    fn search_is_brute_force(c in any_recompute_graph(0..=5)) {
        search_matches_brute(&c.graph)?;
    }

    /// The same on training steps, where recomputation pays.
    #[test]
    fn search_is_brute_force_on_training_steps(c in training_graph(2..=7)) {
        search_matches_brute(&c.graph)?;
    }

    /// The least peak is brute force's, and the bound is below it.
    #[test]
    fn least_is_brute_force(c in any_recompute_graph(0..=5)) {
        least_matches_brute(&c.graph)?;
    }

    /// The same on training steps.
    #[test]
    fn least_is_brute_force_on_training_steps(c in training_graph(2..=7)) {
        least_matches_brute(&c.graph)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Larger graphs: consistent with itself and the order referee.
    #[test]
    fn search_is_consistent_on_larger_graphs(
        c in recompute_graph(6..=12),
        draws in prop::collection::vec(any::<u16>(), 3),
    ) {
        consistent(&c.graph, &draws)?;
    }

    /// Cut short (by states, by the memory cap or by the clock), it is still honest:
    /// whatever it returns is right.
    #[test]
    fn search_is_honest_when_cut_short(
        c in recompute_graph(1..=5),
        states in 0u64..40,
        d in any::<u16>(),
        how in 0u8..3,
    ) {
        let g = &c.graph;
        let clock = Ticks::default();
        let cut = |states: u64| match how {
            0 => Budget::new(&NoClock, None, states),
            1 => Budget {
                max_memory_bytes: states * 256,
                ..Budget::new(&NoClock, None, u64::MAX)
            },
            _ => Budget::new(&clock, Some(states as f64), u64::MAX),
        };
        let Some(full) = exact::least(g, &unlimited()) else {
            prop_assert!(false, "no least peak");
            return Ok(());
        };
        let opt = least_peak(g);
        let limit = full.peak.saturating_sub(1) + (opt + 1 - full.peak.saturating_sub(1)) * u64::from(d) / 65_535;
        let want = exact::search(g, limit, &unlimited());
        match exact::search(g, limit, &cut(states)) {
            Outcome::Unknown => {}
            Outcome::Found(f) => {
                check_found(g, limit, &f)?;
                let Outcome::Found(w) = want else {
                    return Err(TestCaseError::fail("found where the full search did not"));
                };
                prop_assert!(same(f.added_cost, w.added_cost));
            }
            o => prop_assert_eq!(o, want),
        }
        if let Some(l) = exact::least(g, &cut(states)) {
            prop_assert_eq!(l.peak, full.peak);
            prop_assert_eq!(l.bound, full.peak);
        }
    }
}

/// A cost of `-0.0` is a valid cost (non-negative): it orders as 0.
#[test]
fn negative_zero_costs_are_zero() {
    let g = Graph::from_json(
        r#"{
      "tensors": [{"id": "x", "bytes": 1}, {"id": "a", "bytes": 100}, {"id": "b", "bytes": 10},
                  {"id": "c", "bytes": 10}, {"id": "d", "bytes": 1}],
      "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"], "cost": -0.0},
              {"id": "B", "inputs": ["a"], "outputs": ["b"], "cost": -0.0},
              {"id": "C", "inputs": ["b"], "outputs": ["c"], "workspace": 100},
              {"id": "D", "inputs": ["a", "c"], "outputs": ["d"]}],
      "outputs": ["d"]
    }"#,
    )
    .unwrap();
    let Outcome::Found(f) = exact::search(&g, 121, &unlimited()) else {
        panic!("a schedule fits")
    };
    assert_eq!(g.op_ids(&f.schedule), ["A", "B", "C", "A", "D"]);
    assert_eq!(f.added_cost, 0.0);
    assert_eq!(exact::least(&g, &unlimited()).unwrap().peak, 121);
}
