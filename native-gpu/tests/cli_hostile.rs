//! Issue 10: a hostile-input corpus through the CLI. Every input either plans (exit 0) or is
//! refused with exit code 2 and one line on stderr naming the problem; nothing panics (exit
//! code 101) or hangs, whatever the method. Hostile arguments are refused the same way.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn peakorder_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_peakorder"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The CLI may refuse the input before reading all of it; a broken pipe is fine then.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

const U64MAX: &str = "18446744073709551615";

/// (input, what the one-line error must mention; None when the input is a valid graph).
fn corpus() -> Vec<(Vec<u8>, Option<&'static str>)> {
    let mut c: Vec<(String, Option<&'static str>)> = vec![
        (String::new(), Some("EOF")),
        ("   ".into(), Some("EOF")),
        ("null".into(), Some("JSON object")),
        ("[]".into(), Some("JSON object")),
        ("\"x\"".into(), Some("JSON object")),
        ("{\"tensors\":".into(), Some("EOF")),
        ("{\"tensors\":null}".into(), Some("bad JSON")),
        ("{\"tensors\":[{}]}".into(), Some("tensor #0")),
        // Sizes: negative, fractional, string, NaN, too large for u64.
        (r#"{"tensors":[{"id":"x","bytes":-1}],"ops":[]}"#.into(), Some("\"x\"")),
        (r#"{"tensors":[{"id":"x","bytes":1.5}],"ops":[]}"#.into(), Some("\"x\"")),
        (r#"{"tensors":[{"id":"x","bytes":"8"}],"ops":[]}"#.into(), Some("\"x\"")),
        (r#"{"tensors":[{"id":"x","bytes":NaN}],"ops":[]}"#.into(), Some("bad JSON")),
        (r#"{"tensors":[{"id":"x","bytes":1e400}],"ops":[]}"#.into(), Some("\"x\"")),
        (r#"{"tensors":[{"id":"x","bytes":18446744073709551616}],"ops":[]}"#.into(), Some("\"x\"")),
        // Sizes near u64::MAX whose sums overflow.
        (
            format!(r#"{{"tensors":[{{"id":"x","bytes":{U64MAX}}},{{"id":"y","bytes":1}}],"ops":[]}}"#),
            Some("overflows u64"),
        ),
        (
            format!(
                r#"{{"tensors":[{{"id":"x","bytes":1}},{{"id":"y","bytes":{U64MAX}}}],"ops":[{{"id":"a","inputs":["x"],"outputs":["y"],"workspace":{U64MAX}}}]}}"#
            ),
            Some("overflows u64"),
        ),
        (
            r#"{"tensors":[{"id":"x","shape":[4294967296,4294967296,4294967296],"dtype":"f64"}],"ops":[]}"#.into(),
            Some("overflows u64"),
        ),
        // One tensor of u64::MAX bytes alone is fine: every sum still fits.
        (
            format!(r#"{{"tensors":[{{"id":"x","bytes":{U64MAX}}}],"ops":[],"outputs":["x"]}}"#),
            None,
        ),
        // Duplicate keys, unknown fields.
        (r#"{"tensors":[{"id":"x","bytes":1,"bytes":2}],"ops":[]}"#.into(), Some("bytes")),
        (r#"{"tensors":[],"ops":[],"ops":[]}"#.into(), Some("ops")),
        (r#"{"tensors":[{"id":"x","byts":1}],"ops":[]}"#.into(), Some("byts")),
        (r#"{"tensors":[],"ops":[],"output":[]}"#.into(), Some("output")),
        (r#"{"tensors":[{"id":"x","bytes":1}],"ops":[{"id":"a","inputs":["x"],"r":1}]}"#.into(), Some("`r`")),
        // Structure.
        (r#"{"tensors":[{"id":"x","alias_of":"x"}],"ops":[]}"#.into(), Some("\"x\"")),
        (r#"{"tensors":[{"id":"x","bytes":1}],"ops":[{"id":"a","inputs":["x"],"outputs":["x"]}]}"#.into(), Some("\"a\"")),
        (r#"{"tensors":[{"id":"x","bytes":1}],"ops":[{"id":"a","outputs":["x","x"]}]}"#.into(), Some("\"x\"")),
        (r#"{"tensors":[{"id":"x","bytes":1}],"ops":[],"outputs":["nope"]}"#.into(), Some("\"nope\"")),
        (r#"{"tensors":[{"id":"\ud800","bytes":1}],"ops":[]}"#.into(), Some("bad JSON")),
        // Valid edge graphs: empty, no ops but outputs, an op with no inputs or outputs.
        ("{}".into(), None),
        (r#"{"tensors":[],"ops":[],"outputs":[]}"#.into(), None),
        (r#"{"tensors":[{"id":"x","bytes":7}],"ops":[],"outputs":["x"]}"#.into(), None),
        (r#"{"tensors":[],"ops":[{"id":"a"}]}"#.into(), None),
        // Deeply nested JSON: no recursion blow-up in the parser.
        ("[".repeat(100_000), Some("JSON")),
        ("{\"a\":".repeat(100_000), Some("JSON")),
        (
            format!(r#"{{"meta":{}1{},"tensors":[],"ops":[]}}"#, "{\"a\":".repeat(50_000), "}".repeat(50_000)),
            Some("recursion"),
        ),
    ];
    // 1 MB ids: messages shorten them.
    let big = "x".repeat(1 << 20);
    c.push((
        format!(
            r#"{{"tensors":[{{"id":"{big}","bytes":1}},{{"id":"{big}","bytes":1}}],"ops":[]}}"#
        ),
        Some("1048576 bytes"),
    ));
    c.push((
        format!(r#"{{"tensors":[],"ops":[{{"id":"a","inputs":["{big}"]}}]}}"#),
        Some("1048576 bytes"),
    ));
    let mut c: Vec<(Vec<u8>, Option<&str>)> =
        c.into_iter().map(|(s, m)| (s.into_bytes(), m)).collect();
    // Not UTF-8, and NUL bytes.
    c.push((b"\xff\xfe{\"tensors\":[]}".to_vec(), Some("UTF-8")));
    c.push((
        b"{\"tensors\":[{\"id\":\"x\0\",\"bytes\":1}],\"ops\":[]}".to_vec(),
        Some("bad JSON"),
    ));
    c
}

fn check(what: &str, out: &Output, mentions: Option<&str>) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{what}: panicked: {err}");
    match mentions {
        None => assert_eq!(out.status.code(), Some(0), "{what}: {err}"),
        Some(m) => {
            assert_eq!(out.status.code(), Some(2), "{what}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
            assert!(err.starts_with("peakorder: "), "{what}: {err}");
            assert!(err.contains(m), "{what}: {err:.300} does not mention {m}");
            assert!(
                err.len() < 600,
                "{what}: message too long ({} bytes)",
                err.len()
            );
            assert!(out.stdout.is_empty(), "{what}");
        }
    }
}

#[test]
fn hostile_inputs_exit_2_with_one_line_through_every_method() {
    let methods = [
        "program", "greedy", "sp", "spize", "local", "inductor", "xla", "liu", "exact", "auto",
    ];
    for (i, (input, mentions)) in corpus().iter().enumerate() {
        let what = format!("input #{i} ({:.60})", String::from_utf8_lossy(input));
        for m in methods {
            let out = peakorder_stdin(
                &["plan", "-", "--method", m, "--budget-ms", "20", "--json"],
                input,
            );
            // A valid graph may still be refused by a method that does not apply to it.
            let refused = String::from_utf8_lossy(&out.stderr).contains("does not apply");
            if !(mentions.is_none() && refused) {
                check(&format!("plan --method {m} {what}"), &out, *mentions);
            } else {
                assert_eq!(out.status.code(), Some(2), "{what}");
            }
        }
        let out = peakorder_stdin(&["compare", "-", "--budget-ms", "20", "--json"], input);
        check(&format!("compare {what}"), &out, *mentions);
    }
}

#[test]
fn hostile_arguments_exit_2() {
    let g = br#"{"tensors":[{"id":"x","bytes":1},{"id":"y","bytes":1}],"ops":[{"id":"a","inputs":["x"],"outputs":["y"]}],"outputs":["y"]}"#;
    for args in [
        &["plan", "-", "--budget-ms", "NaN"][..],
        &["plan", "-", "--budget-ms", "inf"],
        &["plan", "-", "--budget-ms", "-1"],
        &["plan", "-", "--budget-ms", "x"],
        &["plan", "-", "--max-states", "-1"],
        &["plan", "-", "--max-memory-mb", "-1"],
        &["plan", "-", "--max-states", "18446744073709551616"],
        &["plan", "-", "--method", ""],
        &["compare", "-", "--budget-ms", "NaN"],
    ] {
        let out = peakorder_stdin(args, g);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    }
    // Extreme but valid budgets work.
    for args in [
        &["plan", "-", "--budget-ms", "0", "--method", "exact"][..],
        &["plan", "-", "--max-states", "0", "--method", "auto"],
        &["plan", "-", "--max-memory-mb", "0", "--method", "exact"],
        &["plan", "-", "--max-memory-mb", "18446744073709551615"],
    ] {
        let out = peakorder_stdin(args, g);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_million_op_chain_plans_through_the_cli() {
    let n = 1_000_000;
    let mut s = String::from("{\"tensors\":[");
    for i in 0..=n {
        s.push_str(&format!(
            "{}{{\"id\":\"t{i}\",\"bytes\":8}}",
            if i > 0 { "," } else { "" }
        ));
    }
    s.push_str("],\"ops\":[");
    for i in 0..n {
        s.push_str(&format!(
            "{}{{\"id\":\"o{i}\",\"inputs\":[\"t{i}\"],\"outputs\":[\"t{}\"]}}",
            if i > 0 { "," } else { "" },
            i + 1
        ));
    }
    s.push_str(&format!("],\"outputs\":[\"t{n}\"]}}"));
    let out = peakorder_stdin(&["plan", "-", "--json"], s.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(p["peak_bytes"], 24);
    assert_eq!(p["optimal"], true);
    assert_eq!(p["order"].as_array().unwrap().len(), n);
}

/// The corpus again with a memory limit (issue 29): every recompute method refuses bad input
/// as `plan` does; a valid graph either fits (exit 0) or is refused in one line (exit 2: the
/// limit is below what any schedule needs, or the method does not apply). Never a panic.
#[test]
fn hostile_inputs_with_a_memory_limit_exit_0_or_2_with_one_line() {
    for (i, (input, mentions)) in corpus().iter().enumerate() {
        let what = format!("input #{i} ({:.60})", String::from_utf8_lossy(input));
        for limit in ["1KiB", "0", "18446744073709551615"] {
            for m in ["auto", "exact", "revolve", "evict", "repair"] {
                let out = peakorder_stdin(
                    &[
                        "plan",
                        "-",
                        "--memory-limit",
                        limit,
                        "--recompute-method",
                        m,
                        "--budget-ms",
                        "20",
                        "--json",
                    ],
                    input,
                );
                let what = format!("plan --memory-limit {limit} --recompute-method {m} {what}");
                if mentions.is_some() {
                    check(&what, &out, *mentions);
                } else {
                    let err = String::from_utf8_lossy(&out.stderr);
                    assert!(matches!(out.status.code(), Some(0 | 2)), "{what}: {err}");
                    if out.status.code() == Some(2) {
                        assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
                    }
                }
            }
        }
        let out = peakorder_stdin(
            &[
                "compare",
                "-",
                "--memory-limit",
                "1KiB",
                "--budget-ms",
                "20",
            ],
            input,
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(101), "compare {what}: {err}");
        if mentions.is_some() {
            check(&format!("compare --memory-limit {what}"), &out, *mentions);
        }
    }
}
