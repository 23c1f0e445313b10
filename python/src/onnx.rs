//! ONNX for Python: `import_onnx` and `reorder_onnx` over the crate `peakorder-onnx`, the same
//! functions as the CLI's and the npm package's, so the graph JSON is the same text. The crate
//! reads no files; given the model's folder (Python was given a path), this layer reads small
//! external-data initializers from it, as the CLI does.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{Coded, Field};

/// An ONNX error as `peakorder.PeakorderError` with its code and the node and tensor it names.
fn to_py(py: Python<'_>, e: &peakorder_onnx::Error) -> PyErr {
    let mut c = Coded::new(e.code(), e.to_string());
    c.fields.extend(e.node().map(|n| ("op", Field::Id(n))));
    c.fields
        .extend(e.tensor().map(|t| ("tensor", Field::Id(t))));
    c.into_py(py)
}

/// The model's bytes (a Python `bytes`, copied once: the importer keeps slices of it).
fn bytes_of(model: &[u8]) -> bytes::Bytes {
    bytes::Bytes::copy_from_slice(model)
}

/// External data files in the model's folder (a location must be a plain relative path).
struct Files(PathBuf);

impl peakorder_onnx::ExternalData for Files {
    fn read(&self, location: &str, offset: u64, length: Option<u64>) -> Result<Vec<u8>, String> {
        let rel = Path::new(location);
        if location.is_empty()
            || rel.is_absolute()
            || rel.components().any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err(format!(
                "location {location:?} is not a file name inside the model's folder"
            ));
        }
        let path = self.0.join(rel);
        let err = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
        let mut f = std::fs::File::open(&path).map_err(err)?;
        f.seek(SeekFrom::Start(offset)).map_err(err)?;
        let mut out = Vec::new();
        match length {
            Some(n) => f.take(n).read_to_end(&mut out).map_err(err)?,
            None => f.read_to_end(&mut out).map_err(err)?,
        };
        match length {
            Some(n) if n != out.len() as u64 => Err(format!(
                "{} ends before offset {offset} + length {n}",
                path.display()
            )),
            _ => Ok(out),
        }
    }
}

/// The graph JSON text of a model, as `peakorder import onnx` writes it (`name`: the file's
/// name for `meta.model`; `folder`: where external data files are, when a path was given).
#[pyfunction]
#[pyo3(signature = (model, assume_dims, name=None, folder=None))]
pub fn import_onnx(
    py: Python<'_>,
    model: &[u8],
    assume_dims: BTreeMap<String, u64>,
    name: Option<String>,
    folder: Option<PathBuf>,
) -> PyResult<String> {
    let out = py.detach(|| {
        let files = folder.map(Files);
        let opts = peakorder_onnx::Options {
            assume_dims,
            external_data: files
                .as_ref()
                .map(|f| f as &dyn peakorder_onnx::ExternalData),
        };
        peakorder_onnx::import_json(bytes_of(model), &opts, name.as_deref()).map(|i| i.text)
    });
    out.map_err(|e| to_py(py, &e))
}

/// The model with its nodes in `order`, every other byte as it was.
#[pyfunction]
pub fn reorder_onnx<'py>(
    py: Python<'py>,
    model: &[u8],
    order: Vec<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let out = py.detach(|| {
        let ids: Vec<&str> = order.iter().map(String::as_str).collect();
        peakorder_onnx::reorder(bytes_of(model), &ids)
    });
    match out {
        Ok(b) => Ok(PyBytes::new(py, &b)),
        Err(e) => Err(to_py(py, &e)),
    }
}
