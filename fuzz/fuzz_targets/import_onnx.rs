//! ONNX bytes → `peakorder import onnx`'s importer → validate → (small graphs) every planner →
//! simulate. The importer must return a graph or an error for any bytes, never panic (truncated or
//! corrupt protobuf, huge, negative or overflowing dims and attributes, hostile shape
//! computations); a graph it returns that the core accepts must keep docs/design.md §3's
//! invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakorder::invariants::check_all_methods;
use peakorder::Graph;
use peakorder_gpu::import::onnx;

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = onnx::import(data, &onnx::Options::default()) else {
        return;
    };
    // The CLI refuses a spec the core rejects (an overflowing size, say) with exit 2.
    let Ok(g) = Graph::from_spec(spec) else {
        return;
    };
    if g.ops().len() <= 64 {
        if let Err(e) = check_all_methods(&g, 2_000) {
            panic!("invariant broken: {e}");
        }
    }
});
