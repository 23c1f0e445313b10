//! A count of elementary steps (an edge scanned by a flow, an op simulated, a state expanded)
//! that the searches add to as they go, and [`WorkClock`], which reads it as time: `auto`'s
//! epochs and phases end after an amount of work, not of the machine's time, so that where a
//! run's phases end does not depend on the load, and a run at a larger budget does the same
//! work first, then more (issue 32; docs/optimal.md, "How `auto` divides its time").
//!
//! The count is per thread (a search runs on one) and only ever grows; a reader takes
//! differences.

use std::cell::Cell;

use crate::budget::Clock;

thread_local! {
    static DONE: Cell<u64> = const { Cell::new(0) };
}

/// Adds `units` elementary steps to this thread's count.
#[inline]
pub fn add(units: u64) {
    DONE.with(|d| d.set(d.get().wrapping_add(units)));
}

/// This thread's count so far.
pub fn done() -> u64 {
    DONE.with(Cell::get)
}

/// Milliseconds of work per step. On the real-graph corpus at the default budget (the 2-core
/// machine of docs/benchmarks.md) a step took 1.1-10 ns, 4.0 ns on the median graph and 5-6 ns
/// on the graphs that use the whole budget; at 4 ns their first epoch runs a little past the
/// default budget, each phase with more of its time than a real 100 ms gave it (more proofs at
/// 100 ms), and at 4.5, 5, 6 and 8 ns the proofs at 100 ms were fewer (docs/optimal.md).
pub const MS_PER_UNIT: f64 = 4e-6;

/// The part of the real time elapsed that the work clock never falls below: a loop that adds
/// too little for what it costs still ends its phase, later than planned.
pub const REAL_FLOOR: f64 = 0.5;

/// A clock whose time is the work done on this thread since it was made (at
/// [`MS_PER_UNIT`]), or [`REAL_FLOOR`] of the real time elapsed when that is more; and a
/// deadline on the real clock that ends every phase read through it ([`Clock::left_ms`]).
pub struct WorkClock<'a> {
    real: &'a dyn Clock,
    real_start: f64,
    work_start: u64,
    deadline: Option<f64>,
    /// Set by [`Clock::end`]: the deadline has come.
    ended: Cell<bool>,
}

impl<'a> WorkClock<'a> {
    /// A work clock from now, with `deadline` on `real` (absolute, as a budget's).
    pub fn new(real: &'a dyn Clock, deadline: Option<f64>) -> WorkClock<'a> {
        WorkClock {
            real,
            real_start: real.now_ms(),
            work_start: done(),
            deadline,
            ended: Cell::new(false),
        }
    }

    /// Milliseconds of work done since the clock was made, at [`MS_PER_UNIT`].
    pub fn work_ms(&self) -> f64 {
        done().wrapping_sub(self.work_start) as f64 * MS_PER_UNIT
    }
}

impl Clock for WorkClock<'_> {
    fn now_ms(&self) -> f64 {
        let real = (self.real.now_ms() - self.real_start) * REAL_FLOOR;
        self.work_ms().max(real)
    }

    fn left_ms(&self) -> Option<f64> {
        let d = self.deadline?;
        if self.ended.get() {
            return Some(0.0);
        }
        Some(d - self.real.now_ms())
    }

    fn end(&self) {
        self.ended.set(self.deadline.is_some());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    struct Manual(Cell<f64>);
    impl Clock for Manual {
        fn now_ms(&self) -> f64 {
            self.0.get()
        }
    }

    #[test]
    fn work_is_the_time_until_the_real_floor_passes_it() {
        let real = Manual(Cell::new(1000.0));
        let c = WorkClock::new(&real, Some(1100.0));
        assert_eq!(c.now_ms(), 0.0);
        add((10.0 / MS_PER_UNIT) as u64);
        assert!((c.now_ms() - 10.0).abs() < 1e-6);
        // 40 ms of real time: half of it, 20, is more than the work's 10.
        real.0.set(1040.0);
        assert!((c.now_ms() - 20.0).abs() < 1e-6);
        assert_eq!(c.left_ms(), Some(60.0));
        // Ended, its deadline has come.
        c.end();
        assert_eq!(c.left_ms(), Some(0.0));
    }
}
