//! The whole-graph bounds (`bounds::cut`, `bounds::branching`) against brute force on small
//! random graphs: each op's cut equals the least memory over every downset it can follow
//! (with and without extra precedence arcs and ops forced before it), and every bound is at
//! most the brute-force optimum.

mod common;

use common::{any_graph, seeded_graph};

use peakorder::bounds::branching::{prove, Limits};
use peakorder::bounds::cut::{cut_bound, during_in, CutNetwork};
use peakorder::bounds::either_side::{candidate_splits, either_side_bound, Side, Split};
use peakorder::bounds::first_free::{
    first_free_bound, first_free_of, freeable_inputs, prefixed, repaired,
};
use peakorder::bounds::last_of_set::{alike_groups, candidate_sets, last_of_set_bound, End, OpSet};
use peakorder::bounds::nested_set::nested_set_bound;
use peakorder::bounds::BoundKind;
use peakorder::generators::{Draw, Rng, Tape};
use peakorder::order::greedy::greedy_order;
use peakorder::referee::least_peak as brute_force;
use peakorder::simulate::{simulate, MemState};
use peakorder::{Graph, OpIx};
use proptest::prelude::*;

/// Ancestor sets as bit masks (graphs of at most 64 ops), with extra arcs (x before y).
fn ancestors(g: &Graph, arcs: &[(OpIx, OpIx)]) -> Option<Vec<u64>> {
    let n = g.num_ops();
    let mut direct = vec![0u64; n];
    for (v, d) in direct.iter_mut().enumerate() {
        for &p in g.preds(v as OpIx) {
            *d |= 1 << p;
        }
    }
    for &(x, y) in arcs {
        direct[y as usize] |= 1 << x;
    }
    // Transitive closure by iteration (tiny graphs).
    let mut anc = direct.clone();
    loop {
        let mut changed = false;
        for v in 0..n {
            let mut a = anc[v];
            let mut bits = anc[v];
            while bits != 0 {
                let p = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                a |= anc[p];
            }
            if a != anc[v] {
                anc[v] = a;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (0..n).all(|v| anc[v] & (1 << v) == 0).then_some(anc)
}

/// Memory after the downset `set` has run (it depends only on the set).
fn live_after(g: &Graph, anc: &[u64], set: u64) -> u64 {
    let mut ops: Vec<OpIx> = (0..g.num_ops() as OpIx)
        .filter(|&v| set & (1 << v) != 0)
        .collect();
    // Ancestors first: fewer ancestors never follow more.
    ops.sort_by_key(|&v| anc[v as usize].count_ones());
    let mut state = MemState::new(g);
    for v in ops {
        state.run(v);
    }
    state.live()
}

/// The least memory while `v` runs over every downset (closed under `anc`) that holds v's
/// ancestors and `before`, and not v; `None` when there is none.
fn brute_cut(g: &Graph, anc: &[u64], v: OpIx, before: u64) -> Option<u64> {
    brute_cut_between(g, anc, v, before, 0)
}

/// [`brute_cut`] over the downsets that also leave out every op of `after`.
fn brute_cut_between(g: &Graph, anc: &[u64], v: OpIx, before: u64, after: u64) -> Option<u64> {
    let n = g.num_ops();
    let mut best: Option<u64> = None;
    for set in 0u64..(1 << n) {
        if set & (1 << v) != 0
            || set & anc[v as usize] != anc[v as usize]
            || set & before != before
            || set & after != 0
        {
            continue;
        }
        let closed = (0..n).all(|u| set & (1 << u) == 0 || set & anc[u] == anc[u]);
        if !closed {
            continue;
        }
        let m = live_after(g, anc, set) + g.alloc(v) + g.workspace(v);
        best = Some(best.map_or(m, |b| b.min(m)));
    }
    best
}

/// The first-free bound with B = `b` by brute force: the least, over the inputs s of B and
/// the readers x of s, of the memory while x runs after a downset holding x's ancestors and
/// every other reader of s, counting every input of B as live (those the downset freed are
/// added back); an x whose forced predecessors free another input of B is skipped.
fn brute_first_free(g: &Graph, anc: &[u64], b: &[u32]) -> Option<u64> {
    let n = g.num_ops();
    let mut best: Option<u64> = None;
    for &s in b {
        for &x in g.users(s) {
            let rest: u64 = g
                .users(s)
                .iter()
                .filter(|&&y| y != x)
                .map(|&y| 1u64 << y)
                .sum();
            // Skipped when what must run before x frees another input of B first.
            let forced = (0..n)
                .filter(|&u| rest & (1 << u) != 0)
                .fold(anc[x as usize] | rest, |m, u| m | anc[u]);
            if b.iter()
                .any(|&t| t != s && g.users(t).iter().all(|&u| forced & (1 << u) != 0))
            {
                continue;
            }
            for set in 0u64..(1 << n) {
                if set & (1 << x) != 0
                    || set & anc[x as usize] != anc[x as usize]
                    || set & rest != rest
                    || !(0..n).all(|u| set & (1 << u) == 0 || set & anc[u] == anc[u])
                {
                    continue;
                }
                let freed: u64 = b
                    .iter()
                    .filter(|&&t| g.users(t).iter().all(|&u| set & (1 << u) != 0))
                    .map(|&t| g.size(t))
                    .sum();
                let m = live_after(g, anc, set) + freed + g.alloc(x) + g.workspace(x);
                best = Some(best.map_or(m, |c| c.min(m)));
            }
        }
    }
    best
}

/// A random extra arc between two ops neither of which precedes the other.
fn random_arc(r: &mut Rng, g: &Graph, anc: &[u64]) -> Option<(OpIx, OpIx)> {
    let n = g.num_ops();
    let pairs: Vec<(OpIx, OpIx)> = (0..n)
        .flat_map(|x| (0..n).map(move |y| (x as OpIx, y as OpIx)))
        .filter(|&(x, y)| {
            x != y && anc[x as usize] & (1 << y) == 0 && anc[y as usize] & (1 << x) == 0
        })
        .collect();
    (!pairs.is_empty()).then(|| pairs[r.below(pairs.len() as u64) as usize])
}

fn downset_ok(anc: &[u64], v: OpIx, before: &[bool], required: u64) -> bool {
    let set: u64 = before
        .iter()
        .enumerate()
        .filter(|(_, &b)| b)
        .map(|(u, _)| 1u64 << u)
        .sum();
    !before[v as usize]
        && set & required == required
        && (0..anc.len()).all(|u| !before[u] || set & anc[u] == anc[u])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Each op's cut is exactly the least memory over the downsets it can follow, and its
    /// minimising downset is one of them; with an extra arc and ops forced before it, too.
    #[test]
    fn op_cut_equals_brute_force(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10) {
        let g = seeded_graph(kind, seed, n);
        let mut r = Rng::new(seed ^ 0x5eed);
        let anc0 = ancestors(&g, &[]).expect("a DAG");
        let mut arcs = Vec::new();
        if r.percent(60) {
            arcs.extend(random_arc(&mut r, &g, &anc0));
        }
        let anc = ancestors(&g, &arcs).expect("one arc between unordered ops closes no cycle");
        let net = CutNetwork::new(&g, &arcs);
        for v in 0..g.num_ops() as OpIx {
            let mut before = Vec::new();
            if r.percent(30) {
                before.push(r.below(g.num_ops() as u64) as OpIx);
            }
            let mask: u64 = before.iter().map(|&b| 1u64 << b).sum();
            let want = brute_cut(&g, &anc, v, mask);
            let got = net.during(&g, v, &before, u64::MAX);
            match want {
                None => prop_assert_eq!(got.bytes, u64::MAX, "op {} has no downset", v),
                Some(w) => {
                    prop_assert_eq!(got.bytes, w, "op {} arcs {:?} before {:?}", v, &arcs, &before);
                    let set = got.before.expect("below the cap: a downset");
                    prop_assert!(downset_ok(&anc, v, &set, anc[v as usize] | mask));
                    let bits: u64 = set.iter().enumerate().filter(|(_, &b)| b).map(|(u, _)| 1u64 << u).sum();
                    prop_assert_eq!(live_after(&g, &anc, bits) + g.alloc(v) + g.workspace(v), w);
                }
            }
            // A cap below the cut is reported as reached.
            if let Some(w) = want {
                if w > 0 {
                    prop_assert_eq!(net.during(&g, v, &before, w - 1).bytes, w - 1);
                }
            }
        }
    }

    /// The cut bound (largest op cut, scanned with the greedy order's upper bounds) is at most
    /// the optimum, and equal to the largest brute-force op cut.
    #[test]
    fn cut_bound_is_the_largest_op_cut(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10) {
        let g = seeded_graph(kind, seed, n);
        let anc = ancestors(&g, &[]).expect("a DAG");
        let net = CutNetwork::new(&g, &[]);
        let upper = during_in(&g, &greedy_order(&g));
        let b = cut_bound(&g, &net, &upper, 0, 4, &|| false);
        prop_assert!(b.complete);
        let want = (0..g.num_ops() as OpIx)
            .filter_map(|v| brute_cut(&g, &anc, v, 0))
            .max()
            .unwrap_or(0);
        prop_assert_eq!(b.bytes, want);
        prop_assert!(b.bytes <= brute_force(&g));
    }

    /// The proof search's bound is at most the optimum, its order is valid and simulates to
    /// the peak it reports, and when it finishes the two are the optimum.
    #[test]
    fn branching_bound_is_true(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10, nodes in 1u64..200) {
        let g = seeded_graph(kind, seed, n);
        let best = brute_force(&g);
        let limits = Limits { max_nodes: nodes, ..Limits::until(&|| false) };
        let r = prove(&g, greedy_order(&g), &[], (0, BoundKind::Simple), &limits);
        let sim = simulate(&g, &r.order).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(sim.peak_bytes, r.peak);
        prop_assert!(r.bound <= best, "bound {} above the optimum {}", r.bound, best);
        prop_assert!(r.peak >= best);
        if r.finished {
            prop_assert_eq!(r.bound, best);
            prop_assert_eq!(r.peak, best);
        }
    }

    /// The last-of-set (first-of-set) bound of each candidate set is exactly the least, over
    /// the ops of the set that can run last (first), of the brute-force cut with the rest of
    /// the set before (after) it; the bound over all sets is at most the optimum.
    #[test]
    fn last_of_set_is_true(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10) {
        let g = seeded_graph(kind, seed, n);
        let anc = ancestors(&g, &[]).expect("a DAG");
        let net = CutNetwork::new(&g, &[]);
        let order = greedy_order(&g);
        let best = brute_force(&g);
        let sets = candidate_sets(&g, &net);
        for s in &sets {
            let want = s
                .ops
                .iter()
                .filter_map(|&x| {
                    let rest: u64 = s.ops.iter().filter(|&&y| y != x).map(|&y| 1u64 << y).sum();
                    match s.end {
                        End::Last => brute_cut_between(&g, &anc, x, rest, 0),
                        End::First => brute_cut_between(&g, &anc, x, 0, rest),
                    }
                })
                .min()
                .expect("some op of a set runs last, and some first");
            let got = last_of_set_bound(&g, &net, std::slice::from_ref(s), &[&order], 0, u64::MAX, &|| false);
            prop_assert_eq!(got.bytes, want, "set {:?}", s);
        }
        prop_assert!(sets.iter().any(|s| s.end == End::First) || (0..g.num_ops() as OpIx).all(|v| g.succs(v).len() < 2));
        // The last of the sinks (the end of every order) and the first of the sources.
        let n = g.num_ops() as OpIx;
        let sinks: Vec<OpIx> = (0..n).filter(|&v| g.succs(v).is_empty()).collect();
        let sources: Vec<OpIx> = (0..n).filter(|&v| g.preds(v).is_empty()).collect();
        prop_assert!(sinks.len() < 2 || sets.iter().any(|s| s.end == End::Last && s.ops == sinks));
        prop_assert!(sources.len() < 2 || sets.iter().any(|s| s.end == End::First && s.ops == sources));
        // The heavy ops at the first threshold (half the largest own memory) are a set too.
        let own = |v: OpIx| -> u64 {
            g.reads(v).iter().map(|&s| g.size(s)).sum::<u64>() + g.alloc(v) + g.workspace(v)
        };
        let top = (0..n).map(own).max().unwrap_or(0);
        let is_heavy = |v: OpIx| top / 2 > 0 && own(v) >= top / 2;
        // Those with no heavy descendant (a fixpoint over the successors).
        let mut below = vec![false; n as usize];
        for _ in 0..n {
            for v in 0..n {
                below[v as usize] = g.succs(v).iter().any(|&w| below[w as usize] || is_heavy(w));
            }
        }
        let count = (0..n).filter(|&v| is_heavy(v)).count();
        let heavy: Vec<OpIx> = (0..n).filter(|&v| is_heavy(v) && !below[v as usize]).collect();
        prop_assert!(
            heavy.len() < 2 || count == n as usize || sets.iter().any(|s| s.end == End::Last && s.ops == heavy),
            "heavy set {:?} missing", heavy
        );
        // Alike ops (as many predecessors, successors, reads and outputs), those with no alike
        // op below them, are a last-of-set set; those with none above, a first-of-set one.
        let shape = |v: OpIx| (g.preds(v).len(), g.succs(v).len(), g.reads(v).len(), g.ops()[v as usize].outputs.len());
        let below_of = |v: OpIx, w: OpIx| (anc[w as usize] >> v) & 1 == 1;
        for v in 0..n {
            let alike: Vec<OpIx> = (0..n).filter(|&w| shape(w) == shape(v)).collect();
            if alike.len() < 2 || alike.len() == n as usize {
                continue;
            }
            let last: Vec<OpIx> = alike.iter().copied().filter(|&x| !alike.iter().any(|&y| below_of(x, y))).collect();
            let first: Vec<OpIx> = alike.iter().copied().filter(|&x| !alike.iter().any(|&y| below_of(y, x))).collect();
            prop_assert!(last.len() < 2 || sets.iter().any(|s| s.end == End::Last && s.ops == last), "alike last {:?}", last);
            prop_assert!(first.len() < 2 || sets.iter().any(|s| s.end == End::First && s.ops == first), "alike first {:?}", first);
        }
        let all = last_of_set_bound(&g, &net, &sets, &[&order], 0, u64::MAX, &|| false);
        prop_assert!(all.bytes <= best, "last-of-set {} above the optimum {}", all.bytes, best);
        if let Some(h) = &all.hint {
            prop_assert!(g.check_order(&prefixed(&order, h)).is_ok());
        }
    }

    /// An op's cut with ops forced after it is exactly the brute-force least over the downsets
    /// that leave them out (and `u64::MAX` when none does).
    #[test]
    fn op_cut_with_ops_after(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10) {
        let g = seeded_graph(kind, seed, n);
        let mut r = Rng::new(seed ^ 0xaf7e);
        let anc = ancestors(&g, &[]).expect("a DAG");
        let net = CutNetwork::new(&g, &[]);
        for v in 0..g.num_ops() as OpIx {
            let mut before = Vec::new();
            let mut after = Vec::new();
            for u in 0..g.num_ops() as OpIx {
                if u != v && r.percent(20) {
                    after.push(u);
                } else if u != v && r.percent(10) {
                    before.push(u);
                }
            }
            let bm: u64 = before.iter().map(|&b| 1u64 << b).sum();
            let am: u64 = after.iter().map(|&b| 1u64 << b).sum();
            let want = brute_cut_between(&g, &anc, v, bm, am).unwrap_or(u64::MAX);
            let got = net.during_between(&g, v, &before, &after, u64::MAX, &|| false);
            prop_assert_eq!(got.bytes, want, "op {} before {:?} after {:?}", v, &before, &after);
        }
    }

    /// The first-free bound of each B (the largest k freeable inputs) is exactly the brute-force
    /// least over its first frees; the bound over every k is at most the optimum; the order
    /// started from its hint is an order of the graph.
    #[test]
    fn first_free_is_true(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10) {
        let g = seeded_graph(kind, seed, n);
        let anc = ancestors(&g, &[]).expect("a DAG");
        let inputs = freeable_inputs(&g);
        for k in 1..=inputs.len() {
            let mut flows = 0;
            let got = first_free_of(&g, &inputs, k, 0, u64::MAX, &|| false, &mut flows).map(|r| r.0);
            // No first free is possible only when every reader of every input must be followed
            // by another reader: impossible in a DAG, so the brute force always finds one.
            // Some input of B is freed first, and its last reader is a candidate.
            let want = brute_first_free(&g, &anc, &inputs[..k]).expect("some reader runs last");
            prop_assert_eq!(got, Some(want), "B = {:?}", &inputs[..k]);
        }
        let best = brute_force(&g);
        let all = first_free_bound(&g, &greedy_order(&g), 0, u64::MAX, &|| false);
        prop_assert!(all.bytes <= best, "first-free {} above the optimum {}", all.bytes, best);
        if let Some(h) = &all.hint {
            let order = prefixed(&greedy_order(&g), h);
            prop_assert!(g.check_order(&order).is_ok());
        }
    }

    /// The nested-set bound of every candidate set and of random sets, with the alike groups
    /// and random groups, is at most the brute-force optimum, and exactly the brute-force value
    /// of its formula (each group whole, as the ends give the same minimum).
    #[test]
    fn nested_set_is_true(c in any_graph(1..=10), draws in prop::collection::vec(any::<u16>(), 64)) {
        let g = &c.graph;
        let anc = ancestors(g, &[]).expect("a DAG");
        let net = CutNetwork::new(g, &[]);
        let best = brute_force(g);
        let n = g.num_ops() as OpIx;
        let mut r = Tape::new(&draws);
        let mut groups = alike_groups(g, &net, true);
        groups.extend(alike_groups(g, &net, false));
        let grp: Vec<OpIx> = (0..n).filter(|_| r.percent(40)).collect();
        if grp.len() >= 2 {
            groups.push(grp);
        }
        let mut sets = candidate_sets(g, &net);
        let ops: Vec<OpIx> = (0..n).filter(|_| r.percent(40)).collect();
        if ops.len() >= 2 {
            let end = if r.percent(50) { End::First } else { End::Last };
            sets.push(OpSet { end, ops });
        }
        let bit = |v: OpIx| 1u64 << v;
        for s in &sets {
            let got = nested_set_bound(g, &net, s, &groups, 0, u64::MAX, &|| false);
            prop_assert!(got.complete);
            prop_assert!(got.bytes <= best, "set {:?}: {} above the optimum {}", s, got.bytes, best);
            // The formula by brute force, each x's groups the heaviest four within its
            // ancestors (descendants), as the bound takes them.
            let sm: u64 = s.ops.iter().map(|&v| bit(v)).sum();
            let mut least: Option<u64> = None;
            for &x in &s.ops {
                let rest = sm & !bit(x);
                let (b, a) = match s.end { End::First => (0, rest), End::Last => (rest, 0) };
                let Some(mut value) = brute_cut_between(g, &anc, x, b, a) else { continue };
                let inside = |v: OpIx| match s.end {
                    End::First => anc[x as usize] & bit(v) != 0,
                    End::Last => anc[v as usize] & bit(x) != 0,
                };
                let mut within: Vec<(u64, Vec<OpIx>)> = groups
                    .iter()
                    .map(|grp| {
                        let inner: Vec<OpIx> = grp.iter().copied().filter(|&v| inside(v)).collect();
                        (inner.iter().map(|&v| g.alloc(v)).sum(), inner)
                    })
                    .filter(|(_, inner)| inner.len() >= 2)
                    .collect();
                within.sort_by_key(|(w, _)| std::cmp::Reverse(*w));
                for (_, inner) in within.into_iter().take(4) {
                    let im: u64 = inner.iter().map(|&v| bit(v)).sum();
                    let gl = inner
                        .iter()
                        .filter_map(|&y| {
                            let others = im & !bit(y);
                            match s.end {
                                End::First => brute_cut_between(g, &anc, y, others, rest),
                                End::Last => brute_cut_between(g, &anc, y, rest, others),
                            }
                        })
                        .min();
                    if let Some(gl) = gl {
                        value = value.max(gl);
                    }
                }
                least = Some(least.map_or(value, |l: u64| l.min(value)));
            }
            prop_assert_eq!(got.bytes, least.unwrap_or(0), "set {:?}", s);
        }
    }

    /// An order repaired at its peak is an order of the graph, and its peak is no higher.
    #[test]
    fn repaired_orders_are_orders_and_no_higher(c in any_graph(1..=10), seed in any::<u64>()) {
        let g = &c.graph;
        let net = CutNetwork::new(g, &[]);
        let order = common::random_order(g, seed);
        let peak = simulate(g, &order).expect("a valid order").peak_bytes;
        let fixed = repaired(g, &net, order, 16, &|| false);
        prop_assert!(g.check_order(&fixed).is_ok());
        prop_assert!(simulate(g, &fixed).expect("a valid order").peak_bytes <= peak);
    }

    /// The either-side bound of each candidate split, and of random splits (any m, any T
    /// without m: the case split holds for every T), is exactly the least brute-force cut over
    /// its alternatives, and at most the brute-force optimum; so is the bound over all
    /// candidates, and the order started from its hint is an order of the graph.
    #[test]
    fn either_side_is_true(c in any_graph(1..=10), draws in prop::collection::vec(any::<u16>(), 64)) {
        let g = &c.graph;
        let anc = ancestors(g, &[]).expect("a DAG");
        let net = CutNetwork::new(g, &[]);
        let order = greedy_order(g);
        let best = brute_force(g);
        let mut splits = candidate_splits(g, &net, &|| false);
        for s in &splits {
            let m = s.op as usize;
            prop_assert!(s.others.iter().all(|&t| anc[m] & (1 << t) == 0 && anc[t as usize] & (1 << m) == 0), "{:?}", s);
        }
        let n = g.num_ops() as OpIx;
        // Drawn from a tape, so that a failing split shrinks too.
        let mut r = Tape::new(&draws);
        for _ in 0..4 {
            let m = r.below(n as u64) as OpIx;
            let others: Vec<OpIx> = (0..n).filter(|&t| t != m && r.percent(40)).collect();
            if !others.is_empty() {
                let side = if r.percent(50) { Side::Before } else { Side::After };
                splits.push(Split { side, op: m, others });
            }
        }
        let bit = |v: OpIx| 1u64 << v;
        // The least brute-force cut over the alternatives of (side, m, T).
        let brute = |side: Side, m: OpIx, others: &[OpIx]| -> Option<u64> {
            let tm: u64 = others.iter().map(|&t| bit(t)).sum();
            others
                .iter()
                .flat_map(|&t| {
                    let rest = tm & !bit(t);
                    match side {
                        Side::Before => [
                            brute_cut_between(g, &anc, m, bit(t), 0),
                            brute_cut_between(g, &anc, t, bit(m), rest),
                        ],
                        Side::After => [
                            brute_cut_between(g, &anc, m, 0, bit(t)),
                            brute_cut_between(g, &anc, t, rest, bit(m)),
                        ],
                    }
                })
                .flatten()
                .min()
        };
        for s in &splits {
            // The case split holds for any T (the random ones hold ops ordered with m too).
            let full = brute(s.side, s.op, &s.others).expect("every order takes one of the alternatives");
            prop_assert!(full <= best, "split {:?}: {} above the optimum {}", s, full, best);
            let got = either_side_bound(g, &net, std::slice::from_ref(s), &[&order], 0, u64::MAX, &|| false);
            prop_assert_eq!(got.bytes, full, "split {:?}", s);
        }
        let all = either_side_bound(g, &net, &splits, &[&order], 0, u64::MAX, &|| false);
        prop_assert!(all.bytes <= best, "either-side {} above the optimum {}", all.bytes, best);
        prop_assert!(all.complete);
        if let Some(h) = &all.hint {
            prop_assert!(g.check_order(&prefixed(&order, h)).is_ok());
        }
    }
}

/// A soykb in miniature (WfCommons): a merge reads four haplotype outputs, two genotype jobs
/// read two each. A genotype job before the merge leaves its output live there; all of them
/// after, and the first one runs with every haplotype output live. The cut and the last of a
/// set let that job run after the other, half the outputs freed; the either-side bound does
/// not, and meets the optimum.
#[test]
fn either_side_sees_the_soykb_merge() {
    let json = r#"{"tensors":[
        {"id":"h1","bytes":10},{"id":"h2","bytes":10},{"id":"h3","bytes":10},{"id":"h4","bytes":10},
        {"id":"g1","bytes":3},{"id":"g2","bytes":3},{"id":"m","bytes":5},{"id":"all","bytes":3}],
      "ops":[
        {"id":"hc1","inputs":[],"outputs":["h1"]},{"id":"hc2","inputs":[],"outputs":["h2"]},
        {"id":"hc3","inputs":[],"outputs":["h3"]},{"id":"hc4","inputs":[],"outputs":["h4"]},
        {"id":"merge","inputs":["h1","h2","h3","h4"],"outputs":["m"]},
        {"id":"gt1","inputs":["h1","h2"],"outputs":["g1"]},
        {"id":"gt2","inputs":["h3","h4"],"outputs":["g2"]},
        {"id":"combine","inputs":["g1","g2"],"outputs":["all"]}],
      "outputs":["m","all"]}"#;
    let g = Graph::from_spec(peakorder::format::GraphSpec::from_json(json).unwrap()).unwrap();
    let best = brute_force(&g);
    assert_eq!(best, 48);
    let net = CutNetwork::new(&g, &[]);
    let order = greedy_order(&g);
    let cut = cut_bound(&g, &net, &during_in(&g, &order), 0, 1, &|| false).bytes;
    let sets = candidate_sets(&g, &net);
    let los = last_of_set_bound(&g, &net, &sets, &[&order], 0, u64::MAX, &|| false).bytes;
    assert!(cut < best && los < best, "cut {cut}, last-of-set {los}");
    let splits = candidate_splits(&g, &net, &|| false);
    let es = either_side_bound(&g, &net, &splits, &[&order], 0, u64::MAX, &|| false);
    assert_eq!(es.bytes, best);
}
