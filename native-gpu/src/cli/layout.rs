//! `peakorder layout`: a byte offset for every tensor (or every buffer of a MiniMalloc CSV), so
//! that one arena of the reported size runs the order. The core decides everything; this only
//! reads the input, calls it and prints.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::Args;
use peakorder::layout::{
    csv, layout_hooked, layout_intervals, plan_then_layout, IntervalLayout, Layout, LayoutMethod,
    LayoutOptions, DEFAULT_BUDGET_MS,
};
use peakorder::units::format_bytes;
use peakorder::{Hooks, Method};

use super::input::{read_schedule, read_text};
use super::plan::to_json;
use super::search::{install_ctrl_c, CANCEL};
use super::search_args::BudgetArg;
use super::table::ms;
use super::{CliError, StdClock};

/// The layout's default budget as clap wants it (static text), from the core.
fn default_budget_ms() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| DEFAULT_BUDGET_MS.to_string())
}

/// `peakorder layout INPUT [--order FILE] [--method M] [--align BYTES] [--budget-ms N] [--json]`.
#[derive(Args, Debug)]
#[command(mut_arg("budget_ms", |a| a
    .default_value(default_budget_ms())
    .help("Time budget of the whole command in milliseconds (planning takes a tenth of it)")))]
pub struct LayoutArgs {
    /// Graph JSON file, `-` for stdin, or a `.csv` of fixed lifetimes (MiniMalloc's format).
    input: PathBuf,
    /// Lay out this order (a JSON array of op ids, or a plan) instead of planning one. An op
    /// may be listed more than once (a schedule with recomputations): each run's outputs are
    /// then a buffer of their own, with their own lifetime and offset.
    #[arg(long)]
    order: Option<PathBuf>,
    /// Layout method: auto, exact, size, duration, conflicts, area, online, local.
    #[arg(long, short, default_value = "auto")]
    method: String,
    /// Planning method for the order when --order is not given.
    #[arg(long, default_value = "auto", conflicts_with = "order")]
    plan_method: String,
    /// Round every size (and offset) up to a multiple of this many bytes.
    #[arg(long, default_value_t = 1)]
    align: u64,
    #[command(flatten)]
    budget: BudgetArg,
    /// Stop at the first layout within this many bytes; exit 1 if none is found.
    #[arg(long)]
    capacity: Option<u64>,
    /// When the planned order needs an arena above its peak, other orders may have a peak up
    /// to this fraction above it (e.g. 0.05); default 0: the same peak. Not with --order (that
    /// order is laid out as given).
    #[arg(long, default_value_t = 0.0, conflicts_with = "order")]
    slack: f64,
    /// Also write the buffers, lifetimes and offsets as MiniMalloc's output CSV
    /// (id,lower,upper,size,offset) to this file.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// A graph, or MiniMalloc's CSV: by extension, else by the first character (`{` is a graph).
fn is_csv(path: &Path, text: &str) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => true,
        Some("json") => false,
        _ => !text.trim_start().starts_with('{'),
    }
}

pub fn run(a: LayoutArgs) -> Result<(), CliError> {
    let budget_ms = a.budget.budget_ms;
    let method: LayoutMethod = a.method.parse()?;
    if a.align == 0 {
        return Err(CliError::Input("--align must be at least 1 byte".into()));
    }
    if !(a.slack.is_finite() && a.slack >= 0.0) {
        return Err(CliError::Input(format!(
            "--slack must be a fraction >= 0 (e.g. 0.05 for 5%), not {}",
            a.slack
        )));
    }
    let text = read_text(&a.input)?;
    let opts = LayoutOptions {
        method,
        align: a.align,
        budget_ms: Some(budget_ms),
        capacity: a.capacity,
        ..LayoutOptions::default()
    };
    install_ctrl_c();
    let hooks = Hooks {
        cancel: Some(&CANCEL),
        progress: None,
    };
    let clock = StdClock::new();
    let name = a.input.display();
    if is_csv(&a.input, &text) {
        if a.order.is_some() {
            return Err(CliError::Input(
                "--order applies to graphs; a CSV's lifetimes are fixed".into(),
            ));
        }
        // The order search and its planner have no order to change here: refuse rather than
        // ignore them.
        if a.slack > 0.0 || a.plan_method != "auto" {
            return Err(CliError::Input(
                "--slack and --plan-method apply to graphs; a CSV's lifetimes are fixed".into(),
            ));
        }
        let iv = csv::parse(&text).map_err(|e| CliError::Input(format!("{name}: {e}")))?;
        let l = layout_intervals(&iv, &opts, &clock, &hooks)
            .map_err(|e| CliError::Input(format!("{name}: {e}")))?;
        if let Some(out) = &a.output {
            std::fs::write(out, csv::write(&iv, &l.offsets_ix))
                .map_err(|e| CliError::Other(format!("cannot write {}: {e}", out.display())))?;
        }
        if a.json {
            println!("{}", to_json(&l));
        } else {
            print!("{}", render_intervals(&l));
        }
        return capacity_result(a.capacity, l.arena_bytes, l.lower_bound_bytes);
    }
    let g =
        peakorder::Graph::from_json(&text).map_err(|e| CliError::Input(format!("{name}: {e}")))?;
    let l = match &a.order {
        Some(path) => {
            let order = read_schedule(&g, path)?;
            layout_hooked(&g, &order, &opts, &clock, &hooks)?
        }
        None => {
            let plan_method: Method = a.plan_method.parse()?;
            plan_then_layout(&g, plan_method, &opts, a.slack, &clock, &hooks)?
        }
    };
    if let Some(out) = &a.output {
        std::fs::write(out, intervals_csv(&l))
            .map_err(|e| CliError::Other(format!("cannot write {}: {e}", out.display())))?;
    }
    if a.json {
        println!("{}", to_json(&l));
    } else {
        print!("{}", render(&l));
    }
    capacity_result(a.capacity, l.arena_bytes, l.lower_bound_bytes)
}

