//! `peakorder plan`.

use std::path::Path;

use peakorder::units::{format_bytes, format_bytes_signed};
use peakorder::{Hooks, Method, Plan, PlanOptions, Progress};

use super::input::read_graph;
use super::search::{install_ctrl_c, ProgressLine, CANCEL};
use super::table::ms;
use super::{CliError, StdClock};

pub fn run(
    path: &Path,
    method: &str,
    budget_ms: f64,
    max_states: u64,
    max_memory_bytes: u64,
    json: bool,
) -> Result<(), CliError> {
    let g = read_graph(path)?;
    let method: Method = method.parse()?;
    let opts = PlanOptions {
        method,
        budget_ms: Some(budget_ms),
        max_states,
        max_memory_bytes,
    };
    install_ctrl_c();
    let line = ProgressLine::new();
    let progress = |p: &Progress| line.update(p);
    let hooks = Hooks {
        cancel: Some(&CANCEL),
        progress: Some(&progress),
    };
    let plan = peakorder::plan_hooked(&g, &opts, &StdClock::new(), &hooks)?;
    drop(line);
    if json {
        println!("{}", to_json(&plan));
    } else {
        print!("{}", render(&plan));
    }
    Ok(())
}

pub fn to_json<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_string_pretty(x).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// "5.50 MiB (+2.75 MiB above inputs)"
pub fn peak_text(peak: u64, inputs: u64) -> String {
    format!(
        "{} ({} above inputs)",
        format_bytes(peak),
        format_bytes_signed(peak as i128 - inputs as i128)
    )
}

pub fn render(plan: &Plan) -> String {
    let mut s = String::new();
    let line = |s: &mut String, k: &str, v: String| s.push_str(&format!("{k:<16}{v}\n"));
    line(&mut s, "method", plan.method.clone());
    line(
        &mut s,
        "peak",
        peak_text(plan.peak_bytes, plan.inputs_bytes),
    );
    line(&mut s, "inputs", format_bytes(plan.inputs_bytes));
    line(
        &mut s,
        "lower bound",
        format!(
            "{} ({})",
            format_bytes(plan.lower_bound_bytes),
            plan.lower_bound_by
        ),
    );
    let proof = if plan.optimal {
        format!(
            "yes (proven: {})",
            plan.proof.unwrap_or(plan.lower_bound_by)
        )
    } else {
        format!(
            "not proven (gap to lower bound {})",
            format_bytes(plan.peak_bytes - plan.lower_bound_bytes)
        )
    };
    line(&mut s, "optimal", proof);
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
        &format!("order ({} ops)", plan.order.len()),
        plan.order.join(" "),
    );
    s
}
