mod order_gen;
use order_gen::*;
use peakorder::order::auto::best_heuristic;
use peakorder::order::exact::exact_search;
use peakorder::plan::Budget;
use peakorder::NoClock;
#[test]
fn dbg() {
    for seed in [7u64, 16, 17, 21] {
        let mut r = Rng::new(seed * 7919 + 13);
        let g = series_parallel(&mut r, 60);
        let b0 = Budget::new(&NoClock, None, 20000);
        let (_, inc, _ub) = best_heuristic(&g, &b0);
        let b = Budget::new(&NoClock, None, 3_000_000);
        let t = std::time::Instant::now();
        let big = exact_search(&g, &b, inc);
        println!(
            "seed {seed}: opt {} proven {} states {} {:?}",
            big.peak,
            big.optimal,
            big.states,
            t.elapsed()
        );
    }
}
