//! `peakorder layout` as a user runs it: the JSON of docs/layout.md for graphs and MiniMalloc
//! CSVs, the planned order or a given one, capacities, the MiniMalloc output CSV, and exit code 2
//! with one line naming the line (CSV) or the culprit for bad input.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn path(rel: &str) -> String {
    root().join(rel).to_string_lossy().into_owned()
}

fn peakorder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_peakorder"))
        .args(args)
        .output()
        .unwrap()
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn scratch(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("peakorder-cli-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn seed_graph_fits_in_one_arena_of_its_planned_peak() {
    let l = json(&peakorder(&[
        "layout",
        &path("tests/cases/nvfuser-seed-breadth.json"),
        "--json",
    ]));
    assert_eq!(l["arena_bytes"], 3_670_016);
    assert_eq!(l["lower_bound_bytes"], 3_670_016);
    assert_eq!(l["optimal"], true);
    assert_eq!(l["align"], 1);
    assert_eq!(l["peak_bytes"], 3_670_016);
    assert_eq!(l["order"].as_array().unwrap().len(), 40);
    for key in [
        "offsets",
        "workspace_offsets",
        "buffers",
        "elapsed_ms",
        "order_search",
    ] {
        assert!(l.get(key).is_some(), "layout lacks {key}");
    }
    let offsets = l["offsets"].as_object().unwrap();
    assert_eq!(offsets.len(), 51, "every tensor has an offset");
    // Every buffer lies inside the arena, and buffers live at the same step never share bytes.
    let bufs = l["buffers"].as_array().unwrap();
    let arena = l["arena_bytes"].as_u64().unwrap();
    let get = |b: &Value, k: &str| b[k].as_u64().unwrap();
    for (i, a) in bufs.iter().enumerate() {
        assert!(get(a, "offset") + get(a, "bytes") <= arena);
        assert_eq!(offsets[a["id"].as_str().unwrap()], a["offset"]);
        for b in &bufs[i + 1..] {
            let time = get(a, "first_step") <= get(b, "last_step")
                && get(b, "first_step") <= get(a, "last_step");
            let space = get(a, "offset") < get(b, "offset") + get(b, "bytes")
                && get(b, "offset") < get(a, "offset") + get(a, "bytes");
            assert!(!(time && space), "{a} and {b} overlap");
        }
    }
}

#[test]
fn workspace_views_and_alignment() {
    let l = json(&peakorder(&[
        "layout",
        &path("tests/cases/workspace.json"),
        "--align",
        "64",
        "--json",
    ]));
    assert_eq!(l["align"], 64);
    let ws = l["workspace_offsets"].as_object().unwrap();
    assert!(!ws.is_empty());
    for b in l["buffers"].as_array().unwrap() {
        assert_eq!(b["offset"].as_u64().unwrap() % 64, 0);
        assert_eq!(b["bytes"].as_u64().unwrap() % 64, 0);
    }
    assert!(l["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["kind"] == "workspace"));
    // Views share their storage's offset.
    let v = json(&peakorder(&[
        "layout",
        &path("tests/cases/views.json"),
        "--json",
    ]));
    let graph: Value =
        serde_json::from_str(&std::fs::read_to_string(path("tests/cases/views.json")).unwrap())
            .unwrap();
    let offsets = v["offsets"].as_object().unwrap();
    for t in graph["tensors"].as_array().unwrap() {
        if let Some(base) = t.get("alias_of") {
            assert_eq!(
                offsets[t["id"].as_str().unwrap()],
                offsets[base.as_str().unwrap()]
            );
        }
    }
}

#[test]
fn a_given_order_is_laid_out_as_given() {
    let order = scratch("order.json", r#"["p1","q1","p2","q2","j"]"#);
    let l = json(&peakorder(&[
        "layout",
        &path("tests/cases/fork-join.json"),
        "--order",
        &order,
        "--json",
    ]));
    assert_eq!(l["order"], serde_json::json!(["p1", "q1", "p2", "q2", "j"]));
    assert_eq!(l["arena_bytes"], 110);
    assert!(l.get("order_search").is_none());
    let text = peakorder(&[
        "layout",
        &path("tests/cases/fork-join.json"),
        "--order",
        &order,
    ]);
    assert!(text.status.success());
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(s.contains("arena") && s.contains("110 B"), "{s}");
    // The order search's and the planner's flags have no planned order to act on: refused, not
    // ignored, for a given order and for a CSV.
    let csv = path("tests/minimalloc/K.1048576.csv");
    let fj = path("tests/cases/fork-join.json");
    for args in [
        vec![
            "layout",
            fj.as_str(),
            "--order",
            order.as_str(),
            "--slack",
            "0.05",
        ],
        vec![
            "layout",
            fj.as_str(),
            "--order",
            order.as_str(),
            "--plan-method",
            "greedy",
        ],
        vec!["layout", csv.as_str(), "--slack", "0.05"],
        vec!["layout", csv.as_str(), "--plan-method", "greedy"],
    ] {
        let out = peakorder(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let e = stderr(&out);
        assert!(
            e.contains("--slack") || e.contains("--plan-method"),
            "{args:?}: {e}"
        );
    }
}

#[test]
fn minimalloc_csv_within_its_capacity_with_the_output_csv() {
    let out_csv = scratch("k.out.csv", "");
    let l = json(&peakorder(&[
        "layout",
        &path("tests/minimalloc/K.1048576.csv"),
        "--capacity",
        "1048576",
        "--budget-ms",
        "60000",
        "-o",
        &out_csv,
        "--json",
    ]));
    assert_eq!(l["within_capacity"], true);
    assert_eq!(l["capacity_bytes"], 1_048_576);
    assert!(l["arena_bytes"].as_u64().unwrap() <= 1_048_576);
    assert_eq!(l["buffers"].as_array().unwrap().len(), 454);
    let written = std::fs::read_to_string(&out_csv).unwrap();
    assert!(written.starts_with("id,lower,upper,size,offset\n"));
    assert_eq!(written.lines().count(), 455);
    // The output reads back as input (the offset column is ignored).
    let again = json(&peakorder(&[
        "layout", &out_csv, "--method", "online", "--json",
    ]));
    assert_eq!(again["buffers"].as_array().unwrap().len(), 454);
}

#[test]
fn an_impossible_capacity_exits_1_with_the_proof() {
    let csv = scratch("tiny.csv", "id,lower,upper,size\na,0,2,4\nb,1,3,4\n");
    let out = peakorder(&["layout", &csv, "--capacity", "7"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("at least 8"), "{}", stderr(&out));
    let ok = json(&peakorder(&["layout", &csv, "--capacity", "8", "--json"]));
    assert_eq!(ok["arena_bytes"], 8);
}

#[test]
fn bad_csv_exits_2_naming_the_line() {
    let cases = [
        (
            "id,lower,upper,size\na,0,1,4\na,2,3,4\n",
            "line 3",
            "used twice",
        ),
        ("id,lower,upper,size\na,0,1,-4\n", "line 2", "negative"),
        (
            "id,lower,upper,size\na,0,1,99999999999999999999\n",
            "line 2",
            "64 bits",
        ),
        (
            "id,lower,upper,size\na,0,1,4\nb,5,5,1\n",
            "line 3",
            "below upper",
        ),
        (
            "id,lower,upper,size\na,0,1,9223372036854775808\nb,0,1,9223372036854775808\n",
            "line 3",
            "2^64",
        ),
        ("id,lower,size\na,0,4\n", "line 1", "upper"),
    ];
    for (text, line, why) in cases {
        let csv = scratch("bad.csv", text);
        let out = peakorder(&["layout", &csv]);
        assert_eq!(out.status.code(), Some(2), "{text}: {}", stderr(&out));
        let e = stderr(&out);
        assert!(e.contains(line) && e.contains(why), "{text}: {e}");
        assert_eq!(e.trim().lines().count(), 1, "{e}");
    }
}

#[test]
fn bad_arguments_exit_2() {
    let seed = path("tests/cases/fork-join.json");
    for args in [
        vec!["layout", seed.as_str(), "--method", "nope"],
        vec!["layout", seed.as_str(), "--align", "0"],
        vec!["layout", seed.as_str(), "--slack", "-1"],
        vec!["layout", seed.as_str(), "--plan-method", "nope"],
    ] {
        let out = peakorder(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    let cyclic = scratch(
        "cycle.json",
        r#"{"tensors":[{"id":"a","bytes":1},{"id":"b","bytes":1}],
            "ops":[{"id":"x","inputs":["a"],"outputs":["b"]},{"id":"y","inputs":["b"],"outputs":["a"]}]}"#,
    );
    let out = peakorder(&["layout", &cyclic]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cycle"), "{}", stderr(&out));
}

#[test]
fn every_method_gives_a_valid_layout() {
    for m in [
        "auto",
        "exact",
        "size",
        "duration",
        "conflicts",
        "area",
        "online",
        "local",
    ] {
        let l = json(&peakorder(&[
            "layout",
            &path("tests/cases/series-parallel-150.json"),
            "--method",
            m,
            "--json",
        ]));
        assert_eq!(l["method"], m);
        assert!(l["arena_bytes"].as_u64() >= l["lower_bound_bytes"].as_u64());
    }
}

#[test]
fn run_arena_measures_the_planned_arena_to_the_byte() {
    let out = peakorder(&[
        "run",
        &path("tests/cases/nvfuser-seed-breadth.json"),
        "--arena",
        "--compare",
        "--method",
        "auto",
        "--json",
    ]);
    let ex = json(&out);
    let runs = ex["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for r in runs {
        assert_eq!(r["measured_peak_bytes"], r["arena_bytes"], "{r}");
        assert_eq!(r["align"], 4);
    }
    assert_eq!(runs[0]["arena_bytes"], 5_767_168, "program order: 5.5 MiB");
    assert_eq!(runs[1]["arena_bytes"], 3_670_016, "planned: 3.5 MiB");
    let text = peakorder(&[
        "run",
        &path("tests/cases/workspace.json"),
        "--arena",
        "--align",
        "3",
    ]);
    assert!(text.status.success(), "{}", stderr(&text));
    assert!(String::from_utf8_lossy(&text.stdout).contains("measured = planned arena"));
    let out = peakorder(&["run", &path("tests/cases/workspace.json"), "--align", "8"]);
    assert_eq!(out.status.code(), Some(2));
}
