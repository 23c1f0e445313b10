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

/// The value after `flag` on the command line (`--dir DIR`), if given.
pub fn arg_value(args: &[String], flag: &str) -> Option<String> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// The corpus directory: `--dir`, else `$PEAKORDER_CORPUS`, else `target/corpus` (made by
/// scripts/corpus/build.sh).
pub fn corpus_dir(args: &[String]) -> String {
    arg_value(args, "--dir")
        .or_else(|| std::env::var("PEAKORDER_CORPUS").ok())
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../target/corpus").to_string())
}

/// The corpus graphs (`*.json` in `dir`) whose file name `keep` accepts, sorted by path.
pub fn corpus_files(dir: &str, keep: impl Fn(&str) -> bool) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e} (run scripts/corpus/build.sh first)"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| keep(&p.file_name().unwrap_or_default().to_string_lossy()))
        .collect();
    files.sort();
    files
}
