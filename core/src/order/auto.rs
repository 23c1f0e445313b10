//! `auto`, the default method: a portfolio that proves what it can.
//!
//! 1. An in-forest that Liu's algorithm solves exactly ([`super::liu`]) gets Liu's order: optimal.
//! 2. Otherwise every heuristic in [`Method::HEURISTICS`] runs and the best order is the
//!    incumbent of the exact search ([`super::exact`]), which proves it optimal, improves it, or
//!    (when the budget runs out) returns the better of it and the search's own incumbent, with a
//!    proven lower bound.
//!
//! New heuristics join by being added to [`Method::HEURISTICS`]; nothing here changes.

use crate::graph::Graph;
use crate::order::exact::exact_search;
use crate::order::{greedy, liu};
use crate::plan::{run_method, Budget, Method, Ordering};
use crate::simulate::peak_of;
use crate::OpIx;

/// The best order among [`Method::HEURISTICS`] (those that apply), with its method and peak.
pub fn best_heuristic(g: &Graph, budget: &Budget) -> (Method, Vec<OpIx>, u64) {
    let mut best: Option<(Method, Vec<OpIx>, u64)> = None;
    for &m in Method::HEURISTICS {
        let Ok(o) = run_method(g, m, budget) else {
            continue;
        };
        // A heuristic's order is checked before it is trusted as an incumbent.
        if g.check_order(&o.order).is_err() {
            continue;
        }
        let p = peak_of(g, &o.order);
        if best.as_ref().map_or(true, |b| p < b.2) {
            best = Some((m, o.order, p));
        }
    }
    best.unwrap_or_else(|| {
        let o = greedy::greedy_order(g);
        let p = peak_of(g, &o);
        (Method::Greedy, o, p)
    })
}

/// Exact search seeded with the best heuristic order.
pub fn exact_with_heuristics(g: &Graph, budget: &Budget) -> Ordering {
    let (_, order, _) = best_heuristic(g, budget);
    exact_search(g, budget, order).into()
}

/// The `auto` portfolio (see the module docs).
pub fn auto_order(g: &Graph, budget: &Budget) -> Ordering {
    if let Ok(order) = liu::liu_order(g) {
        return Ordering {
            order,
            proven_optimal: true,
            lower_bound: None,
        };
    }
    exact_with_heuristics(g, budget)
}
