//! Contracting sets of ops into region ops (docs/design.md §4): the quotient graph of a partition of
//! the ops, as in graph contraction for operator fusion (e.g. Jia et al., "TASO", SOSP 2019;
//! Niu et al., "DNNFusion", PLDI 2021, which fuse by contracting op groups of a DAG and reject a
//! group whose contraction would create a cycle).
//!
//! A region runs as one op: its inputs are the tensors its members read from outside, its outputs
//! the tensors it makes that an op outside reads, that are graph outputs, or that back a view kept
//! outside it; its workspace is the largest of its members'. Every other tensor its members make
//! exists only inside the kernel and vanishes from the graph, so it never occupies memory.
//!
//! The result is built as a [`GraphSpec`] and validated again by [`Graph::from_spec`], so a fused
//! graph obeys exactly the rules of a graph read from a file.

use crate::sort::CompactSort;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::format::{GraphSpec, OpSpec, TensorSpec, FORMAT};
use crate::graph::Graph;
use crate::{OpIx, TensorIx};

/// A graph with some of its ops contracted into regions.
#[derive(Clone, Debug)]
pub struct Contracted {
    /// The fused graph. Its file order is a topological order that keeps the input graph's file
    /// order as far as the regions allow (each op placed by its earliest member).
    pub graph: Graph,
    /// For each op of the input graph, the op of `graph` that runs it.
    pub op_of: Vec<OpIx>,
    /// For each op of `graph`, the ops of the input graph it runs, in file order.
    pub members: Vec<Vec<OpIx>>,
}

/// The id a region gets: its members' ids, in file order, joined with `+`.
pub fn region_name(g: &Graph, members: &[OpIx]) -> String {
    let mut sorted = members.to_vec();
    sorted.sort_unstable_compact();
    let ids: Vec<&str> = sorted
        .iter()
        .map(|&v| g.ops()[v as usize].id.as_str())
        .collect();
    ids.join("+")
}

/// A topological order of the blocks of a partition (`block_of[v]` for each op, blocks numbered
/// `0..n_blocks`), choosing among ready blocks the one with the smallest `priority`, then the
/// smaller index. On a cycle, returns the blocks of one cycle in dependency order.
pub(crate) fn block_order(
    g: &Graph,
    block_of: &[u32],
    n_blocks: usize,
    priority: &[u64],
) -> Result<Vec<u32>, Vec<u32>> {
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for v in 0..g.num_ops() as OpIx {
        let bv = block_of[v as usize];
        for &p in g.preds(v) {
            let bp = block_of[p as usize];
            if bp != bv {
                edges.push((bp, bv));
            }
        }
    }
    edges.sort_unstable_compact();
    edges.dedup();
    let mut indeg = vec![0u32; n_blocks];
    let mut start = vec![0usize; n_blocks + 1];
    for &(a, b) in &edges {
        indeg[b as usize] += 1;
        start[a as usize + 1] += 1;
    }
    for i in 0..n_blocks {
        start[i + 1] += start[i];
    }
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = (0..n_blocks as u32)
        .filter(|&b| indeg[b as usize] == 0)
        .map(|b| Reverse((priority[b as usize], b)))
        .collect();
    let mut order = Vec::with_capacity(n_blocks);
    while let Some(Reverse((_, b))) = heap.pop() {
        order.push(b);
        for &(_, c) in &edges[start[b as usize]..start[b as usize + 1]] {
            indeg[c as usize] -= 1;
            if indeg[c as usize] == 0 {
                heap.push(Reverse((priority[c as usize], c)));
            }
        }
    }
    if order.len() == n_blocks {
        return Ok(order);
    }
    // Every block left over has a predecessor left over: walk predecessors until one repeats.
    let mut pred_of = vec![u32::MAX; n_blocks];
    for &(a, b) in &edges {
        if indeg[a as usize] > 0 && indeg[b as usize] > 0 {
            pred_of[b as usize] = a;
        }
    }
    let first = (0..n_blocks).find(|&b| indeg[b] > 0).unwrap_or(0) as u32;
    let mut seen = vec![usize::MAX; n_blocks];
    let mut walk = Vec::new();
    let mut b = first;
    while b != u32::MAX && seen[b as usize] == usize::MAX {
        seen[b as usize] = walk.len();
        walk.push(b);
        b = pred_of[b as usize];
    }
    let mut cycle: Vec<u32> = if b == u32::MAX {
        walk
    } else {
        walk[seen[b as usize]..].to_vec()
    };
    cycle.reverse();
    if let Some(&f) = cycle.first() {
        cycle.push(f);
    }
    Err(cycle)
}

