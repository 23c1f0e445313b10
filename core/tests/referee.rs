//! The referee (`peakorder::referee`) against plain enumeration: on tiny random graphs every
//! topological order is listed and simulated, and the referee's least peak, its best order, and
//! its tables (memory after each downset, least peak of the steps before and after it) must be
//! exactly what the orders give.

mod common;

use std::collections::HashMap;

use common::any_graph;
use peakorder::referee::{best_order, Downsets};
use peakorder::{peak_of, simulate, Graph, OpIx};
use proptest::prelude::*;

/// Calls `visit` with every topological order of `g` (an explicit stack of the next candidate
/// at each depth).
fn for_each_order(g: &Graph, visit: &mut dyn FnMut(&[OpIx])) {
    let n = g.num_ops();
    let mut order: Vec<OpIx> = Vec::with_capacity(n);
    let mut used = vec![false; n];
    let mut next = vec![0usize];
    while let Some(&start) = next.last() {
        if order.len() == n {
            visit(&order);
        }
        let pick = (start..n).find(|&v| {
            order.len() < n && !used[v] && g.preds(v as OpIx).iter().all(|&p| used[p as usize])
        });
        match pick {
            Some(v) => {
                *next.last_mut().unwrap() = v + 1;
                used[v] = true;
                order.push(v as OpIx);
                next.push(0);
            }
            None => {
                next.pop();
                if let Some(v) = order.pop() {
                    used[v as usize] = false;
                }
            }
        }
    }
}

/// What every order gives, per prefix set: (memory after it, least peak of its steps, least
/// peak of the steps after it), and the least peak overall.
fn enumerate(g: &Graph) -> (HashMap<u64, (u64, u64, u64)>, u64) {
    let mut sets: HashMap<u64, (u64, u64, u64)> = HashMap::new();
    let mut best = u64::MAX;
    for_each_order(g, &mut |order| {
        let sim = simulate(g, order).expect("a topological order");
        best = best.min(sim.peak_bytes);
        let during: Vec<u64> = sim.steps.iter().map(|s| s.during_bytes).collect();
        let mut set = 0u64;
        for k in 0..=order.len() {
            let live = if k == 0 {
                sim.inputs_bytes
            } else {
                sim.steps[k - 1].after_bytes
            };
            let before = during[..k].iter().copied().max().unwrap_or(0);
            let after = during[k..].iter().copied().max().unwrap_or(0);
            let e = sets.entry(set).or_insert((live, u64::MAX, u64::MAX));
            assert_eq!(e.0, live, "memory after a set depends on the order");
            e.1 = e.1.min(before);
            e.2 = e.2.min(after);
            if k < order.len() {
                set |= 1 << order[k];
            }
        }
    });
    (sets, best)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn referee_is_what_every_order_gives(c in any_graph(0..=7)) {
        let g = &c.graph;
        let (sets, best) = enumerate(g);
        let (peak, order) = best_order(g);
        prop_assert_eq!(peak, best, "least peak");
        prop_assert!(g.check_order(&order).is_ok(), "best order is not an order");
        prop_assert_eq!(peak_of(g, &order), best, "best order misses the least peak");
        let d = Downsets::new(g);
        let downsets: Vec<u64> = d.iter().collect();
        let mut prefixes: Vec<u64> = sets.keys().copied().collect();
        prefixes.sort();
        prop_assert_eq!(downsets, prefixes, "downsets");
        for (&s, &(live, before, after)) in &sets {
            prop_assert_eq!(d.live(s), Some(live), "live after {:b}", s);
            prop_assert_eq!(d.best_prefix(s), Some(before), "best prefix {:b}", s);
            prop_assert_eq!(d.best_completion(s), Some(after), "best completion {:b}", s);
            for v in 0..g.num_ops() as OpIx {
                if s >> v & 1 == 0 && sets.contains_key(&(s | 1 << v)) {
                    prop_assert_eq!(d.during(s, v), Some(live + g.alloc(v) + g.workspace(v)));
                }
            }
        }
    }
}
