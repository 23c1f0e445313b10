//! Where a plan goes longest without reading the clock (issue 32: budgets are promises, and a
//! deadline can only be kept as often as it is read). Runs `auto` (or `--method M`) on each
//! graph at a budget with a clock that remembers the longest stretches of thread CPU time
//! between two reads and the call stack that ended each; prints them, longest first.
//!
//! `cargo bench -p peakorder --bench clock_gaps -- --dir DIR [--only SUBSTR] [--budget-ms N] [--runs N] [--top N] [--method M] [--after MS]`
//!
//! The stacks name functions when the bench profile keeps symbols (it does; no line numbers
//! without `debug`). A stretch of g ms is an overrun of up to g ms past the deadline.

use std::backtrace::Backtrace;
use std::cell::{Cell, RefCell};

use peakorder::{plan, Clock, Graph, Method, PlanOptions};

#[path = "common/mod.rs"]
mod common;

/// The clock: thread CPU time less the time it spent taking stacks (so the plan runs as it
/// would without it, deadline included), with the longest gaps between reads and the stack of
/// the read that ended each.
struct GapClock {
    /// The last read, on this clock.
    last: Cell<Option<f64>>,
    /// CPU time spent taking stacks so far.
    spent: Cell<f64>,
    gaps: RefCell<Vec<(f64, f64, String)>>,
    keep: usize,
    /// From how far after the first read every gap is kept (`--after MS`: what runs near the
    /// deadline, in order).
    first: Cell<Option<f64>>,
    after: Option<f64>,
    tail: RefCell<Vec<(f64, f64, String)>>,
}

impl Clock for GapClock {
    fn now_ms(&self) -> f64 {
        let raw = common::cpu_ms();
        let now = raw - self.spent.get();
        let first = self.first.get().unwrap_or(now);
        self.first.set(Some(first));
        if let Some(prev) = self.last.replace(Some(now)) {
            let gap = now - prev;
            if self.after.is_some_and(|a| now - first >= a) {
                self.tail.borrow_mut().push((gap, prev - first, stack()));
            }
            let mut gaps = self.gaps.borrow_mut();
            if gaps.len() < self.keep || gap > gaps.last().map_or(0.0, |g| g.0) {
                gaps.push((gap, prev - first, stack()));
                gaps.sort_by(|a, b| b.0.total_cmp(&a.0));
                gaps.truncate(self.keep);
            }
        }
        self.spent.set(self.spent.get() + (common::cpu_ms() - raw));
        now
    }
}

/// The path of a frame's file inside this crate's `src/`, when it is one of ours (the backtrace
/// names them relative to the crate, `./src/plan.rs`, or absolute; the standard library's
/// `library/core/src/` is not ours).
fn in_src(at: &str) -> Option<&str> {
    at.strip_prefix("./src/")
        .or_else(|| at.strip_prefix(concat!(env!("CARGO_MANIFEST_DIR"), "/src/")))
}

/// The peakorder frames of the current stack, innermost first (with file and line where the
/// build keeps them: `CARGO_PROFILE_BENCH_DEBUG=line-tables-only`).
fn stack() -> String {
    let bt = Backtrace::force_capture().to_string();
    let lines: Vec<&str> = bt.lines().map(str::trim).collect();
    let mut frames = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        // A frame of the core: named `peakorder::…` without line tables, located in this
        // crate's `src/` with them (inlined frames are named by their function alone).
        let at = lines.get(i + 1).and_then(|n| n.strip_prefix("at "));
        let in_core = at.map_or(l.contains("peakorder::"), |a| in_src(a).is_some());
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
        let at = at.and_then(in_src).unwrap_or("");
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
    let after: Option<f64> = value("--after").map(|v| v.parse().expect("--after MS"));
    let top: usize = value("--top").map_or(3, |v| v.parse().expect("--top N"));
    let method: Method = value("--method").map_or(Method::Auto, |m| m.parse().expect("--method M"));
    let files = common::corpus_files(&dir, |name| name.contains(&only));
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable graph");
        let g = Graph::from_json(&text).expect("a valid graph");
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        for _ in 0..runs {
            let clock = GapClock {
                last: Cell::new(None),
                spent: Cell::new(0.0),
                gaps: RefCell::new(Vec::new()),
                keep: top,
                first: Cell::new(None),
                after,
                tail: RefCell::new(Vec::new()),
            };
            let opts = PlanOptions {
                method,
                budget_ms: Some(budget),
                ..PlanOptions::default()
            };
            let p = plan(&g, &opts, &clock).expect("plans every graph");
            println!("{name} at {budget} ms: elapsed {:.1} ms", p.elapsed_ms);
            for (gap, at, where_) in clock.gaps.borrow().iter() {
                println!("  {gap:7.2} ms from {at:.1} ms into the plan: {where_}");
            }
            if after.is_some() {
                println!("  every read from {} ms on:", after.unwrap_or_default());
            }
            for (gap, at, where_) in clock.tail.borrow().iter() {
                println!("  {gap:7.2} ms from {at:.1} ms into the plan: {where_}");
            }
        }
    }
}
