//! Building a [`Graph`] from a parsed spec: the rules of docs/design.md §2 checked one by one
//! (the first broken one is the error, naming the op or tensor), then the memory model derived.

use std::collections::HashMap;

use petgraph::algo::{kosaraju_scc, toposort};
use petgraph::graph::{DiGraph, NodeIndex};

use super::{Graph, MemoryModel, Op, Tensor};
use crate::csr::Csr;
use crate::dtype::{Dtype, DTYPE_NAMES};
use crate::error::Error;
use crate::format::{GraphSpec, OpSpec, TensorSpec, FORMAT};
use crate::id_index::IdIndex;
use crate::sort::CompactSort;
use crate::TensorIx;

impl Graph {
    /// Validates a parsed graph and derives its memory model.
    pub fn from_spec(spec: GraphSpec) -> Result<Graph, Error> {
        validate(spec)
    }
}

fn invalid_tensor(spec: &TensorSpec, reason: impl Into<String>) -> Error {
    Error::InvalidTensor {
        tensor: spec.id.clone(),
        reason: reason.into(),
    }
}

fn tensor_bytes(spec: &TensorSpec) -> Result<(u64, Option<Dtype>), Error> {
    let dtype = match &spec.dtype {
        None => None,
        Some(name) => Some(Dtype::parse(name).ok_or_else(|| {
            invalid_tensor(
                spec,
                format!("unknown dtype {name:?}; expected one of {DTYPE_NAMES}"),
            )
        })?),
    };
    if spec.alias_of.is_some() {
        if spec.bytes.is_some() {
            return Err(invalid_tensor(
                spec,
                "a view (alias_of) has no bytes of its own; remove `bytes`",
            ));
        }
        if spec.donated.is_some() {
            return Err(invalid_tensor(
                spec,
                "`donated` applies to the aliased tensor, not to a view",
            ));
        }
        if spec.shape.is_some() != dtype.is_some() {
            return Err(invalid_tensor(spec, "`shape` and `dtype` go together"));
        }
        return Ok((0, dtype));
    }
    match (spec.bytes, &spec.shape, dtype) {
        (Some(b), None, None) => Ok((b, None)),
        (Some(_), _, _) => Err(invalid_tensor(
            spec,
            "give either `bytes` or `shape` + `dtype`, not both",
        )),
        (None, Some(shape), Some(dt)) => {
            let mut n: u64 = dt.size();
            for &d in shape {
                n = n.checked_mul(d).ok_or_else(|| Error::SizeOverflow {
                    what: format!(
                        "tensor {} of shape {shape:?}",
                        crate::error::show_id(&spec.id)
                    ),
                })?;
            }
            Ok((n, Some(dt)))
        }
        (None, Some(_), None) => Err(invalid_tensor(spec, "`shape` needs a `dtype`")),
        (None, None, Some(_)) => Err(invalid_tensor(spec, "`dtype` needs a `shape`")),
        (None, None, None) => Err(invalid_tensor(
            spec,
            "needs `bytes`, `shape` + `dtype`, or `alias_of`",
        )),
    }
}

fn to_ix(n: usize, what: &str) -> Result<u32, Error> {
    u32::try_from(n)
        .ok()
        .filter(|&x| x < u32::MAX)
        .ok_or_else(|| Error::TooLarge {
            what: format!("more than {} {what}", u32::MAX - 1),
        })
}

