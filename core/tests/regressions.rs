//! Every fixture, malformed input and fuzz-found regression goes through every planner with a
//! small budget and must keep the plan invariants (see `peakorder::invariants`).

mod common;

use common::cases_dir;
use peakorder::invariants::check_all_methods;
use peakorder::Graph;

#[test]
fn corpus_keeps_the_plan_invariants() {
    let mut checked = 0;
    for sub in ["", "invalid", "regressions"] {
        let dir = cases_dir().join(sub);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            if path.is_dir() {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let Ok(text) = std::str::from_utf8(&bytes) else {
                continue;
            };
            if let Ok(g) = Graph::from_json(text) {
                check_all_methods(&g, 2_000).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
            checked += 1;
        }
    }
    assert!(checked > 30);
}
