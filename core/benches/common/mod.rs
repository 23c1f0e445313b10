//! Shared by the bench binaries: the thread's CPU time, and a clock that reads it.
#![allow(dead_code)]

use peakorder::Clock;

/// CPU time of the calling thread, in ms: "time on one core", unaffected by other load on a
/// shared machine. Also the clock the searches' deadlines are read from.
pub fn cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

/// A [`Clock`] on the thread's CPU time.
pub struct CpuClock;

impl Clock for CpuClock {
    fn now_ms(&self) -> f64 {
        cpu_ms()
    }
}
