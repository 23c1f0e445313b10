//! peakorder for JavaScript: a thin wasm-bindgen layer over the core (crate `peakorder`).
//!
//! This crate only converts: JS values in (a graph as an object or JSON text, options, an order),
//! plain JS objects out (the docs/design.md shapes, via serde-wasm-bindgen, with the core's
//! snake_case names, which the package's entry points rename camelCase: js/names.cjs,
//! docs/wasm.md "Names"), core errors to JS `Error`
//! objects with a stable `code`, and `performance.now()` to the core's [`Clock`]. Every planning
//! decision is the core's; see docs/wasm.md for the JS API.
//!
//! Nothing here may panic: a panic in wasm is an `unreachable` trap that can leave the module
//! unusable. Every fallible step returns a coded error instead.

use peakorder::fusion::FuseOptions;
use peakorder::recompute::RecomputeMethod;
use peakorder::{Clock, Graph, Method, PlanOptions};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[cfg(target_arch = "wasm32")]
mod heap;
mod types;

// ---------------------------------------------------------------------------------------------
// Types of the JS API, named in the generated .d.ts (the interfaces are in `types.rs`).

#[wasm_bindgen]
extern "C" {
    /// A graph (docs/design.md §2) as an object, or as JSON text.
    #[wasm_bindgen(typescript_type = "GraphInput")]
    pub type GraphInput;
    #[wasm_bindgen(typescript_type = "PlanOptions")]
    pub type PlanOptionsArg;
    #[wasm_bindgen(typescript_type = "CompareOptions")]
    pub type CompareOptionsArg;
    /// An order: an array of op ids, a plan (anything with an `order` array), or JSON text of either.
    #[wasm_bindgen(typescript_type = "OrderInput")]
    pub type OrderInput;
    #[wasm_bindgen(typescript_type = "Summary")]
    pub type SummaryOut;
    #[wasm_bindgen(typescript_type = "Plan")]
    pub type PlanOut;
    #[wasm_bindgen(typescript_type = "Simulation")]
    pub type SimulationOut;
    #[wasm_bindgen(typescript_type = "Comparison")]
    pub type ComparisonOut;
    #[wasm_bindgen(typescript_type = "FuseOptions")]
    pub type FuseOptionsArg;
    #[wasm_bindgen(typescript_type = "Fusion")]
    pub type FusionOut;
    #[wasm_bindgen(typescript_type = "Storages")]
    pub type StoragesOut;
    /// A graph (object or JSON text), or MiniMalloc CSV text (`id,lower,upper,size`).
    #[wasm_bindgen(typescript_type = "LayoutInput")]
    pub type LayoutInput;
    #[wasm_bindgen(typescript_type = "LayoutOptions")]
    pub type LayoutOptionsArg;
    #[wasm_bindgen(typescript_type = "Layout | IntervalLayout")]
    pub type LayoutOut;
}

// ---------------------------------------------------------------------------------------------
// Errors.

/// Codes this layer adds to the core's [`peakorder::Error::code`] (documented in docs/wasm.md).
mod codes {
    /// An argument of the wrong type or shape (options, order), not a graph error.
    pub const INVALID_ARGUMENT: &str = "invalid_argument";
    /// A byte count in a result is above 2^53 and cannot be a JS number exactly.
    pub const TOO_LARGE: &str = "too_large";
}

/// A JS `Error` with `name = "PeakorderError"`, a stable `code`, and, where the core error names
/// them, the offending `op`, `tensor`, or the `ops`/`tensors` of a cycle.
struct JsErr {
    code: &'static str,
    message: String,
    fields: Vec<(&'static str, JsValue)>,
}

impl JsErr {
    fn new(code: &'static str, message: impl Into<String>) -> JsErr {
        JsErr {
            code,
            message: message.into(),
            fields: Vec::new(),
        }
    }

