//! Budgets only help (issue 32): with a clock that moves the same on every run (one tick per
//! read), `auto` at a larger budget under its first epoch runs what the smaller one ran, then
//! more, so its plan is never higher and its bound never lower. On the wall clock the same
//! holds up to where the clock cuts a phase (`benches/real.rs --budgets 10,30,100,300,1000`).

use std::cell::Cell;

use peakorder::generators::models::{nas_cells, random_layered, random_sp, transformer, workflow};
use peakorder::order::auto::auto_order;
use peakorder::simulate::peak_of;
use peakorder::{Budget, Clock, Graph};

/// A clock that advances by `tick` ms at every read: a run's time is the work it reads the
/// clock for, the same on every machine.
struct TickClock {
    now: Cell<f64>,
    tick: f64,
}

impl Clock for TickClock {
    fn now_ms(&self) -> f64 {
        let t = self.now.get();
        self.now.set(t + self.tick);
        t
    }
}

/// `auto`'s plan of `g` within `budget_ms` on a fresh tick clock: its peak and its bound (the
/// peak when proven).
fn planned(g: &Graph, budget_ms: f64, tick: f64) -> (u64, u64) {
    let clock = TickClock {
        now: Cell::new(0.0),
        tick,
    };
    let o = auto_order(g, &Budget::new(&clock, Some(budget_ms), 2_000_000));
    g.check_order(&o.order).expect("auto returns a valid order");
    let peak = peak_of(g, &o.order);
    let bound = if o.proven_optimal {
        peak
    } else {
        o.lower_bound.expect("an unproven plan has a bound")
    };
    assert!(bound <= peak);
    (peak, bound)
}

fn graphs() -> Vec<(String, Graph)> {
    let mut out = Vec::new();
    let mut add = |name: String, spec| out.push((name, Graph::from_spec(spec).unwrap()));
    for seed in 0..4 {
        add(format!("layered {seed}"), random_layered(seed, 30, 10));
        add(format!("layered small {seed}"), random_layered(seed, 12, 8));
        add(format!("sp {seed}"), random_sp(seed, 400));
        add(format!("workflow {seed}"), workflow(seed, 6, 40));
        add(format!("nas {seed}"), nas_cells(seed, 6, 5, 32, 16));
    }
    add("transformer".into(), transformer(4, 2, 128, 256, true));
    out
}

#[test]
fn a_larger_short_budget_is_never_worse() {
    // Budgets that end epochs of a short budget (10, 30 and 70 ms), and ticks that leave a
    // 10 ms run anywhere from the heuristics alone to the proof search.
    let budgets = [10.0, 30.0, 70.0];
    let mut improved = 0;
    for tick in [5e-4, 2e-3, 5e-3] {
        for (name, g) in graphs() {
            let runs: Vec<(u64, u64)> = budgets.iter().map(|&b| planned(&g, b, tick)).collect();
            for i in 0..runs.len() {
                for j in i + 1..runs.len() {
                    let ((p1, b1), (p2, b2)) = (runs[i], runs[j]);
                    assert!(
                        p2 <= p1 && b2 >= b1,
                        "{name}, tick {tick}: {} ms gives peak {p1} bound {b1}, {} ms peak {p2} bound {b2}",
                        budgets[i],
                        budgets[j]
                    );
                    improved += usize::from(p2 < p1 || b2 > b1);
                }
            }
        }
    }
    // The larger budgets do find more (else the test would show nothing).
    assert!(improved > 0);
}
