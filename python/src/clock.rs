//! The core's clock, read from the OS monotonic clock (the CLI's too).

use std::time::Instant;

/// Milliseconds since the clock was made.
pub struct StdClock(Instant);

impl StdClock {
    pub fn new() -> Self {
        StdClock(Instant::now())
    }
}

impl peakorder::Clock for StdClock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }
}
