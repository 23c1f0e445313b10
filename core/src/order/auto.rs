//! `auto`, the default method: a portfolio that proves what it can.
//!
//! 1. An in-forest that Liu's algorithm solves exactly ([`super::liu`]) gets Liu's order: optimal.
//! 2. Otherwise every near-linear heuristic runs ([`fallback_candidates`]: greedy,
//!    SP-ization, Inductor's three, XLA's three, the program order) and the best order becomes
//!    the incumbent of the exact search ([`super::exact`]), which proves it optimal or improves it.
//! 3. When the search cannot finish within its share of the budget, local search
//!    ([`local_search::improve_best`]) polishes the best candidates and the search's incumbent
//!    with the time left; the search's proven lower bound is kept.
//!
//! So `auto` is never above any peer heuristic (Inductor's and XLA's choices are among the
//! candidates), and `optimal` is only claimed when the search proved it.

use crate::budget::Budget;
use crate::graph::Graph;
use crate::order::exact::exact_search;
use crate::order::{greedy, inductor, liu, local_search, program, spize, xla, Ordering};
use crate::simulate::peak_of;
use crate::OpIx;

/// The part of the time left that the exact search may use before local search takes over:
/// most of it on graphs small enough for a proof to be likely, less on larger ones, where local
/// search finds more. Measured on 60-op wide DAGs (120 graphs, 100 ms): 0.9 proves 15% more of
/// them than 0.7 and their peaks end within 0.03%; on the large-graph families (quick bench)
/// 0.9 left auto's geometric-mean ratio to the peers at 0.892 against 0.881.
const EXACT_SHARE_SMALL: f64 = 0.9;
const EXACT_SHARE: f64 = 0.7;
/// Graphs of up to this many ops get [`EXACT_SHARE_SMALL`].
const SMALL_OPS: usize = 200;

/// The near-linear heuristics' orders, as starting points for [`local_search::improve_best`]: greedy, the
/// SP-ized series-parallel order, Inductor's LPMF, BFS and DFS, XLA's list, DFS and post-order,
/// and the program order when it is topological. Their best is never above `inductor`'s or
/// `xla`'s choice, which pick among subsets of them. Each is O((V + E) log V) or better.
pub fn fallback_candidates(g: &Graph) -> Vec<(&'static str, Vec<OpIx>)> {
    let mut c = vec![
        ("greedy", greedy::greedy_order(g)),
        ("spize", spize::spize_order(g)),
        ("inductor-lpmf", inductor::lpmf_order(g)),
        ("inductor-bfs", inductor::bfs_order(g)),
        ("inductor-dfs", inductor::dfs_order(g)),
        ("xla-list", xla::list_order(g)),
        ("xla-dfs", xla::dfs_order(g)),
        ("xla-post-order", xla::post_order(g)),
    ];
    if let Ok(p) = program::program_order(g) {
        c.push(("program", p));
    }
    c
}

/// The heuristics' orders (only valid ones), best (lowest peak) first.
pub fn heuristic_candidates(g: &Graph) -> Vec<(u64, Vec<OpIx>)> {
    let mut c: Vec<(u64, Vec<OpIx>)> = fallback_candidates(g)
        .into_iter()
        // A heuristic's order is checked before it is trusted as an incumbent.
        .filter(|(_, o)| g.check_order(o).is_ok())
        .map(|(_, o)| (peak_of(g, &o), o))
        .collect();
    c.sort_by_key(|x| x.0);
    c
}

/// Exact search seeded with the best heuristic order (the `exact` method).
pub fn exact_with_heuristics(g: &Graph, budget: &Budget) -> Ordering {
    let incumbent = heuristic_candidates(g)
        .into_iter()
        .next()
        .map(|c| c.1)
        .unwrap_or_default();
    exact_search(g, budget, incumbent).into()
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
    let candidates = heuristic_candidates(g);
    let incumbent = candidates.first().map(|c| c.1.clone()).unwrap_or_default();
    let share = if g.num_ops() <= SMALL_OPS {
        EXACT_SHARE_SMALL
    } else {
        EXACT_SHARE
    };
    let exact_budget = budget.share(share, budget.max_states);
    let searched: Ordering = exact_search(g, &exact_budget, incumbent).into();
    if searched.proven_optimal || budget.cancelled() {
        return searched;
    }
    let mut starts: Vec<Vec<OpIx>> = candidates.into_iter().map(|c| c.1).collect();
    starts.push(searched.order.clone());
    let polished = local_search::improve_best(g, starts, 3, budget);
    let order = if peak_of(g, &polished) < peak_of(g, &searched.order) {
        polished
    } else {
        searched.order
    };
    Ordering {
        order,
        proven_optimal: false,
        lower_bound: searched.lower_bound,
    }
}
