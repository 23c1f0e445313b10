//! The least of a case split's alternatives: the loops the case-split bounds share. Every order
//! takes one of the alternatives, so the least of their cuts is a true bound; the bounds differ
//! in their splits and share how the alternatives are tried.
//!
//! - [`scan`] and [`least_case`], for [`super::last_of_set`] and [`super::either_side`]: an
//!   alternative is an op x run with `before` ops before it and `after` ops after it
//!   ([`CutNetwork::during_between`]). Candidates (sets, splits) are taken by an upper bound from
//!   known orders, largest first, and the scan stops once the next cannot beat the best bound so
//!   far. Within a candidate, the first flow is capped just above the best bound so far, which
//!   cheaply shows most candidates cannot beat it; once one alternative has, the others are
//!   computed at the candidate's own cap at once.
//! - [`least_free`], for [`super::first_free`] and [`super::join_free`]: which storage of a set
//!   B is freed first, and at which of its readers x ([`free_candidates`]), on a network that
//!   counts B live ([`live_network`]). The alternatives are taken by a cheap lower bound on
//!   their cut, smallest first, each flow capped at the least so far; the loop ends once the
//!   next cheap bound reaches that least (it is then the least) or the least is at or under the
//!   floor (the set cannot beat it).

use crate::sort::CompactSort;
use std::cmp::Reverse;

use crate::graph::Graph;
use crate::OpIx;

use super::cut::{during_in, CutNetwork};

/// An op and the ops of a downset to run before it (indexed by op): the least alternative's op
/// and its cut's minimising downset, a start for orders ([`super::first_free::prefixed`]).
pub type Hint = (OpIx, Vec<bool>);

/// What [`least_case`] found for one candidate.
#[derive(Debug)]
pub enum Case {
    /// `stop()` or an unfinished flow ended the work: the candidate gives nothing.
    Stopped,
    /// Some alternative is at or under the best bound: the candidate cannot beat it.
    NoBetter,
    /// The least alternative (`u64::MAX` when no order takes any), capped at the cap given,
    /// with its op and minimising downset when the flow reported one.
    Least(u64, Option<Hint>),
}

/// The least over `alts` (indices the caller maps to alternatives with `alternative`, which
/// fills `before` and `after` and returns the op) of the alternatives' cuts, each capped at
/// `cap` (at most the candidate's upper bound), stopping early once one is at most `best`.
/// Counts the flows in `flows`.
#[allow(clippy::too_many_arguments)]
pub fn least_case(
    g: &Graph,
    net: &CutNetwork,
    alts: &[usize],
    mut alternative: impl FnMut(usize, &mut Vec<OpIx>, &mut Vec<OpIx>) -> OpIx,
    best: u64,
    cap: u64,
    flows: &mut usize,
    stop: &dyn Fn() -> bool,
) -> Case {
    let cheap = best.saturating_add(1).min(cap);
    let mut least = u64::MAX;
    let mut least_hint: Option<Hint> = None;
    let mut probed = false;
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for &i in alts {
        if stop() {
            return Case::Stopped;
        }
        before.clear();
        after.clear();
        let x = alternative(i, &mut before, &mut after);
        let c = if probed { cap } else { cheap };
        let probe = net.during_between(g, x, &before, &after, c, stop);
        *flows += 1;
        if !probe.finished {
            return Case::Stopped;
        }
        if probe.bytes == u64::MAX {
            continue; // no order takes this alternative
        }
        if probe.bytes <= best {
            return Case::NoBetter;
        }
        let mut downset = probe.before;
        let exact = if probed || cheap >= cap {
            probe.bytes.min(cap)
        } else {
            *flows += 1;
            let exact = net.during_between(g, x, &before, &after, cap, stop);
            if !exact.finished {
                return Case::Stopped;
            }
            downset = exact.before;
            exact.bytes
        };
        probed = true;
        if exact < least {
            least = exact;
            least_hint = downset.map(|d| (x, d));
        }
    }
    Case::Least(least, least_hint)
}

