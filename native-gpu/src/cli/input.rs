//! Reading graphs and orders from files or stdin.

use std::io::Read;
use std::path::Path;

use peakorder::{Graph, OpIx};

use super::CliError;

/// Reads a file, or stdin for `-`.
pub fn read_text(path: &Path) -> Result<String, CliError> {
    let mut text = String::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::Input(format!("cannot read stdin: {e}")))?;
    } else {
        text = std::fs::read_to_string(path)
            .map_err(|e| CliError::Input(format!("cannot read {}: {e}", path.display())))?;
    }
    Ok(text)
}

/// Reads and validates a graph.
pub fn read_graph(path: &Path) -> Result<Graph, CliError> {
    let text = read_text(path)?;
    Graph::from_json(&text).map_err(|e| CliError::Input(format!("{}: {e}", path.display())))
}

/// Reads an order: a JSON array of op ids, or an object with an `order` array (a plan).
pub fn read_order(g: &Graph, path: &Path) -> Result<Vec<OpIx>, CliError> {
    let text = read_text(path)?;
    let bad = |m: String| CliError::Input(format!("{}: {m}", path.display()));
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("bad JSON: {e}")))?;
    let list = match &value {
        serde_json::Value::Array(_) => &value,
        serde_json::Value::Object(o) => o.get("order").ok_or_else(|| {
            bad("expected an array of op ids or a plan with an \"order\" field".into())
        })?,
        _ => {
            return Err(bad(
                "expected an array of op ids or a plan with an \"order\" field".into(),
            ))
        }
    };
    let ids: Vec<String> = serde_json::from_value(list.clone())
        .map_err(|_| bad("the order must be an array of op id strings".into()))?;
    g.order_from_ids(&ids).map_err(|e| bad(e.to_string()))
}
