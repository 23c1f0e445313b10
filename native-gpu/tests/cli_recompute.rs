//! Issue 29's surfaces on the command line: `plan`, `compare` and `run` with `--memory-limit`,
//! and `simulate`, `run --order` and `layout --order` given schedules with repeats. Measured
//! = planned to the byte, outputs identical to the program order's; bad limits and bad
//! schedules exit 2 with one line naming the value or the op.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn peakorder<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_peakorder"))
        .args(args)
        .output()
        .unwrap()
}

fn cases() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cases")
}

fn seed() -> String {
    cases()
        .join("nvfuser-seed-breadth.json")
        .display()
        .to_string()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json(out: &Output) -> Value {
    serde_json::from_str(&ok(out)).unwrap()
}

/// Exit 2 with one line on stderr mentioning every one of `mentions`, nothing on stdout.
fn refused(what: &str, out: &Output, mentions: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
    for m in mentions {
        assert!(err.contains(m), "{what}: {err} does not mention {m}");
    }
    assert!(out.stdout.is_empty(), "{what}");
    err
}

/// A scratch directory for this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "peakorder-cli-recompute-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The doc example of `simulate_schedule` over f32s: a -> b -> c, and d reads a and c.
/// Keeping `a` across B and C costs 400 bytes; making it again for D costs one run of A.
const KEEP_OR_RECOMPUTE: &str = r#"{
  "tensors": [{"id": "x", "shape": [4], "dtype": "f32"}, {"id": "a", "shape": [100], "dtype": "f32"},
              {"id": "b", "shape": [10], "dtype": "f32"}, {"id": "c", "shape": [10], "dtype": "f32"},
              {"id": "d", "shape": [1], "dtype": "f32"}],
  "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"], "cost": 3},
          {"id": "B", "inputs": ["a"], "outputs": ["b"]},
          {"id": "C", "inputs": ["b"], "outputs": ["c"], "workspace": 400},
          {"id": "D", "inputs": ["a", "c"], "outputs": ["d"]}],
  "outputs": ["d"]
}"#;

/// Its order's peak and its schedule's (A run again).
const ORDER_PEAK: u64 = 16 + 400 + 40 + 40 + 400;
const SCHEDULE_PEAK: u64 = 16 + 40 + 40 + 400;

/// A view of a recomputable storage, read after it, and an op that must run once.
const VIEWS: &str = r#"{
  "tensors": [{"id": "x", "shape": [4], "dtype": "f32"}, {"id": "a", "shape": [4], "dtype": "f32"},
              {"id": "v", "alias_of": "a", "shape": [4], "dtype": "f32"},
              {"id": "b", "shape": [4], "dtype": "f32"}, {"id": "c", "shape": [4], "dtype": "f32"}],
  "ops": [{"id": "A", "kind": "relu", "inputs": ["x"], "outputs": ["a"]},
          {"id": "V", "kind": "view", "outputs": ["v"]},
          {"id": "B", "kind": "relu", "inputs": ["v"], "outputs": ["b"], "recompute": false},
          {"id": "C", "kind": "add", "inputs": ["v", "b"], "outputs": ["c"]}],
  "outputs": ["c"]
}"#;

