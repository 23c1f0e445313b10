//! Exact search: the optimal peak as a bottleneck shortest path over the lattice of downsets.
//!
//! Memory after a set S of ops has run depends only on S (docs/design.md §1), so an order is a path
//! through the downsets (sets closed under predecessors) from ∅ to all ops, and its peak is the
//! largest step cost on the path: live(S) + alloc(v) + workspace(v). We search it best-first:
//! A* (P. E. Hart, N. J. Nilsson, B. Raphael, "A formal basis for the heuristic determination of
//! minimum cost paths", IEEE Trans. SSC 4(2), 1968) with `max` in place of `+`. The problem is
//! NP-hard in general (see M. Kayaaslan, T. Lambert, L. Marchal, B. Uçar, "Scheduling
//! series-parallel task graphs to minimize peak memory", TCS 707, 2018), so the search is pruned:
//!
//! - **an upper bound**: the best heuristic order, improved now and then by finishing a popped
//!   state greedily; only strictly better paths are searched, so an exhausted search proves the
//!   best order optimal;
//! - **admissible lower bounds** per state: the next op runs on top of live(S); every op still
//!   to run has on top of it the storages, live now or made by its ancestors, that it or one of
//!   its descendants still needs (or that are never freed); and for two ops neither of which
//!   precedes the other, whichever runs second has on top of it what the first one left behind:
//!   storages its ancestors made that are still needed, or a valley of the paths to a common
//!   descendant, after J. W. H. Liu, "An application of generalized tree pebbling to sparse
//!   matrix factorization", SIAM J. Algebraic Discrete Methods 8(3), 1987 (see `pairs.rs`), and
//!   the first has on top of it what the second still needs; at the start of each part, the
//!   minimum cut of `cut.rs`;
//! - **a second search from the end** (`backward.rs`): whichever direction runs out of states
//!   under the best peak first proves it;
//! - **dominance rules**: an op that runs under a lower bound of the final peak and frees at least
//!   what it allocates can run at once, and so can a chain of successors that stays under it and
//!   ends at its own lowest memory, and a block of ready ops that together free a shared input
//!   (`dominance.rs` gives the argument);
//! - **divide and conquer**: an op that every other op must precede or follow (a cut) splits every
//!   order into the same three parts, searched separately, largest upper bound first, skipping a
//!   part whose incumbent is under the proven bound; and a part made of independent components is
//!   first solved component by component, the orders merged as independent chains.
//!
//! States are bitsets of the part's ops (`bits.rs`) in an arena, indexed by a hash table of `u32`
//! ids; the table's memory is capped ([`Budget::max_memory_bytes`]). When the budget runs out
//! the search returns its best order and the smallest open f-value as a proven lower bound,
//! with `optimal: false`.
//!
//! The modules, each one job, lower ones never importing higher ones: `bits.rs` (bitsets and
//! their rows), `part.rs` (a part's state), `pairs.rs` and `cut.rs` (the pair and cut tables),
//! `dominance.rs` (the dominance rules), `bounds.rs` (the bounds per state), `model.rs` (the
//! three built together), `backward.rs` and `forward.rs` (the two searches), `components.rs`
//! (independent components), `decompose.rs` (cut ops and parts), `part_bound.rs` (the part bound
//! of plans), and here the entry point. `check.rs` tests every bound against dynamic programming
//! on small graphs.

mod backward;
mod bits;
mod bounds;
mod check;
mod components;
mod cut;
mod decompose;
mod dominance;
mod forward;
mod model;
mod pairs;
mod part;
mod part_bound;

use crate::sort::CompactSort;
use std::cmp::Reverse;

use crate::bounds::lower_bound;
use crate::budget::Budget;
use crate::graph::Graph;
use crate::order::Ordering;
use crate::simulate::MemState;
use crate::OpIx;

#[doc(hidden)]
pub use check::check_bound_admissible;
pub use decompose::{cut_positions, MAX_PART_OPS};
pub use part_bound::{
    cut_part_bound, cut_part_bound_until, part_lower_bound, part_lower_bound_until,
    PART_BOUND_MAX_OPS,
};

