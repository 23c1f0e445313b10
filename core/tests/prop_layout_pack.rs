//! Property tests of the packing methods of `layout-pack` (core/src/layout): best fit from the
//! peak (`peak_first`), best fit around fixed buffers (`best_fit::place_into`), ruin and recreate
//! (`repack`), the incremental hill climbing (`hill_climb`) and the skyline from an arbitrary
//! stack (`skyline::place_on`, `improve_on`), the peak step's split (`peak_split`) and hill
//! climbing around fixed buffers (`hill_climb::improve_around`). On thousands of small random problems every layout
//! is valid by a naive pairwise check written from the definition, never below the peak of live
//! bytes, and each method keeps what it promises (the peak step stacked without a hole, fixed
//! buffers in place, never a higher arena than its start).

use peakorder::generators::Rng;
use peakorder::layout::best_fit::{self, Rank, UNPLACED};
use peakorder::layout::overlaps::Overlaps;
use peakorder::layout::problem::Buffer;
use peakorder::layout::{hill_climb, peak_first, peak_split, repack, skyline};
use peakorder::{Budget, NoClock};
use proptest::prelude::*;

/// Live bytes at each integer time.
fn live(bufs: &[Buffer]) -> Vec<u64> {
    let end = bufs.iter().map(|b| b.upper).max().unwrap_or(0);
    (0..end)
        .map(|t| {
            bufs.iter()
                .filter(|b| b.lower <= t && t < b.upper)
                .map(|b| b.size)
                .sum()
        })
        .collect()
}

/// Every pair live at a common time is disjoint in bytes, and the height is the highest top.
/// The highest byte any buffer live at step `t` reaches.
fn top_at(bufs: &[Buffer], off: &[u64], t: u64) -> u64 {
    bufs.iter()
        .zip(off)
        .filter(|(b, _)| b.size > 0 && b.lower <= t && t < b.upper)
        .map(|(b, &o)| o + b.size)
        .max()
        .unwrap_or(0)
}

fn naive_valid(bufs: &[Buffer], off: &[u64], height: u64) -> Result<(), String> {
    let top = bufs
        .iter()
        .zip(off)
        .filter(|(b, _)| b.size > 0)
        .map(|(b, &o)| o + b.size)
        .max()
        .unwrap_or(0);
    if top != height {
        return Err(format!("height {height}, highest top {top}"));
    }
    let peak = live(bufs).into_iter().max().unwrap_or(0);
    if height < peak {
        return Err(format!("height {height} below the peak {peak}"));
    }
    for (i, a) in bufs.iter().enumerate() {
        for (j, b) in bufs.iter().enumerate().skip(i + 1) {
            let time = a.lower < b.upper && b.lower < a.upper;
            let space = off[i] < off[j] + b.size && off[j] < off[i] + a.size;
            if time && space && a.size > 0 && b.size > 0 {
                return Err(format!("buffers {i} and {j} overlap"));
            }
        }
    }
    Ok(())
}

fn buffers(max_n: usize, span: u64, len: u64) -> impl Strategy<Value = Vec<Buffer>> {
    let buf = (0..span, 1..len, prop_oneof![1 => Just(0u64), 8 => 1u64..9]).prop_map(
        |(lower, len, size)| Buffer {
            lower,
            upper: lower + len,
            size,
        },
    );
    prop::collection::vec(buf, 1..max_n)
}

fn random_buffers(rng: &mut Rng, n: usize) -> Vec<Buffer> {
    (0..n)
        .map(|_| {
            let lower = rng.range(0, 40);
            Buffer {
                lower,
                upper: lower + rng.range(1, 15),
                size: rng.range(0, 12),
            }
        })
        .collect()
}

fn overlaps(bufs: &[Buffer]) -> Overlaps {
    let all: Vec<u32> = (0..bufs.len() as u32).collect();
    Overlaps::of(bufs, &all, usize::MAX).expect("small problem")
}