#[test]
fn plan_with_a_limit_the_order_meets_recomputes_nothing() {
    let p = json(&peakorder(&[
        "plan",
        &seed(),
        "--memory-limit",
        "4MiB",
        "--json",
    ]));
    assert_eq!(p["memory_limit_bytes"], 4 << 20);
    assert_eq!(p["recompute_method"], "order");
    assert_eq!(p["peak_bytes"], 3_670_016);
    assert_eq!(p["added_cost"], 0.0);
    assert_eq!(p["added_cost_lower_bound"], 0.0);
    assert_eq!(p["runs"], serde_json::json!({}));
    assert_eq!(p["optimal"], true);
    // 2.75 MiB of pinned inputs and 0.75 MiB for one matmul: no schedule needs less.
    assert_eq!(p["least_limit_bytes"], 3_670_016);
    assert_eq!(p["least_limit_lower_bound_bytes"], 3_670_016);
    assert!(p["least_limit_op"].is_string(), "{p}");
    assert_eq!(p["order"].as_array().unwrap().len(), 40);
    // Bytes, binary and decimal units alike; the least limit itself is met.
    for limit in ["4194304", "4 MiB", "4.2MB", "3670016", "3.5MiB"] {
        let p = json(&peakorder(&[
            "plan",
            &seed(),
            "--memory-limit",
            limit,
            "--json",
        ]));
        assert!(p["peak_bytes"].as_u64().unwrap() <= p["memory_limit_bytes"].as_u64().unwrap());
    }
    let text = ok(&peakorder(&["plan", &seed(), "--memory-limit", "4MiB"]));
    for line in [
        "memory limit      4.00 MiB (4194304 bytes)",
        "peak              3.50 MiB (+0.75 MiB above inputs), 0.50 MiB under the limit",
        "recompute         order (the order fits: nothing recomputed)",
        "added cost        0 (lower bound 0; optimal (proven))",
        "recomputations    0 of 40 steps",
        "least limit       3.50 MiB (3670016 bytes)",
    ] {
        assert!(text.contains(line), "{text}\nlacks {line:?}");
    }
    // Without a limit nothing changes: no recompute fields.
    let p = json(&peakorder(&["plan", &seed(), "--json"]));
    assert!(p.get("memory_limit_bytes").is_none() && p.get("runs").is_none());
}

#[test]
fn plan_below_the_least_limit_is_infeasible_naming_the_op_and_bytes() {
    for limit in ["3MiB", "3670015", "0"] {
        let out = peakorder(&["plan", &seed(), "--memory-limit", limit]);
        refused(
            limit,
            &out,
            &["no schedule fits within", "3670016 bytes", "op \""],
        );
    }
    let dir = scratch("infeasible");
    let g = write(&dir, "g.json", KEEP_OR_RECOMPUTE);
    let out = peakorder(&["plan", &g, "--memory-limit", "100", "--json"]);
    refused(
        "100 B",
        &out,
        &["100 bytes", "op \"C\"", &SCHEDULE_PEAK.to_string()],
    );
}

#[test]
fn plan_recomputes_what_the_limit_needs() {
    let dir = scratch("plan");
    let g = write(&dir, "g.json", KEEP_OR_RECOMPUTE);
    let limit = SCHEDULE_PEAK.to_string();
    let p = json(&peakorder(&[
        "plan",
        &g,
        "--memory-limit",
        &limit,
        "--json",
    ]));
    assert_eq!(p["order"], serde_json::json!(["A", "B", "C", "A", "D"]));
    assert_eq!(p["peak_bytes"], SCHEDULE_PEAK);
    assert_eq!(p["runs"], serde_json::json!({"A": 2}));
    assert_eq!(p["added_cost"], 3.0);
    assert!(p["added_cost_lower_bound"].as_f64().unwrap() <= 3.0);
    assert_ne!(p["recompute_method"], "order");
    assert_eq!(p["least_limit_bytes"], SCHEDULE_PEAK);
    assert_eq!(p["program_order_peak_bytes"], ORDER_PEAK);
    let text = ok(&peakorder(&["plan", &g, "--memory-limit", &limit]));
    assert!(
        text.contains("recomputations    1 of 5 steps (1 ops: A x2)"),
        "{text}"
    );
    assert!(text.contains("schedule (5 steps) A B C A D"), "{text}");
    // Every method that applies meets it; revolve is for training chains only.
    for m in ["auto", "exact", "evict", "repair"] {
        let p = json(&peakorder(&[
            "plan",
            &g,
            "--memory-limit",
            &limit,
            "--recompute-method",
            m,
            "--json",
        ]));
        assert!(p["peak_bytes"].as_u64().unwrap() <= SCHEDULE_PEAK, "{m}");
    }
    let out = peakorder(&[
        "plan",
        &g,
        "--memory-limit",
        &limit,
        "--recompute-method",
        "revolve",
    ]);
    refused("revolve", &out, &["revolve", "does not apply"]);
}

