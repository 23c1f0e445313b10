//! A part ready to search: its state ([`Part`]), the tables of the dominance rules
//! ([`Dominance`]) and of the bounds ([`Bounds`]), built together once per part.

use crate::graph::Graph;
use crate::OpIx;

use super::bounds::Bounds;
use super::dominance::{Closure, Dominance};
use super::part::Part;

pub(super) struct Model {
    pub(super) part: Part,
    pub(super) dominance: Dominance,
    pub(super) bounds: Bounds,
}

impl Model {
    /// The part `order[a..b]` of a topological order; `pos` gives every op's position in it and
    /// `live0` the memory after `order[..a]`. Its bound tables stop growing once `stop()` is
    /// true (see [`Bounds::new`]); `None` when `stop()` is true before the part is set up.
    pub(super) fn new(
        g: &Graph,
        order: &[OpIx],
        pos: &[usize],
        (a, b): (usize, usize),
        live0: u64,
        stop: &dyn Fn() -> bool,
    ) -> Option<Model> {
        Model::of_ops(g, &order[a..b], pos, a, live0, stop)
    }

    /// A part made of `ops` (see [`Part::of_ops`]).
    pub(super) fn of_ops(
        g: &Graph,
        ops: &[OpIx],
        pos: &[usize],
        a: usize,
        live0: u64,
        stop: &dyn Fn() -> bool,
    ) -> Option<Model> {
        let (part, lineage) = Part::of_ops(g, ops, pos, a, live0, stop)?;
        Some(Model {
            dominance: Dominance::new(&part),
            bounds: Bounds::new(&part, &lineage, stop),
            part,
        })
    }

    /// The dominance rules on this part.
    pub(super) fn closure(&self) -> Closure<'_> {
        Closure {
            part: &self.part,
            tables: &self.dominance,
        }
    }

    /// A lower bound on the part's peak in every order (see [`Bounds::static_bound`]).
    pub(super) fn static_bound(&self) -> u64 {
        self.bounds.static_bound(&self.part)
    }
}
