//! The last-of-set scan resumed (`last_of_set_bound_from` with a `ScanMemo`, as the proof
//! search runs it across `auto`'s phases): cut short at random points and resumed, each run
//! floored by the last one's bound, it ends with the bound of one scan that was never cut
//! short. Chunks of 1-8 ops (64 in `auto`), so that a set spans several.

mod common;

use common::seeded_graph;

use std::cell::Cell;

use peakorder::bounds::cut::CutNetwork;
use peakorder::bounds::last_of_set::{
    candidate_sets, last_of_set_bound, last_of_set_bound_from, ScanMemo,
};
use peakorder::order::greedy::greedy_order;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn resumed_scan_ends_at_the_whole_scans_bound(
        kind in prop::sample::select(vec![0u8, 5, 6, 7]),
        seed in any::<u64>(),
        n in 8usize..=60,
        chunk in 1usize..=8,
        stops in prop::collection::vec(1u64..200, 1..8),
    ) {
        let g = seeded_graph(kind, seed, n);
        let net = CutNetwork::new(&g, &[]);
        let sets = candidate_sets(&g, &net);
        let order = greedy_order(&g);
        let whole = last_of_set_bound(&g, &net, &sets, &[&order], 0, u64::MAX, &|| false);
        let mut memo = ScanMemo::with_chunk(chunk);
        let mut floor = 0;
        let count = Cell::new(0u64);
        for &calls in &stops {
            count.set(0);
            let stop = || {
                count.set(count.get() + 1);
                count.get() > calls
            };
            let r = last_of_set_bound_from(&g, &net, &sets, &[&order], floor, u64::MAX, &stop, &mut memo);
            prop_assert!(r.bytes <= whole.bytes, "cut short: {} above {}", r.bytes, whole.bytes);
            floor = floor.max(r.bytes);
            if r.complete {
                break;
            }
        }
        let r = last_of_set_bound_from(&g, &net, &sets, &[&order], floor, u64::MAX, &|| false, &mut memo);
        prop_assert!(r.complete);
        prop_assert_eq!(r.bytes, whole.bytes);
    }
}
