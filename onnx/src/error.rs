//! What can go wrong importing an ONNX model. Every variant names the node or tensor at fault and
//! prints as one line; the CLI reports it with exit status 2 (docs/design.md §5).

use std::fmt;

/// A small initializer kept in an external file that could not be read (no reader, or the
/// reader failed): an import that then lacks a size blames it (code `external_data`).
#[derive(Clone, Debug, PartialEq)]
pub struct Unread {
    pub tensor: String,
    pub location: String,
    pub why: String,
}

/// The command that runs ONNX's own shape inference, printed as the fallback advice.
pub const INFER_SHAPES_CMD: &str = "python -c \"import onnx, sys; m = onnx.load(sys.argv[1]); \
     onnx.save(onnx.shape_inference.infer_shapes(m, strict_mode=True), sys.argv[2])\" \
     MODEL.onnx MODEL-shaped.onnx";

/// An import error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    #[error("not an ONNX model (protobuf decoding failed: {0})")]
    Decode(String),
    #[error("not an ONNX model: it has no graph")]
    NoGraph,
    #[error("not an ONNX model: its graph is empty")]
    EmptyGraph,
    #[error(
        "node {node:?} (op {op:?}) is in domain {domain:?}, which the model's opset_import does \
         not declare (declared: {declared})"
    )]
    UnknownDomain {
        node: String,
        op: String,
        domain: String,
        declared: String,
    },
    #[error("initializer #{index} has no name")]
    UnnamedInitializer { index: usize },
    #[error("tensor {tensor:?} is produced by two nodes, {first:?} and {second:?}")]
    ProducedTwice {
        tensor: String,
        first: String,
        second: String,
    },
    #[error("tensor {tensor:?} is an initializer and also produced by node {node:?}")]
    InitializerProduced { tensor: String, node: String },
    #[error(
        "node {node:?} reads tensor {tensor:?}, which no node produces and which is neither a \
         graph input nor an initializer"
    )]
    UnknownInput { node: String, tensor: String },
    #[error("graph output {tensor:?} is neither produced by a node nor a graph input")]
    UnknownOutput { tensor: String },
    #[error(
        "tensor {tensor:?}{whose} is {what}, not a tensor; its size cannot be known from the model"
    )]
    NotATensor {
        tensor: String,
        whose: Whose,
        what: &'static str,
    },
    #[error("tensor {tensor:?}{whose} {reason}")]
    ElemType {
        tensor: String,
        whose: Whose,
        reason: String,
    },
    #[error("tensor {tensor:?}{whose} has a negative dimension {dim} (axis {axis})")]
    NegativeDim {
        tensor: String,
        whose: Whose,
        dim: i64,
        axis: usize,
    },
    #[error("tensor {tensor:?} is too large (its size overflows 64 bits)")]
    TooLarge { tensor: String },
    #[error("node {node:?} (op {op:?}) is invalid: {reason}")]
    BadNode {
        node: String,
        op: String,
        reason: String,
    },
    #[error(
        "tensor {tensor:?}{whose}: the model gives it {given}, but node {node:?} computes {inferred}"
    )]
    Mismatch {
        tensor: String,
        whose: Whose,
        node: String,
        given: String,
        inferred: String,
    },
    #[error("{0}")]
    NoShape(Box<NoShape>),
    /// The core refused the graph the import made (a bug of the importer, never expected).
    #[error("the imported graph is invalid: {0}")]
    InvalidGraph(String),
    // Reordering (`reorder`): the order, then the file's layout.
    #[error("the order names op {op:?}, which is not a node of the model")]
    UnknownOp { op: String },
    #[error("the order names op {op:?} twice (a schedule that recomputes cannot be written into a model)")]
    RepeatedOp { op: String },
    #[error("the order does not name node {op:?}")]
    MissingOp { op: String },
    #[error(
        "node {node:?} reads tensor {tensor:?} before node {producer:?} produces it in the order"
    )]
    NotTopological {
        node: String,
        tensor: String,
        producer: String,
    },
    #[error("the model's bytes cannot be reordered in place: {0}")]
    Layout(String),
}

impl Error {
    /// A stable code per kind of error, the same on every surface (CLI, npm, Python); the
    /// codes the core uses for the same fault (`produced_twice`, `unknown_output`,
    /// `size_overflow`) are reused.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Decode(_) => "bad_onnx",
            Error::NoGraph => "no_graph",
            Error::EmptyGraph => "empty_graph",
            Error::UnknownDomain { .. } => "unknown_domain",
            Error::UnnamedInitializer { .. } => "unnamed_initializer",
            Error::ProducedTwice { .. } => "produced_twice",
            Error::InitializerProduced { .. } => "initializer_produced",
            Error::UnknownInput { .. } => "unknown_input",
            Error::UnknownOutput { .. } => "unknown_output",
            Error::NotATensor { .. } => "not_a_tensor",
            Error::ElemType { .. } => "bad_elem_type",
            Error::NegativeDim { .. } => "negative_dim",
            Error::TooLarge { .. } => "size_overflow",
            Error::BadNode { .. } => "invalid_node",
            Error::Mismatch { .. } => "shape_mismatch",
            Error::NoShape(n) if n.external().is_some() => "external_data",
            Error::NoShape(n) if matches!(n.problem, Problem::Symbolic { .. }) => "symbolic_dim",
            Error::NoShape(_) => "no_shape",
            Error::InvalidGraph(_) => "invalid_graph",
            Error::UnknownOp { .. } => "unknown_op",
            Error::RepeatedOp { .. } => "repeated_op",
            Error::MissingOp { .. } => "missing_op",
            Error::NotTopological { .. } => "not_topological",
            Error::Layout(_) => "bad_onnx",
        }
    }

    /// The node the error names, when it names one (by its op id in the graph).
    pub fn node(&self) -> Option<&str> {
        match self {
            Error::UnknownDomain { node, .. }
            | Error::InitializerProduced { node, .. }
            | Error::UnknownInput { node, .. }
            | Error::BadNode { node, .. }
            | Error::Mismatch { node, .. }
            | Error::NotTopological { node, .. } => Some(node),
            Error::UnknownOp { op } | Error::RepeatedOp { op } | Error::MissingOp { op } => {
                Some(op)
            }
            Error::ProducedTwice { second, .. } => Some(second),
            Error::NoShape(n) => n.cause.as_ref().map(|c| c.node.as_str()),
            _ => None,
        }
    }

    /// The tensor the error names, when it names one.
    pub fn tensor(&self) -> Option<&str> {
        match self {
            Error::ProducedTwice { tensor, .. }
            | Error::InitializerProduced { tensor, .. }
            | Error::UnknownInput { tensor, .. }
            | Error::UnknownOutput { tensor }
            | Error::NotATensor { tensor, .. }
            | Error::ElemType { tensor, .. }
            | Error::NegativeDim { tensor, .. }
            | Error::TooLarge { tensor }
            | Error::Mismatch { tensor, .. }
            | Error::NotTopological { tensor, .. } => Some(tensor),
            Error::NoShape(n) => Some(&n.tensor),
            _ => None,
        }
    }
}

