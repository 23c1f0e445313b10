//! Checks a layout of a fixed-interval problem: every offset aligned, every buffer inside the
//! arena, and no two buffers live at the same time sharing a byte. Every solver's result passes
//! through here before it is returned, so a solver bug surfaces as a failed check, never as a
//! silently overlapping layout.
//!
//! A sweep over time keeps the live buffers in a map by offset; since live buffers never overlap,
//! a new one only needs comparing with its two neighbours: O(n log n).

use crate::sort::CompactSort;
use std::collections::BTreeMap;

use super::problem::{align_up, Buffer};
use crate::error::show_id;
use crate::graph::Graph;
use crate::{OpIx, TensorIx};

/// Why a layout is invalid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// Buffers `a` and `b` are live at time `at` and share bytes.
    Overlap {
        /// One buffer.
        a: usize,
        /// The other.
        b: usize,
        /// A time both are live.
        at: u64,
    },
    /// Buffer `a` ends above the arena.
    Outside {
        /// The buffer.
        a: usize,
    },
    /// Buffer `a`'s offset is not a multiple of the alignment.
    Misaligned {
        /// The buffer.
        a: usize,
    },
}

/// Checks `offsets` (one per buffer) against `arena` bytes and `align`.
pub fn check(buffers: &[Buffer], offsets: &[u64], arena: u64, align: u64) -> Result<(), Conflict> {
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(buffers.len() * 2);
    for (i, b) in buffers.iter().enumerate() {
        if offsets[i] % align.max(1) != 0 {
            return Err(Conflict::Misaligned { a: i });
        }
        if offsets[i]
            .checked_add(b.size)
            .map_or(true, |end| end > arena)
        {
            return Err(Conflict::Outside { a: i });
        }
        if b.size > 0 {
            events.push((b.lower, true, i));
            events.push((b.upper, false, i));
        }
    }
    // Ends before starts at the same time: a buffer may reuse bytes freed at its start.
    events.sort_unstable_compact();
    let mut live: BTreeMap<u64, usize> = BTreeMap::new();
    for (t, start, i) in events {
        let off = offsets[i];
        if !start {
            live.remove(&off);
            continue;
        }
        let end = off + buffers[i].size;
        if let Some((_, &j)) = live.range(..=off).next_back() {
            if offsets[j] + buffers[j].size > off {
                return Err(Conflict::Overlap { a: j, b: i, at: t });
            }
        }
        if let Some((_, &j)) = live.range(off..).next() {
            if offsets[j] < end {
                return Err(Conflict::Overlap { a: j, b: i, at: t });
            }
        }
        live.insert(off, i);
    }
    Ok(())
}

/// Checks a graph's layout by walking `order` through the memory model itself (the walk of
/// [`crate::simulate`] and of the executors), independently of how the solvers derived
/// lifetimes: each storage and workspace is placed when the model allocates it and removed when
/// the model frees it, and must not overlap anything live. `storage[s]` is the offset of storage
/// `s` (tensor index of its root), `workspace[v]` that of op `v`'s workspace. Returns a message
/// naming the two buffers that collide.
pub fn check_graph(
    g: &Graph,
    order: &[OpIx],
    storage: &[u64],
    workspace: &[u64],
    align: u64,
    arena: u64,
) -> Result<(), String> {
    let tensor = |s: TensorIx| format!("tensor {}", show_id(&g.tensors()[s as usize].id));
    let ws = |v: OpIx| format!("the workspace of op {}", show_id(&g.ops()[v as usize].id));
    let mut live: BTreeMap<u64, (u64, String)> = BTreeMap::new();
    let put = |live: &mut BTreeMap<u64, (u64, String)>, off: u64, size: u64, what: String| {
        put(live, off, size, what, align, arena)
    };
    for s in g.input_storages() {
        put(&mut live, storage[s as usize], g.size(s), tensor(s))?;
    }
    let mut remaining: Vec<u32> = (0..g.num_tensors() as u32)
        .map(|s| g.users(s).len() as u32)
        .collect();
    for &v in order {
        for &s in g.creates(v) {
            put(&mut live, storage[s as usize], g.size(s), tensor(s))?;
        }
        put(&mut live, workspace[v as usize], g.workspace(v), ws(v))?;
        take(&mut live, workspace[v as usize], g.workspace(v));
        for &s in g.reads(v) {
            remaining[s as usize] -= 1;
            if remaining[s as usize] == 0 && !g.pinned(s) {
                take(&mut live, storage[s as usize], g.size(s));
            }
        }
        for &s in g.creates(v) {
            if g.users(s).is_empty() && !g.pinned(s) {
                take(&mut live, storage[s as usize], g.size(s));
            }
        }
    }
    Ok(())
}

