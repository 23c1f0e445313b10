//! Which pair of ops to branch a node by: two of its cuts whose downsets contradict each other,
//! or its order's peak op against that op's own cut; and the order in which a node's
//! consistent cuts all hold.

use crate::sort::CompactSort;
use std::cmp::Reverse;

use crate::bounds::cut::{during_in, has, to_bits, CutNetwork, Known};
use crate::graph::Graph;
use crate::OpIx;

/// The cuts of `known` still valid once `x` must run before `y`: those whose downset holds y
/// without x (or that are y's own, without x) are ruled out.
pub(super) fn still_valid(known: &[(OpIx, Known)], x: OpIx, y: OpIx) -> Vec<(OpIx, Known)> {
    known
        .iter()
        .filter(|(v, k)| has(&k.before, x) || (!has(&k.before, y) && *v != y))
        .cloned()
        .collect()
}

/// Two cuts (a, D_a), (b, D_b) can both hold in one order only if one downset, with its op,
/// lies inside the other: D_a ∪ {a} ⊆ D_b or D_b ∪ {b} ⊆ D_a. Otherwise there are x in
/// D_a ∪ {a} outside D_b and y in D_b ∪ {b} outside D_a (neither precedes the other), and
/// "x before y" rules out D_b while "y before x" rules out D_a. Returns such (x, y) for the
/// first inconsistent pair of cuts, largest cuts first.
pub(super) fn inconsistent_pair(
    g: &Graph,
    order: &[OpIx],
    cuts: &[(OpIx, Known)],
) -> Option<(OpIx, OpIx)> {
    // Of the ops that separate the two downsets, the one that allocates the most: an arc on it
    // moves the most memory. Measured on 12 unproven corpus graphs (1 s each): this proved two
    // more than taking the op itself, or else the last separating op of the order.
    let pick = |a: OpIx, da: &[u64], db: &[u64]| -> Option<OpIx> {
        order
            .iter()
            .copied()
            .filter(|&u| (u == a || has(da, u)) && !has(db, u))
            .max_by_key(|&u| (g.alloc(u).saturating_add(g.workspace(u)), u == a))
    };
    for (i, (a, ka)) in cuts.iter().enumerate() {
        for (b, kb) in &cuts[i + 1..] {
            if a == b {
                continue;
            }
            let (da, db) = (&ka.before, &kb.before);
            // Whether some op of D_a ∪ {a} is outside D_b, on the words (most pairs of cuts
            // are nested: no pass over the order for them).
            let outside = |a: OpIx, da: &[u64], db: &[u64]| {
                !has(db, a) || da.iter().zip(db).any(|(x, y)| x & !y != 0)
            };
            if !outside(*a, da, db) || !outside(*b, db, da) {
                continue;
            }
            if let (Some(x), Some(y)) = (pick(*a, da, db), pick(*b, db, da)) {
                return Some((x, y));
            }
        }
    }
    None
}

/// An order in which every cut of `cuts` (pairwise consistent, see [`inconsistent_pair`])
/// holds: the cuts by downset size, each downset's new ops then its op, the rest after, each
/// group in `order`'s order (so the graph's edges and any arc `order` keeps are kept).
pub(super) fn realize(order: &[OpIx], cuts: &[(OpIx, Known)]) -> Vec<OpIx> {
    let mut by_size: Vec<usize> = (0..cuts.len()).collect();
    by_size.sort_by_key_compact(|&i| cuts[i].1.before.iter().map(|w| w.count_ones()).sum::<u32>());
    let mut placed = vec![false; order.len()];
    let mut out = Vec::with_capacity(order.len());
    for i in by_size {
        let (v, k) = &cuts[i];
        if placed[*v as usize] {
            continue;
        }
        for &u in order {
            if has(&k.before, u) && !placed[u as usize] {
                placed[u as usize] = true;
                out.push(u);
            }
        }
        placed[*v as usize] = true;
        out.push(*v);
    }
    out.extend(order.iter().filter(|&&u| !placed[u as usize]));
    out
}

/// On graphs of up to this many ops, the candidates before the peak op are taken by the middle
/// only (see [`peak_pair`]): `wf-rnaseq-001` (under 200 ops) was proven at 97-100 ms of 100
/// with the largest cuts' ops first on that side too, at 44-52 ms without.
const PREFER_EARLIER_ABOVE_OPS: usize = 200;

