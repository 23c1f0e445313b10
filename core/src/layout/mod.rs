//! Static memory layout: a byte offset for every tensor (views share their storage's) and for
//! every op's workspace, so that one arena of the reported size runs a fixed order with no
//! allocator at all (`docs/design.md` §6, `docs/layout.md`).
//!
//! The data path: graph + order → buffers with lifetimes ([`lifetimes`]) → a fixed-interval
//! problem ([`problem`]; or MiniMalloc's CSV, [`csv`]) → a solver ([`solve`]: the exact search
//! [`canonical`] after MiniMalloc, the greedy portfolio [`best_fit`] / [`online`], local
//! improvement [`hill_climb`], all after a split into independent groups, [`decompose`]) → a
//! checked layout ([`check`], twice for graphs: on the intervals and by walking the memory model).
//! [`joint`] looks for another order of the same peak when the planned order's best arena is
//! above its peak.
//!
//! The lower bound of a layout is the order's peak of live bytes after alignment; `optimal` is
//! reported only when the arena meets a proven bound.

pub mod best_fit;
pub mod canonical;
pub mod check;
pub mod csv;
pub mod decompose;
pub mod hill_climb;
pub mod joint;
pub mod lifetimes;
pub mod online;
pub mod overlaps;
pub mod problem;
pub mod solve;

use std::fmt;
use std::str::FromStr;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::error::Error;
use crate::graph::Graph;
use crate::plan::{Budget, Clock, Hooks};
use crate::simulate::peak_of;
use crate::OpIx;
use lifetimes::Slot;
use problem::Problem;

pub use joint::{plan_and_layout, OrderSearch};

/// A layout method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutMethod {
    /// Independent groups, the greedy portfolio, the exact search on what is left within the
    /// budget, then local improvement.
    Auto,
    /// As `auto`, with the whole budget for the exact search and no local improvement.
    Exact,
    /// Best fit, largest first (TFLite's `ArenaPlanner`, XLA's spatial order).
    Size,
    /// Best fit, longest lifetime first (XLA's temporal order).
    Duration,
    /// Best fit, most overlaps first (TVM USMP `greedy_by_conflicts`).
    Conflicts,
    /// Best fit, largest size × lifetime first.
    Area,
    /// Best fit in allocation order (ONNX Runtime's pattern planner, free-list allocators).
    Online,
    /// Hill climbing on the best greedy order (TVM USMP `hill_climb`).
    Local,
}

impl LayoutMethod {
    /// Every method, in the order the docs list them.
    pub const ALL: &'static [LayoutMethod] = &[
        LayoutMethod::Auto,
        LayoutMethod::Exact,
        LayoutMethod::Size,
        LayoutMethod::Duration,
        LayoutMethod::Conflicts,
        LayoutMethod::Area,
        LayoutMethod::Online,
        LayoutMethod::Local,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LayoutMethod::Auto => "auto",
            LayoutMethod::Exact => "exact",
            LayoutMethod::Size => "size",
            LayoutMethod::Duration => "duration",
            LayoutMethod::Conflicts => "conflicts",
            LayoutMethod::Area => "area",
            LayoutMethod::Online => "online",
            LayoutMethod::Local => "local",
        }
    }

    /// The best-fit order of a single greedy method.
    fn rank(self) -> Option<best_fit::Rank> {
        match self {
            LayoutMethod::Size => Some(best_fit::Rank::Size),
            LayoutMethod::Duration => Some(best_fit::Rank::Duration),
            LayoutMethod::Conflicts => Some(best_fit::Rank::Conflicts),
            LayoutMethod::Area => Some(best_fit::Rank::Area),
            _ => None,
        }
    }
}

