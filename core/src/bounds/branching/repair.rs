//! Orders that keep a node's arcs: its parent's order repaired for the new arc, and the
//! search's start orders repaired to bound the node's cuts.

use std::rc::Rc;

use crate::bounds::cut::{CutNetwork, Known};
use crate::graph::Graph;
use crate::OpIx;

use super::node::{Arc, Bounder};

/// A child repairs the search's start orders to bound its cuts (see
/// [`repaired_upper`]) when more ops than this (or a quarter of the graph's) are above
/// its floor in its own order.
const BOUNDERS_ABOVE: usize = 48;

fn positions(order: &[OpIx]) -> Vec<usize> {
    let mut pos = vec![0usize; order.len()];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    pos
}

/// The two repairs of `order` (y at `py` before x at `px`) for the arc x -> y (keeping every
/// arc of `net`, which holds it): y and what depends on it moved right after x, or x and what
/// it depends on moved right before y.
fn candidates(
    net: &CutNetwork,
    order: &[OpIx],
    py: usize,
    px: usize,
    x: OpIx,
    y: OpIx,
) -> (Vec<OpIx>, Vec<OpIx>) {
    let n = order.len();
    // Ops between y and x (inclusive) that depend on y: they move right after x.
    let mut later = vec![false; n];
    later[y as usize] = true;
    for &v in &order[py..=px] {
        if v != y && net.preds(v).iter().any(|&p| later[p as usize]) {
            later[v as usize] = true;
        }
    }
    let mut a = Vec::with_capacity(n);
    a.extend_from_slice(&order[..py]);
    a.extend(order[py..=px].iter().filter(|&&v| !later[v as usize]));
    a.extend(order[py..=px].iter().filter(|&&v| later[v as usize]));
    a.extend_from_slice(&order[px + 1..]);
    // Ops between y and x that x depends on: they move right before y.
    let mut earlier = vec![false; n];
    earlier[x as usize] = true;
    for &v in order[py..=px].iter().rev() {
        if v != x && net.succs(v).iter().any(|&s| earlier[s as usize]) {
            earlier[v as usize] = true;
        }
    }
    let mut b = Vec::with_capacity(n);
    b.extend_from_slice(&order[..py]);
    b.extend(order[py..=px].iter().filter(|&&v| earlier[v as usize]));
    b.extend(order[py..=px].iter().filter(|&&v| !earlier[v as usize]));
    b.extend_from_slice(&order[px + 1..]);
    (a, b)
}

/// `order` changed so that `x` runs before `y`: the better of the two [`candidates`], given
/// the memory while each op runs in `order` (`during`, by op, as [`crate::bounds::cut::during_in`] has it); the
/// repaired order, the same for it, and its peak. The two
/// candidates differ from `order` only between y and x, and after the same ops the same
/// storages are live, so only that stretch is simulated (from the state before y, once) and
/// every other op keeps its value: one partial simulation instead of three whole ones.
pub(super) fn repair_during(
    g: &Graph,
    net: &CutNetwork,
    order: &[OpIx],
    during: &[u64],
    x: OpIx,
    y: OpIx,
) -> (Vec<OpIx>, Vec<u64>, u64) {
    let pos = positions(order);
    let (px, py) = (pos[x as usize], pos[y as usize]);
    let (lo, hi) = (px.min(py), px.max(py));
    let rest = order[..lo]
        .iter()
        .chain(&order[hi + 1..])
        .map(|&v| during[v as usize])
        .fold(g.inputs_bytes(), u64::max);
    if px < py {
        let peak = order[lo..=hi]
            .iter()
            .map(|&v| during[v as usize])
            .fold(rest, u64::max);
        return (order.to_vec(), during.to_vec(), peak);
    }
    let (a, b) = candidates(net, order, py, px, x, y);
    let mut start = crate::simulate::MemState::new(g);
    for &v in &order[..py] {
        start.run(v);
    }
    let stretch = |o: &[OpIx]| -> (Vec<u64>, u64) {
        let mut st = start.clone();
        let d: Vec<u64> = o[py..=px].iter().map(|&v| st.run(v).0).collect();
        let peak = d.iter().copied().fold(rest, u64::max);
        (d, peak)
    };
    let ((da, pa), (db, pb)) = (stretch(&a), stretch(&b));
    let (o, d, p) = if pa <= pb { (a, da, pa) } else { (b, db, pb) };
    let mut out = during.to_vec();
    for (&v, &dv) in o[py..=px].iter().zip(&d) {
        out[v as usize] = dv;
    }
    (o, out, p)
}

