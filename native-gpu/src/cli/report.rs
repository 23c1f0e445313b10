//! `peakorder report GRAPH [--method M] -o report.html`: one self-contained HTML page with the web
//! view (docs/web.md), made by the `peakorder-report` crate (shared with the Python package, so
//! both give the same page).

use std::path::PathBuf;

use clap::Args;
use peakorder::Hooks;
use peakorder_report::{ReportError, ReportOptions};

use super::input::read_text;
use super::search_args::{BudgetArg, MethodArg};
use super::{CliError, StdClock};

/// `peakorder report GRAPH [--method M] -o report.html`. The page plans again when opened, with
/// the method and budget given here (`peakorder-report` takes no other limits).
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    #[command(flatten)]
    method: MethodArg,
    #[command(flatten)]
    budget: BudgetArg,
    /// The HTML file to write.
    #[arg(long, short)]
    output: PathBuf,
}

pub fn run(a: ReportArgs) -> Result<(), CliError> {
    let (path, output) = (a.graph.as_path(), a.output.as_path());
    let text = read_text(path)?;
    let title = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "graph".into());
    let opts = ReportOptions {
        title: &title,
        method: Some(&a.method.method),
        budget_ms: a.budget.budget_ms,
    };
    let report = peakorder_report::report(&text, &opts, &StdClock::new(), &Hooks::default())
        .map_err(|e| match e {
            ReportError::Graph(e) => CliError::Input(format!("{}: {e}", path.display())),
            ReportError::Plan(e) => e.into(),
            ReportError::Template(m) => CliError::Other(m),
        })?;
    std::fs::write(output, report.html)
        .map_err(|e| CliError::Other(format!("cannot write {}: {e}", output.display())))?;
    eprintln!(
        "peakorder: wrote {} ({} ops; open it in a browser, offline is fine)",
        output.display(),
        report.ops
    );
    Ok(())
}
