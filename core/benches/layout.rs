//! Layout benchmark (`cargo bench -p peakorder --bench layout`), in two tables:
//!
//! 1. MiniMalloc's 11 "challenging" instances (tests/minimalloc, capacity 1,048,576 bytes): the
//!    arena and CPU time of `auto` asked to fit the capacity, beside the greedy-by-size baseline
//!    (TFLite / XLA best fit) and its ratio to the peak of live bytes.
//! 2. Real graphs (every `*.json` graph under the directories given with `--graphs DIR`, default
//!    tests/cases and tests/hard): plan with `auto` (reproducibly: no clock, `--plan-states N`
//!    states, default 50,000; `--plan-ms N` plans on the CPU clock instead, as the CLI does),
//!    lay the order out with `--align 1`, and
//!    report arena / planned peak and the time, with how many meet the peak exactly; where the
//!    planned order's arena is above its peak, `+orders` is the arena / planned peak after the
//!    order search at the same peak (what `peakorder layout` does, slack 0; `--slack F` lets the
//!    searched orders' peak be up to F above the planned one, as `peakorder layout --slack F`).
//!
//! Times are CPU time of this thread (benches/common): the median of `--reps N` runs (default 5),
//! unaffected by other load on a shared machine. `--budget-ms N` is each layout's budget (default
//! 10,000 for the instances, the library default for graphs). `--only minimalloc|graphs` runs one
//! table.

mod common;

use std::path::{Path, PathBuf};

use common::{cpu_ms, CpuClock};
use peakorder::layout::{csv, layout_intervals, layout_planned, LayoutMethod, LayoutOptions};
use peakorder::{Graph, Hooks, OpIx, Plan, PlanOptions};

struct Args {
    reps: usize,
    budget_ms: Option<f64>,
    only: Option<String>,
    graphs: Vec<PathBuf>,
    plan_states: u64,
    plan_ms: Option<f64>,
    orders: Option<PathBuf>,
    slack: f64,
    /// `--no-capacity`: the instances laid out without a capacity (as a user who knows none
    /// runs `peakorder layout X.csv`), at the library's default budget unless `--budget-ms`.
    no_capacity: bool,
}

fn args() -> Args {
    let mut a = Args {
        reps: 5,
        budget_ms: None,
        only: None,
        graphs: Vec::new(),
        plan_states: PLAN_STATES,
        plan_ms: None,
        orders: None,
        slack: 0.0,
        no_capacity: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--no-capacity" => a.no_capacity = true,
            "--reps" => a.reps = it.next().and_then(|v| v.parse().ok()).unwrap_or(5),
            "--budget-ms" => a.budget_ms = it.next().and_then(|v| v.parse().ok()),
            "--only" => a.only = it.next(),
            "--graphs" => a.graphs.extend(it.next().map(PathBuf::from)),
            "--plan-states" => {
                a.plan_states = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(PLAN_STATES)
            }
            "--plan-ms" => a.plan_ms = it.next().and_then(|v| v.parse().ok()),
            "--orders" => a.orders = it.next().map(PathBuf::from),
            "--slack" => a.slack = it.next().and_then(|v| v.parse().ok()).unwrap_or(0.0),
            _ => {} // cargo bench passes --bench
        }
    }
    if a.graphs.is_empty() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        a.graphs = vec![root.join("tests/cases"), root.join("tests/hard")];
    }
    a
}

/// The planner's state limit in this benchmark (`--plan-states`), with no clock: reproducible
/// orders in seconds per graph (`plan`'s default of 2,000,000 takes minutes on a few).
const PLAN_STATES: u64 = 50_000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn minimalloc(a: &Args) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/minimalloc");
    let capacity = 1_048_576u64;
    println!(
        "MiniMalloc challenging instances, {} {capacity} bytes; CPU ms, median of {} runs",
        if a.no_capacity {
            "no capacity given, fits"
        } else {
            "capacity"
        },
        a.reps
    );
    println!(
        "{:<4} {:>5} {:>9} {:>9} {:>6} {:>10} {:>9} {:>10} {:>7}",
        "inst", "bufs", "peak", "arena", "fits", "auto ms", "nodes", "size arena", "ratio"
    );
    for name in "ABCDEFGHIJK".chars() {
        let path = dir.join(format!("{name}.{capacity}.csv"));
        let text = std::fs::read_to_string(&path).expect("vendored instance");
        let iv = csv::parse(&text).expect("valid csv");
        let opts = LayoutOptions {
            method: LayoutMethod::Auto,
            capacity: (!a.no_capacity).then_some(capacity),
            budget_ms: match (a.budget_ms, a.no_capacity) {
                (Some(ms), _) => Some(ms),
                (None, false) => Some(10_000.0),
                (None, true) => LayoutOptions::default().budget_ms,
            },
            ..LayoutOptions::default()
        };
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..a.reps {
            let t0 = cpu_ms();
            let l = layout_intervals(&iv, &opts, &CpuClock, &Hooks::default()).expect("layout");
            times.push(cpu_ms() - t0);
            last = Some(l);
        }
        let l = last.expect("one run");
        let size = layout_intervals(
            &iv,
            &LayoutOptions {
                method: LayoutMethod::Size,
                ..LayoutOptions::default()
            },
            &CpuClock,
            &Hooks::default(),
        )
        .expect("size layout");
        let peak = size.lower_bound_bytes;
        println!(
            "{:<4} {:>5} {:>9} {:>9} {:>6} {:>10.1} {:>9} {:>10} {:>7.3}",
            name,
            iv.buffers.len(),
            peak,
            l.arena_bytes,
            if l.arena_bytes <= capacity {
                "yes"
            } else {
                "NO"
            },
            median(times),
            l.search_nodes,
            size.arena_bytes,
            size.arena_bytes as f64 / peak as f64
        );
    }
}

