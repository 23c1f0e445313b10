//! Generated graphs for tests and benchmarks: model-like families ([`models`]: U-Nets,
//! transformers, NAS cells, workflows, random layered and series-parallel graphs) and small random
//! families for the property tests ([`small`]), all drawing their choices from a [`Draw`].

pub mod chain_train;
pub mod draw;
pub mod models;
pub mod small;

pub use draw::{Draw, Rng, Tape};
pub use models::{
    nas_cells, random_layered, random_layered_from, random_sp, random_sp_from, transformer, unet,
    workflow, Net,
};
