//! Command-line parsing and dispatch. Commands only read input, call the core and print: no
//! planning logic lives here.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

mod clock;
mod compare;
mod demo;
mod error;
mod fuse;
mod import;
mod input;
mod layout;
mod plan;
mod report;
mod run;
mod search;
mod simulate;
mod table;

pub use clock::StdClock;
pub use error::CliError;

#[derive(Parser, Debug)]
#[command(
    name = "peakorder",
    version,
    about = "Order tensor operations for the lowest peak memory"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Plan an order for GRAPH and print it with its peak.
    Plan {
        /// Graph JSON file, or `-` for stdin.
        graph: PathBuf,
        /// Planning method: auto (default: optimal where it can prove it), liu, exact, or a
        /// heuristic (see `peakorder compare` for the list).
        #[arg(long, short, default_value = "auto")]
        method: String,
        /// Time budget for searches, in milliseconds.
        #[arg(long, default_value_t = 100.0, value_parser = parse_budget_ms)]
        budget_ms: f64,
        /// Most states a search may expand.
        #[arg(long, default_value_t = 2_000_000)]
        max_states: u64,
        /// Most memory the exact search's state table may hold, in MiB (default 1 GiB).
        #[arg(long, default_value_t = 1024)]
        max_memory_mb: u64,
        /// Print exact JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Simulate ORDER (a JSON array of op ids, or a plan) on GRAPH: memory at every step.
    Simulate {
        /// Graph JSON file, or `-` for stdin.
        graph: PathBuf,
        /// Order JSON file: an array of op ids, or a plan with an `order` field.
        order: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Run every method on GRAPH side by side.
    Compare {
        /// Graph JSON file, or `-` for stdin.
        graph: PathBuf,
        #[arg(long, default_value_t = 100.0, value_parser = parse_budget_ms)]
        budget_ms: f64,
        /// Most states a search may expand.
        #[arg(long, default_value_t = 2_000_000)]
        max_states: u64,
        /// Most memory the exact search's state table may hold, in MiB (default 1 GiB).
        #[arg(long, default_value_t = 1024)]
        max_memory_mb: u64,
        #[arg(long)]
        json: bool,
    },
    /// Execute GRAPH with real kernels and allocations: measured vs planned peak.
    Run {
        /// Graph JSON file, or `-` for stdin.
        graph: PathBuf,
        /// cpu (exact byte counting), cuda (a dedicated CUDA memory pool), or auto (cuda when
        /// a driver and device are present, else cpu).
        #[arg(long, default_value = "cpu")]
        device: String,
        /// Planning method for the planned order.
        #[arg(long, short, default_value = "greedy", conflicts_with = "order")]
        method: String,
        /// Run this order instead of planning one: a JSON array of op ids, or a plan.
        #[arg(long)]
        order: Option<PathBuf>,
        /// Also run the program order (the file's order), first.
        #[arg(long)]
        compare: bool,
        /// Time budget for searches, in milliseconds.
        #[arg(long, default_value_t = 100.0, value_parser = parse_budget_ms)]
        budget_ms: f64,
        /// Run each order in one buffer of its layout's arena, every tensor at its offset
        /// (docs/layout.md); the measured high-water mark must be the arena.
        #[arg(long)]
        arena: bool,
        /// With --arena: round sizes and offsets up to this many bytes (at least the device's
        /// own: 4 on the CPU, 256 on CUDA).
        #[arg(long)]
        align: Option<u64>,
        #[arg(long)]
        json: bool,
    },
    /// Import a model from another format as graph JSON.
    Import {
        #[command(subcommand)]
        format: ImportFormat,
    },
    /// Fuse GRAPH into as few kernels as possible without raising the planned peak, next to
    /// the Thunder-style baseline that fuses without regard to memory.
    Fuse {
        /// Graph JSON file, or `-` for stdin.
        graph: PathBuf,
        /// Highest planned peak allowed for the fused graph, in bytes (default: the best peak
        /// found for the unfused graph).
        #[arg(long)]
        peak_limit: Option<u64>,
        /// Time budget for the whole search, in milliseconds.
        #[arg(long, default_value_t = 2000.0, value_parser = parse_budget_ms)]
        budget_ms: f64,
        /// Also write the fused graph (memory-aware) to this JSON file.
        #[arg(long, short)]
        output: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Write one self-contained HTML page (the web view, scripts and wasm inlined) for GRAPH:
    /// it works offline from disk and inside notebooks (docs/web.md).
    Report {
        /// Graph JSON file, or `-` for stdin.
        graph: PathBuf,
        /// Planning method (default: as `peakorder plan`).
        #[arg(long, short)]
        method: Option<String>,
        /// Time budget for searches, in milliseconds.
        #[arg(long, default_value_t = 100.0, value_parser = parse_budget_ms)]
        budget_ms: f64,
        /// The HTML file to write.
        #[arg(long, short)]
        output: PathBuf,
    },
    /// Give every tensor a byte offset in one arena for an order (docs/layout.md): INPUT is a
    /// graph (its order planned, or --order) or a MiniMalloc CSV (id,lower,upper,size).
    Layout {
        /// Graph JSON file, `-` for stdin, or a `.csv` of fixed lifetimes.
        input: PathBuf,
        /// Lay out this order (a JSON array of op ids, or a plan) instead of planning one.
        #[arg(long)]
        order: Option<PathBuf>,
        /// Layout method: auto (default), exact, size, duration, conflicts, area, online, local.
        #[arg(long, short, default_value = "auto")]
        method: String,
        /// Planning method for the order when --order is not given.
        #[arg(long, default_value = "auto")]
        plan_method: String,
        /// Round every size (and offset) up to a multiple of this many bytes.
        #[arg(long, default_value_t = 1)]
        align: u64,
        /// Time budget of the whole command in milliseconds (planning takes a tenth of it).
        #[arg(long, default_value_t = 1000.0, value_parser = parse_budget_ms)]
        budget_ms: f64,
        /// Stop at the first layout within this many bytes; exit 1 if none is found.
        #[arg(long)]
        capacity: Option<u64>,
        /// When the planned order needs an arena above its peak, other orders may have a peak up
        /// to this fraction above it (e.g. 0.05); default 0: the same peak.
        #[arg(long, default_value_t = 0.0)]
        slack: f64,
        /// Also write the buffers, lifetimes and offsets as MiniMalloc's output CSV
        /// (id,lower,upper,size,offset) to this file.
        #[arg(long, short)]
        output: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// The seed example (ten parallel paths), planned and executed, with nothing to pass.
    Demo {
        #[arg(long)]
        json: bool,
        /// Where to execute: auto (cuda when present, else cpu), cpu or cuda.
        #[arg(long, default_value = "auto")]
        device: String,
        /// Print the seed graph's JSON instead, e.g. to feed `peakorder run`.
        #[arg(long)]
        graph: bool,
    },
}

#[derive(Subcommand, Debug)]
enum ImportFormat {
    /// An ONNX model (.onnx): sizes from its shapes; initializers become pinned graph inputs.
    Onnx {
        /// The ONNX model file.
        model: PathBuf,
        /// Where to write the graph JSON (default: stdout).
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// A value for a symbolic dimension, e.g. `--assume-dim batch=8` (repeatable).
        #[arg(long = "assume-dim", value_name = "NAME=VALUE", value_parser = import::parse_assume_dim)]
        assume_dim: Vec<(String, u64)>,
    },
}

/// A time budget: a finite number of milliseconds >= 0. NaN would make a deadline that never
/// passes, so it is refused like any other bad number (exit code 2).
fn parse_budget_ms(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(b) if b.is_finite() && b >= 0.0 => Ok(b),
        _ => Err(format!("{s:?} is not a number of milliseconds >= 0")),
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Plan {
            graph,
            method,
            budget_ms,
            max_states,
            max_memory_mb,
            json,
        } => plan::run(
            &graph,
            &method,
            budget_ms,
            max_states,
            max_memory_mb.saturating_mul(1 << 20),
            json,
        ),
        Command::Simulate { graph, order, json } => simulate::run(&graph, &order, json),
        Command::Compare {
            graph,
            budget_ms,
            max_states,
            max_memory_mb,
            json,
        } => compare::run(
            &graph,
            budget_ms,
            max_states,
            max_memory_mb.saturating_mul(1 << 20),
            json,
        ),
        Command::Run {
            graph,
            device,
            method,
            order,
            compare,
            budget_ms,
            arena,
            align,
            json,
        } => run::run(run::RunArgs {
            graph: &graph,
            device: &device,
            method: &method,
            order: order.as_deref(),
            compare,
            json,
            budget_ms,
            arena,
            align,
        }),
        Command::Demo {
            json,
            device,
            graph,
        } => demo::run(json, &device, graph),
        Command::Layout {
            input,
            order,
            method,
            plan_method,
            align,
            budget_ms,
            capacity,
            slack,
            output,
            json,
        } => layout::run(layout::LayoutArgs {
            input: &input,
            order: order.as_deref(),
            method: &method,
            plan_method: &plan_method,
            align,
            budget_ms,
            capacity,
            slack,
            output: output.as_ref(),
            json,
        }),
        Command::Import {
            format:
                ImportFormat::Onnx {
                    model,
                    output,
                    assume_dim,
                },
        } => import::run_onnx(&model, output.as_ref(), &assume_dim),
        Command::Fuse {
            graph,
            peak_limit,
            budget_ms,
            output,
            json,
        } => fuse::run(&graph, peak_limit, budget_ms, output.as_deref(), json),
        Command::Report {
            graph,
            method,
            budget_ms,
            output,
        } => report::run(&graph, method.as_deref(), budget_ms, &output),
    }
}
