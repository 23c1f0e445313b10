//! Importers: real models as graph JSON (docs/design.md §2). The ONNX importer is the crate
//! `peakorder-onnx` (no I/O, shared with the wasm module and Python); re-exported here so that
//! `peakorder_gpu::import::onnx` keeps naming it.

pub use peakorder_onnx as onnx;
