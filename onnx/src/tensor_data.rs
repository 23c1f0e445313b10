//! The elements of a small `TensorProto` (an initializer or a `Constant`'s value), for the shape
//! computations that read them. Large tensors (weights) are never decoded: see `proto`.

use super::dtype::*;
use super::infer::ty::Num;
use super::options::ExternalData;
use super::proto::{
    Chunk, TensorProto, DOUBLE_DATA, FLOAT_DATA, INT32_DATA, INT64_DATA, UINT64_DATA,
};

/// What reading a small initializer gave.
pub enum Read {
    Elements(Vec<Num>),
    /// Too large to fold, or data that does not match its dims.
    Nothing,
    /// External data that could not be read: its `location` and why.
    Unread {
        location: String,
        why: String,
    },
}

/// The elements of `t` as `elements` reads them, and of a tensor kept in an external file
/// through `ext` (only when it is small enough to fold: weights are never read).
pub fn read(t: &TensorProto, limit: usize, ext: Option<&dyn ExternalData>) -> Read {
    if t.data_location != Some(1) {
        return elements(t, limit).map_or(Read::Nothing, Read::Elements);
    }
    let mut n: usize = 1;
    for &d in &t.dims {
        match usize::try_from(d).ok().and_then(|d| n.checked_mul(d)) {
            Some(m) => n = m,
            None => return Read::Nothing,
        }
    }
    if n > limit {
        return Read::Nothing;
    }
    let entry = |k: &str| {
        t.external_data
            .iter()
            .find(|e| e.key.as_deref() == Some(k))
            .and_then(|e| e.value.clone())
    };
    let location = entry("location").unwrap_or_default();
    let number = |k: &str| entry(k).and_then(|v| v.trim().parse::<u64>().ok());
    let Some(ext) = ext else {
        return Read::Unread {
            location,
            why: "this import reads no files".into(),
        };
    };
    match ext.read(&location, number("offset").unwrap_or(0), number("length")) {
        Ok(raw) => {
            let mut inline = t.clone();
            inline.data_location = None;
            inline.external_data.clear();
            inline.raw_data = Some(raw.into());
            elements(&inline, limit).map_or(Read::Nothing, Read::Elements)
        }
        Err(why) => Read::Unread { location, why },
    }
}

/// The elements of `t` when it has at most `limit` of them and they are stored in the model (not
/// in an external file); `None` otherwise, or when the data does not match the dims.
pub fn elements(t: &TensorProto, limit: usize) -> Option<Vec<Num>> {
    if t.data_location == Some(1) {
        return None;
    }
    let mut n: usize = 1;
    for &d in &t.dims {
        n = n.checked_mul(usize::try_from(d).ok()?)?;
    }
    if n > limit {
        return None;
    }
    let et = t.data_type?;
    let out = match &t.raw_data {
        Some(raw) if !raw.is_empty() || n == 0 => from_raw(et, raw, n)?,
        _ => from_typed(et, &t.typed, n)?,
    };
    (out.len() == n).then_some(out)
}

fn from_raw(et: i32, raw: &[u8], n: usize) -> Option<Vec<Num>> {
    let width = match et {
        INT8 | UINT8 | BOOL => 1,
        INT16 | UINT16 | FLOAT16 | BFLOAT16 => 2,
        INT32 | UINT32 | FLOAT => 4,
        INT64 | UINT64 | DOUBLE => 8,
        _ => return None,
    };
    if raw.len() != n.checked_mul(width)? {
        return None;
    }
    Some(
        raw.chunks_exact(width)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..width].copy_from_slice(c);
                let u = u64::from_le_bytes(b);
                match et {
                    INT8 => Num::Int(u as u8 as i8 as i64),
                    UINT8 | BOOL => Num::Int(u as i64),
                    INT16 => Num::Int(u as u16 as i16 as i64),
                    UINT16 => Num::Int(u as i64),
                    INT32 => Num::Int(u as u32 as i32 as i64),
                    UINT32 => Num::Int(u as i64),
                    INT64 => Num::Int(u as i64),
                    UINT64 => i64::try_from(u).map_or(Num::Unknown, Num::Int),
                    FLOAT => Num::Float(f32::from_bits(u as u32) as f64),
                    DOUBLE => Num::Float(f64::from_bits(u)),
                    FLOAT16 => Num::Float(f16_to_f64(u as u16)),
                    _ => Num::Float(f32::from_bits((u as u32) << 16) as f64),
                }
            })
            .collect(),
    )
}