/// The result of [`scan`]: the largest bound over its candidates (of type `C`) and the floor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scanned<C> {
    /// A true lower bound on every order's peak, at least the `floor` passed in.
    pub bytes: u64,
    /// The candidate that gave it (none when the floor was not beaten).
    pub by: Option<C>,
    /// False when `stop()` ended the scan before every candidate was tried.
    pub complete: bool,
    /// Maximum flows computed.
    pub flows: usize,
    /// For the candidate that gave the bound, the op of its least alternative and that cut's
    /// minimising downset, when the flow reported one: a start for orders
    /// ([`super::first_free::prefixed`]).
    pub hint: Option<Hint>,
}

/// The largest bound over `cands` and `floor`. `orders` are topological orders of `g` that
/// keep the network's arcs: the memory while each op runs in them bounds its cut, and
/// `upper_of(candidate, positions in an order, memory while each op runs in it)` bounds a
/// candidate from above, so candidates are taken by that, largest first, until the next cannot
/// beat the best. `least_of(candidate, each op's upper bound, the best so far, the cap for it,
/// flows)` tries one: its value may be capped at its upper bound (the least of its alternatives
/// is at most that) and at `cap` (a value no bound needs to exceed, the best known peak).
pub fn scan<C: Clone>(
    g: &Graph,
    cands: &[C],
    orders: &[&[OpIx]],
    floor: u64,
    cap: u64,
    upper_of: impl Fn(&C, &[usize], &[u64]) -> u64,
    mut least_of: impl FnMut(&C, &[u64], u64, u64, &mut usize) -> Case,
) -> Scanned<C> {
    let n = g.num_ops();
    let mut upper = vec![u64::MAX; n];
    let mut cand_upper = vec![u64::MAX; cands.len()];
    for order in orders {
        let during = during_in(g, order);
        let mut pos = vec![0usize; n];
        for (i, &v) in order.iter().enumerate() {
            pos[v as usize] = i;
        }
        for v in 0..n {
            upper[v] = upper[v].min(during[v]);
        }
        for (k, c) in cands.iter().enumerate() {
            cand_upper[k] = cand_upper[k].min(upper_of(c, &pos, &during));
        }
    }
    let mut by_upper: Vec<usize> = (0..cands.len()).collect();
    by_upper.sort_by_key_compact(|&k| Reverse(cand_upper[k]));
    let mut best = Scanned {
        bytes: floor,
        by: None,
        complete: true,
        flows: 0,
        hint: None,
    };
    for k in by_upper {
        if best.bytes >= cap || cand_upper[k] <= best.bytes {
            break;
        }
        let cap_k = cap.min(cand_upper[k]);
        match least_of(&cands[k], &upper, best.bytes, cap_k, &mut best.flows) {
            Case::Stopped => {
                best.complete = false;
                break;
            }
            Case::NoBetter => {}
            Case::Least(least, hint) => {
                if least != u64::MAX && least > best.bytes {
                    best.bytes = least;
                    best.by = Some(cands[k].clone());
                    best.hint = hint;
                }
            }
        }
    }
    best
}

/// The network of `h` with the extra `arcs` that counts every storage of `b` live (as if never
/// freed, [`CutNetwork::with_live`]), and that marking (indexed by tensor).
pub fn live_network(h: &Graph, arcs: &[(OpIx, OpIx)], b: &[u32]) -> (CutNetwork, Vec<bool>) {
    let mut live = vec![false; h.num_tensors()];
    for &s in b {
        live[s as usize] = true;
    }
    (CutNetwork::with_live(h, arcs, &live), live)
}

