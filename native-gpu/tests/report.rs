//! `peakorder report`: exit codes and the filled template. The template is given through
//! PEAKORDER_REPORT_TEMPLATE so these tests run whether or not the web bundle was built; the
//! browser tests (tests/browser/) open a report made from the embedded one.

use std::path::PathBuf;
use std::process::{Command, Output};

fn case(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/cases")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("peakorder-report-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn report(template: &PathBuf, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_peakorder"))
        .arg("report")
        .args(args)
        .env("PEAKORDER_REPORT_TEMPLATE", template)
        .output()
        .unwrap()
}

const TEMPLATE: &str = "<title>__PEAKORDER_TITLE__</title>\
<script type=\"application/json\" id=\"peakorder-graph\">__PEAKORDER_GRAPH__</script>\
<script type=\"application/json\" id=\"peakorder-options\">__PEAKORDER_OPTIONS__</script>\
<noscript><pre>__PEAKORDER_NOSCRIPT__</pre></noscript>";

#[test]
fn fills_the_graph_options_and_plan_text() {
    let t = tmp("template.html");
    std::fs::write(&t, TEMPLATE).unwrap();
    let out = tmp("seed.html");
    let o = report(
        &t,
        &[
            &case("nvfuser-seed-breadth.json"),
            "--method",
            "program",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("<title>nvfuser-seed-breadth.json</title>"));
    assert!(html.contains(r#""method":"program""#), "{html}");
    assert!(html.contains("5.50 MiB"), "the plan as text: {html}");
    let graph = html
        .split("id=\"peakorder-graph\">")
        .nth(1)
        .and_then(|s| s.split("</script>").next())
        .unwrap();
    let g: serde_json::Value = serde_json::from_str(graph).unwrap();
    assert_eq!(g["ops"].as_array().unwrap().len(), 40);
}

#[test]
fn bad_graph_and_bad_method_are_bad_input() {
    let t = tmp("template2.html");
    std::fs::write(&t, TEMPLATE).unwrap();
    let out = tmp("bad.html");
    let o = report(
        &t,
        &[&case("invalid/cycle.json"), "-o", out.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    let o = report(
        &t,
        &[
            &case("fork-join.json"),
            "--method",
            "nonsense",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nonsense"));
}

#[test]
fn a_missing_bundle_says_how_to_build_it() {
    let t = tmp("empty.html");
    std::fs::write(&t, "").unwrap();
    let out = tmp("never.html");
    let o = report(&t, &[&case("fork-join.json"), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("50-web.sh"), "{err}");
    assert!(!out.exists());
}
