//! The page template and how it is filled. The template (`www/dist/report.html`) already
//! inlines the view's scripts, styles and the wasm planner (base64); filling it puts in the
//! graph, the options and the plan's text.

use std::path::Path;

/// The template embedded at build time (empty when the web bundle was not built; see build.rs).
const EMBEDDED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/report-template.html"));

/// Environment variable naming a template to use instead of the embedded one.
pub const TEMPLATE_ENV: &str = "PEAKORDER_REPORT_TEMPLATE";

const PLACEHOLDERS: [&str; 4] = [
    "__PEAKORDER_TITLE__",
    "__PEAKORDER_GRAPH__",
    "__PEAKORDER_OPTIONS__",
    "__PEAKORDER_NOSCRIPT__",
];

/// What fills the placeholders, as plain text; [`fill`] escapes each for its place.
pub struct Slots<'a> {
    pub title: &'a str,
    /// The graph's JSON text, as given.
    pub graph_json: &'a str,
    pub options_json: &'a str,
    pub noscript: &'a str,
}

/// The template: `$PEAKORDER_REPORT_TEMPLATE` when set, else the embedded one.
pub fn template() -> Result<String, String> {
    let bytes = match std::env::var_os(TEMPLATE_ENV) {
        Some(p) => std::fs::read(&p).map_err(|e| {
            format!(
                "cannot read {TEMPLATE_ENV}={}: {e}",
                Path::new(&p).display()
            )
        })?,
        None => EMBEDDED.to_vec(),
    };
    if bytes.is_empty() {
        return Err(format!(
            "this peakorder was built without the web view, so it cannot write reports. Build the \
             web bundle (scripts/build.d/50-web.sh, or `npm ci && npm run build && npm run \
             build:web`, which writes www/dist/report.html), then rebuild peakorder; or point \
             {TEMPLATE_ENV} at a built www/dist/report.html"
        ));
    }
    String::from_utf8(bytes).map_err(|_| "the report template is not UTF-8".to_string())
}

/// The filled page.
pub fn fill(template: &str, slots: &Slots) -> Result<String, String> {
    fill_raw(
        template,
        &[
            escape_html(slots.title),
            script_json(slots.graph_json),
            script_json(slots.options_json),
            escape_html(slots.noscript),
        ],
    )
}

/// Replaces each placeholder once, in one pass, so text inserted for one (a graph holding the
/// string `__PEAKORDER_OPTIONS__`, say) is never rewritten by another.
fn fill_raw(template: &str, values: &[String; 4]) -> Result<String, String> {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(String::len).sum::<usize>());
    let mut rest = template;
    loop {
        let next = PLACEHOLDERS
            .iter()
            .enumerate()
            .filter_map(|(i, p)| rest.find(p).map(|at| (at, i)))
            .min();
        match next {
            Some((at, i)) => {
                out.push_str(&rest[..at]);
                out.push_str(&values[i]);
                rest = &rest[at + PLACEHOLDERS[i].len()..];
            }
            None => {
                out.push_str(rest);
                break;
            }
        }
    }
    if !out.contains("peakorder-graph") {
        return Err("the report template lacks the graph slot".into());
    }
    Ok(out)
}

/// JSON text safe inside `<script type="application/json">`: `<` only occurs inside JSON
/// strings, where `\u003c` means the same, so `</script>` and `<!--` cannot end the element.
fn script_json(json: &str) -> String {
    json.replace('<', "\\u003c")
}

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_is_one_pass() {
        let t = "a __PEAKORDER_GRAPH__ b __PEAKORDER_OPTIONS__ c __PEAKORDER_TITLE__ \
                 peakorder-graph __PEAKORDER_NOSCRIPT__";
        let out = fill_raw(
            t,
            &[
                "T".into(),
                "has __PEAKORDER_OPTIONS__ inside".into(),
                "O".into(),
                "N".into(),
            ],
        )
        .unwrap();
        assert_eq!(
            out,
            "a has __PEAKORDER_OPTIONS__ inside b O c T peakorder-graph N"
        );
    }

    #[test]
    fn json_cannot_close_the_script() {
        let s = script_json(r#"{"id": "</script><!--"}"#);
        assert!(!s.contains("</script") && !s.contains("<!--"));
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back["id"], "</script><!--");
    }
}
