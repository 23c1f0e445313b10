//! Property tests for the heuristic orderers (sp, spize, local, inductor, xla and their parts):
//! on thousands of small random graphs every order is a valid order, the peak `plan` reports is
//! the simulator's, and it is never below the lower bound nor below the brute-force optimum.

use peakorder::format::{GraphSpec, OpSpec, TensorSpec, FORMAT};
use peakorder::generators::{self, Rng};
use peakorder::order::{auto, inductor, local_search, series_parallel, spize, xla};
use peakorder::{
    lower_bound, peak_of, plan, simulate, Budget, Graph, Method, NoClock, OpIx, PlanOptions,
};
use proptest::prelude::*;

/// A small random graph exercising the whole memory model: donated and kept inputs, ops with
/// several outputs, outputs nobody reads, views, workspace, graph outputs that are inputs.
fn random_graph(seed: u64, n_ops: usize) -> GraphSpec {
    let mut rng = Rng::new(seed);
    let mut tensors: Vec<TensorSpec> = Vec::new();
    let mut ops: Vec<OpSpec> = Vec::new();
    let n_in = rng.range(1, 3) as usize;
    for i in 0..n_in {
        tensors.push(TensorSpec {
            id: format!("in{i}"),
            bytes: Some(rng.range(0, 64)),
            donated: rng.chance(0.5).then_some(true),
            ..Default::default()
        });
    }
    for k in 0..n_ops {
        let mut inputs = Vec::new();
        for _ in 0..rng.range(0, 3) {
            let t = tensors[rng.range(0, tensors.len() as u64 - 1) as usize]
                .id
                .clone();
            inputs.push(t);
        }
        let mut outputs = Vec::new();
        // Some ops write nothing (side effects only), most write one or two tensors.
        let n_out = if rng.chance(0.1) { 0 } else { rng.range(1, 2) };
        for o in 0..n_out {
            let id = format!("t{k}_{o}");
            let view = !inputs.is_empty() && rng.chance(0.15);
            tensors.push(if view {
                TensorSpec {
                    id: id.clone(),
                    alias_of: Some(inputs[0].clone()),
                    ..Default::default()
                }
            } else {
                TensorSpec {
                    id: id.clone(),
                    bytes: Some(rng.range(0, 100)),
                    ..Default::default()
                }
            });
            outputs.push(id);
        }
        ops.push(OpSpec {
            id: format!("op{k}"),
            inputs,
            outputs,
            workspace: rng.chance(0.3).then(|| rng.range(0, 50)),
            ..Default::default()
        });
    }
    let mut outputs = Vec::new();
    for t in &tensors {
        if rng.chance(0.2) {
            outputs.push(t.id.clone());
        }
    }
    // Shuffle the file order a little so that the program order is not always topological.
    if rng.chance(0.3) && ops.len() > 1 {
        let a = rng.range(0, ops.len() as u64 - 1) as usize;
        let b = rng.range(0, ops.len() as u64 - 1) as usize;
        ops.swap(a, b);
    }
    GraphSpec {
        format: Some(FORMAT.into()),
        tensors,
        ops,
        outputs,
        meta: None,
    }
}

/// The optimal peak, by trying every topological order (small graphs only).
fn brute_force(g: &Graph) -> u64 {
    let n = g.num_ops();
    let mut best = u64::MAX;
    let mut order: Vec<OpIx> = Vec::with_capacity(n);
    let mut done = vec![false; n];
    // Iterative enumeration: stack of the next candidate to try at each depth.
    let mut next = vec![0u32; n + 1];
    loop {
        let d = order.len();
        if d == n {
            best = best.min(peak_of(g, &order));
        }
        let mut advanced = false;
        if d < n {
            while (next[d] as usize) < n {
                let v = next[d];
                next[d] += 1;
                if !done[v as usize] && g.preds(v).iter().all(|&p| done[p as usize]) {
                    done[v as usize] = true;
                    order.push(v);
                    next[d + 1] = 0;
                    advanced = true;
                    break;
                }
            }
        }
        if !advanced {
            match order.pop() {
                Some(v) => done[v as usize] = false,
                None => break,
            }
        }
    }
    best
}

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

fn check_all(g: &Graph) -> Result<(), TestCaseError> {
    let lb = lower_bound(g);
    let opt = if g.num_ops() <= 7 {
        Some(brute_force(g))
    } else {
        None
    };
    let parts: Vec<(&str, Vec<OpIx>)> = vec![
        ("lpmf", inductor::lpmf_order(g)),
        ("inductor_bfs", inductor::bfs_order(g)),
        ("inductor_dfs", inductor::dfs_order(g)),
        ("xla_list", xla::list_order(g)),
        ("xla_dfs", xla::dfs_order(g)),
        ("xla_post", xla::post_order(g)),
        ("spize", spize::spize_order(g)),
    ];
    for (name, order) in &parts {
        prop_assert!(g.check_order(order).is_ok(), "{name}: invalid order");
        let p = peak_of(g, order);
        prop_assert!(p >= lb, "{name}: peak {p} below the lower bound {lb}");
        if let Some(o) = opt {
            prop_assert!(p >= o, "{name}: peak {p} below the optimum {o}");
        }
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
                prop_assert!(p.peak_bytes >= lb, "{}: below the lower bound", m);
                if let Some(o) = opt {
                    prop_assert!(p.peak_bytes >= o, "{}: below the optimum", m);
                    // `optimal` is claimed only when the bound proves it.
                    if p.optimal {
                        prop_assert_eq!(p.peak_bytes, o, "{}: claims optimal", m);
                    }
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
    for (name, order) in &parts {
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
    fn heuristics_valid_on_small_random_graphs(seed in any::<u64>(), n in 0usize..9) {
        let spec = random_graph(seed, n);
        // Random specs may be invalid (a view of a later-produced tensor is fine, a cycle is
        // not possible, but alias rules can reject some): only valid graphs are planned.
        if let Ok(g) = Graph::from_spec(spec) {
            check_all(&g)?;
        }
    }

    #[test]
    fn sp_recognises_fork_join_graphs(seed in any::<u64>(), n in 1usize..60) {
        let g = Graph::from_spec(generators::random_sp(seed, n)).unwrap();
        let order = series_parallel::sp_order(&g).expect("random_sp is series-parallel");
        prop_assert!(g.check_order(&order).is_ok());
        prop_assert_eq!(order, spize::spize_order(&g));
    }

    #[test]
    fn heuristics_valid_on_random_layered(seed in any::<u64>(), layers in 1usize..6, width in 1usize..6) {
        let g = Graph::from_spec(generators::random_layered(seed, layers, width)).unwrap();
        check_all(&g)?;
    }
}

proptest! {
    // Fewer cases: each graph is larger than the local search's window (so window edges and
    // block moves are exercised) and costs tens of milliseconds.
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn heuristics_valid_on_medium_random_graphs(seed in any::<u64>(), n in 40usize..160) {
        if let Ok(g) = Graph::from_spec(random_graph(seed, n)) {
            check_all(&g)?;
        }
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

#[test]
fn random_graphs_are_mostly_valid() {
    // The generator must exercise the planners: most of its specs have to be valid graphs.
    let valid = (0..1000u64)
        .filter(|&s| Graph::from_spec(random_graph(s, 8)).is_ok())
        .count();
    assert!(valid > 700, "only {valid} of 1000 random graphs are valid");
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