    fn invalid(message: impl Into<String>) -> JsErr {
        JsErr::new(codes::INVALID_ARGUMENT, message)
    }
}

/// 2^53 - 1, `Number.MAX_SAFE_INTEGER`.
const MAX_SAFE: u64 = (1 << 53) - 1;

fn str_list(ids: &[String]) -> JsValue {
    ids.iter()
        .map(|s| JsValue::from_str(s))
        .collect::<js_sys::Array>()
        .into()
}

/// Byte counts as error fields: only those a JS number holds exactly (the message has them all).
fn byte_fields(fields: &[(&'static str, u64)]) -> Vec<(&'static str, JsValue)> {
    fields
        .iter()
        .filter(|&&(_, b)| b <= MAX_SAFE)
        .map(|&(k, b)| (k, JsValue::from_f64(b as f64)))
        .collect()
}

impl From<peakorder::Error> for JsErr {
    fn from(e: peakorder::Error) -> JsErr {
        use peakorder::Error as E;
        let mut err = JsErr::new(e.code(), e.to_string());
        let s = |x: &String| JsValue::from_str(x);
        err.fields = match &e {
            E::InvalidTensor { tensor, .. }
            | E::DuplicateTensor { tensor }
            | E::UnknownOutput { tensor } => vec![("tensor", s(tensor))],
            E::UnknownAlias { tensor, target } => {
                vec![("tensor", s(tensor)), ("alias_of", s(target))]
            }
            E::ProducedTwice { tensor, first, .. } => {
                vec![("tensor", s(tensor)), ("op", s(first))]
            }
            E::UnknownTensor { op, tensor } => vec![("op", s(op)), ("tensor", s(tensor))],
            E::NotTopological { op, tensor, .. } => vec![("op", s(op)), ("tensor", s(tensor))],
            E::InvalidOp { op, .. }
            | E::DuplicateOp { op }
            | E::UnknownOp { op }
            | E::RepeatedOp { op }
            | E::MissingOp { op, .. } => vec![("op", s(op))],
            E::Cycle { ops } => vec![("ops", str_list(ops))],
            E::AliasCycle { tensors } => vec![("tensors", str_list(tensors))],
            E::RegionCycle { ops } => vec![("ops", str_list(ops))],
            E::BadRegion { region, .. } => vec![("region", s(region))],
            E::BadCsv { line, .. } => vec![("line", JsValue::from_f64(*line as f64))],
            E::PeakLimit { limit, best } => {
                byte_fields(&[("limit_bytes", *limit), ("best_bytes", *best)])
            }
            // The plan's names for the same numbers (docs/design.md §3), so that a caller can
            // read the least limit off the error and plan again with it.
            E::Infeasible {
                limit,
                least,
                bound,
                op,
            } => {
                let mut f = byte_fields(&[
                    ("limit_bytes", *limit),
                    ("least_limit_bytes", *least),
                    ("least_limit_lower_bound_bytes", *bound),
                ]);
                f.extend(op.iter().map(|op| ("op", s(op))));
                f
            }
            E::NotRecomputable { op, runs } => {
                vec![("op", s(op)), ("runs", JsValue::from_f64(*runs as f64))]
            }
            E::StaleView { op, tensor, base } => {
                let mut f: Vec<_> = op.iter().map(|op| ("op", s(op))).collect();
                f.extend([("tensor", s(tensor)), ("alias_of", s(base))]);
                f
            }
            E::BadLimit { value, .. } => vec![("value", s(value))],
            // Other variants (and those added later) carry their details in the message.
            #[allow(unreachable_patterns)]
            _ => Vec::new(),
        };
        err
    }
}

impl From<JsErr> for JsValue {
    fn from(e: JsErr) -> JsValue {
        let err = js_sys::Error::new(&e.message);
        err.set_name("PeakorderError");
        let obj: &JsValue = err.as_ref();
        // Reflect::set only fails on frozen or exotic objects; a fresh Error is neither, and a
        // failure would only lose a detail field, so it is ignored rather than trapped on.
        let _ = js_sys::Reflect::set(obj, &"code".into(), &e.code.into());
        for (k, v) in &e.fields {
            let _ = js_sys::Reflect::set(obj, &JsValue::from_str(k), v);
        }
        err.into()
    }
}

type JsResult<T> = Result<T, JsErr>;

/// Runs `f` and turns its error into a thrown JS `Error`.
fn throwing<T>(f: impl FnOnce() -> JsResult<T>) -> Result<T, JsValue> {
    f().map_err(JsValue::from)
}

// ---------------------------------------------------------------------------------------------
// Inputs.

/// Text of a JS value: itself if a string, else `JSON.stringify` of it (`what` names it in errors).
fn json_text(value: &JsValue, what: &str, code: &'static str) -> JsResult<String> {
    if let Some(s) = value.as_string() {
        return Ok(s);
    }
    if value.is_undefined() || value.is_null() {
        return Err(JsErr::new(
            code,
            format!("{what} is missing: expected an object or JSON text"),
        ));
    }
    // JSON.stringify throws on BigInt and on cycles; it returns undefined for functions and
    // symbols. All three are bad input, not traps.
    let text = js_sys::JSON::stringify(value).map_err(|e| {
        let why = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "JSON.stringify failed".into());
        JsErr::new(code, format!("{what} cannot be converted to JSON: {why}"))
    })?;
    text.as_string().ok_or_else(|| {
        JsErr::new(
            code,
            format!("{what} cannot be converted to JSON: expected an object or JSON text"),
        )
    })
}

/// Parses and validates a graph. One parser for both forms: objects go through `JSON.stringify`
/// so that JS callers and the CLI see exactly the same validation and the same errors.
fn read_graph(graph: &JsValue) -> JsResult<Graph> {
    let text = json_text(graph, "the graph", "bad_json")?;
    // JSON.stringify writes a NaN or infinite `cost` as null, which the format reads as "not
    // given" (cost 1): such a cost is refused here, as the core refuses it in a spec built in
    // code. Only looked for when the text has a null cost at all.
    if graph.as_string().is_none() && text.contains("\"cost\":null") {
        non_finite_cost(graph)?;
    }
    Ok(Graph::from_json(&text)?)
}

/// The core's `invalid_op` for the first op of a graph object whose `cost` is a number that is
/// not finite (NaN, ±Infinity).
fn non_finite_cost(graph: &JsValue) -> JsResult<()> {
    let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k)).ok();
    let Some(ops) = get(graph, "ops").filter(js_sys::Array::is_array) else {
        return Ok(());
    };
    for (i, op) in js_sys::Array::from(&ops).iter().enumerate() {
        let Some(cost) = get(&op, "cost").and_then(|c| c.as_f64()) else {
            continue;
        };
        if !cost.is_finite() {
            let id = get(&op, "id")
                .and_then(|id| id.as_string())
                .unwrap_or_else(|| format!("#{i}"));
            return Err(peakorder::Error::InvalidOp {
                op: id,
                reason: format!("`cost` must be a finite non-negative number, got {cost}"),
            }
            .into());
        }
    }
    Ok(())
}

