//! Property tests for the heuristic orderers (sp, spize, local, inductor, xla and their parts):
//! on thousands of small random graphs every order is a valid order, each method's plan is the
//! order its orderer returns with the simulator's peak, its bound is a true lower bound (at most
//! the referee's optimum), `optimal` is claimed exactly when the peak meets the bound, and local
//! search and the fallback portfolio never lose to what they start from.

mod common;

use common::{any_graph, graph, layered_net, sp_net};
use peakorder::format::{GraphSpec, OpSpec, TensorSpec, FORMAT};
use peakorder::generators::{self, small::Family};
use peakorder::order::{auto, greedy, inductor, local_search, series_parallel, spize, xla};
use peakorder::referee::least_peak;
use peakorder::{
    lower_bound, peak_of, plan, simulate, Budget, Graph, Method, NoClock, OpIx, PlanOptions,
};
use proptest::prelude::*;

fn budget(max_states: u64) -> Budget<'static> {
    Budget::new(&NoClock, None, max_states)
}

const METHODS: &[Method] = &[
    Method::Sp,
    Method::Spize,
    Method::Local,
    Method::Inductor,
    Method::Xla,
];

/// An orderer of the heuristics' parts.
type Orderer = fn(&Graph) -> Vec<OpIx>;

/// Largest graph whose optimum the checks compute (the referee keeps 2^n entries).
const REFEREE_MAX_OPS: usize = 12;

