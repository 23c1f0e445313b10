//! Benchmark of the optimal orderers: for each fixture, the peak, the lower bound, whether it is
//! proven optimal, and the planning time (median of several runs), as a Markdown table that
//! docs/benchmarks.md commits. Run: `cargo bench -p peakorder --bench optimal` (add a fixture
//! name substring to run only matching fixtures).
//!
//! Memory is measured with a counting allocator: the most bytes allocated at once while the
//! orderer ran, above what was allocated before it started.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering as AO};

use common::{cpu_ms, CpuClock};
use peakorder::examples::{seed_graph, SeedOptions};
use peakorder::format::{GraphSpec, OpSpec, TensorSpec};
use peakorder::generators;
use peakorder::generators::{small, Draw, Rng};
use peakorder::order::liu::liu_order;
use peakorder::units::format_bytes;
use peakorder::{peak_of, plan, Graph, Method, PlanOptions};

struct Counting;
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let now = NOW.fetch_add(l.size(), AO::Relaxed) + l.size();
            PEAK.fetch_max(now, AO::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), AO::Relaxed);
        System.dealloc(p, l)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// A small random family's graph (valid by construction).
fn small_graph(spec: GraphSpec) -> Graph {
    Graph::from_spec(spec).expect("generated graph is valid")
}

/// A random in-tree of `n` ops: op i feeds a random later op (or is a root); each op makes one
/// tensor of 1..=64 KiB and some have workspace.
fn random_in_tree(n: usize, seed: u64) -> Graph {
    let mut r = Rng::with_state(seed);
    let mut inbox: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut tensors = Vec::with_capacity(n + 1);
    let mut ops = Vec::with_capacity(n);
    tensors.push(TensorSpec {
        id: "x".into(),
        bytes: Some(1024),
        ..Default::default()
    });
    for i in 0..n {
        let t = format!("t{i}");
        tensors.push(TensorSpec {
            id: t.clone(),
            bytes: Some(1024 * (1 + r.below(64))),
            ..Default::default()
        });
        let mut inputs = std::mem::take(&mut inbox[i]);
        if inputs.is_empty() {
            inputs.push("x".into());
        }
        ops.push(OpSpec {
            id: format!("o{i}"),
            inputs,
            outputs: vec![t.clone()],
            workspace: r.percent(10).then(|| 1024 * r.below(32)),
            ..Default::default()
        });
        // Mostly near parents, sometimes far: deep and bushy at once.
        if i + 1 < n {
            let p = if r.percent(80) {
                i + 1 + r.below(8.min((n - i - 1) as u64)) as usize
            } else {
                i + 1 + r.below((n - i - 1) as u64) as usize
            };
            inbox[p].push(t);
        }
    }
    let outputs = vec![format!("t{}", n - 1)];
    Graph::from_spec(GraphSpec {
        format: None,
        tensors,
        ops,
        outputs,
        meta: None,
    })
    .expect("valid tree")
}

