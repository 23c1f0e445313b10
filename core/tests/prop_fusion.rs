//! Fusion against brute force: on tiny random graphs every region choice is enumerated and every
//! fused graph is planned exactly (by the referee, `peakorder::referee`: the least peak over all
//! topological orders), and `fuse` must need no more kernels than the best choice that respects
//! the same limit. Every fused graph must re-validate from its own JSON and its plan must
//! re-simulate to the reported peak. The fixtures in `tests/cases/fusion-*.json` carry their
//! expected results in `meta.expect`; the graphs in `tests/cases/regressions/` with fusion tags
//! go through the exhaustive check at every limit near their optimum.

mod common;

use std::collections::HashSet;

use common::{cases_dir, graph, json_files};
use peakorder::examples::{seed_graph, SeedOptions, SeedOrder};
use peakorder::format::GraphSpec;
use peakorder::fusion::{
    best_plan, contract, fuse, fuse_with, graph_spec, run, thunder_regions, FuseOptions,
    FusedGraph, Fusion,
};
use peakorder::generators::small::Family;
use peakorder::referee;
use peakorder::{peak_of, simulate, Budget, Clock, Error, Graph, NoClock, OpIx};
use proptest::prelude::*;
use serde_json::Value;

fn budget() -> Budget<'static> {
    Budget::new(&NoClock, None, 1_000_000_000)
}

/// The least peak over all orders of `g`, with an order reaching it (the referee), in the shape
/// `fuse_with` takes from a planner.
fn exact_plan(g: &Graph) -> (Vec<OpIx>, u64) {
    let (peak, order) = referee::best_order(g);
    (order, peak)
}

// ---------- every region choice ----------

/// Every set partition of `0..n` as restricted growth strings.
fn partitions(n: usize) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|s: Vec<usize>| {
                let top = s.iter().max().map_or(0, |&x| x + 1);
                (0..=top).map(move |b| {
                    let mut t = s.clone();
                    t.push(b);
                    t
                })
            })
            .collect();
    }
    out
}

/// Every valid region choice of `g` (same tag within a region, no cycle) with its fused graph's
/// exact peak, as (ops after fusion, peak).
fn all_fusions(g: &Graph) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    'choice: for p in partitions(g.num_ops()) {
        let blocks = p.iter().max().map_or(0, |&x| x + 1);
        let mut regions: Vec<Vec<OpIx>> = vec![Vec::new(); blocks];
        for (v, &b) in p.iter().enumerate() {
            regions[b].push(v as OpIx);
        }
        for r in &regions {
            if r.len() > 1 {
                let tag = &g.ops()[r[0] as usize].fusible;
                if tag.is_none() || r.iter().any(|&v| &g.ops()[v as usize].fusible != tag) {
                    continue 'choice;
                }
            }
        }
        match contract(g, &regions) {
            Ok(c) => {
                assert_eq!(c.graph.num_ops(), blocks);
                out.push((blocks, exact_plan(&c.graph).1));
            }
            Err(Error::RegionCycle { .. }) => {}
            Err(e) => panic!("contract refused a same-tag choice: {e}"),
        }
    }
    out
}

// ---------- checks every fusion result must pass ----------

/// The fused graph re-validates from its own JSON, its order re-simulates to the reported peak,
/// and its regions are what the ops say they are.
fn check_side(g: &Graph, side: &FusedGraph) {
    let json = side.to_spec().to_json();
    let again = Graph::from_json(&json).expect("fused graph re-validates");
    // Written in the planned order, the file's own order is the plan.
    let program: Vec<OpIx> = (0..again.num_ops() as OpIx).collect();
    assert_eq!(again.op_ids(&program), side.order);
    let order = again.order_from_ids(&side.order).expect("order is valid");
    let sim = simulate(&again, &order).unwrap();
    assert_eq!(sim.peak_bytes, side.peak_after_bytes, "re-simulated peak");
    assert_eq!(side.ops_after, again.num_ops());
    assert_eq!(side.within_limit, side.peak_after_bytes <= side.limit_bytes);
    let merged: usize = side.regions.iter().map(|r| r.len() - 1).sum();
    assert_eq!(side.ops_after + merged, g.num_ops());
    let mut seen = HashSet::new();
    for (r, ids) in side.regions_ix.iter().zip(&side.regions) {
        assert!(r.len() > 1);
        assert_eq!(&g.op_ids(r), ids);
        let tag = g.ops()[r[0] as usize].fusible.clone();
        assert!(tag.is_some());
        for &v in r {
            assert!(seen.insert(v), "op in two regions");
            assert_eq!(g.ops()[v as usize].fusible, tag);
        }
        assert!(
            again.op_ix(&ids.join("+")).is_some(),
            "region op is named by its members"
        );
    }
    check_regions_structure(g, &again, &side.regions_ix);
}

