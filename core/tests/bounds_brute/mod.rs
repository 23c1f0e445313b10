//! Brute force over the downsets of tiny graphs, for the bounds' property tests
//! (`prop_bounds_*.rs`).

// Each test binary uses some of these.
#![allow(dead_code)]

use peakorder::simulate::MemState;
use peakorder::{Graph, OpIx};

/// Each op's ancestors as a bit set (tiny graphs).
pub fn ancestors(g: &Graph) -> Vec<u64> {
    let n = g.num_ops();
    let mut anc = vec![0u64; n];
    // Ops are not indexed topologically in every family: iterate to a fixed point.
    loop {
        let mut changed = false;
        for v in 0..n {
            let a = g
                .preds(v as OpIx)
                .iter()
                .fold(0u64, |m, &p| m | 1 << p | anc[p as usize]);
            if a != anc[v] {
                anc[v] = a;
                changed = true;
            }
        }
        if !changed {
            return anc;
        }
    }
}

/// Every downset (closed under `anc`) with the memory live after it.
pub fn downsets(g: &Graph, anc: &[u64]) -> Vec<(u64, u64)> {
    let n = g.num_ops();
    (0u64..1 << n)
        .filter(|&set| (0..n).all(|u| set & (1 << u) == 0 || set & anc[u] == anc[u]))
        .map(|set| {
            let mut ops: Vec<OpIx> = (0..n as OpIx).filter(|&v| set & (1 << v) != 0).collect();
            ops.sort_by_key(|&v| anc[v as usize].count_ones());
            let mut state = MemState::new(g);
            for v in ops {
                state.run(v);
            }
            (set, state.live())
        })
        .collect()
}

/// The least memory while `v` runs after a downset (from [`downsets`]) that holds v's
/// ancestors and every op of `before` (bits) and none of `after`; `None` when there is none.
pub fn cut_between(
    g: &Graph,
    sets: &[(u64, u64)],
    anc: &[u64],
    v: OpIx,
    before: u64,
    after: u64,
) -> Option<u64> {
    let need = anc[v as usize] | before;
    sets.iter()
        .filter(|&&(set, _)| set & (1 << v) == 0 && set & need == need && set & after == 0)
        .map(|&(_, live)| live + g.alloc(v) + g.workspace(v))
        .min()
}
