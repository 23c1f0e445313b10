//! The real-graph corpus (docs/real-graphs.md): `auto` at the default budget and at 10 s, its
//! lower bound, gap and proof, and `auto` against the peers (min of Inductor's and XLA's).
//!
//! `cargo bench -p peakorder --bench real -- [--dir DIR] [--long] [--budget-ms N] [--budgets A,B,..] [--only SUBSTR] [--check]`
//!
//! DIR defaults to `$PEAKORDER_CORPUS`, else `target/corpus` (made by scripts/corpus/build.sh).
//! `--long` adds the 10 s column (about 20 minutes on the 116 graphs). The deadlines and
//! `elapsed_ms` are read on this thread's CPU clock (`benches/common`): on a shared machine a
//! wall clock would mostly measure the neighbours. `--wall` uses the wall clock instead, as the
//! CLI does. Prints one Markdown row per
//! graph, then a summary: graphs proven optimal, the worst plan / bound of the training steps,
//! and every graph where `auto` is above the peers (`--check` exits 1 then).
//!
//! `--budgets 10,30,100,300,1000` runs `auto` at exactly those budgets (in place of the default
//! and `--long`) and checks that budgets only help (issue 32): it lists every graph whose peak
//! is higher, or whose bound is lower, at a larger budget than at a smaller one, and every run
//! over 1.1 × budget + 5 ms (`--check` exits 1 on either).

use std::time::Instant;

use peakorder::{plan, Clock, Graph, Method, Plan, PlanOptions};

#[path = "common/mod.rs"]
mod common;

struct WallClock(Instant);
impl Clock for WallClock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1e3
    }
}

fn run(g: &Graph, method: Method, budget_ms: f64, wall: bool) -> Plan {
    let opts = PlanOptions {
        method,
        budget_ms: Some(budget_ms),
        ..PlanOptions::default()
    };
    let (w, c) = (WallClock(Instant::now()), common::CpuClock);
    let clock: &dyn Clock = if wall { &w } else { &c };
    plan(g, &opts, clock).expect("auto, inductor and xla plan every graph")
}

fn gap(p: &Plan) -> f64 {
    p.peak_bytes as f64 / p.lower_bound_bytes.max(1) as f64
}

fn proof(p: &Plan) -> String {
    match (&p.proof, p.optimal) {
        (Some(k), true) => k.to_string(),
        _ => "-".to_string(),
    }
}

