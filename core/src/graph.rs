//! The validated graph: ops and tensors with compact integer indices, producer/consumer
//! adjacency, and the derived memory model of docs/design.md §1 that every simulator and planner reads.
//!
//! Memory is accounted per *storage*: a tensor that is not a view owns its storage; a view
//! (`alias_of`) shares the storage of its alias root and counts 0 bytes. A storage's *users* are
//! the ops that read any tensor sharing it, plus the producers of its views (other than the root's
//! own producer); it is freed after its last user runs, or right after its producer when it has no
//! users, unless it is *pinned* (a graph output shares it, or it is a graph input not `donated`).
//!
//! A view can only exist once its storage does, so the producer of a view is ordered after the
//! producer of the tensor it aliases even when it does not list that tensor as an input.

use serde_json::{Map, Value};

use crate::csr::Csr;
use crate::dtype::Dtype;
use crate::error::Error;
use crate::format::GraphSpec;
use crate::id_index::IdIndex;
use crate::{OpIx, TensorIx};

mod build;

/// A tensor of a validated graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Its id in the file.
    pub id: String,
    /// Bytes of its own storage; 0 for a view.
    pub bytes: u64,
    /// Its shape, when the file gave `shape` + `dtype`.
    pub shape: Option<Vec<u64>>,
    /// Its element type, when the file gave one.
    pub dtype: Option<Dtype>,
    /// The tensor this one is a view of, if any.
    pub alias_of: Option<TensorIx>,
    /// The storage this tensor lives in: itself unless it is a view.
    pub root: TensorIx,
    /// A graph input the planner may free once its last reader ran.
    pub donated: bool,
    /// The op that produces it; `None` for a graph input.
    pub producer: Option<OpIx>,
    /// The user's own data from the file.
    pub meta: Option<Map<String, Value>>,
}

/// An op of a validated graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// Its id in the file.
    pub id: String,
    /// What it computes (`"op"` when the file gave no `kind`).
    pub kind: String,
    /// Input tensors as written, repeats removed (a repeated input counts once).
    pub inputs: Vec<TensorIx>,
    /// Output tensors as written.
    pub outputs: Vec<TensorIx>,
    /// Scratch bytes it needs while it runs.
    pub workspace: u64,
    /// The fusion group it may be fused with.
    pub fusible: Option<String>,
    /// Attributes for executors.
    pub attrs: Option<Map<String, Value>>,
    /// What one run costs (finite, non-negative; 1 when the file gives none).
    pub cost: f64,
    /// False for an op that must run exactly once in a schedule.
    pub recompute: bool,
    /// The user's own data from the file.
    pub meta: Option<Map<String, Value>>,
}

/// A validated graph. Build it with [`Graph::from_json`] or [`Graph::from_spec`].
#[derive(Clone, Debug)]
pub struct Graph {
    tensors: Vec<Tensor>,
    ops: Vec<Op>,
    outputs: Vec<TensorIx>,
    meta: Option<Map<String, Value>>,
    op_index: IdIndex,
    tensor_index: IdIndex,
    // Dependencies between ops, deduplicated.
    preds: Csr,
    succs: Csr,
    // Whether the file's order is topological: known from the dependency pairs at validation,
    // so the program order costs no pass when a plan asks for it (every plan does).
    program_topological: bool,
    // The memory model.
    mem: MemoryModel,
}

/// The memory model of docs/design.md §1 that the simulator and the planners read, indexed by
/// storage (only storage roots have non-zero entries) and by op.
#[derive(Clone, Debug)]
struct MemoryModel {
    size: Vec<u64>,
    users: Csr,
    pinned: Vec<bool>,
    reads: Csr,
    creates: Csr,
    alloc: Vec<u64>,
    // Each op's workspace, dense: the simulator reads it every step (an `Op` is a few cache
    // lines wide).
    workspace: Vec<u64>,
    inputs_bytes: u64,
}

impl Graph {
    /// Parses and validates graph JSON.
    pub fn from_json(text: &str) -> Result<Graph, Error> {
        Graph::from_spec(GraphSpec::from_json(text)?)
    }

