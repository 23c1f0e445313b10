//! `peakorder export onnx MODEL.onnx --order PLAN -o OUT.onnx`: the model with its nodes in the
//! planned order and every other byte as it was (`peakorder_onnx::reorder`, docs/import.md).

use std::path::PathBuf;

use clap::Args;

use super::input::read_ids;
use super::CliError;
use peakorder_gpu::import::onnx;

#[derive(Args, Debug)]
pub struct OnnxArgs {
    /// The ONNX model file.
    model: PathBuf,
    /// The order: a JSON array of op ids or a plan (`peakorder plan --json`), as other --order
    /// flags take; op ids are those `peakorder import onnx` gives the nodes.
    #[arg(long)]
    order: PathBuf,
    /// Where to write the reordered model.
    #[arg(long, short)]
    output: PathBuf,
}

pub fn run(a: OnnxArgs) -> Result<(), CliError> {
    let ids = read_ids(&a.order)?;
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let bytes = std::fs::read(&a.model)
        .map_err(|e| CliError::Input(format!("cannot read {}: {e}", a.model.display())))?;
    // Order errors (unknown_op, not_topological, ...) name the node; the file is named too.
    let out = onnx::reorder(bytes.into(), &refs)
        .map_err(|e| CliError::Input(format!("{}: {e}", a.model.display())))?;
    std::fs::write(&a.output, &out)
        .map_err(|e| CliError::Other(format!("cannot write {}: {e}", a.output.display())))?;
    println!(
        "wrote {}: {} nodes in the order of {}",
        a.output.display(),
        refs.len(),
        a.order.display()
    );
    Ok(())
}
