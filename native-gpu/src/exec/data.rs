//! Deterministic data: the values every graph input starts with, and the checksum of outputs.
//!
//! Inputs are seeded by the tensor's id (not its index), so the same tensor gets the same values
//! whatever order the file lists things in. Values are small f32s (|x| < 1/16) so chains of
//! matmuls stay finite for a long way; bytes that are not whole f32 words get the leading bytes
//! of the next word.

/// FNV-1a, 64 bits: a small, dependency-free, well-known hash for checksums.
pub struct Fnv(u64);

impl Fnv {
    pub fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

/// SplitMix64: a tiny generator with good statistics, enough for test data.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The little-endian f32 words that fill `bytes` bytes of graph input `id`.
pub fn input_bytes(id: &str, bytes: u64) -> Vec<u8> {
    let mut h = Fnv::new();
    h.write(id.as_bytes());
    let mut state = h.finish();
    let n = usize::try_from(bytes).unwrap_or(usize::MAX);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        // 24 random bits -> [-1, 1) -> scaled to [-1/16, 1/16): exact in f32.
        let r = (splitmix(&mut state) >> 40) as i64 - (1 << 23);
        let x = r as f32 / (1u32 << 27) as f32;
        let word = x.to_le_bytes();
        let take = (n - out.len()).min(4);
        out.extend_from_slice(&word[..take]);
    }
    out
}

/// The 4-byte pattern a `fill` op writes (repeated over its outputs): a small f32 that
/// depends only on the op's id, so the result is the same in every order.
pub fn fill_word(op_id: &str) -> u32 {
    let mut h = Fnv::new();
    h.write(op_id.as_bytes());
    let k = (h.finish() % 15) as f32 + 1.0;
    (k / 64.0).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_deterministic_small_and_exact_length() {
        let a = input_bytes("x", 1027);
        assert_eq!(a.len(), 1027);
        assert_eq!(a, input_bytes("x", 1027));
        assert_ne!(a, input_bytes("y", 1027));
        for w in a.chunks_exact(4) {
            let x = f32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            assert!(x.abs() < 1.0 / 16.0, "{x}");
        }
    }

    #[test]
    fn fnv_known_value() {
        let mut h = Fnv::new();
        h.write(b"a");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c);
    }
}
