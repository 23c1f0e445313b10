//! Sorting that costs little code in the WebAssembly build.
//!
//! std's sorts (driftsort, ipnsort) are fast but large, and every element type and comparator
//! gets its own copy: on wasm32 they were about a quarter of the planner's code (228 KB of
//! 846 KB, 42 stable and 24 unstable instances; docs/wasm.md "Size"). There, [`CompactSort`]
//! sorts through one merge sort of `u32` indices with the comparison behind a `dyn` call, so each
//! call site adds only its comparator and a permutation loop. Elsewhere it is std's sort.
//!
//! Both give the same result, so plans do not depend on the target: a stable sort's result is
//! unique, and so is that of a sort by a total order in which equal elements are identical
//! ([`CompactSort::sort_unstable_compact`], used on integers, tuples of them and derived
//! orders). Sorts whose ties an unstable sort may leave in any order (`sort_unstable_by*`) keep
//! std's, so they order ties the same on every target.

use std::cmp::Ordering;

/// The sorts of [`std::slice`] that [`CompactSort`] replaces, with the same results.
pub(crate) trait CompactSort<T> {
    /// [`slice::sort_by_key`] (stable).
    fn sort_by_key_compact<K: Ord, F: FnMut(&T) -> K>(&mut self, f: F);
    /// [`slice::sort_by`] (stable).
    fn sort_by_compact<F: FnMut(&T, &T) -> Ordering>(&mut self, f: F);
    /// [`slice::sort_unstable`], for orders whose equal elements are identical (the result is
    /// then unique, whatever the algorithm).
    fn sort_unstable_compact(&mut self)
    where
        T: Ord;
}

#[cfg(not(target_arch = "wasm32"))]
impl<T> CompactSort<T> for [T] {
    fn sort_by_key_compact<K: Ord, F: FnMut(&T) -> K>(&mut self, f: F) {
        self.sort_by_key(f);
    }
    fn sort_by_compact<F: FnMut(&T, &T) -> Ordering>(&mut self, f: F) {
        self.sort_by(f);
    }
    fn sort_unstable_compact(&mut self)
    where
        T: Ord,
    {
        self.sort_unstable();
    }
}

#[cfg(target_arch = "wasm32")]
impl<T> CompactSort<T> for [T] {
    fn sort_by_key_compact<K: Ord, F: FnMut(&T) -> K>(&mut self, mut f: F) {
        sort_by_less(self, |a, b| f(a) < f(b));
    }
    fn sort_by_compact<F: FnMut(&T, &T) -> Ordering>(&mut self, mut f: F) {
        sort_by_less(self, |a, b| f(a, b) == Ordering::Less);
    }
    fn sort_unstable_compact(&mut self)
    where
        T: Ord,
    {
        sort_by_less(self, |a, b| a < b);
    }
}

/// Below this length a sort is an insertion sort in place: most of the planner's sorts are of a
/// few elements (an op's predecessors), where the merge sort's two index buffers cost more than
/// the sorting.
const SMALL: usize = 16;

/// Sorts `v` stably by `less`: insertion in place when short, else the permutation from
/// [`sorted_positions`], then applied in place.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn sort_by_less<T>(v: &mut [T], mut less: impl FnMut(&T, &T) -> bool) {
    if v.len() <= SMALL {
        insertion_sort(v, &mut less);
        return;
    }
    let mut perm = {
        let v = &*v;
        sorted_positions(v.len(), &mut |a, b| less(&v[a], &v[b]))
    };
    permute(v, &mut perm);
}