/// Without views, a region's inputs are what its members read from outside and its outputs what
/// they make that is read outside or is a graph output; its workspace is its members' largest.
fn check_regions_structure(g: &Graph, fused: &Graph, regions: &[Vec<OpIx>]) {
    if g.tensors().iter().any(|t| t.alias_of.is_some()) {
        return;
    }
    let is_output: HashSet<u32> = g.outputs().iter().copied().collect();
    for r in regions {
        let inside: HashSet<OpIx> = r.iter().copied().collect();
        let made: HashSet<u32> = r
            .iter()
            .flat_map(|&v| g.ops()[v as usize].outputs.iter().copied())
            .collect();
        let mut want_in: Vec<String> = Vec::new();
        let mut want_out: Vec<String> = Vec::new();
        for &v in r {
            for &t in &g.ops()[v as usize].inputs {
                let id = g.tensors()[t as usize].id.clone();
                if !made.contains(&t) && !want_in.contains(&id) {
                    want_in.push(id);
                }
            }
            for &t in &g.ops()[v as usize].outputs {
                let read_outside = (0..g.num_ops() as OpIx)
                    .any(|w| !inside.contains(&w) && g.ops()[w as usize].inputs.contains(&t));
                if read_outside || is_output.contains(&t) {
                    want_out.push(g.tensors()[t as usize].id.clone());
                }
            }
        }
        let name: Vec<&str> = r.iter().map(|&v| g.ops()[v as usize].id.as_str()).collect();
        let f = fused.op_ix(&name.join("+")).unwrap();
        let op = &fused.ops()[f as usize];
        let ids = |ts: &[u32]| -> Vec<String> {
            ts.iter()
                .map(|&t| fused.tensors()[t as usize].id.clone())
                .collect()
        };
        let (mut a, mut b) = (ids(&op.inputs), want_in);
        a.sort();
        b.sort();
        assert_eq!(a, b, "inputs of region {}", op.id);
        let (mut a, mut b) = (ids(&op.outputs), want_out);
        a.sort();
        b.sort();
        assert_eq!(a, b, "outputs of region {}", op.id);
        let ws = r.iter().map(|&v| g.workspace(v)).max().unwrap_or(0);
        assert_eq!(op.workspace, ws);
        // Tensors made and used only inside are gone.
        for &t in &made {
            let id = &g.tensors()[t as usize].id;
            assert_eq!(
                fused.tensor_ix(id).is_some(),
                op.outputs
                    .iter()
                    .any(|&o| &fused.tensors()[o as usize].id == id)
            );
        }
    }
}

fn check_fusion(g: &Graph, f: &Fusion) {
    assert!(
        f.fused.peak_after_bytes <= f.fused.limit_bytes,
        "peak within limit"
    );
    assert!(f.fused.within_limit);
    check_side(g, &f.fused);
    check_side(g, &f.baseline);
    let mut b = f.baseline.regions_ix.clone();
    b.sort();
    assert_eq!(b, thunder_regions(g));
}

