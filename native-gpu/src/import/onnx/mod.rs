//! ONNX model → graph JSON (docs/design.md §2), in four phases, each a module with one job:
//!
//! 1. `decode`: bytes → protobuf messages (`proto`); the model has a graph and declares the
//!    domains its nodes use.
//! 2. `resolve`: every value gets a place in the tensor order, and what the file says about it
//!    (graph inputs and outputs, `value_info`, initializers, `Constant` values) is collected, with
//!    `--assume-dim` values applied; small initializers are read for folding (`tensor_data`).
//! 3. `infer`: shape and type inference for the operators real models use, with constant folding
//!    of shape computations; the file's shapes win, and contradict it only as an error.
//! 4. `build`: ops and sized tensors; initializers (weights) are graph inputs that are never freed.
//!    A tensor still without a size is an error naming it, the node that could not be inferred,
//!    and the fix (`--assume-dim`, or running ONNX's shape inference first).
//!
//! A node with subgraphs (If, Loop, Scan) is one op (`subgraph`); ops carry `meta.scope` from the
//! exporter's module path (`scope`). Errors are `Error`, one line each, naming the node or tensor.

mod attrs;
mod build;
mod decode;
pub mod dtype;
mod error;
pub mod infer;
pub mod proto;
mod resolve;
mod scope;
mod subgraph;
mod tensor_data;

use std::collections::BTreeMap;

use peakorder::format::GraphSpec;

pub use error::{Cause, Error, NoShape, Problem, Whose, INFER_SHAPES_CMD};

/// How to import.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Values for symbolic dimensions (`--assume-dim NAME=VALUE`).
    pub assume_dims: BTreeMap<String, u64>,
}

/// Reads an ONNX model and returns the graph.
pub fn import(bytes: &[u8], opts: &Options) -> Result<GraphSpec, Error> {
    import_bytes(bytes::Bytes::copy_from_slice(bytes), opts)
}

/// As `import`, without copying the model: weight data stays in `bytes`, never decoded.
pub fn import_bytes(bytes: bytes::Bytes, opts: &Options) -> Result<GraphSpec, Error> {
    let decoded = decode::decode(bytes)?;
    let resolved = resolve::resolve(&decoded, &opts.assume_dims)?;
    let inferred = infer::infer(&decoded, &resolved)?;
    build::build(&decoded, &resolved, &inferred, opts)
}

#[cfg(test)]
mod tests {
    use super::proto::*;
    use super::*;
    use peakorder::Graph;

