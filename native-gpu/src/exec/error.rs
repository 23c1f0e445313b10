//! What can stop an execution ([`ExecError`]), for every backend and the driver loop.

use std::fmt;

use peakorder::error::show_id;

/// Everything that can stop an execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecError {
    /// The graph or order cannot be executed as given (refused before anything runs).
    BadInput(String),
    /// An op's kind does not fit its tensors (refused before anything runs).
    Unsupported { op: String, reason: String },
    /// No CUDA driver library, or no CUDA device.
    NoCuda(String),
    /// The device ran out of memory; everything allocated was freed.
    OutOfMemory {
        what: String,
        bytes: u64,
        detail: String,
    },
    /// Any other CUDA failure (library, compilation, launch).
    Cuda(String),
    /// The backend broke the driver's contract (a bug).
    Internal(String),
}

impl ExecError {
    /// True for errors in the user's input (exit code 2), as opposed to the machine (exit code 1).
    pub fn is_input_error(&self) -> bool {
        matches!(self, ExecError::BadInput(_) | ExecError::Unsupported { .. })
    }
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::BadInput(m) => f.write_str(m),
            ExecError::Unsupported { op, reason } => {
                write!(f, "cannot execute op {}: {reason}", show_id(op))
            }
            ExecError::NoCuda(m) => f.write_str(m),
            ExecError::OutOfMemory {
                what,
                bytes,
                detail,
            } => write!(
                f,
                "the device ran out of memory allocating {bytes} bytes for {what} ({detail}); \
                 everything allocated was freed"
            ),
            ExecError::Cuda(m) => write!(f, "CUDA error: {m}"),
            ExecError::Internal(m) => write!(f, "internal executor error: {m}"),
        }
    }
}

impl std::error::Error for ExecError {}

impl From<peakorder::Error> for ExecError {
    fn from(e: peakorder::Error) -> Self {
        ExecError::BadInput(e.to_string())
    }
}
