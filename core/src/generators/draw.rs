//! Where a generator's random choices come from: a seeded PRNG ([`Rng`], for benchmarks and
//! fixed instances) or a recorded list of choices ([`Tape`], for property tests: proptest draws
//! the tape and shrinks it, so a failing graph shrinks to a simpler graph, not to another seed).
//!
//! The PRNG is SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014): tiny, and enough for test data.

/// A source of random choices. Generators take `&mut impl Draw`, so one generator serves both
/// sources; each source decides how its raw values map to choices.
pub trait Draw {
    /// A choice in `0..n` (0 when `n` ≤ 1).
    fn below(&mut self, n: u64) -> u64;
    /// True with probability `percent / 100`.
    fn percent(&mut self, percent: u64) -> bool;
    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool;
    /// Uniform in `[lo, hi]` (`lo ≤ hi`).
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    /// A size spread over orders of magnitude: `base · 2^k`, `k` uniform in `[0, spread]`.
    fn size(&mut self, base: u64, spread: u64) -> u64 {
        base << self.range(0, spread)
    }
}

/// SplitMix64. The benchmarks' graphs are fixed by their seeds: the mapping from this stream to
/// choices must not change (`below` is `next % n`, `percent` is `below(100) < percent`).
#[derive(Clone, Debug)]
pub struct Rng(u64);

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

impl Rng {
    /// The generator for `seed` (the state starts at `seed` mixed with the golden ratio).
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ GOLDEN)
    }
    /// The generator whose state starts at exactly `state` (the benchmarks' small random
    /// families were seeded this way; `Rng::new(s)` is `Rng::with_state(s ^ GOLDEN)`).
    pub fn with_state(state: u64) -> Self {
        Rng(state)
    }
    /// The next raw value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[lo, hi]`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        Draw::range(self, lo, hi)
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        Draw::chance(self, p)
    }
    /// A size spread over orders of magnitude: `base · 2^k`, `k` uniform in `[0, spread]`.
    pub fn size(&mut self, base: u64, spread: u64) -> u64 {
        Draw::size(self, base, spread)
    }
}

impl Draw for Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// Choices read from a list of 16-bit draws, then 0 once it runs out. Every choice maps a draw
/// of 0 to the simplest outcome (the first option, "no", the smallest size), so as proptest
/// shrinks the draws towards 0 the graph loses features, and as it shrinks the op count the
/// graph loses ops. Choices among more than 65,536 options only reach the first 65,536.
#[derive(Clone, Debug)]
pub struct Tape<'a> {
    draws: &'a [u16],
    at: usize,
}

impl<'a> Tape<'a> {
    /// A tape over `draws`.
    pub fn new(draws: &'a [u16]) -> Self {
        Tape { draws, at: 0 }
    }
    fn next(&mut self) -> u64 {
        let x = self.draws.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        u64::from(x)
    }
}

impl Draw for Tape<'_> {
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn percent(&mut self, percent: u64) -> bool {
        // `x % 100 ≥ 100 − p` holds for p of the 100 residues, and never for x = 0.
        self.below(100) >= 100 - percent.min(100)
    }
    fn chance(&mut self, p: f64) -> bool {
        // Uniform in [0, 1) from 16 bits; 0 gives "no" unless p ≥ 1.
        self.next() as f64 / 65_536.0 >= 1.0 - p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tape_zero_is_the_simplest_choice_and_rates_hold() {
        let mut zeros = Tape::new(&[]);
        assert_eq!(zeros.below(7), 0);
        assert!(!zeros.percent(99));
        assert!(zeros.percent(100));
        assert!(!zeros.chance(0.99));
        assert!(zeros.chance(1.0));
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let mut t = Tape::new(&all);
        let hits = (0..all.len()).filter(|_| t.percent(30)).count();
        assert!((19_000..20_400).contains(&hits), "{hits}");
        let mut t = Tape::new(&all);
        let hits = (0..all.len()).filter(|_| t.chance(0.25)).count();
        assert_eq!(hits, 16_384);
    }
}
