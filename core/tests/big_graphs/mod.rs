//! Builders for the huge test graphs shared by `adversarial.rs` and `adversarial_planners.rs`.
#![allow(dead_code)]

use peakorder::format::{GraphSpec, OpSpec, TensorSpec};
use peakorder::Graph;

pub fn t(id: String, bytes: u64) -> TensorSpec {
    TensorSpec {
        id,
        bytes: Some(bytes),
        ..Default::default()
    }
}

pub fn op(id: String, inputs: Vec<String>, outputs: Vec<String>) -> OpSpec {
    OpSpec {
        id,
        inputs,
        outputs,
        ..Default::default()
    }
}

pub fn spec(tensors: Vec<TensorSpec>, ops: Vec<OpSpec>, outputs: Vec<String>) -> GraphSpec {
    GraphSpec {
        format: None,
        tensors,
        ops,
        outputs,
        meta: None,
    }
}

/// `n` ops in a line, 8-byte tensors.
pub fn chain(n: usize) -> Graph {
    let tensors = (0..=n).map(|i| t(format!("t{i}"), 8)).collect();
    let ops = (0..n)
        .map(|i| {
            op(
                format!("op{i}"),
                vec![format!("t{i}")],
                vec![format!("t{}", i + 1)],
            )
        })
        .collect();
    Graph::from_spec(spec(tensors, ops, vec![format!("t{n}")])).unwrap()
}
