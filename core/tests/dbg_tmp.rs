mod order_gen;
use order_gen::*;
use peakorder::order::exact::{cut_positions, exact_search};
use peakorder::order::greedy::greedy_order;
use peakorder::plan::Budget;
use peakorder::NoClock;
#[test]
fn dbg() {
    let mut r = Rng::new(0 * 1000 + 60);
    let g = series_parallel(&mut r, 60);
    let gr = greedy_order(&g);
    println!(
        "greedy peak {} lb {} cuts {:?}",
        peakorder::peak_of(&g, &gr),
        peakorder::lower_bound(&g),
        cut_positions(&g, &gr)
    );
    for st in [300000u64] {
        let budget = Budget::new(&NoClock, None, st);
        let t = std::time::Instant::now();
        let res = exact_search(&g, &budget, gr.clone());
        println!(
            "budget {st}: peak {} lb {} opt {} states {} {:?}",
            res.peak,
            res.lower_bound,
            res.optimal,
            res.states,
            t.elapsed()
        );
    }
}