fn check_all(g: &Graph) -> Result<(), TestCaseError> {
    let lb = lower_bound(g);
    let opt = (g.num_ops() <= REFEREE_MAX_OPS).then(|| least_peak(g));
    if let Some(o) = opt {
        prop_assert!(lb <= o, "lower bound {lb} above the optimum {o}");
    }
    let parts: Vec<(&str, Orderer)> = vec![
        ("lpmf", inductor::lpmf_order),
        ("inductor_bfs", inductor::bfs_order),
        ("inductor_dfs", inductor::dfs_order),
        ("xla_list", xla::list_order),
        ("xla_dfs", xla::dfs_order),
        ("xla_post", xla::post_order),
        ("spize", spize::spize_order),
    ];
    let mut part_orders = Vec::new();
    for (name, part) in &parts {
        let order = part(g);
        prop_assert!(g.check_order(&order).is_ok(), "{name}: invalid order");
        // Orderers are pure functions: the same graph gives the same order.
        prop_assert_eq!(&part(g), &order, "{}: not deterministic", name);
        let p = peak_of(g, &order);
        prop_assert!(p >= lb, "{name}: peak {p} below the lower bound {lb}");
        part_orders.push((*name, order));
    }
    for &m in METHODS {
        let opts = PlanOptions {
            method: m,
            budget_ms: None,
            max_states: 10_000,
            ..PlanOptions::default()
        };
        match plan(g, &opts, &NoClock) {
            Ok(p) => {
                let sim = simulate(g, &p.order_ix).expect("plan returned an invalid order");
                prop_assert_eq!(p.peak_bytes, sim.peak_bytes, "{}: reported peak", m);
                prop_assert_eq!(&p.method, m.name());
                prop_assert!(
                    p.lower_bound_bytes <= p.peak_bytes,
                    "{}: bound above the peak",
                    m
                );
                prop_assert!(
                    p.lower_bound_bytes >= lb,
                    "{}: bound below the linear one",
                    m
                );
                // A heuristic proves nothing of its own: `optimal` means the peak meets the bound.
                prop_assert_eq!(
                    p.optimal,
                    p.peak_bytes == p.lower_bound_bytes,
                    "{}: optimal flag",
                    m
                );
                if let Some(o) = opt {
                    prop_assert!(
                        p.lower_bound_bytes <= o,
                        "{}: bound {} above the optimum {}",
                        m,
                        p.lower_bound_bytes,
                        o
                    );
                    if p.optimal {
                        prop_assert_eq!(p.peak_bytes, o, "{}: claims optimal", m);
                    }
                }
                // The plan is the order of the orderer the method names.
                let direct = match m {
                    Method::Sp => series_parallel::sp_order(g).expect("planned, so it applies"),
                    Method::Spize => spize::spize_order(g),
                    Method::Inductor => inductor::inductor_order(g),
                    Method::Xla => xla::xla_order(g),
                    _ => local_search::improve(g, &greedy::greedy_order(g), &budget(10_000)),
                };
                prop_assert_eq!(&p.order_ix, &direct, "{}: not its orderer's order", m);
                if m == Method::Local {
                    prop_assert!(
                        p.peak_bytes <= peak_of(g, &greedy::greedy_order(g)),
                        "local: above greedy"
                    );
                }
            }
            Err(e) => {
                prop_assert!(m == Method::Sp, "{}: failed: {}", m, e);
                prop_assert_eq!(e.code(), "not_applicable");
            }
        }
    }
    // The fallback portfolio is valid and never above the peers' choices.
    let cands: Vec<Vec<OpIx>> = auto::fallback_candidates(g)
        .into_iter()
        .map(|c| c.1)
        .collect();
    let best = local_search::improve_best(g, cands, 3, &budget(10_000));
    prop_assert!(g.check_order(&best).is_ok(), "portfolio: invalid order");
    let peer = peak_of(g, &inductor::inductor_order(g)).min(peak_of(g, &xla::xla_order(g)));
    prop_assert!(
        peak_of(g, &best) <= peer,
        "portfolio above min(inductor, xla)"
    );
    // Local search never makes an order worse.
    for (name, order) in &part_orders {
        let better = local_search::improve(g, order, &budget(10_000));
        prop_assert!(g.check_order(&better).is_ok(), "local({name}): invalid");
        prop_assert!(
            peak_of(g, &better) <= peak_of(g, order),
            "local({name}): worse"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn heuristics_valid_on_small_random_graphs(c in any_graph(0..=8)) {
        check_all(&c.graph)?;
    }

    #[test]
    fn sp_recognises_fork_join_graphs(c in sp_net(1..=59)) {
        let g = &c.graph;
        let order = series_parallel::sp_order(g).expect("random_sp is series-parallel");
        prop_assert!(g.check_order(&order).is_ok());
        prop_assert_eq!(order, spize::spize_order(g));
    }

    #[test]
    fn heuristics_valid_on_random_layered(c in layered_net(1..=5, 1..=5)) {
        check_all(&c.graph)?;
    }
}

proptest! {
    // Fewer cases: each graph is larger than the local search's window (so window edges and
    // block moves are exercised) and costs tens of milliseconds.
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn heuristics_valid_on_medium_random_graphs(c in graph(Family::General, 40..=159)) {
        check_all(&c.graph)?;
    }
}

#[test]
fn every_family_plans_with_every_method() {
    let families = vec![
        generators::random_layered(1, 20, 10),
        generators::random_sp(2, 300),
        generators::unet(3, 8, 32),
        generators::transformer(3, 1, 64, 128, false),
        generators::transformer(3, 1, 64, 128, true),
        generators::nas_cells(3, 3, 4, 16, 8),
        generators::workflow(4, 3, 6),
    ];
    for spec in families {
        let g = Graph::from_spec(spec).expect("generated graphs are valid");
        check_all(&g).unwrap();
    }
}

#[test]
fn seed_graph_sp_finds_path_by_path() {
    // The seed's ten parallel paths are series-parallel; path by path is optimal (3.5 MiB).
    let spec = peakorder::examples::seed_graph(Default::default());
    let g = Graph::from_spec(spec).unwrap();
    let order = series_parallel::sp_order(&g).unwrap();
    assert_eq!(peak_of(&g, &order), 3 * 1024 * 1024 + 512 * 1024);
}

#[test]
fn local_search_respects_the_move_budget() {
    let g = Graph::from_spec(generators::random_layered(5, 40, 20)).unwrap();
    let start = inductor::bfs_order(&g);
    // No move may be evaluated with a zero budget: the order comes back unchanged.
    assert_eq!(local_search::improve(&g, &start, &budget(0)), start);
}

/// A chain of `n` ops listed last-first in the file (so the program order is not topological).
fn reversed_chain(n: usize) -> GraphSpec {
    let mut tensors = vec![TensorSpec {
        id: "t0".into(),
        bytes: Some(8),
        ..Default::default()
    }];
    let mut ops = Vec::with_capacity(n);
    for i in 0..n {
        tensors.push(TensorSpec {
            id: format!("t{}", i + 1),
            bytes: Some(8 + (i % 7) as u64),
            ..Default::default()
        });
        ops.push(OpSpec {
            id: format!("o{i}"),
            inputs: vec![format!("t{i}")],
            outputs: vec![format!("t{}", i + 1)],
            ..Default::default()
        });
    }
    ops.reverse();
    GraphSpec {
        format: Some(FORMAT.into()),
        tensors,
        ops,
        outputs: vec![format!("t{n}")],
        meta: None,
    }
}

#[test]
fn deep_chains_do_not_overflow_the_stack() {
    // Deep enough that any recursion over the chain would overflow a test thread's stack.
    let g = Graph::from_spec(reversed_chain(300_000)).unwrap();
    let expected: Vec<OpIx> = (0..300_000u32).rev().collect();
    assert_eq!(series_parallel::sp_order(&g).unwrap(), expected);
    for (name, order) in auto::fallback_candidates(&g) {
        assert_eq!(order, expected, "{name}");
    }
    let better = local_search::improve(&g, &expected, &budget(1_000));
    assert_eq!(better, expected);
}
