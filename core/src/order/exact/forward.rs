//! The forward search of one part: A* with `max` in place of `+` over the downsets of the part
//! (see the module docs of [`super`]), from the empty set to all ops, each state closed under
//! the dominance rules ([`super::dominance`]), bounded by [`super::bounds`], improved now and
//! then by finishing a popped state greedily, and run side by side with the backward search
//! ([`super::backward`]): whichever direction runs out of states under the best peak first
//! proves it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hashbrown::HashTable;

use crate::budget::{Budget, Progress};
use crate::OpIx;

use super::backward::{Backward, Status};
use super::bits::{has, hash_words, put, BitMatrix};
use super::model::Model;
use super::pairs::MAX_PAIR_OPS;
use super::part::{Part, NIL};

/// Most backward expansions per forward one (see [`search`]). Measured on the 60-op
/// families (`benches/states.rs`, 200 seeds each): the slowest seed took 72 ms at 1, 58 at 4
/// and 8, 58 at 16; all seeds together 1.72 s, 1.45 s, 1.39 s, 1.43 s.
const BACK_PER_FORWARD: usize = 8;

/// Parts of at least this many ops read the clock before each child of an expansion.
const CHECK_EACH_CHILD_OPS: usize = 128;

/// The budget of the whole search, shared by the parts and both directions: states counted,
/// the clock read now and then, progress reported.
pub(super) struct Ctx<'b, 'a> {
    /// States expanded so far (both directions, every part).
    pub(super) states: u64,
    pub(super) budget: &'b Budget<'a>,
    /// The budget ran out.
    pub(super) stopped: bool,
    /// The best peak known for the whole graph, for progress reports.
    pub(super) best_peak: u64,
    /// Largest best peak among the parts other than the one being searched.
    pub(super) others: u64,
    /// Expansions between clock reads (fewer for large parts, whose expansions cost more): at
    /// 60 ops every 8; from 512 ops on, every one (an expansion of a 446-op part can take
    /// milliseconds).
    pub(super) check_every: u64,
    /// Expansions since the clock was last read, and clock reads so far.
    pub(super) since_check: u64,
    pub(super) checks: u64,
}

impl Ctx<'_, '_> {
    /// Counts one expansion (forward or backward) without looking at the budget: the next
    /// [`Ctx::tick`] does.
    pub(super) fn count(&mut self) {
        crate::work::add(64);
        self.states += 1;
        self.since_check += 1;
    }

    /// Counts one expansion; true when the search must stop.
    pub(super) fn tick(&mut self, bytes: u64, lb: u64) -> bool {
        self.count();
        if self.stopped {
            return true;
        }
        if self.states >= self.budget.max_states || bytes > self.budget.max_memory_bytes {
            self.stopped = true;
        } else if self.since_check >= self.check_every || self.checks == 0 {
            self.since_check = 0;
            self.checks += 1;
            if self.budget.expired() {
                self.stopped = true;
            }
            if self.checks % 16 == 1 {
                self.budget.report(&Progress {
                    states: self.states,
                    best_peak: self.best_peak,
                    lower_bound: lb,
                });
            }
        }
        self.stopped
    }
}

/// What the search of one part found.
pub(super) struct PartResult {
    pub(super) order: Vec<OpIx>,
    pub(super) peak: u64,
    pub(super) lower_bound: u64,
    pub(super) optimal: bool,
}

/// An open state: (f, ops still to run, live bytes, cost, state id), smallest first.
type OpenEntry = (u64, u32, u64, u64, u32);

#[derive(Clone, Copy)]
struct Rec {
    /// The A* cost: the peak of the best path found to this state.
    cost: u64,
    /// The admissible bound `h` of this state.
    h: u64,
    /// Whether `h` includes the pair bound (computed only when the state is first popped: most
    /// states generated are never popped).
    paired: bool,
    /// The pair that gave `h` (or a pair to try first: the parent's), NIL if none.
    witness: u32,
    live: u64,
    parent: u32,
    log_at: u32,
    log_len: u32,
}

