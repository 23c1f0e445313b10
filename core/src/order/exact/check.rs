//! Test support: the searches' bounds checked against dynamic programming over every downset
//! of a small graph (used by the property tests in `core/tests/prop_exact.rs`).

use crate::graph::Graph;
use crate::simulate::MemState;
use crate::OpIx;

use super::backward::Backward;
use super::model::Model;

/// Checks that the searches' bounds are admissible on `g` (at most 16 ops), for the property
/// tests: for every downset S of the whole graph (one part, in `order`, a topological order),
/// the forward bound `h(S)` is at most the least peak of the steps of any completion of S, and
/// the backward bound at most the least peak of the steps of any order of S itself, both found
/// by dynamic programming over all downsets. Returns the first violation.
pub fn check_bound_admissible(g: &Graph, order: &[OpIx]) -> Result<(), String> {
    let n = order.len();
    assert!(n <= 16, "too many ops to enumerate");
    let mut pos = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    let live0 = MemState::new(g).live();
    let model = Model::new(g, order, &pos, (0, n), live0, &|| false);
    let part = &model.part;
    let full = (1usize << n) - 1;
    let preds: Vec<usize> = (0..n)
        .map(|i| {
            g.preds(order[i])
                .iter()
                .fold(0, |m, &p| m | 1 << pos[p as usize])
        })
        .collect();
    let is_down = |s: usize| (0..n).all(|i| s >> i & 1 == 0 || preds[i] & !s == 0);
    let words = |s: usize| {
        let mut w = vec![0u64; part.words];
        w[0] = s as u64;
        w
    };
    // Memory after each downset, in increasing order (a downset minus its highest op is one).
    let mut live = vec![u64::MAX; full + 1];
    live[0] = live0;
    for s in 1..=full {
        if !is_down(s) {
            continue;
        }
        let top = (0..n).rev().find(|&i| s >> i & 1 == 1).expect("non-empty");
        let rest = s & !(1 << top);
        live[s] = live[rest] + part.alloc[top] - part.frees(&words(rest), top as u32);
    }
    // Least peak of the remaining steps, from the full set down.
    let mut cost = vec![u64::MAX; full + 1];
    cost[full] = 0;
    for s in (0..full).rev() {
        if live[s] == u64::MAX {
            continue;
        }
        cost[s] = (0..n)
            .filter(|&i| s >> i & 1 == 0 && preds[i] & !s == 0)
            .map(|i| (live[s] + part.step[i]).max(cost[s | 1 << i]))
            .min()
            .expect("a ready op");
    }
    // Least peak of the steps of an order of each downset, from the empty set up.
    let mut prefix = vec![u64::MAX; full + 1];
    prefix[0] = 0;
    for s in 1..=full {
        if live[s] == u64::MAX {
            continue;
        }
        prefix[s] = (0..n)
            .filter(|&i| {
                s >> i & 1 == 1 && (0..n).all(|j| s >> j & 1 == 0 || preds[j] >> i & 1 == 0)
            })
            .map(|i| {
                let rest = s & !(1 << i);
                prefix[rest].max(live[rest] + part.step[i])
            })
            .min()
            .expect("a last op");
    }
    // The backward search runs on parts of two ops or more (see `forward::search`).
    let back = (n >= 2).then(|| Backward::new(&model, 0));
    let mut scratch = vec![0u64; part.st.words];
    for s in 0..=full {
        if live[s] == u64::MAX {
            continue;
        }
        let ran = || -> Vec<&str> {
            (0..n)
                .filter(|&i| s >> i & 1 == 1)
                .map(|i| g.ops()[order[i] as usize].id.as_str())
                .collect()
        };
        let h = model
            .bounds
            .h(part, &words(s), live[s], &mut scratch, u64::MAX);
        if h > cost[s] {
            return Err(format!(
                "after {:?} the bound is {h} but a completion peaks at {}",
                ran(),
                cost[s]
            ));
        }
        if let Some(c) = &model.bounds.cut {
            for v in (0..n as u32).filter(|&v| s >> v & 1 == 0) {
                let hc = c.during(part, &words(s), v, u64::MAX);
                if hc > cost[s] {
                    return Err(format!(
                        "after {:?} the cut bound of {} is {hc} but a completion peaks at {}",
                        ran(),
                        g.ops()[order[v as usize] as usize].id,
                        cost[s]
                    ));
                }
            }
        }
        let hb = back
            .as_ref()
            .map_or(0, |b| b.h(&model, &words(s), &mut scratch));
        if hb > prefix[s] {
            return Err(format!(
                "the backward bound of {:?} is {hb} but an order of them peaks at {}",
                ran(),
                prefix[s]
            ));
        }
    }
    Ok(())
}
