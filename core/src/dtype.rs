//! Element types of docs/design.md §2 and their sizes in bytes.

use serde::Serialize;

/// An element type a tensor may declare with `shape`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// 64-bit float.
    F64,
    /// 32-bit float.
    F32,
    /// 16-bit float (IEEE half).
    F16,
    /// 16-bit bfloat.
    Bf16,
    /// 8-bit float, 4 exponent bits.
    F8e4m3,
    /// 8-bit float, 5 exponent bits.
    F8e5m2,
    /// 64-bit signed integer.
    I64,
    /// 32-bit signed integer.
    I32,
    /// 16-bit signed integer.
    I16,
    /// 8-bit signed integer.
    I8,
    /// 8-bit unsigned integer.
    U8,
    /// Boolean, one byte.
    Bool,
}

/// Every accepted spelling, for error messages.
pub const DTYPE_NAMES: &str = "f64 f32 f16 bf16 f8e4m3 f8e5m2 i64 i32 i16 i8 u8 bool";

impl Dtype {
    /// Parses the docs/design.md spelling.
    pub fn parse(s: &str) -> Option<Dtype> {
        Some(match s {
            "f64" => Dtype::F64,
            "f32" => Dtype::F32,
            "f16" => Dtype::F16,
            "bf16" => Dtype::Bf16,
            "f8e4m3" => Dtype::F8e4m3,
            "f8e5m2" => Dtype::F8e5m2,
            "i64" => Dtype::I64,
            "i32" => Dtype::I32,
            "i16" => Dtype::I16,
            "i8" => Dtype::I8,
            "u8" => Dtype::U8,
            "bool" => Dtype::Bool,
            _ => return None,
        })
    }

    /// The docs/design.md spelling.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F64 => "f64",
            Dtype::F32 => "f32",
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::F8e4m3 => "f8e4m3",
            Dtype::F8e5m2 => "f8e5m2",
            Dtype::I64 => "i64",
            Dtype::I32 => "i32",
            Dtype::I16 => "i16",
            Dtype::I8 => "i8",
            Dtype::U8 => "u8",
            Dtype::Bool => "bool",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            Dtype::F64 | Dtype::I64 => 8,
            Dtype::F32 | Dtype::I32 => 4,
            Dtype::F16 | Dtype::Bf16 | Dtype::I16 => 2,
            Dtype::F8e4m3 | Dtype::F8e5m2 | Dtype::I8 | Dtype::U8 | Dtype::Bool => 1,
        }
    }
}
