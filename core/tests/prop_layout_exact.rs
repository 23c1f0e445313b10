//! The exact canonical search (core/src/layout/canonical.rs) as a decision procedure, against
//! brute force: at the optimum it finds a valid layout, one byte below it proves there is none.
//! The instances include staircases of buffers live from time 0 (the inputs of the elimination
//! trees of docs/layout.md), where the search's candidate cut (room above the fullest section)
//! and its lazily rescanned section minima prune the most.

use peakorder::budget::Budget;
use peakorder::generators::Rng;
use peakorder::layout::canonical::{solve, Nodes, Outcome, Solver};
use peakorder::layout::check::check;
use peakorder::layout::overlaps::Overlaps;
use peakorder::layout::problem::Buffer;
use peakorder::NoClock;
use proptest::prelude::*;

/// Smallest arena of any layout (align 1), by trying every offset of every buffer.
fn brute_force(bufs: &[Buffer]) -> u64 {
    fn fits(k: usize, bufs: &[Buffer], off: &mut [u64], h: u64) -> bool {
        if k == bufs.len() {
            return true;
        }
        let b = bufs[k];
        for o in 0..=h.saturating_sub(b.size) {
            if o + b.size > h {
                break;
            }
            let clash = (0..k)
                .any(|j| b.overlaps(&bufs[j]) && o < off[j] + bufs[j].size && off[j] < o + b.size);
            if !clash {
                off[k] = o;
                if fits(k + 1, bufs, off, h) {
                    return true;
                }
            }
        }
        false
    }
    let mut off = vec![0u64; bufs.len()];
    let mut h = bufs.iter().map(|b| b.size).max().unwrap_or(0);
    while !fits(0, bufs, &mut off, h) {
        h += 1;
    }
    h
}

fn decide(bufs: &[Buffer], capacity: u64) -> Outcome {
    let pos: Vec<u32> = (0..bufs.len() as u32).collect();
    let o = Overlaps::of(bufs, &pos, usize::MAX).expect("overlaps");
    let clock = NoClock;
    let budget = Budget::new(&clock, None, u64::MAX);
    solve(bufs, &o, capacity, &budget, &mut Nodes { used: 0 })
}

/// As [`decide`], every section rescanned only as far as a check needs (canonical.rs rescans
/// only sections of more than 32 buffers so; here every section is).
fn decide_partial(bufs: &[Buffer], capacity: u64) -> Outcome {
    let pos: Vec<u32> = (0..bufs.len() as u32).collect();
    let o = Overlaps::of(bufs, &pos, usize::MAX).expect("overlaps");
    let clock = NoClock;
    let budget = Budget::new(&clock, None, u64::MAX);
    let mut solver = Solver::new(bufs, &o);
    solver.set_long_section(0);
    let mut nodes = Nodes { used: 0 };
    let mut limit = 2 * bufs.len() as u64;
    loop {
        match solver.round(capacity, limit, &budget, &mut nodes) {
            Outcome::Limit => limit = limit.saturating_mul(2),
            other => return other,
        }
    }
}

/// The search's answers at the optimum and one below it.
fn check_exact(bufs: &[Buffer]) -> Result<(), String> {
    check_with(bufs, decide)?;
    check_with(bufs, decide_partial)
}

fn check_with(bufs: &[Buffer], decide: fn(&[Buffer], u64) -> Outcome) -> Result<(), String> {
    let best = brute_force(bufs);
    match decide(bufs, best) {
        Outcome::Found(off) => {
            check(bufs, &off, best, 1).map_err(|c| format!("invalid layout at {best}: {c:?}"))?
        }
        other => return Err(format!("capacity {best} (the optimum): {other:?}")),
    }
    if best > 0 {
        match decide(bufs, best - 1) {
            Outcome::Infeasible => {}
            other => {
                return Err(format!(
                    "capacity {} (below the optimum): {other:?}",
                    best - 1
                ))
            }
        }
    }
    Ok(())
}

