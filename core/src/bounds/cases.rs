//! The least of a case split's alternatives: the step [`super::last_of_set`] and
//! [`super::either_side`] share. Every order takes one of the alternatives (an op x run with
//! `before` ops before it and `after` ops after it, [`CutNetwork::during_between`]), so the
//! least of their cuts is a true bound. The first flow is capped just above the best bound so
//! far, which cheaply shows most candidates cannot beat it; once one alternative has, the
//! others are computed at the candidate's own cap at once.

use crate::graph::Graph;
use crate::OpIx;

use super::cut::CutNetwork;
use super::first_free::Hint;

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
