//! Long calls without the GIL, stoppable with Ctrl-C (docs/design.md §5: Ctrl-C keeps the best
//! order found so far).
//!
//! Python's own SIGINT handler only sets a flag that the interpreter checks between bytecodes, so
//! a search running in Rust would never see it. The job runs on a worker thread with the GIL
//! released; the calling thread waits for it and, every [`POLL`], briefly takes the GIL to run
//! Python's pending signal handlers (`PyErr_CheckSignals`). When one raises, the job's cancel
//! flag is set (the core's searches poll it through their budget) and the job returns its best so
//! far. No signal handler of our own is installed, so Python's (and the user's) stay in charge.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

/// How often pending signals are checked while a job runs.
const POLL: Duration = Duration::from_millis(20);

/// How a job ended.
pub struct Finished<T> {
    pub value: T,
    /// Ctrl-C stopped it early: `value` is the best found before.
    pub interrupted: bool,
}

/// Runs `job(cancel)` without the GIL, setting `cancel` when a signal handler raises. A
/// KeyboardInterrupt ends the job early and its result is returned; any other exception a
/// handler raises is raised here once the job has stopped.
pub fn run_interruptible<T, F>(py: Python<'_>, job: F) -> PyResult<Finished<T>>
where
    T: Send,
    F: FnOnce(&AtomicBool) -> T + Send,
{
    let cancel = AtomicBool::new(false);
    let (outcome, raised) = py.detach(|| {
        let (done_tx, done_rx) = mpsc::channel::<()>();
        std::thread::scope(|s| {
            let cancel = &cancel;
            let worker = s.spawn(move || {
                let value = job(cancel);
                // The receiver only goes away once this thread is joined.
                let _ = done_tx.send(());
                value
            });
            let mut raised: Option<PyErr> = None;
            loop {
                match done_rx.recv_timeout(POLL) {
                    // Finished, or the worker panicked (its sender is gone): join it below.
                    Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if raised.is_none() {
                            if let Err(e) = Python::attach(|py| py.check_signals()) {
                                cancel.store(true, Ordering::SeqCst);
                                raised = Some(e);
                            }
                        }
                    }
                }
            }
            (worker.join(), raised)
        })
    });
    let value = match outcome {
        Ok(v) => v,
        // A panic is a bug in the core; pyo3 turns it into a PanicException with its message.
        Err(panic) => std::panic::resume_unwind(panic),
    };
    match raised {
        None => Ok(Finished {
            value,
            interrupted: false,
        }),
        Some(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => Ok(Finished {
            value,
            interrupted: true,
        }),
        Some(e) => Err(e),
    }
}
