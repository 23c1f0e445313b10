//! The optimal methods on the command line: `auto` by default, `liu` refused on a non-tree with
//! a clear message, every method in `compare`.

use std::io::Write;
use std::process::{Command, Stdio};

const SHARED: &str = r#"{"tensors":[{"id":"x","bytes":1},{"id":"y","bytes":4},
 {"id":"a","bytes":2},{"id":"b","bytes":2}],
 "ops":[{"id":"p","inputs":["x"],"outputs":["y"]},
        {"id":"u1","inputs":["y"],"outputs":["a"]},
        {"id":"u2","inputs":["y"],"outputs":["b"]}],
 "outputs":["a","b"]}"#;

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_peakorder"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn plan_defaults_to_auto_and_proves() {
    let (code, out, _) = run(&["plan", "-", "--json"], SHARED);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["method"], "auto");
    assert_eq!(v["optimal"], true);
    assert_eq!(v["peak_bytes"], 9);
    assert_eq!(v["lower_bound_bytes"], 9);
}

#[test]
fn liu_refuses_a_non_tree() {
    let (code, out, err) = run(&["plan", "-", "--method", "liu"], SHARED);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("liu does not apply"), "{err}");
    assert!(err.contains("\"p\" feeds 2 ops"), "{err}");
}

#[test]
fn compare_lists_the_optimal_methods() {
    let (code, out, _) = run(&["compare", "-", "--json", "--max-states", "1000"], SHARED);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let methods = v["methods"].as_array().unwrap();
    let names: Vec<&str> = methods
        .iter()
        .map(|m| m["method"].as_str().unwrap())
        .collect();
    for m in ["liu", "exact", "auto"] {
        assert!(names.contains(&m), "{names:?}");
    }
    let liu = methods.iter().find(|m| m["method"] == "liu").unwrap();
    assert!(liu["peak_bytes"].is_null());
    let auto = methods.iter().find(|m| m["method"] == "auto").unwrap();
    assert_eq!(auto["optimal"], true);
}

/// Ctrl-C (SIGINT) stops a long search and the best order so far is printed, exit 0, however
/// the CLI was started: with SIGINT's default disposition (from a terminal) or with SIGINT ignored
/// (a shell's background job, `(scripts/test.sh &)`, whose children inherit the ignored signal;
/// the CLI installs its own handler over either). Both are set here rather than inherited from
/// however this test run was started.
#[cfg(unix)]
#[test]
fn ctrl_c_keeps_the_best_order() {
    use std::os::unix::process::CommandExt;
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/hard/wide-dag-100.json"
    );
    for (started, disposition) in [("default", libc::SIG_DFL), ("ignored", libc::SIG_IGN)] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_peakorder"));
        // SAFETY: only `signal`, which is async-signal-safe, runs between fork and exec.
        unsafe {
            command.pre_exec(move || {
                libc::signal(libc::SIGINT, disposition);
                Ok(())
            });
        }
        let child = command
            .args([
                "plan",
                graph,
                "--json",
                "--budget-ms",
                "600000",
                "--max-states",
                "1000000000",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        std::thread::sleep(std::time::Duration::from_millis(700));
        let killed = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "SIGINT {started}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["order"].as_array().unwrap().len(), 100);
        assert_eq!(v["optimal"], false);
        assert!(v["peak_bytes"].as_u64() >= v["lower_bound_bytes"].as_u64());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("interrupted"), "SIGINT {started}: {err}");
    }
}
