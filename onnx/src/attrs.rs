//! A node's scalar and list attributes as JSON, for the page (`attrs` of an op).

use serde_json::{json, Map, Value};

use super::proto::AttributeProto;

/// Scalar and list attributes, for the page; tensors and graphs are left out.
pub fn simple_attrs(attrs: &[AttributeProto]) -> Map<String, Value> {
    let mut m = Map::new();
    for a in attrs {
        let Some(name) = a.name.as_deref() else {
            continue;
        };
        let v = match a.r#type {
            Some(1) => a.f.map(|f| json!(f)),
            Some(2) => a.i.map(|i| json!(i)),
            Some(3) => a.s.as_ref().map(|s| json!(String::from_utf8_lossy(s))),
            Some(6) => Some(json!(a.floats)),
            Some(7) => Some(json!(a.ints)),
            _ => None,
        };
        if let Some(v) = v {
            m.insert(name.to_string(), v);
        }
    }
    m
}
