//! peakorder-gpu: execute an order with real kernels and real allocations.

pub mod exec;
/// Importers (ONNX); in the library so that the fuzz target can reach them.
pub mod import;
