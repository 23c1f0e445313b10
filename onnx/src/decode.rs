//! Phase 1: bytes → `ModelProto`, with the checks that make it a model at all: it decodes, has a
//! non-empty graph, and every node's domain is one the model declares.

use std::collections::HashMap;

use bytes::Bytes;
use prost::Message;

use super::error::Error;
use super::proto::{GraphProto, ModelProto};

/// A decoded model and the opset version of each domain it imports (`""` is the default domain,
/// also spelled `ai.onnx`).
pub struct Decoded {
    pub model: ModelProto,
    pub opsets: HashMap<String, i64>,
    /// Each node's op id in the graph: its name, `OpType_index` when it has none, made unique
    /// with `#index`. Messages name nodes by these.
    pub op_ids: Vec<String>,
}

impl Decoded {
    pub fn graph(&self) -> &GraphProto {
        // `decode` refuses models without a graph.
        self.model.graph.as_ref().expect("checked by decode")
    }
    /// The opset version a node of `domain` runs under (1 when the model declares none, as
    /// IR version 1 and 2 models do).
    pub fn opset(&self, domain: &str) -> i64 {
        self.opsets.get(norm(domain)).copied().unwrap_or(1)
    }
}

/// `ai.onnx` and `""` are the same domain.
pub fn norm(domain: &str) -> &str {
    if domain == "ai.onnx" {
        ""
    } else {
        domain
    }
}

pub fn decode(bytes: Bytes) -> Result<Decoded, Error> {
    // prost's recursion limit turns absurdly nested (or hostile) input into an error.
    let model = ModelProto::decode(bytes).map_err(|e| Error::Decode(e.to_string()))?;
    let graph = model.graph.as_ref().ok_or(Error::NoGraph)?;
    if graph.node.is_empty() && graph.input.is_empty() && graph.output.is_empty() {
        return Err(Error::EmptyGraph);
    }
    let mut opsets = HashMap::new();
    for o in &model.opset_import {
        let d = norm(o.domain.as_deref().unwrap_or("")).to_string();
        let v = o.version.unwrap_or(1);
        // A domain imported twice keeps its highest version.
        let e = opsets.entry(d).or_insert(v);
        *e = (*e).max(v);
    }
    let op_ids = op_ids(graph);
    for (i, n) in graph.node.iter().enumerate() {
        let d = norm(n.domain.as_deref().unwrap_or(""));
        // Models without opset_import (IR versions 1 and 2) use the default domain only.
        let declared = opsets.contains_key(d) || (d.is_empty() && opsets.is_empty());
        if !declared {
            let mut list: Vec<&str> = opsets
                .keys()
                .map(|k| if k.is_empty() { "ai.onnx" } else { k.as_str() })
                .collect();
            list.sort_unstable();
            return Err(Error::UnknownDomain {
                node: op_ids[i].clone(),
                op: n.op_type.clone().unwrap_or_default(),
                domain: n.domain.clone().unwrap_or_default(),
                declared: if list.is_empty() {
                    "none".into()
                } else {
                    list.join(", ")
                },
            });
        }
    }
    Ok(Decoded {
        model,
        opsets,
        op_ids,
    })
}

fn op_ids(g: &GraphProto) -> Vec<String> {
    let mut seen = std::collections::HashSet::with_capacity(g.node.len());
    (0..g.node.len())
        .map(|i| {
            let mut id = node_label(g, i);
            if seen.contains(&id) {
                id = format!("{id}#{i}");
            }
            seen.insert(id.clone());
            id
        })
        .collect()
}

/// A node's name, or `OpType_index` when it has none: the op id the graph uses.
pub fn node_label(g: &GraphProto, i: usize) -> String {
    let n = &g.node[i];
    match n.name.as_deref() {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => format!(
            "{}_{i}",
            n.op_type
                .as_deref()
                .filter(|s| !s.is_empty())
                .unwrap_or("node")
        ),
    }
}
