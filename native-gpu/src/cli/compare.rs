//! `peakorder compare`.

use std::path::PathBuf;

use clap::Args;
use peakorder::recompute::RecomputeMethod;
use peakorder::units::format_bytes;
use peakorder::{Comparison, Graph, Hooks, PlanOptions, Progress};
use serde::Serialize;

use super::input::read_graph;
use super::plan::{cost, to_json};
use super::search::{install_ctrl_c, ProgressLine, CANCEL};
use super::search_args::SearchLimits;
use super::table::{ms, Table};
use super::{CliError, StdClock};

/// `peakorder compare GRAPH [--memory-limit BYTES] [--json]`: every method, each within the
/// same limits; with a memory limit, every recompute method too.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    /// Also fit the plan into this many bytes with every recompute method (auto, exact,
    /// revolve, evict, repair) side by side: a whole number of bytes or with a unit (64MiB).
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    memory_limit: Option<String>,
    #[command(flatten)]
    limits: SearchLimits,
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// One recompute method's plan at the limit, or why it has none.
#[derive(Serialize, Clone, Debug)]
pub struct RecomputeRow {
    /// The method asked for.
    pub method: &'static str,
    /// What found the schedule (`order` when the order fits, else the method that did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_by: Option<&'static str>,
    pub peak_bytes: Option<u64>,
    pub added_cost: Option<f64>,
    pub added_cost_lower_bound: Option<f64>,
    /// Steps that run an op again.
    pub recomputations: Option<u64>,
    /// The added cost meets its proven lower bound.
    pub optimal: bool,
    pub elapsed_ms: f64,
    /// Why the method has no schedule: its error's code and message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `compare --memory-limit --json`: the order comparison, and every recompute method.
#[derive(Serialize, Clone, Debug)]
pub struct LimitedComparison {
    #[serde(flatten)]
    pub orders: Comparison,
    pub memory_limit_bytes: u64,
    /// The least limit any schedule was found to reach, and its proven lower bound (from the
    /// first method that planned; absent when none did).
    pub least_limit_bytes: Option<u64>,
    pub least_limit_lower_bound_bytes: Option<u64>,
    pub recompute_methods: Vec<RecomputeRow>,
}

/// Plans `g` within `limit` with each recompute method.
fn compare_recompute(
    g: &Graph,
    opts: &PlanOptions,
    limit: u64,
    hooks: &Hooks,
) -> (Vec<RecomputeRow>, Option<(u64, u64)>, Vec<peakorder::Error>) {
    let mut rows = Vec::new();
    let mut least = None;
    let mut errors = Vec::new();
    for &m in RecomputeMethod::ALL {
        let o = PlanOptions {
            memory_limit: Some(limit),
            recompute_method: m,
            ..opts.clone()
        };
        let clock = StdClock::new();
        let start = peakorder::Clock::now_ms(&clock);
        let r = peakorder::plan_hooked(g, &o, &clock, hooks);
        let elapsed = (peakorder::Clock::now_ms(&clock) - start).max(0.0);
        rows.push(match r {
            Ok(p) => {
                let info = p.recompute.as_ref();
                if least.is_none() {
                    least = info.map(|i| (i.least_limit_bytes, i.least_limit_lower_bound_bytes));
                }
                RecomputeRow {
                    method: m.name(),
                    found_by: info.map(|i| i.recompute_method),
                    peak_bytes: Some(p.peak_bytes),
                    added_cost: info.map(|i| i.added_cost),
                    added_cost_lower_bound: info.map(|i| i.added_cost_lower_bound),
                    recomputations: info.map(super::plan::recomputed_runs),
                    optimal: p.optimal,
                    elapsed_ms: p.elapsed_ms,
                    code: None,
                    error: None,
                }
            }
            Err(e) => {
                let row = RecomputeRow {
                    method: m.name(),
                    found_by: None,
                    peak_bytes: None,
                    added_cost: None,
                    added_cost_lower_bound: None,
                    recomputations: None,
                    optimal: false,
                    elapsed_ms: elapsed,
                    code: Some(e.code()),
                    error: Some(e.to_string()),
                };
                errors.push(e);
                row
            }
        });
    }
    (rows, least, errors)
}

pub fn run(a: CompareArgs) -> Result<(), CliError> {
    let limit = a
        .memory_limit
        .as_deref()
        .map(|t| {
            peakorder::units::parse_bytes(t)
                .map_err(|e| CliError::Input(format!("--memory-limit: {e}")))
        })
        .transpose()?;
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
    if let Some(limit) = limit {
        let (rows, least, errors) = compare_recompute(&g, &opts, limit, &hooks);
        drop(line);
        // Below the least limit no method has a schedule: that is the input's error, as `plan`
        // reports it (exit 2), not a table of failures.
        if errors.len() == rows.len() {
            if let Some(e) = errors.into_iter().find(|e| e.code() == "infeasible") {
                return Err(e.into());
            }
        }
        let out = LimitedComparison {
            orders: cmp,
            memory_limit_bytes: limit,
            least_limit_bytes: least.map(|l| l.0),
            least_limit_lower_bound_bytes: least.map(|l| l.1),
            recompute_methods: rows,
        };
        if a.json {
            println!("{}", to_json(&out));
        } else {
            print!("{}", render(&out.orders));
            print!("{}", render_recompute(&out));
        }
        return Ok(());
    }
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

/// The recompute methods' table at the limit.
pub fn render_recompute(c: &LimitedComparison) -> String {
    let mut t = Table::new(&[
        ("recompute", false),
        ("found by", false),
        ("peak", true),
        ("added cost", true),
        ("lower bound", true),
        ("recomputed steps", true),
        ("optimal", false),
        ("time", true),
    ]);
    let mut notes = String::new();
    for r in &c.recompute_methods {
        match (r.peak_bytes, &r.error) {
            (Some(p), _) => t.row(vec![
                r.method.to_string(),
                r.found_by.unwrap_or("-").to_string(),
                format_bytes(p),
                r.added_cost.map_or("-".into(), cost),
                r.added_cost_lower_bound.map_or("-".into(), cost),
                r.recomputations.map_or("-".into(), |k| k.to_string()),
                if r.optimal { "proven" } else { "-" }.into(),
                ms(r.elapsed_ms),
            ]),
            (None, e) => {
                t.row(vec![
                    r.method.to_string(),
                    "n/a".into(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    "see below".into(),
                    ms(r.elapsed_ms),
                ]);
                notes.push_str(&format!(
                    "{}: {}\n",
                    r.method,
                    e.as_deref().unwrap_or("no result")
                ));
            }
        }
    }
    let least = match (c.least_limit_bytes, c.least_limit_lower_bound_bytes) {
        (Some(l), Some(b)) => format!(
            "least limit {} (lower bound {})\n",
            format_bytes(l),
            format_bytes(b)
        ),
        _ => String::new(),
    };
    format!(
        "\nmemory limit {} ({} bytes)\n\n{}{notes}{least}",
        format_bytes(c.memory_limit_bytes),
        c.memory_limit_bytes,
        t.render()
    )
}