/// Searches the part of `model` from the incumbent `incumbent` (its peak `ub`), under `floor`
/// (a lower bound on the whole graph's peak): the best order found, with a proof when the
/// search finished.
pub(super) fn search(
    model: &Model,
    ctx: &mut Ctx,
    incumbent: &[OpIx],
    ub: u64,
    floor: u64,
) -> PartResult {
    let (part, bounds, closure) = (&model.part, &model.bounds, model.closure());
    let m = part.m();
    let w = part.words;
    let mut keys = BitMatrix::with_width(w);
    let mut recs: Vec<Rec> = Vec::new();
    let mut log: Vec<u32> = Vec::new();
    let mut table: HashTable<u32> = HashTable::new();
    // Smallest f first; among equals the deepest state, then the one with least live memory,
    // so that plateaus of equal f are searched depth-first.
    let mut open: BinaryHeap<Reverse<OpenEntry>> = BinaryHeap::new();
    let full_count = m as u32;
    // Key words and record per state; the hash table and open entries apart.
    let bytes_per_state = (w * 8 + std::mem::size_of::<Rec>()) as u64;
    let bytes_per_open = std::mem::size_of::<OpenEntry>() as u64;
    // The best order known (the incumbent, improved by greedy completions of popped states)
    // and its peak: only strictly better paths are searched.
    let mut best: (Vec<OpIx>, u64) = (incumbent.to_vec(), ub);
    let mut ub = ub;

    // The root, closed under dominance. Any lower bound on the final peak may serve as the
    // closure's limit: an op run early under it never raises the peak.
    let mut scratch = vec![0u64; part.st.words];
    let mut set = vec![0u64; w];
    let mut live = part.live0;
    let mut cost0 = part.live0.max(floor);
    let limit0 = cost0.max(bounds.h(part, &set, live, &mut scratch, ub));
    let mut ready = vec![0u64; w];
    part.ready_mask(&set, &mut ready);
    cost0 = cost0.max(closure.run(&mut set, &mut ready, &mut live, &mut log, limit0));
    let root_h = bounds.h(part, &set, live, &mut scratch, ub);
    keys.push(&set);
    recs.push(Rec {
        cost: cost0,
        h: root_h,
        paired: true,
        witness: NIL,
        live,
        parent: NIL,
        log_at: 0,
        log_len: log.len() as u32,
    });
    table.insert_unique(hash_words(&set), 0, |&id| hash_words(keys.row(id as usize)));
    let count = |s: &[u64]| s.iter().map(|x| x.count_ones()).sum::<u32>();
    let f0 = cost0.max(root_h);
    open.push(Reverse((f0, full_count - count(&set), live, cost0, 0)));
    let mut lb = f0.min(ub);
    let mut goal: Option<u32> = None;
    let mut child = vec![0u64; w];
    let mut child_ready = vec![0u64; w];
    let mut expanded = 0u64;
    // Parts over MAX_PAIR_OPS ops search forward only: a backward expansion costs
    // O(ops²) there (every op of the set may be removable, each tried by the closure).
    let mut back = (2..=MAX_PAIR_OPS)
        .contains(&m)
        .then(|| Backward::new(model, cost0));
    let mut back_done = false;
    while let Some(&Reverse((f, _, _, cost, id))) = open.peek() {
        if f >= ub {
            break; // nothing open can beat the best order
        }
        lb = lb.max(f);
        if ctx.stopped {
            break; // cut short in the middle of an expansion (below): `lb` still holds
        }
        if recs[id as usize].cost < cost {
            open.pop();
            continue; // stale: reached again with a lower peak
        }
        if count(keys.row(id as usize)) == full_count {
            goal = Some(id);
            break;
        }
        if !recs[id as usize].paired {
            // Its pair bound, now that the state is worth it; back in the queue if it rises.
            let r = &mut recs[id as usize];
            set.copy_from_slice(keys.row(id as usize));
            part.live_set(&set, &mut scratch);
            // Only pairs that beat f matter now; a result above f is a pair's own bound.
            let (pb, witness) = bounds.pair_bound(part, &set, &scratch, f, ub, r.witness);
            if pb > f {
                r.h = r.h.max(pb);
                r.witness = witness;
            }

            r.paired = true;
            if r.h > f {
                let e = (r.h, full_count - count(&set), r.live, r.cost, id);
                open.pop();
                if r.h < ub {
                    open.push(Reverse(e));
                }
                continue;
            }
        }
        // The hash table is counted three times over: growing it allocates a table twice
        // its size while the old one still holds every id, and the cap must hold then too.
        let bytes = recs.len() as u64 * bytes_per_state
            + log.len() as u64 * 4
            + open.len() as u64 * bytes_per_open
            + 3 * table.allocation_size() as u64
            + back.as_ref().map_or(0, |b| b.bytes());
        if ctx.tick(bytes, lb) {
            break;
        }
        // Whichever side runs out first proves. The backward side goes while it has no
        // more open states than the forward one (Pohl's cardinality rule), up to
        // BACK_PER_FORWARD expansions per forward one: its expansions cost less, and on
        // the hard families it is the side that finishes.
        for _ in 0..BACK_PER_FORWARD {
            let Some(b) = back.as_mut().filter(|b| b.open_len() <= open.len()) else {
                break;
            };
            ctx.count();
            match b.step(model, ub) {
                Status::Open => {}
                Status::Exhausted => {
                    back_done = true;
                    break;
                }
                Status::Found(order, peak) => {
                    best = (order.iter().map(|&i| part.ops[i as usize]).collect(), peak);
                    ub = peak;
                    back_done = true;
                    break;
                }
            }
        }
        if back_done {
            break;
        }
        open.pop();
        let rec = recs[id as usize];
        set.copy_from_slice(keys.row(id as usize));
        // Now and then, finish this state greedily: a better incumbent prunes more.
        if expanded % 64 == 0 {
            let (rest, peak) = complete(part, &set, rec.live, rec.cost);
            if peak < ub {
                let mut o = path(part, &recs, &log, id);
                o.extend(rest.iter().map(|&i| part.ops[i as usize]));
                best = (o, peak);
                ub = peak;
                ctx.best_peak = ctx.others.max(ub);
                if f >= ub {
                    continue;
                }
            }
        }
        expanded += 1;
        part.ready_mask(&set, &mut ready);
        for i in (0..m as u32).filter(|&i| has(&ready, i)) {
            // On large parts one child's bound can take a millisecond: the clock is read per
            // child. Stopping here leaves `lb` true: every child's f is at least f.
            if m >= CHECK_EACH_CHILD_OPS && ctx.budget.expired() {
                ctx.stopped = true;
                break;
            }
            let d = rec.live + part.step[i as usize];
            let child_cost = rec.cost.max(d);
            if child_cost >= ub {
                continue;
            }
            // A child's set, closure and bound read the part's ops.
            crate::work::add(4 * m as u64);
            child.copy_from_slice(&set);
            child_ready.copy_from_slice(&ready);
            let mut live = rec.live + part.alloc[i as usize] - part.frees(&set, i);
            part.mark_run(&mut child, &mut child_ready, i);
            let log_at = log.len();
            log.push(i);
            // `f` bounds every completion through the parent, so through the child too.
            let limit = child_cost.max(f);
            let child_cost = child_cost.max(closure.run(
                &mut child,
                &mut child_ready,
                &mut live,
                &mut log,
                limit,
            ));
            if child_cost >= ub {
                log.truncate(log_at);
                continue;
            }
            // Memory after a set depends only on the set, and so does `h`: a state seen
            // before keeps its bound and is worth revisiting only with a lower peak.
            let hsh = hash_words(&child);
            let found = table
                .find(hsh, |&c| keys.row(c as usize) == &child[..])
                .copied();
            let mut new_rec = Rec {
                cost: child_cost,
                h: 0,
                paired: false,
                witness: rec.witness,
                live,
                parent: id,
                log_at: log_at as u32,
                log_len: (log.len() - log_at) as u32,
            };
            let (cid, fc) = match found {
                Some(c) if recs[c as usize].cost <= child_cost => {
                    log.truncate(log_at);
                    continue;
                }
                Some(c) => {
                    // Bounds every completion through the parent, so through the child.
                    let fc = child_cost.max(recs[c as usize].h).max(f);
                    if fc >= ub {
                        log.truncate(log_at);
                        continue;
                    }
                    new_rec.h = recs[c as usize].h;
                    new_rec.paired = recs[c as usize].paired;
                    new_rec.witness = recs[c as usize].witness;
                    recs[c as usize] = new_rec;
                    (c, fc)
                }
                None => {
                    new_rec.h = bounds.h_single(part, &child, &child_ready, live, &mut scratch, ub);
                    let c = recs.len() as u32;
                    keys.push(&child);
                    recs.push(new_rec);
                    table.insert_unique(hsh, c, |&x| hash_words(keys.row(x as usize)));
                    let fc = child_cost.max(new_rec.h).max(f);
                    if fc >= ub {
                        continue;
                    }
                    (c, fc)
                }
            };
            open.push(Reverse((
                fc,
                full_count - count(&child),
                live,
                child_cost,
                cid,
            )));
        }
    }
    if let Some(id) = goal {
        // Popped with the least f of all open states: optimal.
        let peak = recs[id as usize].cost;
        return PartResult {
            order: path(part, &recs, &log, id),
            peak,
            lower_bound: peak,
            optimal: true,
        };
    }
    if back_done || !ctx.stopped {
        // Every path strictly better than the best order was ruled out (forward or
        // backward), or the backward search found an optimal order.
        return PartResult {
            order: best.0,
            peak: ub,
            lower_bound: ub,
            optimal: true,
        };
    }
    // Out of budget: the best order found, and the least open f as a bound.
    let lb = lb.max(back.map_or(0, |b| b.lower_bound));
    PartResult {
        order: best.0,
        peak: best.1,
        lower_bound: lb.min(best.1),
        optimal: lb >= best.1,
    }
}

