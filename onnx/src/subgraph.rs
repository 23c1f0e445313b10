//! Nodes with subgraphs (If, Loop, Scan) are planned as one op: the values their bodies read
//! from the outer graph become the op's inputs, since they must stay alive while it runs.

use std::collections::HashSet;

use super::proto::GraphProto;

/// Names that nodes inside `subgraphs` (at any depth) read but that no subgraph defines: the
/// outer-scope values the op needs. Walks with an explicit stack: bodies nest arbitrarily deep.
pub fn outer_scope_reads<'a>(subgraphs: &[&'a GraphProto]) -> (Vec<&'a str>, usize) {
    let mut defined: HashSet<&str> = HashSet::new();
    let mut read: Vec<&str> = Vec::new();
    let mut nodes = 0usize;
    let mut stack: Vec<&GraphProto> = subgraphs.to_vec();
    while let Some(g) = stack.pop() {
        for v in &g.input {
            defined.insert(v.name.as_deref().unwrap_or(""));
        }
        for t in &g.initializer {
            defined.insert(t.name.as_deref().unwrap_or(""));
        }
        for n in &g.node {
            nodes += 1;
            for o in &n.output {
                defined.insert(o);
            }
            read.extend(n.input.iter().map(|s| s.as_str()));
            for a in &n.attribute {
                stack.extend(a.g.iter());
                stack.extend(a.graphs.iter());
            }
        }
        // A body's outputs may name outer values directly.
        read.extend(g.output.iter().filter_map(|v| v.name.as_deref()));
    }
    let mut seen = HashSet::new();
    let outer = read
        .into_iter()
        .filter(|s| !s.is_empty() && !defined.contains(s) && seen.insert(*s))
        .collect();
    (outer, nodes)
}
