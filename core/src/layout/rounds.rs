//! The exact search's rounds over the independent groups of a layout problem ([`Search`]): the
//! decision questions of [`super::canonical`] asked at a doubling node limit, at the bound and at
//! a second target (the capacity, halfway to the best arena, or a descending target), and the
//! group state they update ([`Group`]). [`super::solve`] runs the portfolio around them.

use super::canonical::{Nodes, Outcome, Solver};
use super::overlaps::Overlaps;
use super::problem::{height, Buffer};
use super::skyline::Variant;
use crate::budget::Budget;

/// One independent group and its best layout so far.
pub(super) struct Group {
    pub(super) base: u64,
    pub(super) members: Vec<u32>,
    pub(super) bufs: Vec<Buffer>,
    pub(super) overlaps: Option<Overlaps>,
    /// The best-fit order behind `off`, when a best-fit order gave the best layout.
    pub(super) order: Option<Vec<u32>>,
    pub(super) off: Vec<u64>,
    pub(super) height: u64,
    /// Proven lower bound on this group's height.
    pub(super) bound: u64,
    /// The exact search may run here (overlap graph and section memberships within limits).
    pub(super) searchable: bool,
    /// The best skyline variant, where the skyline ran.
    pub(super) sky: Option<Variant>,
    /// The best staircase start ([`stacked`]) and its variant, where one ran.
    pub(super) stair: Option<(Variant, Vec<u32>)>,
}

impl Group {
    pub(super) fn top(&self) -> u64 {
        self.base + self.height
    }
}

/// The exact search's state across its phases: rounds of a doubling node limit. Each round asks
/// the groups above a target whether they fit it: first the bound (real graphs nearly always fit
/// there), then a looser target (the capacity, or halfway to the best arena), so that one hard
/// question does not take all the time while an easier one would have improved the arena.
/// [`Search::descend`] asks a target that moves instead.
pub(super) struct Search<'s> {
    pub(super) stacked_top: u64,
    pub(super) capacity: Option<u64>,
    /// Every arena below it is proven impossible.
    pub(super) lo: &'s mut u64,
    pub(super) nodes: &'s mut Nodes,
    /// The node limit of the next round, per buffer of the group.
    pub(super) scale: u64,
    pub(super) max_states: u64,
}

/// The descending target's first node limit per buffer ([`Search::descend`]): on D and J the
/// targets near the arena are decided within it, and a lower one (2) let the walk stall on
/// targets one grain apart.
const DESCENT_SCALE: u64 = 8;

/// The answer of the groups above a target ([`Search::ask`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Asked {
    /// Every group fits it.
    Fit,
    /// Proven out of reach (`lo` raised above it).
    Infeasible,
    /// A group's search hit the node limit.
    Limit,
    /// A group is too large to search: the target stays open.
    Unsearchable,
    /// The budget ran out.
    Stopped,
}

