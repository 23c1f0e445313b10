//! Every fixture, malformed input and regression goes through every planner with a small budget
//! and must keep the plan invariants (see `peakorder::invariants`); the regressions
//! (`tests/cases/regressions`, see its README) go through every check that ever failed on them.

mod common;

use common::{cases_dir, expect, json_files};
use peakorder::invariants::check_all_methods;
use peakorder::order::exact::check_bound_admissible;
use peakorder::order::greedy::greedy_order;
use peakorder::order::liu::{applies, liu_order};
use peakorder::order::program::program_order;
use peakorder::referee::{self, least_peak};
use peakorder::{peak_of, plan, Graph, Method, NoClock, PlanOptions};

#[test]
fn corpus_keeps_the_plan_invariants() {
    let mut checked = 0;
    for sub in ["", "invalid", "regressions"] {
        let dir = cases_dir().join(sub);
        let entries =
            std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{} must exist: {e}", dir.display()));
        for e in entries {
            let path = e.unwrap().path();
            if path.is_dir() || path.extension().is_some_and(|x| x == "md") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let Ok(text) = std::str::from_utf8(&bytes) else {
                continue;
            };
            if let Ok(g) = Graph::from_json(text) {
                check_all_methods(&g, 2_000).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
            checked += 1;
        }
    }
    assert!(checked > 30);
}

fn unbounded(method: Method) -> PlanOptions {
    PlanOptions {
        method,
        budget_ms: None,
        max_states: u64::MAX,
        ..PlanOptions::default()
    }
}

/// Every check that once failed on one of these graphs.
fn check_regression(g: &Graph) -> Result<(), String> {
    for states in [0, 1, 2, 20, 2_000] {
        check_all_methods(g, states).map_err(|e| format!("max_states {states}: {e}"))?;
    }
    if let Some(want) = expect(g, "inputs_bytes") {
        if g.inputs_bytes() != want {
            return Err(format!("inputs_bytes {} != {want}", g.inputs_bytes()));
        }
    }
    if let Some(want) = expect(g, "program_peak_bytes") {
        let got = program_order(g).map(|o| peak_of(g, &o));
        if got.as_ref().ok() != Some(&want) {
            return Err(format!("program peak {got:?} != {want}"));
        }
    }
    if g.num_ops() > referee::MAX_OPS {
        return Ok(());
    }
    let best = least_peak(g);
    if let Some(want) = expect(g, "optimal_peak_bytes") {
        if best != want {
            return Err(format!(
                "the referee's optimum {best} != the expected {want}"
            ));
        }
    }
    for method in [Method::Exact, Method::Auto] {
        let p = plan(g, &unbounded(method), &NoClock).map_err(|e| e.to_string())?;
        if !p.optimal || p.peak_bytes != best || p.lower_bound_bytes != best {
            return Err(format!(
                "{method} with no budget: peak {}, bound {}, optimal {} (optimum {best})",
                p.peak_bytes, p.lower_bound_bytes, p.optimal
            ));
        }
    }
    match liu_order(g) {
        Ok(order) if peak_of(g, &order) != best => {
            return Err(format!(
                "liu peaks at {} (optimum {best})",
                peak_of(g, &order)
            ));
        }
        Ok(_) => {}
        Err(e) if e.code() == "not_applicable" && !applies(g) => {}
        Err(e) => return Err(format!("liu: {e}")),
    }
    if g.num_ops() <= 16 {
        check_bound_admissible(g, &greedy_order(g))?;
    }
    Ok(())
}

#[test]
fn regressions_stay_fixed() {
    let files = json_files("regressions");
    assert!(
        !files.is_empty(),
        "tests/cases/regressions holds no .json file"
    );
    for (name, text) in files {
        // An input that is not a graph must be refused with an error (a panic fails the test).
        let Ok(g) = Graph::from_json(&text) else {
            continue;
        };
        check_regression(&g).unwrap_or_else(|e| panic!("regressions/{name}: {e}"));
    }
}
