//! Property tests of the layout of schedules with recomputations (core/src/layout/lifetimes.rs,
//! issue 29): on thousands of small random graphs (views, workspaces, donated inputs,
//! `recompute: false` ops) run in schedules with repeats (eviction's least-limit schedules and
//! random extra runs), every layout is valid by a naive check of its buffer rows written from
//! the definition (no two buffers live at one step share a byte), the bytes live at each step
//! are the schedule simulator's, each step's new buffers are at the offsets the executor
//! reads, and a layout with one run moved onto a live buffer is refused.

mod common;

use common::any_graph;
use peakorder::layout::check::check_schedule_graph;
use peakorder::layout::{BufferRow, LayoutMethod, LayoutOptions};
use peakorder::recompute::{check_schedule, evict, simulate_schedule};
use peakorder::{layout, Budget, Graph, NoClock, OpIx};
use proptest::prelude::*;

fn opts(method: LayoutMethod) -> LayoutOptions {
    LayoutOptions {
        method,
        align: 1,
        budget_ms: None,
        max_states: 20_000,
        capacity: None,
    }
}

/// `order` with extra runs inserted where `picks` say, each kept only where the schedule
/// stays valid.
fn with_repeats(g: &Graph, order: &[OpIx], picks: &[(u16, u16)]) -> Vec<OpIx> {
    let mut s = order.to_vec();
    for &(a, b) in picks {
        if s.is_empty() {
            break;
        }
        let at = 1 + a as usize % s.len();
        let v = s[b as usize % at];
        s.insert(at, v);
        if check_schedule(g, &s).is_err() {
            s.remove(at);
        }
    }
    s
}

/// The layout's rows against the definition and the simulator.
fn check_rows(g: &Graph, schedule: &[OpIx], l: &peakorder::Layout) -> Result<(), TestCaseError> {
    let sim = simulate_schedule(g, schedule).unwrap();
    prop_assert_eq!(l.peak_bytes, sim.peak_bytes);
    prop_assert!(l.lower_bound_bytes >= sim.peak_bytes && l.arena_bytes >= l.lower_bound_bytes);
    let live = |t: u64| -> Vec<&BufferRow> {
        l.buffers
            .iter()
            .filter(|r| r.first_step <= t && t <= r.last_step)
            .collect()
    };
    for t in 0..=schedule.len() as u64 {
        let rows = live(t);
        // Memory at time t: the start, or during step t (1-based), as the simulator counts it.
        let want = if t == 0 {
            sim.inputs_bytes
        } else {
            sim.steps[t as usize - 1].during_bytes
        };
        prop_assert_eq!(
            rows.iter().map(|r| r.bytes).sum::<u64>(),
            want,
            "time {}",
            t
        );
        for (i, a) in rows.iter().enumerate() {
            prop_assert!(a.offset + a.bytes <= l.arena_bytes);
            for b in &rows[i + 1..] {
                prop_assert!(
                    a.offset + a.bytes <= b.offset || b.offset + b.bytes <= a.offset,
                    "{:?} and {:?} share bytes at time {}",
                    a,
                    b,
                    t
                );
            }
        }
    }
    // Each step's new storages: a row made at that step, at the offset the executor reads.
    let mut k = 0;
    for (i, &v) in schedule.iter().enumerate() {
        for &s in g.creates(v) {
            let id = &g.tensors()[s as usize].id;
            if g.size(s) > 0 {
                let row = l
                    .buffers
                    .iter()
                    .find(|r| r.kind == "tensor" && &r.id == id && r.first_step == i as u64 + 1);
                prop_assert!(row.is_some(), "no buffer of {} made at step {}", id, i + 1);
                prop_assert_eq!(row.unwrap().offset, l.made_offsets[k]);
            }
            k += 1;
        }
    }
    prop_assert_eq!(k, l.made_offsets.len());
    // A run number exactly where a storage has more than one buffer.
    for r in &l.buffers {
        let n = l
            .buffers
            .iter()
            .filter(|x| x.kind == r.kind && x.id == r.id)
            .count();
        prop_assert_eq!(r.run.is_some(), n > 1, "{:?}", r);
    }
    Ok(())
}

/// Moves the first made buffer that can be moved onto another buffer live with it: the walk
/// must refuse it.
fn broken_is_refused(
    g: &Graph,
    schedule: &[OpIx],
    l: &peakorder::Layout,
) -> Result<(), TestCaseError> {
    let mut k = 0;
    for (i, &v) in schedule.iter().enumerate() {
        for &s in g.creates(v) {
            if g.size(s) > 0 {
                let t = i as u64 + 1;
                let id = &g.tensors()[s as usize].id;
                let other = l.buffers.iter().find(|r| {
                    r.first_step <= t
                        && t <= r.last_step
                        && !(r.kind == "tensor" && &r.id == id && r.first_step == t)
                        && r.bytes > 0
                });
                if let Some(o) = other {
                    let mut made = l.made_offsets.clone();
                    made[k] = o.offset;
                    let r = check_schedule_graph(
                        g,
                        schedule,
                        // A storage's root tensor has the storage's (first) offset.
                        &l.tensor_offsets,
                        &made,
                        &l.step_workspace_offsets,
                        1,
                        l.arena_bytes,
                    );
                    prop_assert!(r.is_err(), "an overlap at step {} was accepted", t);
                    return Ok(());
                }
            }
            k += 1;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn schedule_layouts_are_valid_and_match_the_simulator(
        case in any_graph(1..=14),
        picks in prop::collection::vec((any::<u16>(), any::<u16>()), 0..10),
        no_recompute in prop::collection::vec(prop::bool::weighted(0.25), 14),
        method in prop::sample::select(vec![LayoutMethod::Auto, LayoutMethod::Exact]),
    ) {
        let mut spec = case.build();
        for (op, &once) in spec.ops.iter_mut().zip(&no_recompute) {
            if once {
                op.recompute = Some(false);
            }
        }
        let g = Graph::from_spec(spec).unwrap();
        let order = peakorder::order::greedy::greedy_order(&g);
        let mut schedules = vec![with_repeats(&g, &order, &picks)];
        if let Some(l) = evict::least(&g, &order, &Budget::new(&NoClock, None, 20_000)) {
            schedules.push(l.schedule);
        }
        for s in schedules {
            let l = layout(&g, &s, &opts(method), &NoClock)
                .map_err(|e| TestCaseError::fail(format!("{e}")))?;
            check_rows(&g, &s, &l)?;
            broken_is_refused(&g, &s, &l)?;
        }
    }
}

/// On an order, the schedule walk and the order walk agree with the layout: every made offset
/// is the storage's one offset.
#[test]
fn on_an_order_made_offsets_are_the_tensor_offsets() {
    let g = Graph::from_spec(peakorder::examples::seed_graph(Default::default())).unwrap();
    let order: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
    let l = layout(&g, &order, &opts(LayoutMethod::Auto), &NoClock).unwrap();
    let mut k = 0;
    for &v in &order {
        for &s in g.creates(v) {
            assert_eq!(l.made_offsets[k], l.tensor_offsets[s as usize]);
            k += 1;
        }
    }
    for (i, &v) in order.iter().enumerate() {
        assert_eq!(
            l.step_workspace_offsets[i],
            l.op_workspace_offsets[v as usize]
        );
    }
    assert!(l.buffers.iter().all(|r| r.run.is_none()));
}