/// An options object as a JSON map; `None` when not given. Read through JSON text like the
/// graph: `JSON.stringify` is the one JS call, and it reports throwing getters, proxies, BigInts
/// and cycles as errors (an exception unwinding through wasm frames would skip Rust's clean-up
/// instead). NaN and Infinity become `null` in JSON, so `null` is refused rather than read as
/// "not given".
fn options_map(options: &JsValue) -> JsResult<Option<serde_json::Map<String, serde_json::Value>>> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    let not_object = || JsErr::invalid("options must be an object");
    if options.as_string().is_some() {
        return Err(not_object());
    }
    let text = json_text(options, "the options", codes::INVALID_ARGUMENT)?;
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(map)) => canonical_keys(map).map(Some),
        _ => Err(not_object()),
    }
}

/// The JS API's option names are camelCase (docs/wasm.md "Names"); the readers below match the
/// core's snake_case names, so camelCase keys are renamed here. The old snake_case names keep
/// working for one release, with one console warning per name; one option given in both
/// spellings is refused. Other keys pass through (the reader refuses them by name).
const CAMEL: [(&str, &str); 7] = [
    ("budgetMs", "budget_ms"),
    ("maxStates", "max_states"),
    ("maxMemoryMb", "max_memory_mb"),
    ("memoryLimitBytes", "memory_limit_bytes"),
    ("recomputeMethod", "recompute_method"),
    ("peakLimit", "peak_limit"),
    ("planMethod", "plan_method"),
];

