//! The `peakorder` command line: exact JSON, exit codes, and one-line errors naming the culprit.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn cases() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cases")
}

fn peakorder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_peakorder"))
        .args(args)
        .output()
        .unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn case(name: &str) -> String {
    cases().join(name).to_string_lossy().into_owned()
}

#[test]
fn plan_program_order_of_the_seed_reports_its_peak() {
    let p = json(&peakorder(&[
        "plan",
        &case("nvfuser-seed-breadth.json"),
        "--method",
        "program",
        "--json",
    ]));
    assert_eq!(p["peak_bytes"], 5_767_168);
    assert_eq!(p["inputs_bytes"], 2_883_584);
    assert_eq!(p["method"], "program");
    assert_eq!(p["order"].as_array().unwrap().len(), 40);
    for key in [
        "lower_bound_bytes",
        "optimal",
        "program_order_peak_bytes",
        "elapsed_ms",
    ] {
        assert!(p.get(key).is_some(), "plan lacks {key}");
    }
}

#[test]
fn greedy_plans_the_seed_to_three_and_a_half_mib_in_both_orders() {
    for file in ["nvfuser-seed-breadth.json", "nvfuser-seed-paths.json"] {
        let p = json(&peakorder(&[
            "plan",
            &case(file),
            "--method",
            "greedy",
            "--json",
        ]));
        assert_eq!(p["peak_bytes"], 3_670_016, "{file}");
        assert_eq!(p["optimal"], true, "{file}");
    }
}

#[test]
fn simulate_accepts_an_order_array_or_a_plan() {
    let dir = std::env::temp_dir().join(format!("peakorder-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let order = dir.join("order.json");
    std::fs::write(&order, r#"["p1", "q1", "p2", "q2", "j"]"#).unwrap();
    let s = json(&peakorder(&[
        "simulate",
        &case("fork-join.json"),
        order.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(s["peak_bytes"], 110);
    assert_eq!(s["inputs_bytes"], 8);
    assert_eq!(s["peak_step"], 3);
    assert_eq!(
        s["live_at_peak"],
        serde_json::json!(["x", "s1", "h2", "s2"])
    );
    assert_eq!(
        s["steps"][0],
        serde_json::json!({"op": "p1", "during_bytes": 108, "after_bytes": 108})
    );
    // A plan works as an order too.
    let plan = peakorder(&[
        "plan",
        &case("fork-join.json"),
        "--method",
        "program",
        "--json",
    ]);
    let plan_file = dir.join("plan.json");
    std::fs::write(&plan_file, &plan.stdout).unwrap();
    let s = json(&peakorder(&[
        "simulate",
        &case("fork-join.json"),
        plan_file.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(s["peak_bytes"], 209);
    // An order that is not topological is bad input, naming the op.
    std::fs::write(&order, r#"["q1", "p1", "p2", "q2", "j"]"#).unwrap();
    let out = peakorder(&["simulate", &case("fork-join.json"), order.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"q1\""));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn compare_lists_every_method() {
    let c = json(&peakorder(&["compare", &case("fork-join.json"), "--json"]));
    assert!(c["lower_bound_bytes"].as_u64().unwrap() <= 110);
    let methods = c["methods"].as_array().unwrap();
    let names: Vec<&str> = methods
        .iter()
        .map(|m| m["method"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"program") && names.contains(&"greedy"),
        "{names:?}"
    );
    for m in methods {
        for key in ["peak_bytes", "optimal", "elapsed_ms"] {
            assert!(m.get(key).is_some(), "{m}");
        }
    }
    let table = peakorder(&["compare", &case("fork-join.json")]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("method"));
}

#[test]
fn demo_runs_with_nothing_to_pass() {
    let out = peakorder(&["demo"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("5.50 MiB") && text.contains("3.50 MiB"),
        "{text}"
    );
    assert!(
        text.contains("2.75 MiB") && text.contains("0.75 MiB"),
        "{text}"
    );
}

#[test]
fn graph_from_stdin() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_peakorder"))
        .args(["plan", "-", "--json", "--method", "greedy"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let text = std::fs::read(cases().join("diamond.json")).unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(json(&out)["peak_bytes"], 160);
}

#[test]
fn every_malformed_input_exits_2_with_one_line_naming_the_culprit() {
    let dir = cases().join("invalid");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("_expected.json")).unwrap())
            .unwrap();
    for (file, want) in manifest.as_object().unwrap() {
        for cmd in ["plan", "compare"] {
            let out = peakorder(&[cmd, dir.join(file).to_str().unwrap()]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd} {file}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{cmd} {file}: {err}");
            assert!(
                err.contains(want["mentions"].as_str().unwrap()),
                "{cmd} {file}: {err}"
            );
            assert!(out.stdout.is_empty());
        }
    }
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        peakorder(&["plan", "/nonexistent/graph.json"])
            .status
            .code(),
        Some(2)
    );
    let out = peakorder(&["plan", &case("diamond.json"), "--method", "magic"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"magic\""));
    assert_eq!(peakorder(&["frobnicate"]).status.code(), Some(2));
}