/// With an exact planner, `fuse` needs no more kernels than any region choice whose exact peak
/// respects the limit (`optimum + slack`, or the default, the optimum), and fails only when no
/// choice does.
fn fuse_is_minimal(g: &Graph, slack: Option<i64>) -> Result<(), TestCaseError> {
    let (_, optimum) = exact_plan(g);
    let limit = slack.map_or(optimum, |s| (optimum as i64 + s).max(0) as u64);
    let all = all_fusions(g);
    let best_ops = all
        .iter()
        .filter(|&&(_, p)| p <= limit)
        .map(|&(k, _)| k)
        .min();
    let mut exact = |fg: &Graph, _: &[Vec<OpIx>]| Ok(exact_plan(fg));
    let result = fuse_with(g, slack.map(|_| limit), &budget(), &mut exact);
    match (best_ops, result) {
        (Some(k), Ok(f)) => {
            prop_assert_eq!(f.fused.limit_bytes, limit);
            prop_assert_eq!(f.fused.peak_before_bytes, optimum);
            prop_assert!(f.exhaustive);
            prop_assert_eq!(f.fused.ops_after, k, "fuse is not minimal");
            check_fusion(g, &f);
        }
        (None, Err(Error::PeakLimit { limit: l, best })) => {
            prop_assert_eq!(l, limit);
            let lowest = all.iter().map(|&(_, p)| p).min().unwrap();
            prop_assert_eq!(best, lowest);
        }
        (k, r) => prop_assert!(
            false,
            "exhaustive says {:?}, fuse says {:?}",
            k,
            r.map(|f| f.fused.ops_after)
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// `fuse` with an exact planner is minimal at limits around the optimum and at the default.
    #[test]
    fn fuse_is_minimal_against_exhaustive_search(
        c in graph(Family::General, 1..=6),
        slack in -4i64..=4,
        default_limit in any::<bool>(),
    ) {
        fuse_is_minimal(&c.graph, (!default_limit).then_some(slack))?;
    }

    /// With the real planner, on graphs too big to enumerate (the agglomerative search), the
    /// fused peak stays within the limit, which defaults to `best_plan`'s unfused peak, and every
    /// result re-validates and re-simulates.
    #[test]
    fn fuse_respects_the_limit(c in graph(Family::General, 1..=24)) {
        let g = &c.graph;
        let (_, unfused) = best_plan(g, &budget(), &[]).unwrap();
        let f = fuse(g, None, &budget()).unwrap();
        prop_assert_eq!(f.fused.limit_bytes, unfused);
        prop_assert_eq!(f.fused.peak_before_bytes, unfused);
        check_fusion(g, &f);
    }
}

/// The regression graphs with fusion tags, small enough to enumerate, at every limit near their
/// optimum; the larger ones with the real planner.
#[test]
fn fusion_regressions_stay_fixed() {
    let mut checked = 0;
    for (name, text) in json_files("regressions") {
        let Ok(g) = Graph::from_json(&text) else {
            continue;
        };
        if g.ops().iter().all(|o| o.fusible.is_none()) {
            continue;
        }
        if g.num_ops() <= 6 {
            for slack in [
                None,
                Some(-4),
                Some(-3),
                Some(-2),
                Some(-1),
                Some(0),
                Some(1),
                Some(2),
            ] {
                fuse_is_minimal(&g, slack)
                    .unwrap_or_else(|e| panic!("{name}, slack {slack:?}: {e}"));
            }
        }
        let f = fuse(&g, None, &budget()).unwrap_or_else(|e| panic!("{name}: {e}"));
        check_fusion(&g, &f);
        checked += 1;
    }
    assert!(checked >= 3, "the fusion regressions are missing");
}

#[test]
fn seed_with_three_paths_fuses_one_pair_exactly() {
    // Small enough to enumerate: 6 fusible relus, Bell(6) = 203 region choices.
    for order in [SeedOrder::BreadthFirst, SeedOrder::PathByPath] {
        let g = Graph::from_spec(seed_graph(SeedOptions {
            paths: 3,
            order,
            fusible_tags: true,
        }))
        .unwrap();
        let (_, optimum) = exact_plan(&g);
        assert_eq!(optimum - g.inputs_bytes(), 3 * 262_144);
        let all = all_fusions(&g);
        let best = all
            .iter()
            .filter(|&&(_, p)| p <= optimum)
            .map(|&(k, _)| k)
            .min();
        assert_eq!(best, Some(11), "exactly one merge keeps the optimum");
        let mut exact = |fg: &Graph, _: &[Vec<OpIx>]| Ok(exact_plan(fg));
        let f = fuse_with(&g, None, &budget(), &mut exact).unwrap();
        assert!(f.exhaustive);
        assert_eq!(f.fused.ops_after, 11);
        check_fusion(&g, &f);
        // The greedy planner with projected hints finds the same.
        let f = fuse(&g, None, &budget()).unwrap();
        assert_eq!((f.fused.ops_after, f.fused.peak_after_bytes), (11, optimum));
    }
}

/// A clock stopped far from zero: a deadline taken as absolute (not start + budget) would have
/// passed long ago on it.
struct LateClock;

impl Clock for LateClock {
    fn now_ms(&self) -> f64 {
        1e9
    }
}

#[test]
fn run_builds_the_budget_from_its_options() {
    let g = Graph::from_spec(seed_graph(SeedOptions {
        paths: 3,
        order: SeedOrder::BreadthFirst,
        fusible_tags: true,
    }))
    .unwrap();
    let defaults = FuseOptions::default();
    let direct = fuse(&g, None, &Budget::new(&NoClock, None, defaults.max_states)).unwrap();
    assert!(direct.exhaustive);
    let json = |f: &Fusion| serde_json::to_value(f).unwrap();
    let no_deadline = FuseOptions {
        budget_ms: None,
        ..defaults
    };
    assert_eq!(
        json(&run(&g, &no_deadline, &NoClock).unwrap()),
        json(&direct)
    );
    // The deadline counts from the clock's now: the search is not cut short.
    let f = run(&g, &defaults, &LateClock).unwrap();
    assert_eq!(json(&f), json(&direct));
    // The limit is passed through, and one nothing meets is an error.
    let limit = direct.fused.peak_before_bytes + 1;
    let f = run(
        &g,
        &FuseOptions {
            peak_limit: Some(limit),
            ..defaults
        },
        &NoClock,
    )
    .unwrap();
    assert_eq!(f.fused.limit_bytes, limit);
    let low = FuseOptions {
        peak_limit: Some(0),
        ..defaults
    };
    assert_eq!(run(&g, &low, &NoClock).unwrap_err().code(), "peak_limit");
}

// ---------- fixtures ----------

fn fusion_cases() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(cases_dir())
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            (name.starts_with("fusion-") && name.ends_with(".json")).then_some(name)
        })
        .map(|name| {
            let text = std::fs::read_to_string(cases_dir().join(&name)).unwrap();
            (name, text)
        })
        .collect();
    out.sort();
    out
}

