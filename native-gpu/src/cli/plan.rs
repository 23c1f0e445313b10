//! `peakorder plan`.

use std::path::PathBuf;

use clap::Args;
use peakorder::plan::RecomputeInfo;
use peakorder::units::format_bytes;
use peakorder::{Hooks, Plan, Progress};

use super::input::read_graph;
use super::search::{install_ctrl_c, ProgressLine, CANCEL};
use super::search_args::{MemoryLimitArg, MethodArg, SearchLimits};
use super::table::ms;
use super::{CliError, StdClock};

/// `peakorder plan GRAPH [--method M] [--memory-limit BYTES] [--budget-ms N] [--json]`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    #[command(flatten)]
    method: MethodArg,
    #[command(flatten)]
    limit: MemoryLimitArg,
    #[command(flatten)]
    limits: SearchLimits,
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: PlanArgs) -> Result<(), CliError> {
    // The arguments are checked before the graph is read: a malformed limit names itself.
    let opts = a.limit.apply(a.limits.plan_options(a.method.method()?))?;
    let g = read_graph(&a.graph)?;
    install_ctrl_c();
    let line = ProgressLine::new();
    let progress = |p: &Progress| line.update(p);
    let hooks = Hooks {
        cancel: Some(&CANCEL),
        progress: Some(&progress),
    };
    let plan = peakorder::plan_hooked(&g, &opts, &StdClock::new(), &hooks)?;
    drop(line);
    if a.json {
        println!("{}", to_json(&plan));
    } else {
        print!("{}", render(&plan));
    }
    Ok(())
}

pub fn to_json<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_string_pretty(x).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

// The plan's text is the report page's too, so it lives with the page (crate peakorder-report).
pub use peakorder_report::peak_text;

/// The text of a plan: the report page's for an order; with a memory limit, the schedule's
/// peak against the limit, what it recomputes and what that costs, and the least limit.
pub fn render(plan: &Plan) -> String {
    match &plan.recompute {
        None => peakorder_report::plan_text(plan),
        Some(r) => limited_text(plan, r),
    }
}

fn bytes(b: u64) -> String {
    format!("{} ({b} bytes)", format_bytes(b))
}

/// A cost as it was given (costs are whatever the graph counts: FLOPs, time, 1 per op).
pub fn cost(c: f64) -> String {
    let r = c.round();
    if (c - r).abs() < 1e-9 * c.abs().max(1.0) && r.abs() < 1e15 {
        format!("{r:.0}")
    } else {
        format!("{c:.6}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// Steps that run an op again: every run past each op's first.
pub fn recomputed_runs(r: &RecomputeInfo) -> u64 {
    r.runs
        .values()
        .map(|&k| u64::from(k.saturating_sub(1)))
        .sum()
}

fn limited_text(plan: &Plan, r: &RecomputeInfo) -> String {
    let mut s = String::new();
    let line = |s: &mut String, k: &str, v: String| s.push_str(&format!("{k:<17} {v}\n"));
    line(&mut s, "order method", plan.method.clone());
    line(&mut s, "memory limit", bytes(r.memory_limit_bytes));
    line(
        &mut s,
        "peak",
        format!(
            "{}, {} under the limit",
            peak_text(plan.peak_bytes, plan.inputs_bytes),
            format_bytes(r.memory_limit_bytes - plan.peak_bytes.min(r.memory_limit_bytes))
        ),
    );
    line(&mut s, "inputs", format_bytes(plan.inputs_bytes));
    let by = if r.recompute_method == "order" {
        "order (the order fits: nothing recomputed)".to_string()
    } else {
        r.recompute_method.to_string()
    };
    line(&mut s, "recompute", by);
    let proof = if plan.optimal {
        "optimal (proven)".to_string()
    } else {
        format!(
            "not proven (gap {})",
            cost(r.added_cost - r.added_cost_lower_bound)
        )
    };
    line(
        &mut s,
        "added cost",
        format!(
            "{} (lower bound {}; {proof})",
            cost(r.added_cost),
            cost(r.added_cost_lower_bound)
        ),
    );
    let again = recomputed_runs(r);
    let detail = if r.runs.is_empty() {
        String::new()
    } else {
        let ops: Vec<String> = r.runs.iter().map(|(id, k)| format!("{id} x{k}")).collect();
        format!(" ({} ops: {})", r.runs.len(), ops.join(", "))
    };
    line(
        &mut s,
        "recomputations",
        format!("{again} of {} steps{detail}", plan.order.len()),
    );
    let forced = match &r.least_limit_op {
        Some(op) => format!(", forced by op {}", peakorder::error::show_id(op)),
        None => String::new(),
    };
    line(&mut s, "least limit", bytes(r.least_limit_bytes));
    line(
        &mut s,
        "  lower bound",
        format!("{}{forced}", bytes(r.least_limit_lower_bound_bytes)),
    );
    line(
        &mut s,
        "program order",
        match plan.program_order_peak_bytes {
            Some(p) => peak_text(p, plan.inputs_bytes),
            None => "not a valid order".into(),
        },
    );
    line(&mut s, "planning time", ms(plan.elapsed_ms));
    line(
        &mut s,
        &format!("schedule ({} steps)", plan.order.len()),
        plan.order.join(" "),
    );
    s
}