/// The camelCase name of a snake_case option (itself for the others): messages use these.
fn camel(key: &str) -> &str {
    CAMEL
        .iter()
        .find(|(_, s)| *s == key)
        .map_or(key, |(c, _)| c)
}

fn canonical_keys(
    map: serde_json::Map<String, serde_json::Value>,
) -> JsResult<serde_json::Map<String, serde_json::Value>> {
    let mut out = serde_json::Map::new();
    for (key, value) in map {
        let snake = match CAMEL.iter().find(|(c, s)| *c == key || *s == key) {
            Some(&(c, s)) => {
                if key == s {
                    deprecated(s, c);
                }
                s.to_string()
            }
            None => key,
        };
        if out.insert(snake.clone(), value).is_some() {
            return Err(JsErr::invalid(format!(
                "options: {} is given twice (as {} and {snake})",
                camel(&snake),
                camel(&snake)
            )));
        }
    }
    Ok(out)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
}

thread_local! {
    static WARNED: std::cell::RefCell<Vec<&'static str>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Warns once per module instance that `old` is deprecated in favour of `new`.
fn deprecated(old: &'static str, new: &'static str) {
    let first = WARNED.with(|w| {
        let mut w = w.borrow_mut();
        let first = !w.contains(&old);
        if first {
            w.push(old);
        }
        first
    });
    if first && cfg!(target_arch = "wasm32") {
        console_warn(&format!(
            "peakorder: option {old} is deprecated, use {new} (snake_case options are removed in \
             the next release)"
        ));
    }
}

fn budget_ms_option(value: &serde_json::Value) -> JsResult<f64> {
    match value.as_f64() {
        Some(b) if b >= 0.0 => Ok(b),
        _ => Err(JsErr::invalid(
            "options: budgetMs must be a finite number >= 0",
        )),
    }
}

fn whole_option(key: &str, value: &serde_json::Value) -> JsResult<u64> {
    value.as_u64().ok_or_else(|| {
        JsErr::invalid(format!(
            "options: {} must be a whole number >= 0 below 2^64",
            camel(key)
        ))
    })
}

fn unknown_option(key: &str, known: &str) -> JsErr {
    JsErr::invalid(format!(
        "options: unknown option {}: expected one of {known}",
        peakorder::error::show_id(camel(key))
    ))
}

/// `memory_limit_bytes`: a whole number of bytes, or text with a unit (`"64MiB"`) read by the
/// core's [`peakorder::units::parse_bytes`]. Anything else is the core's `bad_limit`.
fn limit_option(value: &serde_json::Value) -> JsResult<u64> {
    let bad = |reason: &str| {
        JsErr::from(peakorder::Error::BadLimit {
            value: match value {
                serde_json::Value::String(s) => s.clone(),
                // JSON.stringify wrote NaN and the infinities as null.
                serde_json::Value::Null => "null (NaN, Infinity or null)".into(),
                v => v.to_string(),
            },
            reason: reason.into(),
        })
    };
    match value {
        serde_json::Value::String(text) => Ok(peakorder::units::parse_bytes(text)?),
        serde_json::Value::Number(n) => n.as_u64().ok_or_else(|| {
            bad("expected a whole number of bytes >= 0 below 2^64, or text with a unit (\"64MiB\")")
        }),
        _ => Err(bad(
            "expected a whole number of bytes, or text with a unit (\"64MiB\", \"8GiB\")",
        )),
    }
}

/// `{method?, budget_ms?, max_states?, max_memory_mb?, memory_limit_bytes?, recompute_method?}`
/// (`method` and the memory limit only where `allow_method`: `plan`, not `compare`).
fn read_options(options: &JsValue, allow_method: bool) -> JsResult<PlanOptions> {
    let mut opts = PlanOptions::default();
    let Some(map) = options_map(options)? else {
        return Ok(opts);
    };
    let known = if allow_method {
        "method, budgetMs, maxStates, maxMemoryMb, memoryLimitBytes, recomputeMethod"
    } else {
        "budgetMs, maxStates, maxMemoryMb"
    };
    let mut recompute_given = false;
    for (key, value) in &map {
        match key.as_str() {
            "method" if allow_method => {
                let name = value
                    .as_str()
                    .ok_or_else(|| JsErr::invalid("options: method must be a string"))?;
                opts.method = name.parse::<Method>()?;
            }
            "memory_limit_bytes" if allow_method => opts.memory_limit = Some(limit_option(value)?),
            "recompute_method" if allow_method => {
                let name = value
                    .as_str()
                    .ok_or_else(|| JsErr::invalid("options: recomputeMethod must be a string"))?;
                opts.recompute_method = name.parse::<RecomputeMethod>()?;
                recompute_given = true;
            }
            "budget_ms" => opts.budget_ms = Some(budget_ms_option(value)?),
            "max_states" => opts.max_states = whole_option(key, value)?,
            "max_memory_mb" => {
                opts.max_memory_bytes = whole_option(key, value)?.saturating_mul(1 << 20);
            }
            _ => return Err(unknown_option(key, known)),
        }
    }
    // It chooses how a limit is met: refused, not ignored, without one (as the CLI's flag).
    if recompute_given && opts.memory_limit.is_none() {
        return Err(JsErr::invalid(
            "options: recomputeMethod applies with memoryLimitBytes",
        ));
    }
    Ok(opts)
}

/// `{peak_limit?, budget_ms?, max_states?}` of `fuse`; the defaults are the core's (the CLI's).
fn read_fuse_options(options: &JsValue) -> JsResult<FuseOptions> {
    let mut opts = FuseOptions::default();
    let Some(map) = options_map(options)? else {
        return Ok(opts);
    };
    for (key, value) in &map {
        match key.as_str() {
            "peak_limit" => opts.peak_limit = Some(whole_option(key, value)?),
            "budget_ms" => opts.budget_ms = Some(budget_ms_option(value)?),
            "max_states" => opts.max_states = whole_option(key, value)?,
            _ => return Err(unknown_option(key, "peakLimit, budgetMs, maxStates")),
        }
    }
    Ok(opts)
}

/// An order: an array of op ids, or an object with an `order` array (a plan), or JSON text of
/// either (the same forms as the CLI's `simulate ORDER`), as op ids.
fn read_order_ids(order: &JsValue) -> JsResult<Vec<String>> {
    const SHAPE: &str = "the order must be an array of op ids or a plan with an \"order\" array";
    let text = json_text(order, "the order", codes::INVALID_ARGUMENT)?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| JsErr::new("bad_json", format!("bad JSON in the order: {e}")))?;
    let list = match value {
        serde_json::Value::Array(_) => value,
        serde_json::Value::Object(mut o) => {
            o.remove("order").ok_or_else(|| JsErr::invalid(SHAPE))?
        }
        _ => return Err(JsErr::invalid(SHAPE)),
    };
    serde_json::from_value(list).map_err(|_| JsErr::invalid(SHAPE))
}

