//! Options from Python values, checked as the CLI checks its flags: a budget is a finite number
//! of milliseconds >= 0, counts are whole numbers >= 0, a method is a known name. A bad value is
//! a `PeakorderError` with code `invalid_argument` (`unknown_method` for a method name) naming
//! the option, never a silently clamped value.

use peakorder::fusion::FuseOptions;
use peakorder::recompute::RecomputeMethod;
use peakorder::{Method, PlanOptions};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyString};

use crate::errors::{invalid, to_py};

/// `budget_ms`: a finite number >= 0.
pub fn budget_ms(py: Python<'_>, v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
    let Some(v) = v else { return Ok(None) };
    let bad = || {
        invalid(
            py,
            format!(
                "budget_ms must be a finite number of milliseconds >= 0, got {}",
                repr(v)
            ),
        )
    };
    // Anything with __float__ or __index__ (numpy scalars too), but not a bool or a string.
    if v.is_instance_of::<PyBool>() || v.is_instance_of::<PyString>() {
        return Err(bad());
    }
    match v.extract::<f64>() {
        Ok(b) if b.is_finite() && b >= 0.0 => Ok(Some(b)),
        _ => Err(bad()),
    }
}

/// A count (`max_states`, `max_memory_mb`, `peak_limit`): a whole number in 0..2^64.
pub fn whole(py: Python<'_>, name: &str, v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(v) = v else { return Ok(None) };
    let bad = || {
        invalid(
            py,
            format!(
                "{name} must be a whole number >= 0 below 2^64, got {}",
                repr(v)
            ),
        )
    };
    // Anything with __index__ (numpy integers too), but not a bool; floats have no __index__.
    if v.is_instance_of::<PyBool>() {
        return Err(bad());
    }
    v.extract::<u64>().map(Some).map_err(|_| bad())
}

/// `method`: a string. Whether it names a method is checked after the graph is read, as the CLI
/// does ([`parse_method`]).
pub fn method_name(py: Python<'_>, v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    let Some(v) = v else { return Ok(None) };
    v.extract::<String>()
        .map(Some)
        .map_err(|_| invalid(py, format!("method must be a string, got {}", repr(v))))
}

/// `memory_limit_bytes`: a whole number of bytes (an int, or anything with `__index__`), or text
/// with a unit (`"8GiB"`) read by the core's [`peakorder::units::parse_bytes`], as the CLI's
/// `--memory-limit`. Anything else is the core's `bad_limit`, naming the value.
pub fn memory_limit(py: Python<'_>, v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(v) = v else { return Ok(None) };
    let bad = |reason: &str| {
        to_py(
            py,
            &peakorder::Error::BadLimit {
                value: repr(v),
                reason: reason.into(),
            },
        )
    };
    if v.is_instance_of::<PyString>() {
        let text: String = v.extract()?;
        return peakorder::units::parse_bytes(&text)
            .map(Some)
            .map_err(|e| to_py(py, &e));
    }
    // A bool is an int to Python, and a float has no __index__: both refused, not rounded.
    if v.is_instance_of::<PyBool>() || v.is_instance_of::<PyFloat>() {
        return Err(bad(
            "expected a whole number of bytes (an int) or text with a unit (\"64MiB\", \"8GiB\")",
        ));
    }
    v.extract::<u64>().map(Some).map_err(|_| {
        bad("expected a whole number of bytes >= 0 below 2^64, or text with a unit (\"64MiB\")")
    })
}

/// `recompute_method`: a string. Whether it names a method is checked after the graph is read,
/// as for `method` ([`parse_recompute_method`]).
pub fn recompute_method_name(
    py: Python<'_>,
    v: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<String>> {
    let Some(v) = v else { return Ok(None) };
    v.extract::<String>().map(Some).map_err(|_| {
        invalid(
            py,
            format!("recompute_method must be a string, got {}", repr(v)),
        )
    })
}

/// A recompute method name of [`RecomputeMethod::ALL`]; `None` is the CLI's default.
pub fn parse_recompute_method(name: Option<&str>) -> Result<RecomputeMethod, peakorder::Error> {
    match name {
        None => Ok(RecomputeMethod::default()),
        Some(name) => name.parse(),
    }
}

/// The options of `plan` and `compare`, the CLI's defaults where not given.
pub fn plan_options(
    py: Python<'_>,
    budget: Option<&Bound<'_, PyAny>>,
    max_states: Option<&Bound<'_, PyAny>>,
    max_memory_mb: Option<&Bound<'_, PyAny>>,
) -> PyResult<PlanOptions> {
    let mut opts = PlanOptions::default();
    if let Some(b) = budget_ms(py, budget)? {
        opts.budget_ms = Some(b);
    }
    if let Some(n) = whole(py, "max_states", max_states)? {
        opts.max_states = n;
    }
    if let Some(mb) = whole(py, "max_memory_mb", max_memory_mb)? {
        opts.max_memory_bytes = mb.saturating_mul(1 << 20);
    }
    Ok(opts)
}

/// A method name of [`Method::ALL`]; `None` is the CLI's default.
pub fn parse_method(name: Option<&str>) -> Result<Method, peakorder::Error> {
    match name {
        None => Ok(PlanOptions::default().method),
        Some(name) => name.parse(),
    }
}

/// The options of `fuse`, the core's (the CLI's) defaults where not given.
pub fn fuse_options(
    py: Python<'_>,
    peak_limit: Option<&Bound<'_, PyAny>>,
    budget: Option<&Bound<'_, PyAny>>,
    max_states: Option<&Bound<'_, PyAny>>,
) -> PyResult<FuseOptions> {
    let mut opts = FuseOptions {
        peak_limit: whole(py, "peak_limit", peak_limit)?,
        ..FuseOptions::default()
    };
    if let Some(b) = budget_ms(py, budget)? {
        opts.budget_ms = Some(b);
    }
    if let Some(n) = whole(py, "max_states", max_states)? {
        opts.max_states = n;
    }
    Ok(opts)
}

fn repr(v: &Bound<'_, PyAny>) -> String {
    v.repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "a value without a repr".into())
}
