//! The adversarial graphs of `adversarial.rs`, through every planner (`peakorder::plan` with each
//! `Method`) under a small budget: nothing may overflow the stack, hang or go quadratic, and every
//! plan must keep the invariants (a complete topological order whose simulated peak is the
//! reported one, at or above the lower bound). Speed is measured in docs/limits.md, not here; the
//! sizes are the (1,000,000-op chain and in-tree, 100,000-way fan-out and fan-in, alias
//! chains 100,000 deep) for every method except the super-linear ones noted in `size_for`.

use std::time::Instant;

mod big_graphs;

use big_graphs::{chain, op, spec, t};
use peakorder::format::TensorSpec;
use peakorder::{lower_bound, plan, simulate, Clock, Graph, Method, PlanOptions};

/// Wall-clock time for deadlines: the core has no clock of its own.
struct StdClock(Instant);

impl Clock for StdClock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1e3
    }
}

/// A binary in-tree with `leaves` leaf ops (2 × leaves − 1 ops in all), sizes varying so that
/// the orders differ.
fn in_tree(leaves: usize) -> Graph {
    let mut tensors = vec![t("x".into(), 1)];
    let mut ops = Vec::new();
    let mut level: Vec<String> = Vec::new();
    for i in 0..leaves {
        let out = format!("l{i}");
        tensors.push(t(out.clone(), 2 + (i as u64 * 7919) % 13));
        ops.push(op(format!("leaf{i}"), vec!["x".into()], vec![out.clone()]));
        level.push(out);
    }
    let mut k = 0;
    while level.len() > 1 {
        let mut next = Vec::new();
        for pair in level.chunks(2) {
            let out = format!("n{k}");
            tensors.push(t(out.clone(), 1 + (k as u64 * 104_729) % 17));
            k += 1;
            ops.push(op(format!("join{k}"), pair.to_vec(), vec![out.clone()]));
            next.push(out);
        }
        level = next;
    }
    let root = level.pop().unwrap();
    Graph::from_spec(spec(tensors, ops, vec![root])).unwrap()
}

/// `n` branches reading one input, joined by one op.
fn fan_out_in(n: usize) -> Graph {
    let mut tensors = vec![t("x".into(), 1), t("y".into(), 1)];
    let mut ops = Vec::new();
    let mut mids = Vec::new();
    for i in 0..n {
        let m = format!("m{i}");
        tensors.push(t(m.clone(), 1 + (i as u64 % 5)));
        ops.push(op(format!("f{i}"), vec!["x".into()], vec![m.clone()]));
        mids.push(m);
    }
    ops.push(op("join".into(), mids, vec!["y".into()]));
    Graph::from_spec(spec(tensors, ops, vec!["y".into()])).unwrap()
}

/// An op writes `base`; a chain of `n` in-place ops each makes a view of the previous view
/// (an alias chain `n` deep); `n / 1000` more ops read views along the chain.
fn alias_chain(n: usize) -> Graph {
    let mut tensors = vec![t("x".into(), 1), t("base".into(), 64)];
    let mut ops = vec![op("make".into(), vec!["x".into()], vec!["base".into()])];
    for i in 0..n {
        let target = if i == 0 {
            "base".to_string()
        } else {
            format!("v{}", i - 1)
        };
        tensors.push(TensorSpec {
            id: format!("v{i}"),
            alias_of: Some(target.clone()),
            ..Default::default()
        });
        ops.push(op(format!("view{i}"), vec![target], vec![format!("v{i}")]));
    }
    let mut outs = vec![format!("v{}", n - 1)];
    for r in 0..(n / 1000).max(1) {
        let o = format!("o{r}");
        tensors.push(t(o.clone(), 1 + r as u64 % 3));
        ops.push(op(
            format!("read{r}"),
            vec![format!("v{}", (r * 997) % n)],
            vec![o.clone()],
        ));
        outs.push(o);
    }
    Graph::from_spec(spec(tensors, ops, outs)).unwrap()
}

/// Plans `g` with every method under a small budget and checks each plan from outside.
/// `skip` names methods left out at this size (see docs/limits.md); `must_apply` those that may
/// not refuse the graph.
fn every_planner(name: &str, g: &Graph, skip: &[Method], must_apply: &[Method]) {
    let bound = lower_bound(g);
    for &method in Method::ALL {
        if skip.contains(&method) {
            continue;
        }
        let opts = PlanOptions {
            method,
            budget_ms: Some(50.0),
            max_states: 10_000,
            ..PlanOptions::default()
        };
        let start = Instant::now();
        let clock = StdClock(Instant::now());
        let r = plan(g, &opts, &clock);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        match r {
            Ok(p) => {
                assert_eq!(p.order.len(), g.num_ops(), "{name}/{method}");
                let sim =
                    simulate(g, &p.order_ix).unwrap_or_else(|e| panic!("{name}/{method}: {e}"));
                assert_eq!(sim.peak_bytes, p.peak_bytes, "{name}/{method}");
                assert!(p.peak_bytes >= bound, "{name}/{method}");
                assert!(p.lower_bound_bytes <= p.peak_bytes, "{name}/{method}");
                eprintln!("{name:<14} {method:<9} {ms:>9.1} ms  peak {}", p.peak_bytes);
            }
            Err(e) => {
                assert!(!must_apply.contains(&method), "{name}/{method}: {e}");
                assert_eq!(e.code(), "not_applicable", "{name}/{method}: {e}");
                eprintln!("{name:<14} {method:<9} {ms:>9.1} ms  refused: {}", e.code());
            }
        }
    }
}

#[test]
fn million_op_chain_through_every_planner() {
    let g = chain(1_000_000);
    every_planner("chain-1M", &g, &[], Method::ALL);
}

#[test]
fn million_op_in_tree_through_every_planner() {
    let g = in_tree(1 << 19);
    assert!(g.num_ops() > 1_000_000 && g.is_in_forest());
    every_planner(
        "in-tree-1M",
        &g,
        &[],
        &[Method::Liu, Method::Auto, Method::Sp],
    );
}

#[test]
fn hundred_thousand_way_fan_out_and_fan_in_through_every_planner() {
    let g = fan_out_in(100_000);
    every_planner("fan-100k", &g, &[], Method::ALL);
}

#[test]
fn hundred_thousand_deep_alias_chain_through_every_planner() {
    let g = alias_chain(100_000);
    every_planner("alias-100k", &g, &[], &[]);
}
