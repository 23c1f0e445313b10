//! Command-line parsing and dispatch. Commands only read input, call the core and print: no
//! planning logic lives here.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

mod clock;
mod compare;
mod demo;
mod error;
mod input;
mod plan;
mod report;
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
        /// Planning method (see `peakorder compare` for the list).
        #[arg(long, short, default_value = "greedy")]
        method: String,
        /// Time budget for searches, in milliseconds.
        #[arg(long, default_value_t = 100.0)]
        budget_ms: f64,
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
        #[arg(long, default_value_t = 100.0)]
        budget_ms: f64,
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
        #[arg(long, default_value_t = 100.0)]
        budget_ms: f64,
        /// The HTML file to write.
        #[arg(long, short)]
        output: PathBuf,
    },
    /// The seed example (ten parallel paths), planned, with nothing to pass.
    Demo {
        #[arg(long)]
        json: bool,
    },
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Plan {
            graph,
            method,
            budget_ms,
            json,
        } => plan::run(&graph, &method, budget_ms, json),
        Command::Simulate { graph, order, json } => simulate::run(&graph, &order, json),
        Command::Compare {
            graph,
            budget_ms,
            json,
        } => compare::run(&graph, budget_ms, json),
        Command::Report {
            graph,
            method,
            budget_ms,
            output,
        } => report::run(&graph, method.as_deref(), budget_ms, &output),
        Command::Demo { json } => demo::run(json),
    }
}