#[test]
fn malformed_limits_and_methods_exit_2_naming_the_value() {
    for (limit, reason) in [
        ("abc", "expected a non-negative number"),
        ("-1MiB", "expected a non-negative number"),
        ("12XB", "unknown unit"),
        ("", "expected a non-negative number"),
        ("1e3", "unknown unit"),
        ("NaN", "expected a non-negative number"),
        ("99999999999TiB", "does not fit in u64"),
        ("1.2.3MiB", "not a number"),
    ] {
        let quoted = format!("{limit:?}");
        for cmd in ["plan", "compare", "run"] {
            let out = peakorder(&[cmd, &seed(), "--memory-limit", limit]);
            refused(
                &format!("{cmd} {limit:?}"),
                &out,
                &["--memory-limit", &quoted, reason],
            );
        }
    }
    let out = peakorder(&[
        "plan",
        &seed(),
        "--memory-limit",
        "4MiB",
        "--recompute-method",
        "magic",
    ]);
    refused(
        "magic",
        &out,
        &["\"magic\"", "auto, exact, revolve, evict, repair"],
    );
    // A recompute method means nothing without a limit.
    let out = peakorder(&["plan", &seed(), "--recompute-method", "evict"]);
    assert_eq!(out.status.code(), Some(2));
    // A limit with a given order: the order is run as given.
    let dir = scratch("conflict");
    let order = write(&dir, "o.json", r#"["relu1_0"]"#);
    let out = peakorder(&["run", &seed(), "--order", &order, "--memory-limit", "4MiB"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn simulate_takes_a_schedule_and_marks_the_recomputed_steps() {
    let dir = scratch("simulate");
    let g = write(&dir, "g.json", KEEP_OR_RECOMPUTE);
    let s = write(&dir, "s.json", r#"["A", "B", "C", "A", "D"]"#);
    let sim = json(&peakorder(&["simulate", &g, &s, "--json"]));
    assert_eq!(sim["peak_bytes"], SCHEDULE_PEAK);
    assert_eq!(sim["peak_step"], 2);
    let steps = sim["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 5);
    assert_eq!(steps[3]["op"], "A");
    assert_eq!(steps[4]["after_bytes"], 16 + 4);
    let text = ok(&peakorder(&["simulate", &g, &s]));
    assert!(text.contains("A (run 2)"), "{text}");
    assert!(
        text.contains("recomputed      1 of 5 steps (3 added cost)"),
        "{text}"
    );
    // A plan with a memory limit is a schedule file too.
    let plan = peakorder(&[
        "plan",
        &g,
        "--memory-limit",
        &SCHEDULE_PEAK.to_string(),
        "--json",
    ]);
    let p = write(&dir, "plan.json", &ok(&plan));
    assert_eq!(
        json(&peakorder(&["simulate", &g, &p, "--json"]))["peak_bytes"],
        SCHEDULE_PEAK
    );
    // An order simulates as before.
    let o = write(&dir, "o.json", r#"["A", "B", "C", "D"]"#);
    let text = ok(&peakorder(&["simulate", &g, &o]));
    assert!(
        !text.contains("run 2") && !text.contains("recomputed"),
        "{text}"
    );
}

#[test]
fn bad_schedules_exit_2_naming_the_op() {
    let dir = scratch("bad");
    let g = write(&dir, "g.json", VIEWS);
    for (ids, mentions) in [
        (
            r#"["A", "V", "B", "B", "C"]"#,
            &["\"B\"", "`recompute: false`", "2 times"][..],
        ),
        (
            r#"["A", "V", "B", "A", "C"]"#,
            &["\"C\"", "view \"v\"", "computed again"],
        ),
        (r#"["A", "A", "V", "B"]"#, &["\"C\""]),
        (r#"["A", "B", "V", "A", "C"]"#, &["\"B\"", "\"V\""]),
        (r#"["A", "V", "B", "Q", "C"]"#, &["\"Q\""]),
    ] {
        let s = write(&dir, "s.json", ids);
        for cmd in ["simulate", "layout"] {
            let out = if cmd == "simulate" {
                peakorder(&[cmd, &g, &s])
            } else {
                peakorder(&[cmd, &g, "--order", &s])
            };
            refused(&format!("{cmd} {ids}"), &out, mentions);
        }
        let out = peakorder(&["run", &g, "--order", &s]);
        refused(&format!("run {ids}"), &out, mentions);
    }
    // With the view made again after its storage, the schedule is valid.
    let s = write(&dir, "s.json", r#"["A", "V", "B", "A", "V", "C"]"#);
    ok(&peakorder(&["simulate", &g, &s]));
}

#[test]
fn run_executes_a_schedule_as_planned_with_the_program_orders_outputs() {
    let dir = scratch("run");
    let g = write(&dir, "g.json", KEEP_OR_RECOMPUTE);
    let v = json(&peakorder(&[
        "run",
        &g,
        "--memory-limit",
        &SCHEDULE_PEAK.to_string(),
        "--compare",
        "--json",
    ]));
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs[0]["order"], "program");
    assert_eq!(runs[0]["measured_peak_bytes"], ORDER_PEAK);
    assert!(runs[0].get("recomputed_steps").is_none());
    assert_eq!(runs[1]["order"], "planned");
    assert_eq!(runs[1]["planned_peak_bytes"], SCHEDULE_PEAK);
    assert_eq!(runs[1]["measured_peak_bytes"], SCHEDULE_PEAK);
    assert_eq!(runs[1]["recomputed_steps"], 1);
    let text = ok(&peakorder(&[
        "run",
        &g,
        "--memory-limit",
        &SCHEDULE_PEAK.to_string(),
        "--compare",
    ]));
    assert!(
        text.contains("measured = planned, to the byte, in every run"),
        "{text}"
    );
    assert!(
        text.contains("outputs identical in every order: yes"),
        "{text}"
    );
    // A hand-written schedule, with one allocation per buffer and in one arena.
    let s = write(&dir, "s.json", r#"["A", "B", "C", "A", "D"]"#);
    for extra in [&[][..], &["--arena"]] {
        let mut args = vec!["run", &g, "--order", &s, "--compare"];
        args.extend_from_slice(extra);
        let text = ok(&peakorder(&args));
        assert!(
            text.contains("outputs identical in every order: yes"),
            "{text}"
        );
        assert!(text.contains("to the byte, in every run"), "{text}");
    }
    let v = json(&peakorder(&["run", &g, "--order", &s, "--arena", "--json"]));
    // The arena of the schedule: each size rounded to 4 bytes; a's two runs at one offset.
    assert_eq!(v["runs"][0]["arena_bytes"], SCHEDULE_PEAK);
    assert_eq!(v["runs"][0]["measured_peak_bytes"], SCHEDULE_PEAK);
}

#[test]
fn run_with_a_memory_limit_on_the_seed_measures_the_plan() {
    for limit in ["4MiB", "3.5MiB", "5767168"] {
        let v = json(&peakorder(&[
            "run",
            &seed(),
            "--memory-limit",
            limit,
            "--compare",
            "--json",
        ]));
        let runs = v["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2);
        for r in runs {
            assert_eq!(r["measured_peak_bytes"], r["planned_peak_bytes"], "{limit}");
        }
        assert!(runs[1]["measured_peak_bytes"].as_u64().unwrap() <= 4 << 20);
        let text = ok(&peakorder(&[
            "run",
            &seed(),
            "--memory-limit",
            limit,
            "--compare",
        ]));
        assert!(
            text.contains("outputs identical in every order: yes"),
            "{text}"
        );
    }
    // Below 3.5 MiB no schedule exists (the inputs are pinned and each matmul needs 0.75 MiB):
    // refused before anything runs.
    let out = peakorder(&["run", &seed(), "--memory-limit", "3MiB"]);
    refused("3MiB", &out, &["no schedule fits within", "3670016 bytes"]);
}

/// Each fixture run at its least limit and half way to its order's peak: measured = planned
/// and the program order's outputs. The least limit is the one found along `run`'s own order
/// (greedy unless told otherwise): eviction follows the order it is given.
#[test]
fn run_with_a_memory_limit_on_every_fixture() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(cases())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 10);
    for f in files {
        let f = f.display().to_string();
        let p = json(&peakorder(&[
            "plan",
            &f,
            "--method",
            "greedy",
            "--memory-limit",
            &u64::MAX.to_string(),
            "--json",
        ]));
        let top = p["peak_bytes"].as_u64().unwrap();
        let least = p["least_limit_bytes"].as_u64().unwrap();
        assert!(p["least_limit_lower_bound_bytes"].as_u64().unwrap() <= least);
        assert!(least <= top, "{f}");
        for limit in [least, least + (top - least) / 2] {
            let out = peakorder(&[
                "run",
                &f,
                "--memory-limit",
                &limit.to_string(),
                "--compare",
                "--json",
            ]);
            let v = json(&out);
            let runs = v["runs"].as_array().unwrap();
            for r in runs {
                assert_eq!(
                    r["measured_peak_bytes"], r["planned_peak_bytes"],
                    "{f} at {limit}"
                );
            }
            assert!(runs[1]["planned_peak_bytes"].as_u64().unwrap() <= limit);
            let text = ok(&peakorder(&[
                "run",
                &f,
                "--memory-limit",
                &limit.to_string(),
                "--compare",
            ]));
            assert!(
                text.contains("outputs identical in every order: yes"),
                "{f} at {limit}: {text}"
            );
        }
    }
}

#[test]
fn compare_with_a_limit_lists_every_recompute_method() {
    let dir = scratch("compare");
    let g = write(&dir, "g.json", KEEP_OR_RECOMPUTE);
    let limit = SCHEDULE_PEAK.to_string();
    let c = json(&peakorder(&[
        "compare",
        &g,
        "--memory-limit",
        &limit,
        "--json",
    ]));
    // Today's order table is still there.
    assert!(c["methods"].as_array().unwrap().len() >= 10);
    assert_eq!(c["memory_limit_bytes"], SCHEDULE_PEAK);
    assert_eq!(c["least_limit_bytes"], SCHEDULE_PEAK);
    let rows = c["recompute_methods"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(names, ["auto", "exact", "revolve", "evict", "repair"]);
    for r in rows {
        if r["method"] == "revolve" {
            assert_eq!(r["code"], "not_applicable", "{r}");
            assert!(
                r["error"].as_str().unwrap().contains("training chain"),
                "{r}"
            );
            assert!(r["peak_bytes"].is_null());
        } else {
            assert!(r["peak_bytes"].as_u64().unwrap() <= SCHEDULE_PEAK, "{r}");
            assert_eq!(r["added_cost"], 3.0, "{r}");
            assert_eq!(r["recomputations"], 1, "{r}");
            for key in [
                "added_cost_lower_bound",
                "optimal",
                "elapsed_ms",
                "found_by",
            ] {
                assert!(r.get(key).is_some(), "{r} lacks {key}");
            }
        }
    }
    let text = ok(&peakorder(&["compare", &g, "--memory-limit", &limit]));
    for s in [
        "recompute",
        "added cost",
        "revolve: method revolve does not apply",
        "memory limit",
    ] {
        assert!(text.contains(s), "{text}\nlacks {s:?}");
    }
    let out = peakorder(&["compare", &g, "--memory-limit", "100"]);
    refused(
        "compare below",
        &out,
        &["no schedule fits within 100 bytes"],
    );
    // Without a limit, today's JSON.
    let c = json(&peakorder(&["compare", &g, "--json"]));
    assert!(c.get("recompute_methods").is_none());
}

#[test]
fn layout_of_a_schedule_gives_each_run_its_own_buffer() {
    let dir = scratch("layout");
    let g = write(&dir, "g.json", KEEP_OR_RECOMPUTE);
    let s = write(&dir, "s.json", r#"["A", "B", "C", "A", "D"]"#);
    let csv = dir.join("s.csv").display().to_string();
    let l = json(&peakorder(&[
        "layout", &g, "--order", &s, "--json", "-o", &csv,
    ]));
    assert_eq!(l["peak_bytes"], SCHEDULE_PEAK);
    assert_eq!(l["arena_bytes"], SCHEDULE_PEAK);
    assert_eq!(l["optimal"], true);
    assert_eq!(l["order"], serde_json::json!(["A", "B", "C", "A", "D"]));
    let a: Vec<&Value> = l["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["id"] == "a")
        .collect();
    assert_eq!(a.len(), 2);
    assert_eq!(
        (&a[0]["run"], &a[0]["first_step"], &a[0]["last_step"]),
        (&1.into(), &1.into(), &2.into())
    );
    assert_eq!(
        (&a[1]["run"], &a[1]["first_step"], &a[1]["last_step"]),
        (&2.into(), &4.into(), &5.into())
    );
    // A storage made once has no run number.
    let b = l["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == "b")
        .unwrap();
    assert!(b.get("run").is_none());
    let text = ok(&peakorder(&["layout", &g, "--order", &s]));
    assert!(
        text.contains("a (run 2)") && text.contains("schedule's peak"),
        "{text}"
    );
    // The intervals as MiniMalloc's CSV, one line per run, laid out again to the same arena.
    let written = std::fs::read_to_string(&csv).unwrap();
    assert!(
        written.contains("\na@1,1,3,400,") && written.contains("\na@2,4,6,400,"),
        "{written}"
    );
    let again = json(&peakorder(&["layout", &csv, "--json"]));
    assert_eq!(again["arena_bytes"], SCHEDULE_PEAK);
    // A planned schedule with views: the view follows its storage's run.
    let v = write(&dir, "v.json", VIEWS);
    let vs = write(&dir, "vs.json", r#"["A", "V", "B", "A", "V", "C"]"#);
    let l = json(&peakorder(&[
        "layout", &v, "--order", &vs, "--json", "--align", "4",
    ]));
    let sim = json(&peakorder(&["simulate", &v, &vs, "--json"]));
    assert_eq!(l["peak_bytes"], sim["peak_bytes"]);
    assert!(l["arena_bytes"].as_u64().unwrap() >= l["lower_bound_bytes"].as_u64().unwrap());
    let runs: Vec<&Value> = l["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["id"] == "a")
        .collect();
    assert_eq!(runs.len(), 2, "{l}");
    let text = ok(&peakorder(&[
        "run",
        &v,
        "--order",
        &vs,
        "--arena",
        "--compare",
    ]));
    assert!(
        text.contains("outputs identical in every order: yes"),
        "{text}"
    );
}

/// A training chain through `--recompute-method revolve`: the binomial optimum, planned and run.
#[test]
fn revolve_plans_and_runs_a_training_chain() {
    let dir = scratch("revolve");
    let spec = peakorder::generators::chain_train::chain_train(16, 4096);
    let g = write(&dir, "chain.json", &spec.to_json());
    let graph = peakorder::Graph::from_spec(spec).unwrap();
    let (least, _) = peakorder::recompute::least_peak_bound(&graph);
    let limit = (least + 3 * 4096).to_string();
    let p = json(&peakorder(&[
        "plan",
        &g,
        "--memory-limit",
        &limit,
        "--recompute-method",
        "revolve",
        "--json",
    ]));
    assert_eq!(p["recompute_method"], "revolve");
    assert!(p["added_cost"].as_f64().unwrap() > 0.0);
    assert_eq!(p["optimal"], true, "{p}");
    let text = ok(&peakorder(&[
        "run",
        &g,
        "--memory-limit",
        &limit,
        "--recompute-method",
        "revolve",
        "--compare",
    ]));
    assert!(
        text.contains("measured = planned, to the byte, in every run"),
        "{text}"
    );
    assert!(
        text.contains("outputs identical in every order: yes"),
        "{text}"
    );
    let c = json(&peakorder(&[
        "compare",
        &g,
        "--memory-limit",
        &limit,
        "--json",
    ]));
    let revolve = &c["recompute_methods"][2];
    assert_eq!(revolve["method"], "revolve");
    assert_eq!(revolve["added_cost"], p["added_cost"]);
}
