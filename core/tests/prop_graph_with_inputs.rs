//! `Graph::with_inputs` (the join-free bound's copy of a graph, storages made donated inputs)
//! against the copy it replaced: a spec of the same graph, those storages' producers dropped,
//! validated again by `Graph::from_spec`. Every part of the two must agree: tensors, ops,
//! outputs, adjacency and the whole memory model.

mod common;

use common::{any_graph, seeded_graph};

use peakorder::format::{GraphSpec, OpSpec, TensorSpec};
use peakorder::Graph;
use proptest::prelude::*;

/// The referee: the copy through a spec (the join-free bound's code before `with_inputs`).
fn through_spec(g: &Graph, storages: &[u32]) -> Graph {
    let mut detach = vec![false; g.num_tensors()];
    for &s in storages {
        detach[s as usize] = g.tensors()[s as usize].alias_of.is_none();
    }
    let ts = g.tensors();
    let id = |t: u32| ts[t as usize].id.clone();
    let spec = GraphSpec {
        format: None,
        tensors: ts
            .iter()
            .enumerate()
            .map(|(i, t)| TensorSpec {
                id: t.id.clone(),
                bytes: t.alias_of.is_none().then_some(t.bytes),
                shape: None,
                dtype: None,
                alias_of: t.alias_of.map(id),
                donated: (t.alias_of.is_none() && (t.producer.is_none() || detach[i]))
                    .then_some(t.donated || detach[i]),
                meta: None,
            })
            .collect(),
        ops: g
            .ops()
            .iter()
            .map(|o| OpSpec {
                id: o.id.clone(),
                kind: None,
                inputs: o.inputs.iter().map(|&t| id(t)).collect(),
                outputs: o
                    .outputs
                    .iter()
                    .filter(|&&t| !detach[t as usize])
                    .map(|&t| id(t))
                    .collect(),
                workspace: (o.workspace > 0).then_some(o.workspace),
                fusible: None,
                attrs: None,
                cost: None,
                recompute: None,
                meta: None,
            })
            .collect(),
        outputs: g.outputs().iter().map(|&t| id(t)).collect(),
        meta: None,
    };
    Graph::from_spec(spec).expect("a graph with producers dropped validates")
}

fn same(a: &Graph, b: &Graph) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.tensors(), b.tensors());
    prop_assert_eq!(a.ops(), b.ops());
    prop_assert_eq!(a.outputs(), b.outputs());
    prop_assert_eq!(a.meta(), b.meta());
    prop_assert_eq!(a.program_is_topological(), b.program_is_topological());
    prop_assert_eq!(a.inputs_bytes(), b.inputs_bytes());
    for v in 0..a.num_ops() as u32 {
        prop_assert_eq!(a.preds(v), b.preds(v));
        prop_assert_eq!(a.succs(v), b.succs(v));
        prop_assert_eq!(a.reads(v), b.reads(v));
        prop_assert_eq!(a.creates(v), b.creates(v));
        prop_assert_eq!(a.alloc(v), b.alloc(v));
        prop_assert_eq!(a.workspace(v), b.workspace(v));
        let op = &a.ops()[v as usize].id;
        prop_assert_eq!(a.op_ix(op), b.op_ix(op));
    }
    for t in 0..a.num_tensors() as u32 {
        prop_assert_eq!(a.size(t), b.size(t));
        prop_assert_eq!(a.users(t), b.users(t));
        prop_assert_eq!(a.pinned(t), b.pinned(t));
        let id = &a.tensors()[t as usize].id;
        prop_assert_eq!(a.tensor_ix(id), b.tensor_ix(id));
    }
    Ok(())
}

/// Storages picked by the bits of `pick` (views among them too: ignored by both).
fn picked(g: &Graph, pick: u64) -> Vec<u32> {
    (0..g.num_tensors() as u32)
        .filter(|&t| pick >> (t % 64) & 1 == 1)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Graphs from tapes (they shrink): views, donated inputs, dead outputs, workspace.
    #[test]
    fn with_inputs_is_the_validated_copy(c in any_graph(1..=12), pick in any::<u64>()) {
        let storages = picked(&c.graph, pick);
        let got = c.graph.with_inputs(&storages).expect("sizes cannot overflow");
        same(&got, &through_spec(&c.graph, &storages))?;
    }

    /// Graphs from the seeded generators.
    #[test]
    fn with_inputs_is_the_validated_copy_on_generated_graphs(
        kind in 0u8..8, seed in any::<u64>(), n in 1usize..=12, pick in any::<u64>()
    ) {
        let g = seeded_graph(kind, seed, n);
        let storages = picked(&g, pick);
        let got = g.with_inputs(&storages).expect("sizes cannot overflow");
        same(&got, &through_spec(&g, &storages))?;
    }
}