/// `b`'s order repaired (see [`repair_during`]) to keep every arc of `arcs` (all of them in `net`),
/// with its memory by op and its peak (see [`repair_during`]).
pub(super) fn repaired(g: &Graph, net: &CutNetwork, b: &Bounder, arcs: &[Arc]) -> Bounder {
    let mut pos = positions(&b.order);
    let mut out: Option<(Vec<OpIx>, Vec<u64>, u64)> = None;
    for &(x, y) in arcs {
        if pos[x as usize] > pos[y as usize] {
            let (o, d) = out
                .as_ref()
                .map_or((&b.order[..], &b.during[..]), |(o, d, _)| (&o[..], &d[..]));
            let next = repair_during(g, net, o, d, x, y);
            pos = positions(&next.0);
            out = Some(next);
        }
    }
    match out {
        Some((o, d, p)) => Bounder {
            order: Rc::new(o),
            during: Rc::new(d),
            peak: p,
            keeps: arcs.len(),
        },
        None => Bounder {
            keeps: arcs.len(),
            ..b.clone()
        },
    }
}

/// Lowers `upper` (a child's bounds on its cuts, from its own order) by its parent's
/// bounders (the search's start orders at the root), each repaired to keep the child's
/// `arcs`, when more than [`BOUNDERS_ABOVE`] ops (or a quarter of them) not in `inherited` are above `floor` by
/// the child's order alone; returns the child's bounders. The root bounds its cuts by
/// all of those orders, so it needs a dozen flows where a child bounded by its one order
/// needed 100 to 300 (the first levels on convnext_tiny's and googlenet's training steps);
/// the repaired orders bring a child back to about a dozen. A bounder that lowers no op
/// above the floor is dropped for the subtree; one repaired is kept with the child, so a
/// grandchild repairs it for one more arc only. Repaired orders are offered as
/// incumbents too (`offer`, with their peaks).
#[allow(clippy::too_many_arguments)]
pub(super) fn repaired_upper(
    g: &Graph,
    parent: &[Bounder],
    net: &CutNetwork,
    arcs: &[Arc],
    inherited: &[(OpIx, Known)],
    floor: u64,
    upper: &mut [u64],
    offer: &mut dyn FnMut(&[OpIx], u64),
) -> Vec<Bounder> {
    let mut inherits = vec![false; g.num_ops()];
    for (v, _) in inherited {
        inherits[*v as usize] = true;
    }
    let open = (0..g.num_ops())
        .filter(|&u| upper[u] > floor && !inherits[u])
        .count();
    // Each repair and simulation is O(ops): worth it only when it saves flows.
    if open <= BOUNDERS_ABOVE.min(g.num_ops() / 4) {
        return parent.to_vec();
    }
    let own = upper.to_vec();
    let mut kept = Vec::with_capacity(parent.len());
    for b in parent {
        let r = if b.keeps < arcs.len() {
            repaired(g, net, b, &arcs[b.keeps..])
        } else {
            b.clone()
        };
        let mut useful = false;
        for (u, &d) in r.during.iter().enumerate() {
            if d < upper[u] {
                useful |= own[u] > floor && !inherits[u];
                upper[u] = d;
            }
        }
        if useful {
            offer(&r.order, r.peak);
            kept.push(r);
        }
    }
    kept
}
