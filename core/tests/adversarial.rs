//! Huge and deep graphs: nothing recursive may overflow the stack, nothing may go quadratic.
//! (Speed is measured by benchmarks; these only check that the work completes and is right.)

mod big_graphs;

use big_graphs::{chain, op, spec, t};
use peakorder::format::TensorSpec;
use peakorder::order::greedy::greedy_order;
use peakorder::{lower_bound, peak_of, simulate, Graph};

#[test]
fn million_op_chain() {
    let g = chain(1_000_000);
    let order = greedy_order(&g);
    // Input pinned (8) + one intermediate + the output being written.
    assert_eq!(simulate(&g, &order).unwrap().peak_bytes, 24);
    assert_eq!(lower_bound(&g), 24);
}

#[test]
fn million_op_in_tree() {
    // A binary in-tree: leaf ops read one input each; inner ops join two children.
    let leaves = 1 << 19;
    let mut tensors = vec![t("x".into(), 1)];
    let mut ops = Vec::new();
    let mut level: Vec<String> = Vec::new();
    for i in 0..leaves {
        let out = format!("l{i}");
        tensors.push(t(out.clone(), 2));
        ops.push(op(format!("leaf{i}"), vec!["x".into()], vec![out.clone()]));
        level.push(out);
    }
    let mut k = 0;
    while level.len() > 1 {
        let mut next = Vec::new();
        for pair in level.chunks(2) {
            let out = format!("n{k}");
            k += 1;
            tensors.push(t(out.clone(), 2));
            ops.push(op(format!("join{k}"), pair.to_vec(), vec![out.clone()]));
            next.push(out);
        }
        level = next;
    }
    let root = level.pop().unwrap();
    let g = Graph::from_spec(spec(tensors, ops, vec![root])).unwrap();
    assert!(g.num_ops() > 1_000_000);
    assert!(g.is_in_forest());
    let order = greedy_order(&g);
    let peak = simulate(&g, &order).unwrap().peak_bytes;
    assert!(peak >= lower_bound(&g));
    // Depth-first evaluation keeps about one pending value per level (20 levels).
    assert!(peak <= 1 + 2 * 2 * 21, "greedy peak {peak}");
}

#[test]
fn hundred_thousand_way_fan_out_and_fan_in() {
    let n = 100_000;
    let mut tensors = vec![t("x".into(), 1), t("y".into(), 1)];
    let mut ops = Vec::new();
    let mut mids = Vec::new();
    for i in 0..n {
        let m = format!("m{i}");
        tensors.push(t(m.clone(), 1));
        ops.push(op(format!("f{i}"), vec!["x".into()], vec![m.clone()]));
        mids.push(m);
    }
    ops.push(op("join".into(), mids, vec!["y".into()]));
    let g = Graph::from_spec(spec(tensors, ops, vec!["y".into()])).unwrap();
    let order = greedy_order(&g);
    // Every branch's output must be live when the join runs.
    assert_eq!(peak_of(&g, &order), 1 + n as u64 + 1);
    assert_eq!(lower_bound(&g), 1 + n as u64 + 1);
}

#[test]
fn alias_chain_hundred_thousand_deep() {
    let n = 100_000;
    let mut tensors = vec![t("base".into(), 64)];
    for i in 0..n {
        let target = if i == 0 {
            "base".to_string()
        } else {
            format!("v{}", i - 1)
        };
        tensors.push(TensorSpec {
            id: format!("v{i}"),
            alias_of: Some(target),
            ..Default::default()
        });
    }
    tensors.push(t("out".into(), 1));
    let ops = vec![op(
        "read".into(),
        vec![format!("v{}", n - 1)],
        vec!["out".into()],
    )];
    let g = Graph::from_spec(spec(tensors, ops, vec!["out".into()])).unwrap();
    assert_eq!(g.tensors()[n].root, 0);
    assert_eq!(simulate(&g, &[0]).unwrap().peak_bytes, 65);

    // And a 100,000-long alias loop is reported, not followed forever.
    let mut looped: Vec<TensorSpec> = (0..n)
        .map(|i| TensorSpec {
            id: format!("v{i}"),
            alias_of: Some(format!("v{}", (i + 1) % n)),
            ..Default::default()
        })
        .collect();
    looped.push(t("x".into(), 1));
    let err = Graph::from_spec(spec(looped, vec![], vec![])).unwrap_err();
    assert_eq!(err.code(), "alias_cycle");
    assert!(err.to_string().len() < 400);
}

#[test]
fn long_cycle_is_named_without_recursion() {
    let n = 200_000;
    let tensors = (0..n).map(|i| t(format!("t{i}"), 1)).collect();
    let ops = (0..n)
        .map(|i| {
            op(
                format!("op{i}"),
                vec![format!("t{i}")],
                vec![format!("t{}", (i + 1) % n)],
            )
        })
        .collect();
    let err = Graph::from_spec(spec(tensors, ops, vec![])).unwrap_err();
    assert_eq!(err.code(), "cycle");
    assert!(
        err.to_string().contains(&format!("({} in all)", n + 1)),
        "{err}"
    );
}
