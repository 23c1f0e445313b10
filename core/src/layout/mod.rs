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

pub mod api;
pub mod best_fit;
pub mod canonical;
pub mod check;
pub mod csv;
pub mod decompose;
pub mod hill_climb;
pub mod joint;
pub mod lifetimes;
pub mod online;
pub mod options;
pub mod output;
pub mod overlaps;
pub mod peak_first;
pub mod peak_split;
pub mod problem;
pub mod reorder;
pub mod repack;
pub mod rounds;
pub mod skyline;
pub mod solve;
pub mod stacked;

pub use api::{layout, layout_hooked, layout_intervals};
pub use joint::{layout_planned, plan_and_layout, plan_then_layout, PLAN_SHARE};
pub use options::{LayoutMethod, LayoutOptions, DEFAULT_BUDGET_MS};
pub use output::{BufferRow, IdOffsets, IntervalLayout, IntervalRow, Layout, OrderSearch};
