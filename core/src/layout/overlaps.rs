//! Which buffers of a subset are live at a common time: the interval graph the greedy and exact
//! solvers walk, built by one sweep over start times (O(n log n + pairs)).

use super::problem::Buffer;

/// The overlap graph of a subset, in compressed rows: `row(i)` lists the subset positions of the
/// buffers live at a common time with subset position `i`.
#[derive(Clone, Debug, Default)]
pub struct Overlaps {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl Overlaps {
    /// The overlap graph of `subset` (indices into `buffers`), or `None` when it has more than
    /// `max_pairs` overlapping pairs (the callers then fall back to an O(n log n) method).
    pub fn of(buffers: &[Buffer], subset: &[u32], max_pairs: usize) -> Option<Overlaps> {
        let n = subset.len();
        let mut by_lower: Vec<u32> = (0..n as u32).collect();
        by_lower.sort_unstable_by_key(|&p| buffers[subset[p as usize] as usize].lower);
        let mut active: Vec<u32> = Vec::new();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for &p in &by_lower {
            let b = &buffers[subset[p as usize] as usize];
            active.retain(|&q| buffers[subset[q as usize] as usize].upper > b.lower);
            if pairs.len() + active.len() > max_pairs {
                return None;
            }
            pairs.extend(active.iter().map(|&q| (p, q)));
            active.push(p);
        }
        let mut degree = vec![0u32; n + 1];
        for &(p, q) in &pairs {
            degree[p as usize] += 1;
            degree[q as usize] += 1;
        }
        let mut start = vec![0u32; n + 1];
        for i in 0..n {
            start[i + 1] = start[i] + degree[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![0u32; pairs.len() * 2];
        for &(p, q) in &pairs {
            adj[fill[p as usize] as usize] = q;
            fill[p as usize] += 1;
            adj[fill[q as usize] as usize] = p;
            fill[q as usize] += 1;
        }
        Some(Overlaps { start, adj })
    }

    /// Subset positions overlapping position `i`.
    pub fn row(&self, i: usize) -> &[u32] {
        &self.adj[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Number of buffers overlapping position `i`.
    pub fn degree(&self, i: usize) -> usize {
        (self.start[i + 1] - self.start[i]) as usize
    }

    /// Number of overlapping pairs.
    pub fn pairs(&self) -> usize {
        self.adj.len() / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_intervals_do_not_overlap() {
        let bufs = [
            Buffer {
                lower: 0,
                upper: 2,
                size: 1,
            },
            Buffer {
                lower: 2,
                upper: 4,
                size: 1,
            },
            Buffer {
                lower: 1,
                upper: 3,
                size: 1,
            },
        ];
        let o = Overlaps::of(&bufs, &[0, 1, 2], 10).unwrap();
        assert_eq!(o.row(0), &[2]);
        assert_eq!(o.row(1), &[2]);
        let mut r2 = o.row(2).to_vec();
        r2.sort();
        assert_eq!(r2, vec![0, 1]);
        assert_eq!(o.pairs(), 2);
        assert!(Overlaps::of(&bufs, &[0, 1, 2], 1).is_none());
    }
}
