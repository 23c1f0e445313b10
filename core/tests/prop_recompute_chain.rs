//! Property tests for the chain optimum (`recompute::chain`, Revolve): on homogeneous chain
//! training graphs with 2..10 activation slots (and 1), the added cost equals the binomial
//! optimum computed here independently (Griewank's closed form, checked against the naive
//! O(l²s) recursion), every schedule is valid and within its limit by the simulator, the
//! optimum is the least of an exhaustive search of the reversal game (n ≤ 14) and of every
//! schedule of the graph itself in the memory model (n ≤ 5), the public planner reports it as
//! proven, and graphs that are not such chains are `Unknown`.

mod common;

use std::collections::{BinaryHeap, HashMap, VecDeque};

use common::any_graph;
use peakorder::format::GraphSpec;
use peakorder::generators::chain_train::ChainTrain;
use peakorder::recompute::chain::{self, Chain};
use peakorder::recompute::{added_cost, simulate_schedule, Outcome, RecomputeMethod};
use peakorder::{plan, Graph, NoClock, OpIx, PlanOptions};
use proptest::prelude::*;

/// C(a, b), exact (small arguments only).
fn binom(a: u64, b: u64) -> u128 {
    if b > a {
        return 0;
    }
    let b = b.min(a - b);
    (0..b as u128).fold(1u128, |acc, i| acc * (a as u128 - i) / (i + 1))
}

/// Griewank's closed form: forward steps to reverse `l` steps with `s` checkpoints,
/// `t·l − β(s + 1, t − 1)` with `β(s, t) = C(s + t, s)` and `t` the least with `β(s, t) ≥ l`.
fn binomial_optimum(l: u64, s: u64) -> u64 {
    assert!(s >= 1 && l >= 1);
    let mut t = 0u64;
    while binom(s + t, s) < l as u128 {
        t += 1;
    }
    let back = if t == 0 { 0 } else { binom(s + t, t - 1) };
    (t as u128 * l as u128 - back) as u64
}

/// The naive recursion `F(l, s) = min_j j + F(l − j, s − 1) + F(j, s)`, `F(1, s) = 0`,
/// `F(l ≥ 2, 0) = ∞`, as a table `f[l][s]`.
fn naive(l_max: usize, s_max: usize) -> Vec<Vec<u64>> {
    let mut f = vec![vec![u64::MAX; s_max + 1]; l_max + 1];
    for row in f.iter_mut().skip(1).take(1) {
        row.iter_mut().for_each(|x| *x = 0);
    }
    for l in 2..=l_max {
        for s in 1..=s_max {
            let mut best = u64::MAX;
            for j in 1..l {
                let (up, down) = (f[l - j][s - 1], f[j][s]);
                if up != u64::MAX && down != u64::MAX {
                    best = best.min(j as u64 + up + down);
                }
            }
            f[l][s] = best;
        }
    }
    f
}

fn build(c: &ChainTrain) -> Graph {
    Graph::from_spec(c.spec()).unwrap()
}

/// The plan at `limit` is the optimum with `slots` slots, valid and within the limit.
fn check_plan(c: &ChainTrain, g: &Graph, limit: u64, slots: u64) -> Result<(), TestCaseError> {
    let n = c.n as u64;
    let want = binomial_optimum(n + 1, slots.min(n)) - n;
    match chain::plan(g, limit) {
        Outcome::Found(f) => {
            let sim = simulate_schedule(g, &f.schedule)
                .map_err(|e| TestCaseError::fail(format!("invalid schedule: {e}")))?;
            prop_assert!(
                sim.peak_bytes <= limit,
                "n {n}, {slots} slots: peak {} over the limit {limit}",
                sim.peak_bytes
            );
            let runs = f
                .schedule
                .iter()
                .filter(|&&v| g.ops()[v as usize].kind == "relu")
                .count() as u64;
            prop_assert_eq!(runs - n, want, "n {}, {} slots: forward reruns", n, slots);
            prop_assert_eq!(f.added_cost, added_cost(g, &f.schedule));
            prop_assert_eq!(f.added_cost, want as f64 * c.forward_cost);
            prop_assert_eq!(f.cost_bound, f.added_cost);
            // Nothing but forward ops repeats.
            let mut seen = vec![0u32; g.num_ops()];
            for &v in &f.schedule {
                seen[v as usize] += 1;
            }
            for (v, &k) in seen.iter().enumerate() {
                prop_assert!(
                    k == 1 || g.ops()[v].kind == "relu",
                    "{} ran {k} times",
                    g.ops()[v].id
                );
            }
        }
        o => prop_assert!(false, "n {n}, {slots} slots: {o:?}"),
    }
    Ok(())
}

