//! `peakorder simulate`.

use std::path::PathBuf;

use clap::Args;
use peakorder::units::format_bytes;

use super::input::{read_graph, read_order};
use super::plan::{peak_text, to_json};
use super::table::Table;
use super::CliError;

/// `peakorder simulate GRAPH ORDER [--json]`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    /// Order JSON file: an array of op ids, or a plan with an `order` field.
    order: PathBuf,
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: SimulateArgs) -> Result<(), CliError> {
    let g = read_graph(&a.graph)?;
    let order = read_order(&g, &a.order)?;
    let sim = peakorder::simulate(&g, &order)?;
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
    for (i, st) in sim.steps.iter().enumerate() {
        let mark = if sim.peak_step == Some(i) {
            "<- peak"
        } else {
            ""
        };
        t.row(vec![
            (i + 1).to_string(),
            st.op.clone(),
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
    Ok(())
}