use components::solve_components;
use decompose::parts;
use forward::{search, Ctx};
use model::Model;

/// The result of an exact search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact {
    /// The best order found.
    pub order: Vec<OpIx>,
    /// Its peak.
    pub peak: u64,
    /// A proven lower bound on every order's peak (equal to `peak` when `optimal`).
    pub lower_bound: u64,
    /// No order has a lower peak (proven).
    pub optimal: bool,
    /// States expanded.
    pub states: u64,
}

impl From<Exact> for Ordering {
    fn from(e: Exact) -> Ordering {
        Ordering {
            order: e.order,
            proven_optimal: e.optimal,
            lower_bound: Some(e.lower_bound),
            bound_by: Some(crate::bounds::BoundKind::Search),
        }
    }
}

/// About how long setting up a part of `ops` takes, in milliseconds. Two terms dominate: for
/// each storage each op reads, all its users (0.25 µs each, measured on a 1,004-op workflow
/// whose 1,000 tasks read one input: 1.0M of them, 250 ms), and every op against every storage
/// of the part (5 ns each: a 1,024-op elimination tree, 2M pairs, 10 ms).
fn setup_ms(g: &Graph, ops: &[OpIx]) -> f64 {
    let (mut readers, mut storages) = (0u64, 0u64);
    for &v in ops {
        readers += g
            .reads(v)
            .iter()
            .map(|&s| g.users(s).len() as u64 + 1)
            .sum::<u64>();
        storages += (g.reads(v).len() + g.creates(v).len()) as u64;
    }
    readers as f64 * 3e-4 + (ops.len() as u64 * storages) as f64 * 6e-6
}

/// Exact search seeded with `incumbent`, a complete topological order of `g` (the best heuristic
/// order known). Never fails: when the budget runs out it returns the best order found and a
/// proven lower bound.
pub fn exact_search(g: &Graph, budget: &Budget, incumbent: Vec<OpIx>) -> Exact {
    exact_search_above(g, budget, incumbent, 0)
}

