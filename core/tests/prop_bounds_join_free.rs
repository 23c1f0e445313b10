//! The join-free bound (`bounds::join_free`) against brute force on small random graphs (views,
//! donated inputs, dead outputs, workspace, pinned outputs: the `general` family and every
//! generator): for every join z and set B of its storages, the bound is exactly its formula
//! computed over every downset, and at most the brute-force optimum; the scan over sampled
//! joins is too.

mod bounds_brute;
mod common;

use bounds_brute::{ancestors, downsets};
use common::{any_graph, random_order, seeded_graph};

use peakorder::bounds::join_free::{join_free_bound, join_free_of, join_storages};
use peakorder::order::greedy::greedy_order;
use peakorder::referee::least_peak as brute_force;
use peakorder::{Graph, OpIx};
use proptest::prelude::*;

fn bits(ops: &[OpIx]) -> u64 {
    ops.iter().fold(0, |m, &v| m | 1 << v)
}

/// The formula by brute force: the least, over s in B and its readers x (not z, not an
/// ancestor of z), of the memory while x runs after a downset holding z, x's ancestors and
/// s's other readers, counting all of B as live (what the downset freed or has not made is
/// added back); an x whose forced predecessors free another storage of B is skipped.
/// `u64::MAX` when there is no such x and downset.
fn brute_join_free(g: &Graph, anc: &[u64], sets: &[(u64, u64)], z: OpIx, b: &[u32]) -> u64 {
    let n = g.num_ops();
    let held: u64 = b.iter().map(|&t| g.size(t)).sum();
    let made = |t: u32, set: u64| {
        g.tensors()[t as usize]
            .producer
            .map_or(true, |p| set & (1 << p) != 0)
    };
    let zs = anc[z as usize] | 1 << z;
    let mut best = u64::MAX;
    for &s in b {
        for &x in g.users(s) {
            if zs & (1 << x) != 0 {
                continue;
            }
            let rest = bits(g.users(s)) & !(1 << x);
            let need = (0..n)
                .filter(|&u| (rest | 1 << z) & (1 << u) != 0)
                .fold(anc[x as usize] | rest | zs, |m, u| m | anc[u]);
            if b.iter()
                .any(|&t| t != s && g.users(t).iter().all(|&u| need & (1 << u) != 0))
            {
                continue;
            }
            for &(set, live) in sets {
                if set & (1 << x) != 0 || set & need != need {
                    continue;
                }
                let counted: u64 = b
                    .iter()
                    .filter(|&&t| made(t, set) && !g.users(t).iter().all(|&u| set & (1 << u) != 0))
                    .map(|&t| g.size(t))
                    .sum();
                let m = live - counted + held + g.alloc(x) + g.workspace(x);
                best = best.min(m);
            }
        }
    }
    best
}

/// Checks every join and B = the k largest of its storages (every k) on `g`.
fn check(g: &Graph) -> Result<(), TestCaseError> {
    let n = g.num_ops();
    let anc = ancestors(g);
    let sets = downsets(g, &anc);
    let best = brute_force(g);
    for z in 0..n as OpIx {
        let a: Vec<bool> = (0..n).map(|u| anc[z as usize] & (1 << u) != 0).collect();
        let d: Vec<bool> = (0..n).map(|u| anc[u] & (1 << z) != 0).collect();
        let all = join_storages(g, z, &a, &d);
        for k in 1..=all.len() {
            let mut flows = 0;
            let got = join_free_of(g, z, k, 0, u64::MAX, &|| false, &mut flows);
            let want = brute_join_free(g, &anc, &sets, z, &all[..k]);
            prop_assert_eq!(got, Some(want), "z {} B {:?}", z, &all[..k]);
            prop_assert!(
                want == u64::MAX || want <= best,
                "join-free {} above the optimum {} (z {}, B {:?})",
                want,
                best,
                z,
                &all[..k]
            );
        }
    }
    for order in [greedy_order(g), random_order(g, n as u64)] {
        let jf = join_free_bound(g, &order, 0, u64::MAX, &|| false);
        prop_assert!(jf.complete);
        prop_assert!(
            jf.bytes <= best,
            "scan {} above the optimum {}",
            jf.bytes,
            best
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Graphs from tapes (they shrink): the whole memory model.
    #[test]
    fn join_free_is_its_formula_and_true(c in any_graph(1..=9)) {
        check(&c.graph)?;
    }

    /// Graphs from the seeded generators.
    #[test]
    fn join_free_is_true_on_generated_graphs(kind in 0u8..8, seed in any::<u64>(), n in 1usize..=9) {
        check(&seeded_graph(kind, seed, n))?;
    }
}
