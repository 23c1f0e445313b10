//! Property tests: the simulator agrees with a naive reference written straight from the text of
//! docs/design.md §1 (over ids and sets, sharing no code with the core), and every planner returns a
//! valid order whose simulated peak equals the reported one, with a bound no higher than the
//! referee's optimum; the proving planners (exact, auto, liu where it applies) reach it.

mod common;

use std::collections::{HashMap, HashSet};

use common::any_graph;
use peakorder::dtype::Dtype;
use peakorder::format::GraphSpec;
use peakorder::order::program::program_order;
use peakorder::referee::least_peak;
use peakorder::simulate::checked_peak;
use peakorder::{lower_bound, plan, simulate, Graph, Method, NoClock, OpIx, PlanOptions};
use proptest::prelude::*;

/// docs/design.md §1, read literally: returns (peak, [(during, after)] per step).
fn naive_simulate(spec: &GraphSpec, order: &[String]) -> (u64, Vec<(u64, u64)>) {
    let tensor: HashMap<&str, &peakorder::format::TensorSpec> =
        spec.tensors.iter().map(|t| (t.id.as_str(), t)).collect();
    let op: HashMap<&str, &peakorder::format::OpSpec> =
        spec.ops.iter().map(|o| (o.id.as_str(), o)).collect();
    let bytes = |id: &str| -> u64 {
        let t = tensor[id];
        if t.alias_of.is_some() {
            return 0;
        }
        match (t.bytes, &t.shape, &t.dtype) {
            (Some(b), _, _) => b,
            (None, Some(shape), Some(dt)) => {
                shape.iter().product::<u64>() * Dtype::parse(dt).unwrap().size()
            }
            _ => unreachable!(),
        }
    };
    let roots: HashMap<String, String> = spec
        .tensors
        .iter()
        .map(|t| {
            let mut cur = t;
            while let Some(a) = &cur.alias_of {
                cur = tensor[a.as_str()];
            }
            (t.id.clone(), cur.id.clone())
        })
        .collect();
    let root = |id: &str| -> String { roots[id].clone() };
    let produced: HashSet<&str> = spec
        .ops
        .iter()
        .flat_map(|o| o.outputs.iter().map(|s| s.as_str()))
        .collect();
    let outputs: HashSet<String> = spec.outputs.iter().map(|t| root(t)).collect();
    // "T stays live while T or any of its views still has a consumer to run or is a graph output",
    // and "an op that produces a view of T consumes T".
    let consumers_of_storage = |r: &str| -> Vec<&str> {
        spec.ops
            .iter()
            .filter(|o| {
                o.inputs.iter().any(|i| root(i) == r)
                    || o.outputs
                        .iter()
                        .any(|t| tensor[t.as_str()].alias_of.is_some() && root(t) == r)
            })
            .map(|o| o.id.as_str())
            .collect()
    };
    let pinned = |r: &str| -> bool {
        outputs.contains(r) || (!produced.contains(r) && !tensor[r].donated.unwrap_or(false))
    };
    let mut live: HashSet<String> = spec
        .tensors
        .iter()
        .filter(|t| !produced.contains(t.id.as_str()) && t.alias_of.is_none())
        .map(|t| t.id.clone())
        .collect();
    let mem = |live: &HashSet<String>| live.iter().map(|t| bytes(t)).sum::<u64>();
    let mut peak = mem(&live);
    let mut ran: HashSet<&str> = HashSet::new();
    let mut steps = Vec::new();
    for v in order {
        let o = op[v.as_str()];
        let during =
            mem(&live) + o.outputs.iter().map(|t| bytes(t)).sum::<u64>() + o.workspace.unwrap_or(0);
        peak = peak.max(during);
        ran.insert(o.id.as_str());
        for t in &o.outputs {
            if tensor[t.as_str()].alias_of.is_none() {
                live.insert(t.clone());
            }
        }
        for t in o.inputs.iter().chain(o.outputs.iter()) {
            let r = root(t);
            if !pinned(&r) && consumers_of_storage(&r).iter().all(|c| ran.contains(c)) {
                live.remove(&r);
            }
        }
        steps.push((during, mem(&live)));
    }
    (peak, steps)
}

