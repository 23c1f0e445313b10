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

/// Reads an order or a schedule (an order in which an op may appear more than once,
/// docs/design.md §1, "Recomputation"): a JSON array of op ids, or an object with an `order`
/// array (a plan). Without repeats it is checked as an order (a missing op, one before its
/// producer); with them it is checked as a schedule (an op
/// with `recompute: false` run twice is `not_recomputable`, a view read after its storage was
/// computed again is `stale_view`, both naming the op).
pub fn read_schedule(g: &Graph, path: &Path) -> Result<Vec<OpIx>, CliError> {
    let ids = read_ids(path)?;
    let mut seen = std::collections::HashSet::new();
    if ids.iter().all(|id| seen.insert(id.as_str())) {
        g.order_from_ids(&ids).map_err(|e| bad_in(path, e))
    } else {
        g.schedule_from_ids(&ids).map_err(|e| bad_in(path, e))
    }
}

/// True when some op appears more than once.
pub fn has_repeats(schedule: &[OpIx]) -> bool {
    let mut seen = std::collections::HashSet::new();
    !schedule.iter().all(|v| seen.insert(*v))
}

/// Bad input in the order file at `path`, named in the message.
fn bad_in(path: &Path, m: impl std::fmt::Display) -> CliError {
    CliError::Input(format!("{}: {m}", path.display()))
}

/// The op ids of an order file.
pub fn read_ids(path: &Path) -> Result<Vec<String>, CliError> {
    let text = read_text(path)?;
    let bad = |m: String| bad_in(path, m);
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
    Ok(ids)
}
