//! The fixed-interval problem every layout algorithm solves (dynamic storage allocation): buffers
//! of known size, each live over a half-open time interval `[lower, upper)`; give each an offset so
//! that no two buffers live at the same time share a byte, in as small an arena as possible.
//!
//! Its lower bound is the most bytes live at any one time (the order's peak of live bytes).
//! Sizes are rounded up to the alignment before anything else, so every offset the solvers form
//! (a sum of sizes) is aligned too. The sum of all sizes is checked once to fit in u64: every
//! height a solver forms is at most that sum, so later arithmetic needs no checks.

use crate::error::Error;
use crate::sort::CompactSort;

/// One buffer: `size` bytes live during `[lower, upper)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// First time it is live.
    pub lower: u64,
    /// One past the last time it is live.
    pub upper: u64,
    /// Bytes.
    pub size: u64,
}

impl Buffer {
    /// True when the two are live at a common time.
    pub fn overlaps(&self, other: &Buffer) -> bool {
        self.lower < other.upper && other.lower < self.upper
    }
}

/// A validated problem: `lower < upper` for every buffer, sizes aligned, their sum fits in u64.
#[derive(Clone, Debug)]
pub struct Problem {
    buffers: Vec<Buffer>,
    align: u64,
    total: u64,
}

/// `x` rounded up to a multiple of `align`, or `None` on overflow.
pub fn align_up(x: u64, align: u64) -> Option<u64> {
    match x % align {
        0 => Some(x),
        r => x.checked_add(align - r),
    }
}

impl Problem {
    /// Rounds every size up to `align` (at least 1) and checks the buffers. `name(i)` names
    /// buffer `i` in errors (a CSV line, a tensor, an op's workspace).
    pub fn new(
        mut buffers: Vec<Buffer>,
        align: u64,
        name: &dyn Fn(usize) -> String,
    ) -> Result<Problem, Error> {
        if align == 0 {
            return Err(Error::BadLayout {
                what: "the alignment".into(),
                reason: "must be at least 1 byte".into(),
            });
        }
        let mut total: u64 = 0;
        for (i, b) in buffers.iter_mut().enumerate() {
            if b.lower >= b.upper {
                return Err(Error::BadLayout {
                    what: name(i),
                    reason: format!(
                        "its lifetime [{}, {}) is empty: lower must be below upper",
                        b.lower, b.upper
                    ),
                });
            }
            b.size = align_up(b.size, align).ok_or_else(|| Error::SizeOverflow {
                what: format!("{} rounded up to {align} bytes", name(i)),
            })?;
            total = total
                .checked_add(b.size)
                .ok_or_else(|| Error::SizeOverflow {
                    what: format!("the total size of all buffers, at {}", name(i)),
                })?;
        }
        Ok(Problem {
            buffers,
            align,
            total,
        })
    }

    /// The buffers, sizes aligned.
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }
    /// Number of buffers.
    pub fn len(&self) -> usize {
        self.buffers.len()
    }
    /// True without buffers.
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }
    /// The alignment sizes were rounded up to.
    pub fn align(&self) -> u64 {
        self.align
    }
    /// Sum of all (aligned) sizes: an upper bound on every height.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The most bytes live at once: a lower bound on every layout's arena.
    pub fn lower_bound(&self) -> u64 {
        peak_live(&self.buffers, (0..self.buffers.len() as u32).collect())
    }
}

/// Most bytes live at once among `subset` (indices into `buffers`), by a sweep over endpoints:
/// at equal times a buffer that ends is removed before one that starts is added.
pub fn peak_live(buffers: &[Buffer], subset: Vec<u32>) -> u64 {
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(subset.len() * 2);
    for i in subset {
        let b = &buffers[i as usize];
        if b.size > 0 {
            events.push((b.lower, true, b.size));
            events.push((b.upper, false, b.size));
        }
    }
    // `false < true`: ends sort before starts at the same time.
    events.sort_unstable_compact();
    let (mut live, mut peak) = (0u64, 0u64);
    for (_, start, size) in events {
        if start {
            live += size;
            peak = peak.max(live);
        } else {
            live -= size;
        }
    }
    peak
}