/// Contracts each of `regions` into one op. A region of one op leaves it as it is; a region of
/// two or more must have members sharing one `fusible` tag. Regions must not overlap, and the
/// contraction must not create a cycle.
pub fn contract(g: &Graph, regions: &[Vec<OpIx>]) -> Result<Contracted, Error> {
    let n = g.num_ops();
    const NONE: u32 = u32::MAX;
    let mut region_of = vec![NONE; n];
    let mut names: Vec<String> = Vec::with_capacity(regions.len());
    for (r, members) in regions.iter().enumerate() {
        let name = if members.iter().all(|&v| (v as usize) < n) {
            region_name(g, members)
        } else {
            format!("region #{r}")
        };
        let bad = |reason: String| Error::BadRegion {
            region: name.clone(),
            reason,
        };
        if members.is_empty() {
            return Err(bad("it has no ops".into()));
        }
        let mut tag: Option<&str> = None;
        for &v in members {
            let Some(op) = g.ops().get(v as usize) else {
                return Err(bad(format!("op index {v} is out of range")));
            };
            if region_of[v as usize] != NONE {
                let other = region_of[v as usize] as usize;
                return Err(bad(if other == r {
                    format!("it lists op {} twice", crate::error::show_id(&op.id))
                } else {
                    format!(
                        "op {} is also in region {}",
                        crate::error::show_id(&op.id),
                        crate::error::show_id(&names[other])
                    )
                }));
            }
            region_of[v as usize] = r as u32;
            if members.len() > 1 {
                let Some(t) = op.fusible.as_deref() else {
                    return Err(bad(format!(
                        "op {} is not fusible (it has no `fusible` tag)",
                        crate::error::show_id(&op.id)
                    )));
                };
                match tag {
                    None => tag = Some(t),
                    Some(t0) if t0 != t => {
                        return Err(bad(format!(
                            "op {} is fusible by {}, not {}",
                            crate::error::show_id(&op.id),
                            crate::error::show_id(t),
                            crate::error::show_id(t0)
                        )))
                    }
                    Some(_) => {}
                }
            }
        }
        if members.len() > 1 {
            if let Some(other) = g
                .op_ix(&name)
                .filter(|&o| region_of[o as usize] != r as u32)
            {
                return Err(bad(format!(
                    "its name is already the id of op #{other}; rename that op"
                )));
            }
        }
        names.push(name);
    }

    // Blocks in the order of their earliest member in the file.
    let mut block_of = vec![NONE; n];
    let mut block_members: Vec<Vec<OpIx>> = Vec::new();
    let mut region_block = vec![NONE; regions.len()];
    for v in 0..n {
        let r = region_of[v];
        let b = if r == NONE {
            block_members.push(Vec::new());
            (block_members.len() - 1) as u32
        } else {
            if region_block[r as usize] == NONE {
                block_members.push(Vec::new());
                region_block[r as usize] = (block_members.len() - 1) as u32;
            }
            region_block[r as usize]
        };
        block_of[v] = b;
        block_members[b as usize].push(v as OpIx);
    }
    let n_blocks = block_members.len();
    let block_name = |b: u32| -> String { region_name(g, &block_members[b as usize]) };
    let priority: Vec<u64> = (0..n_blocks as u64).collect();
    let order =
        block_order(g, &block_of, n_blocks, &priority).map_err(|cycle| Error::RegionCycle {
            ops: cycle.into_iter().map(block_name).collect(),
        })?;

    let tensors = g.tensors();
    let prod_block = |t: TensorIx| tensors[t as usize].producer.map(|p| block_of[p as usize]);
    let in_region = |b: u32| block_members[b as usize].len() > 1;

    // Which tensors survive: everything except what a region makes and uses only inside.
    // Seeds are tensors needed for their own sake; a kept view keeps its whole alias chain, and a
    // view made outside the block of the tensor it aliases keeps that tensor.
    let mut seeds: Vec<TensorIx> = Vec::new();
    for (i, t) in tensors.iter().enumerate() {
        match t.producer {
            None => seeds.push(i as u32),
            Some(p) if !in_region(block_of[p as usize]) => seeds.push(i as u32),
            Some(_) => {}
        }
        if let Some(target) = t.alias_of {
            if prod_block(i as u32) != prod_block(target) {
                seeds.push(target);
            }
        }
    }
    seeds.extend(g.outputs().iter().copied());
    for (v, op) in g.ops().iter().enumerate() {
        for &t in &op.inputs {
            if prod_block(t) != Some(block_of[v]) {
                seeds.push(t);
            }
        }
    }
    let mut kept = vec![false; tensors.len()];
    for s in seeds {
        let mut cur = s;
        while !kept[cur as usize] {
            kept[cur as usize] = true;
            match tensors[cur as usize].alias_of {
                Some(next) => cur = next,
                None => break,
            }
        }
    }

    let tensor_specs: Vec<TensorSpec> = (0..tensors.len() as TensorIx)
        .filter(|&t| kept[t as usize])
        .map(|t| tensor_spec(g, t))
        .collect();

    let tid = |t: TensorIx| tensors[t as usize].id.clone();
    let mut op_specs = Vec::with_capacity(n_blocks);
    for &b in &order {
        let members = &block_members[b as usize];
        if members.len() == 1 {
            op_specs.push(op_spec(g, members[0]));
            continue;
        }
        let mut inputs: Vec<TensorIx> = Vec::new();
        let mut outputs: Vec<TensorIx> = Vec::new();
        let mut workspace = 0u64;
        for &m in members {
            let op = &g.ops()[m as usize];
            workspace = workspace.max(op.workspace);
            for &t in &op.inputs {
                if prod_block(t) != Some(b) {
                    inputs.push(t);
                }
            }
            for &t in &op.outputs {
                if kept[t as usize] {
                    outputs.push(t);
                } else {
                    // A view that vanishes still needs the storage it aliases: the region reads
                    // the first tensor up its chain that comes from outside.
                    let mut cur = tensors[t as usize].alias_of;
                    while let Some(a) = cur {
                        if prod_block(a) != Some(b) {
                            inputs.push(a);
                            break;
                        }
                        cur = tensors[a as usize].alias_of;
                    }
                }
            }
        }
        let mut seen = std::collections::HashSet::with_capacity(inputs.len());
        inputs.retain(|t| seen.insert(*t));
        let mut attrs = Map::new();
        attrs.insert(
            "members".into(),
            Value::Array(
                members
                    .iter()
                    .map(|&m| Value::String(g.ops()[m as usize].id.clone()))
                    .collect(),
            ),
        );
        op_specs.push(OpSpec {
            id: block_name(b),
            kind: Some("fusion".into()),
            inputs: inputs.into_iter().map(tid).collect(),
            outputs: outputs.into_iter().map(tid).collect(),
            workspace: (workspace > 0).then_some(workspace),
            fusible: g.ops()[members[0] as usize].fusible.clone(),
            attrs: Some(attrs),
            // A region runs (and is recomputed) as one op: its members' costs add up, and it
            // runs once when any member must.
            cost: Some(members.iter().map(|&m| g.ops()[m as usize].cost).sum()),
            recompute: (!members.iter().all(|&m| g.ops()[m as usize].recompute)).then_some(false),
            meta: None,
        });
    }

    let spec = GraphSpec {
        format: Some(FORMAT.into()),
        tensors: tensor_specs,
        ops: op_specs,
        outputs: g.outputs().iter().map(|&t| tid(t)).collect(),
        meta: g.meta().cloned(),
    };
    let graph = Graph::from_spec(spec).map_err(|e| match e {
        // Only names can clash here: two regions whose joined ids coincide.
        Error::DuplicateOp { op } => Error::BadRegion {
            region: op,
            reason: "two ops of the fused graph get this name; rename the ops".into(),
        },
        e => e,
    })?;
    let mut pos = vec![0 as OpIx; n_blocks];
    for (i, &b) in order.iter().enumerate() {
        pos[b as usize] = i as OpIx;
    }
    let op_of = block_of.iter().map(|&b| pos[b as usize]).collect();
    let members = order
        .iter()
        .map(|&b| block_members[b as usize].clone())
        .collect();
    Ok(Contracted {
        graph,
        op_of,
        members,
    })
}

