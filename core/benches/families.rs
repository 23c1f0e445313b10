//! Benchmark over the generated graph families (`cargo bench -p peakorder --bench families`).
//!
//! For every family: the peak of every method and of `auto` (Liu, else exact search seeded with
//! every heuristic, then local search), its ratio to the best peer heuristic
//! (min(inductor, xla)) and to the lower bound, and the time of each. Then `auto` on
//! 100,000-op graphs with its default budget, timed. Prints Markdown (the table committed in docs/large-graphs.md).
//! `-- --quick` runs smaller graphs.

use std::time::Instant;

use peakorder::generators as gen;
use peakorder::order::{auto, greedy, inductor, local_search, series_parallel, spize, xla};
use peakorder::units::format_bytes;
use peakorder::{lower_bound, peak_of, Budget, Clock, Graph, OpIx};

/// The deadline clock: this thread's CPU time where available (the machine is shared, and a
/// wall-clock deadline would mostly measure the neighbours), wall time otherwise.
struct WallClock(Instant);
impl Clock for WallClock {
    fn now_ms(&self) -> f64 {
        cpu_ms().unwrap_or_else(|| self.0.elapsed().as_secs_f64() * 1e3)
    }
}

/// CPU time of this thread in ms (Linux; `None` elsewhere). The machine this runs on is shared,
/// so wall time measures the neighbours as much as the code; the kernel updates this figure at
/// scheduler ticks (a few ms), so it is used only for runs of hundreds of ms.
fn cpu_ms() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e6)
}

/// Runs `f` three times; returns its result and the fastest wall time in ms.
fn timed<T>(mut f: impl FnMut() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..3 {
        let t = Instant::now();
        out = Some(f());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (out.expect("ran"), best)
}

/// Runs `f` once; returns its result, wall ms and CPU ms (wall where CPU time is unavailable).
fn timed_cpu<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let t = Instant::now();
    let c = cpu_ms();
    let r = f();
    let wall = t.elapsed().as_secs_f64() * 1e3;
    let cpu = match (c, cpu_ms()) {
        (Some(a), Some(b)) => b - a,
        _ => wall,
    };
    (r, wall, cpu)
}

