//! `peakorder._native`: the Python package's extension module. It only converts (docs/design.md
//! §5's shapes out as dicts, core errors as coded exceptions, options checked like the CLI's
//! flags) and calls the core in-process; every planning decision is the core's. Graph arguments
//! arrive as JSON text (the Python side reads paths, `peakorder/_api.py`; a dict is written as
//! JSON text by [`dumps`], as `json.dumps` would write it), so the CLI, the npm package and
//! Python share one parser and one validation.
//!
//! Every call parses and plans with the GIL released; the searches also stop on Ctrl-C and return
//! their best order so far ([`interrupt`]).

use std::sync::atomic::AtomicBool;

use peakorder::dtype::{Dtype, DTYPE_NAMES};
use peakorder::{Budget, Clock, Graph, Hooks};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::Serialize;

mod clock;
mod dumps;
mod errors;
mod interrupt;
mod onnx;
mod options;

use clock::StdClock;
use errors::{codes, to_py, Coded};
use interrupt::run_interruptible;

/// A result as Python objects: serialized by serde (field order as in the CLI's `--json`) and
/// read back by the `json` module, so dicts, lists, ints of any size, floats and `None`.
fn to_python<'py, T: Serialize>(py: Python<'py>, x: &T) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(x).map_err(|e| {
        Coded::new("internal", format!("cannot serialize a result: {e}")).into_py(py)
    })?;
    py.import("json")?.getattr("loads")?.call1((text,))
}

fn parse(graph_json: &str) -> Result<Graph, peakorder::Error> {
    Graph::from_json(graph_json)
}

/// Plans a graph (JSON text): the `peakorder plan --json` dict, and whether Ctrl-C cut the
/// search short. With `memory_limit_bytes` (an int or text such as "8GiB"), the schedule within
/// it that recomputes least, by `recompute_method` (docs/design.md §3).
#[pyfunction]
#[pyo3(signature = (graph_json, method=None, budget_ms=None, max_states=None, max_memory_mb=None,
                    memory_limit_bytes=None, recompute_method=None))]
#[allow(clippy::too_many_arguments)]
fn plan<'py>(
    py: Python<'py>,
    graph_json: String,
    method: Option<&Bound<'py, PyAny>>,
    budget_ms: Option<&Bound<'py, PyAny>>,
    max_states: Option<&Bound<'py, PyAny>>,
    max_memory_mb: Option<&Bound<'py, PyAny>>,
    memory_limit_bytes: Option<&Bound<'py, PyAny>>,
    recompute_method: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, bool)> {
    let method = options::method_name(py, method)?;
    let mut opts = options::plan_options(py, budget_ms, max_states, max_memory_mb)?;
    opts.memory_limit = options::memory_limit(py, memory_limit_bytes)?;
    let recompute = options::recompute_method_name(py, recompute_method)?;
    // It chooses how a limit is met: refused, not ignored, without one (as the CLI's flag).
    if recompute.is_some() && opts.memory_limit.is_none() {
        return Err(errors::invalid(
            py,
            "recompute_method applies with memory_limit_bytes",
        ));
    }
    let done = run_interruptible(py, |cancel: &AtomicBool| {
        let g = parse(&graph_json)?;
        opts.method = options::parse_method(method.as_deref())?;
        opts.recompute_method = options::parse_recompute_method(recompute.as_deref())?;
        let hooks = Hooks {
            cancel: Some(cancel),
            progress: None,
        };
        peakorder::plan_hooked(&g, &opts, &StdClock::new(), &hooks)
    })?;
    let plan = done.value.map_err(|e| to_py(py, &e))?;
    Ok((to_python(py, &plan)?, done.interrupted))
}