/// [`exact_search`] with `floor`, a lower bound already proven (e.g. the whole-graph cut
/// bound): an incumbent at the floor is optimal at once, and the floor is the least bound the
/// search reports.
pub fn exact_search_above(g: &Graph, budget: &Budget, incumbent: Vec<OpIx>, floor: u64) -> Exact {
    let given_floor = floor;
    let n = g.num_ops();
    // The memory before and during each step of the incumbent.
    let mut state = MemState::new(g);
    let mut live_before = Vec::with_capacity(n);
    let mut during = Vec::with_capacity(n);
    for &v in &incumbent {
        live_before.push(state.live());
        during.push(state.run(v).0);
    }
    let ub_peak = during.iter().copied().fold(g.inputs_bytes(), u64::max);
    let mut floor = lower_bound(g).max(given_floor).min(ub_peak);
    let mut ctx = Ctx {
        states: 0,
        budget,
        stopped: false,
        best_peak: ub_peak,
        others: 0,
        check_every: (512 / n.max(1) as u64).clamp(1, 256),
        since_check: 0,
        checks: 0,
    };
    if ub_peak == floor {
        return Exact {
            order: incumbent,
            peak: ub_peak,
            lower_bound: floor,
            optimal: true,
            states: 0,
        };
    }
    // Parts between cut ops; a cut op is a part of its own.
    let parts = parts(&cut_positions(g, &incumbent), n);
    let mut pos = vec![0usize; n];
    for (i, &v) in incumbent.iter().enumerate() {
        pos[v as usize] = i;
    }
    let part_ub = |&(a, b): &(usize, usize)| during[a..b].iter().copied().max().unwrap_or(0);
    let mut by_ub: Vec<usize> = (0..parts.len()).collect();
    by_ub.sort_by_key_compact(|&p| Reverse(part_ub(&parts[p])));
    let mut solved: Vec<Option<Vec<OpIx>>> = vec![None; parts.len()];
    let mut solved_peak: Vec<Option<u64>> = vec![None; parts.len()];
    let part_ub_of = |r: &(usize, usize)| part_ub(r);
    let mut peak = g.inputs_bytes();
    let mut all_proven = true;
    for &p in &by_ub {
        let (a, b) = parts[p];
        let ub = part_ub(&parts[p]);
        if ub <= floor || b - a == 1 {
            // Under the proven bound (or forced): the incumbent's part is as good as any.
            floor = floor.max(if b - a == 1 { ub } else { floor });
            peak = peak.max(ub);
            continue;
        }
        let too_slow = || {
            // Setting a part up reads, for every storage an op reads, all its users: with one
            // input read by a thousand ops that is a million steps. Not when it would not end
            // before the deadline.
            budget.less_left_than(setup_ms(g, &incumbent[a..b]))
        };
        if b - a > MAX_PART_OPS || ctx.stopped || budget.expired() || too_slow() {
            // Too wide to search state by state, or out of time: keep the incumbent's part.
            ctx.stopped |= b - a <= MAX_PART_OPS;
            all_proven = false;
            peak = peak.max(ub);
            continue;
        }
        let Some(model) = Model::new(g, &incumbent, &pos, (a, b), live_before[a], &|| {
            budget.expired()
        }) else {
            // Out of time while setting the part up: keep the incumbent's part.
            ctx.stopped = true;
            all_proven = false;
            peak = peak.max(ub);
            continue;
        };
        floor = floor.max(model.static_bound().min(ub));
        if ub <= floor {
            peak = peak.max(ub);
            continue;
        }
        // Independent components: solved one by one and merged; searched jointly only if the
        // merge is not proven optimal.
        let (mut part_order, mut part_ub) = (incumbent[a..b].to_vec(), ub);
        if let Some(c) = solve_components(g, &incumbent, &pos, a, b, live_before[a], &mut ctx) {
            floor = floor.max(c.lower_bound.min(ub));
            if c.peak < part_ub {
                (part_order, part_ub) = (c.order, c.peak);
            }
            if part_ub <= floor {
                peak = peak.max(part_ub);
                solved[p] = Some(part_order);
                solved_peak[p] = Some(part_ub);
                continue;
            }
        }
        ctx.others = parts
            .iter()
            .enumerate()
            .filter(|&(q, _)| q != p)
            .map(|(q, r)| solved_peak[q].unwrap_or_else(|| part_ub_of(r)))
            .max()
            .unwrap_or(0);
        let r = search(&model, &mut ctx, &part_order, part_ub, floor);
        solved_peak[p] = Some(r.peak);
        floor = floor.max(r.lower_bound);
        peak = peak.max(r.peak);
        all_proven &= r.optimal;
        solved[p] = Some(r.order);
    }
    let mut order = Vec::with_capacity(n);
    for (p, &(a, b)) in parts.iter().enumerate() {
        match &solved[p] {
            Some(o) => order.extend_from_slice(o),
            None => order.extend_from_slice(&incumbent[a..b]),
        }
    }
    let lower = floor.min(peak);
    Exact {
        optimal: all_proven || lower == peak,
        order,
        peak,
        lower_bound: lower,
        states: ctx.states,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::NoClock;
    use crate::examples::{seed_graph, SeedOptions};
    use crate::order::greedy::greedy_order;

    #[test]
    fn cuts_of_a_chain_are_every_op() {
        let g = Graph::from_json(
            r#"{"tensors":[{"id":"x","bytes":1},{"id":"y","bytes":1},{"id":"z","bytes":1}],
            "ops":[{"id":"a","inputs":["x"],"outputs":["y"]},
                   {"id":"b","inputs":["y"],"outputs":["z"]}],
            "outputs":["z"]}"#,
        )
        .unwrap();
        assert_eq!(cut_positions(&g, &[0, 1]), vec![0, 1]);
    }

    #[test]
    fn seed_graph_is_proven() {
        let g = Graph::from_spec(seed_graph(SeedOptions {
            paths: 10,
            ..SeedOptions::default()
        }))
        .unwrap();
        let budget = Budget::new(&NoClock, None, 1_000_000);
        let r = exact_search(&g, &budget, greedy_order(&g));
        assert!(r.optimal);
        assert_eq!(r.peak, 3_670_016);
        g.check_order(&r.order).unwrap();
    }
}
