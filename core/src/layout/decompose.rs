//! Splits a problem into independent groups, so each is solved alone (the decomposition of
//! MiniMalloc, Moffitt, ASPLOS 2023, §4.4, applied once up front and again after each step):
//!
//! * buffers that are not connected through time overlaps never constrain each other: each
//!   connected group can be laid out from the same base offset;
//! * a buffer live over its whole group's time span can go at the bottom of the group without
//!   loss: in any layout, everything below it can be shifted up by its size and it moved to the
//!   group's base, since at every time of the span it separates the bytes below it from the bytes
//!   above. The rest of the group then often falls apart into smaller groups.
//!
//! The result is a forest: stacked buffers with fixed offsets, and leaves (groups with no buffer
//! spanning them) each placed from a base offset. The arena is the highest leaf top (base +
//! height) or stacked top; it is optimal when every leaf is laid out optimally.

use std::cmp::Reverse;

use super::problem::Buffer;

/// A group laid out from `base`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// The offset the group is laid out from (the stacked buffers below it).
    pub base: u64,
    /// Indices into the problem's buffers.
    pub buffers: Vec<u32>,
}

/// The decomposition of a problem.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forest {
    /// (buffer, offset) of every buffer stacked at the bottom of its group.
    pub stacked: Vec<(u32, u64)>,
    /// The groups left, each laid out from its base.
    pub leaves: Vec<Leaf>,
    /// Highest top among the stacked buffers.
    pub stacked_top: u64,
}

/// Decomposes the buffers of positive size (zero-size buffers are in neither list).
pub fn decompose(bufs: &[Buffer]) -> Forest {
    let mut forest = Forest::default();
    let all: Vec<u32> = (0..bufs.len() as u32)
        .filter(|&i| bufs[i as usize].size > 0)
        .collect();
    let mut work: Vec<(Vec<u32>, u64)> = vec![(all, 0)];
    while let Some((mut set, base)) = work.pop() {
        set.sort_unstable_by_key(|&i| (bufs[i as usize].lower, i));
        let mut start = 0;
        while start < set.len() {
            // One connected group: extend while the next buffer starts before the group ends.
            let mut end = start + 1;
            let mut upper = bufs[set[start] as usize].upper;
            while end < set.len() && bufs[set[end] as usize].lower < upper {
                upper = upper.max(bufs[set[end] as usize].upper);
                end += 1;
            }
            let group = &set[start..end];
            let lower = bufs[group[0] as usize].lower;
            let (mut spanning, rest): (Vec<u32>, Vec<u32>) = group.iter().partition(|&&i| {
                bufs[i as usize].lower == lower && bufs[i as usize].upper == upper
            });
            if spanning.is_empty() {
                forest.leaves.push(Leaf {
                    base,
                    buffers: group.to_vec(),
                });
            } else {
                spanning.sort_unstable_by_key(|&i| (Reverse(bufs[i as usize].size), i));
                let mut top = base;
                for i in spanning {
                    forest.stacked.push((i, top));
                    top += bufs[i as usize].size;
                }
                forest.stacked_top = forest.stacked_top.max(top);
                if !rest.is_empty() {
                    work.push((rest, top));
                }
            }
            start = end;
        }
    }
    forest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_spanning_buffers_and_splits_the_rest() {
        let b = |lower, upper, size| Buffer { lower, upper, size };
        // 0 spans everything; without it, {1, 2} and {3, 4} are separate groups; 1 spans its
        // group, then 2 is alone; 3 and 4 cross without either spanning both: a leaf.
        let bufs = [
            b(0, 10, 8),
            b(0, 4, 2),
            b(1, 3, 1),
            b(5, 8, 4),
            b(7, 10, 3),
            b(6, 7, 0),
        ];
        let f = decompose(&bufs);
        assert_eq!(f.stacked, vec![(0, 0), (1, 8), (2, 10)]);
        assert_eq!(f.stacked_top, 11);
        assert_eq!(
            f.leaves,
            vec![Leaf {
                base: 8,
                buffers: vec![3, 4]
            }]
        );
    }
}
