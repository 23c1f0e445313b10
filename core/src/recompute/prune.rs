//! Dropping recomputations a schedule does not need: a repeated run is taken out when the
//! schedule stays valid and within the limit without it (its readers then read the earlier
//! instance, which lives longer). Costliest runs are tried first; the result never costs more
//! and is re-checked by the schedule simulator.
//!
//! A greedy eviction decides at each step with what it knows then; this pass looks at the
//! whole schedule afterwards, as the repair step of Checkmate's rounding (Jain et al.,
//! "Checkmate: Breaking the Memory Wall with Optimal Tensor Rematerialization", MLSys 2020,
//! §5) keeps only the recomputations its schedule needs.
//!
//! Each trial is checked against an upper bound of memory per step, kept as runs are dropped:
//! dropping run `i` of `v` keeps each storage `v` makes live from its earlier instance's last
//! use up to step `i` (after it, the earlier instance takes the dropped one's place); nothing
//! else can grow (the dropped run's inputs may die sooner, which the bound ignores). A
//! sweep costs the lengths of those intervals, not a simulation per trial; between sweeps the
//! bound is made exact again.
//!
//! Then the repeated runs of ops that make only views (no storage of their own: `view`,
//! `permute`, `transpose`) are dropped wherever every view read stays current: such a run
//! allocates nothing, and without its read of the base storage every instance lives no longer,
//! so memory cannot rise; the sweep cannot bound them (they make views of another op's
//! storage), and eviction leaves them behind when the sweep drops the storage's recomputation
//! they followed (swin_t's training step at half its range: 24 such runs).

use super::schedule::{check_schedule, frees_of, schedule_peak};
use crate::graph::Graph;
use crate::sort::CompactSort;
use crate::{OpIx, TensorIx};

/// Sweeps at most: each one after the first starts from the exact memory of the schedule the
/// last one left.
const MAX_SWEEPS: usize = 3;

/// `schedule` (valid, within `limit`) with every repeated run it can drop, dropped; stops
/// early when `stop` says so. Returns `schedule` itself if anything goes wrong.
pub fn prune(g: &Graph, schedule: Vec<OpIx>, limit: u64, stop: &dyn Fn() -> bool) -> Vec<OpIx> {
    let mut current = schedule.clone();
    for _ in 0..MAX_SWEEPS {
        if stop() {
            break;
        }
        let (next, dropped) = sweep(g, &current, limit, stop);
        current = next;
        if dropped == 0 {
            break;
        }
    }
    if !stop() {
        current = drop_view_runs(g, current, stop);
    }
    // The bound is an argument, the simulator the reference.
    match check_schedule(g, &current) {
        Ok(()) if schedule_peak(g, &current) <= limit => current,
        _ => schedule,
    }
}

/// One sweep over the repeated runs of `schedule`; the schedule left and how many runs went.
fn sweep(g: &Graph, schedule: &[OpIx], limit: u64, stop: &dyn Fn() -> bool) -> (Vec<OpIx>, usize) {
    let n = schedule.len();
    let t = g.num_tensors();
    // Exact memory while each step runs.
    let frees = frees_of(g, schedule);
    let mut mem = vec![0u64; n];
    let mut live = g.inputs_bytes();
    for (i, &v) in schedule.iter().enumerate() {
        mem[i] = live + g.alloc(v) + g.workspace(v);
        live += g.alloc(v);
        for &s in frees.after(i) {
            live -= g.size(s);
        }
    }
    // Where each storage is made and read, ascending.
    let mut makes: Vec<Vec<u32>> = vec![Vec::new(); t];
    let mut uses: Vec<Vec<u32>> = vec![Vec::new(); t];
    let mut seen = vec![false; g.num_ops()];
    let mut repeats: Vec<usize> = Vec::new();
    for (i, &v) in schedule.iter().enumerate() {
        for &s in g.creates(v) {
            makes[s as usize].push(i as u32);
        }
        for &s in g.reads(v) {
            uses[s as usize].push(i as u32);
        }
        if std::mem::replace(&mut seen[v as usize], true) {
            repeats.push(i);
        }
    }
    let cost = |v: OpIx| g.ops()[v as usize].cost;
    // Costliest first; later first among equals (a late run's instance lives least).
    repeats.sort_by_compact(|&a, &b| {
        cost(schedule[b])
            .total_cmp(&cost(schedule[a]))
            .then(b.cmp(&a))
    });
    let mut removed = vec![false; n];
    let mut dropped = 0;
    let mut ext: Vec<(u32, u32, u64)> = Vec::new();
    for (k, &i) in repeats.iter().enumerate() {
        if k % 16 == 0 && stop() {
            break;
        }
        let v = schedule[i];
        if makes_views_of_others(g, v) {
            // Its views would go back to an earlier making of their base: not bounded here.
            continue;
        }
        ext.clear();
        let mut ok = true;
        for &s in g.creates(v) {
            match extension(g, s, i as u32, &makes[s as usize], &uses[s as usize]) {
                Some(Some(e)) => ext.push((e.0, e.1, g.size(s))),
                Some(None) => {}
                None => ok = false,
            }
        }
        if !ok {
            continue;
        }
        let fits = ext.iter().all(|&(from, to, _)| {
            (from..=to).all(|step| {
                let step = step as usize;
                removed[step] || step == i || {
                    let extra: u64 = ext
                        .iter()
                        .filter(|e| e.0 <= step as u32 && step as u32 <= e.1)
                        .map(|e| e.2)
                        .sum();
                    mem[step] + extra <= limit
                }
            })
        });
        if !fits {
            continue;
        }
        removed[i] = true;
        dropped += 1;
        mem[i] = 0;
        for &(from, to, bytes) in &ext {
            for step in from..=to {
                mem[step as usize] += bytes;
            }
        }
        for &s in g.creates(v) {
            let m = &mut makes[s as usize];
            if let Ok(p) = m.binary_search(&(i as u32)) {
                m.remove(p);
            }
        }
        for &s in g.reads(v) {
            let u = &mut uses[s as usize];
            if let Ok(p) = u.binary_search(&(i as u32)) {
                u.remove(p);
            }
        }
    }
    let next = schedule
        .iter()
        .enumerate()
        .filter(|&(i, _)| !removed[i])
        .map(|(_, &v)| v)
        .collect();
    (next, dropped)
}