/// The pair that sets `order` against the cut of the op at its peak (the first step that
/// reaches it, when the step is an op's): u runs at the peak after the ops P before it in
/// `order`, while its cut says u can run after some other downset D. For an op y of D outside
/// P (after u in `order`), "u before y" rules D out and "y before u" rules out the order's
/// arrangement; failing one, for an op x of P outside D, "u before x" rules out the order's
/// and "x before u" D. Either way the peak op's own memory is what the children settle, which
/// branching on the largest cuts alone may never reach (a training step's weight update: its
/// cut lets it run last, the next backward op's lets it run first).
///
/// Of the candidates, the first of `prefer` (the ops of the node's largest cuts, largest
/// first) that is one, else the middle one (on graphs of up to [`PREFER_EARLIER_ABOVE_OPS`]
/// ops, the middle one before u).
pub(super) fn peak_pair(
    g: &Graph,
    net: &CutNetwork,
    order: &[OpIx],
    known: &mut [Option<Known>],
    prefer: &[OpIx],
    flows: &mut u64,
    stop: &dyn Fn() -> bool,
) -> Option<(OpIx, OpIx)> {
    let during = during_in(g, order);
    let (at, &u) = order
        .iter()
        .enumerate()
        .max_by_key(|&(i, &v)| (during[v as usize], Reverse(i)))?;
    if known[u as usize].is_none() {
        let c = net.during_until(g, u, &[], during[u as usize].saturating_add(1), stop);
        *flows += 1;
        let before = c.before.filter(|_| c.finished)?;
        known[u as usize] = Some(Known {
            bytes: c.bytes,
            before: to_bits(&before),
        });
    }
    let k = known[u as usize].as_ref().expect("computed above");
    // An op of the node's largest cuts first: that op is where the bound is, and the arc
    // against it puts u's memory into its moment (or its memory into u's). The middle
    // candidate splits the orders most evenly between the two children, but the bound then
    // rose only once u was pinned next to that op, a dozen levels down, and again for every
    // other such op: the Keras ResNet-50 `dots` step's weight update, whose cut lets it run
    // last, branched against one op after another; a fresh tree from the optimum took 3,767
    // nodes to prove it, and takes 3 now (docs/optimal.md).
    let first_of = |c: &[OpIx]| prefer.iter().copied().find(|p| c.contains(p));
    let pick = |c: &[OpIx]| -> Option<OpIx> { c.get(c.len() / 2).copied() };
    let later: Vec<OpIx> = order[at + 1..]
        .iter()
        .copied()
        .filter(|&y| has(&k.before, y))
        .collect();
    if let Some(y) = first_of(&later).or_else(|| pick(&later)) {
        return Some((u, y));
    }
    let earlier: Vec<OpIx> = order[..at]
        .iter()
        .rev()
        .copied()
        .filter(|&x| !has(&k.before, x))
        .collect();
    let preferred = (g.num_ops() > PREFER_EARLIER_ABOVE_OPS)
        .then(|| first_of(&earlier))
        .flatten();
    preferred.or_else(|| pick(&earlier)).map(|x| (x, u))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` independent ops, op i making a tensor nobody reads of `size(i)` bytes: while op i
    /// runs, only its own output is live, so the peak op is the largest.
    fn independent(n: usize, size: impl Fn(usize) -> u64) -> Graph {
        let tensors: Vec<_> = (0..n)
            .map(|i| serde_json::json!({"id": format!("t{i}"), "bytes": size(i)}))
            .collect();
        let ops: Vec<_> = (0..n)
            .map(|i| serde_json::json!({"id": format!("o{i}"), "outputs": [format!("t{i}")]}))
            .collect();
        let spec = serde_json::json!({"tensors": tensors, "ops": ops, "outputs": []});
        Graph::from_json(&spec.to_string()).expect("a valid graph")
    }

    /// The peak op `u` of the program order, with its cut's downset set to `before`.
    fn pair(g: &Graph, u: OpIx, before: &[OpIx], prefer: &[OpIx]) -> Option<(OpIx, OpIx)> {
        let order: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
        let mut set = vec![false; g.num_ops()];
        for &v in before {
            set[v as usize] = true;
        }
        let mut known = vec![None; g.num_ops()];
        known[u as usize] = Some(Known {
            bytes: 0,
            before: to_bits(&set),
        });
        let net = CutNetwork::new(g, &[]);
        peak_pair(g, &net, &order, &mut known, prefer, &mut 0, &|| false)
    }

    #[test]
    fn after_the_peak_op_a_largest_cuts_op_goes_first() {
        // Op 3 is the peak; its cut lets it run last (after 4..9).
        let g = independent(10, |i| if i == 3 { 100 } else { 1 });
        let all_but_3: Vec<OpIx> = (0..10).filter(|&v| v != 3).collect();
        // Without a preferred op among the candidates 4..9: the middle one.
        assert_eq!(pair(&g, 3, &all_but_3, &[]), Some((3, 7)));
        assert_eq!(pair(&g, 3, &all_but_3, &[1]), Some((3, 7)));
        // Op 1 runs before 3 in the order, so it is no candidate; op 9 is.
        assert_eq!(pair(&g, 3, &all_but_3, &[1, 9, 5]), Some((3, 9)));
    }

    #[test]
    fn before_the_peak_op_a_largest_cuts_op_goes_first_on_large_graphs() {
        // The peak op's cut lets it run first: the candidates are the ops before it.
        let large = PREFER_EARLIER_ABOVE_OPS + 10;
        let u = large as OpIx - 5;
        let g = independent(large, |i| if i == u as usize { 1000 } else { 1 });
        assert_eq!(pair(&g, u, &[], &[7]), Some((7, u)));
        // Candidates from the peak op back: the middle one without a preferred op.
        assert_eq!(pair(&g, u, &[], &[]), Some(((u - 1) - u / 2, u)));
        // Small graphs keep the middle one on that side.
        let small = PREFER_EARLIER_ABOVE_OPS;
        let u = small as OpIx - 5;
        let g = independent(small, |i| if i == u as usize { 1000 } else { 1 });
        assert_eq!(pair(&g, u, &[], &[7]), Some(((u - 1) - u / 2, u)));
    }
}
