//! The JSON graph format of docs/design.md §2, as serde types.
//!
//! Parsing goes in two steps so that an error can name the object it is in: the top level is read
//! with each tensor and op kept as raw JSON text, then every object is read on its own. Structs
//! deny unknown fields (a typo must not be silently ignored) and serde's derive rejects duplicate
//! keys; serde_json's recursion limit turns absurdly nested input into an error, not a stack
//! overflow.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{show_id, Error};

/// The only accepted value of `format`.
pub const FORMAT: &str = "peakorder/1";

/// A tensor as written in the file.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TensorSpec {
    /// Unique among the tensors.
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Its size, for a tensor not given by `shape` + `dtype`.
    pub bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Its shape (with `dtype`).
    pub shape: Option<Vec<u64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Its element type, spelled as in [`crate::dtype::DTYPE_NAMES`].
    pub dtype: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The tensor this one is a view of.
    pub alias_of: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// A graph input the planner may free once its last reader ran.
    pub donated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The user's own data, carried through untouched.
    pub meta: Option<Map<String, Value>>,
}

/// An op as written in the file.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OpSpec {
    /// Unique among the ops.
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// What it computes (for executors and the page; planners ignore it).
    pub kind: Option<String>,
    #[serde(default)]
    /// Tensors it reads (a repeat counts once).
    pub inputs: Vec<String>,
    #[serde(default)]
    /// Tensors it produces.
    pub outputs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Scratch bytes it needs while it runs.
    pub workspace: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The fusion group it may be fused with (docs/design.md §4).
    pub fusible: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Attributes for executors; planners ignore them.
    pub attrs: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// What running it once costs (FLOPs, time, anything additive; default 1): the recompute
    /// planner minimizes the sum over repeated runs (docs/design.md §1).
    pub cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// `false` for an op that must run exactly once (random numbers, in-place writes, side
    /// effects); default true.
    pub recompute: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The user's own data, carried through untouched.
    pub meta: Option<Map<String, Value>>,
}

impl OpSpec {
    /// Its `cost`, 1 when absent; a negative or non-finite one is an error naming the op
    /// (serde_json never yields NaN or an infinity, but a spec built in code can).
    pub fn checked_cost(&self) -> Result<f64, Error> {
        let cost = self.cost.unwrap_or(1.0);
        if !cost.is_finite() || cost < 0.0 {
            return Err(Error::InvalidOp {
                op: self.id.clone(),
                reason: format!("`cost` must be a finite non-negative number, got {cost}"),
            });
        }
        Ok(cost)
    }
}

/// A whole graph file.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct GraphSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    /// `peakorder/1` when present.
    pub format: Option<String>,
    /// Every tensor an op names.
    pub tensors: Vec<TensorSpec>,
    /// The ops, in program order.
    pub ops: Vec<OpSpec>,
    /// Graph outputs: live to the end.
    pub outputs: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The user's own data, carried through untouched.
    pub meta: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGraph<'a> {
    #[serde(default)]
    format: Option<String>,
    #[serde(default, borrow)]
    tensors: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    ops: Vec<&'a RawValue>,
    #[serde(default)]
    outputs: Vec<String>,
    #[serde(default)]
    meta: Option<Map<String, Value>>,
}

/// Best effort at the `id` of an object that failed to parse, to name it in the error.
fn id_hint(raw: &RawValue) -> String {
    #[derive(Deserialize)]
    struct IdOnly {
        id: String,
    }
    match serde_json::from_str::<IdOnly>(raw.get()) {
        Ok(x) => format!(" {}", show_id(&x.id)),
        Err(_) => String::new(),
    }
}

fn strip_position(e: &serde_json::Error) -> String {
    // serde_json appends " at line L column C", which is relative to the object, not the file.
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

impl GraphSpec {
    /// Parses graph JSON text.
    pub fn from_json(text: &str) -> Result<GraphSpec, Error> {
        // serde would read a struct from a JSON array too; a graph is an object, say so plainly.
        if !text.trim_start().starts_with('{')
            && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
        {
            return Err(Error::BadJson {
                context: String::new(),
                message: "a graph must be a JSON object with \"tensors\" and \"ops\"".into(),
            });
        }
        let raw: RawGraph = serde_json::from_str(text).map_err(|e| Error::BadJson {
            context: String::new(),
            message: e.to_string(),
        })?;
        let mut tensors = Vec::with_capacity(raw.tensors.len());
        for (i, t) in raw.tensors.iter().enumerate() {
            let spec: TensorSpec = serde_json::from_str(t.get()).map_err(|e| Error::BadJson {
                context: format!("tensor #{i}{}", id_hint(t)),
                message: strip_position(&e),
            })?;
            tensors.push(spec);
        }
        let mut ops = Vec::with_capacity(raw.ops.len());
        for (i, o) in raw.ops.iter().enumerate() {
            let spec: OpSpec = serde_json::from_str(o.get()).map_err(|e| Error::BadJson {
                context: format!("op #{i}{}", id_hint(o)),
                message: strip_position(&e),
            })?;
            ops.push(spec);
        }
        Ok(GraphSpec {
            format: raw.format,
            tensors,
            ops,
            outputs: raw.outputs,
            meta: raw.meta,
        })
    }

    /// Serialises back to JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a GraphSpec always serialises")
    }
}