fn check_expect(name: &str, side: &FusedGraph, expect: &Value) {
    let got = serde_json::to_value(side).unwrap();
    for (k, want) in expect.as_object().unwrap() {
        if k == "baseline" {
            continue;
        }
        assert_eq!(got.get(k), Some(want), "{name}: field {k}");
    }
}

#[test]
fn fixtures_meet_their_expectations() {
    let cases = fusion_cases();
    assert!(cases.len() >= 4, "fusion fixtures missing");
    for (name, text) in cases {
        let g = Graph::from_json(&text).unwrap();
        let expect = g
            .meta()
            .and_then(|m| m.get("expect"))
            .cloned()
            .expect("meta.expect");
        let f = fuse(&g, None, &budget()).unwrap();
        check_fusion(&g, &f);
        check_expect(&name, &f.fused, &expect);
        check_expect(&name, &f.baseline, &expect["baseline"]);
        // The JSON carries every field docs/design.md §4 names.
        let v = serde_json::to_value(&f).unwrap();
        for k in [
            "regions",
            "ops_before",
            "ops_after",
            "peak_before_bytes",
            "peak_after_bytes",
            "limit_bytes",
            "order",
        ] {
            assert!(v.get(k).is_some(), "{name}: {k}");
            assert!(v["baseline"].get(k).is_some(), "{name}: baseline.{k}");
        }
    }
}

#[test]
fn seed_acceptance() {
    for order in [SeedOrder::BreadthFirst, SeedOrder::PathByPath] {
        let g = Graph::from_spec(seed_graph(SeedOptions {
            paths: 10,
            order,
            fusible_tags: true,
        }))
        .unwrap();
        let f = fuse(&g, None, &budget()).unwrap();
        let above = |p: u64| p - g.inputs_bytes();
        assert_eq!(
            above(f.fused.peak_before_bytes),
            786_432,
            "unfused optimum 0.75 MiB above"
        );
        assert_eq!(
            above(f.fused.peak_after_bytes),
            786_432,
            "fuse keeps 0.75 MiB above"
        );
        assert!(
            f.baseline.peak_after_bytes > f.fused.peak_before_bytes,
            "baseline raises it"
        );
        assert_eq!(f.fused.ops_after, 39);
        assert_eq!(f.baseline.ops_after, 22);
        check_fusion(&g, &f);
    }
}

#[test]
fn seed_fixtures_are_the_seed_graph() {
    for (file, order) in [
        ("fusion-seed-breadth-first.json", SeedOrder::BreadthFirst),
        ("fusion-seed-path-by-path.json", SeedOrder::PathByPath),
    ] {
        let text = std::fs::read_to_string(cases_dir().join(file)).unwrap();
        let mut from_file = GraphSpec::from_json(&text).unwrap();
        let mut built = seed_graph(SeedOptions {
            paths: 10,
            order,
            fusible_tags: true,
        });
        from_file.meta = None;
        built.meta = None;
        assert_eq!(from_file, built, "{file}");
    }
}