/// Checks a parsed graph against every rule of docs/design.md §2 (ids resolved to indices,
/// sizes known, views resolved to their storages, the dependencies between ops deduplicated and
/// acyclic; the first rule broken is the error, naming the op or tensor), then derives its
/// adjacency and memory model.
fn validate(spec: GraphSpec) -> Result<Graph, Error> {
    if let Some(f) = &spec.format {
        if f != FORMAT {
            return Err(Error::BadFormat { found: f.clone() });
        }
    }
    to_ix(spec.tensors.len(), "tensors")?;
    to_ix(spec.ops.len(), "ops")?;

    // Tensors: ids, sizes. The spec is consumed as it is read (ids are moved, not copied),
    // so a huge graph is not held twice.
    let GraphSpec {
        tensors: tensor_specs,
        ops: op_specs,
        outputs: output_names,
        meta,
        ..
    } = spec;
    let mut tensor_index = IdIndex::with_capacity(tensor_specs.len());
    let mut tensors: Vec<Tensor> = Vec::with_capacity(tensor_specs.len());
    let mut alias_names: Vec<(usize, String)> = Vec::new();
    for (i, mut t) in tensor_specs.into_iter().enumerate() {
        if t.id.is_empty() {
            return Err(Error::InvalidTensor {
                tensor: format!("#{i}"),
                reason: "empty id".into(),
            });
        }
        if tensor_index
            .insert(&t.id, i as u32, |j| &tensors[j as usize].id)
            .is_some()
        {
            return Err(Error::DuplicateTensor { tensor: t.id });
        }
        let (bytes, dtype) = tensor_bytes(&t)?;
        if let Some(target) = t.alias_of.take() {
            alias_names.push((i, target));
        }
        tensors.push(Tensor {
            id: t.id,
            bytes,
            shape: t.shape,
            dtype,
            alias_of: None,
            root: i as u32,
            donated: t.donated.unwrap_or(false),
            producer: None,
            meta: t.meta,
        });
    }
    for (i, target) in alias_names {
        let j = tensor_index
            .get(&target, |j| &tensors[j as usize].id)
            .ok_or_else(|| Error::UnknownAlias {
                tensor: tensors[i].id.clone(),
                target,
            })?;
        tensors[i].alias_of = Some(j);
    }
    resolve_roots(&mut tensors)?;

    // Ops: ids, producers.
    let mut op_index = IdIndex::with_capacity(op_specs.len());
    let mut ops: Vec<Op> = Vec::with_capacity(op_specs.len());
    let mut last_reader = vec![u32::MAX; tensors.len()];
    for (i, o) in op_specs.into_iter().enumerate() {
        let op = build_op(o, i, &tensor_index, &mut tensors, &ops, &mut last_reader)?;
        if op_index
            .insert(&op.id, i as u32, |j| &ops[j as usize].id)
            .is_some()
        {
            return Err(Error::DuplicateOp { op: op.id });
        }
        ops.push(op);
    }

    // Graph outputs.
    let mut outputs = Vec::with_capacity(output_names.len());
    let mut is_output = vec![false; tensors.len()];
    for name in output_names {
        let t = tensor_index
            .get(&name, |j| &tensors[j as usize].id)
            .ok_or(Error::UnknownOutput { tensor: name })?;
        if !is_output[t as usize] {
            is_output[t as usize] = true;
            outputs.push(t);
        }
    }

    // A view of a produced tensor cannot be a graph input.
    for t in &tensors {
        if let (Some(target), None) = (t.alias_of, t.producer) {
            if let Some(p) = tensors[target as usize].producer {
                return Err(Error::InvalidTensor {
                    tensor: t.id.clone(),
                    reason: format!(
                        "is a graph input (no op produces it) but aliases {}, which op {} produces",
                        crate::error::show_id(&tensors[target as usize].id),
                        crate::error::show_id(&ops[p as usize].id)
                    ),
                });
            }
        }
    }

    let dep_pairs = dependency_pairs(&tensors, &ops);
    check_acyclic(&ops, &dep_pairs)?;
    assemble(
        tensors,
        ops,
        outputs,
        meta,
        (op_index, tensor_index),
        &dep_pairs,
    )
}

