//! `auto`'s candidates: the near-linear heuristics' orders, run one after another under the
//! clock and scored, and how long one pass over the graph takes (what each phase needs to set
//! up before it reads the clock again).

use crate::budget::Budget;
use crate::graph::Graph;
use crate::order::{alap, greedy, inductor, program, spize, xla};
use crate::simulate::peak_of;
use crate::sort::CompactSort;
use crate::OpIx;

/// About how long one heuristic takes before any has been timed: 0.4 µs per op (greedy on a
/// 100,000-op layered graph, 40 ms).
const HEURISTIC_MS_PER_OP: f64 = 4e-4;
/// [`HEURISTIC_MS_PER_OP`] in steps of [`crate::work`].
const HEURISTIC_UNITS_PER_OP: u64 = 100;
/// About how long a pass over the graph takes per op (see [`candidates_until`]).
const PASS_MS_PER_OP: f64 = 4e-5;

/// The heuristics in the order they run (cheapest and most often best first).
const RUNS: [fn(&Graph) -> Vec<OpIx>; 9] = [
    greedy::greedy_order,
    // Second: where it wins it wins by far (remat'd steps), and under a tight clock the last
    // heuristics are skipped.
    alap::alap_order,
    inductor::lpmf_order,
    xla::list_order,
    inductor::bfs_order,
    inductor::dfs_order,
    xla::dfs_order,
    xla::post_order,
    spize::spize_order,
];

/// Where the heuristics stand: the next to run, and how long the last one took (they all cost
/// about the same). A budget too short for them all runs the first few; a later epoch of
/// `auto` runs the rest (see [`Heuristics::more`]), so a longer budget runs the same ones
/// first, then more.
pub(super) struct Heuristics {
    next: usize,
    last_ms: f64,
    /// ... and on the clock's own, real deadline when it keeps one ([`crate::budget::Clock::left_ms`]):
    /// on `auto`'s work clock a heuristic's work is an estimate, and the real deadline must
    /// not be run past.
    last_real_ms: f64,
    /// One pass over the graph (see [`candidates_until`]).
    pass_ms: f64,
}

impl Heuristics {
    /// The heuristics not run yet that fit before `budget`'s deadline, scored (only valid
    /// orders), best first (none once all have run); `found` orders are known already (each
    /// costs two passes to score).
    pub(super) fn more(
        &mut self,
        g: &Graph,
        budget: &Budget,
        found: usize,
    ) -> Vec<(u64, Vec<OpIx>)> {
        let mut out = Vec::new();
        self.run_until(g, budget, found, &mut out);
        scored(g, out.into_iter())
    }

    /// Runs heuristics into `out` while the time left before `budget`'s deadline covers twice
    /// what the last one took and the passes to score and check what they found; the first one
    /// also when `out` is empty and `found` is 0 (there is always an order).
    fn run_until(&mut self, g: &Graph, budget: &Budget, found: usize, out: &mut Vec<Vec<OpIx>>) {
        while let Some(run) = RUNS.get(self.next) {
            let now = budget.clock.now_ms();
            let left = budget.deadline_ms.map_or(f64::INFINITY, |d| d - now);
            let after = (2 * (found + out.len()) + 7) as f64 * self.pass_ms;
            // Heuristics differ by up to twice (LPMF after greedy on 100,000 ops: 67 and 30 ms).
            let real_left = budget.clock.left_ms();
            if found + out.len() > 0
                && (budget.cancelled()
                    || short_of_own_deadline(budget, 2.0 * self.last_real_ms + after)
                    || left < 2.0 * self.last_ms + after)
            {
                break;
            }
            out.push(run(g));
            // What a heuristic costs, for `auto`'s work clock (`crate::work`): they run whole.
            crate::work::add(HEURISTIC_UNITS_PER_OP * g.num_ops() as u64);
            self.next += 1;
            self.last_ms = budget.clock.now_ms() - now;
            if let (Some(before), Some(after)) = (real_left, budget.clock.left_ms()) {
                self.last_real_ms = before - after;
            }
        }
    }
}

/// The program order when it is topological (one pass), then the heuristics while they fit
/// before `budget`'s deadline (see [`Heuristics::run_until`]); and where the heuristics stand.
fn candidates_until(g: &Graph, budget: &Budget) -> (Vec<Vec<OpIx>>, Heuristics) {
    let mut out = Vec::with_capacity(RUNS.len() + 1);
    let t = budget.clock.now_ms();
    if let Ok(p) = program::program_order(g) {
        out.push(p);
    }
    // One pass over the graph: each order found costs two more to score, and the plan five to
    // check and report. The program order's check is a light one; a simulation costs about
    // 40 ns per op (3.7 ms on a 100,000-op layered graph).
    let mut heuristics = Heuristics {
        next: 0,
        last_ms: g.num_ops() as f64 * HEURISTIC_MS_PER_OP,
        last_real_ms: g.num_ops() as f64 * HEURISTIC_MS_PER_OP,
        pass_ms: (budget.clock.now_ms() - t).max(g.num_ops() as f64 * PASS_MS_PER_OP),
    };
    heuristics.run_until(g, budget, 0, &mut out);
    (out, heuristics)
}

