//! `peakorder`: plan, simulate and compare orders of a tensor program for peak memory.
//!
//! Exit codes (docs/design.md §5): 0 success, 2 bad input (message on stderr), 1 anything else.

use std::process::ExitCode;

use clap::Parser;

mod cli;

fn main() -> ExitCode {
    // Like other Unix tools, end quietly when the reader goes away (`peakorder ... | head`)
    // instead of panicking on a failed write to stdout.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peakorder: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
