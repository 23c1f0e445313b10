//! Importers: real models as graph JSON (docs/design.md §2). Each reads a file format and returns
//! a `GraphSpec` that the core validates; no planning happens here.

pub mod onnx;