impl Graph {
    /// This graph with each storage of `storages` made a donated graph input: no op makes it
    /// any more (its producer keeps its other outputs), and it may be freed after its last
    /// reader. What the join-free bound plans on (`bounds::join_free`). Only producers change,
    /// so nothing is validated again: the ids, views and order stay, the memory model is
    /// derived anew; tensors and ops keep what the memory model reads (ids, sizes, views,
    /// inputs, outputs, workspace) and drop the rest (shape, dtype, kind, attributes, cost,
    /// meta), as a copy through [`GraphSpec`] with only those would. A view in `storages` is
    /// ignored. `None` only if the sizes overflowed, which the graph's validation excluded.
    pub fn with_inputs(&self, storages: &[TensorIx]) -> Option<Graph> {
        let mut detach = vec![false; self.tensors.len()];
        for &s in storages {
            if let Some(t) = self.tensors.get(s as usize) {
                detach[s as usize] = t.alias_of.is_none();
            }
        }
        let tensors: Vec<Tensor> = self
            .tensors
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let producer = if detach[i] { None } else { t.producer };
                Tensor {
                    id: t.id.clone(),
                    bytes: t.bytes,
                    shape: None,
                    dtype: None,
                    alias_of: t.alias_of,
                    root: t.root,
                    donated: t.alias_of.is_none() && producer.is_none() && (t.donated || detach[i]),
                    producer,
                    meta: None,
                }
            })
            .collect();
        let ops: Vec<Op> = self
            .ops
            .iter()
            .map(|o| Op {
                id: o.id.clone(),
                kind: "op".into(),
                inputs: o.inputs.clone(),
                outputs: o
                    .outputs
                    .iter()
                    .copied()
                    .filter(|&t| !detach[t as usize])
                    .collect(),
                workspace: o.workspace,
                fusible: None,
                attrs: None,
                cost: 1.0,
                recompute: true,
                meta: None,
            })
            .collect();
        let dep_pairs = dependency_pairs(&tensors, &ops);
        let index = (self.op_index.clone(), self.tensor_index.clone());
        assemble(tensors, ops, self.outputs.clone(), None, index, &dep_pairs).ok()
    }
}

/// Op dependencies, sorted and deduplicated as (reader, producer): the producer of each input,
/// and the producer of each view's target.
fn dependency_pairs(tensors: &[Tensor], ops: &[Op]) -> Vec<(u32, u32)> {
    let mut dep_pairs: Vec<(u32, u32)> = Vec::new();
    for (v, op) in ops.iter().enumerate() {
        for &t in &op.inputs {
            if let Some(p) = tensors[t as usize].producer {
                dep_pairs.push((v as u32, p));
            }
        }
        for &t in &op.outputs {
            if let Some(target) = tensors[t as usize].alias_of {
                if let Some(p) = tensors[target as usize].producer {
                    if p != v as u32 {
                        dep_pairs.push((v as u32, p));
                    }
                }
            }
        }
    }
    dep_pairs.sort_unstable_compact();
    dep_pairs.dedup();
    dep_pairs
}

/// The graph of checked tensors, ops and acyclic dependencies: adjacency and memory model.
fn assemble(
    tensors: Vec<Tensor>,
    ops: Vec<Op>,
    outputs: Vec<TensorIx>,
    meta: Option<serde_json::Map<String, serde_json::Value>>,
    (op_index, tensor_index): (IdIndex, IdIndex),
    dep_pairs: &[(u32, u32)],
) -> Result<Graph, Error> {
    let program_topological = dep_pairs.iter().all(|&(v, p)| p < v);
    let preds = Csr::from_pairs(ops.len(), dep_pairs);
    let mut rev: Vec<(u32, u32)> = dep_pairs.iter().map(|&(v, p)| (p, v)).collect();
    rev.sort_unstable_compact();
    let succs = Csr::from_pairs(ops.len(), &rev);
    let mem = derive_memory(&tensors, &ops, &outputs)?;
    Ok(Graph {
        tensors,
        ops,
        outputs,
        meta,
        op_index,
        tensor_index,
        preds,
        succs,
        program_topological,
        mem,
    })
}