/// `auto` (Liu, else exact search seeded by every heuristic, else local search) within
/// `budget_ms` and `max_moves`.
fn auto(g: &Graph, budget_ms: f64, max_moves: u64) -> Vec<OpIx> {
    let clock = WallClock(Instant::now());
    let start = clock.now_ms();
    let budget = Budget::new(&clock, Some(start + budget_ms), max_moves);
    peakorder::order::auto::auto_order(g, &budget).order
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let big_only = std::env::args().any(|a| a == "--big-only");
    let s = if quick { 4 } else { 1 };
    let families: Vec<(&str, peakorder::format::GraphSpec)> = vec![
        (
            "layered 100x30 (seed 1)",
            gen::random_layered(1, 100 / s, 30),
        ),
        ("layered 60x60 (seed 2)", gen::random_layered(2, 60 / s, 60)),
        ("random SP 3000 (seed 3)", gen::random_sp(3, 3000 / s)),
        ("random SP 3000 (seed 4)", gen::random_sp(4, 3000 / s)),
        ("U-Net depth 6", gen::unet(6, 16, 256)),
        (
            "transformer 48 blocks",
            gen::transformer(48 / s, 4, 1024, 1024, false),
        ),
        (
            "transformer 48 blocks, checkpointed",
            gen::transformer(48 / s, 4, 1024, 1024, true),
        ),
        (
            "NAS cells 20x5 (seed 5)",
            gen::nas_cells(5, 20 / s, 5, 32, 32),
        ),
        ("workflow 20x50 (seed 6)", gen::workflow(6, 20 / s, 50)),
        ("workflow 30x30 (seed 7)", gen::workflow(7, 30 / s, 30)),
    ];
    type Run = fn(&Graph) -> Option<Vec<OpIx>>;
    let methods: Vec<(&str, Run)> = vec![
        ("program", |g| {
            peakorder::order::program::program_order(g).ok()
        }),
        ("greedy", |g| Some(greedy::greedy_order(g))),
        ("sp", |g| series_parallel::sp_order(g).ok()),
        ("spize", |g| Some(spize::spize_order(g))),
        ("local", |g| {
            let c = WallClock(Instant::now());
            let b = Budget::new(&c, Some(c.now_ms() + 100.0), 200_000);
            Some(local_search::improve(g, &greedy::greedy_order(g), &b))
        }),
        ("inductor", |g| Some(inductor::inductor_order(g))),
        ("xla", |g| Some(xla::xla_order(g))),
    ];
    println!(
        "| family | ops | lower bound | {} | auto | vs best peer | vs bound | auto time |",
        methods.iter().map(|m| m.0).collect::<Vec<_>>().join(" | ")
    );
    println!(
        "|---|---:|---:|{}---:|---:|---:|---:|",
        "---:|".repeat(methods.len())
    );
    let mut log_sum = 0.0;
    let mut ratio_rows: Vec<String> = Vec::new();
    let mut count = 0;
    let mut worst: f64 = 0.0;
    for (name, spec) in families {
        if big_only {
            break;
        }
        let g = Graph::from_spec(spec).expect("generated graphs are valid");
        let lb = lower_bound(&g);
        let mut cells = Vec::new();
        let mut peaks: Vec<Option<u64>> = Vec::new();
        let mut peer = u64::MAX;
        for (m, run) in &methods {
            let (order, ms) = timed(|| run(&g));
            match order {
                Some(o) => {
                    g.check_order(&o).expect("valid order");
                    let p = peak_of(&g, &o);
                    if *m == "inductor" || *m == "xla" {
                        peer = peer.min(p);
                    }
                    cells.push(format!("{} ({:.1} ms)", format_bytes(p), ms));
                    peaks.push(Some(p));
                }
                None => {
                    cells.push("n/a".into());
                    peaks.push(None);
                }
            }
        }
        let (best, ms) = timed(|| auto(&g, 200.0, 1_000_000));
        g.check_order(&best).expect("valid order");
        let p = peak_of(&g, &best);
        let ratio = p as f64 / peer as f64;
        assert!(p <= peer, "{name}: auto above the best peer");
        log_sum += ratio.ln();
        count += 1;
        let show = |q: Option<u64>| match q {
            Some(q) => format!(
                "{:.3} / {:.3}",
                q as f64 / peer as f64,
                q as f64 / lb.max(1) as f64
            ),
            None => "n/a".into(),
        };
        ratio_rows.push(format!(
            "| {name} | {} | {} |",
            peaks
                .iter()
                .map(|&q| show(q))
                .collect::<Vec<_>>()
                .join(" | "),
            show(Some(p))
        ));
        worst = worst.max(ratio);
        println!(
            "| {name} | {} | {} | {} | {} | {:.3} | {:.3} | {:.1} ms |",
            g.num_ops(),
            format_bytes(lb),
            cells.join(" | "),
            format_bytes(p),
            ratio,
            p as f64 / lb.max(1) as f64,
            ms
        );
    }
    println!(
        "\nGeometric mean of auto / min(inductor, xla): {:.3} over {count} graphs (worst {:.3}).\n",
        (log_sum / count as f64).exp(),
        worst
    );
    if !ratio_rows.is_empty() {
        println!(
            "Each method's peak / min(inductor, xla) and peak / lower bound:\n\n| family | {} | auto |",
            methods.iter().map(|m| m.0).collect::<Vec<_>>().join(" | ")
        );
        println!("|---|{}---:|", "---:|".repeat(methods.len()));
        for r in &ratio_rows {
            println!("{r}");
        }
        println!();
    }

    // 100,000-op graphs through the fallback: every heuristic, then local search, timed as a
    // whole (graph construction excluded).
    let big: Vec<(&str, peakorder::format::GraphSpec)> = vec![
        ("layered 1000x100", gen::random_layered(8, 1000 / s, 100)),
        (
            "transformer 2800 blocks",
            gen::transformer(2800 / s, 1, 512, 512, false),
        ),
        ("random SP 100000", gen::random_sp(9, 100_000 / s)),
        ("NAS cells 1500x5", gen::nas_cells(10, 1500 / s, 5, 32, 32)),
        ("workflow 100x300", gen::workflow(11, 100 / s, 300)),
    ];
    println!("| 100k-op graph | ops | auto peak | best peer | heuristics only (CPU) | auto, default budget (CPU) | same, wall |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, spec) in big {
        let g = Graph::from_spec(spec).expect("valid");
        if std::env::args().any(|a| a == "--parts") {
            let parts: Vec<(&str, Run)> = vec![
                ("greedy", |g| Some(greedy::greedy_order(g))),
                ("spize", |g| Some(spize::spize_order(g))),
                ("lpmf", |g| Some(inductor::lpmf_order(g))),
                ("ind_bfs", |g| Some(inductor::bfs_order(g))),
                ("ind_dfs", |g| Some(inductor::dfs_order(g))),
                ("xla_list", |g| Some(xla::list_order(g))),
                ("xla_dfs", |g| Some(xla::dfs_order(g))),
                ("xla_post", |g| Some(xla::post_order(g))),
                ("peak_of", |g| {
                    let o: Vec<OpIx> = peakorder::order::program::program_order(g).ok()?;
                    peak_of(g, &o);
                    Some(o)
                }),
            ];
            for (m, run) in &parts {
                let (_, ms) = timed(|| run(&g));
                eprintln!("{name}: {m} {ms:.1} ms");
            }
        }
        let (_, _, heur) = timed_cpu(|| auto::fallback_candidates(&g));
        // `auto` as a user gets it: the default budget of `peakorder plan`.
        let defaults = peakorder::PlanOptions::default();
        let (best, wall, cpu) =
            timed_cpu(|| auto(&g, defaults.budget_ms.unwrap_or(100.0), defaults.max_states));
        g.check_order(&best).expect("valid order");
        let peer = peak_of(&g, &inductor::inductor_order(&g)).min(peak_of(&g, &xla::xla_order(&g)));
        println!(
            "| {name} | {} | {} | {} | {:.0} ms | {:.0} ms | {:.0} ms |",
            g.num_ops(),
            format_bytes(peak_of(&g, &best)),
            format_bytes(peer),
            heur,
            cpu,
            wall
        );
    }
}