/// Completes `set` greedily, returning the ops and the peak. Two rules run and the better
/// wins: least net growth first, and least new peak first (then least growth).
fn complete(part: &Part, set: &[u64], live: u64, peak: u64) -> (Vec<u32>, u64) {
    let a = complete_by(part, set, live, peak, false);
    let b = complete_by(part, set, live, peak, true);
    if b.1 < a.1 {
        b
    } else {
        a
    }
}

fn complete_by(
    part: &Part,
    set: &[u64],
    mut live: u64,
    mut peak: u64,
    peak_first: bool,
) -> (Vec<u32>, u64) {
    let m = part.m() as u32;
    let mut set = set.to_vec();
    let mut out = Vec::new();
    loop {
        let mut best: Option<(u64, i128, u64, u32)> = None;
        for i in 0..m {
            if !part.ready(&set, i) {
                continue;
            }
            let net = part.alloc[i as usize] as i128 - part.frees(&set, i) as i128;
            let during = live + part.step[i as usize];
            let k = if peak_first {
                (peak.max(during), net, during, i)
            } else {
                (0, net, part.step[i as usize], i)
            };
            if best.map_or(true, |b| k < b) {
                best = Some(k);
            }
        }
        let Some((_, _, _, i)) = best else { break };
        peak = peak.max(live + part.step[i as usize]);
        live = live + part.alloc[i as usize] - part.frees(&set, i);
        put(&mut set, i);
        out.push(i);
    }
    (out, peak)
}

/// The op sequence that leads to state `id`.
fn path(part: &Part, recs: &[Rec], log: &[u32], mut id: u32) -> Vec<OpIx> {
    let mut chunks = Vec::new();
    while id != NIL {
        let r = recs[id as usize];
        chunks.push(&log[r.log_at as usize..(r.log_at + r.log_len) as usize]);
        id = r.parent;
    }
    chunks
        .into_iter()
        .rev()
        .flatten()
        .map(|&i| part.ops[i as usize])
        .collect()
}