/// A stack of `layers` transformer blocks (14 ops each: layer norms, Q/K/V projections, a
/// transposed view of K, scores, softmax, attention, output projection, residual adds, a 4x MLP)
/// over a 512-token sequence of width 768 with 12 heads, f32, weights owned by the caller.
fn transformer(layers: usize) -> Graph {
    let (seq, d, heads) = (512u64, 768u64, 12u64);
    let act = seq * d * 4;
    let mut tensors: Vec<TensorSpec> = Vec::new();
    let mut ops: Vec<OpSpec> = Vec::new();
    let mut t = |id: &str, bytes: Option<u64>, alias: Option<&str>| {
        tensors.push(TensorSpec {
            id: id.into(),
            bytes,
            alias_of: alias.map(|a| a.to_string()),
            ..Default::default()
        });
        id.to_string()
    };
    let mut h = t("h0", Some(act), None);
    let mut specs = Vec::new();
    for l in 0..layers {
        let n = |x: &str| format!("{x}{l}");
        let wq = t(&n("Wq"), Some(d * d * 4), None);
        let wk = t(&n("Wk"), Some(d * d * 4), None);
        let wv = t(&n("Wv"), Some(d * d * 4), None);
        let wo = t(&n("Wo"), Some(d * d * 4), None);
        let w1 = t(&n("W1_"), Some(d * 4 * d * 4), None);
        let w2 = t(&n("W2_"), Some(4 * d * d * 4), None);
        let ln1 = t(&n("ln1_"), Some(act), None);
        let q = t(&n("q"), Some(act), None);
        let k = t(&n("k"), Some(act), None);
        let v = t(&n("v"), Some(act), None);
        let kt = t(&n("kt"), None, Some(&k));
        let sc = t(&n("scores"), Some(heads * seq * seq * 4), None);
        let pr = t(&n("probs"), Some(heads * seq * seq * 4), None);
        let o = t(&n("attn"), Some(act), None);
        let proj = t(&n("proj"), Some(act), None);
        let h2 = t(&n("res1_"), Some(act), None);
        let ln2 = t(&n("ln2_"), Some(act), None);
        let up = t(&n("up"), Some(4 * act), None);
        let ge = t(&n("gelu"), Some(4 * act), None);
        let down = t(&n("down"), Some(act), None);
        let h3 = t(&n("res2_"), Some(act), None);
        let mut op = |id: &str, ins: Vec<&String>, outs: Vec<&String>, ws: u64| {
            specs.push(OpSpec {
                id: format!("{id}{l}"),
                inputs: ins.into_iter().cloned().collect(),
                outputs: outs.into_iter().cloned().collect(),
                workspace: (ws > 0).then_some(ws),
                ..Default::default()
            });
        };
        op("layernorm1_", vec![&h], vec![&ln1], 0);
        op("q_proj", vec![&ln1, &wq], vec![&q], 0);
        op("k_proj", vec![&ln1, &wk], vec![&k], 0);
        op("v_proj", vec![&ln1, &wv], vec![&v], 0);
        op("k_transpose", vec![], vec![&kt], 0);
        op("scores", vec![&q, &kt], vec![&sc], 0);
        op("softmax", vec![&sc], vec![&pr], seq * 4 * heads);
        op("attention", vec![&pr, &v], vec![&o], 0);
        op("out_proj", vec![&o, &wo], vec![&proj], 0);
        op("residual1_", vec![&h, &proj], vec![&h2], 0);
        op("layernorm2_", vec![&h2], vec![&ln2], 0);
        op("mlp_up", vec![&ln2, &w1], vec![&up], 0);
        op("gelu", vec![&up], vec![&ge], 0);
        op("mlp_down", vec![&ge, &w2], vec![&down], 0);
        op("residual2_", vec![&h2, &down], vec![&h3], 0);
        h = h3;
    }
    ops.extend(specs);
    Graph::from_spec(GraphSpec {
        format: None,
        tensors,
        ops,
        outputs: vec![h],
        meta: None,
    })
    .expect("valid transformer")
}

/// The process's peak resident set (Linux), or "n/a".
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or("n/a".into(), |kib| format_bytes(kib * 1024))
}

struct Row {
    fixture: String,
    ops: usize,
    method: String,
    peak: u64,
    bound: u64,
    proven: bool,
    ms: f64,
    extra: String,
}

/// The RNG of a family's seed (the same seeds as the table in docs/benchmarks.md before the
/// families were added).
fn rng(seed: u64) -> Rng {
    Rng::with_state(seed * 7919 + 13)
}

