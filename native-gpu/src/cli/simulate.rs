//! `peakorder simulate`.

use std::path::PathBuf;

use clap::Args;
use peakorder::units::format_bytes;

use super::input::{has_repeats, read_graph, read_schedule};
use super::plan::{peak_text, to_json};
use super::table::Table;
use super::CliError;

/// `peakorder simulate GRAPH ORDER [--json]`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    /// Order JSON file: an array of op ids, or a plan with an `order` field. An op may be
    /// listed more than once (a schedule with recomputations, as `plan --memory-limit` gives).
    order: PathBuf,
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: SimulateArgs) -> Result<(), CliError> {
    let g = read_graph(&a.graph)?;
    let order = read_schedule(&g, &a.order)?;
    // The schedule simulator is the order simulator on an order; an order keeps its own path.
    let sim = if has_repeats(&order) {
        peakorder::recompute::simulate_schedule(&g, &order)?
    } else {
        peakorder::simulate(&g, &order)?
    };
    if a.json {
        println!("{}", to_json(&sim));
        return Ok(());
    }
    let mut t = Table::new(&[
        ("step", true),
        ("op", false),
        ("during", true),
        ("after", true),
        ("", false),
    ]);
    // A step that runs an op again is marked with its run.
    let mut runs = vec![0u32; g.num_ops()];
    for (i, st) in sim.steps.iter().enumerate() {
        let mark = if sim.peak_step == Some(i) {
            "<- peak"
        } else {
            ""
        };
        let run = &mut runs[st.op_ix as usize];
        *run += 1;
        let op = if *run > 1 {
            format!("{} (run {run})", st.op)
        } else {
            st.op.clone()
        };
        t.row(vec![
            (i + 1).to_string(),
            op,
            format_bytes(st.during_bytes),
            format_bytes(st.after_bytes),
            mark.into(),
        ]);
    }
    print!("{}", t.render());
    println!();
    println!(
        "{:<16}{}",
        "peak",
        peak_text(sim.peak_bytes, sim.inputs_bytes)
    );
    let at = match sim.peak_step {
        Some(i) => format!("step {} ({})", i + 1, sim.steps[i].op),
        None => "the start".into(),
    };
    println!("{:<16}{at}", "peak at");
    println!("{:<16}{}", "live at peak", sim.live_at_peak.join(" "));
    let again = runs
        .iter()
        .map(|&r| r.saturating_sub(1) as usize)
        .sum::<usize>();
    if again > 0 {
        println!(
            "{:<16}{again} of {} steps ({} added cost)",
            "recomputed",
            sim.steps.len(),
            super::plan::cost(peakorder::recompute::added_cost(&g, &order))
        );
    }
    Ok(())
}