/// Whose tensor it is, as a suffix for messages: ` (output of node "n")`, ` (a graph input)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Whose {
    Node(String),
    Initializer,
    GraphInput,
}

impl fmt::Display for Whose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Whose::Node(n) => write!(f, " (output of node {n:?})"),
            Whose::Initializer => f.write_str(" (an initializer)"),
            Whose::GraphInput => f.write_str(" (a graph input)"),
        }
    }
}

/// Tensors whose size is not known: the first one (in the graph's tensor order), why, and what
/// would fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct NoShape {
    pub tensor: String,
    pub whose: Whose,
    pub problem: Problem,
    /// The node whose outputs could not be inferred and that this tensor's shape depends on.
    pub cause: Option<Cause>,
    /// Every symbolic dimension without a value, sorted.
    pub symbolic: Vec<String>,
    /// How many tensors have an unknown shape or dimension.
    pub unknown: usize,
    /// How many of those depend on a node whose outputs could not be inferred (the others'
    /// dimensions are computed from symbolic ones).
    pub blamed: usize,
    /// Small initializers in external files that were not read (their elements might have
    /// given the missing sizes).
    pub unread: Vec<Unread>,
}

impl NoShape {
    /// Whether unread external data may be why: something could not be inferred, and some
    /// small initializer's elements were unknown for lack of a file.
    pub fn external(&self) -> Option<&Unread> {
        let inferred_short = self.blamed > 0 || !matches!(self.problem, Problem::Symbolic { .. });
        self.unread.first().filter(|_| inferred_short)
    }
}

/// What is missing in the first tensor's shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// Neither the model nor inference gives a shape.
    NoShape,
    /// A symbolic dimension no `--assume-dim` gives a value.
    Symbolic {
        name: String,
        axis: usize,
        dims: String,
    },
    /// One dimension is unknown.
    UnknownDim { axis: usize, dims: String },
}

/// A node whose output shapes peakorder could not infer, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Cause {
    pub node: String,
    pub op: String,
    pub reason: String,
}

impl fmt::Display for NoShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tensor {:?}{} ", self.tensor, self.whose)?;
        match &self.problem {
            Problem::NoShape => f.write_str("has no known shape")?,
            Problem::Symbolic { name, axis, dims } => write!(
                f,
                "has symbolic dimension {name:?} (axis {axis} of {dims}); give it a value with \
                 --assume-dim {name}=VALUE (or fix it in the model and run \
                 onnx.shape_inference.infer_shapes)"
            )?,
            Problem::UnknownDim { axis, dims } => {
                write!(f, "has an unknown dimension (axis {axis} of {dims})")?
            }
        }
        if let Some(c) = &self.cause {
            write!(
                f,
                "; peakorder cannot infer the output shapes of node {:?} (op {:?}): {}",
                c.node, c.op, c.reason
            )?;
        }
        let own_symbol = matches!(self.problem, Problem::Symbolic { .. });
        if self.symbolic.len() > 1
            || (!self.symbolic.is_empty() && (self.unknown > 0 || !own_symbol))
        {
            write!(
                f,
                "; symbolic dimensions without a value: {} (pass --assume-dim NAME=VALUE for each, \
                 or fix them in the model with onnx.tools.update_model_dims and run \
                 onnx.shape_inference.infer_shapes)",
                self.symbolic.join(", ")
            )?;
        }
        if self.unknown > 0 && (self.blamed > 0 || self.symbolic.is_empty()) {
            write!(
                f,
                "; {} tensor(s) have no complete shape; give their shapes in the model by running \
                 ONNX shape inference first: {INFER_SHAPES_CMD}",
                self.unknown
            )?;
        } else if self.unknown > 0 {
            write!(
                f,
                "; {} more tensor(s) have dimensions computed from them",
                self.unknown
            )?;
        }
        if let Some(u) = self.external() {
            write!(
                f,
                "; {} small initializer(s) keep their elements in external data that was not read                  (first: {:?} in {:?}: {}): import the model from its path, with its data files                  beside it (the CLI, or Python given a path)",
                self.unread.len(),
                u.tensor,
                u.location,
                u.why
            )?;
        }
        Ok(())
    }
}

impl From<NoShape> for Error {
    fn from(n: NoShape) -> Self {
        Error::NoShape(Box::new(n))
    }
}