/// Simulates an order or a schedule (op ids; an op may repeat: docs/design.md §1
/// "Recomputation") on a graph: the `peakorder simulate --json` dict.
#[pyfunction]
fn simulate<'py>(
    py: Python<'py>,
    graph_json: String,
    order: Vec<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let sim = py
        .detach(|| {
            let g = parse(&graph_json)?;
            let schedule = g.schedule_from_ids(&order)?;
            peakorder::recompute::simulate_schedule(&g, &schedule)
        })
        .map_err(|e| to_py(py, &e))?;
    to_python(py, &sim)
}

/// Every method side by side: the `peakorder compare --json` dict, and whether Ctrl-C cut it
/// short.
#[pyfunction]
#[pyo3(signature = (graph_json, budget_ms=None, max_states=None, max_memory_mb=None))]
fn compare<'py>(
    py: Python<'py>,
    graph_json: String,
    budget_ms: Option<&Bound<'py, PyAny>>,
    max_states: Option<&Bound<'py, PyAny>>,
    max_memory_mb: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, bool)> {
    let opts = options::plan_options(py, budget_ms, max_states, max_memory_mb)?;
    let done = run_interruptible(py, |cancel: &AtomicBool| {
        let g = parse(&graph_json)?;
        let hooks = Hooks {
            cancel: Some(cancel),
            progress: None,
        };
        Ok(peakorder::compare_hooked(
            &g,
            &opts,
            &StdClock::new(),
            &hooks,
        ))
    })?;
    let cmp = done.value.map_err(|e: peakorder::Error| to_py(py, &e))?;
    Ok((to_python(py, &cmp)?, done.interrupted))
}

/// Memory-aware fusion next to the Thunder-style baseline: the `peakorder fuse --json` dict, the
/// fused graph's JSON text when `with_graph` (what `fuse -o FILE` writes), and whether Ctrl-C
/// cut the search short.
#[pyfunction]
#[pyo3(signature = (graph_json, peak_limit=None, budget_ms=None, max_states=None, with_graph=false))]
fn fuse<'py>(
    py: Python<'py>,
    graph_json: String,
    peak_limit: Option<&Bound<'py, PyAny>>,
    budget_ms: Option<&Bound<'py, PyAny>>,
    max_states: Option<&Bound<'py, PyAny>>,
    with_graph: bool,
) -> PyResult<(Bound<'py, PyAny>, Option<String>, bool)> {
    let opts = options::fuse_options(py, peak_limit, budget_ms, max_states)?;
    let done = run_interruptible(py, |cancel: &AtomicBool| {
        let g = parse(&graph_json)?;
        let clock = StdClock::new();
        // What `peakorder::fusion::run` builds, plus the cancel flag.
        let mut budget = Budget::new(
            &clock,
            opts.budget_ms.map(|b| clock.now_ms() + b),
            opts.max_states,
        );
        budget.cancel = Some(cancel);
        let f = peakorder::fusion::fuse(&g, opts.peak_limit, &budget)?;
        let text = with_graph.then(|| f.fused.to_spec().to_json() + "\n");
        Ok((f, text))
    })?;
    let (fusion, text) = done.value.map_err(|e: peakorder::Error| to_py(py, &e))?;
    Ok((to_python(py, &fusion)?, text, done.interrupted))
}

/// The self-contained report page (`peakorder report`'s), and whether Ctrl-C cut its plan short.
#[pyfunction]
#[pyo3(signature = (graph_json, title, method=None, budget_ms=None))]
fn report_html<'py>(
    py: Python<'py>,
    graph_json: String,
    title: String,
    method: Option<&Bound<'py, PyAny>>,
    budget_ms: Option<&Bound<'py, PyAny>>,
) -> PyResult<(String, bool)> {
    use peakorder_report::{ReportError, ReportOptions};
    let method = options::method_name(py, method)?;
    let budget_ms = options::budget_ms(py, budget_ms)?
        .unwrap_or_else(|| peakorder::PlanOptions::default().budget_ms.unwrap_or(100.0));
    let done = run_interruptible(py, |cancel: &AtomicBool| {
        let opts = ReportOptions {
            title: &title,
            method: method.as_deref(),
            budget_ms,
        };
        let hooks = Hooks {
            cancel: Some(cancel),
            progress: None,
        };
        peakorder_report::report(&graph_json, &opts, &StdClock::new(), &hooks)
    })?;
    let report = done.value.map_err(|e| match e {
        ReportError::Graph(e) | ReportError::Plan(e) => to_py(py, &e),
        ReportError::Template(m) => Coded::new(codes::REPORT_UNAVAILABLE, m).into_py(py),
    })?;
    Ok((report.html, done.interrupted))
}