#[test]
fn closed_form_is_the_naive_recursion() {
    let f = naive(300, 10);
    for (l, row) in f.iter().enumerate().skip(1) {
        for (s, &want) in row.iter().enumerate().skip(1) {
            assert_eq!(binomial_optimum(l as u64, s as u64), want, "l {l}, s {s}");
            assert_eq!(
                chain::forward_runs(l as u64, s as u64),
                Some(want),
                "l {l}, s {s}"
            );
        }
    }
    assert_eq!(chain::forward_runs(2, 0), None);
    assert_eq!(chain::forward_runs(1, 0), Some(0));
}

#[test]
fn optimum_at_every_slot_count_for_n_up_to_200_and_large_n() {
    let ns = (1..=200).chain([255, 256, 500, 999, 1000, 1001, 2000]);
    for n in ns {
        for s in 1..=10u64 {
            let c = ChainTrain::new(n, 64);
            let g = build(&c);
            // The least limit with s slots, and the most (one byte short of s + 1).
            let lo = c.limit(s).unwrap();
            check_plan(&c, &g, lo, s).unwrap();
            if n <= 200 {
                check_plan(&c, &g, lo + 63, s).unwrap();
            }
        }
    }
}

#[test]
fn below_one_slot_is_infeasible_and_one_slot_is_the_least() {
    for n in 1..=30 {
        let c = ChainTrain {
            input_bytes: 5,
            ..ChainTrain::new(n, 8)
        };
        let g = build(&c);
        let least = c.limit(1).unwrap();
        assert_eq!(
            chain::plan(&g, least - 1),
            Outcome::Infeasible { least: Some(least) }
        );
        let l = chain::least(&g).unwrap();
        assert_eq!((l.peak, l.bound), (least, least));
        assert_eq!(
            simulate_schedule(&g, &l.schedule).unwrap().peak_bytes,
            least
        );
        // The proven bound of the schedule model agrees that nothing goes lower.
        assert!(peakorder::recompute::least_peak_bound(&g).0 <= least);
    }
}

/// The reversal game of the module doc, searched exhaustively (0-1 BFS): positions 1..m over a
/// free 0; a move pebbles j when j − 1 is pebbled (or j = 1) and at most s are pebbled; removals
/// are free; m, …, 1 are served in turn, each while pebbled with at most s pebbles down.
fn game_optimum(m: usize, s: usize) -> Option<u64> {
    let states = (1usize << m) * (m + 1);
    let key = |a: usize, d: usize| a * (m + 1) + d;
    let mut dist = vec![u64::MAX; states];
    let mut queue = VecDeque::new();
    dist[key(0, m)] = 0;
    queue.push_back((0usize, m));
    while let Some((a, d)) = queue.pop_front() {
        let here = dist[key(a, d)];
        if d == 0 {
            return Some(here);
        }
        let pebbles = a.count_ones() as usize;
        let mut relax = |a2: usize, d2: usize, w: u64, q: &mut VecDeque<(usize, usize)>| {
            if here + w < dist[key(a2, d2)] {
                dist[key(a2, d2)] = here + w;
                if w == 0 {
                    q.push_front((a2, d2));
                } else {
                    q.push_back((a2, d2));
                }
            }
        };
        if a >> (d - 1) & 1 == 1 && pebbles <= s {
            // Positions from d up are of no use once d is served.
            relax(a & ((1 << (d - 1)) - 1), d - 1, 0, &mut queue);
        }
        for i in 0..m {
            if a >> i & 1 == 1 {
                relax(a & !(1 << i), d, 0, &mut queue);
            }
        }
        if pebbles <= s {
            for j in 1..=d {
                let free = a >> (j - 1) & 1 == 0;
                let from = j == 1 || a >> (j - 2) & 1 == 1;
                if free && from {
                    relax(a | 1 << (j - 1), d, 1, &mut queue);
                }
            }
        }
    }
    None
}

#[test]
fn the_game_least_is_the_binomial_optimum() {
    for m in 1..=14 {
        for s in 1..=10 {
            let want = binomial_optimum(m as u64 + 1, s as u64);
            assert_eq!(game_optimum(m, s), Some(want), "m {m}, s {s}");
        }
        assert_eq!(game_optimum(m, 0), None, "m {m}, no slot");
    }
}