/// An order (each op once), checked against `g`.
fn read_order(g: &Graph, order: &JsValue) -> JsResult<Vec<peakorder::OpIx>> {
    Ok(g.order_from_ids(&read_order_ids(order)?)?)
}

/// A schedule (an op may run more than once: docs/design.md §1), checked against `g`.
fn read_schedule(g: &Graph, schedule: &JsValue) -> JsResult<Vec<peakorder::OpIx>> {
    Ok(g.schedule_from_ids(&read_order_ids(schedule)?)?)
}

// ---------------------------------------------------------------------------------------------
// Outputs.

/// Plain JS objects (no Maps), `null` for `None` like the CLI's JSON, byte counts as numbers.
fn to_js<T: Serialize>(x: &T) -> JsResult<JsValue> {
    x.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| {
            JsErr::new(
                codes::TOO_LARGE,
                format!(
                    "a result does not fit in JavaScript numbers exactly (byte counts must stay \
                     below 2^53): {e}"
                ),
            )
        })
}

// ---------------------------------------------------------------------------------------------
// The clock.

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// `performance.now()` (Node 16+, browsers, workers), or `Date.now()` where it is missing.
struct JsClock {
    has_performance: bool,
}

impl JsClock {
    fn new() -> JsClock {
        let global = js_sys::global();
        let has_performance = js_sys::Reflect::get(&global, &"performance".into())
            .ok()
            .filter(|p| p.is_object())
            .and_then(|p| js_sys::Reflect::get(&p, &"now".into()).ok())
            .is_some_and(|f| f.is_function());
        JsClock { has_performance }
    }
}

