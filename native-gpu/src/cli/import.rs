//! `peakorder import onnx MODEL.onnx [-o GRAPH.json] [--assume-dim NAME=VALUE]...`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;
use peakorder::units::format_bytes;

use super::CliError;
use peakorder_gpu::import::onnx;

/// External data files, read from the model's folder (the importer itself does no I/O). Like
/// onnx's own loader, a location must stay inside that folder.
struct Files {
    dir: PathBuf,
}

impl onnx::ExternalData for Files {
    fn read(&self, location: &str, offset: u64, length: Option<u64>) -> Result<Vec<u8>, String> {
        use std::io::{Read, Seek, SeekFrom};
        let rel = Path::new(location);
        if location.is_empty()
            || rel.is_absolute()
            || rel
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            return Err(format!(
                "location {location:?} is not a file name inside the model's folder"
            ));
        }
        let path = self.dir.join(rel);
        let err = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
        let mut f = std::fs::File::open(&path).map_err(err)?;
        f.seek(SeekFrom::Start(offset)).map_err(err)?;
        let mut out = Vec::new();
        match length {
            Some(n) => f.take(n).read_to_end(&mut out).map_err(err)?,
            None => f.read_to_end(&mut out).map_err(err)?,
        };
        if length.is_some_and(|n| n != out.len() as u64) {
            return Err(format!(
                "{} ends before offset {offset} + length {}",
                path.display(),
                length.unwrap_or(0)
            ));
        }
        Ok(out)
    }
}

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
    let files = Files {
        dir: model.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    let opts = onnx::Options {
        assume_dims,
        external_data: Some(&files),
    };
    let name = model.file_name().map(|n| n.to_string_lossy().into_owned());
    // Every onnx::Error names the node or tensor on one line: bad input, exit 2.
    let imported =
        onnx::import_json(bytes.into(), &opts, name.as_deref()).map_err(|e| at(e.to_string()))?;
    let (text, g) = (imported.text, imported.graph);
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
