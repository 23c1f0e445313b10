//! The ONNX importer and reorder for JavaScript: a thin wasm-bindgen layer over the crate
//! `peakorder-onnx`, built as a module of its own (`peakorder_onnx_bg.wasm`) so that the
//! planner's module stays within its size budget and pages that never open a model never load
//! it. The JS wrappers (js/onnx.*) read and check the caller's options (camelCase) and pass
//! them here as JSON text; results are the graph JSON text (the CLI's bytes) and the model's bytes.
//!
//! Nothing here may panic: every fallible step returns a coded error.

use std::collections::BTreeMap;

use serde_json::Value;
use wasm_bindgen::prelude::*;

/// A JS `Error` named `PeakorderError` with a stable `code` and, where the error names them,
/// `op` (the node) and `tensor`.
fn js_error(code: &str, message: &str, op: Option<&str>, tensor: Option<&str>) -> JsValue {
    let err = js_sys::Error::new(message);
    err.set_name("PeakorderError");
    let obj: &JsValue = err.as_ref();
    // Reflect::set only fails on frozen or exotic objects; a fresh Error is neither.
    let _ = js_sys::Reflect::set(obj, &"code".into(), &code.into());
    for (k, v) in [("op", op), ("tensor", tensor)] {
        if let Some(v) = v {
            let _ = js_sys::Reflect::set(obj, &k.into(), &v.into());
        }
    }
    err.into()
}

fn onnx_error(e: peakorder_onnx::Error) -> JsValue {
    js_error(e.code(), &e.to_string(), e.node(), e.tensor())
}

fn invalid(message: &str) -> JsValue {
    js_error("invalid_argument", message, None, None)
}

/// `importOnnx`'s options, read from the JSON text of the caller's object: `assumeDims`
/// (symbolic dimension -> value, as the CLI's `--assume-dim`), `name` (the file's name, for
/// `meta.model`, as the CLI writes it), `format` (`"object"` or `"text"`, used by the JS wrapper).
/// Unknown keys are refused, a snake_case one with the camelCase name to use.
fn import_options(text: &str) -> Result<(BTreeMap<String, u64>, Option<String>), JsValue> {
    let v: Value = serde_json::from_str(text).map_err(|e| invalid(&format!("options: {e}")))?;
    let Value::Object(o) = v else {
        return Err(invalid("options must be an object"));
    };
    let mut dims = BTreeMap::new();
    let mut name = None;
    for (k, v) in &o {
        match (k.as_str(), v) {
            ("assumeDims", Value::Object(m)) => {
                for (d, x) in m {
                    let n = x
                        .as_u64()
                        .filter(|&n| n <= i64::MAX as u64)
                        .ok_or_else(|| {
                            invalid(&format!(
                                "assumeDims.{d} must be a whole number from 0 to 2^63-1, got {x}"
                            ))
                        })?;
                    dims.insert(d.clone(), n);
                }
            }
            ("assumeDims", _) => return Err(invalid("assumeDims must be an object")),
            ("name", Value::String(s)) => name = Some(s.clone()),
            ("name", _) => return Err(invalid("name must be a string")),
            ("format", Value::String(s)) if s == "object" || s == "text" => {}
            ("format", _) => return Err(invalid("format must be \"object\" or \"text\"")),
            ("assume_dims", _) => {
                return Err(invalid(
                    "unknown option assume_dims: the option is assumeDims",
                ))
            }
            (k, _) => {
                return Err(invalid(&format!(
                    "unknown option {k}: expected one of assumeDims, name, format"
                )))
            }
        }
    }
    Ok((dims, name))
}

/// The graph JSON text of an ONNX model, as `peakorder import onnx` writes it.
#[wasm_bindgen(js_name = importOnnxText)]
pub fn import_onnx_text(bytes: Vec<u8>, options: &str) -> Result<String, JsValue> {
    let (assume_dims, name) = import_options(options)?;
    let opts = peakorder_onnx::Options {
        assume_dims,
        external_data: None,
    };
    peakorder_onnx::import_json(bytes.into(), &opts, name.as_deref())
        .map(|i| i.text)
        .map_err(onnx_error)
}

/// The model with its nodes in `order` (JSON text of an array of op ids, or of a plan, whose
/// `order` is used), nothing else changed.
#[wasm_bindgen(js_name = reorderOnnx)]
pub fn reorder_onnx(bytes: Vec<u8>, order: &str) -> Result<Vec<u8>, JsValue> {
    let v: Value = serde_json::from_str(order).map_err(|e| invalid(&format!("order: {e}")))?;
    let list = match &v {
        Value::Array(a) => a,
        Value::Object(o) => match o.get("order") {
            Some(Value::Array(a)) => a,
            _ => return Err(invalid("order: a plan must have an order array")),
        },
        _ => return Err(invalid("order must be an array of op ids or a plan")),
    };
    let ids = list
        .iter()
        .map(|x| {
            x.as_str()
                .ok_or_else(|| invalid(&format!("order: {x} is not an op id")))
        })
        .collect::<Result<Vec<&str>, _>>()?;
    peakorder_onnx::reorder(bytes.into(), &ids).map_err(onnx_error)
}

/// The crate's version, to check that the two modules come from one build.
#[wasm_bindgen(js_name = onnxVersion)]
pub fn onnx_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