/// The elementary time intervals of a set of buffers: `times` are the distinct endpoints, and
/// section `k` is `[times[k], times[k + 1])`. Every buffer covers whole sections only.
#[derive(Clone, Debug)]
pub struct Sections {
    /// The section boundaries.
    pub times: Vec<u64>,
    /// Per buffer of the subset (in the subset's order): its first section.
    pub lo: Vec<u32>,
    /// Per buffer of the subset: one past its last section.
    pub hi: Vec<u32>,
}

impl Sections {
    /// Sections of `subset` (indices into `buffers`).
    pub fn of(buffers: &[Buffer], subset: &[u32]) -> Sections {
        let mut times: Vec<u64> = Vec::with_capacity(subset.len() * 2);
        for &i in subset {
            times.push(buffers[i as usize].lower);
            times.push(buffers[i as usize].upper);
        }
        times.sort_unstable_compact();
        times.dedup();
        let at = |t: u64| times.binary_search(&t).unwrap_or(0) as u32;
        let lo = subset
            .iter()
            .map(|&i| at(buffers[i as usize].lower))
            .collect();
        let hi = subset
            .iter()
            .map(|&i| at(buffers[i as usize].upper))
            .collect();
        Sections { times, lo, hi }
    }

    /// Number of sections.
    pub fn count(&self) -> usize {
        self.times.len().saturating_sub(1)
    }

    /// The coarser sections MiniMalloc's sweep makes: one per distinct end time, holding the
    /// buffers live just before it (the maximal sets of buffers live at once; any other time's
    /// live set is a subset of one of them). Two buffers overlap in time exactly when their
    /// section ranges meet. `times` are the end times (section `k` ends at `times[k]`).
    pub fn cliques(buffers: &[Buffer], subset: &[u32]) -> Sections {
        let mut times: Vec<u64> = subset.iter().map(|&i| buffers[i as usize].upper).collect();
        times.sort_unstable_compact();
        times.dedup();
        let lo = subset
            .iter()
            .map(|&i| times.partition_point(|&t| t <= buffers[i as usize].lower) as u32)
            .collect();
        let hi = subset
            .iter()
            .map(|&i| times.partition_point(|&t| t <= buffers[i as usize].upper) as u32)
            .collect();
        Sections { times, lo, hi }
    }

    /// Number of sections made by [`Sections::cliques`].
    pub fn clique_count(&self) -> usize {
        self.times.len()
    }
}

/// Highest buffer top.
pub fn height(bufs: &[Buffer], offsets: &[u64]) -> u64 {
    bufs.iter()
        .zip(offsets)
        .filter(|(b, _)| b.size > 0)
        .map(|(b, &o)| o + b.size)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(lower: u64, upper: u64, size: u64) -> Buffer {
        Buffer { lower, upper, size }
    }

    #[test]
    fn bound_frees_before_it_allocates() {
        let p = Problem::new(vec![b(0, 2, 4), b(2, 4, 4), b(1, 3, 1)], 1, &|i| {
            i.to_string()
        })
        .unwrap();
        assert_eq!(p.lower_bound(), 5);
    }

    #[test]
    fn sizes_are_aligned_and_checked() {
        let p = Problem::new(vec![b(0, 1, 5), b(0, 1, 0)], 4, &|i| i.to_string()).unwrap();
        assert_eq!(p.buffers()[0].size, 8);
        assert_eq!(p.buffers()[1].size, 0);
        assert_eq!(p.total(), 8);
        let e = Problem::new(vec![b(3, 3, 1)], 1, &|i| format!("line {}", i + 2)).unwrap_err();
        assert_eq!(e.code(), "bad_layout");
        assert!(e.to_string().contains("line 2"), "{e}");
        let e =
            Problem::new(vec![b(0, 1, u64::MAX), b(0, 1, 1)], 1, &|i| i.to_string()).unwrap_err();
        assert_eq!(e.code(), "size_overflow");
        let e = Problem::new(vec![b(0, 1, u64::MAX)], 2, &|i| i.to_string()).unwrap_err();
        assert_eq!(e.code(), "size_overflow");
    }

    #[test]
    fn sections_cover_whole_intervals() {
        let bufs = vec![b(0, 10, 1), b(5, 20, 1), b(10, 20, 1)];
        let s = Sections::of(&bufs, &[0, 1, 2]);
        assert_eq!(s.times, vec![0, 5, 10, 20]);
        assert_eq!((s.lo.clone(), s.hi.clone()), (vec![0, 1, 2], vec![2, 3, 3]));
        assert_eq!(s.count(), 3);
    }
}
