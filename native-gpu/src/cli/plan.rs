//! `peakorder plan`.

use std::path::PathBuf;

use clap::Args;
use peakorder::{Hooks, Progress};

use super::input::read_graph;
use super::search::{install_ctrl_c, ProgressLine, CANCEL};
use super::search_args::{MethodArg, SearchLimits};
use super::{CliError, StdClock};

/// `peakorder plan GRAPH [--method M] [--budget-ms N] [--json]`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    #[command(flatten)]
    method: MethodArg,
    #[command(flatten)]
    limits: SearchLimits,
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: PlanArgs) -> Result<(), CliError> {
    let g = read_graph(&a.graph)?;
    let opts = a.limits.plan_options(a.method.method()?);
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
pub use peakorder_report::{peak_text, plan_text as render};
