//! `peakorder import onnx MODEL.onnx [-o GRAPH.json] [--assume-dim NAME=VALUE]...`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;
use peakorder::units::format_bytes;
use peakorder::Graph;

use super::CliError;
use peakorder_gpu::import::onnx;

/// Parses `NAME=VALUE` (for clap).
fn parse_assume_dim(s: &str) -> Result<(String, u64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got {s:?}"))?;
    if name.is_empty() {
        return Err(format!("expected NAME=VALUE, got {s:?}: the name is empty"));
    }
    let v = value.trim().parse::<u64>().map_err(|_| {
        format!("the value of {name:?} must be a non-negative integer, got {value:?}")
    })?;
    if v > i64::MAX as u64 {
        return Err(format!("the value of {name:?} is too large"));
    }
    Ok((name.to_string(), v))
}

/// `peakorder import onnx MODEL.onnx [-o GRAPH.json] [--assume-dim NAME=VALUE]...`.
#[derive(Args, Debug)]
pub struct OnnxArgs {
    /// The ONNX model file.
    model: PathBuf,
    /// Where to write the graph JSON (default: stdout).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// A value for a symbolic dimension, e.g. `--assume-dim batch=8` (repeatable).
    #[arg(long = "assume-dim", value_name = "NAME=VALUE", value_parser = parse_assume_dim)]
    assume_dim: Vec<(String, u64)>,
}

pub fn run(a: OnnxArgs) -> Result<(), CliError> {
    run_onnx(&a.model, a.output.as_ref(), &a.assume_dim)
}

fn run_onnx(model: &Path, out: Option<&PathBuf>, assume: &[(String, u64)]) -> Result<(), CliError> {
    let mut assume_dims = BTreeMap::new();
    for (k, v) in assume {
        if let Some(old) = assume_dims.insert(k.clone(), *v) {
            if old != *v {
                return Err(CliError::Input(format!(
                    "--assume-dim {k} is given twice, as {old} and {v}"
                )));
            }
        }
    }
    let bytes = std::fs::read(model)
        .map_err(|e| CliError::Input(format!("cannot read {}: {e}", model.display())))?;
    let at = |m: String| CliError::Input(format!("{}: {m}", model.display()));
    // Every onnx::Error names the node or tensor on one line: bad input, exit 2.
    let mut spec = onnx::import_bytes(bytes.into(), &onnx::Options { assume_dims })
        .map_err(|e| at(e.to_string()))?;
    if let (Some(meta), Some(name)) = (spec.meta.as_mut(), model.file_name()) {
        meta.insert(
            "model".into(),
            serde_json::Value::from(name.to_string_lossy().into_owned()),
        );
    }
    // The core's validation is the contract: never write a graph it would refuse.
    let g = Graph::from_spec(spec.clone())
        .map_err(|e| at(format!("the imported graph is invalid: {e}")))?;
    let text = serde_json::to_string_pretty(&spec)
        .map_err(|e| CliError::Other(format!("cannot write JSON: {e}")))?;
    match out {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::write(path, text + "\n")
                .map_err(|e| CliError::Other(format!("cannot write {}: {e}", path.display())))?;
            println!(
                "wrote {}: {} ops, {} tensors, inputs and weights {}",
                path.display(),
                g.ops().len(),
                g.tensors().len(),
                format_bytes(g.inputs_bytes())
            );
        }
        _ => println!("{text}"),
    }
    Ok(())
}