fn cells(p: &Plan) -> String {
    format!(
        "{} | {} | {:.5} | {} | {:.1}",
        p.peak_bytes,
        p.lower_bound_bytes,
        gap(p),
        proof(p),
        p.elapsed_ms
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let value = |f: &str| common::arg_value(&args, f);
    let dir = common::corpus_dir(&args);
    let only = value("--only");
    let long = flag("--long");
    let wall = flag("--wall");
    let files = common::corpus_files(&dir, |name| {
        only.as_ref().map_or(true, |s| name.contains(s.as_str()))
    });
    let default_ms = PlanOptions::default().budget_ms.expect("a default budget");
    let listed: Option<Vec<f64>> = value("--budgets").map(|l| {
        l.split(',')
            .map(|b| {
                b.trim()
                    .parse()
                    .expect("--budgets takes ms, comma-separated")
            })
            .collect()
    });
    let mut budgets = listed.clone().unwrap_or_else(|| vec![default_ms]);
    if long && listed.is_none() {
        budgets.push(10_000.0);
    }
    // `--budget-ms N`: one more column at N ms (a proof's time between the two).
    if let Some(ms) = value("--budget-ms") {
        budgets.push(ms.parse().expect("--budget-ms takes a number of ms"));
    }
    let mut header = "| graph | ops |".to_string();
    let mut rule = "|---|---:|".to_string();
    for b in &budgets {
        header += &format!(" plan ({b} ms) | bound | plan / bound | proof | ms |");
        rule += "---:|---:|---:|---|---:|";
    }
    println!("{header} auto / peers |");
    println!("{rule}---:|");
    let mut proven = vec![0usize; budgets.len()];
    let mut worst_train = vec![(1.0f64, String::new()); budgets.len()];
    let mut above_peers = Vec::new();
    let mut worst_overshoot = (0.0f64, String::new());
    // `--budgets`: each graph's (budget, peak, bound) runs, and what breaks the promise.
    let mut worse_at_larger = Vec::new();
    let mut over_budget = Vec::new();
    for path in &files {
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(path).expect("read graph");
        let g = Graph::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let peers = [Method::Inductor, Method::Xla]
            .iter()
            .map(|&m| run(&g, m, default_ms, wall).peak_bytes)
            .min()
            .unwrap_or(u64::MAX);
        let mut row = format!("| {name} | {} |", g.num_ops());
        let mut default_peak = 0;
        let mut seen: Vec<(f64, u64, u64)> = Vec::new();
        for (i, &b) in budgets.iter().enumerate() {
            let p = run(&g, Method::Auto, b, wall);
            if i == 0 || (listed.is_some() && b == default_ms) {
                default_peak = p.peak_bytes;
            }
            for &(sb, speak, sbound) in seen.iter().filter(|s| s.0 < b) {
                if p.peak_bytes > speak || p.lower_bound_bytes < sbound {
                    worse_at_larger.push(format!(
                        "{name}: {sb} ms peak {speak} bound {sbound}, {b} ms peak {} bound {}",
                        p.peak_bytes, p.lower_bound_bytes
                    ));
                }
            }
            seen.push((b, p.peak_bytes, p.lower_bound_bytes));
            if p.elapsed_ms > 1.1 * b + 5.0 {
                over_budget.push(format!("{name} at {b} ms: {:.1} ms", p.elapsed_ms));
            }
            proven[i] += p.optimal as usize;
            if name.contains("-train-") && gap(&p) > worst_train[i].0 {
                worst_train[i] = (gap(&p), name.clone());
            }
            let over = p.elapsed_ms / (1.1 * b + 5.0);
            if over > worst_overshoot.0 {
                worst_overshoot = (over, format!("{name} at {b} ms: {:.1} ms", p.elapsed_ms));
            }
            row += &format!(" {} |", cells(&p));
        }
        let vs = default_peak as f64 / peers as f64;
        if default_peak > peers {
            above_peers.push(format!("{name} ({vs:.4})"));
        }
        println!("{row} {vs:.4} |");
    }
    println!();
    for (i, b) in budgets.iter().enumerate() {
        println!(
            "budget {b} ms: {}/{} proven optimal; worst plan / bound of a training step {:.5} ({})",
            proven[i],
            files.len(),
            worst_train[i].0,
            worst_train[i].1
        );
    }
    println!(
        "worst elapsed / (1.1 x budget + 5 ms): {:.2} ({})",
        worst_overshoot.0, worst_overshoot.1
    );
    let mut failed = false;
    if listed.is_some() {
        if worse_at_larger.is_empty() {
            println!("no graph's peak or bound is worse at a larger budget");
        } else {
            println!("worse at a larger budget ({}):", worse_at_larger.len());
            for w in &worse_at_larger {
                println!("  {w}");
            }
        }
        if over_budget.is_empty() {
            println!("no run over 1.1 x budget + 5 ms");
        } else {
            println!("over 1.1 x budget + 5 ms: {}", over_budget.join(", "));
        }
        failed |= !worse_at_larger.is_empty() || !over_budget.is_empty();
    }
    if above_peers.is_empty() {
        println!("auto is never above min(inductor, xla)");
    } else {
        println!("auto above min(inductor, xla): {}", above_peers.join(", "));
        failed = true;
    }
    if failed && flag("--check") {
        std::process::exit(1);
    }
}