impl Search<'_> {
    /// Runs rounds until the arena reaches the bound, the budget is spent, nothing is left to
    /// decide, or (with `max_scale`) the node limit would grow beyond `max_scale` per buffer.
    pub(super) fn run(
        &mut self,
        groups: &mut [Group],
        solvers: &[Option<Solver>],
        budget: &Budget,
        max_scale: Option<u64>,
    ) {
        'rounds: loop {
            if budget.expired() {
                break;
            }
            let mut decided_any = false;
            // A search hit its node limit: a higher one may decide it.
            let mut open = false;
            for pick in 0..2 {
                let arena = arena_of(groups, self.stacked_top);
                let target = match (self.capacity, pick) {
                    (Some(c), _) if arena <= c => break 'rounds,
                    (None, _) if arena <= *self.lo => break 'rounds,
                    (_, 0) => *self.lo,
                    (Some(c), _) => c,
                    (None, _) => *self.lo + (arena - 1 - *self.lo) / 2,
                };
                if pick == 1 && target == *self.lo {
                    continue;
                }
                // With a capacity, the bound gets only the first two (cheap) rounds: when it is
                // easy it is found at once and is optimal; when it is not, the capacity is the
                // question asked.
                if pick == 0 && self.capacity.is_some_and(|c| c > *self.lo) && self.scale > 4 {
                    continue;
                }
                let (asked, progressed) = self.ask(groups, solvers, target, self.scale, budget);
                decided_any |= progressed || asked == Asked::Infeasible;
                match asked {
                    Asked::Limit => open = true,
                    Asked::Stopped => break 'rounds,
                    Asked::Fit | Asked::Infeasible | Asked::Unsearchable => {}
                }
            }
            if self.capacity.is_some_and(|c| *self.lo > c)
                || budget.expired()
                || self.nodes.used >= self.max_states
            {
                // The capacity is proven out of reach, or the budget is spent.
                break;
            }
            if !decided_any {
                if !open {
                    // Nothing left the search can answer (the groups above are too large).
                    break;
                }
                if max_scale.is_some_and(|m| self.scale >= m) {
                    break;
                }
                self.scale = self.scale.saturating_mul(2);
            }
        }
    }

    /// Without a capacity, for the least arena by decision questions only (issue 32: `auto` on
    /// MiniMalloc's instances): two questions, each with its own node limit, the one that has
    /// had less time so far asked next. One is the bound, its limit doubling; the other a target
    /// a quarter of the gap from the best arena down to the bound after each layout found (or
    /// proof), and halfway back up towards the arena after a limit that did not decide it, all
    /// targets multiples of `grain` (the sizes' gcd: every canonical arena is one, so no question
    /// is wasted between two). So a tight
    /// instance (the bound is the answer: A, B, E) costs about twice what `--capacity` costs,
    /// and a loose one (D, J: the bound far below any layout and never decided) still has half
    /// the time to walk down from the greedy arena by questions decided in tens of ms. Time, not
    /// nodes, is balanced: on D a node at the bound costs four times one near the arena.
    pub(super) fn descend(
        &mut self,
        groups: &mut [Group],
        solvers: &[Option<Solver>],
        grain: u64,
        budget: &Budget,
    ) {
        let g = grain.max(1);
        let down = |x: u64| x - x % g;
        // Every canonical layout's arena is a sum of sizes, so a multiple of their gcd: a
        // target between two multiples asks the same question as the lower one.
        let mut scale = [self.scale, DESCENT_SCALE];
        // Time per question; nodes where the clock does not move (a budget of states alone).
        let mut spent = [0.0f64; 2];
        let mut nodes_spent = [0u64; 2];
        let mut bound_open = true;
        let mut target: Option<u64> = None;
        while !budget.expired() && self.nodes.used < self.max_states {
            let arena = arena_of(groups, self.stacked_top);
            if arena <= *self.lo {
                break;
            }
            let t = target
                .filter(|&t| t < arena && t >= *self.lo)
                .unwrap_or_else(|| down(arena - (arena - *self.lo).div_ceil(4)).max(*self.lo));
            target = Some(t);
            let behind = if spent[0] + spent[1] > 0.0 {
                spent[1] < spent[0]
            } else {
                nodes_spent[1] < nodes_spent[0]
            };
            let q = usize::from(!bound_open || behind);
            let goal = if q == 0 { *self.lo } else { t };
            let (start, before) = (budget.clock.now_ms(), self.nodes.used);
            let (asked, _) = self.ask(groups, solvers, goal, scale[q], budget);
            spent[q] += (budget.clock.now_ms() - start).max(0.0);
            nodes_spent[q] += self.nodes.used - before;
            match asked {
                Asked::Fit | Asked::Infeasible => target = None,
                Asked::Limit if q == 0 => scale[0] = scale[0].saturating_mul(2),
                Asked::Limit => {
                    // An easier target at the same limit: which targets a few thousand nodes
                    // decide is luck more than height (D: 1,040,000 in 8k nodes, 1,030,000 in
                    // 300k), so another target is a cheap restart. The limit doubles only where
                    // no target is left between this one and the arena.
                    let up = down(t + (arena - t) / 2).max(t + g);
                    if up >= arena {
                        scale[1] = scale[1].saturating_mul(2);
                    } else {
                        target = Some(up);
                    }
                }
                Asked::Unsearchable if q == 0 => bound_open = false,
                Asked::Unsearchable | Asked::Stopped => break,
            }
        }
    }

    /// Asks every group above `target` whether it fits (a round of `scale` nodes per buffer);
    /// returns the answer and whether any group's layout improved.
    fn ask(
        &mut self,
        groups: &mut [Group],
        solvers: &[Option<Solver>],
        target: u64,
        scale: u64,
        budget: &Budget,
    ) -> (Asked, bool) {
        if target < self.stacked_top {
            // A stacked buffer alone reaches above the target: no layout fits it.
            *self.lo = (*self.lo).max(target + 1);
            return (Asked::Infeasible, false);
        }
        let mut progressed = false;
        for (k, g) in groups.iter_mut().enumerate() {
            if g.top() <= target {
                continue;
            }
            if target < g.base + g.bound {
                *self.lo = (*self.lo).max(target + 1);
                return (Asked::Infeasible, progressed);
            }
            let Some(solver) = &solvers[k] else {
                return (Asked::Unsearchable, progressed);
            };
            let limit = scale.saturating_mul(g.bufs.len() as u64);
            match solver.round(target - g.base, limit, budget, self.nodes) {
                Outcome::Found(off) => {
                    g.height = height(&g.bufs, &off);
                    g.off = off;
                    g.order = None;
                    progressed = true;
                }
                Outcome::Infeasible => {
                    g.bound = g.bound.max(target - g.base + 1);
                    *self.lo = (*self.lo).max(target + 1);
                    return (Asked::Infeasible, progressed);
                }
                Outcome::Limit => return (Asked::Limit, progressed),
                Outcome::Stopped => return (Asked::Stopped, progressed),
            }
        }
        (Asked::Fit, progressed)
    }
}

/// Seeds the exact search of each group above its bound with the group's best layout so far.
pub(super) fn seed(groups: &[Group], solvers: &mut [Option<Solver>]) {
    for (g, s) in groups.iter().zip(solvers.iter_mut()) {
        if let (Some(s), Some(ov)) = (s.as_mut(), &g.overlaps) {
            if g.height > g.bound {
                s.seed(&g.bufs, ov, &g.off);
            }
        }
    }
}

pub(super) fn arena_of(groups: &[Group], stacked_top: u64) -> u64 {
    groups
        .iter()
        .map(Group::top)
        .max()
        .unwrap_or(0)
        .max(stacked_top)
}
