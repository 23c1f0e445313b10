//! `peakorder report GRAPH [--method M] -o report.html`: one self-contained HTML page with the web
//! view (docs/web.md), made by the `peakorder-report` crate (shared with the Python package, so
//! both give the same page).

use std::path::Path;

use peakorder::Hooks;
use peakorder_report::{ReportError, ReportOptions};

use super::input::read_text;
use super::{CliError, StdClock};

pub fn run(
    path: &Path,
    method: Option<&str>,
    budget_ms: f64,
    output: &Path,
) -> Result<(), CliError> {
    let text = read_text(path)?;
    let title = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "graph".into());
    let opts = ReportOptions {
        title: &title,
        method,
        budget_ms,
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