/// A static memory layout (docs/layout.md): the `peakorder layout --json` dict, and whether
/// Ctrl-C cut the search short. `input` is graph JSON text, or MiniMalloc CSV text when `csv`.
/// Without `order`, the order is planned with `plan_method` (a tenth of the budget).
#[pyfunction]
#[pyo3(signature = (input, csv, order=None, method=None, plan_method=None, align=None,
                    budget_ms=None, max_states=None, capacity=None, slack=None))]
#[allow(clippy::too_many_arguments)]
fn layout<'py>(
    py: Python<'py>,
    input: String,
    csv: bool,
    order: Option<Vec<String>>,
    method: Option<&Bound<'py, PyAny>>,
    plan_method: Option<&Bound<'py, PyAny>>,
    align: Option<&Bound<'py, PyAny>>,
    budget_ms: Option<&Bound<'py, PyAny>>,
    max_states: Option<&Bound<'py, PyAny>>,
    capacity: Option<&Bound<'py, PyAny>>,
    slack: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, bool)> {
    let method = options::method_name(py, method)?;
    let plan_method = options::method_name(py, plan_method)?;
    let mut opts = peakorder::LayoutOptions::default();
    match options::whole(py, "align", align)? {
        Some(0) => return Err(errors::invalid(py, "align must be at least 1 byte")),
        Some(a) => opts.align = a,
        None => {}
    }
    if let Some(b) = options::budget_ms(py, budget_ms)? {
        opts.budget_ms = Some(b);
    }
    if let Some(n) = options::whole(py, "max_states", max_states)? {
        opts.max_states = n;
    }
    opts.capacity = options::whole(py, "capacity", capacity)?;
    let slack_given = slack.is_some();
    let slack = match slack {
        None => 0.0,
        Some(v) => match v.extract::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 && !v.is_instance_of::<pyo3::types::PyBool>() => x,
            _ => return Err(errors::invalid(py, "slack must be a fraction >= 0")),
        },
    };
    if csv && order.is_some() {
        return Err(errors::invalid(
            py,
            "order applies to graphs; a CSV's lifetimes are fixed",
        ));
    }
    // slack and plan_method need a planned order: refused, not ignored, without one.
    let planning = slack_given || plan_method.is_some();
    if csv && planning {
        return Err(errors::invalid(
            py,
            "slack and plan_method apply to graphs; a CSV's lifetimes are fixed",
        ));
    }
    if order.is_some() && planning {
        return Err(errors::invalid(
            py,
            "slack and plan_method apply to a planned order; order is laid out as given",
        ));
    }
    let done = run_interruptible(py, |cancel: &AtomicBool| {
        if let Some(m) = &method {
            opts.method = m.parse()?;
        }
        let hooks = Hooks {
            cancel: Some(cancel),
            progress: None,
        };
        let clock = StdClock::new();
        if csv {
            let iv = peakorder::layout::csv::parse(&input)?;
            let l = peakorder::layout::layout_intervals(&iv, &opts, &clock, &hooks)?;
            return serde_json::to_value(&l).map_err(|e| bad_result(&e));
        }
        let g = parse(&input)?;
        let l = match &order {
            Some(ids) => {
                let order = g.order_from_ids(ids)?;
                peakorder::layout::layout_hooked(&g, &order, &opts, &clock, &hooks)?
            }
            None => {
                let plan_method = options::parse_method(plan_method.as_deref())?;
                peakorder::layout::plan_then_layout(&g, plan_method, &opts, slack, &clock, &hooks)?
            }
        };
        serde_json::to_value(&l).map_err(|e| bad_result(&e))
    })?;
    let value = done.value.map_err(|e| to_py(py, &e))?;
    Ok((to_python(py, &value)?, done.interrupted))
}

