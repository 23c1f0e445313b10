//! Compressed sparse rows: one flat array of `u32` per relation instead of a `Vec` per node, so a
//! million-op graph costs a few flat allocations, not millions of small ones.

/// Row `i` is `data[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<usize>,
    data: Vec<u32>,
}

impl Csr {
    /// Builds from rows given as an iterator of iterators.
    pub fn from_rows<R, I>(rows: R) -> Self
    where
        R: IntoIterator<Item = I>,
        I: IntoIterator<Item = u32>,
    {
        let mut offsets = vec![0];
        let mut data = Vec::new();
        for row in rows {
            data.extend(row);
            offsets.push(data.len());
        }
        Csr { offsets, data }
    }

    /// Builds `n` rows from `(row, value)` pairs, keeping the pairs' order within each row.
    pub fn from_pairs(n: usize, pairs: &[(u32, u32)]) -> Self {
        let mut counts = vec![0usize; n + 1];
        for &(r, _) in pairs {
            counts[r as usize + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let offsets = counts.clone();
        let mut fill = counts;
        let mut data = vec![0u32; pairs.len()];
        for &(r, v) in pairs {
            data[fill[r as usize]] = v;
            fill[r as usize] += 1;
        }
        Csr { offsets, data }
    }

    /// The values of row `i`. Always inlined: the wasm build (opt-level "z") otherwise keeps it
    /// a call, and it is the inner step of every simulation and network build.
    #[inline(always)]
    pub fn row(&self, i: u32) -> &[u32] {
        let i = i as usize;
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }
}
