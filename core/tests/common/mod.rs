//! Test helpers shared by the core's integration tests: fixture loading, a brute-force optimum,
//! and a random graph generator for property tests.
#![allow(dead_code)]

use std::path::PathBuf;

use peakorder::format::{GraphSpec, OpSpec, TensorSpec};
use peakorder::{peak_of, Graph, OpIx};
use proptest::prelude::*;

/// `tests/cases` at the repository root.
pub fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cases")
}

/// Every valid fixture: (file name, JSON text).
pub fn valid_cases() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(cases_dir())
        .expect("tests/cases exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// The fixture's `meta.expect.<key>` value.
pub fn expect(g: &Graph, key: &str) -> Option<u64> {
    g.meta()?.get("expect")?.get(key)?.as_u64()
}

/// Minimum peak over all topological orders, by exhaustive enumeration (small graphs only).
pub fn brute_force_optimum(g: &Graph) -> u64 {
    assert!(g.num_ops() <= 11, "brute force is for small graphs");
    let mut best = u64::MAX;
    for_each_order(g, &mut |order| best = best.min(peak_of(g, order)));
    best
}

/// Every topological order (small graphs only).
pub fn all_orders(g: &Graph) -> Vec<Vec<OpIx>> {
    let mut out = Vec::new();
    for_each_order(g, &mut |order| out.push(order.to_vec()));
    out
}

/// Calls `visit` with every topological order of `g` (depth is the op count: small graphs only).
pub fn for_each_order(g: &Graph, visit: &mut dyn FnMut(&[OpIx])) {
    fn rec(
        g: &Graph,
        order: &mut Vec<OpIx>,
        missing: &mut [usize],
        used: &mut [bool],
        visit: &mut dyn FnMut(&[OpIx]),
    ) {
        if order.len() == g.num_ops() {
            visit(order);
            return;
        }
        for v in 0..g.num_ops() {
            if used[v] || missing[v] != 0 {
                continue;
            }
            used[v] = true;
            order.push(v as OpIx);
            for &w in g.succs(v as OpIx) {
                missing[w as usize] -= 1;
            }
            rec(g, order, missing, used, visit);
            for &w in g.succs(v as OpIx) {
                missing[w as usize] += 1;
            }
            order.pop();
            used[v] = false;
        }
    }
    let mut missing: Vec<usize> = (0..g.num_ops() as OpIx).map(|v| g.preds(v).len()).collect();
    let mut used = vec![false; g.num_ops()];
    rec(g, &mut Vec::new(), &mut missing, &mut used, visit);
}

/// One random op: (input picks, output sizes, workspace, view flags); picks index earlier tensors.
pub type RandomOp = (Vec<usize>, Vec<u64>, u64, Vec<bool>);

/// Shape of a random graph, drawn by proptest; [`RandomGraph::build`] turns it into a spec.
#[derive(Clone, Debug)]
pub struct RandomGraph {
    pub inputs: Vec<(u64, bool)>,
    pub ops: Vec<RandomOp>,
    pub output_picks: Vec<usize>,
    /// A permutation seed for the program order (program order may be non-topological).
    pub shuffle: Vec<usize>,
}

impl RandomGraph {
    /// Builds a valid spec: op i reads tensors made earlier, so the graph is acyclic. A view
    /// output aliases one of the op's own inputs (the natural case: transpose, reshape...).
    pub fn build(&self) -> GraphSpec {
        let mut tensors: Vec<TensorSpec> = Vec::new();
        for (i, &(b, donated)) in self.inputs.iter().enumerate() {
            tensors.push(TensorSpec {
                id: format!("in{i}"),
                bytes: Some(b),
                donated: donated.then_some(true),
                ..Default::default()
            });
        }
        let mut ops = Vec::new();
        for (k, (picks, outs, ws, views)) in self.ops.iter().enumerate() {
            let avail = tensors.len();
            let mut inputs: Vec<String> = picks
                .iter()
                .map(|&p| tensors[p % avail].id.clone())
                .collect();
            if inputs.is_empty() && avail > 0 {
                inputs.push(tensors[k % avail].id.clone());
            }
            let mut outputs = Vec::new();
            for (j, &b) in outs.iter().enumerate() {
                let id = format!("t{k}_{j}");
                let view = views.get(j).copied().unwrap_or(false) && !inputs.is_empty();
                if view {
                    tensors.push(TensorSpec {
                        id: id.clone(),
                        alias_of: Some(inputs[j % inputs.len()].clone()),
                        ..Default::default()
                    });
                } else {
                    tensors.push(TensorSpec {
                        id: id.clone(),
                        bytes: Some(b),
                        ..Default::default()
                    });
                }
                outputs.push(id);
            }
            ops.push(OpSpec {
                id: format!("op{k}"),
                kind: Some("f".into()),
                inputs,
                outputs,
                workspace: (*ws > 0).then_some(*ws),
                ..Default::default()
            });
        }
        // Program order: a shuffle of the build order (often not topological).
        let mut idx: Vec<usize> = (0..ops.len()).collect();
        for (i, &s) in self.shuffle.iter().enumerate() {
            if idx.len() > 1 {
                let a = i % idx.len();
                let b = s % idx.len();
                idx.swap(a, b);
            }
        }
        let ops: Vec<OpSpec> = idx.into_iter().map(|i| ops[i].clone()).collect();
        let outputs = self
            .output_picks
            .iter()
            .filter(|_| !tensors.is_empty())
            .map(|&p| tensors[p % tensors.len()].id.clone())
            .collect();
        GraphSpec {
            format: None,
            tensors,
            ops,
            outputs,
            meta: None,
        }
    }
}

/// Random graphs with up to `max_ops` ops: shared inputs, multi-output ops, repeated inputs,
/// views, workspace, donated inputs, dead outputs, graph outputs anywhere.
pub fn random_graph(max_ops: usize) -> impl Strategy<Value = RandomGraph> {
    let size = prop_oneof![Just(0u64), 1u64..8, 1u64..200];
    let inputs = prop::collection::vec((size.clone(), any::<bool>()), 1..4);
    let op = (
        prop::collection::vec(0usize..64, 0..4),
        prop::collection::vec(size, 0..3),
        prop_oneof![3 => Just(0u64), 1 => 1u64..100],
        prop::collection::vec(prop::bool::weighted(0.2), 0..3),
    );
    let ops = prop::collection::vec(op, 0..=max_ops);
    (
        inputs,
        ops,
        prop::collection::vec(0usize..64, 0..3),
        prop::collection::vec(0usize..64, 0..4),
    )
        .prop_map(|(inputs, ops, output_picks, shuffle)| RandomGraph {
            inputs,
            ops,
            output_picks,
            shuffle,
        })
}