impl Clock for JsClock {
    fn now_ms(&self) -> f64 {
        if self.has_performance {
            performance_now()
        } else {
            js_sys::Date::now()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The API.

/// What `validate` reports about a valid graph.
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
    /// Peak of the file's order; `null` when the file's order is not topological.
    program_order_peak_bytes: Option<u64>,
    /// Every op's outputs feed at most one other op.
    in_forest: bool,
}

/// Parses and validates `graph`; throws a coded `Error` naming the offending op or tensor.
#[wasm_bindgen]
pub fn validate(graph: &GraphInput) -> Result<SummaryOut, JsValue> {
    throwing(|| {
        let g = read_graph(graph)?;
        let program_order_peak_bytes = peakorder::order::program::program_order(&g)
            .ok()
            .map(|o| peakorder::peak_of(&g, &o));
        let summary = Summary {
            format: peakorder::format::FORMAT,
            ops: g.num_ops(),
            tensors: g.num_tensors(),
            inputs: g.tensors().iter().filter(|t| t.producer.is_none()).count(),
            outputs: g.outputs().len(),
            inputs_bytes: g.inputs_bytes(),
            lower_bound_bytes: peakorder::lower_bound(&g),
            program_order_peak_bytes,
            in_forest: g.is_in_forest(),
        };
        Ok(to_js(&summary)?.unchecked_into())
    })
}

/// Plans an order for `graph` (docs/design.md §3). Options: `method` (default "auto", the core's),
/// `budget_ms` (time a search may take, read from `performance.now()`), `max_states`,
/// `max_memory_mb`, and `memory_limit_bytes` (a number or text such as "64MiB") with
/// `recompute_method`: the schedule within the limit that recomputes least (docs/design.md §3).
#[wasm_bindgen]
pub fn plan(graph: &GraphInput, options: Option<PlanOptionsArg>) -> Result<PlanOut, JsValue> {
    throwing(|| {
        let g = read_graph(graph)?;
        let opts = read_options(&options.map_or(JsValue::UNDEFINED, Into::into), true)?;
        let plan = peakorder::plan(&g, &opts, &JsClock::new())?;
        Ok(to_js(&plan)?.unchecked_into())
    })
}

/// Simulates `order` on `graph`: the docs/design.md §5 simulate JSON, plus `during` and `after`
/// (`Float64Array`, bytes at each step) for charts. `order` may be a schedule, in which an op
/// runs more than once (docs/design.md §1 "Recomputation"): a plan with a memory limit.
#[wasm_bindgen]
pub fn simulate(graph: &GraphInput, order: &OrderInput) -> Result<SimulationOut, JsValue> {
    throwing(|| {
        let g = read_graph(graph)?;
        let schedule = read_schedule(&g, order)?;
        let sim = peakorder::recompute::simulate_schedule(&g, &schedule)?;
        let out = to_js(&sim)?;
        // u64 -> f64 is exact below 2^53; `to_js` above already refused anything larger.
        let during: Vec<f64> = sim.steps.iter().map(|s| s.during_bytes as f64).collect();
        let after: Vec<f64> = sim.steps.iter().map(|s| s.after_bytes as f64).collect();
        let _ = js_sys::Reflect::set(
            &out,
            &"during".into(),
            &js_sys::Float64Array::from(&during[..]),
        );
        let _ = js_sys::Reflect::set(
            &out,
            &"after".into(),
            &js_sys::Float64Array::from(&after[..]),
        );
        Ok(out.unchecked_into())
    })
}

/// Every method side by side (the `compare --json` shape). Options: `budget_ms`, `max_states`.
#[wasm_bindgen]
pub fn compare(
    graph: &GraphInput,
    options: Option<CompareOptionsArg>,
) -> Result<ComparisonOut, JsValue> {
    throwing(|| {
        let g = read_graph(graph)?;
        let opts = read_options(&options.map_or(JsValue::UNDEFINED, Into::into), false)?;
        let cmp = peakorder::compare(&g, &opts, &JsClock::new());
        Ok(to_js(&cmp)?.unchecked_into())
    })
}

/// Memory-aware fusion next to the Thunder-style baseline (docs/design.md §4): the `fuse --json`
/// object. Options: `peak_limit` (bytes; default the best unfused peak), `budget_ms` (for the
/// whole search, default 2000), `max_states`.
#[wasm_bindgen]
pub fn fuse(graph: &GraphInput, options: Option<FuseOptionsArg>) -> Result<FusionOut, JsValue> {
    throwing(|| {
        let g = read_graph(graph)?;
        let opts = read_fuse_options(&options.map_or(JsValue::UNDEFINED, Into::into))?;
        let fusion = peakorder::fusion::run(&g, &opts, &JsClock::new())?;
        Ok(to_js(&fusion)?.unchecked_into())
    })
}

/// The core's memory-model tables of `graph`, so that views draw the sizes and lifetimes the
/// simulator uses instead of re-deriving them (docs/design.md §1): per tensor, in file order, `bytes`
/// (its storage's size; 0 for a view), `root` (the tensor whose storage it lives in) and `pinned`
/// (1: never freed); the ops that keep each storage alive as `users[users_start[t] ..
/// users_start[t + 1]]` (op indices in file order).
#[wasm_bindgen]
pub fn storages(graph: &GraphInput) -> Result<StoragesOut, JsValue> {
    throwing(|| {
        let g = read_graph(graph)?;
        let n = g.num_tensors() as u32;
        let mut bytes = Vec::with_capacity(n as usize);
        for t in 0..n {
            let b = g.size(t);
            if b > MAX_SAFE {
                return Err(JsErr::new(
                    codes::TOO_LARGE,
                    format!(
                        "tensor {} has {b} bytes, more than a JavaScript number holds exactly",
                        peakorder::error::show_id(&g.tensors()[t as usize].id)
                    ),
                ));
            }
            bytes.push(b as f64);
        }
        let root: Vec<u32> = g.tensors().iter().map(|t| t.root).collect();
        let pinned: Vec<u8> = (0..n).map(|t| u8::from(g.pinned(t))).collect();
        let mut users_start = Vec::with_capacity(n as usize + 1);
        let mut users = Vec::new();
        users_start.push(0u32);
        for t in 0..n {
            users.extend_from_slice(g.users(t));
            users_start.push(users.len() as u32);
        }
        let out = js_sys::Object::new();
        let fields: [(&str, JsValue); 5] = [
            ("bytes", js_sys::Float64Array::from(&bytes[..]).into()),
            ("root", js_sys::Uint32Array::from(&root[..]).into()),
            ("pinned", js_sys::Uint8Array::from(&pinned[..]).into()),
            (
                "users_start",
                js_sys::Uint32Array::from(&users_start[..]).into(),
            ),
            ("users", js_sys::Uint32Array::from(&users[..]).into()),
        ];
        for (k, v) in fields {
            // A fresh plain object: setting a field cannot fail.
            let _ = js_sys::Reflect::set(&out, &k.into(), &v);
        }
        Ok(JsValue::from(out).unchecked_into())
    })
}

/// `layout`'s options, read like the others: unknown keys and wrong types are refused.
struct LayoutArgs {
    opts: peakorder::LayoutOptions,
    plan_method: peakorder::Method,
    order: Option<serde_json::Value>,
    slack: f64,
    /// Whether `slack` or `plan_method` was given: they need a planned order.
    planning: bool,
}

fn read_layout_options(options: &JsValue) -> JsResult<LayoutArgs> {
    let mut a = LayoutArgs {
        opts: peakorder::LayoutOptions::default(),
        plan_method: PlanOptions::default().method,
        order: None,
        slack: 0.0,
        planning: false,
    };
    let Some(map) = options_map(options)? else {
        return Ok(a);
    };
    const KNOWN: &str = "order, method, planMethod, align, budgetMs, maxStates, capacity, slack";
    for (key, value) in map {
        match key.as_str() {
            "order" => a.order = Some(value),
            "method" | "plan_method" => {
                let name = value.as_str().ok_or_else(|| {
                    JsErr::invalid(format!("options: {} must be a string", camel(&key)))
                })?;
                if key == "method" {
                    a.opts.method = name.parse()?;
                } else {
                    a.plan_method = name.parse()?;
                    a.planning = true;
                }
            }
            "align" => match whole_option(&key, &value)? {
                0 => return Err(JsErr::invalid("options: align must be at least 1")),
                n => a.opts.align = n,
            },
            "budget_ms" => a.opts.budget_ms = Some(budget_ms_option(&value)?),
            "max_states" => a.opts.max_states = whole_option(&key, &value)?,
            "capacity" => a.opts.capacity = Some(whole_option(&key, &value)?),
            "slack" => match value.as_f64() {
                Some(x) if x >= 0.0 => {
                    a.slack = x;
                    a.planning = true;
                }
                _ => return Err(JsErr::invalid("options: slack must be a number >= 0")),
            },
            _ => return Err(unknown_option(&key, KNOWN)),
        }
    }
    Ok(a)
}

/// A static memory layout (docs/layout.md; the `peakorder layout --json` object): a byte offset
/// for every tensor and workspace in one arena. `input` is a graph (its order planned, or
/// `options.order`) or MiniMalloc CSV text. Options: `order`, `method` (default "auto"),
/// `plan_method`, `align` (default 1), `budget_ms` (default 1000; planning takes a tenth),
/// `max_states`, `capacity` (stop at the first layout within it), `slack`.
#[wasm_bindgen]
pub fn layout(
    input: &LayoutInput,
    options: Option<LayoutOptionsArg>,
) -> Result<LayoutOut, JsValue> {
    throwing(|| {
        let a = read_layout_options(&options.map_or(JsValue::UNDEFINED, Into::into))?;
        let clock = JsClock::new();
        let hooks = peakorder::Hooks::default();
        if let Some(text) = input
            .as_string()
            .filter(|t| !t.trim_start().starts_with('{'))
        {
            if a.order.is_some() {
                return Err(JsErr::invalid(
                    "options: order applies to graphs; a CSV's lifetimes are fixed",
                ));
            }
            if a.planning {
                return Err(JsErr::invalid(
                    "options: slack and planMethod apply to graphs; a CSV's lifetimes are fixed",
                ));
            }
            let iv = peakorder::layout::csv::parse(&text)?;
            let l = peakorder::layout::layout_intervals(&iv, &a.opts, &clock, &hooks)?;
            return Ok(to_js(&l)?.unchecked_into());
        }
        let g = read_graph(input)?;
        if a.order.is_some() && a.planning {
            return Err(JsErr::invalid(
                "options: slack and planMethod apply to a planned order; order is laid out as given",
            ));
        }
        let l = match a.order {
            Some(order) => {
                let order = read_order(&g, &JsValue::from_str(&order.to_string()))?;
                peakorder::layout(&g, &order, &a.opts, &clock)?
            }
            None => peakorder::layout::plan_then_layout(
                &g,
                a.plan_method,
                &a.opts,
                a.slack,
                &clock,
                &hooks,
            )?,
        };
        Ok(to_js(&l)?.unchecked_into())
    })
}

/// The package version (the workspace version of the crates).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
