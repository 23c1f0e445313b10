//! `peakorder export onnx MODEL --order PLAN -o OUT` (issue #31): the plan's order written into
//! the model (the same splice as npm's reorderOnnx), and coded-message refusals (exit 2) for
//! orders that are not a valid permutation; external data read from the model's folder by import.

use std::path::PathBuf;
use std::process::{Command, Output};

use peakorder_gpu::import::onnx::proto::*;
use prost::Message;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("peakorder-cli-export-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cli(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_peakorder"))
        .args(args)
        .output()
        .unwrap()
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

fn vi(n: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(n.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: vec![tensor_shape_proto::Dimension {
                        value: Some(tensor_shape_proto::dimension::Value::DimValue(1024)),
                    }],
                }),
            })),
        }),
    }
}

/// Two independent paths x -> a1 -> a2 and x -> b1 -> b2 joined by `j`.
fn model() -> Vec<u8> {
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            node: vec![
                node("a1", "Relu", &["x"], &["ha"]),
                node("b1", "Relu", &["x"], &["hb"]),
                node("a2", "Neg", &["ha"], &["ya"]),
                node("b2", "Neg", &["hb"], &["yb"]),
                node("j", "Add", &["ya", "yb"], &["y"]),
            ],
            input: vec![vi("x")],
            output: vec![vi("y")],
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    }
    .encode_to_vec()
}

#[test]
fn export_writes_the_order_and_refuses_bad_ones() {
    let d = dir();
    let m = d.join("m.onnx");
    std::fs::write(&m, model()).unwrap();
    let order = d.join("order.json");
    let out = d.join("out.onnx");
    std::fs::write(
        &order,
        r#"{"order": ["a1", "a2", "b1", "b2", "j"], "peak_bytes": 1}"#,
    )
    .unwrap();
    let o = cli(&[
        "export".as_ref(),
        "onnx".as_ref(),
        m.as_os_str(),
        "--order".as_ref(),
        order.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes.len(), model().len());
    let names: Vec<String> = ModelProto::decode(&bytes[..])
        .unwrap()
        .graph
        .unwrap()
        .node
        .into_iter()
        .map(|n| n.name.unwrap())
        .collect();
    assert_eq!(names, ["a1", "a2", "b1", "b2", "j"]);

    for (text, needle) in [
        (
            r#"["a2", "a1", "b1", "b2", "j"]"#,
            r#"node "a2" reads tensor "ha" before node "a1""#,
        ),
        (r#"["a1", "a2", "b1", "b2"]"#, r#"does not name node "j""#),
        (
            r#"["a1", "a2", "b1", "b2", "j", "j"]"#,
            r#"names op "j" twice"#,
        ),
        (r#"{"steps": []}"#, "expected an array of op ids or a plan"),
    ] {
        std::fs::write(&order, text).unwrap();
        let o = cli(&[
            "export".as_ref(),
            "onnx".as_ref(),
            m.as_os_str(),
            "--order".as_ref(),
            order.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{text}: {err}");
        assert!(err.contains(needle), "{text}: {err}");
    }
}

/// A Reshape whose target shape lives in an external file beside the model: the CLI reads it
/// (the crate itself reads no files); without the file the error is external_data's.
#[test]
fn import_reads_small_external_initializers_from_the_models_folder() {
    let d = dir().join("ext");
    std::fs::create_dir_all(&d).unwrap();
    let kv = |k: &str, v: &str| StringStringEntryProto {
        key: Some(k.into()),
        value: Some(v.into()),
    };
    let shape = TensorProto {
        name: Some("shape".into()),
        data_type: Some(7),
        dims: vec![2],
        data_location: Some(1),
        external_data: vec![kv("location", "data.bin")],
        ..TensorProto::default()
    };
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            node: vec![node("r", "Reshape", &["x", "shape"], &["y"])],
            initializer: vec![shape],
            input: vec![vi("x")],
            output: vec![ValueInfoProto {
                name: Some("y".into()),
                r#type: None,
            }],
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    };
    let path = d.join("m.onnx");
    std::fs::write(&path, m.encode_to_vec()).unwrap();
    let o = cli(&["import".as_ref(), "onnx".as_ref(), path.as_os_str()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains(r#""shape" in "data.bin""#), "{err}");
    let data: Vec<u8> = [32i64, 32].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(d.join("data.bin"), data).unwrap();
    let o = cli(&["import".as_ref(), "onnx".as_ref(), path.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let g: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let y = g["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "y")
        .unwrap()
        .clone();
    assert_eq!(y["shape"], serde_json::json!([32, 32]));
}