/// A result that does not serialize (cannot happen for these types; reported, not panicked).
fn bad_result(e: &serde_json::Error) -> peakorder::Error {
    peakorder::Error::BadLayout {
        what: "the result".into(),
        reason: format!("cannot serialize it: {e}"),
    }
}

/// What `validate` reports about a valid graph (the npm package's `validate`).
#[derive(Serialize)]
struct Summary {
    format: &'static str,
    ops: usize,
    tensors: usize,
    /// Graph inputs (tensors no op produces), views included.
    inputs: usize,
    outputs: usize,
    inputs_bytes: u64,
    lower_bound_bytes: u64,
    /// Peak of the file's order; `None` when the file's order is not topological.
    program_order_peak_bytes: Option<u64>,
    /// Every op's outputs feed at most one other op.
    in_forest: bool,
}

/// Parses and validates a graph: a summary dict, or the coded error naming the op or tensor.
#[pyfunction]
fn validate<'py>(py: Python<'py>, graph_json: String) -> PyResult<Bound<'py, PyAny>> {
    let summary = py
        .detach(|| {
            let g = parse(&graph_json)?;
            let program_order_peak_bytes = peakorder::order::program::program_order(&g)
                .ok()
                .map(|o| peakorder::peak_of(&g, &o));
            Ok(Summary {
                format: peakorder::format::FORMAT,
                ops: g.num_ops(),
                tensors: g.num_tensors(),
                inputs: g.tensors().iter().filter(|t| t.producer.is_none()).count(),
                outputs: g.outputs().len(),
                inputs_bytes: g.inputs_bytes(),
                lower_bound_bytes: peakorder::lower_bound(&g),
                program_order_peak_bytes,
                in_forest: g.is_in_forest(),
            })
        })
        .map_err(|e: peakorder::Error| to_py(py, &e))?;
    to_python(py, &summary)
}

/// Bytes from a limit as `plan`'s `memory_limit_bytes` reads it (`"64MiB"`, `"1.5GB"`, `"1000"`):
/// the core's parser, so that every surface reads a limit alike.
#[pyfunction]
fn parse_bytes(py: Python<'_>, text: &str) -> PyResult<u64> {
    peakorder::units::parse_bytes(text).map_err(|e| to_py(py, &e))
}

/// `json.dumps(obj, allow_nan=False, separators=(",", ":"), default=default,
/// check_circular=False)`, byte for byte and with the same exceptions, several times faster: how a
/// graph given as a dict becomes the text the core parses.
#[pyfunction]
fn json_dumps(obj: &Bound<'_, PyAny>, default: &Bound<'_, PyAny>) -> PyResult<String> {
    dumps::dumps(obj, default)
}

/// The graph format's element types and their sizes in bytes (`{"f32": 4, ...}`).
#[pyfunction]
fn dtype_sizes(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for name in DTYPE_NAMES.split_whitespace() {
        if let Some(t) = Dtype::parse(name) {
            d.set_item(t.name(), t.size())?;
        }
    }
    Ok(d)
}

/// peakorder's native extension: the core (graph validation, simulation, planning, fusion, the
/// report page) called in-process. Use it through the `peakorder` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(fuse, m)?)?;
    m.add_function(wrap_pyfunction!(report_html, m)?)?;
    m.add_function(wrap_pyfunction!(layout, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(dtype_sizes, m)?)?;
    m.add_function(wrap_pyfunction!(json_dumps, m)?)?;
    m.add_function(wrap_pyfunction!(parse_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(onnx::import_onnx, m)?)?;
    m.add_function(wrap_pyfunction!(onnx::reorder_onnx, m)?)?;
    Ok(())
}