/// A graph layout's buffers as MiniMalloc's output CSV (lifetimes `[first_step, last_step + 1)`),
/// so the fixed-interval problem can be solved again, here or by MiniMalloc. Ids are the tensor
/// ids (`ws:` + the op id for workspaces; `@` + the run for a schedule's storage or workspace
/// with several runs), or `#k` when an id holds a comma or a line break.
fn intervals_csv(l: &Layout) -> String {
    let mut s = String::from("id,lower,upper,size,offset\n");
    for (k, r) in l.buffers.iter().enumerate() {
        let id = if r.kind == "workspace" {
            format!("ws:{}", r.id)
        } else {
            r.id.clone()
        };
        let id = match r.run {
            Some(run) => format!("{id}@{run}"),
            None => id,
        };
        let id = if id.contains([',', '\n', '\r']) || id.trim() != id || id.is_empty() {
            format!("#{k}")
        } else {
            id
        };
        s.push_str(&format!(
            "{id},{},{},{},{}\n",
            r.first_step,
            r.last_step + 1,
            r.bytes,
            r.offset
        ));
    }
    s
}

/// Exit 1 when a capacity was asked for and not met.
fn capacity_result(capacity: Option<u64>, arena: u64, bound: u64) -> Result<(), CliError> {
    match capacity {
        Some(c) if arena > c => Err(CliError::Other(if bound > c {
            format!(
                "no layout fits in {c} bytes: at least {bound} are needed (proven); the best found needs {arena}"
            )
        } else {
            format!("no layout within {c} bytes was found within the budget; the best found needs {arena}")
        })),
        _ => Ok(()),
    }
}

fn bytes(b: u64) -> String {
    format!("{} ({b} bytes)", format_bytes(b))
}

fn proof(optimal: bool, arena: u64, bound: u64) -> String {
    if optimal {
        "yes (proven)".into()
    } else {
        format!(
            "not proven (gap to lower bound {})",
            format_bytes(arena - bound)
        )
    }
}

/// The text report of a graph's layout: a summary, then the buffers by offset.
pub fn render(l: &Layout) -> String {
    let mut s = String::new();
    let line = |s: &mut String, k: &str, v: String| s.push_str(&format!("{k:<16}{v}\n"));
    line(&mut s, "method", l.method.clone());
    line(&mut s, "arena", bytes(l.arena_bytes));
    let schedule = l.buffers.iter().any(|r| r.run.is_some());
    let peak = if schedule {
        "schedule's peak"
    } else {
        "order's peak"
    };
    line(&mut s, peak, bytes(l.peak_bytes));
    line(&mut s, "lower bound", bytes(l.lower_bound_bytes));
    line(
        &mut s,
        "optimal",
        proof(l.optimal, l.arena_bytes, l.lower_bound_bytes),
    );
    line(&mut s, "align", format!("{} bytes", l.align));
    if let Some(o) = &l.order_search {
        let what = if o.changed {
            format!(
                "another order: the planned one ({}) needs an arena of {}",
                o.planned_method,
                format_bytes(o.planned_arena_bytes)
            )
        } else {
            format!("planned ({})", o.planned_method)
        };
        line(
            &mut s,
            "order",
            format!("{what}; {} orders tried", o.orders_tried),
        );
    }
    line(&mut s, "layout time", ms(l.elapsed_ms));
    let mut rows: Vec<&peakorder::layout::BufferRow> = l.buffers.iter().collect();
    rows.sort_by_key(|r| (r.offset, r.first_step));
    let w = l.arena_bytes.to_string().len().max(6);
    s.push_str(&format!(
        "\n{:>w$}  {:>10}  {:>11}  buffer\n",
        "offset", "bytes", "steps"
    ));
    for r in rows {
        let who = if r.kind == "workspace" {
            format!("workspace of {}", r.id)
        } else {
            r.id.clone()
        };
        let who = match r.run {
            Some(run) => format!("{who} (run {run})"),
            None => who,
        };
        s.push_str(&format!(
            "{:>w$}  {:>10}  {:>11}  {who}\n",
            r.offset,
            format_bytes(r.bytes),
            format!("{}-{}", r.first_step, r.last_step)
        ));
    }
    s
}

/// The text report of a CSV's layout.
pub fn render_intervals(l: &IntervalLayout) -> String {
    let mut s = String::new();
    let line = |s: &mut String, k: &str, v: String| s.push_str(&format!("{k:<16}{v}\n"));
    line(&mut s, "method", l.method.clone());
    line(&mut s, "buffers", l.buffers.len().to_string());
    line(&mut s, "arena", bytes(l.arena_bytes));
    line(&mut s, "lower bound", bytes(l.lower_bound_bytes));
    line(
        &mut s,
        "optimal",
        proof(l.optimal, l.arena_bytes, l.lower_bound_bytes),
    );
    if let Some(c) = l.capacity_bytes {
        line(
            &mut s,
            "capacity",
            format!(
                "{} — {}",
                bytes(c),
                if l.within_capacity {
                    "fits"
                } else {
                    "does NOT fit"
                }
            ),
        );
    }
    line(&mut s, "search nodes", l.search_nodes.to_string());
    line(&mut s, "layout time", ms(l.elapsed_ms));
    s
}
