//! Which recompute method runs, and how the budget is shared between them: `auto`'s choice
//! (the chain optimum, the exact search on small graphs, else peak repair and eviction along
//! the planned and the program order), and the least limit over the methods.

use super::{Found, Least, Outcome, RecomputeMethod};
use crate::budget::Budget;
use crate::error::Error;
use crate::graph::Graph;
use crate::order;
use crate::recompute;
use crate::OpIx;

/// Graphs this small go to the exact recompute search under `auto`.
const EXACT_MAX_OPS: usize = 16;

/// Runs the recompute method (`auto`: the chain optimum, else the exact search on small
/// graphs, else eviction along `order`); `None` when none found a schedule within `limit`.
pub fn find_schedule(
    g: &Graph,
    method: RecomputeMethod,
    order: &[OpIx],
    limit: u64,
    budget: &Budget,
) -> Result<Option<(Found, &'static str)>, Error> {
    let take = |o: Outcome, by: &'static str| match o {
        Outcome::Found(f) => Some((f, by)),
        _ => None,
    };
    Ok(match method {
        RecomputeMethod::Revolve => match recompute::chain::plan(g, limit) {
            Outcome::Unknown => {
                return Err(Error::NotApplicable {
                    method: "revolve".into(),
                    reason: "the graph is not a training chain (docs/recompute.md)".into(),
                })
            }
            o => take(o, "revolve"),
        },
        RecomputeMethod::Evict => take(
            along_both(g, order, limit, budget, recompute::evict::plan),
            "evict",
        ),
        RecomputeMethod::Repair => take(
            along_both(g, order, limit, budget, recompute::repair::plan),
            "repair",
        ),
        RecomputeMethod::Exact => match recompute::exact::search(g, limit, budget) {
            Outcome::Unknown => large_best(g, order, limit, budget),
            o => take(o, "exact"),
        },
        RecomputeMethod::Auto => {
            let chain = recompute::chain::plan(g, limit);
            if chain != Outcome::Unknown {
                take(chain, "revolve")
            } else {
                let exact = if g.num_ops() <= EXACT_MAX_OPS {
                    recompute::exact::search(g, limit, &budget.share(0.7, budget.max_states))
                } else {
                    Outcome::Unknown
                };
                match exact {
                    Outcome::Unknown => large_best(g, order, limit, budget),
                    o => take(o, "exact"),
                }
            }
        }
    })
}

/// A large-graph method: a schedule within `limit` along `order`.
type Along = fn(&Graph, &[OpIx], u64, &Budget) -> Outcome;

/// The cheaper of two outcomes (the first on ties).
fn cheaper(a: Outcome, b: Outcome) -> Outcome {
    match (&a, &b) {
        (Outcome::Found(x), Outcome::Found(y)) if y.added_cost < x.added_cost => b,
        (Outcome::Found(_), _) => a,
        _ => b,
    }
}

/// `method` along the planned order and, in the time left, along the program order (a
/// training step's program order runs the forward then the backward, which is often the
/// better order to recompute along although its peak without recomputation is higher).
fn along_both(g: &Graph, order: &[OpIx], limit: u64, budget: &Budget, method: Along) -> Outcome {
    let first = method(g, order, limit, &budget.share(0.6, budget.max_states));
    let program = match order::program::program_order(g) {
        Ok(p) if p != order && !budget.expired() => p,
        _ => return first,
    };
    cheaper(first, method(g, &program, limit, budget))
}

/// `auto` on a large graph: peak repair first (it adds single recomputations where they save
/// most, and is quick where the limit is shallow), then eviction in the time left (it reaches
/// deep limits repair cannot), then repair again with more candidates per step in 70% of the
/// time left after that, then destroy and repair ([`recompute::rework`]) of the cheapest in
/// the rest; the cheapest schedule, named by the method that found it.
fn large_best(
    g: &Graph,
    order: &[OpIx],
    limit: u64,
    budget: &Budget,
) -> Option<(Found, &'static str)> {
    let repaired = along_both(
        g,
        order,
        limit,
        &budget.share(0.3, budget.max_states),
        recompute::repair::plan,
    );
    let evicted = match &repaired {
        Outcome::Found(f) if f.added_cost == 0.0 => Outcome::Unknown,
        _ => along_both(g, order, limit, budget, recompute::evict::plan),
    };
    let best = match (repaired, evicted) {
        (Outcome::Found(r), Outcome::Found(e)) if e.added_cost < r.added_cost => Some((e, "evict")),
        (Outcome::Found(r), _) => Some((r, "repair")),
        (_, Outcome::Found(e)) => Some((e, "evict")),
        _ => None,
    };
    if best.as_ref().is_some_and(|(f, _)| f.added_cost == 0.0) || budget.expired() {
        return best;
    }
    // Most of the time left to the wide pass, the rest to destroy and repair (below).
    let wide = budget.share(0.7, budget.max_states);
    let best = match along_both(g, order, limit, &wide, recompute::repair::plan_wide) {
        Outcome::Found(w)
            if best
                .as_ref()
                .map_or(true, |(b, _)| w.added_cost < b.added_cost) =>
        {
            Some((w, "repair"))
        }
        _ => best,
    };
    // Destroy and repair the cheapest in whatever time is left (named by the method that
    // found what it started from: plans name one of the methods).
    match best {
        Some((mut f, by)) if !budget.expired() && f.added_cost > 0.0 => {
            let s = recompute::rework::rework(g, f.schedule.clone(), limit, budget);
            let cost = recompute::added_cost(g, &s);
            if cost < f.added_cost {
                f.schedule = s;
                f.added_cost = cost;
            }
            Some((f, by))
        }
        other => other,
    }
}

/// The least peak any method reaches with unlimited recomputation (and `known`, the peak of
/// a schedule already found), with the best proven lower bound.
pub fn least_limit(
    g: &Graph,
    order: &[OpIx],
    budget: &Budget,
    known: Option<u64>,
) -> Option<Least> {
    let mut best: Option<Least> = recompute::chain::least(g);
    // A least limit proven (its peak meets its bound) needs no search.
    if best.as_ref().is_some_and(|l| l.peak <= l.bound) {
        return best;
    }
    let offer = |best: &mut Option<Least>, l: Option<Least>| {
        if let Some(l) = l {
            *best = Some(match best.take() {
                None => l,
                Some(b) => {
                    let bound = b.bound.max(l.bound);
                    let mut keep = if l.peak < b.peak { l } else { b };
                    keep.bound = bound;
                    keep
                }
            });
        }
    };
    if g.num_ops() <= EXACT_MAX_OPS {
        let l = recompute::exact::least(g, &budget.share(0.5, budget.max_states));
        offer(&mut best, l);
    }
    if !best.as_ref().is_some_and(|l| l.peak <= l.bound) {
        offer(&mut best, recompute::evict::least(g, order, budget));
    }
    if let (Some(b), Some(k)) = (best.as_mut(), known) {
        b.peak = b.peak.min(k);
    }
    best
}
