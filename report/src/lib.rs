//! The self-contained HTML report of a graph (docs/web.md): the web view's page with the graph,
//! the options and the plan's text filled in. The page plans again when opened, with the same
//! core compiled to wasm, so it needs no server and no network.
//!
//! One place for both callers, so `peakorder report GRAPH -o FILE` and Python's
//! `peakorder.report_html(graph)` give the same page. No planning logic here: the plan is the
//! core's ([`peakorder::plan_hooked`]); this crate only fills the template.

use std::fmt;

use peakorder::{Clock, Graph, Hooks, Method, Plan, PlanOptions};

mod page;
mod text;

pub use page::TEMPLATE_ENV;
pub use text::{format_ms, peak_text, plan_text};

/// What a report is made of besides the graph.
#[derive(Clone, Debug)]
pub struct ReportOptions<'a> {
    /// The page's title (the CLI uses the file name).
    pub title: &'a str,
    /// Planning method name; `None`: the default of `peakorder plan`.
    pub method: Option<&'a str>,
    /// Time budget for searches, in milliseconds (the page's budget too).
    pub budget_ms: f64,
}

/// A filled page and what the native plan found.
#[derive(Clone, Debug)]
pub struct Report {
    pub html: String,
    pub plan: Plan,
    /// Ops in the graph.
    pub ops: usize,
}

/// Why no page was made.
#[derive(Clone, Debug, PartialEq)]
pub enum ReportError {
    /// The graph was refused.
    Graph(peakorder::Error),
    /// The method name is unknown or planning failed.
    Plan(peakorder::Error),
    /// The template is missing (the web bundle was not built), unreadable or malformed.
    Template(String),
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Graph(e) | ReportError::Plan(e) => write!(f, "{e}"),
            ReportError::Template(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ReportError {}

/// The report page of the graph in `graph_json` (docs/design.md §2 JSON text, embedded as given).
pub fn report<'a>(
    graph_json: &str,
    opts: &ReportOptions,
    clock: &'a dyn Clock,
    hooks: &Hooks<'a>,
) -> Result<Report, ReportError> {
    let g = Graph::from_json(graph_json).map_err(ReportError::Graph)?;
    // Plan natively too: it checks the method now (not only when the page opens), and its
    // summary is the page's text for readers without JavaScript.
    let method: Method = match opts.method {
        Some(m) => m.parse().map_err(ReportError::Plan)?,
        None => PlanOptions::default().method,
    };
    let plan_opts = PlanOptions {
        method,
        budget_ms: Some(opts.budget_ms),
        ..PlanOptions::default()
    };
    let plan = peakorder::plan_hooked(&g, &plan_opts, clock, hooks).map_err(ReportError::Plan)?;
    let template = page::template().map_err(ReportError::Template)?;
    let options = serde_json::json!({
        "method": method.name(),
        "budget_ms": opts.budget_ms,
        "controls": false,
        "exampleLabel": opts.title,
    });
    let html = page::fill(
        &template,
        &page::Slots {
            title: opts.title,
            graph_json,
            options_json: &options.to_string(),
            noscript: &plan_text(&plan),
        },
    )
    .map_err(ReportError::Template)?;
    Ok(Report {
        html,
        plan,
        ops: g.num_ops(),
    })
}
