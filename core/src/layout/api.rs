//! The entry points: a graph run in an order, or a fixed-interval problem, laid out and checked.

use super::check;
use super::csv;
use super::lifetimes::{self, Slot};
use super::options::LayoutOptions;
use super::output::{BufferRow, IdOffsets, IntervalLayout, IntervalRow, Layout};
use super::problem::Problem;
use super::solve;
use crate::budget::{Budget, Clock};
use crate::error::Error;
use crate::graph::Graph;
use crate::plan::Hooks;
use crate::simulate::peak_of;
use crate::sort::CompactSort;
use crate::OpIx;

/// Lays out `g` run in `order`: an order, or a schedule in which an op may run more than once
/// (each run's outputs are then buffers of their own, [`lifetimes`]).
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
    // An order as before (its errors name a repeated op); a schedule with repeats as the
    // recompute model checks it.
    let repeats = has_repeats(g, order);
    if repeats {
        crate::recompute::check_schedule(g, order)?;
    } else {
        g.check_order(order)?;
    }
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

    // Where each step's new storages and workspace go: a buffer is known by what it holds and
    // the time it is made (time i + 1 is step i; 0 is the start).
    let made_start: Vec<usize> = std::iter::once(0)
        .chain(order.iter().scan(0usize, |acc, &v| {
            *acc += g.creates(v).len();
            Some(*acc)
        }))
        .collect();
    let mut made = vec![0u64; made_start[order.len()]];
    let mut step_workspace = vec![0u64; order.len()];
    let mut storage = vec![0u64; g.num_tensors()];
    let mut workspace = vec![0u64; g.num_ops()];
    let mut seen_storage = vec![false; g.num_tensors()];
    let mut seen_workspace = vec![false; g.num_ops()];
    for (i, slot) in slots.iter().enumerate() {
        let off = placed.offsets[i];
        let lower = problem.buffers()[i].lower;
        match *slot {
            Slot::Storage(s) => {
                // Instances come in time order: the first is the tensor's offset.
                if !std::mem::replace(&mut seen_storage[s as usize], true) {
                    storage[s as usize] = off;
                }
                if lower > 0 {
                    let step = (lower - 1) as usize;
                    let at = g.creates(order[step]).iter().position(|&c| c == s);
                    if let Some(k) = at {
                        made[made_start[step] + k] = off;
                    }
                }
            }
            Slot::Workspace(v) => {
                if !std::mem::replace(&mut seen_workspace[v as usize], true) {
                    workspace[v as usize] = off;
                }
                step_workspace[(lower - 1) as usize] = off;
            }
        }
    }
    // The second, independent check: the memory model's own walk.
    let checked = if repeats {
        check::check_schedule_graph(
            g,
            order,
            &storage,
            &made,
            &step_workspace,
            opts.align,
            placed.arena,
        )
    } else {
        check::check_graph(g, order, &storage, &workspace, opts.align, placed.arena)
    };
    checked.map_err(|reason| Error::BadLayout {
        what: format!("the {} layout", opts.method.name()),
        reason: format!("{reason}; this is a bug"),
    })?;
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
    // Storages first (in tensor order, a storage's runs in time order), then workspaces (in
    // step order). A run number only where a storage or workspace has more than one buffer.
    let mut count_storage = vec![0u32; g.num_tensors()];
    let mut count_workspace = vec![0u32; g.num_ops()];
    for slot in &slots {
        match *slot {
            Slot::Storage(s) => count_storage[s as usize] += 1,
            Slot::Workspace(v) => count_workspace[v as usize] += 1,
        }
    }
    let mut run_storage = vec![0u32; g.num_tensors()];
    let mut run_workspace = vec![0u32; g.num_ops()];
    let mut keyed: Vec<((bool, u64, u64), BufferRow)> = problem
        .buffers()
        .iter()
        .zip(&slots)
        .zip(&placed.offsets)
        .map(|((b, slot), &offset)| {
            let (key, kind, id, count, run) = match *slot {
                Slot::Storage(s) => (
                    (false, s as u64, b.lower),
                    "tensor",
                    &g.tensors()[s as usize].id,
                    count_storage[s as usize],
                    &mut run_storage[s as usize],
                ),
                Slot::Workspace(v) => (
                    (true, b.lower, 0),
                    "workspace",
                    &g.ops()[v as usize].id,
                    count_workspace[v as usize],
                    &mut run_workspace[v as usize],
                ),
            };
            *run += 1;
            let row = BufferRow {
                kind,
                id: id.clone(),
                offset,
                bytes: b.size,
                first_step: b.lower,
                last_step: b.upper - 1,
                run: (count > 1).then_some(*run),
            };
            (key, row)
        })
        .collect();
    keyed.sort_by_key_compact(|(k, _)| *k);
    let buffers: Vec<BufferRow> = keyed.into_iter().map(|(_, r)| r).collect();
    Ok(Layout {
        arena_bytes: placed.arena,
        lower_bound_bytes: placed.lower_bound,
        optimal: placed.optimal,
        method: opts.method.name().to_string(),
        align: opts.align,
        order: g.op_ids(order),
        peak_bytes: if repeats {
            crate::recompute::schedule_peak(g, order)
        } else {
            peak_of(g, order)
        },
        inputs_bytes: g.inputs_bytes(),
        offsets,
        workspace_offsets,
        buffers,
        search_nodes: placed.nodes,
        elapsed_ms: (budget.clock.now_ms() - start).max(0.0),
        order_search: None,
        tensor_offsets,
        op_workspace_offsets: workspace,
        made_offsets: made,
        step_workspace_offsets: step_workspace,
        order_ix: order.to_vec(),
        aligned_peak_bytes: problem.lower_bound(),
    })
}

/// True when some op appears more than once (a schedule with recomputations).
fn has_repeats(g: &Graph, order: &[OpIx]) -> bool {
    let mut seen = vec![false; g.num_ops()];
    order.iter().any(|&v| {
        seen.get_mut(v as usize)
            .is_some_and(|s| std::mem::replace(s, true))
    })
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