/// The near-linear heuristics' orders, as starting points for [`crate::order::local_search::improve_best`]: greedy, the
/// SP-ized series-parallel order, Inductor's LPMF, BFS and DFS, XLA's list, DFS and post-order,
/// the as-late-as-possible order, and the program order when it is topological. Their best is never above `inductor`'s or
/// `xla`'s choice, which pick among subsets of them. Each is O((V + E) log V) or better.
pub fn fallback_candidates(g: &Graph) -> Vec<(&'static str, Vec<OpIx>)> {
    let mut c = vec![
        ("greedy", greedy::greedy_order(g)),
        ("spize", spize::spize_order(g)),
        ("inductor-lpmf", inductor::lpmf_order(g)),
        ("inductor-bfs", inductor::bfs_order(g)),
        ("inductor-dfs", inductor::dfs_order(g)),
        ("xla-list", xla::list_order(g)),
        ("xla-dfs", xla::dfs_order(g)),
        ("xla-post-order", xla::post_order(g)),
        ("alap", alap::alap_order(g)),
    ];
    if let Ok(p) = program::program_order(g) {
        c.push(("program", p));
    }
    c
}

/// The heuristics' orders (only valid ones), best (lowest peak) first.
pub fn heuristic_candidates(g: &Graph) -> Vec<(u64, Vec<OpIx>)> {
    scored(g, fallback_candidates(g).into_iter().map(|c| c.1))
}

pub(super) fn scored(g: &Graph, orders: impl Iterator<Item = Vec<OpIx>>) -> Vec<(u64, Vec<OpIx>)> {
    let mut c: Vec<(u64, Vec<OpIx>)> = orders
        // A heuristic's order is checked before it is trusted as an incumbent.
        .filter(|o| g.check_order(o).is_ok())
        .map(|o| (peak_of(g, &o), o))
        .collect();
    c.sort_by_key_compact(|x| x.0);
    c
}

/// How long one pass over the graph (a simulation, a check) takes, measured while scoring the
/// heuristics' orders: each phase sets up with a few such passes before it reads the clock
/// again, so none starts without room for them (a 100,000-op graph needs a few milliseconds
/// per pass). Measured twice on `auto`'s work clock: on the clock itself (what the epochs'
/// deadlines are read on) and on the real one its deadline is (a pass's count of work is an
/// estimate: on the 100,000-op layered graph it was under half its real time, and a set-up
/// started with room for it ran 15 ms past a 100 ms budget).
pub(super) struct Pass {
    pub(super) work: f64,
    pub(super) real: f64,
}

impl Pass {
    /// A pass of `ms` on both clocks.
    #[cfg(test)]
    pub(super) fn of(ms: f64) -> Pass {
        Pass { work: ms, real: ms }
    }

    /// Whether `passes` passes end before `budget`'s deadline, and before its clock's own (if
    /// not, that one ends: [`crate::budget::Clock::end`]).
    pub(super) fn room(&self, budget: &Budget, passes: f64) -> bool {
        !short_of_own_deadline(budget, passes * self.real)
            && budget
                .deadline_ms
                .map_or(true, |d| d - budget.clock.now_ms() >= passes * self.work)
    }
}

/// Whether less than `ms` is left before `budget`'s clock's own deadline (a
/// [`crate::work::WorkClock`]'s real one), or it has come; if so the run ends there
/// ([`crate::budget::Clock::end`]) rather than going on with what is left by another path.
fn short_of_own_deadline(budget: &Budget, ms: f64) -> bool {
    let short = budget.clock.left_ms().is_some_and(|l| l <= 0.0 || l < ms);
    if short {
        budget.clock.end();
    }
    short
}

/// The heuristics' scored orders (see [`candidates_until`]), the time of one pass, and where
/// the heuristics stand.
pub(super) fn timed_candidates(
    g: &Graph,
    budget: &Budget,
) -> (Vec<(u64, Vec<OpIx>)>, Pass, Heuristics) {
    let (orders, heuristics) = candidates_until(g, budget);
    let n = orders.len().max(1) as f64;
    let (t, left) = (budget.clock.now_ms(), budget.clock.left_ms());
    let c = scored(g, orders.into_iter());
    // Scoring is a check and a simulation per order.
    let work = (budget.clock.now_ms() - t) / (2.0 * n);
    let real = match (left, budget.clock.left_ms()) {
        // (not once the deadline has come: the time left reads 0 from then on)
        (Some(a), Some(b)) if b > 0.0 => (a - b) / (2.0 * n),
        _ => work,
    };
    (c, Pass { work, real }, heuristics)
}
