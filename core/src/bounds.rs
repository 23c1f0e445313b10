//! Lower bounds on the peak of every order.
//!
//! Some memory is live in every order at known moments: storages that are never freed and live
//! from the start (pinned graph inputs, and inputs no op touches), and while an op runs, the
//! storages it reads plus its outputs and workspace. Every graph output's storage is live at the
//! end, and the end is no higher than the last op's run. The bound is the largest of these.
//!
//! [`crate::order::exact::part_lower_bound`] is stronger and costlier (it needs the exact
//! search's part tables, so it lives there): it also counts, for each op, every storage that one
//! of its ancestors makes (or that is live from the start) and that it or one of its descendants
//! still needs, and it uses the memory forced at cut ops (ops that every other op must precede or
//! follow).

pub mod branching;
pub mod cases;
pub mod cut;
pub mod either_side;
pub mod first_free;
pub mod join_free;
pub mod last_of_set;
pub mod nested_set;
pub mod rewrite_set;

use crate::graph::Graph;
use crate::OpIx;

/// Which argument gave a lower bound (and, when it meets the plan's peak, proved the plan
/// optimal). Plans and comparisons report it by [`BoundKind::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoundKind {
    /// [`lower_bound`]: what every order must hold at known moments.
    Simple,
    /// [`crate::order::exact::part_lower_bound`]: the exact search's start bound over the parts between cut ops.
    Part,
    /// The exact search: it finished (the optimum), or the least f-value it left open.
    Search,
    /// Liu's algorithm applied (an optimum).
    Liu,
    /// The whole-graph cut bound ([`cut`]).
    Cut,
    /// The last-of-set bound ([`last_of_set`]).
    LastOfSet,
    /// The first-of-set bound ([`last_of_set`], its mirror).
    FirstOfSet,
    /// Precedence branching ([`branching`]).
    Branching,
    /// The first-free bound ([`first_free`]).
    FirstFree,
    /// The either-side bound ([`either_side`]).
    EitherSide,
    /// The nested-set bound ([`nested_set`]).
    NestedSet,
    /// The join-free bound ([`join_free`]).
    JoinFree,
    /// The rewrite-set bound ([`rewrite_set`]).
    RewriteSet,
}

impl BoundKind {
    /// The name in plans (`"proof"`, `"lower_bound_by"`).
    pub fn name(self) -> &'static str {
        match self {
            BoundKind::Simple => "simple",
            BoundKind::Part => "part",
            BoundKind::Search => "search",
            BoundKind::Liu => "liu",
            BoundKind::Cut => "cut",
            BoundKind::LastOfSet => "last-of-set",
            BoundKind::FirstOfSet => "first-of-set",
            BoundKind::Branching => "branching",
            BoundKind::FirstFree => "first-free",
            BoundKind::EitherSide => "either-side",
            BoundKind::NestedSet => "nested-set",
            BoundKind::JoinFree => "join-free",
            BoundKind::RewriteSet => "rewrite-set",
        }
    }
}

/// A bound's value and what computing it took ([`join_free::JoinFree`],
/// [`nested_set::NestedSet`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Computed {
    /// A true lower bound on every order's peak, at least the `floor` passed in.
    pub bytes: u64,
    /// False when `stop()` ended the work before it was done (`bytes` is still a bound).
    pub complete: bool,
    /// Maximum flows computed.
    pub flows: usize,
}

/// The memory op `v` itself holds while it runs: what it reads, its outputs and its workspace
/// (how the case-split bounds pick their heaviest ops).
fn own_memory(g: &Graph, v: OpIx) -> u64 {
    g.reads(v)
        .iter()
        .map(|&s| g.size(s))
        .fold(0, u64::saturating_add)
        .saturating_add(g.alloc(v))
        .saturating_add(g.workspace(v))
}

/// True when storage `s` is live from the start and never freed.
fn always_live(g: &Graph, s: u32) -> bool {
    g.tensors()[s as usize].producer.is_none() && (g.pinned(s) || g.users(s).is_empty())
}

/// A true lower bound on the peak of every order of `g` (linear time).
pub fn lower_bound(g: &Graph) -> u64 {
    let fixed: u64 = g
        .input_storages()
        .filter(|&s| always_live(g, s))
        .map(|s| g.size(s))
        .sum();
    let mut bound = g.inputs_bytes();
    for v in 0..g.num_ops() as OpIx {
        let reads: u64 = g
            .reads(v)
            .iter()
            .filter(|&&s| !always_live(g, s))
            .map(|&s| g.size(s))
            .sum();
        bound = bound.max(fixed + reads + g.alloc(v) + g.workspace(v));
    }
    if g.num_ops() > 0 {
        let mut seen = vec![false; g.num_tensors()];
        let mut end = fixed;
        for &t in g.outputs() {
            let s = g.tensors()[t as usize].root;
            if !seen[s as usize] && !always_live(g, s) {
                seen[s as usize] = true;
                end += g.size(s);
            }
        }
        bound = bound.max(end);
    }
    bound
}
