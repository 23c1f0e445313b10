//! Built-in example graphs: the seed reports' ten parallel paths
//! (`relu → matmul(t, t) → relu → matmul(t, a)`, 256×256 f32), in either program order.
//!
//! nvFuser ran it breadth-first (every first relu, then every first matmul, ...): 5.5 MiB peak,
//! 2.75 MiB above the 2.75 MiB of inputs. Eager PyTorch runs it path by path: 3.5 MiB, 0.75 MiB
//! above inputs, which is optimal. Graph inputs are owned by the caller (not donated).

use serde_json::{Map, Value};

use crate::format::{GraphSpec, OpSpec, TensorSpec, FORMAT};

/// The order in which the seed program lists its ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedOrder {
    /// As nvFuser ran it: all first relus, all first matmuls, all second relus, all second matmuls.
    BreadthFirst,
    /// As eager PyTorch runs it: one path after another.
    PathByPath,
}

/// Options for [`seed_graph`].
#[derive(Clone, Copy, Debug)]
pub struct SeedOptions {
    /// Independent relu → matmul → relu → matmul paths (ten in the report).
    pub paths: usize,
    /// The program order the file lists.
    pub order: SeedOrder,
    /// Tag the relus `fusible: "nvfuser"` as Thunder does (matmuls are not fusible).
    pub fusible_tags: bool,
}

impl Default for SeedOptions {
    fn default() -> Self {
        SeedOptions {
            paths: 10,
            order: SeedOrder::BreadthFirst,
            fusible_tags: true,
        }
    }
}

fn f32_256(id: String) -> TensorSpec {
    TensorSpec {
        id,
        shape: Some(vec![256, 256]),
        dtype: Some("f32".into()),
        ..Default::default()
    }
}

fn op(id: String, kind: &str, inputs: Vec<String>, output: String, fusible: bool) -> OpSpec {
    OpSpec {
        id,
        kind: Some(kind.into()),
        inputs,
        outputs: vec![output],
        fusible: fusible.then(|| "nvfuser".to_string()),
        ..Default::default()
    }
}

/// The seed graph of `../shared/seeds/nvfuser-parallel-paths-order.md`.
pub fn seed_graph(opts: SeedOptions) -> GraphSpec {
    let n = opts.paths;
    let mut tensors: Vec<TensorSpec> = (0..n).map(|i| f32_256(format!("t0_{i}"))).collect();
    tensors.push(f32_256("a0".into()));
    // stages[s][i]: op s of path i.
    let mut stages: Vec<Vec<OpSpec>> = vec![Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let tag = opts.fusible_tags;
    for i in 0..n {
        let (t1, t2, t3, a_in, a_out) = (
            format!("t1_{i}"),
            format!("t2_{i}"),
            format!("t3_{i}"),
            format!("a{i}"),
            format!("a{}", i + 1),
        );
        for t in [&t1, &t2, &t3, &a_out] {
            tensors.push(f32_256(t.clone()));
        }
        stages[0].push(op(
            format!("relu1_{i}"),
            "relu",
            vec![format!("t0_{i}")],
            t1.clone(),
            tag,
        ));
        stages[1].push(op(
            format!("mm1_{i}"),
            "matmul",
            vec![t1.clone(), t1],
            t2.clone(),
            false,
        ));
        stages[2].push(op(format!("relu2_{i}"), "relu", vec![t2], t3.clone(), tag));
        stages[3].push(op(
            format!("mm2_{i}"),
            "matmul",
            vec![t3, a_in],
            a_out,
            false,
        ));
    }
    let ops = match opts.order {
        SeedOrder::BreadthFirst => stages.into_iter().flatten().collect(),
        SeedOrder::PathByPath => {
            let mut iters: Vec<_> = stages.into_iter().map(|s| s.into_iter()).collect();
            let mut ops = Vec::with_capacity(4 * n);
            for _ in 0..n {
                for it in iters.iter_mut() {
                    ops.extend(it.next());
                }
            }
            ops
        }
    };
    let mut meta = Map::new();
    meta.insert(
        "source".into(),
        Value::String(
            "nvFuser issue: memory inefficient order with multiple parallel paths".into(),
        ),
    );
    GraphSpec {
        format: Some(FORMAT.into()),
        tensors,
        ops,
        outputs: vec![format!("a{n}")],
        meta: Some(meta),
    }
}
