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
mod options;
pub mod proto;
mod reorder;
mod resolve;
mod scope;
mod subgraph;
mod tensor_data;
mod wire;

use peakorder::format::GraphSpec;
use peakorder::Graph;

pub use error::{Cause, Error, NoShape, Problem, Unread, Whose, INFER_SHAPES_CMD};
pub use options::{ExternalData, Options};
pub use reorder::reorder;

/// An imported model: the graph JSON text, exactly as `peakorder import onnx` writes it (less
/// the final newline), and the core's validated graph.
pub struct Imported {
    pub text: String,
    pub graph: Graph,
}

/// Imports and writes the graph JSON: the one function behind the CLI, the wasm module and
/// Python, so that all three give the same bytes. `model_name` (the file's name, when there is
/// one) goes into the graph's `meta.model`.
pub fn import_json(
    bytes: bytes::Bytes,
    opts: &Options,
    model_name: Option<&str>,
) -> Result<Imported, Error> {
    let mut spec = import_bytes(bytes, opts)?;
    if let (Some(meta), Some(name)) = (spec.meta.as_mut(), model_name) {
        meta.insert("model".into(), serde_json::Value::from(name));
    }
    // The core's validation is the contract: never return a graph it would refuse.
    let text =
        serde_json::to_string_pretty(&spec).map_err(|e| Error::InvalidGraph(e.to_string()))?;
    let graph = Graph::from_spec(spec).map_err(|e| Error::InvalidGraph(e.to_string()))?;
    Ok(Imported { text, graph })
}

/// Reads an ONNX model and returns the graph.
pub fn import(bytes: &[u8], opts: &Options) -> Result<GraphSpec, Error> {
    import_bytes(bytes::Bytes::copy_from_slice(bytes), opts)
}

/// As `import`, without copying the model: weight data stays in `bytes`, never decoded.
pub fn import_bytes(bytes: bytes::Bytes, opts: &Options) -> Result<GraphSpec, Error> {
    let decoded = decode::decode(bytes)?;
    let resolved = resolve::resolve(&decoded, opts)?;
    let inferred = infer::infer(&decoded, &resolved)?;
    build::build(&decoded, &resolved, &inferred, opts)
}