    /// The tensors, in the file's order.
    pub fn tensors(&self) -> &[Tensor] {
        &self.tensors
    }
    /// Whether the file's order (the program order) is topological.
    pub fn program_is_topological(&self) -> bool {
        self.program_topological
    }
    /// The ops, in the file's order (the program order).
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }
    /// Graph outputs, deduplicated, in the file's order.
    pub fn outputs(&self) -> &[TensorIx] {
        &self.outputs
    }
    /// The graph's `meta` object, if any.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.meta.as_ref()
    }
    // The accessors below are always inlined: the wasm build (opt-level "z") would otherwise
    // call each one (see `Csr::row`), and the simulator and orderers use them in inner loops
    // (the proof path ran about 1.2x faster in wasm with them inlined; docs/wasm.md "Speed").
    /// Number of ops.
    #[inline(always)]
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }
    /// Number of tensors.
    #[inline(always)]
    pub fn num_tensors(&self) -> usize {
        self.tensors.len()
    }
    /// Index of the op with this id.
    pub fn op_ix(&self, id: &str) -> Option<OpIx> {
        self.op_index.get(id, |j| &self.ops[j as usize].id)
    }
    /// Index of the tensor with this id.
    pub fn tensor_ix(&self, id: &str) -> Option<TensorIx> {
        self.tensor_index.get(id, |j| &self.tensors[j as usize].id)
    }
    /// Ops that must run before `v` (deduplicated).
    #[inline(always)]
    pub fn preds(&self, v: OpIx) -> &[OpIx] {
        self.preds.row(v)
    }
    /// Ops that must run after `v` (deduplicated).
    #[inline(always)]
    pub fn succs(&self, v: OpIx) -> &[OpIx] {
        self.succs.row(v)
    }
    /// Storage size of tensor `t` (0 unless `t` is a storage root).
    #[inline(always)]
    pub fn size(&self, t: TensorIx) -> u64 {
        self.mem.size[t as usize]
    }
    /// The ops whose running keeps storage `s` alive (empty unless `s` is a root).
    #[inline(always)]
    pub fn users(&self, s: TensorIx) -> &[OpIx] {
        self.mem.users.row(s)
    }
    /// True when storage `s` is never freed.
    #[inline(always)]
    pub fn pinned(&self, s: TensorIx) -> bool {
        self.mem.pinned[s as usize]
    }
    /// Distinct storages op `v` reads (keeps alive until it has run).
    #[inline(always)]
    pub fn reads(&self, v: OpIx) -> &[TensorIx] {
        self.mem.reads.row(v)
    }
    /// Storages op `v` allocates.
    #[inline(always)]
    pub fn creates(&self, v: OpIx) -> &[TensorIx] {
        self.mem.creates.row(v)
    }
    /// Bytes op `v` allocates for its outputs.
    #[inline(always)]
    pub fn alloc(&self, v: OpIx) -> u64 {
        self.mem.alloc[v as usize]
    }
    /// Scratch bytes op `v` needs while it runs.
    #[inline(always)]
    pub fn workspace(&self, v: OpIx) -> u64 {
        self.mem.workspace[v as usize]
    }
    /// Memory at the start: all graph inputs.
    pub fn inputs_bytes(&self) -> u64 {
        self.mem.inputs_bytes
    }
    /// Storages live at the start (graph inputs that own storage).
    pub fn input_storages(&self) -> impl Iterator<Item = TensorIx> + '_ {
        (0..self.tensors.len() as u32).filter(|&t| {
            self.tensors[t as usize].producer.is_none()
                && self.tensors[t as usize].alias_of.is_none()
        })
    }
    /// The ops' ids for an order of indices.
    pub fn op_ids(&self, order: &[OpIx]) -> Vec<String> {
        order
            .iter()
            .map(|&v| self.ops[v as usize].id.clone())
            .collect()
    }

    /// Resolves an order given as op ids, checking it is a complete topological order.
    pub fn order_from_ids<S: AsRef<str>>(&self, ids: &[S]) -> Result<Vec<OpIx>, Error> {
        let mut order = Vec::with_capacity(ids.len());
        for id in ids {
            let id = id.as_ref();
            order.push(
                self.op_ix(id)
                    .ok_or_else(|| Error::UnknownOp { op: id.to_string() })?,
            );
        }
        self.check_order(&order)?;
        Ok(order)
    }

    /// Checks that `order` lists every op once, each after its predecessors; the error names the
    /// first offending op.
    pub fn check_order(&self, order: &[OpIx]) -> Result<(), Error> {
        let n = self.ops.len();
        let mut done = vec![false; n];
        for &v in order {
            let Some(slot) = done.get(v as usize) else {
                return Err(Error::UnknownOp {
                    op: format!("#{v}"),
                });
            };
            if *slot {
                return Err(Error::RepeatedOp {
                    op: self.ops[v as usize].id.clone(),
                });
            }
            if let Some(&p) = self.preds(v).iter().find(|&&p| !done[p as usize]) {
                return Err(self.not_topological(v, p));
            }
            done[v as usize] = true;
        }
        if order.len() < n {
            let missing: Vec<usize> = (0..n).filter(|&v| !done[v]).collect();
            return Err(Error::MissingOp {
                op: self.ops[missing[0]].id.clone(),
                count: missing.len(),
            });
        }
        Ok(())
    }

    /// The error for `v` run before its predecessor `p`, naming the tensor that links them.
    pub(crate) fn not_topological(&self, v: OpIx, p: OpIx) -> Error {
        let op = &self.ops[v as usize];
        let made_by_p = |t: &Tensor| (t.producer == Some(p)).then(|| t.id.clone());
        let tensor = op.inputs.iter().chain(&op.outputs).find_map(|&t| {
            let t = &self.tensors[t as usize];
            let base = t.alias_of.map(|a| &self.tensors[a as usize]);
            made_by_p(t).or_else(|| base.and_then(made_by_p))
        });
        let (op, needs) = (op.id.clone(), self.ops[p as usize].id.clone());
        let tensor = tensor.unwrap_or_default();
        Error::NotTopological { op, needs, tensor }
    }

    /// True when every op's outputs feed at most one other op (an in-forest, docs/design.md's Liu case),
    /// counting views as their storage.
    pub fn is_in_forest(&self) -> bool {
        (0..self.ops.len() as u32).all(|v| self.succs(v).len() <= 1)
    }
}
