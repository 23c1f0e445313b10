//! Test support: the searches' bounds checked against the referee's least peaks over every
//! downset of a small graph ([`crate::referee::Downsets`]; used by the property tests in
//! `core/tests/prop_exact.rs`).

use crate::graph::Graph;
use crate::referee::Downsets;
use crate::simulate::MemState;
use crate::OpIx;

use super::backward::Backward;
use super::model::Model;

/// Checks that the searches' bounds are admissible on `g` (at most 16 ops), for the property
/// tests: for every downset S of the whole graph (one part, in `order`, a topological order),
/// the part's own memory after S is the simulator's, the forward bound `h(S)` (and the cut bound
/// of every op not in S) is at most the least peak of the steps of any completion of S, and the
/// backward bound at most the least peak of the steps of any order of S itself, both from the
/// referee. Returns the first violation.
pub fn check_bound_admissible(g: &Graph, order: &[OpIx]) -> Result<(), String> {
    let n = order.len();
    assert!(n <= 16, "too many ops to enumerate");
    let mut pos = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    let live0 = MemState::new(g).live();
    let Some(model) = Model::new(g, order, &pos, (0, n), live0, &|| false) else {
        unreachable!("a part is always set up when nothing stops it")
    };
    let part = &model.part;
    let referee = Downsets::new(g);
    let full = (1usize << n) - 1;
    // The part numbers ops by position in `order`; the referee by op index.
    let ops_of = |s: usize| -> u64 {
        (0..n)
            .filter(|&i| s >> i & 1 == 1)
            .fold(0, |m, i| m | 1 << order[i])
    };
    let words = |s: usize| {
        let mut w = vec![0u64; part.words];
        w[0] = s as u64;
        w
    };
    // The part's memory after each downset, in increasing order (a downset minus its highest
    // op is one), next to the simulator's.
    let mut live: Vec<u64> = Vec::with_capacity(full + 1);
    live.push(live0);
    for s in 1..=full {
        let bytes = if referee.is_downset(ops_of(s)) {
            let top = (0..n).rev().find(|&i| s >> i & 1 == 1).expect("non-empty");
            let rest = s & !(1 << top);
            live[rest] + part.alloc[top] - part.frees(&words(rest), top as u32)
        } else {
            u64::MAX
        };
        live.push(bytes);
    }
    // The backward search runs on parts of two ops or more (see `forward::search`).
    let back = (n >= 2).then(|| Backward::new(&model, 0));
    let mut scratch = vec![0u64; part.st.words];
    for (s, &part_live) in live.iter().enumerate() {
        let ops = ops_of(s);
        let Some(sim_live) = referee.live(ops) else {
            continue;
        };
        let ran = || -> Vec<&str> {
            (0..n)
                .filter(|&i| s >> i & 1 == 1)
                .map(|i| g.ops()[order[i] as usize].id.as_str())
                .collect()
        };
        if part_live != sim_live {
            return Err(format!(
                "after {:?} the part holds {} bytes but the simulator {sim_live}",
                ran(),
                part_live
            ));
        }
        let cost = referee.best_completion(ops).expect("a downset");
        let h = model
            .bounds
            .h(part, &words(s), part_live, &mut scratch, u64::MAX);
        if h > cost {
            return Err(format!(
                "after {:?} the bound is {h} but a completion peaks at {cost}",
                ran()
            ));
        }
        if let Some(c) = &model.bounds.cut {
            for v in (0..n as u32).filter(|&v| s >> v & 1 == 0) {
                let hc = c.during(part, &words(s), v, u64::MAX);
                if hc > cost {
                    return Err(format!(
                        "after {:?} the cut bound of {} is {hc} but a completion peaks at {cost}",
                        ran(),
                        g.ops()[order[v as usize] as usize].id,
                    ));
                }
            }
        }
        let prefix = referee.best_prefix(ops).expect("a downset");
        let hb = back
            .as_ref()
            .map_or(0, |b| b.h(&model, &words(s), &mut scratch));
        if hb > prefix {
            return Err(format!(
                "the backward bound of {:?} is {hb} but an order of them peaks at {prefix}",
                ran()
            ));
        }
    }
    Ok(())
}
