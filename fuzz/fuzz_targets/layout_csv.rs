//! MiniMalloc CSV bytes → `layout::csv::parse` → every layout method, with and without a
//! capacity, under a node limit. The parser must return intervals or a `bad_csv` error naming a
//! line for any bytes, never panic; for intervals it accepts, every method must return a layout
//! (or a clean size error, never `bad_layout`, the solvers' own self-check failing) that a naive
//! pairwise check finds valid: aligned, inside the arena, no two buffers live at one time
//! sharing a byte, the arena at least the peak of live bytes, `optimal` only where the exact
//! search could prove it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakorder::layout::problem::{align_up, Buffer};
use peakorder::layout::{csv, layout_intervals, LayoutMethod, LayoutOptions};
use peakorder::{Error, Hooks, NoClock};

/// Every pair of buffers, from the definition: aligned, inside the arena, and two buffers whose
/// lifetimes meet share no byte (not the solvers' own sweep, `layout::check`).
fn naive_check(bufs: &[Buffer], offsets: &[u64], arena: u64, align: u64) -> Result<(), String> {
    for (i, (a, &oa)) in bufs.iter().zip(offsets).enumerate() {
        if oa % align != 0 || oa as u128 + a.size as u128 > arena as u128 {
            return Err(format!(
                "buffer {i} at {oa} misaligned or outside the arena"
            ));
        }
        for (j, (b, &ob)) in bufs.iter().zip(offsets).enumerate().skip(i + 1) {
            let in_time = a.lower < b.upper && b.lower < a.upper;
            let in_space = a.size > 0 && b.size > 0 && oa < ob + b.size && ob < oa + a.size;
            if in_time && in_space {
                return Err(format!("buffers {i} and {j} overlap"));
            }
        }
    }
    Ok(())
}

/// Most live bytes at one time, from the definition (lifetimes half-open).
fn live_peak(bufs: &[Buffer]) -> u128 {
    let mut ev: Vec<(u64, bool, u64)> = Vec::new();
    for b in bufs {
        ev.push((b.lower, true, b.size));
        ev.push((b.upper, false, b.size));
    }
    // Frees before allocations at the same time.
    ev.sort_unstable_by_key(|&(t, alloc, _)| (t, alloc));
    let (mut live, mut peak) = (0u128, 0u128);
    for (_, alloc, s) in ev {
        if alloc {
            live += s as u128;
            peak = peak.max(live);
        } else {
            live -= s as u128;
        }
    }
    peak
}

fuzz_target!(|data: &[u8]| {
    let Some((&knob, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let iv = match csv::parse(text) {
        Ok(iv) => iv,
        Err(Error::BadCsv { line, .. }) => {
            assert!(line >= 1, "bad_csv names line {line}");
            return;
        }
        Err(e) => panic!("parse returned {} instead of bad_csv: {e}", e.code()),
    };
    // Small problems: many of them per second (the solvers' scale is for the benchmarks).
    if iv.buffers.len() > 64 {
        return;
    }
    let align = [1u64, 4, 64, 256][(knob & 3) as usize];
    let Some(aligned): Option<Vec<Buffer>> = iv
        .buffers
        .iter()
        .map(|b| align_up(b.size, align).map(|size| Buffer { size, ..*b }))
        .collect()
    else {
        return;
    };
    let peak = live_peak(&aligned);
    for &method in LayoutMethod::ALL {
        for capacity in [None, u64::try_from(peak).ok()] {
            let opts = LayoutOptions {
                method,
                align,
                budget_ms: None,
                max_states: 2_000,
                capacity,
            };
            let l = match layout_intervals(&iv, &opts, &NoClock, &Hooks::default()) {
                Ok(l) => l,
                Err(e @ Error::BadLayout { .. }) => {
                    panic!("{method}: the solver's layout failed its own check: {e}")
                }
                // Sizes whose sum overflows u64, say: refused, named.
                Err(_) => continue,
            };
            if let Err(c) = naive_check(&aligned, &l.offsets_ix, l.arena_bytes, align) {
                panic!("{method} capacity {capacity:?}: invalid layout: {c}");
            }
            assert!(
                l.arena_bytes as u128 >= peak,
                "{method}: arena {} below the peak {peak}",
                l.arena_bytes
            );
            assert_eq!(l.lower_bound_bytes as u128, peak, "{method}: lower bound");
            if l.optimal {
                assert!(
                    l.arena_bytes as u128 == peak
                        || matches!(method, LayoutMethod::Auto | LayoutMethod::Exact),
                    "{method} claims an optimum above the bound it cannot prove"
                );
            }
            assert_eq!(
                l.within_capacity,
                capacity.map_or(true, |c| l.arena_bytes <= c)
            );
        }
    }
});
