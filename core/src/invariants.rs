//! The invariants every plan must satisfy, checked from outside the planners: used by the fuzz
//! target, the regression corpus and the wasm tests, so all check the same thing.

use crate::bounds::lower_bound;
use crate::budget::NoClock;
use crate::graph::Graph;
use crate::plan::{plan, Method, PlanOptions};
use crate::simulate::simulate;
use crate::OpIx;

/// Largest graph for which `optimal` claims are re-proven by enumerating every order.
const BRUTE_FORCE_MAX_OPS: usize = 7;

/// Plans `g` with every method under a small state budget and checks each result: the order is
/// a complete topological order, its simulated peak equals the reported peak, the peak is at
/// least every lower bound, and `optimal` is never claimed for a beatable order.
pub fn check_all_methods(g: &Graph, max_states: u64) -> Result<(), String> {
    let bound = lower_bound(g);
    let optimum = (g.num_ops() <= BRUTE_FORCE_MAX_OPS).then(|| brute_force(g));
    for &method in Method::ALL {
        let opts = PlanOptions {
            method,
            budget_ms: None,
            max_states,
            ..PlanOptions::default()
        };
        let p = match plan(g, &opts, &NoClock) {
            Ok(p) => p,
            // Refusals are fine (program order not topological, a method that does not apply),
            // as long as they are errors and not panics.
            Err(_) => continue,
        };
        let order = g
            .order_from_ids(&p.order)
            .map_err(|e| format!("{method}: invalid order: {e}"))?;
        let sim = simulate(g, &order).map_err(|e| format!("{method}: {e}"))?;
        if sim.peak_bytes != p.peak_bytes {
            return Err(format!(
                "{method}: reported peak {} but simulated {}",
                p.peak_bytes, sim.peak_bytes
            ));
        }
        if p.peak_bytes < bound || p.peak_bytes < p.lower_bound_bytes {
            return Err(format!(
                "{method}: peak {} below a lower bound",
                p.peak_bytes
            ));
        }
        if let Some(opt) = optimum {
            if p.lower_bound_bytes > opt {
                return Err(format!(
                    "{method}: lower bound {} above the optimum {opt}",
                    p.lower_bound_bytes
                ));
            }
            if p.optimal && p.peak_bytes != opt {
                return Err(format!(
                    "{method}: claims optimal at {} but {opt} is possible",
                    p.peak_bytes
                ));
            }
        }
    }
    Ok(())
}

/// The optimum over every topological order (small graphs only), iteratively.
fn brute_force(g: &Graph) -> u64 {
    let n = g.num_ops();
    let mut best = u64::MAX;
    // Each frame: the next candidate op to try at this depth.
    let mut order: Vec<OpIx> = Vec::with_capacity(n);
    let mut next: Vec<usize> = vec![0];
    let mut missing: Vec<usize> = (0..n as OpIx).map(|v| g.preds(v).len()).collect();
    let mut used = vec![false; n];
    while let Some(&start) = next.last() {
        if order.len() == n {
            best = best.min(crate::simulate::peak_of(g, &order));
        }
        let pick = (start..n).find(|&v| order.len() < n && !used[v] && missing[v] == 0);
        match pick {
            Some(v) => {
                *next.last_mut().unwrap() = v + 1;
                used[v] = true;
                order.push(v as OpIx);
                for &w in g.succs(v as OpIx) {
                    missing[w as usize] -= 1;
                }
                next.push(0);
            }
            None => {
                next.pop();
                if let Some(v) = order.pop() {
                    used[v as usize] = false;
                    for &w in g.succs(v) {
                        missing[w as usize] += 1;
                    }
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brute_force_finds_the_branch_by_branch_order() {
        let g = Graph::from_json(
            r#"{"tensors":[{"id":"x","bytes":8},{"id":"h1","bytes":100},{"id":"s1","bytes":1},
            {"id":"h2","bytes":100},{"id":"s2","bytes":1},{"id":"y","bytes":1}],
            "ops":[{"id":"p1","inputs":["x"],"outputs":["h1"]},{"id":"p2","inputs":["x"],"outputs":["h2"]},
            {"id":"q1","inputs":["h1"],"outputs":["s1"]},{"id":"q2","inputs":["h2"],"outputs":["s2"]},
            {"id":"j","inputs":["s1","s2"],"outputs":["y"]}],"outputs":["y"]}"#,
        )
        .unwrap();
        assert_eq!(brute_force(&g), 110);
        assert!(check_all_methods(&g, 100).is_ok());
    }
}
