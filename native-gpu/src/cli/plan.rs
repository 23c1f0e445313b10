//! `peakorder plan`.

use std::path::Path;

use peakorder::{Hooks, Method, PlanOptions, Progress};

use super::input::read_graph;
use super::search::{install_ctrl_c, ProgressLine, CANCEL};
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

// The plan's text is the report page's too, so it lives with the page (crate peakorder-report).
pub use peakorder_report::{peak_text, plan_text as render};
