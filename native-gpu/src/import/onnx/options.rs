//! How to import ([`Options`]): what the caller adds to what the file says.

use std::collections::BTreeMap;

/// How to import.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Values for symbolic dimensions (`--assume-dim NAME=VALUE`).
    pub assume_dims: BTreeMap<String, u64>,
}