/// A tensor as it would be written in a file.
pub fn tensor_spec(g: &Graph, t: TensorIx) -> TensorSpec {
    let tensors = g.tensors();
    let x = &tensors[t as usize];
    let (shape, dtype) = match (&x.shape, x.dtype) {
        (Some(s), Some(d)) => (Some(s.clone()), Some(d.name().to_string())),
        _ => (None, None),
    };
    TensorSpec {
        id: x.id.clone(),
        bytes: (x.alias_of.is_none() && shape.is_none()).then_some(x.bytes),
        shape,
        dtype,
        alias_of: x.alias_of.map(|a| tensors[a as usize].id.clone()),
        donated: x.donated.then_some(true),
        meta: x.meta.clone(),
    }
}

/// An op as it would be written in a file.
pub fn op_spec(g: &Graph, v: OpIx) -> OpSpec {
    let tid = |t: &TensorIx| g.tensors()[*t as usize].id.clone();
    let op = &g.ops()[v as usize];
    OpSpec {
        id: op.id.clone(),
        kind: Some(op.kind.clone()),
        inputs: op.inputs.iter().map(tid).collect(),
        outputs: op.outputs.iter().map(tid).collect(),
        workspace: (op.workspace > 0).then_some(op.workspace),
        fusible: op.fusible.clone(),
        attrs: op.attrs.clone(),
        cost: (op.cost != 1.0).then_some(op.cost),
        recompute: (!op.recompute).then_some(false),
        meta: op.meta.clone(),
    }
}

/// A validated graph written back as a file would hold it (e.g. a fused graph, to save or to
/// read again); reading it back gives the same graph.
pub fn graph_spec(g: &Graph) -> GraphSpec {
    GraphSpec {
        format: Some(FORMAT.into()),
        tensors: (0..g.num_tensors() as TensorIx)
            .map(|t| tensor_spec(g, t))
            .collect(),
        ops: (0..g.num_ops() as OpIx).map(|v| op_spec(g, v)).collect(),
        outputs: g
            .outputs()
            .iter()
            .map(|&t| g.tensors()[t as usize].id.clone())
            .collect(),
        meta: g.meta().cloned(),
    }
}
