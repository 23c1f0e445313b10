//! How much work a search may do: a [`Clock`] the caller provides (the core has no clock of its
//! own), a deadline on it, caps on states and memory, a cancel flag and a progress callback.
//!
//! Phases of a search share one budget by [`Budget::share`]: each takes a part of the time left
//! (and of the states), so every phase reads the clock and the last one ends at the caller's
//! deadline.

use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// A source of time in milliseconds (any origin; only differences matter).
pub trait Clock {
    /// The time now, in milliseconds.
    fn now_ms(&self) -> f64;

    /// Milliseconds left before a deadline the clock keeps on its own, whatever a budget's
    /// (a [`crate::work::WorkClock`]'s real deadline); `None`, the default, for none.
    fn left_ms(&self) -> Option<f64> {
        None
    }

    /// Brings the clock's own deadline forward to now, when it keeps one: a phase that needs
    /// more of it than is left ends the run there, rather than letting the phases after it
    /// take another path with what is left (a [`crate::work::WorkClock`]'s runs are then the
    /// same work, cut short). The default does nothing.
    fn end(&self) {}
}

/// A clock that never moves: no deadline ever passes, elapsed times read 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoClock;

impl Clock for NoClock {
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// Where a long search stands, reported through [`Budget::progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// States expanded so far.
    pub states: u64,
    /// Peak of the best order known so far.
    pub best_peak: u64,
    /// A proven lower bound on every order's peak.
    pub lower_bound: u64,
}

/// How much work a search may do. The core never spawns threads or reads a clock of its own:
/// the caller passes a clock, an optional cancel flag (set e.g. by a Ctrl-C handler) and an
/// optional progress callback.
#[derive(Clone, Copy)]
pub struct Budget<'a> {
    /// The clock deadlines are read from.
    pub clock: &'a dyn Clock,
    /// Absolute time (on `clock`) after which a search stops and returns its best so far.
    pub deadline_ms: Option<f64>,
    /// Most search states a search may expand.
    pub max_states: u64,
    /// Most bytes a search's state table may hold.
    pub max_memory_bytes: u64,
    /// When set to true, a search stops as if its budget ran out.
    pub cancel: Option<&'a AtomicBool>,
    /// Called now and then (every few thousand states) while a search runs.
    pub progress: Option<&'a dyn Fn(&Progress)>,
}

/// Default cap on a search's state table.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 1 << 30;

impl<'a> Budget<'a> {
    /// A budget of `max_states` states and an optional deadline, no cancel flag, no progress.
    pub fn new(clock: &'a dyn Clock, deadline_ms: Option<f64>, max_states: u64) -> Budget<'a> {
        Budget {
            clock,
            deadline_ms,
            max_states,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            cancel: None,
            progress: None,
        }
    }

    /// True once the deadline (or the clock's own, see [`Clock::left_ms`]) has passed or the
    /// search was cancelled.
    pub fn expired(&self) -> bool {
        self.cancelled()
            || self.clock.left_ms().is_some_and(|l| l <= 0.0)
            || self.deadline_ms.is_some_and(|d| self.clock.now_ms() >= d)
    }

    /// True once the cancel flag is set.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(AtomicOrdering::Relaxed))
    }

    /// Reports progress to the callback, if any.
    pub fn report(&self, p: &Progress) {
        if let Some(f) = self.progress {
            f(p);
        }
    }

    /// Milliseconds a phase may take: `fraction` of the time left before the deadline (0 once
    /// it has passed), at most `cap_ms`; `None` without a deadline. The clock is read now.
    pub fn share_ms(&self, fraction: f64, cap_ms: Option<f64>) -> Option<f64> {
        let d = self.deadline_ms?;
        let ms = Self::part_of_left(d, self.clock.now_ms(), fraction);
        Some(cap_ms.map_or(ms, |c| ms.min(c)))
    }

    /// True when less than `ms` is left before the deadline or the clock's own
    /// ([`Clock::left_ms`]), whichever comes first (never without either): a phase that cannot
    /// read the clock while it runs, and took about `ms` before, would overrun it. The clock is
    /// read now.
    pub fn less_left_than(&self, ms: f64) -> bool {
        self.clock.left_ms().is_some_and(|l| l < ms)
            || self
                .deadline_ms
                .is_some_and(|d| d - self.clock.now_ms() < ms)
    }

    /// The budget of one phase of a search: `fraction` of the time left (as
    /// [`Budget::share_ms`]) and `max_states` states; the clock, memory cap, cancel flag and
    /// progress callback are shared. A `fraction` of 1 or more keeps the deadline itself: the
    /// last phase ends exactly when the whole search must.
    pub fn share(&self, fraction: f64, max_states: u64) -> Budget<'a> {
        let deadline_ms = match self.deadline_ms {
            Some(d) if fraction < 1.0 => {
                let now = self.clock.now_ms();
                Some(now + Self::part_of_left(d, now, fraction))
            }
            d => d,
        };
        Budget {
            deadline_ms,
            max_states,
            ..*self
        }
    }

    /// `fraction` of the milliseconds from `now` to `deadline` (0 once it has passed).
    fn part_of_left(deadline: f64, now: f64, fraction: f64) -> f64 {
        (deadline - now).max(0.0) * fraction
    }
}
