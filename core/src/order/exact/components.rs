//! Independent components of a part: no dependency between them and no storage that two of
//! them read and that the part frees. Each is searched on its own and the orders are merged as
//! independent chains, segment by segment in the exchange order of Liu's algorithm (see
//! [`crate::order::liu`]).

use crate::sort::CompactSort;
use std::collections::HashMap;

use crate::graph::Graph;
use crate::OpIx;

use super::bits::put;
use super::forward::{search, Ctx, PartResult};
use super::model::Model;

/// Splits the part `order[a..b]` into independent components (no dependency between them, and
/// no storage that two of them read and that the part frees), or `None` if it is one piece.
pub(super) fn components(
    g: &Graph,
    order: &[OpIx],
    pos: &[usize],
    a: usize,
    b: usize,
) -> Option<Vec<Vec<OpIx>>> {
    let m = b - a;
    let mut parent: Vec<u32> = (0..m as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    let union = |parent: &mut Vec<u32>, x: u32, y: u32| {
        let (rx, ry) = (find(parent, x), find(parent, y));
        if rx != ry {
            parent[rx.max(ry) as usize] = rx.min(ry);
        }
    };
    let local = |v: OpIx| {
        let p = pos[v as usize];
        (a..b).contains(&p).then(|| (p - a) as u32)
    };
    for (i, &v) in order[a..b].iter().enumerate() {
        for &p in g.preds(v) {
            if let Some(lp) = local(p) {
                union(&mut parent, i as u32, lp);
            }
        }
        for &s in g.reads(v) {
            let freed_here = !g.pinned(s) && g.users(s).iter().all(|&u| pos[u as usize] < b);
            if freed_here {
                for &u in g.users(s) {
                    if let Some(lu) = local(u) {
                        union(&mut parent, i as u32, lu);
                    }
                }
            }
        }
    }
    let mut groups: HashMap<u32, Vec<OpIx>> = HashMap::new();
    let mut roots = Vec::new();
    for (i, &v) in order[a..b].iter().enumerate() {
        let r = find(&mut parent, i as u32);
        groups.entry(r).or_insert_with(|| {
            roots.push(r);
            Vec::new()
        });
        groups.get_mut(&r).expect("present").push(v);
    }
    if roots.len() < 2 {
        return None;
    }
    Some(
        roots
            .into_iter()
            .map(|r| groups.remove(&r).unwrap_or_default())
            .collect(),
    )
}

/// Solves each independent component of the part `order[a..b]` on its own and merges the
/// orders as independent chains (segments by the exchange order of [`crate::order::liu`]). The merged
/// peak is an upper bound; a lower bound is each component's proven peak with the others at their
/// lowest (they can only free what was live at the start).
pub(super) fn solve_components(
    g: &Graph,
    order: &[OpIx],
    pos: &[usize],
    a: usize,
    b: usize,
    live0: u64,
    ctx: &mut Ctx,
) -> Option<PartResult> {
    let comps = components(g, order, pos, a, b)?;
    let mut lbs = Vec::with_capacity(comps.len());
    let mut frees_at_start = Vec::with_capacity(comps.len());
    // (key, component, segment index, ops) of every segment.
    let mut segs: Vec<Segment> = Vec::new();
    let mut steps: HashMap<OpIx, (u64, i128)> = HashMap::new();
    let mut all_optimal = true;
    for (c, ops) in comps.iter().enumerate() {
        // Setting up a component reads every storage it touches with all their users, so a
        // thousand components sharing an input cost a million steps: look at the clock first.
        // Out of time, the caller keeps the incumbent's part (it searches it jointly, and that
        // search stops at once).
        if ctx.stopped || ctx.budget.expired() {
            ctx.stopped = true;
            return None;
        }
        let Some(model) = Model::of_ops(g, ops, pos, a, live0, &|| ctx.budget.expired()) else {
            ctx.stopped = true;
            return None;
        };
        let part = &model.part;
        // Its incumbent: the order's own sequence of it.
        let mut set = vec![0u64; part.words];
        let (mut live, mut peak) = (live0, live0);
        for i in 0..ops.len() as u32 {
            peak = peak.max(live + part.step[i as usize]);
            live = live + part.alloc[i as usize] - part.frees(&set, i);
            put(&mut set, i);
        }
        let r = search(&model, ctx, ops, peak, live0);
        all_optimal &= r.optimal;
        lbs.push(r.lower_bound);
        frees_at_start.push(live0 - part.untouched - part.perm_at_start());
        // Its best order as segments of (rise, net), merged while out of exchange order.
        let index: HashMap<OpIx, u32> = ops
            .iter()
            .enumerate()
            .map(|(i, &v)| (v, i as u32))
            .collect();
        let mut set = vec![0u64; part.words];
        let mut stack: Vec<(i128, i128, Vec<OpIx>)> = Vec::new();
        for &v in &r.order {
            let i = index[&v];
            let rise = part.step[i as usize] as i128;
            let net = part.alloc[i as usize] as i128 - part.frees(&set, i) as i128;
            steps.insert(v, (part.step[i as usize], net));
            put(&mut set, i);
            let mut cur = (rise, net, vec![v]);
            while let Some(top) = stack.last() {
                if seg_key(cur.0, cur.1) > seg_key(top.0, top.1) {
                    break;
                }
                let (tr, tn, mut tops) = stack.pop().expect("non-empty");
                tops.extend(cur.2);
                cur = (tr.max(tn + cur.0), tn + cur.1, tops);
            }
            stack.push(cur);
        }
        for (k, (r, n, ops)) in stack.into_iter().enumerate() {
            segs.push((seg_key(r, n), c, k, ops));
        }
    }
    segs.sort_by_key_compact(|x| (x.0, x.1, x.2));
    let merged: Vec<OpIx> = segs.into_iter().flat_map(|s| s.3).collect();
    let (mut live, mut peak) = (live0 as i128, live0 as i128);
    for v in &merged {
        let (step, net) = steps[v];
        peak = peak.max(live + step as i128);
        live += net;
    }
    let total_free: u64 = frees_at_start.iter().sum();
    let lower = lbs
        .iter()
        .zip(&frees_at_start)
        .map(|(&lb, &f)| lb.saturating_sub(total_free - f))
        .max()
        .unwrap_or(0);
    let peak = peak.max(0) as u64;
    Some(PartResult {
        order: merged,
        peak,
        lower_bound: lower.min(peak),
        optimal: all_optimal && lower >= peak,
    })
}

/// A segment of a component's order: (exchange key, component, index in it, ops).
pub(super) type Segment = ((u8, i128), usize, usize, Vec<OpIx>);

/// The exchange order of independent segments (see [`crate::order::liu`]): those that free memory
/// first by rise ascending, then the others by rise − net descending.
pub(super) fn seg_key(rise: i128, net: i128) -> (u8, i128) {
    if net < 0 {
        (0, rise)
    } else {
        (1, net - rise)
    }
}