/// Derives the memory model of a validated graph: storage sizes, which are pinned, what each
/// op reads and makes, and each storage's users. Fails only when sizes overflow u64.
fn derive_memory(
    tensors: &[Tensor],
    ops: &[Op],
    outputs: &[TensorIx],
) -> Result<MemoryModel, Error> {
    let (n_ops, n_tensors) = (ops.len(), tensors.len());
    // Memory model.
    let mut size = vec![0u64; n_tensors];
    let mut pinned = vec![false; n_tensors];
    for (i, t) in tensors.iter().enumerate() {
        if t.alias_of.is_none() {
            size[i] = t.bytes;
            if t.producer.is_none() && !t.donated {
                pinned[i] = true;
            }
        }
    }
    for &t in outputs {
        pinned[tensors[t as usize].root as usize] = true;
    }
    let mut read_pairs: Vec<(u32, u32)> = Vec::new();
    for (v, op) in ops.iter().enumerate() {
        for &t in &op.inputs {
            read_pairs.push((v as u32, tensors[t as usize].root));
        }
        for &t in &op.outputs {
            let root = tensors[t as usize].root;
            if root != t && tensors[root as usize].producer != Some(v as u32) {
                read_pairs.push((v as u32, root));
            }
        }
    }
    read_pairs.sort_unstable_compact();
    read_pairs.dedup();
    let reads = Csr::from_pairs(n_ops, &read_pairs);
    let mut user_pairs: Vec<(u32, u32)> = read_pairs.iter().map(|&(v, s)| (s, v)).collect();
    user_pairs.sort_unstable_compact();
    let users = Csr::from_pairs(n_tensors, &user_pairs);
    let creates = Csr::from_rows(ops.iter().map(|op| {
        op.outputs
            .iter()
            .copied()
            .filter(|&t| tensors[t as usize].alias_of.is_none())
            .collect::<Vec<_>>()
    }));

    // Every sum the simulator can form is at most (all storage) + (largest workspace), so
    // checking that once here lets every later sum use plain u64 arithmetic safely.
    let mut total: u64 = 0;
    let mut inputs_bytes: u64 = 0;
    for (i, t) in tensors.iter().enumerate() {
        total = total
            .checked_add(size[i])
            .ok_or_else(|| Error::SizeOverflow {
                what: format!(
                    "the total size of all tensors, at tensor {}",
                    crate::error::show_id(&t.id)
                ),
            })?;
        if t.producer.is_none() {
            inputs_bytes += size[i];
        }
    }
    let mut alloc = vec![0u64; n_ops];
    for v in 0..n_ops {
        alloc[v] = creates
            .row(v as u32)
            .iter()
            .map(|&s| size[s as usize])
            .sum();
        total
            .checked_add(ops[v].workspace)
            .ok_or_else(|| Error::SizeOverflow {
                what: format!(
                    "the total size of all tensors plus the workspace of op {}",
                    crate::error::show_id(&ops[v].id)
                ),
            })?;
    }
    Ok(MemoryModel {
        size,
        users,
        pinned,
        reads,
        creates,
        alloc,
        workspace: ops.iter().map(|o| o.workspace).collect(),
        inputs_bytes,
    })
}

fn build_op(
    o: OpSpec,
    i: usize,
    tensor_index: &IdIndex,
    tensors: &mut [Tensor],
    built: &[Op],
    last_reader: &mut [u32],
) -> Result<Op, Error> {
    if o.id.is_empty() {
        return Err(Error::InvalidOp {
            op: format!("#{i}"),
            reason: "empty id".into(),
        });
    }
    let lookup = |name: &String, tensors: &[Tensor]| {
        tensor_index
            .get(name, |j| &tensors[j as usize].id)
            .ok_or_else(|| Error::UnknownTensor {
                op: o.id.clone(),
                tensor: name.clone(),
            })
    };
    let mut inputs = Vec::with_capacity(o.inputs.len());
    for name in &o.inputs {
        let t = lookup(name, tensors)?;
        // A repeated input counts once; `last_reader` makes the check O(1), so a 100,000-way
        // join does not go quadratic.
        if last_reader[t as usize] != i as u32 {
            last_reader[t as usize] = i as u32;
            inputs.push(t);
        }
    }
    let mut outputs = Vec::with_capacity(o.outputs.len());
    for name in &o.outputs {
        let t = lookup(name, tensors)?;
        if let Some(first) = tensors[t as usize].producer {
            // The first producer is this op itself, or an op built before it.
            let first = if first as usize == i {
                o.id.clone()
            } else {
                built[first as usize].id.clone()
            };
            return Err(Error::ProducedTwice {
                tensor: name.clone(),
                first,
                second: o.id.clone(),
            });
        }
        tensors[t as usize].producer = Some(i as u32);
        outputs.push(t);
    }
    Ok(Op {
        cost: o.checked_cost()?, // first: the fields after it move out of `o`
        id: o.id,
        kind: o.kind.unwrap_or_else(|| "op".to_string()),
        inputs,
        outputs,
        workspace: o.workspace.unwrap_or(0),
        fusible: o.fusible,
        attrs: o.attrs,
        recompute: o.recompute.unwrap_or(true),
        meta: o.meta,
    })
}