/// Every schedule of `g` within `limit`, searched exhaustively in the memory model (docs/design.md
/// §1) written with explicit frees: a state is the storages live and the ops run; running `v`
/// needs its inputs live and its outputs not (the previous instance is freed before it is made
/// again), and costs `live + outputs + workspace ≤ limit`; any storage but a kept input may be
/// freed at any time. The simulator frees each storage at its last use, which is the least any
/// such strategy holds, so the two agree on the least cost. Returns the least added cost and a
/// schedule reaching it.
fn brute_force(g: &Graph, limit: u64) -> Option<(u64, Vec<OpIx>)> {
    let t = g.num_tensors();
    let n = g.num_ops();
    assert!(t <= 64 && n <= 64);
    let kept: u64 = g
        .input_storages()
        .filter(|&s| g.pinned(s))
        .map(|s| g.size(s))
        .sum();
    let is_kept = |s: u32| g.tensors()[s as usize].producer.is_none() && g.pinned(s);
    let bytes = |live: u64| -> u64 {
        (0..t as u32)
            .filter(|&s| live >> s & 1 == 1)
            .map(|s| g.size(s))
            .sum()
    };
    let cost = |v: usize| -> u64 {
        let c = g.ops()[v].cost;
        assert_eq!(c, c.trunc());
        c as u64
    };
    let once: u64 = (0..n).map(cost).sum();
    let start_live: u64 = g
        .input_storages()
        .filter(|&s| !is_kept(s))
        .fold(0, |m, s| m | 1 << s);
    if g.inputs_bytes() > limit {
        return None;
    }
    let all_ran = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let outputs: u64 = g
        .outputs()
        .iter()
        .fold(0, |m, &o| m | 1 << g.tensors()[o as usize].root);
    let mut dist: HashMap<(u64, u64), u64> = HashMap::new();
    // A state (storages live, ops run) -> the state it was reached from, and the op run.
    type State = (u64, u64);
    let mut parent: HashMap<State, (State, Option<OpIx>)> = HashMap::new();
    let mut heap = BinaryHeap::new();
    dist.insert((start_live, 0), 0);
    heap.push(std::cmp::Reverse((0u64, start_live, 0u64)));
    while let Some(std::cmp::Reverse((d, live, ran))) = heap.pop() {
        if dist.get(&(live, ran)).is_some_and(|&x| x < d) {
            continue;
        }
        if ran == all_ran && live & outputs == outputs {
            let mut schedule = Vec::new();
            let mut at = (live, ran);
            while let Some(&(prev, op)) = parent.get(&at) {
                schedule.extend(op);
                at = prev;
            }
            schedule.reverse();
            return Some((d - once, schedule));
        }
        let mut next: Vec<(u64, u64, u64, Option<OpIx>)> = Vec::new();
        for s in 0..t as u32 {
            if live >> s & 1 == 1 {
                next.push((d, live & !(1 << s), ran, None));
            }
        }
        let held = kept + bytes(live);
        for v in 0..n {
            let op = &g.ops()[v];
            if ran >> v & 1 == 1 && !op.recompute {
                continue;
            }
            let ok_in = g
                .reads(v as OpIx)
                .iter()
                .all(|&s| is_kept(s) || live >> s & 1 == 1);
            let outs = g.creates(v as OpIx).iter().fold(0u64, |m, &s| m | 1 << s);
            if !ok_in || live & outs != 0 {
                continue;
            }
            if held + g.alloc(v as OpIx) + g.workspace(v as OpIx) > limit {
                continue;
            }
            next.push((d + cost(v), live | outs, ran | 1 << v, Some(v as OpIx)));
        }
        for (d2, live2, ran2, op) in next {
            if dist.get(&(live2, ran2)).map_or(true, |&x| d2 < x) {
                dist.insert((live2, ran2), d2);
                parent.insert((live2, ran2), ((live, ran), op));
                heap.push(std::cmp::Reverse((d2, live2, ran2)));
            }
        }
    }
    None
}