#[test]
fn contract_rejects_bad_regions() {
    let g = Graph::from_spec(seed_graph(SeedOptions::default())).unwrap();
    let ix = |id: &str| g.op_ix(id).unwrap();
    // relu1_0 -> mm1_0 -> relu2_0: fusing the relus would loop through the matmul.
    match contract(&g, &[vec![ix("relu1_0"), ix("relu2_0")]]) {
        Err(e @ Error::RegionCycle { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("relu1_0+relu2_0") && msg.contains("mm1_0"),
                "{msg}"
            );
        }
        other => panic!("expected a cycle, got {other:?}"),
    }
    let bad = |regions: &[Vec<OpIx>]| match contract(&g, regions) {
        Err(e @ Error::BadRegion { .. }) => e.code(),
        other => panic!("expected bad_region, got {other:?}"),
    };
    assert_eq!(bad(&[vec![ix("relu1_0"), ix("mm1_0")]]), "bad_region"); // matmul not fusible
    assert_eq!(
        bad(&[
            vec![ix("relu1_0"), ix("relu1_1")],
            vec![ix("relu1_1"), ix("relu1_2")]
        ]),
        "bad_region"
    );
    assert_eq!(bad(&[vec![]]), "bad_region");
    assert_eq!(bad(&[vec![ix("relu1_0"), ix("relu1_0")]]), "bad_region");
    assert_eq!(bad(&[vec![9999]]), "bad_region");
    // Identity: no regions gives the same graph, peak for peak.
    let c = contract(&g, &[]).unwrap();
    assert_eq!(c.graph.num_ops(), g.num_ops());
    let order: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
    assert_eq!(peak_of(&c.graph, &order), peak_of(&g, &order));
}

#[test]
fn graph_spec_round_trips() {
    for (_, text) in fusion_cases() {
        let g = Graph::from_json(&text).unwrap();
        let again = Graph::from_json(&graph_spec(&g).to_json()).unwrap();
        assert_eq!(again.tensors(), g.tensors());
        assert_eq!(again.ops(), g.ops());
        assert_eq!(again.outputs(), g.outputs());
    }
}

#[test]
fn views_inside_a_region() {
    // x -> a (relu) -> av (a view of a) -> b (add) ; b is the output. a and av live only inside.
    let text = r#"{"tensors": [
        {"id": "x", "bytes": 100}, {"id": "a", "bytes": 100}, {"id": "av", "alias_of": "a"},
        {"id": "b", "bytes": 100}, {"id": "c", "bytes": 100}],
      "ops": [
        {"id": "relu", "inputs": ["x"], "outputs": ["a"], "fusible": "f"},
        {"id": "view", "inputs": ["a"], "outputs": ["av"], "fusible": "f"},
        {"id": "add", "inputs": ["av"], "outputs": ["b"], "fusible": "f"},
        {"id": "use", "inputs": ["av", "b"], "outputs": ["c"]}],
      "outputs": ["c"]}"#;
    let g = Graph::from_json(text).unwrap();
    let ix = |id: &str| g.op_ix(id).unwrap();
    // `use` reads the view, so the view and the storage it aliases stay.
    let c = contract(&g, &[vec![ix("relu"), ix("view"), ix("add")]]).unwrap();
    let f = &c.graph;
    let r = f.op_ix("relu+view+add").unwrap();
    let outs: Vec<&str> = f.ops()[r as usize]
        .outputs
        .iter()
        .map(|&t| f.tensors()[t as usize].id.as_str())
        .collect();
    assert_eq!(outs, vec!["a", "av", "b"]);
    // Without `use` reading the view, only b leaves the region.
    let text2 = text.replace(r#""inputs": ["av", "b"]"#, r#""inputs": ["b"]"#);
    let g2 = Graph::from_json(&text2).unwrap();
    let c2 = contract(&g2, &[vec![0, 1, 2]]).unwrap();
    let f2 = &c2.graph;
    assert!(f2.tensor_ix("a").is_none() && f2.tensor_ix("av").is_none());
    let order: Vec<OpIx> = (0..f2.num_ops() as OpIx).collect();
    assert_eq!(peak_of(f2, &order), 300); // x + b + c at most
}
