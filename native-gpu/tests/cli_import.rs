//! `peakorder import onnx` (issue 21): models without `value_info` import through built-in shape
//! inference; bad input exits 2 with one line on stderr naming the node or tensor; hostile models
//! (huge, negative or overflowing dims and attributes) never panic.

use std::path::PathBuf;
use std::process::{Command, Output};

use peakorder_gpu::import::onnx::proto::tensor_shape_proto::{dimension, Dimension};
use peakorder_gpu::import::onnx::proto::*;
use peakorder_gpu::import::onnx::{self as importer, Options};
use proptest::prelude::*;
use prost::Message;

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("peakorder-cli-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn import(name: &str, bytes: &[u8], extra: &[&str]) -> Output {
    let p = temp(name, bytes);
    let out = p.with_extension("json");
    Command::new(env!("CARGO_BIN_EXE_peakorder"))
        .args(["import", "onnx"])
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap()
}

/// Exit 2 with one line on stderr containing every `needle`.
fn refused(o: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
}

fn vi(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| Dimension {
                            value: Some(dimension::Value::DimValue(d)),
                        })
                        .collect(),
                }),
            })),
        }),
    }
}

fn untyped(name: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: None,
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

fn ints_attr(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(7),
        ints: v.to_vec(),
        ..AttributeProto::default()
    }
}

fn int64s(name: &str, dims: &[i64], v: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        data_type: Some(7),
        dims: dims.to_vec(),
        raw_data: Some(
            v.iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<u8>>()
                .into(),
        ),
        ..TensorProto::default()
    }
}

fn model(g: GraphProto) -> Vec<u8> {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(g),
        ..ModelProto::default()
    }
    .encode_to_vec()
}

/// A small CNN with no intermediate shapes in the file, its weights made by ConstantOfShape
/// (as in the onnx wheel's light models) and named like torch.onnx.export's nodes.
fn cnn() -> GraphProto {
    let mut conv = node("/features/conv1/Conv", "Conv", &["x", "w"], &["c"]);
    conv.attribute.push(ints_attr("pads", &[1, 1, 1, 1]));
    let mut pool = node("/features/pool/MaxPool", "MaxPool", &["r"], &["p"]);
    pool.attribute.push(ints_attr("kernel_shape", &[2, 2]));
    pool.attribute.push(ints_attr("strides", &[2, 2]));
    GraphProto {
        node: vec![
            node("/w/ConstantOfShape", "ConstantOfShape", &["wshape"], &["w"]),
            conv,
            node("/features/relu/Relu", "Relu", &["c"], &["r"]),
            pool,
            node("/Flatten", "Flatten", &["p"], &["y"]),
        ],
        initializer: vec![int64s("wshape", &[4], &[8, 3, 3, 3])],
        input: vec![vi("x", 1, &[2, 3, 16, 16])],
        output: vec![untyped("y")],
        ..GraphProto::default()
    }
}

