//! `peakorder fuse`: memory-aware fusion next to the Thunder-style baseline.

use std::path::PathBuf;

use clap::Args;
use peakorder::fusion::{FusedGraph, Fusion};
use peakorder::units::format_bytes;

use super::input::read_graph;
use super::plan::{peak_text, to_json};
use super::search_args::{fuse_default_budget_ms, fuse_default_max_states, SearchLimits};
use super::table::Table;
use super::{CliError, StdClock};

/// `peakorder fuse GRAPH [--peak-limit BYTES] [--json]`. The search plans hundreds of fused
/// graphs, so its limits default to the core's fusion defaults, not one plan's.
#[derive(Args, Debug)]
#[command(
    mut_arg("budget_ms", |a| a
        .default_value(fuse_default_budget_ms())
        .help("Time budget for the whole search, in milliseconds")),
    mut_arg("max_states", |a| a
        .default_value(fuse_default_max_states())
        .help("Most states the whole search may expand")),
)]
pub struct FuseArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    /// Highest planned peak allowed for the fused graph, in bytes (default: the best peak
    /// found for the unfused graph).
    #[arg(long)]
    peak_limit: Option<u64>,
    #[command(flatten)]
    limits: SearchLimits,
    /// Also write the fused graph (memory-aware) to this JSON file.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: FuseArgs) -> Result<(), CliError> {
    let path = &a.graph;
    let g = read_graph(path)?;
    let clock = StdClock::new();
    let opts = a.limits.fuse_options(a.peak_limit);
    let f = peakorder::fusion::run(&g, &opts, &clock).map_err(|e| match e {
        // A limit no fusion meets is not malformed input.
        e @ peakorder::Error::PeakLimit { .. } => CliError::Other(e.to_string()),
        e => CliError::Input(format!("{}: {e}", path.display())),
    })?;
    if let Some(out) = &a.output {
        let text = f.fused.to_spec().to_json();
        std::fs::write(out, text + "\n")
            .map_err(|e| CliError::Other(format!("cannot write {}: {e}", out.display())))?;
    }
    if a.json {
        println!("{}", to_json(&f));
    } else {
        print!("{}", render(&f));
    }
    Ok(())
}

fn regions_text(side: &FusedGraph) -> String {
    if side.regions.is_empty() {
        return "  (none)\n".into();
    }
    side.regions
        .iter()
        .map(|r| format!("  {}\n", r.join("+")))
        .collect()
}

pub fn render(f: &Fusion) -> String {
    let (a, b) = (&f.fused, &f.baseline);
    let mut t = Table::new(&[
        ("", false),
        ("memory-aware", false),
        ("thunder baseline", false),
    ]);
    let kernels = |s: &FusedGraph| format!("{} -> {}", s.ops_before, s.ops_after);
    t.row(vec!["kernels".into(), kernels(a), kernels(b)]);
    t.row(vec![
        "regions".into(),
        a.regions.len().to_string(),
        b.regions.len().to_string(),
    ]);
    t.row(vec![
        "peak before".into(),
        peak_text(a.peak_before_bytes, a.inputs_bytes),
        peak_text(b.peak_before_bytes, b.inputs_bytes),
    ]);
    t.row(vec![
        "peak after".into(),
        peak_text(a.peak_after_bytes, a.inputs_bytes),
        peak_text(b.peak_after_bytes, b.inputs_bytes),
    ]);
    let within = |s: &FusedGraph| if s.within_limit { "yes" } else { "NO" }.to_string();
    t.row(vec![
        format!("within {}", format_bytes(a.limit_bytes)),
        within(a),
        within(b),
    ]);
    let mut s = t.render();
    s.push_str(&format!(
        "\nplanner {}; {} fused graphs planned; region choice {}\n",
        f.planner,
        f.evaluations,
        if f.exhaustive {
            "searched exhaustively (kernel count minimal)"
        } else {
            "searched agglomeratively (not proven minimal)"
        }
    ));
    s.push_str(&format!("\nmemory-aware regions:\n{}", regions_text(a)));
    s.push_str(&format!("thunder baseline regions:\n{}", regions_text(b)));
    s.push_str(&format!(
        "\nfused order ({} ops): {}\n",
        a.order.len(),
        a.order.join(" ")
    ));
    s
}
