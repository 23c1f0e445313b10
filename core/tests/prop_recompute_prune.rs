//! Property tests for pruning (`recompute::prune`): on thousands of small random graphs (views,
//! workspaces, donated inputs, `recompute: false` ops) and schedules with random repeated runs,
//! what `prune` returns is valid and within the limit by the simulator, only drops runs (a
//! subsequence, every op still there), never costs more, and leaves no repeated run of a
//! view-only op that the schedule stays valid without ([`prune::drop_view_runs`]).

mod common;
#[path = "common/recompute.rs"]
mod recompute;

use peakorder::recompute::{added_cost, check_schedule, prune, schedule_peak, simulate_schedule};
use peakorder::{Graph, OpIx};
use proptest::prelude::*;
use recompute::recompute_graph;

/// True when `v` allocates nothing and makes a view of a storage another op makes.
fn view_only(g: &Graph, v: OpIx) -> bool {
    let t = g.tensors();
    g.creates(v).is_empty()
        && g.ops()[v as usize].outputs.iter().any(|&x| {
            t[x as usize].alias_of.is_some() && t[t[x as usize].root as usize].producer != Some(v)
        })
}

/// `sub` is `all` with some entries left out.
fn is_subsequence(sub: &[OpIx], all: &[OpIx]) -> bool {
    let mut it = all.iter();
    sub.iter().all(|x| it.any(|y| y == x))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn pruned_schedules_valid_within_limit_and_no_dearer(
        case in recompute_graph(1..=12),
        draws in prop::collection::vec(any::<u16>(), 64),
        extra in 0usize..8,
        slack in 0u64..64,
    ) {
        let g = &case.graph;
        let within = recompute::repeated_within(g, &draws, extra, slack);
        prop_assume!(within.is_some());
        let (s, limit) = within.unwrap();
        let p = prune::prune(g, s.clone(), limit, &|| false);
        let sim = simulate_schedule(g, &p)
            .map_err(|e| TestCaseError::fail(format!("invalid schedule: {e}")))?;
        prop_assert!(sim.peak_bytes <= limit, "peak {} over {limit}", sim.peak_bytes);
        prop_assert!(is_subsequence(&p, &s), "not a subsequence: {:?} of {:?}", p, s);
        prop_assert!(added_cost(g, &p) <= added_cost(g, &s));
        // No view-only repeated run left that could go.
        let mut seen = vec![false; g.num_ops()];
        for (i, &v) in p.iter().enumerate() {
            if std::mem::replace(&mut seen[v as usize], true) && view_only(g, v) {
                let mut t = p.clone();
                t.remove(i);
                prop_assert!(
                    check_schedule(g, &t).is_err(),
                    "the run of {} at {i} could go", g.ops()[v as usize].id
                );
            }
        }
        // The view pass alone keeps the schedule valid and drops only view-only runs.
        let d = prune::drop_view_runs(g, s.clone(), &|| false);
        prop_assert!(check_schedule(g, &d).is_ok());
        prop_assert!(is_subsequence(&d, &s));
        prop_assert!(schedule_peak(g, &d) <= schedule_peak(g, &s));
        let dropped: Vec<OpIx> = {
            let mut it = d.iter().peekable();
            s.iter().filter(|&&x| if it.peek() == Some(&&x) { it.next(); false } else { true })
                .copied().collect()
        };
        prop_assert!(dropped.iter().all(|&v| view_only(g, v)), "dropped {:?}", dropped);
    }
}
