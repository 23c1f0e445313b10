//! Command-line parsing and dispatch. Commands only read input, call the core and print: no
//! planning logic lives here. Each subcommand's flags are one clap `Args` struct in its module;
//! the search flags they share are flattened in from `search_args.rs`.

use clap::{Parser, Subcommand};

mod clock;
mod compare;
mod demo;
mod error;
mod export;
mod fuse;
mod import;
mod input;
mod layout;
mod plan;
mod report;
mod run;
mod search;
mod search_args;
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
    Plan(plan::PlanArgs),
    /// Simulate ORDER (a JSON array of op ids, or a plan) on GRAPH: memory at every step.
    Simulate(simulate::SimulateArgs),
    /// Run every method on GRAPH side by side.
    Compare(compare::CompareArgs),
    /// Execute GRAPH with real kernels and allocations: measured vs planned peak.
    Run(run::RunArgs),
    /// Import a model from another format as graph JSON.
    Import {
        #[command(subcommand)]
        format: ImportFormat,
    },
    /// Write a plan back into a model: the model with its nodes in the planned order.
    Export {
        #[command(subcommand)]
        format: ExportFormat,
    },
    /// Fuse GRAPH into as few kernels as possible without raising the planned peak, next to
    /// the Thunder-style baseline that fuses without regard to memory.
    Fuse(fuse::FuseArgs),
    /// Write one self-contained HTML page (the web view, scripts and wasm inlined) for GRAPH:
    /// it works offline from disk and inside notebooks (docs/web.md).
    Report(report::ReportArgs),
    /// Give every tensor a byte offset in one arena for an order (docs/layout.md): INPUT is a
    /// graph (its order planned, or --order) or a MiniMalloc CSV (id,lower,upper,size).
    Layout(layout::LayoutArgs),
    /// The seed example (ten parallel paths), planned and executed, with nothing to pass.
    Demo(demo::DemoArgs),
}

#[derive(Subcommand, Debug)]
enum ImportFormat {
    /// An ONNX model (.onnx): sizes from its shapes; initializers become pinned graph inputs.
    Onnx(import::OnnxArgs),
}

#[derive(Subcommand, Debug)]
enum ExportFormat {
    /// An ONNX model: graph.node in the order of --order, every other byte as it was.
    Onnx(export::OnnxArgs),
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Plan(a) => plan::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Run(a) => run::run(a),
        Command::Import {
            format: ImportFormat::Onnx(a),
        } => import::run(a),
        Command::Export {
            format: ExportFormat::Onnx(a),
        } => export::run(a),
        Command::Fuse(a) => fuse::run(a),
        Command::Report(a) => report::run(a),
        Command::Layout(a) => layout::run(a),
        Command::Demo(a) => demo::run(a),
    }
}
