//! Bitsets of ops or storages as `u64` words, rows of them ([`BitMatrix`]), and sums of sizes
//! over them.

#[inline]
pub(super) fn has(set: &[u64], i: u32) -> bool {
    set[(i / 64) as usize] >> (i % 64) & 1 == 1
}
#[inline]
pub(super) fn put(set: &mut [u64], i: u32) {
    set[(i / 64) as usize] |= 1 << (i % 64);
}
#[inline]
pub(super) fn unset(set: &mut [u64], i: u32) {
    set[(i / 64) as usize] &= !(1 << (i % 64));
}
pub(super) fn hash_words(w: &[u64]) -> u64 {
    // FxHash-style mixing: enough spread for bitsets, no dependency.
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
    for &x in w {
        h = (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    h ^ (h >> 29)
}
/// Sum of `size` over the set bits of `words`.
#[inline]
pub(super) fn weight(words: impl Iterator<Item = u64>, size: &[u64]) -> u64 {
    let mut total = 0;
    for (k, mut w) in words.enumerate() {
        while w != 0 {
            let b = w.trailing_zeros() as usize;
            total += size[k * 64 + b];
            w &= w - 1;
        }
    }
    total
}

/// Rows of bitsets of the same width, stored end to end: one row per op (its ancestors, the
/// storages it keeps alive, ...) or per search state.
#[derive(Clone, Debug, Default)]
pub(super) struct BitMatrix {
    words: usize,
    bits: Vec<u64>,
}

impl BitMatrix {
    /// `rows` empty rows of `words` words each.
    pub(super) fn new(rows: usize, words: usize) -> BitMatrix {
        BitMatrix {
            words,
            bits: vec![0u64; rows * words],
        }
    }

    /// No rows yet, each `words` words wide (rows are added by [`BitMatrix::push`]).
    pub(super) fn with_width(words: usize) -> BitMatrix {
        BitMatrix::new(0, words)
    }

    #[inline]
    pub(super) fn row(&self, i: usize) -> &[u64] {
        &self.bits[i * self.words..(i + 1) * self.words]
    }

    #[inline]
    pub(super) fn row_mut(&mut self, i: usize) -> &mut [u64] {
        &mut self.bits[i * self.words..(i + 1) * self.words]
    }

    /// Row `dst` |= row `src` (two different rows).
    pub(super) fn or_row(&mut self, dst: usize, src: usize) {
        let w = self.words;
        let (d, s) = if dst > src {
            let (lo, hi) = self.bits.split_at_mut(dst * w);
            (&mut hi[..w], &lo[src * w..(src + 1) * w])
        } else {
            let (lo, hi) = self.bits.split_at_mut(src * w);
            (&mut lo[dst * w..(dst + 1) * w], &hi[..w])
        };
        for (x, y) in d.iter_mut().zip(s) {
            *x |= y;
        }
    }

    /// Appends a row (`words` words).
    pub(super) fn push(&mut self, row: &[u64]) {
        debug_assert_eq!(row.len(), self.words);
        self.bits.extend_from_slice(row);
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.bits.len() * 8
    }
}

/// Sums of storage sizes over bitsets, a byte at a time: per byte of the bitset, the sum for
/// each of its 256 values (the search sums sets millions of times; a bit at a time was most of
/// its cost). Parts with more storages than [`ByteSums::MAX_WORDS`] words sum bit by bit.
pub(super) struct ByteSums {
    table: Vec<u64>,
    size: Vec<u64>,
}

impl ByteSums {
    const MAX_WORDS: usize = 8;

    pub(super) fn new(size: &[u64]) -> ByteSums {
        let words = size.len().div_ceil(64);
        let mut table = Vec::new();
        if words <= Self::MAX_WORDS {
            table = vec![0u64; words * 8 * 256];
            for byte in 0..words * 8 {
                let t = &mut table[byte * 256..(byte + 1) * 256];
                for b in 1..256usize {
                    let low = b.trailing_zeros() as usize;
                    t[b] = t[b & (b - 1)] + size.get(byte * 8 + low).copied().unwrap_or(0);
                }
            }
        }
        ByteSums {
            table,
            size: size.to_vec(),
        }
    }

    /// Sum of the sizes over the set bits of `words`.
    #[inline]
    pub(super) fn sum(&self, words: impl Iterator<Item = u64>) -> u64 {
        if self.table.is_empty() {
            return weight(words, &self.size);
        }
        let mut total = 0;
        for (k, w) in words.enumerate() {
            if w == 0 {
                continue;
            }
            let t = &self.table[k * 8 * 256..(k + 1) * 8 * 256];
            for byte in 0..8 {
                total += t[byte * 256 + (w >> (8 * byte) & 0xff) as usize];
            }
        }
        total
    }
}
