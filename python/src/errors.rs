//! Core errors as Python exceptions: `peakorder.PeakorderError` (family subclasses in
//! `peakorder/_errors.py`) with the stable `.code` of the CLI and npm package, the message, and
//! the op, tensor, or cycle the error names (the same fields as the npm package's errors).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Codes this layer adds to the core's [`peakorder::Error::code`] (the npm package's too).
pub mod codes {
    /// An argument of the wrong type or value (options, the order), not a graph error.
    pub const INVALID_ARGUMENT: &str = "invalid_argument";
    /// The report page cannot be made: the web bundle was not built into this package.
    pub const REPORT_UNAVAILABLE: &str = "report_unavailable";
}

/// A detail an error names.
pub enum Field<'a> {
    Id(&'a str),
    Ids(&'a [String]),
    /// A whole number (a Python int): byte counts, line numbers, run counts.
    Bytes(u64),
}

/// A coded error, made into the Python exception by `peakorder._errors._make`.
pub struct Coded<'a> {
    pub code: &'a str,
    pub message: String,
    pub fields: Vec<(&'static str, Field<'a>)>,
}

impl<'a> Coded<'a> {
    pub fn new(code: &'a str, message: impl Into<String>) -> Coded<'a> {
        Coded {
            code,
            message: message.into(),
            fields: Vec::new(),
        }
    }

    pub fn into_py(self, py: Python<'_>) -> PyErr {
        match self.make(py) {
            Ok(e) => e,
            // Only when peakorder._errors cannot be imported (the extension used on its own).
            Err(_) => PyValueError::new_err(format!("{}: {}", self.code, self.message)),
        }
    }

    fn make(&self, py: Python<'_>) -> PyResult<PyErr> {
        let fields = PyDict::new(py);
        for (k, v) in &self.fields {
            match v {
                Field::Id(s) => fields.set_item(k, s)?,
                Field::Ids(ids) => fields.set_item(k, PyList::new(py, ids.iter())?)?,
                Field::Bytes(b) => fields.set_item(k, b)?,
            }
        }
        let make = py.import("peakorder._errors")?.getattr("_make")?;
        let exc = make.call1((self.code, &self.message, fields))?;
        Ok(PyErr::from_value(exc))
    }
}

/// A core error with the fields it names.
pub fn coded(e: &peakorder::Error) -> Coded<'_> {
    use peakorder::Error as E;
    use Field::{Bytes, Id, Ids};
    let fields = match e {
        E::InvalidTensor { tensor, .. }
        | E::DuplicateTensor { tensor }
        | E::UnknownOutput { tensor } => vec![("tensor", Id(tensor))],
        E::UnknownAlias { tensor, target } => {
            vec![("tensor", Id(tensor)), ("alias_of", Id(target))]
        }
        E::ProducedTwice { tensor, first, .. } => vec![("tensor", Id(tensor)), ("op", Id(first))],
        E::UnknownTensor { op, tensor } => vec![("op", Id(op)), ("tensor", Id(tensor))],
        E::NotTopological { op, tensor, .. } => vec![("op", Id(op)), ("tensor", Id(tensor))],
        E::InvalidOp { op, .. }
        | E::DuplicateOp { op }
        | E::UnknownOp { op }
        | E::RepeatedOp { op }
        | E::MissingOp { op, .. } => vec![("op", Id(op))],
        E::Cycle { ops } | E::RegionCycle { ops } => vec![("ops", Ids(ops))],
        E::AliasCycle { tensors } => vec![("tensors", Ids(tensors))],
        E::BadRegion { region, .. } => vec![("region", Id(region))],
        // A whole number like the byte counts (a Python int).
        E::BadCsv { line, .. } => vec![("line", Bytes(*line as u64))],
        E::PeakLimit { limit, best } => {
            vec![("limit_bytes", Bytes(*limit)), ("best_bytes", Bytes(*best))]
        }
        // The plan's names for the same numbers (docs/design.md §3).
        E::Infeasible {
            limit,
            least,
            bound,
            op,
        } => {
            let mut f = vec![
                ("limit_bytes", Bytes(*limit)),
                ("least_limit_bytes", Bytes(*least)),
                ("least_limit_lower_bound_bytes", Bytes(*bound)),
            ];
            f.extend(op.iter().map(|op| ("op", Id(op))));
            f
        }
        E::NotRecomputable { op, runs } => vec![("op", Id(op)), ("runs", Bytes(*runs as u64))],
        E::StaleView { op, tensor, base } => {
            let mut f: Vec<_> = op.iter().map(|op| ("op", Id(op))).collect();
            f.extend([("tensor", Id(tensor)), ("alias_of", Id(base))]);
            f
        }
        E::BadLimit { value, .. } => vec![("value", Id(value))],
        // Other variants (and those added later) carry their details in the message.
        #[allow(unreachable_patterns)]
        _ => Vec::new(),
    };
    Coded {
        code: e.code(),
        message: e.to_string(),
        fields,
    }
}

/// A core error as a Python exception.
pub fn to_py(py: Python<'_>, e: &peakorder::Error) -> PyErr {
    coded(e).into_py(py)
}

/// An argument error (`invalid_argument`).
pub fn invalid(py: Python<'_>, message: impl Into<String>) -> PyErr {
    Coded::new(codes::INVALID_ARGUMENT, message).into_py(py)
}