#[test]
fn every_schedule_of_small_chains_costs_at_least_the_optimum() {
    // Unit costs everywhere, and free backward ops (so that rerunning them could only help).
    for backward_cost in [1.0, 0.0] {
        for n in 1..=5 {
            let c = ChainTrain {
                input_bytes: 2,
                backward_cost,
                ..ChainTrain::new(n, 3)
            };
            let g = build(&c);
            // Every limit from below the least to the program order's peak, byte by byte.
            for limit in c.limit(0).unwrap()..=c.limit(n as u64 + 1).unwrap() {
                let brute = brute_force(&g, limit);
                let s = c.slots(limit).unwrap();
                match (chain::plan(&g, limit), brute) {
                    (Outcome::Found(f), Some((best, sched))) => {
                        assert_eq!(f.added_cost, best as f64, "n {n}, limit {limit}");
                        assert_eq!(f.cost_bound, best as f64, "n {n}, limit {limit}");
                        // The brute force's own schedule is what the simulator says.
                        let sim = simulate_schedule(&g, &sched).unwrap();
                        assert!(sim.peak_bytes <= limit);
                        assert_eq!(added_cost(&g, &sched), best as f64);
                        assert_eq!(
                            best,
                            binomial_optimum(n as u64 + 1, s.min(n as u64)) - n as u64
                        );
                    }
                    (Outcome::Infeasible { least }, None) => {
                        assert_eq!(s, 0);
                        assert_eq!(least, c.limit(1));
                    }
                    (o, b) => panic!("n {n}, limit {limit}: plan {o:?}, brute force {b:?}"),
                }
            }
        }
    }
}

#[test]
fn the_public_planner_reports_the_optimum_as_proven() {
    for n in [3usize, 10, 40, 100] {
        for s in 2..=10u64 {
            if s >= n as u64 {
                continue;
            }
            let c = ChainTrain::new(n, 1024);
            let g = build(&c);
            let limit = c.limit(s).unwrap();
            let opts = PlanOptions {
                memory_limit: Some(limit),
                ..Default::default()
            };
            let p = plan(&g, &opts, &NoClock).unwrap();
            let r = p.recompute.as_ref().unwrap();
            let want = (binomial_optimum(n as u64 + 1, s) - n as u64) as f64;
            assert_eq!(r.recompute_method, "revolve", "n {n}, s {s}");
            assert_eq!(r.added_cost, want, "n {n}, s {s}");
            assert_eq!(r.added_cost_lower_bound, want, "n {n}, s {s}");
            assert!(p.optimal && p.proof == Some("revolve"), "n {n}, s {s}");
            assert!(p.peak_bytes <= limit);
            assert_eq!(r.least_limit_bytes, c.limit(1).unwrap());
            assert_eq!(r.least_limit_lower_bound_bytes, c.limit(1).unwrap());
            let sched = g.schedule_from_ids(&p.order).unwrap();
            assert_eq!(
                simulate_schedule(&g, &sched).unwrap().peak_bytes,
                p.peak_bytes
            );
            // Asked for by name, the same.
            let by_name = plan(
                &g,
                &PlanOptions {
                    recompute_method: RecomputeMethod::Revolve,
                    ..opts.clone()
                },
                &NoClock,
            )
            .unwrap();
            assert_eq!(by_name.recompute.unwrap().added_cost, want);
        }
    }
}

/// A chain spec with its ops and tensors listed in a shuffled order.
fn shuffled(spec: &GraphSpec, seed: u64) -> GraphSpec {
    let mut out = spec.clone();
    let mut x = seed | 1;
    let mut next = |k: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % k as u64) as usize
    };
    for i in (1..out.ops.len()).rev() {
        let j = next(i + 1);
        out.ops.swap(i, j);
    }
    for i in (1..out.tensors.len()).rev() {
        let j = next(i + 1);
        out.tensors.swap(i, j);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Any sizes, any forward cost, any file order, any limit from below the least to the
    /// program order's peak.
    #[test]
    fn random_chains_and_limits(
        n in 1usize..60,
        bytes in 1u64..5000,
        input_bytes in 0u64..5000,
        forward_cost in prop_oneof![Just(1.0), Just(0.0), Just(2.5), 0.0f64..100.0],
        backward_cost in 0.0f64..10.0,
        frac in 0.0f64..1.0,
        seed in any::<u64>(),
    ) {
        let c = ChainTrain { input_bytes, forward_cost, backward_cost, ..ChainTrain::new(n, bytes) };
        let g = Graph::from_spec(shuffled(&c.spec(), seed)).unwrap();
        let chain = Chain::detect(&g).expect("a shuffled chain is a chain");
        prop_assert_eq!(chain.n(), n);
        let (lo, hi) = (c.limit(0).unwrap() - 1, c.limit(n as u64 + 1).unwrap());
        let limit = lo + ((hi - lo) as f64 * frac) as u64;
        match c.slots(limit) {
            None | Some(0) => prop_assert_eq!(
                chain::plan(&g, limit),
                Outcome::Infeasible { least: c.limit(1) }
            ),
            Some(s) => {
                if let Outcome::Found(f) = chain::plan(&g, limit) {
                    let n64 = n as u64;
                    let reruns = binomial_optimum(n64 + 1, s.min(n64)) - n64;
                    let sim = simulate_schedule(&g, &f.schedule).unwrap();
                    prop_assert!(sim.peak_bytes <= limit);
                    let runs = f.schedule.iter().filter(|&&v| chain.forward.contains(&v)).count();
                    prop_assert_eq!(runs as u64 - n64, reruns);
                    prop_assert_eq!(f.added_cost, added_cost(&g, &f.schedule));
                    prop_assert_eq!(f.cost_bound, f.added_cost);
                    prop_assert!((f.added_cost - reruns as f64 * forward_cost).abs()
                        <= 1e-9 * f.added_cost.max(1.0));
                } else {
                    prop_assert!(false, "no schedule at {limit} with {s} slots");
                }
            }
        }
    }

    /// Random graphs of the other property tests: never a panic; `Unknown` unless the graph is
    /// a chain, and then a valid schedule within the limit.
    #[test]
    fn other_graphs_are_unknown(case in any_graph(1..=24), limit in 0u64..100_000) {
        let g = Graph::from_spec(case.build()).unwrap();
        let o = chain::plan(&g, limit);
        match Chain::detect(&g) {
            None => {
                prop_assert_eq!(o, Outcome::Unknown);
                prop_assert!(chain::least(&g).is_none());
            }
            Some(_) => if let Outcome::Found(f) = o {
                prop_assert!(simulate_schedule(&g, &f.schedule).unwrap().peak_bytes <= limit);
            },
        }
    }
}

