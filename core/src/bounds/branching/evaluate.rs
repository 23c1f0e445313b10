//! Evaluating a node: the cut bound of the graph with its arcs, the order in which its cuts
//! hold (a better order for it, or its proof), and the pair to branch it by.

use crate::sort::CompactSort;
use std::cmp::Reverse;

use crate::bounds::cut::{cut_bound_known, during_in, to_bits, CutNetwork, Known};
use crate::graph::Graph;
use crate::OpIx;

use super::node::Node;
use super::pairs::{inconsistent_pair, peak_pair, realize};

/// Downsets kept per node to choose the next pair from (the cut scan computes at least this
/// many). 4, not 12: the scan stops sooner, nodes are cheaper and the search dives deeper
/// (corpus at 100 ms: 96 -> 97 proven, wf-cutandrun; jax-train-resnet14 1.013 -> 1.002 by a
/// deeper node's order; mnasnet1_0's proof takes 1,050 flows instead of 1,900).
const KEEP_CUTS: usize = 4;

/// What evaluating a node found.
pub(super) struct Eval {
    pub(super) node: Node,
    /// The cut bound was computed in full (not cut short by the budget).
    pub(super) complete: bool,
    /// The pair to branch on; `None` when the node is solved (its order reaches its bound) or
    /// nothing is left to branch on.
    pub(super) pair: Option<(OpIx, OpIx)>,
    /// Another pair to branch on, when the cuts and the order's peak suggest two (see
    /// [`super::Search::run`]: tried when `pair` raises neither child).
    pub(super) alt: Option<(OpIx, OpIx)>,
}

/// Most rounds of "realize the cuts, compute the cuts of the ops still above the bound".
const MAX_ROUNDS: usize = 8;
/// Ops above the bound whose cuts one round computes.
const PER_ROUND: usize = 4;

/// Evaluates a node: the cut bound of the graph with its arcs (at least `floor`) and the
/// downsets of the largest cuts. Then either two of them are inconsistent (the pair to branch
/// on), or they all hold in one order: if its peak is the bound, the node is solved; if not,
/// the ops above the bound in it get their cuts too, and the check repeats.
#[allow(clippy::too_many_arguments)]
pub(super) fn evaluate(
    g: &Graph,
    arcs: Vec<(OpIx, OpIx)>,
    order: Vec<OpIx>,
    peak: u64,
    upper: Vec<u64>,
    inherited: Vec<(OpIx, Known)>,
    floor: u64,
    flows: &mut u64,
    stop: &dyn Fn() -> bool,
) -> Eval {
    // Building the network reads every op's tensors once.
    crate::work::add(4 * g.num_ops() as u64);
    let net = CutNetwork::new(g, &arcs);
    let mut known: Vec<Option<Known>> = vec![None; g.num_ops()];
    for (v, k) in inherited {
        known[v as usize] = Some(k);
    }
    let c = cut_bound_known(g, &net, &upper, &mut known, floor, KEEP_CUTS, stop);
    *flows += c.flows as u64;
    let bound = c.bytes;
    let mut cuts = c.cuts;
    let mut order = order;
    let mut peak = peak;
    let mut pair = None;
    let mut complete = c.complete;
    if complete {
        'rounds: for _ in 0..MAX_ROUNDS {
            // Each round is O(ops x cuts) before any flow: on a large graph, a millisecond.
            crate::work::add((g.num_ops() * (cuts.len() + 2)) as u64);
            if stop() {
                complete = false;
                break;
            }
            pair = inconsistent_pair(g, &order, &cuts);
            if pair.is_some() {
                break;
            }
            let o = realize(&order, &cuts);
            let d = during_in(g, &o);
            // The peak, as `peak_of` has it, from the same simulation.
            let p = d.iter().copied().fold(g.inputs_bytes(), u64::max);
            if p < peak {
                (order, peak) = (o.clone(), p);
            }
            if p <= bound {
                break; // solved
            }
            let mut above: Vec<OpIx> = (0..g.num_ops() as OpIx)
                .filter(|&u| d[u as usize] > bound && cuts.iter().all(|x| x.0 != u))
                .collect();
            // Cuts already known need no flow.
            let fresh = above.len();
            for &u in &above[..fresh] {
                if let Some(k) = &known[u as usize] {
                    cuts.push((u, k.clone()));
                }
            }
            above.retain(|&u| known[u as usize].is_none());
            above.sort_by_key_compact(|&u| Reverse(d[u as usize]));
            if above.is_empty() {
                break; // the start or the end is above the bound, not an op
            }
            for &u in above.iter().take(PER_ROUND) {
                if stop() {
                    complete = false;
                    break 'rounds;
                }
                let cu = net.during_until(g, u, &[], d[u as usize].saturating_add(1), stop);
                *flows += 1;
                if !cu.finished {
                    complete = false;
                    break 'rounds;
                }
                if let Some(before) = cu.before {
                    let k = Known {
                        bytes: cu.bytes,
                        before: to_bits(&before),
                    };
                    known[u as usize] = Some(k.clone());
                    cuts.push((u, k));
                }
            }
        }
    }
    if complete && peak > bound && !stop() {
        // The order's peak op and its own cut say where the order and the bound disagree.
        // The ops of the largest cuts, largest first: the pair's preferred partners.
        let mut by_cut: Vec<(u64, OpIx)> = cuts.iter().map(|(v, k)| (k.bytes, *v)).collect();
        by_cut.sort_by_key_compact(|&(b, v)| (Reverse(b), v));
        let prefer: Vec<OpIx> = by_cut.into_iter().map(|(_, v)| v).collect();
        if let Some(p) = peak_pair(g, &net, &order, &mut known, &prefer, flows, stop) {
            pair = Some(p);
        }
    }
    // The cuts' own pair, when the peak's replaced it (or none was found in the rounds).
    let mut alt = None;
    if peak > bound {
        let cut_pair = inconsistent_pair(g, &order, &cuts);
        if pair.is_none() {
            pair = cut_pair;
        } else if cut_pair != pair {
            alt = cut_pair;
        }
    }
    let known = known
        .into_iter()
        .enumerate()
        .filter_map(|(v, k)| k.map(|k| (v as OpIx, k)))
        .collect();
    Eval {
        node: Node {
            arcs,
            bound,
            order,
            peak,
            known,
            bounders: Vec::new(),
            seed: None,
        },
        complete,
        pair,
        alt,
    }
}
