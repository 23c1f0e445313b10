//! `peakorder compare`.

use std::path::PathBuf;

use clap::Args;
use peakorder::units::format_bytes;
use peakorder::{Comparison, Hooks, PlanOptions, Progress};

use super::input::read_graph;
use super::plan::to_json;
use super::search::{install_ctrl_c, ProgressLine, CANCEL};
use super::search_args::SearchLimits;
use super::table::{ms, Table};
use super::{CliError, StdClock};

/// `peakorder compare GRAPH [--json]`: every method, each within the same limits.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    #[command(flatten)]
    limits: SearchLimits,
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: CompareArgs) -> Result<(), CliError> {
    let g = read_graph(&a.graph)?;
    // Every method runs; the options' own method is not used.
    let opts = a.limits.plan_options(PlanOptions::default().method);
    install_ctrl_c();
    let line = ProgressLine::new();
    let progress = |p: &Progress| line.update(p);
    let hooks = Hooks {
        cancel: Some(&CANCEL),
        progress: Some(&progress),
    };
    let cmp = peakorder::compare_hooked(&g, &opts, &StdClock::new(), &hooks);
    drop(line);
    if a.json {
        println!("{}", to_json(&cmp));
    } else {
        print!("{}", render(&cmp));
    }
    Ok(())
}

pub fn render(cmp: &Comparison) -> String {
    let mut t = Table::new(&[
        ("method", false),
        ("peak", true),
        ("above inputs", true),
        ("vs bound", true),
        ("optimal", false),
        ("time", true),
    ]);
    let mut notes = String::new();
    for r in &cmp.methods {
        match r.peak_bytes {
            Some(p) => t.row(vec![
                r.method.clone(),
                format_bytes(p),
                format_bytes(p - cmp.inputs_bytes.min(p)),
                if cmp.lower_bound_bytes > 0 {
                    format!("{:.3}x", p as f64 / cmp.lower_bound_bytes as f64)
                } else {
                    "-".into()
                },
                if r.optimal { "proven" } else { "-" }.into(),
                ms(r.elapsed_ms),
            ]),
            // Why a method does not apply goes under the table, where a long reason fits.
            None => {
                t.row(vec![
                    r.method.clone(),
                    "n/a".into(),
                    String::new(),
                    String::new(),
                    "see below".into(),
                    String::new(),
                ]);
                notes.push_str(&format!(
                    "{}: {}\n",
                    r.method,
                    r.error.as_deref().unwrap_or("no result")
                ));
            }
        }
    }
    format!(
        "{}{notes}\nlower bound {} ({} above inputs {})\n",
        t.render(),
        format_bytes(cmp.lower_bound_bytes),
        format_bytes(cmp.lower_bound_bytes - cmp.inputs_bytes.min(cmp.lower_bound_bytes)),
        format_bytes(cmp.inputs_bytes)
    )
}