/// Makes a family's graph from a seed.
type Family = Box<dyn Fn(u64) -> Graph>;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn bench_plan(
    rows: &mut Vec<Row>,
    name: &str,
    g: &Graph,
    method: Method,
    budget_ms: f64,
    runs: usize,
) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let opts = PlanOptions {
            method,
            budget_ms: Some(budget_ms),
            ..PlanOptions::default()
        };
        let t = cpu_ms();
        let p = plan(g, &opts, &CpuClock).expect("plan");
        times.push(cpu_ms() - t);
        last = Some(p);
    }
    let p = last.unwrap();
    rows.push(Row {
        fixture: name.into(),
        ops: g.num_ops(),
        method: method.name().into(),
        peak: p.peak_bytes,
        bound: p.lower_bound_bytes,
        proven: p.optimal,
        ms: median(times),
        extra: String::new(),
    });
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let want = |name: &str| filter.as_ref().map_or(true, |f| name.contains(f.as_str()));
    // `--budget-ms=N` raises the search deadline of the DAG fixtures (default 100 ms, as `auto`).
    let budget_ms: f64 = std::env::args()
        .find_map(|a| {
            a.strip_prefix("--budget-ms=")
                .map(|v| v.parse().expect("number"))
        })
        .unwrap_or(100.0);
    // `--family-seeds=A..B`: the seeds of the family table (default 0..40).
    let (seed_lo, seed_hi): (u64, u64) = std::env::args()
        .find_map(|a| {
            a.strip_prefix("--family-seeds=").map(|v| {
                let (a, b) = v.split_once("..").expect("A..B");
                (a.parse().expect("A"), b.parse().expect("B"))
            })
        })
        .unwrap_or((0, 40));
    let n_seeds = seed_hi - seed_lo;
    let mut rows = Vec::new();

    for paths in [10usize, 40, 200] {
        let name = format!("seed graph, {paths} paths");
        if !want(&name) {
            continue;
        }
        let g = Graph::from_spec(seed_graph(SeedOptions {
            paths,
            ..SeedOptions::default()
        }))
        .unwrap();
        for m in [Method::Auto, Method::Exact, Method::Greedy] {
            bench_plan(&mut rows, &name, &g, m, 100.0, 21);
        }
    }

    for layers in [4usize, 24] {
        let name = format!("transformer, {layers} layers");
        if want(&name) {
            let g = transformer(layers);
            for m in [Method::Auto, Method::Greedy, Method::Program] {
                bench_plan(&mut rows, &name, &g, m, 100.0, 5);
            }
        }
    }

    for (kind, label) in [
        (0u8, "random DAG"),
        (1, "series-parallel"),
        (2, "layered DAG"),
    ] {
        for n in [60usize] {
            for seed in 0..5u64 {
                let name = format!("{label}, {n} ops, seed {seed}");
                if !want(&name) {
                    continue;
                }
                let mut r = Rng::with_state(seed * 1000 + n as u64);
                let g = match kind {
                    0 => small_graph(small::dag(&mut r, n)),
                    1 => small_graph(small::series_parallel(&mut r, n)),
                    _ => small_graph(small::layered(&mut r, n)),
                };
                bench_plan(&mut rows, &name, &g, Method::Auto, budget_ms, 3);
            }
        }
    }

    // Many seeds per family (up to about 60 ops): how many `auto` proves within its default
    // 100 ms. The seeds differ from the property tests' and from the fixtures above.
    let mut summary = Vec::new();
    let families: Vec<(&str, Family)> = vec![
        (
            "random DAG, 60 ops",
            Box::new(|s| small_graph(small::dag(&mut rng(s), 60))),
        ),
        (
            "series-parallel, 60 ops",
            Box::new(|s| small_graph(small::series_parallel(&mut rng(s), 60))),
        ),
        (
            "layered DAG, 60 ops",
            Box::new(|s| small_graph(small::layered(&mut rng(s), 60))),
        ),
        (
            "2-3 independent pieces, 60 ops",
            Box::new(|s| small_graph(small::pieces(&mut rng(s), 60))),
        ),
        (
            "series-parallel + 2-4 pinned outputs, 60 ops",
            Box::new(|s| small_graph(small::sp_pinned_outputs(&mut rng(s), 60))),
        ),
        (
            "uniform random DAG (long edges, sizes 1-100), 60 ops",
            Box::new(|s| small_graph(small::uniform_dag(&mut rng(s), 60))),
        ),
        (
            "wide layered DAG (5-12 per layer), 60 ops",
            Box::new(|s| small_graph(small::wide_layered(&mut rng(s), 60))),
        ),
        (
            "wide fork-joins (views, multi-output, workspace, donated), 60 ops",
            Box::new(|s| small_graph(small::fork_join(&mut rng(s), 60))),
        ),
        (
            "transformer block, training",
            Box::new(|s| {
                let mut r = rng(s);
                let spec = generators::transformer(
                    1,
                    1 + r.below(4),
                    64 << r.below(4),
                    128 << r.below(3),
                    r.percent(50),
                );
                Graph::from_spec(spec).expect("valid")
            }),
        ),
        (
            "U-Net depth 1, training",
            Box::new(|s| {
                let mut r = rng(s);
                let spec = generators::unet(1, 4 << r.below(4), 16 << r.below(3));
                Graph::from_spec(spec).expect("valid")
            }),
        ),
        (
            "NAS cells (2 cells of 2 nodes), training",
            Box::new(|s| {
                let spec = generators::nas_cells(s, 2, 2, 16, 32);
                Graph::from_spec(spec).expect("valid")
            }),
        ),
        (
            "workflow (3 stages of 5 tasks)",
            Box::new(|s| Graph::from_spec(generators::workflow(s, 3, 5)).expect("valid")),
        ),
    ];
    for (label, make) in &families {
        let name = format!("{label}, {n_seeds} seeds");
        if !want(&name) {
            continue;
        }
        let mut proven = 0;
        let mut times = Vec::new();
        let (mut lo, mut hi) = (usize::MAX, 0);
        for seed in seed_lo..seed_hi {
            let g = make(seed);
            lo = lo.min(g.num_ops());
            hi = hi.max(g.num_ops());
            let opts = PlanOptions {
                budget_ms: Some(budget_ms),
                ..PlanOptions::default()
            };
            let t = cpu_ms();
            let p = plan(&g, &opts, &CpuClock).expect("plan");
            times.push(cpu_ms() - t);
            proven += p.optimal as usize;
        }
        let ops = if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo}-{hi}")
        };
        summary.push((
            name,
            ops,
            proven,
            median(times.clone()),
            times.iter().cloned().fold(0.0, f64::max),
        ));
    }

    let name = "random in-tree, 1,000,000 ops";
    if want(name) {
        let before = NOW.load(AO::Relaxed);
        PEAK.store(before, AO::Relaxed);
        let g = random_in_tree(1_000_000, 7);
        let graph_held = NOW.load(AO::Relaxed) - before;
        let graph_peak = PEAK.load(AO::Relaxed) - before;
        let mut times = Vec::new();
        let mut mem = 0;
        let mut order = Vec::new();
        for _ in 0..5 {
            let base = NOW.load(AO::Relaxed);
            PEAK.store(base, AO::Relaxed);
            let t = cpu_ms();
            order = liu_order(&g).expect("in-tree");
            times.push(cpu_ms() - t);
            mem = mem.max(PEAK.load(AO::Relaxed) - base);
        }
        let peak = peak_of(&g, &order);
        rows.push(Row {
            fixture: name.into(),
            ops: g.num_ops(),
            method: "liu".into(),
            peak,
            bound: peak,
            proven: true,
            ms: median(times),
            extra: format!(
                "Liu allocated at most {}; the graph holds {} (building it peaked at {}); \
                 process peak RSS {}",
                format_bytes(mem as u64),
                format_bytes(graph_held as u64),
                format_bytes(graph_peak as u64),
                peak_rss()
            ),
        });
    }

    if !summary.is_empty() {
        println!(
            "| family (auto, {budget_ms} ms budget) | ops | proven optimal | median time | max time |"
        );
        println!("|---|---:|---:|---:|---:|");
        for (name, ops, proven, med, max) in &summary {
            println!("| {name} | {ops} | {proven}/{n_seeds} | {med:.2} ms | {max:.2} ms |");
        }
        println!();
    }
    println!("| fixture | ops | method | peak | lower bound | proven | time | notes |");
    println!("|---|---:|---|---:|---:|---|---:|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} ms | {} |",
            r.fixture,
            r.ops,
            r.method,
            format_bytes(r.peak),
            format_bytes(r.bound),
            if r.proven { "yes" } else { "no" },
            r.ms,
            r.extra
        );
    }
}
