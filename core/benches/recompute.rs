//! Plans with a memory limit on the corpus's training steps (issue #29, docs/recompute.md
//! "Measurements"): for each graph the no-recompute peak P0 (plan without a limit), the least
//! limit Lmin (the planner's `least_limit_bytes`, asked with the limit P0 - 1), and plans at
//! 100%, 90%, 70% and 50% of the way from Lmin to P0 and at Lmin: within the limit (re-simulated
//! here), added cost, its proven lower bound, optimal, and the CPU time taken.
//!
//! `cargo bench -p peakorder --bench recompute -- [--dir DIR] [--only SUBSTR] [--budget-ms N]
//!  [--json FILE] [--check]`
//! `cargo bench -p peakorder --bench recompute -- --check-sims FILE`
//!
//! DIR defaults to `$PEAKORDER_CORPUS`, else `target/corpus` (scripts/corpus/build.sh); only
//! graphs whose name contains `train` are read, and of those the ones containing SUBSTR. When
//! the planner finds nothing below P0 (Lmin = P0), the ladder runs from the proven lower bound
//! on the least limit instead (column `base`: `least` or `bound`), so that the rows still ask
//! for limits below P0. Errors (an infeasible limit, a panic) are reported per row; the run
//! goes on. `--check` exits 1 when a plan is over its limit or the added cost rises as the
//! limit grows. `--json FILE` writes the rows and each graph's P0 order for
//! `scripts/cpsat_recompute.py --referee FILE`.
//!
//! `--check-sims FILE` reads lines `{"graph", "schedule", "peak" | "error"}` (written by
//! `scripts/cpsat_recompute.py --selftest --dump-sims FILE`) and checks that the reference
//! simulator (core/src/recompute/schedule.rs) gives the same peak or error code.
//!
//! Time is this thread's CPU time (`benches/common`), as in the other benches: on a shared
//! machine a wall clock would mostly measure the neighbours.

use std::panic::{catch_unwind, AssertUnwindSafe};

use peakorder::recompute::{checked_schedule_peak, simulate_schedule};
use peakorder::{plan, Error, Graph, Plan, PlanOptions};
use serde_json::{json, Value};

#[path = "common/mod.rs"]
mod common;

/// Fractions of the way from the base (Lmin) to P0, largest first.
const LADDER: [f64; 5] = [1.0, 0.9, 0.7, 0.5, 0.0];

/// One limited plan, or why there is none.
enum Run {
    Planned(Box<Plan>),
    Refused(Error),
    Panicked(String),
}

impl Run {
    fn why(&self) -> String {
        match self {
            Run::Planned(_) => String::new(),
            Run::Refused(e) => describe(e),
            Run::Panicked(m) => format!("panic: {m}"),
        }
    }
}

