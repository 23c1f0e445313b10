//! The rewrite-set bound (`bounds::rewrite_set`) against brute force on small random graphs
//! (views, donated inputs, dead outputs, workspace, pinned outputs: the `general` family and
//! every generator): each set holds exactly the ops that read and allocate at least its
//! threshold, its bound is exactly the first-of-set (last-of-set) formula over every downset,
//! and the bound is at most the brute-force optimum.

mod bounds_brute;
mod common;

use bounds_brute::{ancestors, cut_between, downsets};
use common::{any_graph, random_order, seeded_graph};

use peakorder::bounds::cut::CutNetwork;
use peakorder::bounds::last_of_set::{last_of_set_bound, End};
use peakorder::bounds::rewrite_set::{rewrite_set_bound, rewrite_sets};
use peakorder::order::greedy::greedy_order;
use peakorder::referee::least_peak as brute_force;
use peakorder::{Graph, OpIx};
use proptest::prelude::*;

fn check(g: &Graph) -> Result<(), TestCaseError> {
    let n = g.num_ops() as OpIx;
    let anc = ancestors(g);
    let downs = downsets(g, &anc);
    let best = brute_force(g);
    let net = CutNetwork::new(g, &[]);
    let order = greedy_order(g);
    let weight = |v: OpIx| {
        let read = g.reads(v).iter().map(|&t| g.size(t)).max().unwrap_or(0);
        read.min(g.alloc(v))
    };
    let sets = rewrite_sets(g);
    for s in &sets {
        prop_assert!(s.ops.len() >= 2);
        // A threshold set: every op at least as heavy as its lightest is in it.
        let x = s.ops.iter().map(|&v| weight(v)).min().expect("two ops");
        prop_assert!(x > 0);
        let want_ops: Vec<OpIx> = (0..n).filter(|&v| weight(v) >= x).collect();
        prop_assert_eq!(&s.ops, &want_ops);
        let want = s
            .ops
            .iter()
            .filter_map(|&v| {
                let rest: u64 = s.ops.iter().filter(|&&y| y != v).map(|&y| 1u64 << y).sum();
                match s.end {
                    End::Last => cut_between(g, &downs, &anc, v, rest, 0),
                    End::First => cut_between(g, &downs, &anc, v, 0, rest),
                }
            })
            .min()
            .expect("some op of a set runs first, and some last");
        let got = last_of_set_bound(
            g,
            &net,
            std::slice::from_ref(s),
            &[&order],
            0,
            u64::MAX,
            &|| false,
        );
        prop_assert_eq!(got.bytes, want, "set {:?}", s);
        prop_assert!(
            want <= best,
            "rewrite set {:?}: {} above the optimum {}",
            s,
            want,
            best
        );
    }
    // The largest weights make the first set, when two ops or more share them.
    let top = (0..n).map(weight).max().unwrap_or(0);
    let heaviest: Vec<OpIx> = (0..n).filter(|&v| weight(v) == top).collect();
    if top > 0 && heaviest.len() >= 2 {
        prop_assert_eq!(sets.first().map(|s| &s.ops), Some(&heaviest));
    }
    for o in [order.clone(), random_order(g, u64::from(n))] {
        let rs = rewrite_set_bound(g, &[&o], 0, u64::MAX, &|| false);
        prop_assert!(rs.complete);
        prop_assert!(
            rs.bytes <= best,
            "rewrite-set {} above the optimum {}",
            rs.bytes,
            best
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Graphs from tapes (they shrink): the whole memory model.
    #[test]
    fn rewrite_set_is_its_formula_and_true(c in any_graph(1..=10)) {
        check(&c.graph)?;
    }

    /// Graphs from the seeded generators.
    #[test]
    fn rewrite_set_is_true_on_generated_graphs(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=10) {
        check(&seeded_graph(kind, seed, n))?;
    }
}
