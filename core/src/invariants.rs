//! The invariants every plan must satisfy, checked from outside the planners: used by the fuzz
//! target (`fuzz/fuzz_targets/plan_json.rs`) and the regression corpus (`core/tests/regressions.rs`),
//! so both check the same thing.

use crate::bounds::lower_bound;
use crate::budget::NoClock;
use crate::graph::Graph;
use crate::plan::{plan, Method, Plan, PlanOptions};
use crate::referee::least_peak;
use crate::simulate::simulate;

/// Largest graph whose optimum the referee computes here (2^n downsets at most: a fuzz input
/// must stay fast).
const REFEREE_MAX_OPS: usize = 12;

/// Plans `g` with every method under a small state budget and checks each result: the order is
/// a complete topological order, its simulated peak equals the reported peak, the peak is at
/// least every lower bound, and on graphs of up to 12 ops no bound exceeds the optimum and
/// `optimal` is claimed only for an optimal order.
pub fn check_all_methods(g: &Graph, max_states: u64) -> Result<(), String> {
    let bound = lower_bound(g);
    let optimum = (g.num_ops() <= REFEREE_MAX_OPS).then(|| least_peak(g));
    for &method in Method::ALL {
        let opts = PlanOptions {
            method,
            budget_ms: None,
            max_states,
            ..PlanOptions::default()
        };
        match plan(g, &opts, &NoClock) {
            Ok(p) => check_plan(g, &p, bound, optimum).map_err(|e| format!("{method}: {e}"))?,
            // Refusals are fine (program order not topological, a method that does not apply),
            // as long as they are errors and not panics.
            Err(_) => continue,
        }
    }
    Ok(())
}

/// Checks one plan of `g` given its lower bound and, when known, its optimum.
fn check_plan(g: &Graph, p: &Plan, bound: u64, optimum: Option<u64>) -> Result<(), String> {
    let order = g
        .order_from_ids(&p.order)
        .map_err(|e| format!("invalid order: {e}"))?;
    let sim = simulate(g, &order).map_err(|e| e.to_string())?;
    if sim.peak_bytes != p.peak_bytes {
        return Err(format!(
            "reported peak {} but simulated {}",
            p.peak_bytes, sim.peak_bytes
        ));
    }
    if p.peak_bytes < bound || p.peak_bytes < p.lower_bound_bytes {
        return Err(format!("peak {} below a lower bound", p.peak_bytes));
    }
    if let Some(opt) = optimum {
        if p.lower_bound_bytes > opt {
            return Err(format!(
                "lower bound {} above the optimum {opt}",
                p.lower_bound_bytes
            ));
        }
        if p.optimal && p.peak_bytes != opt {
            return Err(format!(
                "claims optimal at {} but {opt} is possible",
                p.peak_bytes
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two branches from x: branch by branch peaks at 110, breadth first at 209.
    fn branches() -> Graph {
        Graph::from_json(
            r#"{"tensors":[{"id":"x","bytes":8},{"id":"h1","bytes":100},{"id":"s1","bytes":1},
            {"id":"h2","bytes":100},{"id":"s2","bytes":1},{"id":"y","bytes":1}],
            "ops":[{"id":"p1","inputs":["x"],"outputs":["h1"]},{"id":"p2","inputs":["x"],"outputs":["h2"]},
            {"id":"q1","inputs":["h1"],"outputs":["s1"]},{"id":"q2","inputs":["h2"],"outputs":["s2"]},
            {"id":"j","inputs":["s1","s2"],"outputs":["y"]}],"outputs":["y"]}"#,
        )
        .unwrap()
    }

    #[test]
    fn every_method_keeps_the_invariants() {
        assert_eq!(check_all_methods(&branches(), 100), Ok(()));
    }

    #[test]
    fn dishonest_plans_are_caught() {
        let g = branches();
        let (bound, opt) = (lower_bound(&g), Some(least_peak(&g)));
        let opts = PlanOptions {
            method: Method::Program,
            ..PlanOptions::default()
        };
        let honest = plan(&g, &opts, &NoClock).unwrap();
        assert_eq!((honest.peak_bytes, honest.optimal), (209, false));
        assert_eq!(check_plan(&g, &honest, bound, opt), Ok(()));
        let claims = Plan {
            optimal: true,
            ..honest.clone()
        };
        assert!(check_plan(&g, &claims, bound, opt)
            .unwrap_err()
            .contains("claims optimal"));
        let low = Plan {
            peak_bytes: 110,
            ..honest.clone()
        };
        assert!(check_plan(&g, &low, bound, opt)
            .unwrap_err()
            .contains("simulated 209"));
        let inflated = Plan {
            lower_bound_bytes: 111,
            ..honest.clone()
        };
        assert!(check_plan(&g, &inflated, bound, opt)
            .unwrap_err()
            .contains("above the optimum"));
        let short = Plan {
            order: honest.order[1..].to_vec(),
            ..honest
        };
        assert!(check_plan(&g, &short, bound, opt)
            .unwrap_err()
            .contains("invalid order"));
    }
}
