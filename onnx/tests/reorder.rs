//! `reorder`: node entries permuted in place, every other byte (unknown fields included) kept;
//! orders that are not a valid permutation are coded errors naming the node.

use peakorder_onnx::proto::*;
use peakorder_onnx::{import, reorder, Options};
use prost::Message;

fn node(name: &str, op: &str, ins: &[&str], outs: &[&str]) -> NodeProto {
    NodeProto {
        name: Some(name.into()),
        op_type: Some(op.into()),
        input: ins.iter().map(|s| s.to_string()).collect(),
        output: outs.iter().map(|s| s.to_string()).collect(),
        ..NodeProto::default()
    }
}

/// A fork-join x -> (a, b) -> c, written with an unknown field (number 99) between the nodes
/// and after the graph, which a decode and re-encode would drop.
fn model() -> Vec<u8> {
    let vi = |n: &str| ValueInfoProto {
        name: Some(n.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: vec![tensor_shape_proto::Dimension {
                        value: Some(tensor_shape_proto::dimension::Value::DimValue(4)),
                    }],
                }),
            })),
        }),
    };
    let nodes = [
        node("a", "Relu", &["x"], &["ra"]),
        node("b", "Neg", &["x"], &["rb"]),
        node("c", "Add", &["ra", "rb"], &["y"]),
    ];
    let unknown = [0x9a, 0x06, 3, b'z', b'z', b'z']; // field 99, "zzz"
    let mut g = Vec::new();
    for n in &nodes {
        let body = n.encode_to_vec();
        g.push(0x0a);
        prost::encoding::encode_varint(body.len() as u64, &mut g);
        g.extend(body);
        g.extend(unknown);
    }
    let rest = GraphProto {
        input: vec![vi("x")],
        output: vec![vi("y")],
        ..GraphProto::default()
    };
    g.extend(rest.encode_to_vec());
    let mut m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        ..ModelProto::default()
    }
    .encode_to_vec();
    m.push(0x3a);
    prost::encoding::encode_varint(g.len() as u64, &mut m);
    m.extend(g);
    m.extend(unknown);
    m
}

fn names(bytes: &[u8]) -> Vec<String> {
    let m = ModelProto::decode(bytes).unwrap();
    m.graph
        .unwrap()
        .node
        .into_iter()
        .map(|n| n.name.unwrap())
        .collect()
}

#[test]
fn nodes_move_and_nothing_else_changes() {
    let m = model();
    assert_eq!(
        reorder(m.clone().into(), &["a", "b", "c"]).unwrap(),
        m,
        "identity"
    );
    let r = reorder(m.clone().into(), &["b", "a", "c"]).unwrap();
    assert_eq!(names(&r), ["b", "a", "c"]);
    assert_eq!(r.len(), m.len());
    // Every byte outside the two swapped entries is the same, and the unknown fields survive.
    let mut sorted_m = m.clone();
    let mut sorted_r = r.clone();
    sorted_m.sort_unstable();
    sorted_r.sort_unstable();
    assert_eq!(sorted_m, sorted_r);
    assert_eq!(r.windows(4).filter(|w| w == b"\x03zzz").count(), 4);
    // The reordered model imports to the same graph, its ops in the new order.
    let g = import(&r, &Options::default()).unwrap();
    let ids: Vec<&str> = g.ops.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, ["b", "a", "c"]);
    assert_eq!(reorder(r.into(), &["a", "b", "c"]).unwrap(), m, "and back");
}

#[test]
fn bad_orders_are_coded_errors_naming_the_node() {
    let m = model();
    let code = |o: &[&str]| {
        let e = reorder(m.clone().into(), o).unwrap_err();
        (e.code(), e.to_string())
    };
    let (c, msg) = code(&["c", "a", "b"]);
    assert_eq!(c, "not_topological");
    assert!(
        msg.contains("node \"c\"") && msg.contains("\"ra\""),
        "{msg}"
    );
    assert_eq!(code(&["a", "b"]).0, "missing_op");
    assert_eq!(code(&["a", "b", "c", "a"]).0, "repeated_op");
    assert_eq!(code(&["a", "b", "zz"]).0, "unknown_op");
    assert_eq!(
        reorder(m[..m.len() - 8].to_vec().into(), &["a"])
            .unwrap_err()
            .code(),
        "bad_onnx"
    );
}