/// Follows `alias_of` chains to their storage root, iteratively, reporting a loop by its tensors.
fn resolve_roots(tensors: &mut [Tensor]) -> Result<(), Error> {
    const UNSEEN: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![UNSEEN; tensors.len()];
    let mut path: Vec<usize> = Vec::new();
    for start in 0..tensors.len() {
        if state[start] == DONE {
            continue;
        }
        path.clear();
        let mut t = start;
        let root = loop {
            if state[t] == DONE {
                break tensors[t].root;
            }
            if state[t] == ON_PATH {
                let pos = path.iter().position(|&x| x == t).unwrap_or(0);
                let mut names: Vec<String> =
                    path[pos..].iter().map(|&x| tensors[x].id.clone()).collect();
                names.push(tensors[t].id.clone());
                return Err(Error::AliasCycle { tensors: names });
            }
            state[t] = ON_PATH;
            path.push(t);
            match tensors[t].alias_of {
                Some(next) => t = next as usize,
                None => break t as u32,
            }
        };
        for &x in &path {
            tensors[x].root = root;
            state[x] = DONE;
        }
    }
    Ok(())
}

/// Rejects dependency cycles, naming the ops on one cycle.
fn check_acyclic(ops: &[Op], dep_pairs: &[(u32, u32)]) -> Result<(), Error> {
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(ops.len(), dep_pairs.len());
    for _ in 0..ops.len() {
        g.add_node(());
    }
    for &(v, p) in dep_pairs {
        g.add_edge(NodeIndex::new(p as usize), NodeIndex::new(v as usize), ());
    }
    if toposort(&g, None).is_ok() {
        return Ok(());
    }
    // Find a strongly connected component with a cycle, then one cycle inside it by BFS.
    let sccs = kosaraju_scc(&g);
    let comp = sccs
        .into_iter()
        .find(|c| c.len() > 1 || g.contains_edge(c[0], c[0]))
        .unwrap_or_default();
    let Some(&start) = comp.first() else {
        return Err(Error::Cycle { ops: vec![] });
    };
    let in_comp: std::collections::HashSet<NodeIndex> = comp.iter().copied().collect();
    let mut parent: HashMap<NodeIndex, NodeIndex> = HashMap::new();
    let mut queue = std::collections::VecDeque::new();
    queue.push_back(start);
    let mut closing = None;
    'bfs: while let Some(x) = queue.pop_front() {
        for y in g.neighbors(x) {
            if y == start {
                closing = Some(x);
                break 'bfs;
            }
            if in_comp.contains(&y) && !parent.contains_key(&y) {
                parent.insert(y, x);
                queue.push_back(y);
            }
        }
    }
    let mut cycle = vec![];
    let mut x = closing.unwrap_or(start);
    loop {
        cycle.push(x);
        if x == start {
            break;
        }
        x = parent[&x];
    }
    cycle.reverse();
    cycle.push(start);
    Err(Error::Cycle {
        ops: cycle
            .into_iter()
            .map(|n| ops[n.index()].id.clone())
            .collect(),
    })
}
