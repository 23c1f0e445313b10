//! How to import ([`Options`]): what the caller adds to what the file says.

use std::collections::BTreeMap;
use std::fmt;

/// Reads a tensor's external data (ONNX `data_location: EXTERNAL`): this crate does no I/O, so
/// a caller with a file system (the CLI, Python given a path) passes one; without one, such data
/// is never read.
pub trait ExternalData {
    /// `length` bytes (all to the end when `None`) from `offset` in the file `location`
    /// (relative to the model's folder, as ONNX writes it); an error is one line naming it.
    fn read(&self, location: &str, offset: u64, length: Option<u64>) -> Result<Vec<u8>, String>;
}

/// How to import.
#[derive(Clone, Default)]
pub struct Options<'a> {
    /// Values for symbolic dimensions (`--assume-dim NAME=VALUE`).
    pub assume_dims: BTreeMap<String, u64>,
    /// Reads external data. Only small tensors (shape computations) are ever read; weights are
    /// sized from their dims. Without it, an import whose sizes need such a tensor fails with
    /// code `external_data` naming it.
    pub external_data: Option<&'a dyn ExternalData>,
}

impl fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("assume_dims", &self.assume_dims)
            .field("external_data", &self.external_data.is_some())
            .finish()
    }
}
