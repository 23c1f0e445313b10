//! Where a plan goes longest without reading the clock (issue 32: budgets are promises, and a
//! deadline can only be kept as often as it is read). Runs `auto` on each graph at a budget
//! with a clock that remembers the longest stretches of thread CPU time between two reads and
//! the call stack that ended each; prints them, longest first.
//!
//! `cargo bench -p peakorder --bench clock_gaps -- --dir DIR [--only SUBSTR] [--budget-ms N] [--runs N] [--top N]`
//!
//! The stacks name functions when the bench profile keeps symbols (it does; no line numbers
//! without `debug`). A stretch of g ms is an overrun of up to g ms past the deadline.

use std::backtrace::Backtrace;
use std::cell::RefCell;

use peakorder::{plan, Clock, Graph, Method, PlanOptions};

#[path = "common/mod.rs"]
mod common;

/// The clock: thread CPU time, and the longest gaps between reads with the stack of the read
/// that ended each.
struct GapClock {
    last: RefCell<Option<f64>>,
    gaps: RefCell<Vec<(f64, f64, String)>>,
    keep: usize,
}

impl Clock for GapClock {
    fn now_ms(&self) -> f64 {
        let now = common::cpu_ms();
        let prev = self.last.borrow_mut().replace(now);
        if let Some(prev) = prev {
            let gap = now - prev;
            let mut gaps = self.gaps.borrow_mut();
            if gaps.len() < self.keep || gap > gaps.last().map_or(0.0, |g| g.0) {
                gaps.push((gap, prev, stack()));
                gaps.sort_by(|a, b| b.0.total_cmp(&a.0));
                gaps.truncate(self.keep);
            }
        }
        // The stack was taken on this clock's time: start the next gap after it.
        let now = common::cpu_ms();
        *self.last.borrow_mut() = Some(now);
        now
    }
}

/// The peakorder frames of the current stack, innermost first (with file and line where the
/// build keeps them: `CARGO_PROFILE_BENCH_DEBUG=line-tables-only`).
fn stack() -> String {
    let bt = Backtrace::force_capture().to_string();
    let lines: Vec<&str> = bt.lines().map(str::trim).collect();
    let mut frames = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        // A frame of the core: named `peakorder::…` without line tables, located in
        // `core/src/` with them (inlined frames are named by their function alone).
        let at = lines.get(i + 1).and_then(|n| n.strip_prefix("at "));
        let in_core = at.map_or(l.contains("peakorder::"), |a| a.contains("core/src/"));
        if !in_core
            || l.contains("GapClock")
            || l.contains("clock_gaps")
            || at.is_some_and(|a| a.contains("budget.rs"))
        {
            continue;
        }
        let f = l
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == ':')
            .trim();
        let f = f.rsplit_once("::h").map_or(f, |(a, _)| a);
        let f = f.split('<').next().unwrap_or(f);
        let at = at
            .and_then(|n| n.rsplit_once("core/src/").map(|(_, p)| p))
            .unwrap_or("");
        frames.push(if at.is_empty() {
            f.to_string()
        } else {
            format!("{f} ({at})")
        });
        if frames.len() == 8 {
            break;
        }
    }
    frames.join(" < ")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |f: &str| common::arg_value(&args, f);
    let dir = common::corpus_dir(&args);
    let only = value("--only").unwrap_or_default();
    let budget: f64 = value("--budget-ms").map_or(100.0, |v| v.parse().expect("--budget-ms N"));
    let runs: usize = value("--runs").map_or(1, |v| v.parse().expect("--runs N"));
    let top: usize = value("--top").map_or(3, |v| v.parse().expect("--top N"));
    let files = common::corpus_files(&dir, |name| name.contains(&only));
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable graph");
        let g = Graph::from_json(&text).expect("a valid graph");
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        for _ in 0..runs {
            let clock = GapClock {
                last: RefCell::new(None),
                gaps: RefCell::new(Vec::new()),
                keep: top,
            };
            let opts = PlanOptions {
                method: Method::Auto,
                budget_ms: Some(budget),
                ..PlanOptions::default()
            };
            let p = plan(&g, &opts, &clock).expect("auto plans every graph");
            println!("{name} at {budget} ms: elapsed {:.1} ms", p.elapsed_ms);
            for (gap, at, where_) in clock.gaps.borrow().iter() {
                println!("  {gap:7.2} ms from {at:.1}: {where_}");
            }
        }
    }
}
