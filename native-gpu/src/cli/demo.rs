//! `peakorder demo`: the nvFuser seed graph (ten parallel paths, in the breadth-first order
//! nvFuser ran), planned, with nothing to pass.

use peakorder::examples::{seed_graph, SeedOptions};
use peakorder::{Graph, Method, PlanOptions};

use super::plan::{peak_text, to_json};
use super::{CliError, StdClock};

pub fn run(json: bool) -> Result<(), CliError> {
    let spec = seed_graph(SeedOptions::default());
    let g =
        Graph::from_spec(spec).map_err(|e| CliError::Other(format!("built-in seed graph: {e}")))?;
    let opts = PlanOptions {
        method: Method::Auto,
        ..PlanOptions::default()
    };
    let plan = peakorder::plan(&g, &opts, &StdClock::new())?;
    if json {
        println!("{}", to_json(&plan));
        return Ok(());
    }
    println!("Seed graph: ten parallel paths relu -> matmul -> relu -> matmul over 256x256 f32,");
    println!("in the order nvFuser ran them (every first relu, then every first matmul, ...).\n");
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
    Ok(())
}
