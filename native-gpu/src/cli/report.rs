//! `peakorder report GRAPH [--method M] -o report.html`: one self-contained HTML page with the web
//! view (docs/web.md). The template (`www/dist/report.html`) already inlines the view's scripts,
//! styles and the wasm planner (base64); this fills in the graph and the options. The page plans
//! again when opened, with the same core compiled to wasm, so it needs no server and no network.

use std::path::{Path, PathBuf};

use clap::Args;

use super::input::read_text;
use super::plan::render;
use super::search_args::{MethodArg, SearchLimits};
use super::{CliError, StdClock};

/// `peakorder report GRAPH [--method M] -o report.html`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    #[command(flatten)]
    method: MethodArg,
    #[command(flatten)]
    limits: SearchLimits,
    /// The HTML file to write.
    #[arg(long, short)]
    output: PathBuf,
}

/// The template embedded at build time (empty when the web bundle was not built; see build.rs).
const EMBEDDED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/report-template.html"));

/// Environment variable naming a template to use instead of the embedded one.
const TEMPLATE_ENV: &str = "PEAKORDER_REPORT_TEMPLATE";

const PLACEHOLDERS: [&str; 4] = [
    "__PEAKORDER_TITLE__",
    "__PEAKORDER_GRAPH__",
    "__PEAKORDER_OPTIONS__",
    "__PEAKORDER_NOSCRIPT__",
];

pub fn run(a: ReportArgs) -> Result<(), CliError> {
    let (path, output) = (a.graph.as_path(), a.output.as_path());
    let text = read_text(path)?;
    let g = peakorder::Graph::from_json(&text)
        .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
    // Plan natively too: it checks the method now (not only when the page opens), and its
    // summary is the page's text for readers without JavaScript.
    let parsed = a.method.method()?;
    let opts = a.limits.plan_options(parsed);
    let plan = peakorder::plan(&g, &opts, &StdClock::new())?;
    let template = template()?;
    let title = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "graph".into());
    let options = serde_json::json!({
        "method": parsed.name(),
        "budget_ms": a.limits.budget_ms,
        "max_states": a.limits.max_states,
        "controls": false,
        "exampleLabel": title,
    });
    let html = fill(
        &template,
        &[
            escape_html(&title),
            script_json(&text),
            script_json(&options.to_string()),
            escape_html(&render(&plan)),
        ],
    )?;
    std::fs::write(output, html)
        .map_err(|e| CliError::Other(format!("cannot write {}: {e}", output.display())))?;
    eprintln!(
        "peakorder: wrote {} ({} ops; open it in a browser, offline is fine)",
        output.display(),
        g.ops().len()
    );
    Ok(())
}

fn template() -> Result<String, CliError> {
    let bytes = match std::env::var_os(TEMPLATE_ENV) {
        Some(p) => std::fs::read(&p).map_err(|e| {
            CliError::Other(format!(
                "cannot read {TEMPLATE_ENV}={}: {e}",
                Path::new(&p).display()
            ))
        })?,
        None => EMBEDDED.to_vec(),
    };
    if bytes.is_empty() {
        return Err(CliError::Other(format!(
            "this peakorder was built without the web view, so it cannot write reports. Build the \
             web bundle (scripts/build.d/50-web.sh, or `npm ci && npm run build && npm run \
             build:web`, which writes www/dist/report.html), then rebuild peakorder; or point \
             {TEMPLATE_ENV} at a built www/dist/report.html"
        )));
    }
    String::from_utf8(bytes).map_err(|_| CliError::Other("the report template is not UTF-8".into()))
}

/// Replaces each placeholder once, in one pass, so text inserted for one (a graph holding the
/// string `__PEAKORDER_OPTIONS__`, say) is never rewritten by another.
fn fill(template: &str, values: &[String; 4]) -> Result<String, CliError> {
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
        return Err(CliError::Other(
            "the report template lacks the graph slot".into(),
        ));
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
        let out = fill(
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
