//! `peakorder compare`.

use std::path::Path;

use peakorder::units::format_bytes;
use peakorder::{Comparison, Hooks, PlanOptions, Progress};

use super::input::read_graph;
use super::plan::to_json;
use super::search::{install_ctrl_c, ProgressLine, CANCEL};
use super::table::{ms, Table};
use super::{CliError, StdClock};

pub fn run(
    path: &Path,
    budget_ms: f64,
    max_states: u64,
    max_memory_bytes: u64,
    json: bool,
) -> Result<(), CliError> {
    let g = read_graph(path)?;
    let opts = PlanOptions {
        budget_ms: Some(budget_ms),
        max_states,
        max_memory_bytes,
        ..PlanOptions::default()
    };
    install_ctrl_c();
    let line = ProgressLine::new();
    let progress = |p: &Progress| line.update(p);
    let hooks = Hooks {
        cancel: Some(&CANCEL),
        progress: Some(&progress),
    };
    let cmp = peakorder::compare_hooked(&g, &opts, &StdClock::new(), &hooks);
    drop(line);
    if json {
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