#[test]
fn a_model_without_value_info_imports_with_scopes() {
    let o = import("cnn.onnx", &model(cnn()), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p = temp("cnn.onnx", &[]).with_extension("json");
    let g: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let t = |id: &str| {
        g["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .unwrap()["shape"]
            .clone()
    };
    assert_eq!(t("w"), serde_json::json!([8, 3, 3, 3]));
    assert_eq!(t("c"), serde_json::json!([2, 8, 16, 16]));
    assert_eq!(t("p"), serde_json::json!([2, 8, 8, 8]));
    assert_eq!(t("y"), serde_json::json!([2, 512]));
    let ops = g["ops"].as_array().unwrap();
    assert_eq!(ops[1]["meta"]["scope"], "features/conv1");
    assert!(ops[4]["meta"].get("scope").is_none(), "{}", ops[4]);
}

#[test]
fn truncated_protobuf_exits_2() {
    let bytes = model(cnn());
    for cut in [3, bytes.len() / 2, bytes.len() - 2] {
        let o = import("cut.onnx", &bytes[..cut], &[]);
        refused(
            &o,
            &["cut.onnx", "not an ONNX model", "protobuf decoding failed"],
        );
    }
}

#[test]
fn an_undeclared_opset_domain_names_the_node() {
    let mut g = cnn();
    g.node[2].domain = Some("com.example.custom".into());
    let o = import("domain.onnx", &model(g), &[]);
    refused(
        &o,
        &[
            "node \"/features/relu/Relu\"",
            "\"com.example.custom\"",
            "opset_import",
        ],
    );
}

#[test]
fn a_reshape_with_two_minus_ones_names_the_node() {
    let g = GraphProto {
        node: vec![node("flatten_twice", "Reshape", &["x", "t"], &["y"])],
        initializer: vec![int64s("t", &[2], &[-1, -1])],
        input: vec![vi("x", 1, &[4, 6])],
        output: vec![untyped("y")],
        ..GraphProto::default()
    };
    let o = import("reshape.onnx", &model(g), &[]);
    refused(&o, &["node \"flatten_twice\" (op \"Reshape\")", "two -1"]);
}

#[test]
fn an_op_without_a_rule_names_node_op_and_the_fallback() {
    let mut g = cnn();
    g.node[2].op_type = Some("MyActivation".into());
    let o = import("custom.onnx", &model(g), &[]);
    refused(
        &o,
        &[
            "node \"/features/relu/Relu\" (op \"MyActivation\")",
            "onnx.shape_inference.infer_shapes(m, strict_mode=True)",
        ],
    );
}

#[test]
fn a_contradicting_value_info_names_the_tensor() {
    let mut g = cnn();
    g.value_info.push(vi("c", 1, &[2, 8, 15, 16]));
    let o = import("mismatch.onnx", &model(g), &[]);
    refused(
        &o,
        &["tensor \"c\"", "f32[2, 8, 15, 16]", "f32[2, 8, 16, 16]"],
    );
}

/// Hostile models: each exits 0 or 2 (one line), never panics (101).
#[test]
fn hostile_models_never_panic() {
    let big = i64::MAX;
    let mut cases: Vec<GraphProto> = Vec::new();
    // Overflowing and negative initializer dims.
    for dims in [vec![big, big], vec![-3, 2], vec![1 << 40, 1 << 40]] {
        let mut g = cnn();
        g.initializer.push(TensorProto {
            name: Some("huge".into()),
            data_type: Some(1),
            dims,
            ..TensorProto::default()
        });
        g.node.push(node("use", "Relu", &["huge"], &["h2"]));
        cases.push(g);
    }
    // ConstantOfShape / Range / Expand / Tile to absurd sizes.
    for (op, ins, inits) in [
        (
            "ConstantOfShape",
            vec!["s"],
            vec![int64s("s", &[3], &[big, big, 2])],
        ),
        (
            "ConstantOfShape",
            vec!["s"],
            vec![int64s("s", &[2], &[-5, 2])],
        ),
        (
            "Range",
            vec!["a", "b", "d"],
            vec![
                int64s("a", &[], &[i64::MIN]),
                int64s("b", &[], &[big]),
                int64s("d", &[], &[1]),
            ],
        ),
        (
            "Range",
            vec!["a", "b", "d"],
            vec![
                int64s("a", &[], &[0]),
                int64s("b", &[], &[10]),
                int64s("d", &[], &[0]),
            ],
        ),
        (
            "Expand",
            vec!["x", "s"],
            vec![int64s("s", &[4], &[big, 3, 16, 16])],
        ),
        (
            "Tile",
            vec!["x", "s"],
            vec![int64s("s", &[4], &[big, big, 2, 2])],
        ),
        (
            "Reshape",
            vec!["x", "s"],
            vec![int64s("s", &[2], &[0, big])],
        ),
        (
            "Reshape",
            vec!["x", "s"],
            vec![int64s("s", &[3], &[-1, 0, 7])],
        ),
        (
            "Slice",
            vec!["x", "s", "s"],
            vec![int64s("s", &[1], &[i64::MIN])],
        ),
        ("Gather", vec!["x", "s"], vec![int64s("s", &[1], &[big])]),
        (
            "Unsqueeze",
            vec!["x", "s"],
            vec![int64s("s", &[2], &[big, -big])],
        ),
        (
            "Split",
            vec!["x", "s"],
            vec![int64s("s", &[2], &[big, big])],
        ),
        (
            "Pad",
            vec!["x", "s"],
            vec![int64s("s", &[8], &[big, 0, 0, 0, big, 0, 0, 0])],
        ),
        // Two foldable tensors whose broadcast (16M elements) is too large to fold: it is sized,
        // not computed.
        (
            "Add",
            vec!["col", "row"],
            vec![
                int64s("col", &[4096, 1], &[1; 4096]),
                int64s("row", &[1, 4096], &[2; 4096]),
            ],
        ),
        // Very many axes.
        (
            "Unsqueeze",
            vec!["x", "s"],
            vec![int64s("s", &[4000], &(0..4000).collect::<Vec<i64>>())],
        ),
    ] {
        let mut g = cnn();
        g.initializer.extend(inits);
        g.node.push(node("hostile", op, &ins, &["h"]));
        g.output.push(untyped("h"));
        cases.push(g);
    }
    // Conv and pool attributes that overflow or make no sense.
    for (attr, v) in [
        ("pads", vec![big, big, big, big]),
        ("strides", vec![0, 1]),
        ("dilations", vec![big, big]),
        ("kernel_shape", vec![big, 1]),
        ("pads", vec![-1, 0, 0, 0]),
    ] {
        let mut g = cnn();
        g.node[3]
            .attribute
            .retain(|a| a.name.as_deref() != Some(attr));
        g.node[3].attribute.push(ints_attr(attr, &v));
        cases.push(g);
    }
    // Shape-giving dims in value_info: huge and negative.
    for d in [big, -1] {
        let mut g = cnn();
        g.value_info.push(vi("c", 1, &[d, 8, 16, 16]));
        cases.push(g);
    }
    for (i, g) in cases.into_iter().enumerate() {
        let o = import(&format!("hostile{i}.onnx"), &model(g), &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        match o.status.code() {
            Some(0) => {}
            Some(2) => assert_eq!(err.trim_end().lines().count(), 1, "case {i}: {err}"),
            c => panic!("case {i}: exit {c:?}: {err}"),
        }
    }
}

/// Damaged models through the library: bytes flipped, cut, spliced or inserted anywhere in a
/// valid model; the importer returns a graph or an error, never panics, and what it returns the
/// core either accepts or refuses with an error.
fn mutated(bytes: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for &(at, kind, v) in edits {
        let at = at % (b.len() + 1);
        match kind % 4 {
            0 if at < b.len() => b[at] ^= v,
            1 => b.insert(at, v),
            2 if at < b.len() => {
                b.remove(at);
            }
            _ => b.truncate(at.max(1)),
        }
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn damaged_models_never_panic(
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6)
    ) {
        let mut g = cnn();
        g.value_info.push(vi("c", 1, &[2, 8, 16, 16]));
        let bytes = mutated(&model(g), &edits);
        if let Ok(spec) = importer::import(&bytes, &Options::default()) {
            let _ = peakorder::Graph::from_spec(spec);
        }
    }
}
