//! The chain optimum (core/src/recompute/chain.rs, Revolve): `chain::plan` on homogeneous
//! chain training graphs (`generators::chain_train`) of n = 10, 100, 1,000 and 5,000 forward
//! ops at limits of s = 2..10 activation slots, timed on this thread's CPU clock
//! (`benches/common`: the machine is shared). A plan is the whole call: recognising the chain,
//! the binomial table, the schedule, and the simulator's re-check of it.
//!
//! `cargo bench -p peakorder --bench recompute_chain [-- --check] [--runs K]`
//!
//! Prints one Markdown row per (n, s): the median and worst CPU ms of K runs (default 5), the
//! schedule's length and the forward reruns (the added cost at unit forward cost). `--check`
//! exits 1 when a plan of n ≤ 1,000 takes 100 ms or more at its worst (issue #29, acceptance 2).

use std::hint::black_box;

#[path = "common/mod.rs"]
mod common;
use common::{cpu_ms, CpuClock};

use peakorder::generators::chain_train::ChainTrain;
use peakorder::recompute::{chain, Outcome};
use peakorder::{plan, Graph, PlanOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let check = args.iter().any(|a| a == "--check");
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    println!("| n | slots | median ms | worst ms | schedule | forward reruns |");
    println!("|---:|---:|---:|---:|---:|---:|");
    let mut worst_small = 0.0f64;
    for n in [10usize, 100, 1000, 5000] {
        let c = ChainTrain::new(n, 1 << 20);
        let g = Graph::from_spec(c.spec()).expect("a valid chain");
        for s in 2..=10u64 {
            let limit = c.limit(s).expect("no overflow");
            let mut times = Vec::with_capacity(runs);
            let mut last = None;
            for _ in 0..runs {
                let t0 = cpu_ms();
                let o = black_box(chain::plan(black_box(&g), limit));
                times.push(cpu_ms() - t0);
                last = Some(o);
            }
            times.sort_by(f64::total_cmp);
            let (median, worst) = (times[times.len() / 2], times[times.len() - 1]);
            if n <= 1000 {
                worst_small = worst_small.max(worst);
            }
            let Some(Outcome::Found(f)) = last else {
                panic!("n {n}, {s} slots: no schedule");
            };
            println!(
                "| {n} | {s} | {median:.3} | {worst:.3} | {} | {} |",
                f.schedule.len(),
                f.added_cost
            );
        }
    }
    println!("\nworst plan for n <= 1,000: {worst_small:.3} ms (acceptance: under 100 ms)");
    // The public planner on the same graphs: the order first (the chain has one), the chain
    // optimum, the re-check, and the least limit (the one-slot schedule, and eviction's).
    println!("\n`peakorder::plan` with the limit (default options, CPU clock), one run each:\n");
    println!("| n | slots | ms | method | added cost | optimal |");
    println!("|---:|---:|---:|---|---:|---|");
    for n in [10usize, 100, 1000] {
        let c = ChainTrain::new(n, 1 << 20);
        let g = Graph::from_spec(c.spec()).expect("a valid chain");
        for s in [2u64, 5, 9] {
            let opts = PlanOptions {
                memory_limit: c.limit(s),
                ..Default::default()
            };
            let t0 = cpu_ms();
            let p = plan(&g, &opts, &CpuClock).expect("a plan");
            let ms = cpu_ms() - t0;
            let r = p.recompute.expect("a limit was given");
            println!(
                "| {n} | {s} | {ms:.1} | {} | {} | {} |",
                r.recompute_method, r.added_cost, p.optimal
            );
        }
    }
    if check && worst_small >= 100.0 {
        std::process::exit(1);
    }
}
