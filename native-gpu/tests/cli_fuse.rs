//! `peakorder fuse` end to end: JSON fields of docs/design.md §4, exit codes, and a written fused
//! graph that `simulate` accepts with the reported order and peak.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_peakorder"))
}

fn case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/cases")
        .join(name)
}

fn run_json(args: &[&str]) -> Value {
    let out = bin().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn seed_json_fields() {
    for file in [
        "fusion-seed-breadth-first.json",
        "fusion-seed-path-by-path.json",
    ] {
        let path = case(file);
        let v = run_json(&["fuse", path.to_str().unwrap(), "--json"]);
        for side in [&v, &v["baseline"]] {
            for k in [
                "regions",
                "ops_before",
                "ops_after",
                "peak_before_bytes",
                "peak_after_bytes",
                "limit_bytes",
                "order",
            ] {
                assert!(side.get(k).is_some(), "{file}: missing {k}");
            }
        }
        assert_eq!(v["ops_before"], 40);
        assert_eq!(v["ops_after"], 39);
        assert_eq!(v["peak_before_bytes"], 3_670_016);
        assert_eq!(v["peak_after_bytes"], 3_670_016);
        assert_eq!(v["limit_bytes"], 3_670_016);
        assert_eq!(v["baseline"]["ops_after"], 22);
        assert_eq!(v["baseline"]["peak_after_bytes"], 8_126_464);
        // Regions are named in the order by their members joined with `+`.
        let order: Vec<&str> = v["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        for r in v["regions"].as_array().unwrap() {
            let ids: Vec<&str> = r
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            assert!(ids.len() > 1);
            assert!(order.contains(&ids.join("+").as_str()));
        }
    }
}

#[test]
fn written_graph_simulates_to_the_reported_peak() {
    let dir = std::env::temp_dir().join(format!("peakorder-fuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fused = dir.join("fused.json");
    let plan = dir.join("plan.json");
    let path = case("fusion-chain.json");
    let out = bin()
        .args(["fuse", path.to_str().unwrap(), "--json", "-o"])
        .arg(&fused)
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(&plan, &out.stdout).unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sim = run_json(&[
        "simulate",
        fused.to_str().unwrap(),
        plan.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(sim["peak_bytes"], v["peak_after_bytes"]);
    assert_eq!(v["regions"], serde_json::json!([["relu", "add", "mul"]]));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn exit_codes() {
    let out = bin()
        .args(["fuse", "/nonexistent/graph.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let path = case("fusion-chain.json");
    let out = bin()
        .args(["fuse", path.to_str().unwrap(), "--peak-limit", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no fusion found keeps the peak within 1 bytes"),
        "{err}"
    );
    let out = bin()
        .args(["fuse", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("relu+add+mul") && text.contains("3 -> 1"),
        "{text}"
    );
}
