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
        #[arg(long, default_value_t = 100.0)]
        budget_ms: f64,
        /// Most states a search may expand.
        #[arg(long, default_value_t = 2_000_000)]
        max_states: u64,
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
        /// Most states a search may expand.
        #[arg(long, default_value_t = 2_000_000)]
        max_states: u64,
        #[arg(long)]
        json: bool,
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
            max_states,
            json,
        } => plan::run(&graph, &method, budget_ms, max_states, json),
        Command::Simulate { graph, order, json } => simulate::run(&graph, &order, json),
        Command::Compare {
            graph,
            budget_ms,
            max_states,
            json,
        } => compare::run(&graph, budget_ms, max_states, json),
        Command::Demo { json } => demo::run(json),
    }
}