/// A random topological order, picking among ready ops by `picks`.
fn random_topo(g: &Graph, picks: &[usize]) -> Vec<OpIx> {
    let mut k = 0;
    common::topo_order_by(g, |_| {
        k += 1;
        picks.get(k - 1).copied().unwrap_or(0)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn simulator_matches_the_naive_reference(c in any_graph(0..=9), picks in prop::collection::vec(0usize..1000, 12)) {
        let (spec, g) = (&c.spec, &c.graph);
        let order = random_topo(g, &picks);
        let sim = simulate(g, &order).unwrap();
        let ids = g.op_ids(&order);
        let (peak, steps) = naive_simulate(spec, &ids);
        prop_assert_eq!(sim.peak_bytes, peak);
        let got: Vec<(u64, u64)> = sim.steps.iter().map(|s| (s.during_bytes, s.after_bytes)).collect();
        prop_assert_eq!(got, steps);
        prop_assert_eq!(sim.peak_bytes, peakorder::peak_of(g, &order));
        prop_assert!(sim.peak_bytes >= lower_bound(g));
    }

    /// The plan's one-pass re-check is the full check plus the simulation: the same peak on
    /// every valid order, the same error on every invalid one (a swap, a repeat, a missing or
    /// unknown op); and the program order's check agrees with the full check.
    #[test]
    fn checked_peak_is_check_order_and_peak_of(
        c in any_graph(0..=9),
        picks in prop::collection::vec(0usize..1000, 12),
        i in 0usize..16,
        j in 0usize..16,
        mutation in 0usize..5,
    ) {
        let g = &c.graph;
        let order = random_topo(g, &picks);
        prop_assert_eq!(checked_peak(g, &order).unwrap(), peakorder::peak_of(g, &order));
        let identity: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
        prop_assert_eq!(
            program_order(g).map_err(|e| e.to_string()),
            g.check_order(&identity).map(|()| identity.clone()).map_err(|e| e.to_string())
        );
        let mut bad = order.clone();
        let n = bad.len();
        match mutation {
            0 if n > 1 => bad.swap(i % n, j % n),
            1 if n > 0 => bad[i % n] = bad[j % n],
            2 if n > 0 => { bad.remove(i % n); }
            3 => bad.push(n as OpIx + (i as OpIx)),
            _ => bad.push(bad.first().copied().unwrap_or(0)),
        }
        let want = g.check_order(&bad).map(|()| peakorder::peak_of(g, &bad));
        prop_assert_eq!(
            checked_peak(g, &bad).map_err(|e| e.to_string()),
            want.map_err(|e| e.to_string())
        );
    }

    #[test]
    fn planners_return_valid_orders_with_true_peaks(c in any_graph(0..=8)) {
        let g = &c.graph;
        let optimum = least_peak(g);
        let bound = lower_bound(g);
        prop_assert!(bound <= optimum, "lower bound {} above optimum {}", bound, optimum);
        for &method in Method::ALL {
            let opts = PlanOptions { method, ..PlanOptions::default() };
            match plan(g, &opts, &NoClock) {
                Ok(p) => {
                    let order = g.order_from_ids(&p.order).unwrap();
                    prop_assert_eq!(simulate(g, &order).unwrap().peak_bytes, p.peak_bytes, "{}: reported peak", method);
                    prop_assert!(p.lower_bound_bytes <= optimum, "{}: bound {} above the optimum {}", method, p.lower_bound_bytes, optimum);
                    prop_assert!(!p.optimal || p.peak_bytes == optimum, "{} claims optimal", method);
                    // With the default budget and no clock, the proving planners finish on
                    // graphs this small.
                    if matches!(method, Method::Exact | Method::Auto | Method::Liu) {
                        prop_assert!(p.optimal, "{}: not proven", method);
                        prop_assert_eq!(p.peak_bytes, optimum, "{}: not optimal", method);
                    }
                }
                // The only refusals: a file order that is not topological, and a method that does
                // not apply to this graph (liu on a non-forest...).
                Err(e) => prop_assert!(
                    (method == Method::Program && e.code() == "not_topological") || e.code() == "not_applicable",
                    "{}: {}", method, e
                ),
            }
        }
    }
}
