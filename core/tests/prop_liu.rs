//! Liu's algorithm against the referee (the least peak over all topological orders).

mod common;

use common::{graph, graphs};
use peakorder::generators::small::Family;
use peakorder::order::liu::{applies, liu_order};
use peakorder::referee::least_peak;
use peakorder::simulate::simulate;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Every generated in-forest qualifies, and Liu's peak is the optimum.
    #[test]
    fn liu_is_optimal_on_in_forests(c in graph(Family::InForest, 1..=10)) {
        let g = &c.graph;
        prop_assert!(applies(g));
        let order = liu_order(g).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let sim = simulate(g, &order).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(sim.peak_bytes, least_peak(g));
    }

    /// On any graph Liu either refuses with `not_applicable` or is optimal.
    #[test]
    fn liu_is_optimal_or_refuses(c in graphs(Family::ALL, 1..=10)) {
        let g = &c.graph;
        match liu_order(g) {
            Ok(order) => {
                prop_assert!(applies(g));
                let sim = simulate(g, &order).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(sim.peak_bytes, least_peak(g));
            }
            Err(e) => {
                prop_assert!(!applies(g));
                prop_assert_eq!(e.code(), "not_applicable");
            }
        }
    }
}

/// A deep chain (and a deep caterpillar) must not overflow the stack: everything is iterative.
#[test]
fn deep_in_trees_do_not_recurse() {
    use peakorder::format::{GraphSpec, OpSpec, TensorSpec};
    use peakorder::{plan, Graph, Method, NoClock, PlanOptions};
    let n = 200_000;
    let mut tensors = vec![TensorSpec {
        id: "t0".into(),
        bytes: Some(1),
        ..Default::default()
    }];
    let mut ops = Vec::new();
    for i in 0..n {
        tensors.push(TensorSpec {
            id: format!("t{}", i + 1),
            bytes: Some(1 + (i % 7) as u64),
            ..Default::default()
        });
        ops.push(OpSpec {
            id: format!("o{i}"),
            inputs: vec![format!("t{i}")],
            outputs: vec![format!("t{}", i + 1)],
            ..Default::default()
        });
    }
    let g = Graph::from_spec(GraphSpec {
        format: None,
        tensors,
        ops,
        outputs: vec![format!("t{n}")],
        meta: None,
    })
    .unwrap();
    let order = liu_order(&g).unwrap();
    g.check_order(&order).unwrap();
    let opts = PlanOptions {
        method: Method::Auto,
        budget_ms: None,
        max_states: 1000,
        ..PlanOptions::default()
    };
    let p = plan(&g, &opts, &NoClock).unwrap();
    assert!(p.optimal);
}