fn graph_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn graphs(a: &Args) {
    println!(
        "\nReal graphs: plan (auto, {}), then lay out the order with align 1; CPU ms, median of {} runs",
        match a.plan_ms {
            Some(ms) => format!("{ms} ms budget"),
            None => format!("{} states, no clock", a.plan_states),
        },
        a.reps
    );
    println!(
        "{:<48} {:>6} {:>7} {:>13} {:>13} {:>8} {:>8} {:>9} {:>8} {:>9}",
        "graph",
        "ops",
        "bufs",
        "peak",
        "arena",
        "ratio",
        "optimal",
        "layout ms",
        "+orders",
        "plan ms"
    );
    let (mut total, mut exact, mut within1, mut joint_exact) = (0, 0, 0, 0);
    let mut worst: f64 = 1.0;
    for path in graph_files(&a.graphs) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(g) = Graph::from_json(&text) else {
            continue;
        };
        // The planned order is reproducible unless `--plan-ms` asks for a clock budget: with no
        // deadline the planner is bounded by its state limit alone, so the same graph gets the
        // same order on every run and machine, and runs can be compared graph by graph.
        let plan_opts = PlanOptions {
            budget_ms: a.plan_ms,
            max_states: a.plan_states,
            ..PlanOptions::default()
        };
        let p0 = cpu_ms();
        let cached = a.orders.as_ref().map(|d| {
            d.join(path.file_name().unwrap_or_default())
                .with_extension("order")
        });
        let plan = match cached.as_deref().and_then(|f| cached_plan(&g, f)) {
            Some(p) => p,
            None => match peakorder::plan(&g, &plan_opts, &CpuClock) {
                Ok(p) => {
                    if let Some(f) = &cached {
                        save_plan(&p, f);
                    }
                    p
                }
                Err(_) => continue,
            },
        };
        let plan_ms = cpu_ms() - p0;
        let mut opts = LayoutOptions::default();
        if let Some(b) = a.budget_ms {
            opts.budget_ms = Some(b);
        }
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..a.reps {
            let t0 = cpu_ms();
            let l = peakorder::layout(&g, &plan.order_ix, &opts, &CpuClock).expect("layout");
            times.push(cpu_ms() - t0);
            last = Some(l);
        }
        let l = last.expect("one run");
        let ratio = l.arena_bytes as f64 / l.peak_bytes.max(1) as f64;
        total += 1;
        // Where the planned order's arena is above its peak: the order search at the same peak
        // (layout_planned, `--slack`, default 0) of the same planned order, as `peakorder layout`
        // runs it; its arena / planned peak.
        let joint = if l.arena_bytes == l.peak_bytes {
            exact += 1;
            joint_exact += 1;
            String::from("-")
        } else {
            let j = layout_planned(&g, &plan, &opts, a.slack, &CpuClock, &Hooks::default())
                .expect("plan and layout");
            if j.arena_bytes == plan.peak_bytes {
                joint_exact += 1;
            }
            format!(
                "{:.4}",
                j.arena_bytes as f64 / plan.peak_bytes.max(1) as f64
            )
        };
        if ratio <= 1.01 {
            within1 += 1;
        }
        worst = worst.max(ratio);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!(
            "{:<48} {:>6} {:>7} {:>13} {:>13} {:>8.4} {:>8} {:>9.2} {:>8} {:>9.1}",
            name,
            g.num_ops(),
            l.buffers.len(),
            l.peak_bytes,
            l.arena_bytes,
            ratio,
            l.optimal,
            median(times),
            joint,
            plan_ms
        );
    }
    println!(
        "{total} graphs: arena = planned peak on {exact} ({:.1}%), within 1% on {within1}; worst ratio {worst:.4}; \
         with the order search at the same peak, arena = planned peak on {joint_exact} ({:.1}%)",
        100.0 * exact as f64 / total.max(1) as f64,
        100.0 * joint_exact as f64 / total.max(1) as f64
    );
}

/// `--orders DIR`: the planned order of a graph saved as `DIR/NAME.order` (its method, then the
/// op indices), so that runs iterating on the layout skip the planning (seconds on a few graphs).
fn save_plan(p: &Plan, file: &Path) {
    let _ = std::fs::create_dir_all(file.parent().unwrap_or(Path::new(".")));
    let mut text = p.method.clone();
    for v in &p.order_ix {
        text.push_str(&format!(" {v}"));
    }
    let _ = std::fs::write(file, text);
}

/// The plan of a saved order (re-checked: it must be an order of `g`; the peak is simulated).
fn cached_plan(g: &Graph, file: &Path) -> Option<Plan> {
    let text = std::fs::read_to_string(file).ok()?;
    let mut words = text.split_whitespace();
    let method = words.next()?.to_string();
    let order_ix: Vec<OpIx> = words.map(|w| w.parse().ok()).collect::<Option<_>>()?;
    g.check_order(&order_ix).ok()?;
    let peak_bytes = peakorder::peak_of(g, &order_ix);
    Some(Plan {
        order: g.op_ids(&order_ix),
        peak_bytes,
        inputs_bytes: 0,
        lower_bound_bytes: 0,
        optimal: false,
        proof: None,
        lower_bound_by: "",
        method,
        program_order_peak_bytes: None,
        elapsed_ms: 0.0,
        order_ix,
        recompute: None,
    })
}

fn main() {
    let a = args();
    if a.only.as_deref() != Some("graphs") {
        minimalloc(&a);
    }
    if a.only.as_deref() != Some("minimalloc") {
        graphs(&a);
    }
}