fn from_typed(et: i32, typed: &[(u32, Chunk)], n: usize) -> Option<Vec<Num>> {
    let field = match et {
        FLOAT => FLOAT_DATA,
        INT32 | INT16 | INT8 | UINT16 | UINT8 | BOOL | FLOAT16 | BFLOAT16 => INT32_DATA,
        INT64 => INT64_DATA,
        DOUBLE => DOUBLE_DATA,
        UINT32 | UINT64 => UINT64_DATA,
        _ => return None,
    };
    let mut raw: Vec<u64> = Vec::with_capacity(n.min(1 << 16));
    for (tag, c) in typed.iter().filter(|(tag, _)| *tag == field) {
        let _ = tag;
        match c {
            Chunk::Packed(b) => {
                let mut buf: &[u8] = b;
                while !buf.is_empty() {
                    if raw.len() >= n {
                        return None;
                    }
                    match field {
                        FLOAT_DATA => {
                            let (head, rest) = buf.split_at_checked(4)?;
                            raw.push(u32::from_le_bytes(head.try_into().ok()?) as u64);
                            buf = rest;
                        }
                        DOUBLE_DATA => {
                            let (head, rest) = buf.split_at_checked(8)?;
                            raw.push(u64::from_le_bytes(head.try_into().ok()?));
                            buf = rest;
                        }
                        _ => raw.push(prost::encoding::decode_varint(&mut buf).ok()?),
                    }
                }
            }
            Chunk::Varint(v) | Chunk::Fixed64(v) => raw.push(*v),
            Chunk::Fixed32(v) => raw.push(*v as u64),
        }
        if raw.len() > n {
            return None;
        }
    }
    Some(
        raw.into_iter()
            .map(|u| match et {
                FLOAT => Num::Float(f32::from_bits(u as u32) as f64),
                DOUBLE => Num::Float(f64::from_bits(u)),
                FLOAT16 => Num::Float(f16_to_f64(u as u16)),
                BFLOAT16 => Num::Float(f32::from_bits((u as u32 & 0xffff) << 16) as f64),
                // int32_data holds sign-extended varints; the narrow types' values as they are.
                INT32 | INT16 | INT8 => Num::Int(u as i64 as i32 as i64),
                UINT16 | UINT8 | BOOL => Num::Int(u as u32 as i64),
                INT64 => Num::Int(u as i64),
                _ => i64::try_from(u).map_or(Num::Unknown, Num::Int),
            })
            .collect(),
    )
}

/// IEEE half precision to f64.
fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f64;
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn t(et: i32, dims: &[i64]) -> TensorProto {
        TensorProto {
            data_type: Some(et),
            dims: dims.to_vec(),
            ..TensorProto::default()
        }
    }

    #[test]
    fn raw_and_typed_data() {
        let mut a = t(INT64, &[2]);
        a.raw_data = Some(Bytes::from(
            [3i64.to_le_bytes(), (-1i64).to_le_bytes()].concat(),
        ));
        assert_eq!(elements(&a, 10), Some(vec![Num::Int(3), Num::Int(-1)]));
        assert_eq!(elements(&a, 1), None, "over the limit");
        let mut b = t(INT32, &[]);
        b.typed.push((INT32_DATA, Chunk::Varint(-7i64 as u64)));
        assert_eq!(elements(&b, 10), Some(vec![Num::Int(-7)]));
        let mut c = t(FLOAT, &[2]);
        c.typed.push((
            FLOAT_DATA,
            Chunk::Packed(Bytes::from(
                [1.5f32.to_le_bytes(), 2f32.to_le_bytes()].concat(),
            )),
        ));
        assert_eq!(
            elements(&c, 10),
            Some(vec![Num::Float(1.5), Num::Float(2.0)])
        );
        let mut d = t(INT64, &[3]);
        d.typed
            .push((INT64_DATA, Chunk::Packed(Bytes::from_static(&[1, 2]))));
        assert_eq!(elements(&d, 10), None, "2 elements for dims [3]");
        let mut e = t(FLOAT16, &[1]);
        e.raw_data = Some(Bytes::from_static(&[0x00, 0x3c]));
        assert_eq!(elements(&e, 10), Some(vec![Num::Float(1.0)]));
        let mut f = t(INT64, &[1]);
        f.data_location = Some(1);
        assert_eq!(elements(&f, 10), None);
        let mut g = t(INT64, &[-1]);
        g.raw_data = Some(Bytes::new());
        assert_eq!(elements(&g, 10), None, "negative dims");
    }
}
