//! Graph JSON bytes → parse → validate → a planned order → every layout method, and the order
//! search (`plan_and_layout`), under a node limit. For any graph the core accepts, each must
//! return a layout (or a clean size error, never `bad_layout`, the solvers' own self-check
//! failing) that the memory model's own walk (`check::check_graph`) finds valid, whose arena is
//! at least the order's peak and whose order keeps the peak within the order search's limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakorder::layout::check::check_graph;
use peakorder::layout::{layout, plan_and_layout, Layout, LayoutMethod, LayoutOptions};
use peakorder::{simulate, Error, Graph, Hooks, Method, NoClock, PlanOptions};

/// `proves`: the method may claim an optimum above the bound (the exact search, as in `auto`).
fn checked(g: &Graph, what: &str, proves: bool, l: &Layout, align: u64) {
    if let Err(e) = check_graph(
        g,
        &l.order_ix,
        &l.tensor_offsets,
        &l.op_workspace_offsets,
        align,
        l.arena_bytes,
    ) {
        panic!("{what}: invalid layout: {e}");
    }
    let sim = simulate(g, &l.order_ix).expect("a layout's order is valid");
    assert_eq!(l.peak_bytes, sim.peak_bytes, "{what}: peak");
    assert!(
        l.arena_bytes >= sim.peak_bytes,
        "{what}: arena below the peak"
    );
    assert!(
        l.lower_bound_bytes <= l.arena_bytes,
        "{what}: bound above the arena"
    );
    assert!(
        !l.optimal || proves || l.arena_bytes == l.lower_bound_bytes,
        "{what}: an optimum above the bound that it cannot prove"
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&knob, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(g) = Graph::from_json(text) else {
        return;
    };
    if g.ops().len() > 200 {
        return;
    }
    let align = [1u64, 4, 64, 256][(knob & 3) as usize];
    let plan_opts = PlanOptions {
        method: Method::Greedy,
        budget_ms: None,
        max_states: 2_000,
        ..PlanOptions::default()
    };
    let Ok(plan) = peakorder::plan(&g, &plan_opts, &NoClock) else {
        return;
    };
    let opts = |method| LayoutOptions {
        method,
        align,
        budget_ms: None,
        max_states: 2_000,
        capacity: None,
    };
    for &method in LayoutMethod::ALL {
        match layout(&g, &plan.order_ix, &opts(method), &NoClock) {
            Ok(l) => {
                let proves = matches!(method, LayoutMethod::Auto | LayoutMethod::Exact);
                checked(&g, &method.to_string(), proves, &l, align)
            }
            Err(e @ Error::BadLayout { .. }) => {
                panic!("{method}: the solver's layout failed its own check: {e}")
            }
            Err(_) => {}
        }
    }
    let slack = [0.0, 0.05][((knob >> 2) & 1) as usize];
    match plan_and_layout(
        &g,
        &plan_opts,
        &opts(LayoutMethod::Auto),
        slack,
        &NoClock,
        &Hooks::default(),
    ) {
        Ok(l) => {
            checked(&g, "auto with the order search", true, &l, align);
            let limit = (plan.peak_bytes as f64 * (1.0 + slack)).floor() as u64;
            assert!(
                l.peak_bytes <= limit.max(plan.peak_bytes),
                "the order search broke its peak limit"
            );
        }
        Err(e @ Error::BadLayout { .. }) => {
            panic!("order search: the solver's layout failed its own check: {e}")
        }
        Err(_) => {}
    }
});
