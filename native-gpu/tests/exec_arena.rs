//! Arena mode of the executor (`peakorder run --arena`, docs/layout.md): one buffer of the
//! layout's arena, every tensor and workspace at its offset. On the CPU the measured high-water
//! mark is the planned arena to the byte, and the outputs are bit-identical to a run with one
//! allocation per tensor, on the seed graph, every fixture and generated graphs, in the planned
//! order and the program order. A layout that puts two live tensors in the same bytes is refused
//! as it runs.

use std::path::PathBuf;
use std::time::Instant;

use peakorder::examples::{seed_graph, SeedOptions, SeedOrder};
use peakorder::{Graph, LayoutOptions, OpIx, PlanOptions};
use peakorder_gpu::exec::{self, cpu::CpuBackend, ExecError};

struct Wall(Instant);

impl peakorder::Clock for Wall {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1e3
    }
}

fn fixtures() -> Vec<(String, Graph)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in ["tests/cases", "tests/hard"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                let text = std::fs::read_to_string(&p).unwrap();
                let g = Graph::from_json(&text).unwrap();
                out.push((p.display().to_string(), g));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn orders(g: &Graph) -> Vec<(&'static str, Vec<OpIx>)> {
    let plan = peakorder::plan(g, &PlanOptions::default(), &Wall(Instant::now())).unwrap();
    let mut out = vec![("planned", plan.order_ix)];
    if let Ok(p) = peakorder::order::program::program_order(g) {
        out.push(("program", p));
    }
    out
}

/// Runs `order` with one allocation per tensor and in an arena of `align`; checks the arena run.
fn check_arena(name: &str, g: &Graph, order: &[OpIx], align: u64) -> u64 {
    let prepared = exec::prepare(g).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut cpu = CpuBackend::new();
    let separate = exec::execute(g, &prepared, order, &mut cpu).unwrap();
    let opts = LayoutOptions {
        align,
        budget_ms: Some(200.0),
        ..LayoutOptions::default()
    };
    let layout = peakorder::layout(g, order, &opts, &Wall(Instant::now())).unwrap();
    let arena = exec::execute_arena(g, &prepared, &layout, &mut cpu)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(arena.arena_bytes, Some(layout.arena_bytes), "{name}");
    assert_eq!(
        arena.measured_peak_bytes, layout.arena_bytes,
        "{name}: measured high-water mark vs the planned arena"
    );
    assert!(arena.matches_plan(), "{name}");
    assert_eq!(
        arena.outputs_checksum, separate.outputs_checksum,
        "{name}: outputs differ from the run with separate allocations"
    );
    assert_eq!(arena.planned_peak_bytes, separate.planned_peak_bytes);
    assert!(layout.arena_bytes >= separate.measured_peak_bytes);
    layout.arena_bytes
}

#[test]
fn seed_graph_runs_in_an_arena_of_its_peak() {
    for (order, arena) in [
        (SeedOrder::BreadthFirst, 5_767_168u64),
        (SeedOrder::PathByPath, 5_767_168),
    ] {
        let g = Graph::from_spec(seed_graph(SeedOptions {
            order,
            ..SeedOptions::default()
        }))
        .unwrap();
        let program = peakorder::order::program::program_order(&g).unwrap();
        let planned = &orders(&g)[0].1;
        let a = check_arena("seed program", &g, &program, 4);
        if order == SeedOrder::BreadthFirst {
            assert_eq!(a, arena, "5.5 MiB: the program order's peak");
        }
        // The planned order: 3.5 MiB, the seed report's eager PyTorch figure, in one buffer.
        assert_eq!(check_arena("seed planned", &g, planned, 4), 3_670_016);
    }
}

#[test]
fn every_fixture_in_both_orders_and_two_alignments() {
    for (name, g) in fixtures() {
        for (k, (label, order)) in orders(&g).into_iter().enumerate() {
            let aligns: &[u64] = if k == 0 { &[4, 64] } else { &[4] };
            for &align in aligns {
                check_arena(&format!("{name} {label} align {align}"), &g, &order, align);
            }
        }
    }
}

#[test]
fn generated_families_run_in_their_arenas() {
    use peakorder::generators as gen;
    let specs = [
        ("layered", gen::random_layered(3, 6, 5)),
        ("sp", gen::random_sp(5, 60)),
        ("unet", gen::unet(3, 4, 16)),
        ("transformer", gen::transformer(2, 2, 16, 64, true)),
    ];
    for (name, spec) in specs {
        let g = Graph::from_spec(spec).unwrap();
        for (label, order) in orders(&g) {
            check_arena(&format!("{name} {label}"), &g, &order, 4);
        }
    }
}

#[test]
fn an_overlapping_layout_is_refused_as_it_runs() {
    let g = Graph::from_spec(seed_graph(SeedOptions::default())).unwrap();
    let order = orders(&g)[0].1.clone();
    let prepared = exec::prepare(&g).unwrap();
    let opts = LayoutOptions {
        align: 4,
        ..LayoutOptions::default()
    };
    let mut layout = peakorder::layout(&g, &order, &opts, &peakorder::NoClock).unwrap();
    // Put every tensor at offset 0: two inputs are live together at the start.
    for o in &mut layout.tensor_offsets {
        *o = 0;
    }
    let mut cpu = CpuBackend::new();
    match exec::execute_arena(&g, &prepared, &layout, &mut cpu) {
        Err(ExecError::Internal(m)) => assert!(m.contains("overlaps"), "{m}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    // A layout with the wrong alignment for the device is refused before anything runs.
    let one =
        peakorder::layout(&g, &order, &LayoutOptions::default(), &peakorder::NoClock).unwrap();
    assert!(matches!(
        exec::execute_arena(&g, &prepared, &one, &mut cpu),
        Err(ExecError::BadInput(_))
    ));
}

/// Schedules with recomputations in one arena: each run's outputs at their own offset, the
/// high-water mark the arena, the outputs those of the run with separate allocations (and so
/// of every order): the doc example of `simulate_schedule` by hand, and every fixture planned
/// at the tightest of a few limits it can meet.
#[test]
fn schedules_with_recomputations_run_in_their_arenas() {
    let g = Graph::from_json(
        r#"{
      "tensors": [{"id": "x", "shape": [4], "dtype": "f32"}, {"id": "a", "shape": [100], "dtype": "f32"},
                  {"id": "b", "shape": [10], "dtype": "f32"}, {"id": "c", "shape": [10], "dtype": "f32"},
                  {"id": "d", "shape": [1], "dtype": "f32"}],
      "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"]},
              {"id": "B", "inputs": ["a"], "outputs": ["b"]},
              {"id": "C", "inputs": ["b"], "outputs": ["c"], "workspace": 400},
              {"id": "D", "inputs": ["a", "c"], "outputs": ["d"]}],
      "outputs": ["d"]
    }"#,
    )
    .unwrap();
    let s = g.schedule_from_ids(&["A", "B", "C", "A", "D"]).unwrap();
    // a's two runs share bytes with C's workspace, between them: the arena is the peak.
    assert_eq!(
        check_arena("keep-or-recompute", &g, &s, 4),
        16 + 40 + 40 + 400
    );

    let mut recomputed = 0;
    use peakorder::generators as gen;
    let generated = [
        ("layered", gen::random_layered(3, 6, 5)),
        ("unet", gen::unet(3, 4, 16)),
        ("transformer", gen::transformer(2, 2, 16, 64, true)),
    ]
    .into_iter()
    .map(|(n, spec)| (n.to_string(), Graph::from_spec(spec).unwrap()));
    for (name, g) in fixtures().into_iter().chain(generated) {
        let clock = Wall(Instant::now());
        let top = peakorder::plan(&g, &PlanOptions::default(), &clock)
            .unwrap()
            .peak_bytes;
        let (bound, _) = peakorder::recompute::least_peak_bound(&g);
        let plan = [0.0, 0.5, 0.9].iter().find_map(|frac| {
            let opts = PlanOptions {
                memory_limit: Some(bound + ((top - bound) as f64 * frac) as u64),
                ..PlanOptions::default()
            };
            peakorder::plan(&g, &opts, &clock).ok()
        });
        if let Some(plan) = plan {
            if plan.order_ix.len() > g.num_ops() {
                recomputed += 1;
            }
            check_arena(&format!("{name} limited"), &g, &plan.order_ix, 4);
        }
    }
    assert!(
        recomputed >= 2,
        "{recomputed} graphs planned with recomputations"
    );
}
