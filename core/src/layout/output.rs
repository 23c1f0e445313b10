//! What a layout reports (`peakorder layout --json`, docs/design.md §6): the arena, its bound,
//! and every tensor's (or CSV buffer's) offset and lifetime.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::OpIx;

/// Ids and their offsets, written as one JSON object in this order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdOffsets(pub Vec<(String, u64)>);

impl Serialize for IdOffsets {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (id, off) in &self.0 {
            m.serialize_entry(id, off)?;
        }
        m.end()
    }
}

/// One buffer of a graph's layout, for drawing the arena (offset × step).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BufferRow {
    /// `"tensor"` (a storage: the id is its root tensor's) or `"workspace"` (the id is the op's).
    pub kind: &'static str,
    /// The tensor's or op's id.
    pub id: String,
    /// Its offset in the arena.
    pub offset: u64,
    /// Bytes reserved: the size rounded up to the alignment.
    pub bytes: u64,
    /// First and last step it is live, inclusive: 0 is the start, `k` is while the `k`-th op of
    /// the order runs (1-based, as `simulate` numbers its steps).
    pub first_step: u64,
    /// Last step it is live (inclusive).
    pub last_step: u64,
    /// In a schedule, for a storage made (or a workspace used) by more than one run: which run
    /// this buffer is, from 1 (each run's outputs are a buffer of their own). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<u32>,
}

/// A graph's layout (`peakorder layout --json`, `docs/design.md` §6).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Layout {
    /// Bytes of the one arena that runs the order.
    pub arena_bytes: u64,
    /// A proven lower bound on the arena of this order: its peak after alignment, or more.
    pub lower_bound_bytes: u64,
    /// True only when proven: the arena meets the bound.
    pub optimal: bool,
    /// The layout method.
    pub method: String,
    /// The alignment of every size and offset.
    pub align: u64,
    /// Op ids in the order (or schedule: an op may be listed more than once) the layout is for.
    pub order: Vec<String>,
    /// The order's peak (the simulator's, unaligned).
    pub peak_bytes: u64,
    /// Bytes of the graph inputs.
    pub inputs_bytes: u64,
    /// Every tensor's offset, views included (a view's is its storage's). In a schedule, a
    /// storage made more than once has an offset per run (see `buffers`); this is its first's.
    pub offsets: IdOffsets,
    /// The offset of each op's workspace (ops with workspace only).
    pub workspace_offsets: IdOffsets,
    /// Every buffer of positive size with its lifetime, storages then workspaces.
    pub buffers: Vec<BufferRow>,
    /// Exact-search nodes expanded.
    pub search_nodes: u64,
    /// Time the layout took.
    pub elapsed_ms: f64,
    /// Present when the order was planned: whether another order of the same peak was looked for
    /// and what it gave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_search: Option<OrderSearch>,
    /// Offset of each tensor by index (views: their storage's; in a schedule, its first run's).
    #[serde(skip)]
    pub tensor_offsets: Vec<u64>,
    /// Offset of each op's workspace by index (0 without one; in a schedule, its first run's).
    #[serde(skip)]
    pub op_workspace_offsets: Vec<u64>,
    /// The offsets of the storages each step makes, step after step, one per storage of
    /// [`crate::Graph::creates`] in its order (0 for an empty one): what an executor places
    /// at each step, a recomputation's new buffers included. On an order, each storage's
    /// offset of `tensor_offsets` again.
    #[serde(skip)]
    pub made_offsets: Vec<u64>,
    /// The offset of each step's workspace (0 without one).
    #[serde(skip)]
    pub step_workspace_offsets: Vec<u64>,
    /// The order as op indices.
    #[serde(skip)]
    pub order_ix: Vec<OpIx>,
    /// The order's peak of live bytes after alignment (the bound before any proof).
    #[serde(skip)]
    pub aligned_peak_bytes: u64,
}

/// One buffer of an interval layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IntervalRow {
    /// The buffer's id.
    pub id: String,
    /// Its offset in the arena.
    pub offset: u64,
    /// Bytes reserved (the size rounded up to the alignment).
    pub bytes: u64,
    /// First time it is live.
    pub lower: u64,
    /// One past the last time it is live.
    pub upper: u64,
}

/// The layout of a fixed-interval problem (`peakorder layout FILE.csv --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntervalLayout {
    /// Bytes of the arena.
    pub arena_bytes: u64,
    /// A proven lower bound on every layout's arena.
    pub lower_bound_bytes: u64,
    /// True only when proven: the arena meets the bound.
    pub optimal: bool,
    /// The layout method.
    pub method: String,
    /// The alignment of every size and offset.
    pub align: u64,
    /// The capacity asked for, if any.
    pub capacity_bytes: Option<u64>,
    /// `arena_bytes <= capacity_bytes` (true without a capacity).
    pub within_capacity: bool,
    /// Each buffer's offset by id.
    pub offsets: IdOffsets,
    /// Each buffer with its lifetime and offset, in input order.
    pub buffers: Vec<IntervalRow>,
    /// Exact-search nodes expanded.
    pub search_nodes: u64,
    /// Time the layout took.
    pub elapsed_ms: f64,
    /// Offsets in input order.
    #[serde(skip)]
    pub offsets_ix: Vec<u64>,
}

/// What the order search did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OrderSearch {
    /// The planning method.
    pub planned_method: String,
    /// The planned order's peak.
    pub planned_peak_bytes: u64,
    /// The arena found for the planned order.
    pub planned_arena_bytes: u64,
    /// Most peak another order was allowed: the planned peak × (1 + slack).
    pub peak_limit_bytes: u64,
    /// The slack asked for.
    pub slack: f64,
    /// Orders laid out, the planned one included.
    pub orders_tried: u64,
    /// The chosen order is not the planned one.
    pub changed: bool,
}
