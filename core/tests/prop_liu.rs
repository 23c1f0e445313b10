//! Liu's algorithm against brute force over all topological orders.

mod order_gen;

use order_gen::{brute_force, dag, in_forest, series_parallel, Rng};
use peakorder::order::liu::{applies, liu_order};
use peakorder::simulate::simulate;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Every generated in-forest qualifies, and Liu's peak is the brute-force optimum.
    #[test]
    fn liu_is_optimal_on_in_forests(seed in any::<u64>(), n in 1usize..=10) {
        let mut r = Rng::new(seed);
        let g = in_forest(&mut r, n);
        let order = liu_order(&g).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let sim = simulate(&g, &order).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(sim.peak_bytes, brute_force(&g));
    }

    /// On other graphs Liu either refuses with `not_applicable` or is optimal.
    #[test]
    fn liu_is_optimal_or_refuses(seed in any::<u64>(), n in 1usize..=10, sp in any::<bool>()) {
        let mut r = Rng::new(seed);
        let g = if sp { series_parallel(&mut r, n) } else { dag(&mut r, n) };
        match liu_order(&g) {
            Ok(order) => {
                prop_assert!(applies(&g));
                let sim = simulate(&g, &order).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(sim.peak_bytes, brute_force(&g));
            }
            Err(e) => {
                prop_assert!(!applies(&g));
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
