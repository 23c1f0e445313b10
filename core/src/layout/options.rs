//! What a layout is asked for: the method and its options.

use std::fmt;
use std::str::FromStr;

use super::best_fit;
use crate::budget::{Budget, Clock};
use crate::error::Error;
use crate::plan::Hooks;

/// A layout method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutMethod {
    /// Independent groups, the greedy portfolio, the exact search on what is left within the
    /// budget, then local improvement.
    Auto,
    /// As `auto`, with the whole budget for the exact search and no local improvement.
    Exact,
    /// Best fit, largest first (TFLite's `ArenaPlanner`, XLA's spatial order).
    Size,
    /// Best fit, longest lifetime first (XLA's temporal order).
    Duration,
    /// Best fit, most overlaps first (TVM USMP `greedy_by_conflicts`).
    Conflicts,
    /// Best fit, largest size × lifetime first.
    Area,
    /// Best fit in allocation order (ONNX Runtime's pattern planner, free-list allocators).
    Online,
    /// Hill climbing on the best greedy order (TVM USMP `hill_climb`).
    Local,
}

impl LayoutMethod {
    /// Every method, in the order the docs list them.
    pub const ALL: &'static [LayoutMethod] = &[
        LayoutMethod::Auto,
        LayoutMethod::Exact,
        LayoutMethod::Size,
        LayoutMethod::Duration,
        LayoutMethod::Conflicts,
        LayoutMethod::Area,
        LayoutMethod::Online,
        LayoutMethod::Local,
    ];

    /// The name used on the command line and in layouts.
    pub fn name(self) -> &'static str {
        match self {
            LayoutMethod::Auto => "auto",
            LayoutMethod::Exact => "exact",
            LayoutMethod::Size => "size",
            LayoutMethod::Duration => "duration",
            LayoutMethod::Conflicts => "conflicts",
            LayoutMethod::Area => "area",
            LayoutMethod::Online => "online",
            LayoutMethod::Local => "local",
        }
    }

    /// The best-fit order of a single greedy method.
    pub(crate) fn rank(self) -> Option<best_fit::Rank> {
        match self {
            LayoutMethod::Size => Some(best_fit::Rank::Size),
            LayoutMethod::Duration => Some(best_fit::Rank::Duration),
            LayoutMethod::Conflicts => Some(best_fit::Rank::Conflicts),
            LayoutMethod::Area => Some(best_fit::Rank::Area),
            _ => None,
        }
    }
}

impl fmt::Display for LayoutMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LayoutMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<LayoutMethod, Error> {
        LayoutMethod::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| Error::UnknownMethod {
                name: s.to_string(),
                known: LayoutMethod::ALL
                    .iter()
                    .map(|m| m.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// Options of a layout.
#[derive(Clone, Debug)]
pub struct LayoutOptions {
    /// The method.
    pub method: LayoutMethod,
    /// Every size is rounded up to a multiple of this, and so is every offset (at least 1).
    pub align: u64,
    /// Time the layout may take, in milliseconds (needs a real [`Clock`]).
    pub budget_ms: Option<f64>,
    /// Most exact-search nodes (and local-search rounds).
    pub max_states: u64,
    /// Stop at the first layout whose arena fits this many bytes.
    pub capacity: Option<u64>,
}

/// Default time budget of a layout.
pub const DEFAULT_BUDGET_MS: f64 = 1000.0;

impl Default for LayoutOptions {
    fn default() -> Self {
        LayoutOptions {
            method: LayoutMethod::Auto,
            align: 1,
            budget_ms: Some(DEFAULT_BUDGET_MS),
            max_states: 50_000_000,
            capacity: None,
        }
    }
}

impl LayoutOptions {
    pub(crate) fn budget<'a>(&self, clock: &'a dyn Clock, hooks: &Hooks<'a>) -> Budget<'a> {
        let mut b = Budget::new(
            clock,
            self.budget_ms.map(|ms| clock.now_ms() + ms),
            self.max_states,
        );
        b.cancel = hooks.cancel;
        b
    }
}