/// Random lifetimes, or (with `inputs`) some live from time 0 like a graph's inputs.
fn random_buffers(rng: &mut Rng, n: usize, inputs: bool) -> Vec<Buffer> {
    (0..n)
        .map(|_| {
            let from_zero = inputs && rng.range(0, 3) == 0;
            let lower = if from_zero { 0 } else { rng.range(0, 8) };
            Buffer {
                lower,
                upper: lower + rng.range(1, 6),
                size: rng.range(1, 6),
            }
        })
        .collect()
}

fn buffers() -> impl Strategy<Value = Vec<Buffer>> {
    let buf = (0u64..7, 1u64..6, 1u64..6, any::<bool>()).prop_map(|(lower, len, size, zero)| {
        let lower = if zero { 0 } else { lower };
        Buffer {
            lower,
            upper: lower + len,
            size,
        }
    });
    prop::collection::vec(buf, 1..7)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn exact_search_decides_like_brute_force(bufs in buffers()) {
        prop_assert_eq!(check_exact(&bufs), Ok(()));
    }
}

#[test]
fn exact_search_decides_like_brute_force_on_seeded_instances() {
    let mut rng = Rng::new(19);
    for case in 0..1500 {
        let n = 2 + (case % 6);
        let bufs = random_buffers(&mut rng, n, case % 2 == 0);
        if let Err(e) = check_exact(&bufs) {
            panic!("case {case}: {bufs:?}: {e}");
        }
    }
}

#[test]
fn exact_search_layouts_are_valid_on_larger_instances() {
    // Too large for brute force: every layout found within a capacity is re-checked.
    let mut rng = Rng::new(23);
    for case in 0..100 {
        let bufs = random_buffers(&mut rng, 20 + case % 20, true);
        let mut peak = 0;
        for t in 0..16 {
            let live: u64 = bufs
                .iter()
                .filter(|b| b.lower <= t && t < b.upper)
                .map(|b| b.size)
                .sum();
            peak = peak.max(live);
        }
        for capacity in [peak, peak + 2, peak + 8] {
            if let Outcome::Found(off) = decide(&bufs, capacity) {
                if let Err(c) = check(&bufs, &off, capacity, 1) {
                    panic!("case {case} capacity {capacity}: {c:?}");
                }
            }
        }
    }
}

/// A strip `layers` high tiled without a hole: each layer (1–3 bytes high) is cut in time into a
/// few buffers, so every time has one live buffer per layer and the peak is the strip's height.
fn tiled(rng: &mut Rng, layers: usize, end: u64) -> Vec<Buffer> {
    let mut bufs = Vec::new();
    for _ in 0..layers {
        let size = rng.range(1, 4);
        let mut t = 0;
        while t < end {
            let upper = (t + rng.range(1, end + 1)).min(end);
            bufs.push(Buffer {
                lower: t,
                upper,
                size,
            });
            t = upper;
        }
    }
    bufs
}

#[test]
fn exact_search_fits_tiled_strips_with_long_sections() {
    // More than 32 buffers live in every section: the search rescans such sections only as far
    // as its check needs (canonical.rs, LONG_SECTION). A tiling fits its height, so the search
    // must never call it infeasible; what it finds is re-checked.
    let mut rng = Rng::new(29);
    let clock = NoClock;
    let (mut found, mut cases) = (0, 0);
    for case in 0..60 {
        let bufs = tiled(&mut rng, 34 + case % 12, 6);
        let height = (0..6)
            .map(|t| {
                bufs.iter()
                    .filter(|b| b.lower <= t && t < b.upper)
                    .map(|b| b.size)
                    .sum::<u64>()
            })
            .max()
            .unwrap_or(0);
        let pos: Vec<u32> = (0..bufs.len() as u32).collect();
        let o = Overlaps::of(&bufs, &pos, usize::MAX).expect("overlaps");
        let budget = Budget::new(&clock, None, 200_000);
        cases += 1;
        match solve(&bufs, &o, height, &budget, &mut Nodes { used: 0 }) {
            Outcome::Found(off) => {
                found += 1;
                if let Err(c) = check(&bufs, &off, height, 1) {
                    panic!("case {case}: {c:?}");
                }
            }
            Outcome::Infeasible => panic!("case {case}: a tiling of {height} called infeasible"),
            Outcome::Limit | Outcome::Stopped => {}
        }
    }
    assert!(found * 2 >= cases, "only {found} of {cases} tilings found");
}
