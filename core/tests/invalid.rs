//! Every malformed input of docs/design.md §2 (tests/cases/invalid) is refused with the expected
//! error code and a one-line message naming the culprit; nothing panics.

mod common;

use common::cases_dir;
use peakorder::Graph;

#[test]
fn invalid_fixtures_fail_with_their_code_and_name_the_culprit() {
    let dir = cases_dir().join("invalid");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("_expected.json")).unwrap())
            .unwrap();
    let manifest = manifest.as_object().unwrap();
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('_') {
            continue;
        }
        let want = manifest
            .get(&name)
            .unwrap_or_else(|| panic!("{name} is not in _expected.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        let err = Graph::from_json(&text).expect_err(&name);
        let msg = err.to_string();
        assert_eq!(err.code(), want["code"].as_str().unwrap(), "{name}: {msg}");
        assert!(
            msg.contains(want["mentions"].as_str().unwrap()),
            "{name}: message {msg:?} does not mention {}",
            want["mentions"]
        );
        assert!(
            !msg.contains('\n'),
            "{name}: message is not one line: {msg:?}"
        );
        assert!(msg.len() < 400, "{name}: message too long");
        seen += 1;
    }
    assert_eq!(seen, manifest.len(), "every manifest entry has a file");
}

#[test]
fn a_megabyte_id_is_shortened_in_messages() {
    let id = "x".repeat(1 << 20);
    let text =
        format!(r#"{{"tensors":[{{"id":"{id}","bytes":1}},{{"id":"{id}","bytes":1}}],"ops":[]}}"#);
    let err = Graph::from_json(&text).unwrap_err();
    assert_eq!(err.code(), "duplicate_id");
    assert!(err.to_string().len() < 200);
    assert!(err.to_string().contains("1048576 bytes"));
}

#[test]
fn cycle_message_lists_the_cycle_in_order() {
    let text = std::fs::read_to_string(cases_dir().join("invalid/cycle.json")).unwrap();
    let msg = Graph::from_json(&text).unwrap_err().to_string();
    // f -> g -> h -> f, starting anywhere on the cycle.
    let ok = [
        "\"f\" -> \"g\" -> \"h\" -> \"f\"",
        "\"g\" -> \"h\" -> \"f\" -> \"g\"",
        "\"h\" -> \"f\" -> \"g\" -> \"h\"",
    ];
    assert!(ok.iter().any(|c| msg.contains(c)), "{msg}");
}

#[test]
fn edge_graphs_are_valid() {
    let empty = Graph::from_json("{}").unwrap();
    assert_eq!(empty.num_ops(), 0);
    let no_ops =
        Graph::from_json(r#"{"tensors":[{"id":"x","bytes":7}],"ops":[],"outputs":["x"]}"#).unwrap();
    let sim = peakorder::simulate(&no_ops, &[]).unwrap();
    assert_eq!((sim.peak_bytes, sim.peak_step), (7, None));
    assert_eq!(sim.live_at_peak, vec!["x".to_string()]);
}

#[test]
fn orders_are_checked_and_the_first_offender_named() {
    let text = std::fs::read_to_string(cases_dir().join("diamond.json")).unwrap();
    let g = Graph::from_json(&text).unwrap();
    let e = g.order_from_ids(&["B", "A", "C", "D"]).unwrap_err();
    assert_eq!(e.code(), "not_topological");
    assert!(
        e.to_string().contains("\"B\"") && e.to_string().contains("\"A\""),
        "{e}"
    );
    assert_eq!(
        g.order_from_ids(&["A", "B", "C"]).unwrap_err().code(),
        "missing_op"
    );
    assert_eq!(
        g.order_from_ids(&["A", "A", "B", "C", "D"])
            .unwrap_err()
            .code(),
        "repeated_op"
    );
    assert_eq!(
        g.order_from_ids(&["A", "Z"]).unwrap_err().code(),
        "unknown_op"
    );
}