/// Stable insertion sort: an element moves left past strictly greater ones only.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn insertion_sort<T>(v: &mut [T], less: &mut impl FnMut(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && less(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// The indices `0..n` in stable sorted order by `less`: runs of [`SMALL`] sorted by insertion,
/// then a bottom-up merge sort (iterative, n log n comparisons at most; a merge of two runs
/// already in order costs one), compiled once for every element type.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn sorted_positions(n: usize, less: &mut dyn FnMut(usize, usize) -> bool) -> Vec<u32> {
    assert!(n <= u32::MAX as usize, "sort: more than 2^32 elements");
    let mut a: Vec<u32> = (0..n as u32).collect();
    for run in a.chunks_mut(SMALL) {
        insertion_sort(run, &mut |&x, &y| less(x as usize, y as usize));
    }
    let mut b = vec![0u32; n];
    let mut width = SMALL;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            if mid >= hi || !less(a[mid] as usize, a[mid - 1] as usize) {
                // The right run (if any) starts no lower than the left ends: already merged.
                b[lo..hi].copy_from_slice(&a[lo..hi]);
                lo = hi;
                continue;
            }
            let (mut i, mut j) = (lo, mid);
            for slot in &mut b[lo..hi] {
                // The right run's element goes first only when strictly less: stable.
                let right = j < hi && (i >= mid || less(a[j] as usize, a[i] as usize));
                if right {
                    *slot = a[j];
                    j += 1;
                } else {
                    *slot = a[i];
                    i += 1;
                }
            }
            lo = hi;
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

/// Rearranges `v` so that `v[i]` becomes the old `v[perm[i]]`, following each cycle of the
/// permutation with swaps; `perm` is left as the identity.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn permute<T>(v: &mut [T], perm: &mut [u32]) {
    for i in 0..v.len() {
        // Invariant: v[cur] holds the old v[i], which belongs where the cycle closes.
        let mut cur = i;
        loop {
            let src = perm[cur] as usize;
            perm[cur] = cur as u32;
            if src == i {
                break;
            }
            v.swap(cur, src);
            cur = src;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type Tagged = Vec<(u8, usize)>;

    /// `keys` tagged with their positions (which tell tied keys apart), sorted by the key with
    /// the wasm32 path and with std's stable sort.
    fn ours_and_std(keys: &[u8]) -> (Tagged, Tagged) {
        let v: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
        let mut ours = v.clone();
        sort_by_less(&mut ours, |a, b| a.0 < b.0);
        let mut std_sorted = v;
        std_sorted.sort_by_key(|x| x.0);
        (ours, std_sorted)
    }

    proptest! {
        // The wasm32 path (sort_by_less) against std's stable sort, on keys with many ties
        // (the payload tells tied elements apart).
        #[test]
        fn stable_like_std(keys in proptest::collection::vec(0u8..6, 0..600)) {
            let (ours, std_sorted) = ours_and_std(&keys);
            prop_assert_eq!(ours, std_sorted);
        }

        // Long stretches already in order: the merge's shortcut for runs that need no merging.
        #[test]
        fn stable_on_presorted_runs(mut keys in proptest::collection::vec(0u8..6, 0..600), cut in 0usize..600) {
            let cut = cut.min(keys.len());
            keys[..cut].sort_unstable();
            let (ours, std_sorted) = ours_and_std(&keys);
            prop_assert_eq!(ours, std_sorted);
        }

        #[test]
        fn permute_applies(n in 0usize..100, seed in any::<u64>()) {
            // A permutation from a seeded shuffle.
            let mut perm: Vec<u32> = (0..n as u32).collect();
            let mut s = seed | 1;
            for i in (1..n).rev() {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                perm.swap(i, (s % (i as u64 + 1)) as usize);
            }
            let old: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
            let mut v = old.clone();
            let mut p = perm.clone();
            permute(&mut v, &mut p);
            for i in 0..n {
                prop_assert_eq!(&v[i], &old[perm[i] as usize]);
            }
        }
    }

    #[test]
    fn trait_matches_std() {
        let mut a = vec![5u32, 1, 4, 1, 5, 9, 2, 6];
        let mut b = a.clone();
        a.sort_unstable_compact();
        b.sort_unstable();
        assert_eq!(a, b);
    }
}