/// The alternatives of a first free of a storage of `b` (storages of `g`): (cheap lower bound
/// on the cut, reader x, storage s) for each reader x of each s but those `skip` names and those
/// another reader right after (a direct successor) must follow, which never free s (further
/// descendants are found by the flow's own check). The cheap bound is what `net`, the network
/// of `h` (`g` or a copy with the same ops and storages), counts on top of the downset and what
/// else x reads that it does not count already (`live` storages, those live from the start and
/// never freed). Unsorted.
pub fn free_candidates(
    g: &Graph,
    h: &Graph,
    net: &CutNetwork,
    b: &[u32],
    live: &[bool],
    skip: impl Fn(OpIx) -> bool,
) -> Vec<(u64, OpIx, u32)> {
    let mut cands = Vec::new();
    for &s in b {
        let readers = g.users(s);
        for &x in readers {
            if skip(x) || g.succs(x).iter().any(|y| readers.contains(y)) {
                continue;
            }
            let reads = h
                .reads(x)
                .iter()
                .filter(|&&t| {
                    let always = h.tensors()[t as usize].producer.is_none() && h.pinned(t);
                    !(live[t as usize] || always)
                })
                .map(|&t| h.size(t))
                .fold(0u64, u64::saturating_add);
            cands.push((net.constant_during(h, x).saturating_add(reads), x, s));
        }
    }
    cands
}

/// The least over the alternatives `cands` (cheap lower bound, op x, the caller's tag), taken
/// in their order, of `value(x, tag, x's cut, the least so far, flows)` (the cut itself, or
/// more that the caller knows of that moment; `None` when `stop()` cut it short), where x's cut
/// is on `net` (the network of `h`) with the ops `before_of(x, tag, before)` fills forced
/// before x, capped at the least so far; `before_of` returns false to skip the alternative.
/// Starts from `cap`; ends once the next cheap bound reaches the least, or the least is at or
/// under `floor`. With it, the op of the least value and its cut's minimising downset. `None`
/// when `stop()` cut it short; `flows` counts the maximum flows.
#[allow(clippy::too_many_arguments)]
pub fn least_free<T: Copy>(
    h: &Graph,
    net: &CutNetwork,
    cands: &[(u64, OpIx, T)],
    floor: u64,
    cap: u64,
    mut before_of: impl FnMut(OpIx, T, &mut Vec<OpIx>) -> bool,
    mut value: impl FnMut(OpIx, T, u64, u64, &mut usize) -> Option<u64>,
    stop: &dyn Fn() -> bool,
    flows: &mut usize,
) -> Option<(u64, Option<Hint>)> {
    let mut least = cap;
    let mut hint = None;
    let mut before: Vec<OpIx> = Vec::new();
    for &(cheap, x, tag) in cands {
        if cheap >= least || least <= floor {
            break;
        }
        if stop() {
            return None;
        }
        before.clear();
        if !before_of(x, tag, &mut before) {
            continue;
        }
        let c = net.during_between(h, x, &before, &[], least, stop);
        *flows += 1;
        if !c.finished {
            return None;
        }
        // u64::MAX: another op forced before x must follow it, so x never frees the storage.
        let v = value(x, tag, c.bytes, least, flows)?;
        if v < least {
            least = v;
            if let Some(d) = c.before {
                hint = Some((x, d));
            }
        }
    }
    Some((least, hint))
}

/// True when every order that runs `before` (and the ancestors of `x`) before `x` has freed a
/// storage of `b` other than those of `skip` by then: all of its readers are in that closure.
/// Then `x` is not the moment a first-free argument is about (the first free, or the second),
/// and it is skipped: the network, which counts all of B live, does not know it. `seen` and
/// `stack` are scratch.
pub fn frees_another(
    g: &Graph,
    x: OpIx,
    before: &[OpIx],
    b: &[u32],
    skip: &[u32],
    seen: &mut Vec<bool>,
    stack: &mut Vec<OpIx>,
) -> bool {
    seen.clear();
    seen.resize(g.num_ops(), false);
    stack.clear();
    stack.extend(g.preds(x).iter().chain(before).copied());
    while let Some(u) = stack.pop() {
        if !std::mem::replace(&mut seen[u as usize], true) {
            stack.extend(g.preds(u).iter().copied().filter(|&p| !seen[p as usize]));
        }
    }
    b.iter()
        .filter(|s| !skip.contains(s))
        .any(|&s| g.users(s).iter().all(|&u| seen[u as usize]))
}