/// Checks a schedule's layout (an op may run more than once) by walking it through the memory
/// model (the frees of [`crate::recompute::schedule::frees_of`], the reference simulator's):
/// every graph input at `storage[s]`; at step `i`, the storages `schedule[i]` makes at
/// `made[made_start(i)..]` (one per storage in [`Graph::creates`] order, steps in turn), its
/// workspace at `step_workspace[i]`; each instance removed when the model frees it. Nothing
/// may overlap what is live. On an order this is [`check_graph`]'s verdict.
pub fn check_schedule_graph(
    g: &Graph,
    schedule: &[OpIx],
    storage: &[u64],
    made: &[u64],
    step_workspace: &[u64],
    align: u64,
    arena: u64,
) -> Result<(), String> {
    let tensor = |s: TensorIx| format!("tensor {}", show_id(&g.tensors()[s as usize].id));
    let ws = |v: OpIx| format!("the workspace of op {}", show_id(&g.ops()[v as usize].id));
    if step_workspace.len() != schedule.len() {
        return Err(format!(
            "{} workspace offsets for {} steps",
            step_workspace.len(),
            schedule.len()
        ));
    }
    let frees = crate::recompute::schedule::frees_of(g, schedule);
    let mut live: BTreeMap<u64, (u64, String)> = BTreeMap::new();
    // The offset of each storage's live instance.
    let mut at = vec![0u64; g.num_tensors()];
    for s in g.input_storages() {
        at[s as usize] = storage[s as usize];
        put(
            &mut live,
            at[s as usize],
            g.size(s),
            tensor(s),
            align,
            arena,
        )?;
    }
    let mut next = made.iter();
    for (i, &v) in schedule.iter().enumerate() {
        for &s in g.creates(v) {
            let &off = next
                .next()
                .ok_or_else(|| format!("no offset for {} made at step {}", tensor(s), i + 1))?;
            at[s as usize] = off;
            put(&mut live, off, g.size(s), tensor(s), align, arena)?;
        }
        put(
            &mut live,
            step_workspace[i],
            g.workspace(v),
            ws(v),
            align,
            arena,
        )?;
        take(&mut live, step_workspace[i], g.workspace(v));
        for &s in frees.after(i) {
            take(&mut live, at[s as usize], g.size(s));
        }
    }
    if next.next().is_some() {
        return Err("more offsets than the schedule makes storages".into());
    }
    Ok(())
}

/// Places `size` bytes (aligned up) at `off` among `live`, refusing an overlap.
fn put(
    live: &mut BTreeMap<u64, (u64, String)>,
    off: u64,
    size: u64,
    what: String,
    align: u64,
    arena: u64,
) -> Result<(), String> {
    let size = align_up(size, align).ok_or_else(|| format!("{what}: size overflows"))?;
    if size == 0 {
        return Ok(());
    }
    if off % align != 0 {
        return Err(format!("{what} at offset {off} is not aligned to {align}"));
    }
    if off.checked_add(size).map_or(true, |e| e > arena) {
        return Err(format!(
            "{what} at offset {off} ends above the arena ({arena} bytes)"
        ));
    }
    if let Some((_, (end, other))) = live.range(..=off).next_back() {
        if *end > off {
            return Err(format!("{what} at offset {off} overlaps {other}"));
        }
    }
    if let Some((&start, (_, other))) = live.range(off..).next() {
        if start < off + size {
            return Err(format!("{what} at offset {off} overlaps {other}"));
        }
    }
    live.insert(off, (off + size, what));
    Ok(())
}

fn take(live: &mut BTreeMap<u64, (u64, String)>, off: u64, size: u64) {
    if size > 0 {
        live.remove(&off);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(lower: u64, upper: u64, size: u64) -> Buffer {
        Buffer { lower, upper, size }
    }

    #[test]
    fn finds_overlaps_and_accepts_reuse() {
        let bufs = [b(0, 2, 4), b(2, 4, 4), b(1, 3, 2)];
        assert_eq!(check(&bufs, &[0, 0, 4], 6, 1), Ok(()));
        assert_eq!(
            check(&bufs, &[0, 0, 3], 6, 1),
            Err(Conflict::Overlap { a: 0, b: 2, at: 1 })
        );
        assert_eq!(
            check(&bufs, &[0, 0, 5], 6, 1),
            Err(Conflict::Outside { a: 2 })
        );
        assert_eq!(
            check(&bufs, &[0, 0, 5], 8, 2),
            Err(Conflict::Misaligned { a: 2 })
        );
        // Same offset, both live.
        assert!(check(&[b(0, 5, 1), b(4, 6, 1)], &[0, 0], 1, 1).is_err());
        // A buffer above another one that starts later at a lower offset.
        assert!(check(&[b(0, 5, 4), b(4, 6, 1)], &[0, 3], 4, 1).is_err());
        // Zero-size buffers never conflict.
        assert_eq!(check(&[b(0, 5, 4), b(1, 2, 0)], &[0, 1], 4, 1), Ok(()));
    }
}
