//! Best fit in allocation order, as an online allocator would place the buffers: the rule of ONNX
//! Runtime's memory-pattern planner and of best-fit free-list allocators (e.g. TensorFlow's BFC
//! allocator, without its size bins). Time runs forward; at each time the buffers that end are
//! freed (and merged with free neighbours), then the ones that start are placed, largest first,
//! in the smallest free block that holds them, or at the top.
//!
//! It needs no overlap graph: O(n log n) on any input, so it is the layout that is always
//! available, however large the graph.

use crate::sort::CompactSort;
use std::collections::{BTreeMap, BTreeSet};

use super::problem::Buffer;

/// Offsets and height for `bufs`.
pub fn place(bufs: &[Buffer]) -> (Vec<u64>, u64) {
    // (time, 0 = end / 1 = start, largest first among starts, index)
    let mut events: Vec<(u64, u8, std::cmp::Reverse<u64>, u32)> =
        Vec::with_capacity(bufs.len() * 2);
    for (i, b) in bufs.iter().enumerate() {
        if b.size > 0 {
            events.push((b.lower, 1, std::cmp::Reverse(b.size), i as u32));
            events.push((b.upper, 0, std::cmp::Reverse(b.size), i as u32));
        }
    }
    events.sort_unstable_compact();
    let mut off = vec![0u64; bufs.len()];
    let mut free = FreeList::default();
    for (_, kind, _, i) in events {
        let b = &bufs[i as usize];
        if kind == 1 {
            off[i as usize] = free.alloc(b.size);
        } else {
            free.release(off[i as usize], b.size);
        }
    }
    (off, free.top)
}

/// Free blocks below the high-water mark `top`, by size (for best fit) and by offset (to merge).
#[derive(Default)]
struct FreeList {
    by_size: BTreeSet<(u64, u64)>,
    by_offset: BTreeMap<u64, u64>,
    top: u64,
}

impl FreeList {
    fn take(&mut self, offset: u64, size: u64) {
        self.by_size.remove(&(size, offset));
        self.by_offset.remove(&offset);
    }

    fn put(&mut self, offset: u64, size: u64) {
        self.by_size.insert((size, offset));
        self.by_offset.insert(offset, size);
    }

    fn alloc(&mut self, size: u64) -> u64 {
        if let Some(&(fs, fo)) = self.by_size.range((size, 0)..).next() {
            self.take(fo, fs);
            if fs > size {
                self.put(fo + size, fs - size);
            }
            return fo;
        }
        // Nothing fits: grow the arena, starting inside a free block that reaches the top.
        if let Some((&fo, &fs)) = self.by_offset.iter().next_back() {
            if fo + fs == self.top {
                self.take(fo, fs);
                self.top = fo + size;
                return fo;
            }
        }
        let at = self.top;
        self.top += size;
        at
    }

    fn release(&mut self, mut offset: u64, mut size: u64) {
        if let Some((&po, &ps)) = self.by_offset.range(..offset).next_back() {
            if po + ps == offset {
                self.take(po, ps);
                offset = po;
                size += ps;
            }
        }
        if let Some((&no, &ns)) = self.by_offset.range(offset + size..).next() {
            if no == offset + size {
                self.take(no, ns);
                size += ns;
            }
        }
        self.put(offset, size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::check::check;

    #[test]
    fn reuses_freed_blocks() {
        let b = |lower, upper, size| Buffer { lower, upper, size };
        let bufs = [b(0, 2, 4), b(0, 3, 2), b(2, 4, 3), b(3, 5, 2), b(4, 5, 5)];
        let (off, h) = place(&bufs);
        assert_eq!(check(&bufs, &off, h, 1), Ok(()));
        // 0 at 0..4, 1 at 4..6; at 2, 0 is freed and 2 takes 0..3; at 3, 1 is freed (4..6 merges
        // with 3..4) and 3 takes 3..5; at 4, 2 is freed (0..3) and 4 needs 5: grows from 5.
        assert_eq!(off, vec![0, 4, 0, 3, 5]);
        assert_eq!(h, 10);
    }
}
