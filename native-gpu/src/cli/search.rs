//! What long searches need from the terminal: Ctrl-C stops a search and keeps its best order,
//! and a search that runs past a second shows its progress on stderr when stderr is a terminal.

use std::cell::Cell;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use peakorder::units::format_bytes;
use peakorder::{Clock, Progress};

use super::StdClock;

/// Set by the Ctrl-C handler; the core's searches poll it through their budget.
pub static CANCEL: AtomicBool = AtomicBool::new(false);

/// Installs the Ctrl-C handler: the first press stops the search (the best order so far is
/// printed); a second press exits at once.
pub fn install_ctrl_c() {
    let _ = ctrlc::set_handler(|| {
        if CANCEL.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
}

/// Prints progress lines on stderr after the first second, if stderr is a terminal.
pub struct ProgressLine {
    clock: StdClock,
    tty: bool,
    shown: Cell<bool>,
}

impl ProgressLine {
    pub fn new() -> Self {
        ProgressLine {
            clock: StdClock::new(),
            tty: std::io::stderr().is_terminal(),
            shown: Cell::new(false),
        }
    }

    pub fn update(&self, p: &Progress) {
        if !self.tty || self.clock.now_ms() < 1000.0 {
            return;
        }
        let gap = p.best_peak.saturating_sub(p.lower_bound);
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[Ksearching: {} states, best {}, bound {}, gap {} (Ctrl-C keeps the best)",
            p.states,
            format_bytes(p.best_peak),
            format_bytes(p.lower_bound),
            format_bytes(gap)
        );
        let _ = err.flush();
        self.shown.set(true);
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        let mut err = std::io::stderr().lock();
        if self.shown.get() {
            let _ = write!(err, "\r\x1b[K");
        }
        if CANCEL.load(Ordering::SeqCst) {
            let _ = writeln!(err, "interrupted: showing the best order found so far");
        }
        let _ = err.flush();
    }
}
