//! ONNX element types (`TensorProto.DataType`) and their sizes.

pub const FLOAT: i32 = 1;
pub const UINT8: i32 = 2;
pub const INT8: i32 = 3;
pub const UINT16: i32 = 4;
pub const INT16: i32 = 5;
pub const INT32: i32 = 6;
pub const INT64: i32 = 7;
pub const STRING: i32 = 8;
pub const BOOL: i32 = 9;
pub const FLOAT16: i32 = 10;
pub const DOUBLE: i32 = 11;
pub const UINT32: i32 = 12;
pub const UINT64: i32 = 13;
pub const BFLOAT16: i32 = 16;

/// The element size of an ONNX data type, and its docs/design.md §2 name when it has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elem {
    /// A docs/design.md dtype: written as `shape` + `dtype`.
    Named(&'static str),
    /// Any other fixed-size type: written as `bytes` (packed sub-byte types round up to a byte),
    /// with the ONNX name and shape in `meta`.
    Bits(u64, &'static str),
}

impl Elem {
    pub fn bits(&self) -> u64 {
        match self {
            Elem::Named(d) => 8 * peakorder::dtype::Dtype::parse(d).map_or(1, |x| x.size()),
            Elem::Bits(b, _) => *b,
        }
    }
}

/// ONNX's `TensorProto.DataType`, mapped explicitly. String tensors have no fixed size; the error
/// text completes "tensor X ...".
pub fn elem(data_type: i32) -> Result<Elem, String> {
    use Elem::*;
    Ok(match data_type {
        1 => Named("f32"),
        2 => Named("u8"),
        3 => Named("i8"),
        4 => Bits(16, "uint16"),
        5 => Named("i16"),
        6 => Named("i32"),
        7 => Named("i64"),
        8 => return Err("has element type STRING, whose size is not known from its shape".into()),
        9 => Named("bool"),
        10 => Named("f16"),
        11 => Named("f64"),
        12 => Bits(32, "uint32"),
        13 => Bits(64, "uint64"),
        14 => Bits(64, "complex64"),
        15 => Bits(128, "complex128"),
        16 => Named("bf16"),
        17 => Named("f8e4m3"),
        18 => Bits(8, "float8e4m3fnuz"),
        19 => Named("f8e5m2"),
        20 => Bits(8, "float8e5m2fnuz"),
        21 => Bits(4, "uint4"),
        22 => Bits(4, "int4"),
        23 => Bits(4, "float4e2m1"),
        24 => Bits(8, "float8e8m0"),
        25 => Bits(2, "uint2"),
        26 => Bits(2, "int2"),
        0 => return Err("has an undefined element type".into()),
        n => {
            return Err(format!(
                "has ONNX element type {n}, which peakorder does not know"
            ))
        }
    })
}

/// Integer types, whose values shape computations fold exactly.
pub fn is_int(t: i32) -> bool {
    matches!(
        t,
        UINT8 | INT8 | UINT16 | INT16 | INT32 | INT64 | BOOL | UINT32 | UINT64
    )
}

/// Floating-point types folded as f64.
pub fn is_float(t: i32) -> bool {
    matches!(t, FLOAT | DOUBLE | FLOAT16 | BFLOAT16)
}

/// A short name for messages.
pub fn name(t: i32) -> String {
    match elem(t) {
        Ok(Elem::Named(n)) => n.to_string(),
        Ok(Elem::Bits(_, n)) => n.to_string(),
        Err(_) if t == STRING => "string".into(),
        Err(_) => format!("type {t}"),
    }
}