impl fmt::Display for LayoutMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LayoutMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<LayoutMethod, Error> {
        LayoutMethod::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| Error::UnknownMethod {
                name: s.to_string(),
                known: LayoutMethod::ALL
                    .iter()
                    .map(|m| m.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// Options of a layout.
#[derive(Clone, Debug)]
pub struct LayoutOptions {
    pub method: LayoutMethod,
    /// Every size is rounded up to a multiple of this, and so is every offset (at least 1).
    pub align: u64,
    /// Time the layout may take, in milliseconds (needs a real [`Clock`]).
    pub budget_ms: Option<f64>,
    /// Most exact-search nodes (and local-search rounds).
    pub max_states: u64,
    /// Stop at the first layout whose arena fits this many bytes.
    pub capacity: Option<u64>,
}

/// Default time budget of a layout.
pub const DEFAULT_BUDGET_MS: f64 = 1000.0;

impl Default for LayoutOptions {
    fn default() -> Self {
        LayoutOptions {
            method: LayoutMethod::Auto,
            align: 1,
            budget_ms: Some(DEFAULT_BUDGET_MS),
            max_states: 50_000_000,
            capacity: None,
        }
    }
}

impl LayoutOptions {
    fn budget<'a>(&self, clock: &'a dyn Clock, hooks: &Hooks<'a>) -> Budget<'a> {
        let mut b = Budget::new(
            clock,
            self.budget_ms.map(|ms| clock.now_ms() + ms),
            self.max_states,
        );
        b.cancel = hooks.cancel;
        b
    }
}

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
    pub id: String,
    pub offset: u64,
    /// Bytes reserved: the size rounded up to the alignment.
    pub bytes: u64,
    /// First and last step it is live, inclusive: 0 is the start, `k` is while the `k`-th op of
    /// the order runs (1-based, as `simulate` numbers its steps).
    pub first_step: u64,
    pub last_step: u64,
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
    pub method: String,
    pub align: u64,
    /// Op ids in the order the layout is for.
    pub order: Vec<String>,
    /// The order's peak (the simulator's, unaligned).
    pub peak_bytes: u64,
    pub inputs_bytes: u64,
    /// Every tensor's offset, views included (a view's is its storage's).
    pub offsets: IdOffsets,
    /// The offset of each op's workspace (ops with workspace only).
    pub workspace_offsets: IdOffsets,
    /// Every buffer of positive size with its lifetime, storages then workspaces.
    pub buffers: Vec<BufferRow>,
    /// Exact-search nodes expanded.
    pub search_nodes: u64,
    pub elapsed_ms: f64,
    /// Present when the order was planned: whether another order of the same peak was looked for
    /// and what it gave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_search: Option<OrderSearch>,
    /// Offset of each tensor by index (views: their storage's).
    #[serde(skip)]
    pub tensor_offsets: Vec<u64>,
    /// Offset of each op's workspace by index (0 without one).
    #[serde(skip)]
    pub op_workspace_offsets: Vec<u64>,
    #[serde(skip)]
    pub order_ix: Vec<OpIx>,
    /// The order's peak of live bytes after alignment (the bound before any proof).
    #[serde(skip)]
    pub aligned_peak_bytes: u64,
}

/// Lays out `g` run in `order`.
pub fn layout(
    g: &Graph,
    order: &[OpIx],
    opts: &LayoutOptions,
    clock: &dyn Clock,
) -> Result<Layout, Error> {
    layout_hooked(g, order, opts, clock, &Hooks::default())
}

/// [`layout`] with a cancel flag.
pub fn layout_hooked<'a>(
    g: &Graph,
    order: &[OpIx],
    opts: &LayoutOptions,
    clock: &'a dyn Clock,
    hooks: &Hooks<'a>,
) -> Result<Layout, Error> {
    let start = clock.now_ms();
    let budget = opts.budget(clock, hooks);
    layout_within(g, order, opts, &budget, start)
}

/// [`layout`] under a given budget; `start` is when the caller's clock started for `elapsed_ms`.
pub(crate) fn layout_within(
    g: &Graph,
    order: &[OpIx],
    opts: &LayoutOptions,
    budget: &Budget,
    start: f64,
) -> Result<Layout, Error> {
    g.check_order(order)?;
    let (bufs, slots) = lifetimes::lifetimes(g, order);
    let name = |i: usize| match slots[i] {
        Slot::Storage(s) => format!(
            "tensor {}",
            crate::error::show_id(&g.tensors()[s as usize].id)
        ),
        Slot::Workspace(v) => format!(
            "the workspace of op {}",
            crate::error::show_id(&g.ops()[v as usize].id)
        ),
    };
    let problem = Problem::new(bufs, opts.align, &name)?;
    let placed = solve::solve(&problem, opts.method, opts.capacity, budget)?;

    let mut storage = vec![0u64; g.num_tensors()];
    let mut workspace = vec![0u64; g.num_ops()];
    for (i, slot) in slots.iter().enumerate() {
        match *slot {
            Slot::Storage(s) => storage[s as usize] = placed.offsets[i],
            Slot::Workspace(v) => workspace[v as usize] = placed.offsets[i],
        }
    }
    // The second, independent check: the memory model's own walk.
    check::check_graph(g, order, &storage, &workspace, opts.align, placed.arena).map_err(
        |reason| Error::BadLayout {
            what: format!("the {} layout", opts.method.name()),
            reason: format!("{reason}; this is a bug"),
        },
    )?;
    let tensor_offsets: Vec<u64> = g
        .tensors()
        .iter()
        .map(|t| storage[t.root as usize])
        .collect();
    let offsets = IdOffsets(
        g.tensors()
            .iter()
            .zip(&tensor_offsets)
            .map(|(t, &o)| (t.id.clone(), o))
            .collect(),
    );
    let workspace_offsets = IdOffsets(
        g.ops()
            .iter()
            .enumerate()
            .filter(|(_, op)| op.workspace > 0)
            .map(|(v, op)| (op.id.clone(), workspace[v]))
            .collect(),
    );
    // Storages first (in tensor order), then workspaces (in step order).
    let mut keyed: Vec<((bool, u64), BufferRow)> = problem
        .buffers()
        .iter()
        .zip(&slots)
        .zip(&placed.offsets)
        .map(|((b, slot), &offset)| {
            let (key, kind, id) = match *slot {
                Slot::Storage(s) => ((false, s as u64), "tensor", &g.tensors()[s as usize].id),
                Slot::Workspace(v) => ((true, b.lower), "workspace", &g.ops()[v as usize].id),
            };
            let row = BufferRow {
                kind,
                id: id.clone(),
                offset,
                bytes: b.size,
                first_step: b.lower,
                last_step: b.upper - 1,
            };
            (key, row)
        })
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    let buffers: Vec<BufferRow> = keyed.into_iter().map(|(_, r)| r).collect();
    Ok(Layout {
        arena_bytes: placed.arena,
        lower_bound_bytes: placed.lower_bound,
        optimal: placed.optimal,
        method: opts.method.name().to_string(),
        align: opts.align,
        order: g.op_ids(order),
        peak_bytes: peak_of(g, order),
        inputs_bytes: g.inputs_bytes(),
        offsets,
        workspace_offsets,
        buffers,
        search_nodes: placed.nodes,
        elapsed_ms: (budget.clock.now_ms() - start).max(0.0),
        order_search: None,
        tensor_offsets,
        op_workspace_offsets: workspace,
        order_ix: order.to_vec(),
        aligned_peak_bytes: problem.lower_bound(),
    })
}

/// One buffer of an interval layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IntervalRow {
    pub id: String,
    pub offset: u64,
    /// Bytes reserved (the size rounded up to the alignment).
    pub bytes: u64,
    pub lower: u64,
    pub upper: u64,
}

