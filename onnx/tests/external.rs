//! External data and error codes: the crate reads no files, so a shape computation that needs a
//! small initializer kept in an external file fails with code `external_data` naming it, unless
//! the caller passes a reader (the CLI does); weights in external files are sized from dims.

use peakorder_onnx::proto::*;
use peakorder_onnx::{import, import_json, Error, ExternalData, Options};
use prost::Message;
use std::cell::Cell;

fn vi(name: &str, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| tensor_shape_proto::Dimension {
                            value: Some(tensor_shape_proto::dimension::Value::DimValue(d)),
                        })
                        .collect(),
                }),
            })),
        }),
    }
}

fn external(name: &str, data_type: i32, dims: &[i64], location: &str) -> TensorProto {
    let kv = |k: &str, v: &str| StringStringEntryProto {
        key: Some(k.into()),
        value: Some(v.into()),
    };
    TensorProto {
        name: Some(name.into()),
        data_type: Some(data_type),
        dims: dims.to_vec(),
        data_location: Some(1),
        external_data: vec![
            kv("location", location),
            kv("offset", "16"),
            kv("length", "16"),
        ],
        ..TensorProto::default()
    }
}

/// x[4, 6] -> Reshape(x, shape) -> y, where `shape` (int64 [2]) is in "w.bin"; plus a large
/// external weight `w` read by an Add, which must never be read.
fn model() -> Vec<u8> {
    let node = |name: &str, op: &str, ins: &[&str], outs: &[&str]| NodeProto {
        name: Some(name.into()),
        op_type: Some(op.into()),
        input: ins.iter().map(|s| s.to_string()).collect(),
        output: outs.iter().map(|s| s.to_string()).collect(),
        ..NodeProto::default()
    };
    ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            node: vec![
                node("add", "Add", &["x", "w"], &["s"]),
                node("reshape", "Reshape", &["s", "shape"], &["y"]),
            ],
            initializer: vec![
                external("shape", 7, &[2], "w.bin"),
                external("w", 1, &[4, 6, 1000], "w.bin"),
            ],
            input: vec![vi("x", &[4, 6, 1000])],
            output: vec![ValueInfoProto {
                name: Some("y".into()),
                r#type: None,
            }],
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    }
    .encode_to_vec()
}

struct Reader {
    calls: Cell<usize>,
}

impl ExternalData for Reader {
    fn read(&self, location: &str, offset: u64, length: Option<u64>) -> Result<Vec<u8>, String> {
        self.calls.set(self.calls.get() + 1);
        assert_eq!((location, offset, length), ("w.bin", 16, Some(16)));
        Ok([24i64, 1000].iter().flat_map(|v| v.to_le_bytes()).collect())
    }
}

#[test]
fn without_a_reader_the_error_is_coded_and_names_the_tensor_and_file() {
    let e = import(&model(), &Options::default()).unwrap_err();
    assert_eq!(e.code(), "external_data", "{e}");
    let m = e.to_string();
    assert!(m.contains("\"shape\" in \"w.bin\""), "{m}");
    assert!(m.contains("node \"reshape\""), "{m}");
}

#[test]
fn a_reader_reads_only_the_small_tensor() {
    let r = Reader {
        calls: Cell::new(0),
    };
    let opts = Options {
        external_data: Some(&r),
        ..Options::default()
    };
    let out = import_json(model().into(), &opts, Some("m.onnx")).unwrap();
    assert_eq!(r.calls.get(), 1, "the 24,000-element weight is never read");
    let v: serde_json::Value = serde_json::from_str(&out.text).unwrap();
    let y = v["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "y")
        .unwrap();
    assert_eq!(y["shape"], serde_json::json!([24, 1000]));
    assert_eq!(v["meta"]["model"], "m.onnx");
}

#[test]
fn every_error_has_a_code() {
    let e = import(b"\x0a\xff\xff", &Options::default()).unwrap_err();
    assert_eq!(e.code(), "bad_onnx");
    let e = import(&ModelProto::default().encode_to_vec(), &Options::default()).unwrap_err();
    assert_eq!(e.code(), "no_graph");
    assert!(matches!(e, Error::NoGraph));
}