/// One change to a chain that makes it something else: each is `Unknown`.
#[test]
fn near_chains_are_unknown() {
    let base = ChainTrain::new(6, 16).spec();
    let ix = |spec: &GraphSpec, id: &str| spec.tensors.iter().position(|t| t.id == id).unwrap();
    let op = |spec: &GraphSpec, id: &str| spec.ops.iter().position(|o| o.id == id).unwrap();
    let mut cases: Vec<(&str, GraphSpec)> = Vec::new();
    let mut m = base.clone();
    let k = ix(&m, "a3");
    m.tensors[k].bytes = Some(17);
    cases.push(("an activation of another size", m));
    let mut m = base.clone();
    let k = ix(&m, "g2");
    m.tensors[k].bytes = Some(8);
    cases.push(("a gradient of another size", m));
    let mut m = base.clone();
    let k = ix(&m, "y");
    m.tensors[k].donated = None;
    cases.push(("a target the caller keeps", m));
    let mut m = base.clone();
    let k = op(&m, "f4");
    m.ops[k].cost = Some(2.0);
    cases.push(("a forward op of another cost", m));
    let mut m = base.clone();
    let k = op(&m, "f2");
    m.ops[k].recompute = Some(false);
    cases.push(("a forward op that runs once", m));
    let mut m = base.clone();
    let k = op(&m, "b3");
    m.ops[k].workspace = Some(4);
    cases.push(("a workspace", m));
    let mut m = base.clone();
    let k = op(&m, "b4");
    m.ops[k].inputs = vec!["a2".into(), "g4".into()];
    cases.push(("a backward op reading the wrong activation", m));
    let mut m = base.clone();
    let k = op(&m, "f3");
    m.ops[k].inputs.push("a1".into());
    cases.push(("a skip connection", m));
    let mut m = base.clone();
    m.outputs.push("a6".into());
    cases.push(("a second output", m));
    let mut m = base.clone();
    m.tensors.push(peakorder::format::TensorSpec {
        id: "w".into(),
        bytes: Some(1),
        ..Default::default()
    });
    cases.push(("an extra input", m));
    let mut m = base.clone();
    m.ops.retain(|o| o.id != "b1");
    m.tensors.retain(|t| t.id != "g0");
    m.outputs = vec!["g1".into()];
    cases.push(("no last backward op", m));
    for (what, spec) in cases {
        let g = Graph::from_spec(spec).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(Chain::detect(&g).is_none(), "{what}");
        assert_eq!(chain::plan(&g, u64::MAX), Outcome::Unknown, "{what}");
        let err = plan(
            &g,
            &PlanOptions {
                memory_limit: Some(peakorder::recompute::least_peak_bound(&g).0 + 64),
                recompute_method: RecomputeMethod::Revolve,
                ..Default::default()
            },
            &NoClock,
        );
        // By name it is refused as not a chain, unless an order fits and nothing is recomputed.
        if let Err(e) = err {
            assert_eq!(e.code(), "not_applicable", "{what}: {e}");
        }
    }
}