/// The layout of a fixed-interval problem (`peakorder layout FILE.csv --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntervalLayout {
    pub arena_bytes: u64,
    pub lower_bound_bytes: u64,
    pub optimal: bool,
    pub method: String,
    pub align: u64,
    /// The capacity asked for, if any.
    pub capacity_bytes: Option<u64>,
    /// `arena_bytes <= capacity_bytes` (true without a capacity).
    pub within_capacity: bool,
    pub offsets: IdOffsets,
    pub buffers: Vec<IntervalRow>,
    pub search_nodes: u64,
    pub elapsed_ms: f64,
    /// Offsets in input order.
    #[serde(skip)]
    pub offsets_ix: Vec<u64>,
}

/// Lays out a fixed-interval problem (e.g. from [`csv::parse`]).
pub fn layout_intervals(
    intervals: &csv::Intervals,
    opts: &LayoutOptions,
    clock: &dyn Clock,
    hooks: &Hooks,
) -> Result<IntervalLayout, Error> {
    let start = clock.now_ms();
    let budget = opts.budget(clock, hooks);
    let name = |i: usize| {
        format!(
            "line {} (id {})",
            intervals.lines[i],
            crate::error::show_id(&intervals.ids[i])
        )
    };
    let problem = Problem::new(intervals.buffers.clone(), opts.align, &name)?;
    let placed = solve::solve(&problem, opts.method, opts.capacity, &budget)?;
    let buffers = problem
        .buffers()
        .iter()
        .zip(&intervals.ids)
        .zip(&placed.offsets)
        .map(|((b, id), &offset)| IntervalRow {
            id: id.clone(),
            offset,
            bytes: b.size,
            lower: b.lower,
            upper: b.upper,
        })
        .collect();
    Ok(IntervalLayout {
        arena_bytes: placed.arena,
        lower_bound_bytes: placed.lower_bound,
        optimal: placed.optimal,
        method: opts.method.name().to_string(),
        align: opts.align,
        capacity_bytes: opts.capacity,
        within_capacity: opts.capacity.map_or(true, |c| placed.arena <= c),
        offsets: IdOffsets(
            intervals
                .ids
                .iter()
                .cloned()
                .zip(placed.offsets.iter().copied())
                .collect(),
        ),
        buffers,
        search_nodes: placed.nodes,
        elapsed_ms: (clock.now_ms() - start).max(0.0),
        offsets_ix: placed.offsets,
    })
}