/// Checks every method of this file on one problem; `seed` drives the random choices.
fn check_all(bufs: &[Buffer], seed: u64) -> Result<(), String> {
    let ov = overlaps(bufs);
    let n = bufs.len();
    let profile = live(bufs);
    let peak = profile.iter().copied().max().unwrap_or(0);

    // The peak steps: the first and the last integer time of peak live bytes.
    let steps = peak_first::peak_steps(bufs);
    let naive_steps = (peak > 0).then(|| {
        let first = profile.iter().position(|&x| x == peak).unwrap() as u64;
        let last = profile.iter().rposition(|&x| x == peak).unwrap() as u64;
        (first, last)
    });
    if steps != naive_steps {
        return Err(format!("peak steps {steps:?}, naive {naive_steps:?}"));
    }

    // Best fit from the peak: a permutation; valid; the peak step's buffers hold exactly the
    // bottom `peak` bytes (no hole at that step).
    for (t, stack, rank) in peak_first::candidates(bufs) {
        let order = peak_first::order(bufs, &ov, t, stack, rank);
        let mut seen = order.clone();
        seen.sort_unstable();
        if seen != (0..n as u32).collect::<Vec<_>>() {
            return Err(format!(
                "{t} {stack:?} {rank:?}: not a permutation: {order:?}"
            ));
        }
        let (off, h) = best_fit::place(bufs, &ov, &order);
        naive_valid(bufs, &off, h).map_err(|e| format!("{t} {stack:?} {rank:?}: {e}"))?;
        let at_t = top_at(bufs, &off, t);
        if at_t != peak {
            return Err(format!(
                "{t} {stack:?} {rank:?}: the peak step's buffers reach {at_t}, peak {peak}"
            ));
        }
    }

    // Best fit around fixed buffers: a random subset keeps its offsets (from a valid layout),
    // the rest is placed around it; with nothing fixed it is plain best fit.
    let order = best_fit::ranked(bufs, &ov, Rank::Size);
    let (base, _) = best_fit::place(bufs, &ov, &order);
    let mut rng = Rng::new(seed);
    let mut start = base.clone();
    let mut free = Vec::new();
    for &i in &order {
        if rng.range(0, 1) == 0 {
            start[i as usize] = UNPLACED;
            free.push(i);
        }
    }
    let (off, h) = best_fit::place_into(bufs, &ov, start.clone(), &free);
    naive_valid(bufs, &off, h).map_err(|e| format!("place_into: {e}"))?;
    for i in 0..n {
        if start[i] != UNPLACED && bufs[i].size > 0 && off[i] != start[i] {
            return Err(format!("place_into moved fixed buffer {i}"));
        }
    }
    if best_fit::place_into(bufs, &ov, vec![UNPLACED; n], &order)
        != best_fit::place(bufs, &ov, &order)
    {
        return Err("place_into with nothing fixed differs from place".into());
    }

    // Ruin and recreate, and hill climbing: valid, never above their start.
    let clock = NoClock;
    let budget = Budget::new(&clock, None, 40);
    let start = best_fit::place(bufs, &ov, &order);
    let (off, h) = repack::improve(bufs, &ov, start.clone(), peak, &budget, 40);
    naive_valid(bufs, &off, h).map_err(|e| format!("repack: {e}"))?;
    if h > start.1 {
        return Err(format!("repack raised {} to {h}", start.1));
    }
    let (off, h) = hill_climb::improve(bufs, &ov, order.clone(), start.clone(), peak, &budget);
    naive_valid(bufs, &off, h).map_err(|e| format!("hill climbing: {e}"))?;
    if h > start.1 {
        return Err(format!("hill climbing raised {} to {h}", start.1));
    }
    // From a start that is not the order's own layout (the best layout known, as `auto` passes).
    let (off, h) = hill_climb::improve(bufs, &ov, order.clone(), (base, start.1), 0, &budget);
    naive_valid(bufs, &off, h).map_err(|e| format!("hill climbing from a layout: {e}"))?;

    // Hill climbing around fixed buffers: a random subset keeps its offsets from a valid layout,
    // the rest is climbed around it; valid, the fixed ones unmoved.
    let mut base = vec![UNPLACED; n];
    let mut rest = Vec::new();
    let (valid, _) = best_fit::place(bufs, &ov, &order);
    for &i in &order {
        if rng.range(0, 1) == 0 {
            base[i as usize] = valid[i as usize];
        } else {
            rest.push(i);
        }
    }
    let start = best_fit::place_into(bufs, &ov, base.clone(), &rest);
    let (off, h) = hill_climb::improve_around(bufs, &ov, &base, rest, start.clone(), peak, &budget);
    naive_valid(bufs, &off, h).map_err(|e| format!("improve_around: {e}"))?;
    if h > start.1 {
        return Err(format!("improve_around raised {} to {h}", start.1));
    }
    for i in 0..n {
        if base[i] != UNPLACED && bufs[i].size > 0 && off[i] != base[i] {
            return Err(format!("improve_around moved fixed buffer {i}"));
        }
    }

    // The peak step's split, at the peak steps and a random step, with every stack: valid; the
    // buffers live at that step hold exactly the bottom bytes live there (no hole at that step).
    let t_end = bufs.iter().map(|b| b.upper).max().unwrap_or(0);
    let mut split_steps: Vec<u64> = steps.map_or(Vec::new(), |(a, b)| vec![a, b]);
    if t_end > 0 {
        split_steps.push(rng.range(0, t_end - 1));
    }
    for t in split_steps {
        // The next step's anchor: the buffers born at `t + 1`, in the bytes the stack (latest
        // dying lowest) frees at its top there; with the stack, valid; where `t + 1` is a peak
        // step too and all of them fit, no hole at `t + 1` either.
        let first = peak_first::stack_at(bufs, t, peak_first::Stack::Death);
        let (ids, offs) = peak_split::anchored_next(bufs, &first, t);
        let top: u64 = first.iter().map(|&i| bufs[i as usize].size).sum();
        let mut sub: Vec<Buffer> = first.iter().map(|&i| bufs[i as usize]).collect();
        let mut sub_off: Vec<u64> = Vec::with_capacity(sub.len() + ids.len());
        let mut h = 0;
        for b in &sub {
            sub_off.push(h);
            h += b.size;
        }
        for (&i, &o) in ids.iter().zip(&offs) {
            let b = bufs[i as usize];
            if b.lower != t + 1 || first.contains(&i) || o + b.size > top {
                return Err(format!(
                    "anchored_next {t}: buffer {i} at {o} (stack top {top})"
                ));
            }
            sub.push(b);
            sub_off.push(o);
        }
        naive_valid(&sub, &sub_off, top).map_err(|e| format!("anchored_next {t}: {e}"))?;
        let born: usize = bufs
            .iter()
            .filter(|b| b.size > 0 && b.lower == t + 1)
            .count();
        if (t + 1) < profile.len() as u64
            && profile[t as usize] == peak
            && profile[t as usize + 1] == peak
            && born == ids.len()
        {
            let at = sub
                .iter()
                .zip(&sub_off)
                .filter(|(b, _)| b.lower <= t + 1 && t + 1 < b.upper)
                .map(|(b, &o)| o + b.size)
                .max()
                .unwrap_or(0);
            if at != peak {
                return Err(format!(
                    "anchored_next {t}: step {} reaches {at}, peak {peak}",
                    t + 1
                ));
            }
        }
        // Each stack; the goal at the peak, and at 0 (every start and climb runs).
        for (stack, stop) in [
            (peak_first::Stack::Death, peak),
            (peak_first::Stack::Birth, peak),
            (peak_first::Stack::Length, peak),
            (peak_first::Stack::Death, 0),
        ] {
            let Some((off, h)) =
                peak_split::place(bufs, t, stack, stop, u64::MAX, &budget, 1 << 20)
            else {
                continue;
            };
            naive_valid(bufs, &off, h).map_err(|e| format!("peak_split {t} {stack:?}: {e}"))?;
            let at_t = top_at(bufs, &off, t);
            if at_t != profile[t as usize] {
                return Err(format!(
                    "peak_split {t} {stack:?}: the step's buffers reach {at_t}, live {}",
                    profile[t as usize]
                ));
            }
        }
    }

    // The skyline from an arbitrary stack: a random subset in a random order.
    let mut stack: Vec<u32> = (0..n as u32).filter(|_| rng.range(0, 2) == 0).collect();
    for k in (1..stack.len()).rev() {
        stack.swap(k, rng.range(0, k as u64) as usize);
    }
    for v @ (pick, reversed, edges) in skyline::VARIANTS {
        let prio = skyline::priorities(bufs, pick);
        let placed = skyline::place_on(bufs, &prio, reversed, edges, &stack);
        naive_valid(bufs, &placed.0, placed.1).map_err(|e| format!("place_on {v:?}: {e}"))?;
        let mut prio = prio;
        let h0 = placed.1;
        let (off, h) = skyline::improve_on(
            bufs,
            &mut prio,
            (reversed, edges),
            &stack,
            placed,
            peak,
            &budget,
            skyline::Rounds {
                max: 10,
                mixed: reversed,
            },
        );
        naive_valid(bufs, &off, h).map_err(|e| format!("improve_on {v:?}: {e}"))?;
        if h > h0 {
            return Err(format!("improve_on {v:?} raised {h0} to {h}"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn packing_layouts_are_valid(bufs in buffers(10, 8, 6), seed in any::<u64>()) {
        check_all(&bufs, seed).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn packing_layouts_are_valid_on_larger_seeded_instances() {
    let mut rng = Rng::new(41);
    for k in 0..1000 {
        let n = rng.range(10, 70) as usize;
        let bufs = random_buffers(&mut rng, n);
        check_all(&bufs, k).unwrap_or_else(|e| panic!("{bufs:?}: {e}"));
    }
}