fn plan_at(g: &Graph, limit: Option<u64>, budget_ms: f64) -> (Run, f64) {
    let opts = PlanOptions {
        budget_ms: Some(budget_ms),
        memory_limit: limit,
        ..PlanOptions::default()
    };
    let t0 = common::cpu_ms();
    let r = catch_unwind(AssertUnwindSafe(|| plan(g, &opts, &common::CpuClock)));
    let ms = common::cpu_ms() - t0;
    let run = match r {
        Ok(Ok(p)) => Run::Planned(Box::new(p)),
        Ok(Err(e)) => Run::Refused(e),
        Err(panic) => Run::Panicked(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
    };
    (run, ms)
}

fn describe(e: &Error) -> String {
    match e {
        // The numbers, not the sentence: the table is read side by side.
        Error::Infeasible {
            least, bound, op, ..
        } => format!(
            "infeasible (least {least}, bound {bound}{})",
            op.as_ref().map(|o| format!(", op {o}")).unwrap_or_default()
        ),
        e => format!("{}: {e}", e.code()),
    }
}

/// The least limit the planner reports and its proven bound: from a plan's recompute info, or
/// from the `infeasible` error, asked with the limit P0 - 1.
fn least_of(g: &Graph, p0: u64, budget_ms: f64) -> Result<(u64, u64), String> {
    if p0 == 0 {
        return Ok((0, 0));
    }
    match plan_at(g, Some(p0 - 1), budget_ms).0 {
        Run::Planned(p) => {
            let r = p
                .recompute
                .as_ref()
                .ok_or("a limited plan without recompute info")?;
            Ok((r.least_limit_bytes, r.least_limit_lower_bound_bytes))
        }
        Run::Refused(Error::Infeasible { least, bound, .. }) => Ok((least, bound)),
        other => Err(other.why()),
    }
}

fn check_sims(path: &str) -> i32 {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut agree, mut disagree) = (0usize, 0usize);
    for (i, line) in text.lines().enumerate() {
        let row: Value = serde_json::from_str(line).expect("a JSON line");
        let g = Graph::from_json(&row["graph"].to_string()).expect("a valid graph");
        let ids: Vec<String> = row["schedule"]
            .as_array()
            .expect("a schedule")
            .iter()
            .map(|x| x.as_str().expect("op ids").to_string())
            .collect();
        let ours = g
            .schedule_from_ids(&ids)
            .and_then(|s| simulate_schedule(&g, &s));
        let same = match (&ours, row.get("peak"), row.get("error")) {
            (Ok(sim), Some(p), _) => p.as_u64() == Some(sim.peak_bytes),
            (Err(e), _, Some(code)) => code.as_str() == Some(e.code()),
            _ => false,
        };
        if same {
            agree += 1;
        } else {
            disagree += 1;
            if disagree <= 10 {
                let said = match &ours {
                    Ok(sim) => sim.peak_bytes.to_string(),
                    Err(e) => e.code().to_string(),
                };
                println!("line {}: core says {said}, the file {line}", i + 1);
            }
        }
    }
    println!("{agree} schedules agree with core/src/recompute/schedule.rs, {disagree} disagree");
    i32::from(disagree > 0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let value = |f: &str| common::arg_value(&args, f);
    if let Some(path) = value("--check-sims") {
        std::process::exit(check_sims(&path));
    }
    let dir = common::corpus_dir(&args);
    let only = value("--only");
    let budget_ms: f64 = value("--budget-ms")
        .map(|s| s.parse().expect("--budget-ms takes a number of ms"))
        .unwrap_or_else(|| PlanOptions::default().budget_ms.expect("a default budget"));
    let files = common::corpus_files(&dir, |name| {
        name.contains("train") && only.as_ref().map_or(true, |s| name.contains(s.as_str()))
    });

    println!("budget {budget_ms} ms per plan (CPU time); limits: % of the way from base to P0");
    println!("| graph | ops | P0 | base | Lmin | Lmin bound | % | limit | within | added | bound | optimal | method | ms | error |");
    println!("|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---|---|---:|---|");
    let mut rows = Vec::new();
    let mut orders = serde_json::Map::new();
    let (mut over, mut rises, mut errors, mut planned) = (0usize, Vec::new(), 0usize, 0usize);
    let mut slowest = (0.0f64, String::new());
    for path in &files {
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let g = match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| Graph::from_json(&t).map_err(|e| describe(&e)))
        {
            Ok(g) => g,
            Err(e) => {
                println!("| {name} | - | - | - | - | - | - | - | - | - | - | - | - | - | {e} |");
                errors += 1;
                continue;
            }
        };
        let (p0, order) = match plan_at(&g, None, budget_ms).0 {
            Run::Planned(p) => (p.peak_bytes, p.order.clone()),
            other => {
                println!(
                    "| {name} | {} | - | - | - | - | - | - | - | - | - | - | - | - | P0: {} |",
                    g.num_ops(),
                    other.why()
                );
                errors += 1;
                continue;
            }
        };
        orders.insert(name.clone(), json!(order));
        let (lmin, lmin_bound) = match least_of(&g, p0, budget_ms) {
            Ok(x) => x,
            Err(e) => {
                println!(
                    "| {name} | {} | {p0} | - | - | - | - | - | - | - | - | - | - | - | Lmin: {e} |",
                    g.num_ops()
                );
                errors += 1;
                continue;
            }
        };
        // Nothing found below P0 yet: ask below it anyway, from the proven bound.
        let (base_name, base) = if lmin < p0 {
            ("least", lmin)
        } else {
            ("bound", lmin_bound.min(p0))
        };
        // (limit, added cost) of the plans within their limits, for the monotonicity check.
        let mut costs: Vec<(u64, f64)> = Vec::new();
        for &f in &LADDER {
            let limit = base + ((p0 - base) as f64 * f).floor() as u64;
            let (run, ms) = plan_at(&g, Some(limit), budget_ms);
            let mut row = json!({
                "graph": name, "path": path.to_string_lossy(), "ops": g.num_ops(), "p0": p0,
                "lmin": lmin, "lmin_bound": lmin_bound, "base": base_name, "fraction": f,
                "limit": limit, "elapsed_ms": ms,
            });
            let cells = match run {
                Run::Planned(p) => {
                    planned += 1;
                    let r = p.recompute.as_ref();
                    let peak = g
                        .schedule_from_ids(&p.order)
                        .and_then(|s| checked_schedule_peak(&g, &s));
                    let within = matches!(peak, Ok(x) if x <= limit);
                    if !within {
                        over += 1;
                    }
                    let added = r.map_or(0.0, |r| r.added_cost);
                    let bound = r.map_or(0.0, |r| r.added_cost_lower_bound);
                    costs.push((limit, added));
                    let method = r.map_or("-", |r| r.recompute_method);
                    if ms > slowest.0 && g.num_ops() <= 5000 {
                        slowest = (ms, format!("{name} at {limit}"));
                    }
                    row["within"] = json!(within);
                    row["peak"] = json!(peak.as_ref().ok());
                    row["added_cost"] = json!(added);
                    row["added_cost_lower_bound"] = json!(bound);
                    row["optimal"] = json!(p.optimal);
                    row["method"] = json!(method);
                    if added > 0.0 {
                        row["schedule"] = json!(p.order);
                    }
                    format!(
                        "{} | {added} | {bound} | {} | {method} | {ms:.1} | |",
                        if within { "yes" } else { "NO" },
                        p.optimal
                    )
                }
                other => {
                    let e = other.why();
                    errors += 1;
                    row["error"] = json!(e);
                    format!("- | - | - | - | - | {ms:.1} | {e} |")
                }
            };
            println!(
                "| {name} | {} | {p0} | {base_name} | {lmin} | {lmin_bound} | {:.0} | {limit} | {cells}",
                g.num_ops(),
                f * 100.0
            );
            rows.push(row);
        }
        // The added cost never rises as the limit grows.
        costs.sort_by_key(|c| c.0);
        for w in costs.windows(2) {
            if w[1].1 > w[0].1 + 1e-9 {
                rises.push(format!(
                    "{name}: {} at {} but {} at {}",
                    w[0].1, w[0].0, w[1].1, w[1].0
                ));
            }
        }
    }
    println!();
    println!(
        "{} graphs, {} limits: {planned} planned ({over} over the limit), {errors} errors or infeasible",
        files.len(),
        rows.len()
    );
    println!(
        "slowest plan up to 5k ops: {:.1} ms ({})",
        slowest.0, slowest.1
    );
    if rises.is_empty() {
        println!("added cost never rises as the limit grows");
    } else {
        println!("added cost rises with the limit: {}", rises.join("; "));
    }
    if let Some(out) = value("--json") {
        let doc = json!({"budget_ms": budget_ms, "rows": rows, "orders": orders});
        std::fs::write(&out, serde_json::to_string(&doc).expect("JSON"))
            .unwrap_or_else(|e| panic!("{out}: {e}"));
        println!("wrote {out}");
    }
    if flag("--check") && (over > 0 || !rises.is_empty()) {
        std::process::exit(1);
    }
}