#[cfg(test)]
mod tests {
    use super::proto::tensor_shape_proto::dimension;
    use super::proto::*;
    use super::*;
    use prost::Message;
    use serde_json::json;

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
            ..TensorProto::default()
        }
    }

    /// An int64 initializer holding `v` (a shape, axes, ...).
    fn ints(name: &str, v: &[i64]) -> TensorProto {
        let mut t = init(name, 7, &[v.len() as i64]);
        t.raw_data = Some(
            v.iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<u8>>()
                .into(),
        );
        t
    }

    fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
        AttributeProto {
            name: Some(name.into()),
            r#type: Some(7),
            ints: v.to_vec(),
            ..AttributeProto::default()
        }
    }

    fn err(bytes: &[u8], opts: &Options) -> String {
        import(bytes, opts).unwrap_err().to_string()
    }

    fn model(g: GraphProto) -> Vec<u8> {
        ModelProto {
            ir_version: Some(9),
            graph: Some(g),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(17),
            }],
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
        let e = err(&bytes, &Options::default());
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
        // w1 a graph input whose second dim is symbolic: h = x @ w1 is [batch, hidden].
        g.initializer.remove(0);
        g.input.push(vi("w1", 1, &[Ok(16), Err("hidden")]));
        g.value_info.clear();
        let e = err(&model(g), &Options::default());
        assert!(e.contains("batch, hidden"), "{e}");
    }

    #[test]
    fn an_op_without_a_rule_is_named_with_the_fallback() {
        let mut g = mlp(Ok(8));
        g.value_info.clear();
        g.output[0].r#type = None;
        g.node[1].op_type = Some("FancyRelu".into());
        let e = err(&model(g), &Options::default());
        assert!(
            e.contains("tensor \"r\" (output of node \"FancyRelu_1\") has no known shape"),
            "{e}"
        );
        assert!(
            e.contains("cannot infer the output shapes of node \"FancyRelu_1\" (op \"FancyRelu\")"),
            "{e}"
        );
        // y depends on it: two tensors, one line, and the pre-inference command.
        assert!(e.contains("2 tensor(s) have no complete shape"), "{e}");
        assert!(e.contains("onnx.shape_inference.infer_shapes"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }

    #[test]
    fn shapes_are_inferred_without_value_info() {
        let mut g = mlp(Ok(8));
        g.value_info.clear();
        g.output[0] = ValueInfoProto {
            name: Some("y".into()),
            r#type: None,
        };
        let (_, gr) = import_ok(&model(g), &Options::default());
        let bytes: Vec<u64> = gr.tensors().iter().map(|t| t.bytes).collect();
        assert_eq!(bytes[3..], [8 * 32 * 4, 8 * 32 * 4, 8 * 4 * 4]);
    }

    /// Weights made by ConstantOfShape from an initializer shape (the onnx wheel's light models),
    /// and a Reshape to a shape computed by Shape → Gather → Unsqueeze → Concat.
    #[test]
    fn constant_of_shape_and_folded_shape_computations() {
        let mut cos = node("w", "ConstantOfShape", &["wshape"], &["w"]);
        cos.attribute.push(AttributeProto {
            name: Some("value".into()),
            r#type: Some(4),
            t: Some(init("", 1, &[1])),
            ..AttributeProto::default()
        });
        let mut unsq = node("u", "Unsqueeze", &["n"], &["n1"]);
        unsq.attribute.push(attr_ints("axes", &[0]));
        let mut cat = node("cat", "Concat", &["n1", "minus1"], &["target"]);
        cat.attribute.push(AttributeProto {
            name: Some("axis".into()),
            r#type: Some(2),
            i: Some(0),
            ..AttributeProto::default()
        });
        let g = GraphProto {
            node: vec![
                cos,
                node("mm", "MatMul", &["x", "w"], &["h"]),
                node("shape", "Shape", &["h"], &["s"]),
                node("g", "Gather", &["s", "zero"], &["n"]),
                unsq,
                cat,
                node("r", "Reshape", &["h", "target"], &["y"]),
            ],
            initializer: vec![ints("wshape", &[16, 6]), ints("minus1", &[-1]), {
                let mut z = init("zero", 7, &[]);
                z.raw_data = Some(0i64.to_le_bytes().to_vec().into());
                z
            }],
            input: vec![vi("x", 1, &[Ok(2), Ok(5), Ok(16)])],
            output: vec![ValueInfoProto {
                name: Some("y".into()),
                r#type: None,
            }],
            ..GraphProto::default()
        };
        let (spec, _) = import_ok(&model(g), &Options::default());
        let t = |id: &str| spec.tensors.iter().find(|t| t.id == id).unwrap().clone();
        assert_eq!(t("w").shape, Some(vec![16, 6]));
        assert_eq!(t("h").shape, Some(vec![2, 5, 6]));
        assert_eq!(t("target").shape, Some(vec![2]));
        assert_eq!(t("y").shape, Some(vec![2, 30]));
        assert_eq!(t("y").dtype.as_deref(), Some("f32"));
    }

    #[test]
    fn symbols_travel_and_cancel_in_reshape() {
        let g = GraphProto {
            node: vec![
                node("shape", "Shape", &["x"], &["s"]),
                node("sl", "Slice", &["s", "zero1", "one1"], &["b"]),
                node("cat", "Concat", &["b", "minus1"], &["target"]),
                node("r", "Reshape", &["x", "target"], &["y"]),
                node("relu", "Relu", &["y"], &["z"]),
            ],
            initializer: vec![
                ints("zero1", &[0]),
                ints("one1", &[1]),
                ints("minus1", &[-1]),
            ],
            input: vec![vi("x", 1, &[Err("batch"), Ok(3), Ok(4)])],
            output: vec![vi("z", 1, &[])],
            ..GraphProto::default()
        };
        let mut g = g;
        g.node[2].attribute.push(AttributeProto {
            name: Some("axis".into()),
            r#type: Some(2),
            i: Some(0),
            ..AttributeProto::default()
        });
        g.output[0].r#type = None;
        let bytes = model(g);
        let e = err(&bytes, &Options::default());
        assert!(e.contains("--assume-dim batch=VALUE"), "{e}");
        assert!(!e.contains("have no complete shape"), "{e}");
        let mut opts = Options::default();
        opts.assume_dims.insert("batch".into(), 5);
        let (spec, _) = import_ok(&bytes, &opts);
        let z = spec.tensors.iter().find(|t| t.id == "z").unwrap();
        assert_eq!(z.shape, Some(vec![5, 12]));
    }

    #[test]
    fn reshape_with_two_minus_ones_names_the_node() {
        let g = GraphProto {
            node: vec![node("bad_reshape", "Reshape", &["x", "t"], &["y"])],
            initializer: vec![ints("t", &[-1, -1])],
            input: vec![vi("x", 1, &[Ok(4), Ok(4)])],
            output: vec![vi("y", 1, &[])],
            ..GraphProto::default()
        };
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(
            matches!(&e, Error::BadNode { node, op, .. } if node == "bad_reshape" && op == "Reshape"),
            "{e:?}"
        );
        assert!(e.to_string().contains("two -1"), "{e}");
    }

    #[test]
    fn a_shape_in_the_file_that_contradicts_inference_names_the_tensor() {
        let mut g = mlp(Ok(8));
        g.value_info[0] = vi("h", 1, &[Ok(8), Ok(33)]);
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(
            matches!(&e, Error::Mismatch { tensor, node, .. } if tensor == "h" && node == "mm1"),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(
            text.contains("f32[8, 33]") && text.contains("f32[8, 32]"),
            "{text}"
        );
        // A symbolic dimension in the file is filled in by inference, not a contradiction.
        let mut g = mlp(Ok(8));
        g.value_info[0] = vi("h", 1, &[Err("n"), Ok(32)]);
        import_ok(&model(g), &Options::default());
    }

    #[test]
    fn a_node_in_an_undeclared_domain_is_named() {
        let mut g = mlp(Ok(8));
        g.node[1].domain = Some("com.example".into());
        let mut m = ModelProto {
            ir_version: Some(9),
            graph: Some(g),
            ..ModelProto::default()
        };
        m.opset_import.push(OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        });
        let e = import(&m.encode_to_vec(), &Options::default()).unwrap_err();
        assert!(
            matches!(&e, Error::UnknownDomain { node, domain, .. } if node == "Relu_1" && domain == "com.example"),
            "{e:?}"
        );
        // Declared, it imports: the file's shapes cover the op peakorder has no rules for.
        m.opset_import.push(OperatorSetIdProto {
            domain: Some("com.example".into()),
            version: Some(1),
        });
        import_ok(&m.encode_to_vec(), &Options::default());
    }

    #[test]
    fn truncated_protobuf_is_a_decode_error() {
        let bytes = model(mlp(Ok(8)));
        for cut in [1, bytes.len() / 3, bytes.len() - 1] {
            let e = import(&bytes[..cut], &Options::default()).unwrap_err();
            assert!(matches!(e, Error::Decode(_)), "cut at {cut}: {e:?}");
        }
    }

    #[test]
    fn weights_are_not_decoded() {
        // A 1M-element float initializer in float_data: the import only reads its header.
        let mut w = init("w1", 1, &[16, 32]);
        w.typed.push((
            proto::FLOAT_DATA,
            Chunk::Packed(vec![0u8; 16 * 32 * 4].into()),
        ));
        let mut g = mlp(Ok(8));
        g.initializer[0] = w;
        let (_, gr) = import_ok(&model(g), &Options::default());
        assert_eq!(gr.tensors()[1].bytes, 16 * 32 * 4);
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
        let e = err(&model(g), &Options::default());
        assert!(e.contains("\"nope\""), "{e}");
    }

    #[test]
    fn dtypes_not_in_design_are_sized_as_bytes() {
        let cast = |name: &str, i: &str, o: &str, to: i64| {
            let mut n = node(name, "Cast", &[i], &[o]);
            n.attribute.push(AttributeProto {
                name: Some("to".into()),
                r#type: Some(2),
                i: Some(to),
                ..AttributeProto::default()
            });
            n
        };
        let g = GraphProto {
            node: vec![cast("c", "a", "b", 22), cast("q", "b", "c", 14)],
            input: vec![vi("a", 4, &[Ok(3), Ok(5)])],
            output: vec![vi("c", 14, &[Ok(3), Ok(5)])],
            ..GraphProto::default()
        };
        let (spec, g) = import_ok(&model(g), &Options::default());
        let bytes: Vec<u64> = g.tensors().iter().map(|t| t.bytes).collect();
        // uint16: 2 bytes each; int4: 15 nibbles round up to 8 bytes; complex64: 8 bytes each.
        assert_eq!(bytes, [30, 8, 120]);
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
        let e = err(&model(s), &Options::default());
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
            output: vec![vi("o", 1, &[Ok(1000)])],
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
            input: vec![vi("x", 1, &[Ok(1000)]), vi("cond", 9, &[])],
            output: vec![vi("y", 1, &[Ok(1000)])],
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
        let e = err(&model(g), &Options::default());
        assert!(e.contains("recursion"), "{e}");
    }
}
