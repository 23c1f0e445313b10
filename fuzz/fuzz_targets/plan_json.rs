//! JSON bytes → parse → validate → every planner with a small budget → simulate, asserting the
//! invariants of docs/design.md §3: no panic, every order valid, reported peak = simulated peak,
//! peak ≥ lower bound, and `optimal` only when true.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakorder::invariants::check_all_methods;
use peakorder::Graph;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(g) = Graph::from_json(text) else {
        return;
    };
    if let Err(e) = check_all_methods(&g, 2_000) {
        panic!("invariant broken: {e}");
    }
});
