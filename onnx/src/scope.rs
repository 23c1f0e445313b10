//! `meta.scope` of an op: the module path an exporter recorded for its node, as `a/b/c`, for the
//! page's grouped view (docs/import.md).
//!
//! - `torch.onnx.export(..., dynamo=False)` names nodes by module path: `/layer1/layer1.0/conv1/Conv`
//!   has scope `layer1/layer1.0/conv1` (the last part is the op's own name).
//! - The dynamo exporter names nodes `node_Conv_0` and records the path in the node's
//!   `pkg.torch.onnx.name_scopes` metadata, a Python list such as
//!   `['', 'layer1', 'layer1.0', 'conv1']` whose last entry is the op's own name; its entries
//!   are each module's qualified name: scope `layer1/layer1.0`.

use super::proto::NodeProto;

pub fn scope(n: &NodeProto) -> Option<String> {
    let meta = n
        .metadata_props
        .iter()
        .find(|p| p.key.as_deref() == Some("pkg.torch.onnx.name_scopes"))
        .and_then(|p| p.value.as_deref());
    if let Some(list) = meta.and_then(python_str_list) {
        let parts: Vec<&str> = list[..list.len().saturating_sub(1)]
            .iter()
            .map(|s| s.as_str())
            .filter(|s| !s.is_empty())
            .collect();
        return (!parts.is_empty()).then(|| parts.join("/"));
    }
    let name = n.name.as_deref()?.strip_prefix('/')?;
    let (path, _own) = name.rsplit_once('/')?;
    (!path.is_empty()).then(|| path.to_string())
}

/// Parses a Python list of string literals (`['', 'a', "b'c"]`); `None` if it is not one.
fn python_str_list(s: &str) -> Option<Vec<String>> {
    let inner = s.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            chars.next();
        }
        let Some(q) = chars.next() else {
            return Some(out);
        };
        if q != '\'' && q != '"' {
            return None;
        }
        let mut item = String::new();
        loop {
            match chars.next()? {
                '\\' => item.push(chars.next()?),
                c if c == q => break,
                c => item.push(c),
            }
        }
        out.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::StringStringEntryProto;

    fn node(name: &str, scopes: Option<&str>) -> NodeProto {
        NodeProto {
            name: Some(name.into()),
            metadata_props: scopes
                .map(|v| StringStringEntryProto {
                    key: Some("pkg.torch.onnx.name_scopes".into()),
                    value: Some(v.into()),
                })
                .into_iter()
                .collect(),
            ..NodeProto::default()
        }
    }

    #[test]
    fn scopes_from_names_and_metadata() {
        let s = |n: &str, m| scope(&node(n, m));
        assert_eq!(
            s("/layer1/layer1.0/conv1/Conv", None).as_deref(),
            Some("layer1/layer1.0/conv1")
        );
        assert_eq!(s("/Flatten", None), None);
        assert_eq!(s("Conv_0", None), None);
        assert_eq!(s("", None), None);
        assert_eq!(
            s("node_Conv_3", Some("['', 'layer1', 'layer1.0', 'conv']")).as_deref(),
            Some("layer1/layer1.0")
        );
        assert_eq!(s("node_view", Some("['', 'view']")), None);
        assert_eq!(
            s("n", Some(r#"['', "it's", 'x']"#)).as_deref(),
            Some("it's")
        );
        // Not a list: the name decides.
        assert_eq!(s("/a/b", Some("nonsense")).as_deref(), Some("a"));
    }
}
