//! peakorder-gpu: execute an order with real kernels and real allocations.

pub mod exec;
