//! A planned order written back into the model: `graph.node` permuted and nothing else changed.
//!
//! The model is not decoded and encoded again (which would drop fields this crate does not
//! declare and change the byte layout); its bytes are spliced instead. `ModelProto`'s top-level
//! fields are walked to find field 7 (`graph`); inside `GraphProto` the field-1 (`node`) entries,
//! each its key, length prefix and payload, are permuted among their own positions, and every
//! other byte is copied as it is. The entries only change places, so the graph's length (and its
//! length prefix) is the same and the output is exactly as long as the input.
//!
//! The order is checked first: every node once, each after the nodes producing its inputs
//! (including the outer values its If/Loop/Scan bodies read), by the op ids the import gives.

use std::collections::HashMap;

use bytes::Bytes;

use super::decode;
use super::error::Error;
use super::proto::GraphProto;
use super::subgraph;
use super::wire::{self, Field};

const MODEL_GRAPH: u64 = 7;
const GRAPH_NODE: u64 = 1;

/// The model with its nodes in `order` (op ids, as `import` names the nodes).
pub fn reorder(bytes: Bytes, order: &[&str]) -> Result<Vec<u8>, Error> {
    let d = decode::decode(bytes.clone())?;
    let perm = check(d.graph(), &d.op_ids, order)?;

    let layout = |m: String| Error::Layout(m);
    let top = wire::fields(&bytes).map_err(|e| layout(format!("model: {e}")))?;
    let graphs: Vec<&Field> = top
        .iter()
        .filter(|f| f.number == MODEL_GRAPH && f.wire_type == 2)
        .collect();
    let [g] = graphs[..] else {
        return Err(layout(format!(
            "the model has {} graph fields; protobuf merges them, but their nodes cannot be \
             reordered in place",
            graphs.len()
        )));
    };
    let inner = &bytes[g.payload..g.end];
    let gf = wire::fields(inner).map_err(|e| layout(format!("graph: {e}")))?;
    let nodes: Vec<&Field> = gf
        .iter()
        .filter(|f| f.number == GRAPH_NODE && f.wire_type == 2)
        .collect();
    if nodes.len() != perm.len() {
        return Err(layout(format!(
            "the graph holds {} node entries, but {} nodes decode",
            nodes.len(),
            perm.len()
        )));
    }
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..g.payload]);
    let mut slot = 0;
    for f in &gf {
        let src = if f.number == GRAPH_NODE && f.wire_type == 2 {
            slot += 1;
            nodes[perm[slot - 1]]
        } else {
            f
        };
        out.extend_from_slice(&inner[src.start..src.end]);
    }
    out.extend_from_slice(&bytes[g.end..]);
    debug_assert_eq!(out.len(), bytes.len());
    Ok(out)
}

/// `order` as node indices: each node once, after its inputs' producers.
fn check(g: &GraphProto, ids: &[String], order: &[&str]) -> Result<Vec<usize>, Error> {
    let index: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut placed = vec![usize::MAX; ids.len()];
    let mut perm = Vec::with_capacity(order.len());
    for (pos, &op) in order.iter().enumerate() {
        let &i = index
            .get(op)
            .ok_or_else(|| Error::UnknownOp { op: op.to_string() })?;
        if placed[i] != usize::MAX {
            return Err(Error::RepeatedOp { op: op.to_string() });
        }
        placed[i] = pos;
        perm.push(i);
    }
    if let Some(i) = placed.iter().position(|&p| p == usize::MAX) {
        return Err(Error::MissingOp { op: ids[i].clone() });
    }
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (i, n) in g.node.iter().enumerate() {
        for o in n.output.iter().filter(|o| !o.is_empty()) {
            producer.entry(o.as_str()).or_insert(i);
        }
    }
    for &i in &perm {
        let n = &g.node[i];
        let subgraphs: Vec<&GraphProto> = n
            .attribute
            .iter()
            .flat_map(|a| a.g.iter().chain(a.graphs.iter()))
            .collect();
        let (outer, _) = subgraph::outer_scope_reads(&subgraphs);
        let reads = n.input.iter().map(|s| s.as_str()).chain(outer);
        for t in reads.filter(|t| !t.is_empty()) {
            if let Some(&p) = producer.get(t) {
                if placed[p] > placed[i] {
                    return Err(Error::NotTopological {
                        node: ids[i].clone(),
                        tensor: t.to_string(),
                        producer: ids[p].clone(),
                    });
                }
            }
        }
    }
    Ok(perm)
}
