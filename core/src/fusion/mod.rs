//! Fusion (docs/design.md §4): contract ops into regions ([`contract()`]), choose regions that cut the
//! kernel count without raising the planned peak ([`fuse()`]), and the memory-blind baseline that
//! reproduces Thunder's pass ([`thunder`]).

pub mod contract;
pub mod fuse;
pub mod thunder;

pub use contract::{contract, graph_spec, region_name, Contracted};
pub use fuse::{
    best_plan, fuse, fuse_with, run, FuseOptions, FusedGraph, Fusion, Planned, Planner, PLAN_METHOD,
};
pub use thunder::thunder_regions;