/// `schedule` (valid) without the repeated runs of view-only ops (they allocate nothing) that
/// it stays valid without, latest first, until none can go; each trial re-checked by
/// [`check_schedule`], which is all they can break (memory only falls: see the module doc).
pub fn drop_view_runs(g: &Graph, schedule: Vec<OpIx>, stop: &dyn Fn() -> bool) -> Vec<OpIx> {
    let mut current = schedule;
    let mut trial: Vec<OpIx> = Vec::with_capacity(current.len());
    // Dropping a run of a view's base view can free a run of the view itself that an earlier
    // sweep kept: sweep again while one drops anything (each sweep drops one at least, so at
    // most as many sweeps as repeated runs).
    loop {
        let mut seen = vec![false; g.num_ops()];
        let mut repeats: Vec<usize> = Vec::new();
        for (i, &v) in current.iter().enumerate() {
            if std::mem::replace(&mut seen[v as usize], true)
                && g.creates(v).is_empty()
                && makes_views_of_others(g, v)
            {
                repeats.push(i);
            }
        }
        let mut dropped = 0;
        // Latest first: removing step i leaves the earlier indices where they were.
        for (k, &i) in repeats.iter().rev().enumerate() {
            if k % 16 == 15 && stop() {
                return current;
            }
            trial.clear();
            trial.extend_from_slice(&current[..i]);
            trial.extend_from_slice(&current[i + 1..]);
            if check_schedule(g, &trial).is_ok() {
                std::mem::swap(&mut current, &mut trial);
                dropped += 1;
            }
        }
        if dropped == 0 || stop() {
            return current;
        }
    }
}

/// True when `v` makes a view of a storage it does not make itself.
fn makes_views_of_others(g: &Graph, v: OpIx) -> bool {
    let t = g.tensors();
    g.ops()[v as usize].outputs.iter().any(|&x| {
        t[x as usize].alias_of.is_some() && t[t[x as usize].root as usize].producer != Some(v)
    })
}

/// The steps over which storage `s` lives longer when its making at step `i` is dropped:
/// `Some(Some((from, to)))`, inclusive; `Some(None)` when it does not; `None` when `i` is its
/// first making (nothing earlier to read instead).
///
/// The earlier instance, last read at `old_end` (or made there), now also serves the readers
/// of the dropped one: it is live from `old_end + 1` up to step `i`, where the dropped one
/// would have been made; from there on the bytes are the same, one instance for the other.
fn extension(
    g: &Graph,
    s: TensorIx,
    i: u32,
    makes: &[u32],
    uses: &[u32],
) -> Option<Option<(u32, u32)>> {
    let at = makes.binary_search(&i).ok()?;
    let prev = *makes.get(at.checked_sub(1)?)?;
    let next = makes.get(at + 1).copied();
    let before = uses.partition_point(|&u| u < i);
    let old_end = uses[..before]
        .last()
        .copied()
        .filter(|&u| u > prev)
        .unwrap_or(prev);
    let until = next.unwrap_or(u32::MAX);
    let read_after = uses[before..].first().is_some_and(|&u| u < until);
    let needed = read_after || (next.is_none() && g.pinned(s));
    Some((needed && old_end + 1 < i).then(|| (old_end + 1, i - 1)))
}
