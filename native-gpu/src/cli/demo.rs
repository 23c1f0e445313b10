//! `peakorder demo`: the nvFuser seed graph (ten parallel paths, in the breadth-first order
//! nvFuser ran), planned, then executed in program order and planned order (on CUDA when
//! present, else on the CPU), with nothing to pass.

use clap::Args;
use peakorder::examples::{seed_graph, SeedOptions};
use peakorder::{Graph, Method, Plan, PlanOptions};
use peakorder_gpu::exec;
use serde::Serialize;

use super::plan::{peak_text, to_json};
use super::run::{execute_all, open_device, render, DeviceChoice, Execution};
use super::{CliError, StdClock};

/// `demo --json`: the plan (docs/design.md §3) plus what executing it measured.
#[derive(Serialize)]
struct DemoJson<'a> {
    #[serde(flatten)]
    plan: &'a Plan,
    execution: &'a Execution,
}

/// `peakorder demo [--json] [--device D] [--graph]`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Where to execute: auto (cuda when present, else cpu), cpu or cuda.
    #[arg(long, default_value = "auto")]
    device: String,
    /// Print the seed graph's JSON instead, e.g. to feed `peakorder run`.
    #[arg(long)]
    graph: bool,
}

pub fn run(a: DemoArgs) -> Result<(), CliError> {
    let (json, print_graph) = (a.json, a.graph);
    let spec = seed_graph(SeedOptions::default());
    if print_graph {
        println!("{}", spec.to_json());
        return Ok(());
    }
    let choice: DeviceChoice = a.device.parse()?;
    let g =
        Graph::from_spec(spec).map_err(|e| CliError::Other(format!("built-in seed graph: {e}")))?;
    let opts = PlanOptions {
        method: Method::Auto,
        ..PlanOptions::default()
    };
    let plan = peakorder::plan(&g, &opts, &StdClock::new())?;
    let program = peakorder::order::program::program_order(&g)?;
    let prepared = exec::prepare(&g)?;
    let (dev, mut backend) = open_device(choice)?;
    let ex = execute_all(
        &g,
        &prepared,
        dev,
        backend.as_mut(),
        &[
            ("program".to_string(), program),
            ("planned".to_string(), plan.order_ix.clone()),
        ],
    )?;
    if json {
        println!(
            "{}",
            to_json(&DemoJson {
                plan: &plan,
                execution: &ex,
            })
        );
    } else {
        println!(
            "Seed graph: ten parallel paths relu -> matmul -> relu -> matmul over 256x256 f32,"
        );
        println!(
            "in the order nvFuser ran them (every first relu, then every first matmul, ...).\n"
        );
        let program = plan.program_order_peak_bytes.unwrap_or(plan.peak_bytes);
        println!(
            "{:<24}{}",
            "program order peak",
            peak_text(program, plan.inputs_bytes)
        );
        println!(
            "{:<24}{}  [{}, {}]",
            "planned peak",
            peak_text(plan.peak_bytes, plan.inputs_bytes),
            plan.method,
            if plan.optimal {
                "proven optimal"
            } else {
                "not proven optimal"
            }
        );
        println!("{:<24}{}", "planned order", plan.order.join(" "));
        println!("\nExecuted with real kernels and allocations:\n");
        print!("{}", render(&ex));
    }
    if !ex.all_match() {
        return Err(CliError::Other(
            "a measured peak differs from the plan by more than the allocator's rounding".into(),
        ));
    }
    Ok(())
}