    fn vi(name: &str, elem_type: i32, dims: &[Result<i64, &str>]) -> ValueInfoProto {
        ValueInfoProto {
            name: Some(name.into()),
            r#type: Some(TypeProto {
                value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                    elem_type: Some(elem_type),
                    shape: Some(TensorShapeProto {
                        dim: dims
                            .iter()
                            .map(|d| tensor_shape_proto::Dimension {
                                value: Some(match d {
                                    Ok(v) => dimension::Value::DimValue(*v),
                                    Err(p) => dimension::Value::DimParam(p.to_string()),
                                }),
                            })
                            .collect(),
                    }),
                })),
            }),
        }
    }

    fn node(name: &str, op: &str, ins: &[&str], outs: &[&str]) -> NodeProto {
        NodeProto {
            name: Some(name.into()),
            op_type: Some(op.into()),
            input: ins.iter().map(|s| s.to_string()).collect(),
            output: outs.iter().map(|s| s.to_string()).collect(),
            ..NodeProto::default()
        }
    }

    fn init(name: &str, elem_type: i32, dims: &[i64]) -> TensorProto {
        TensorProto {
            name: Some(name.into()),
            data_type: Some(elem_type),
            dims: dims.to_vec(),
        }
    }

    fn model(g: GraphProto) -> Vec<u8> {
        ModelProto {
            ir_version: Some(9),
            graph: Some(g),
            ..ModelProto::default()
        }
        .encode_to_vec()
    }

    fn mlp(batch: Result<i64, &str>) -> GraphProto {
        GraphProto {
            node: vec![
                node("mm1", "MatMul", &["x", "w1"], &["h"]),
                node("", "Relu", &["h"], &["r"]),
                node("mm2", "MatMul", &["r", "w2"], &["y"]),
            ],
            initializer: vec![init("w1", 1, &[16, 32]), init("w2", 1, &[32, 4])],
            input: vec![vi("x", 1, &[batch, Ok(16)])],
            output: vec![vi("y", 1, &[batch, Ok(4)])],
            value_info: vec![vi("h", 1, &[batch, Ok(32)]), vi("r", 1, &[batch, Ok(32)])],
            ..GraphProto::default()
        }
    }

    fn import_ok(bytes: &[u8], opts: &Options) -> (GraphSpec, Graph) {
        let spec = import(bytes, opts).unwrap();
        let g = Graph::from_spec(spec.clone()).unwrap();
        (spec, g)
    }

    #[test]
    fn mlp_sizes_and_pinned_initializers() {
        let (spec, g) = import_ok(&model(mlp(Ok(8))), &Options::default());
        let ids: Vec<&str> = spec.tensors.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["x", "w1", "w2", "h", "r", "y"]);
        let bytes: Vec<u64> = g.tensors().iter().map(|t| t.bytes).collect();
        assert_eq!(
            bytes,
            [
                8 * 16 * 4,
                16 * 32 * 4,
                32 * 4 * 4,
                8 * 32 * 4,
                8 * 32 * 4,
                8 * 4 * 4
            ]
        );
        assert_eq!(g.inputs_bytes(), (8 * 16 + 16 * 32 + 32 * 4) * 4);
        for name in ["w1", "w2", "x"] {
            let t = g.tensors().iter().position(|t| t.id == name).unwrap() as u32;
            assert!(g.pinned(t), "{name} must be pinned");
            assert!(g.tensors()[t as usize].producer.is_none());
        }
        assert_eq!(spec.ops[1].id, "Relu_1");
        assert_eq!(spec.outputs, ["y"]);
        let peak = peakorder::peak_of(&g, &[0, 1, 2]);
        // During mm2: inputs + h? no, h is freed after relu: inputs + r + y.
        assert_eq!(peak, g.inputs_bytes() + 8 * 32 * 4 * 2);
    }

    #[test]
    fn symbolic_dimension_is_named_and_can_be_assumed() {
        let bytes = model(mlp(Err("batch")));
        let e = import(&bytes, &Options::default()).unwrap_err();
        assert!(e.contains("\"x\""), "{e}");
        assert!(e.contains("symbolic dimension \"batch\""), "{e}");
        assert!(e.contains("--assume-dim batch=VALUE"), "{e}");
        let mut opts = Options::default();
        opts.assume_dims.insert("batch".into(), 3);
        let (spec, g) = import_ok(&bytes, &opts);
        assert_eq!(g.tensors()[0].bytes, 3 * 16 * 4);
        assert_eq!(spec.meta.unwrap()["assumed_dims"], json!({"batch": 3}));
    }

    #[test]
    fn every_symbolic_dimension_is_listed() {
        let mut g = mlp(Err("batch"));
        g.value_info[0] = vi("h", 1, &[Err("batch"), Err("hidden")]);
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(e.contains("batch, hidden"), "{e}");
    }

    #[test]
    fn missing_shape_suggests_shape_inference() {
        let mut g = mlp(Ok(8));
        g.value_info.remove(1);
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(
            e.contains("tensor \"r\" (output of node \"Relu_1\") has no known shape"),
            "{e}"
        );
        assert!(e.contains("onnx.shape_inference.infer_shapes"), "{e}");
    }

    #[test]
    fn unused_output_without_shape_counts_zero() {
        let mut g = mlp(Ok(8));
        g.node[1].output.push("mask".into());
        let (spec, gr) = import_ok(&model(g), &Options::default());
        let t = spec.tensors.iter().find(|t| t.id == "mask").unwrap();
        assert_eq!(t.bytes, Some(0));
        assert!(t.meta.as_ref().unwrap()["note"]
            .as_str()
            .unwrap()
            .contains("0 bytes"));
        assert_eq!(spec.meta.unwrap()["unsized_unused_outputs"], 1);
        assert_eq!(gr.tensors().len(), 7);
    }

    #[test]
    fn unknown_input_is_an_error() {
        let mut g = mlp(Ok(8));
        g.node[2].input[1] = "nope".into();
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(e.contains("\"nope\""), "{e}");
    }

    #[test]
    fn dtypes_not_in_design_are_sized_as_bytes() {
        let g = GraphProto {
            node: vec![
                node("c", "Cast", &["a"], &["b"]),
                node("q", "Cast", &["b"], &["c"]),
            ],
            input: vec![vi("a", 4, &[Ok(3), Ok(5)])],
            value_info: vec![vi("b", 22, &[Ok(3), Ok(5)])],
            output: vec![vi("c", 14, &[Ok(2)])],
            ..GraphProto::default()
        };
        let (spec, g) = import_ok(&model(g), &Options::default());
        let bytes: Vec<u64> = g.tensors().iter().map(|t| t.bytes).collect();
        // uint16: 2 bytes each; int4: 15 nibbles round up to 8 bytes; complex64: 8 bytes each.
        assert_eq!(bytes, [30, 8, 16]);
        assert_eq!(
            spec.tensors[0].meta.as_ref().unwrap()["onnx_dtype"],
            "uint16"
        );
        let s = GraphProto {
            node: vec![node("n", "Identity", &["a"], &["b"])],
            input: vec![vi("a", 8, &[Ok(3)])],
            output: vec![vi("b", 8, &[Ok(3)])],
            ..GraphProto::default()
        };
        let e = import(&model(s), &Options::default()).unwrap_err();
        assert!(e.contains("\"a\"") && e.contains("STRING"), "{e}");
    }

    #[test]
    fn constant_sizes_come_from_their_value() {
        let mut c = node("k", "Constant", &[], &["k0"]);
        c.attribute.push(AttributeProto {
            name: Some("value".into()),
            r#type: Some(4),
            t: Some(init("", 7, &[10])),
            ..AttributeProto::default()
        });
        let g = GraphProto {
            node: vec![c, node("add", "Add", &["x", "k0"], &["y"])],
            input: vec![vi("x", 7, &[Ok(10)])],
            output: vec![vi("y", 7, &[Ok(10)])],
            ..GraphProto::default()
        };
        let (_, g) = import_ok(&model(g), &Options::default());
        assert_eq!(g.tensors()[1].bytes, 80);
    }

    #[test]
    fn subgraph_op_reads_outer_values_and_says_so() {
        let body = GraphProto {
            node: vec![node("inner", "Add", &["big", "x"], &["o"])],
            output: vec![vi("o", 1, &[Ok(4)])],
            ..GraphProto::default()
        };
        let mut iff = node("if", "If", &["cond"], &["y"]);
        iff.attribute.push(AttributeProto {
            name: Some("then_branch".into()),
            r#type: Some(5),
            g: Some(body.clone()),
            ..AttributeProto::default()
        });
        iff.attribute.push(AttributeProto {
            name: Some("else_branch".into()),
            r#type: Some(5),
            g: Some(body),
            ..AttributeProto::default()
        });
        let g = GraphProto {
            node: vec![node("mk", "Relu", &["x"], &["big"]), iff],
            input: vec![vi("x", 1, &[Ok(4)]), vi("cond", 9, &[])],
            output: vec![vi("y", 1, &[Ok(4)])],
            value_info: vec![vi("big", 1, &[Ok(1000)])],
            ..GraphProto::default()
        };
        let (spec, _) = import_ok(&model(g), &Options::default());
        let op = &spec.ops[1];
        assert_eq!(op.inputs, ["cond", "big", "x"]);
        let meta = op.meta.as_ref().unwrap();
        assert!(meta["note"].as_str().unwrap().contains("one op"));
        assert_eq!(meta["subgraph_nodes"], 2);
    }

    #[test]
    fn garbage_and_deep_nesting_are_errors_not_panics() {
        assert!(import(b"{\"format\": \"peakorder/1\"}", &Options::default()).is_err());
        assert!(import(&[0xff; 64], &Options::default()).is_err());
        assert!(import(&[], &Options::default()).is_err());
        let mut g = GraphProto::default();
        for _ in 0..200 {
            let mut n = node("loop", "Loop", &[], &[]);
            n.attribute.push(AttributeProto {
                g: Some(g),
                ..AttributeProto::default()
            });
            g = GraphProto {
                node: vec![n],
                ..GraphProto::default()
            };
        }
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(e.contains("recursion"), "{e}");
    }
}
