mod order_gen;
use order_gen::*;
use peakorder::{plan, Clock, Method, PlanOptions};
struct C(std::time::Instant);
impl Clock for C {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1e3
    }
}
#[test]
fn dbg() {
    for n in [100usize, 300, 1000, 3000, 10000, 20000] {
        for kind in 0..3 {
            let mut r = Rng::new(n as u64 + kind);
            let g = match kind {
                0 => dag(&mut r, n),
                1 => series_parallel(&mut r, n),
                _ => layered(&mut r, n),
            };
            let t = std::time::Instant::now();
            let b = peakorder::bounds::part_lower_bound(&g);
            let tb = t.elapsed();
            let t = std::time::Instant::now();
            let p = plan(
                &g,
                &PlanOptions {
                    method: Method::Auto,
                    ..PlanOptions::default()
                },
                &C(std::time::Instant::now()),
            )
            .unwrap();
            println!(
                "n {n} kind {kind}: bound {b} in {tb:?}; auto peak {} lb {} opt {} in {:?}",
                p.peak_bytes,
                p.lower_bound_bytes,
                p.optimal,
                t.elapsed()
            );
        }
    }
}
