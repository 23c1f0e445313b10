//! `peakorder run` and `peakorder demo` as a user runs them.

use std::path::PathBuf;
use std::process::Command;

use peakorder::examples::{seed_graph, SeedOptions};
use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_peakorder"))
}

/// The lead's fixture when present, else the same graph generated here.
fn seed_file() -> PathBuf {
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cases/nvfuser-seed-breadth.json");
    if fixture.exists() {
        return fixture;
    }
    let dir = std::env::temp_dir().join(format!("peakorder-run-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("seed-breadth.json");
    std::fs::write(&path, seed_graph(SeedOptions::default()).to_json()).unwrap();
    path
}

fn cuda_present() -> bool {
    peakorder_gpu::exec::cuda_available()
}

#[test]
fn run_compare_json_on_cpu_measures_the_planned_peaks_exactly() {
    let out = bin()
        .args(["run"])
        .arg(seed_file())
        .args(["--device", "cpu", "--compare", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["device"], "cpu");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let keys: Vec<&str> = runs[0]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    let mut want = vec![
        "order",
        "planned_peak_bytes",
        "measured_peak_bytes",
        "inputs_bytes",
        "elapsed_ms",
    ];
    want.sort();
    assert_eq!(keys, want); // serde_json's map is sorted
    assert_eq!(runs[0]["order"], "program");
    assert_eq!(runs[0]["planned_peak_bytes"], 5_767_168);
    assert_eq!(runs[0]["measured_peak_bytes"], 5_767_168);
    assert_eq!(runs[1]["order"], "planned");
    assert_eq!(runs[1]["planned_peak_bytes"], 3_670_016);
    assert_eq!(runs[1]["measured_peak_bytes"], 3_670_016);
    assert_eq!(runs[1]["inputs_bytes"], 2_883_584);
    assert!(runs[1]["elapsed_ms"].as_f64().unwrap() >= 0.0);
}

#[test]
fn run_with_an_order_file_labels_the_run_with_the_file() {
    let dir = std::env::temp_dir().join(format!("peakorder-order-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let order = dir.join("order.json");
    let ids: Vec<String> = (0..10)
        .flat_map(|i| {
            [
                format!("relu1_{i}"),
                format!("mm1_{i}"),
                format!("relu2_{i}"),
                format!("mm2_{i}"),
            ]
        })
        .collect();
    std::fs::write(&order, serde_json::to_string(&ids).unwrap()).unwrap();
    let out = bin()
        .arg("run")
        .arg(seed_file())
        .arg("--order")
        .arg(&order)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"][0]["order"], order.display().to_string());
    assert_eq!(v["runs"][0]["measured_peak_bytes"], 3_670_016);

    // A text run prints the table and says the outputs agree.
    let out = bin()
        .arg("run")
        .arg(seed_file())
        .arg("--compare")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("5.50 MiB (+2.75 MiB)"), "{text}");
    assert!(text.contains("3.50 MiB (+0.75 MiB)"), "{text}");
    assert!(
        text.contains("outputs identical in every order: yes"),
        "{text}"
    );
}

#[test]
fn cuda_without_a_driver_exits_1_with_a_clear_message() {
    if cuda_present() {
        return; // scripts/gpu-check.sh covers the GPU path
    }
    let out = bin()
        .arg("run")
        .arg(seed_file())
        .args(["--device", "cuda", "--compare"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no CUDA driver was found"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn unfit_graphs_exit_2_before_running() {
    let dir = std::env::temp_dir().join(format!("peakorder-unfit-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.json");
    std::fs::write(
        &path,
        r#"{"tensors": [{"id": "a", "shape": [2, 3], "dtype": "f32"},
                        {"id": "c", "shape": [2, 3], "dtype": "f32"}],
            "ops": [{"id": "mm", "kind": "matmul", "inputs": ["a", "a"], "outputs": ["c"]}],
            "outputs": ["c"]}"#,
    )
    .unwrap();
    // Refused before any device is opened: exit 2 even when asking for CUDA.
    let out = bin()
        .arg("run")
        .arg(&path)
        .args(["--device", "cuda"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("\"mm\"") && err.contains("matmul"), "{err}");
    let out = bin()
        .arg("run")
        .arg(&path)
        .args(["--device", "tpu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn demo_executes_the_seed_graph() {
    let device = if cuda_present() { "cuda" } else { "cpu" };
    let out = bin().args(["demo", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["peak_bytes"], 3_670_016);
    assert_eq!(v["execution"]["device"], device);
    let runs = v["execution"]["runs"].as_array().unwrap();
    assert_eq!(runs[0]["order"], "program");
    assert_eq!(runs[1]["order"], "planned");
    if device == "cpu" {
        assert_eq!(runs[0]["measured_peak_bytes"], 5_767_168);
        assert_eq!(runs[1]["measured_peak_bytes"], 3_670_016);
    }
    let out = bin().arg("demo").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Executed with real kernels"), "{text}");
    assert!(text.contains("measured peak"), "{text}");
}
