//! Constant folding: the arithmetic on small folded tensors (row-major `Num` lists) that shape
//! computations need. Everything here is bounded by the folded tensors' sizes (`FOLD_LIMIT`).

use super::ty::{Dim, Num};
use crate::dtype::{self, *};

/// Multidirectional (numpy) broadcasting of two shapes; `Err` names the clash.
pub fn broadcast(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>, String> {
    let r = a.len().max(b.len());
    let mut out = Vec::with_capacity(r);
    for i in 0..r {
        let da = (i + a.len())
            .checked_sub(r)
            .map_or(&Dim::Known(1), |j| &a[j]);
        let db = (i + b.len())
            .checked_sub(r)
            .map_or(&Dim::Known(1), |j| &b[j]);
        out.push(match (da, db) {
            (Dim::Known(1), d) | (d, Dim::Known(1)) => d.clone(),
            (Dim::Known(x), Dim::Known(y)) if x == y => Dim::Known(*x),
            (Dim::Known(x), Dim::Known(y)) => {
                return Err(format!(
                    "shapes {} and {} cannot be broadcast (dimension {x} against {y})",
                    super::ty::dims_text(a),
                    super::ty::dims_text(b)
                ))
            }
            // A known dimension other than 1 is what a symbolic one must be, for the op to run.
            (Dim::Known(x), _) | (_, Dim::Known(x)) => Dim::Known(*x),
            (Dim::Sym(x), Dim::Sym(y)) if x == y => Dim::Sym(x.clone()),
            _ => Dim::Unknown,
        });
    }
    Ok(out)
}

/// Row-major strides.
pub fn strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// For each element of a tensor of shape `out`, the index of the element of a tensor of shape
/// `input` that broadcasting reads.
pub fn broadcast_indices(input: &[u64], out: &[u64]) -> Vec<usize> {
    let n: u64 = out.iter().product();
    let off = out.len() - input.len();
    let in_strides = strides(input);
    let out_strides = strides(out);
    (0..n)
        .map(|flat| {
            let mut idx = 0u64;
            for (k, &d) in input.iter().enumerate() {
                let coord = (flat / out_strides[k + off]) % out[k + off];
                if d != 1 {
                    idx += coord * in_strides[k];
                }
            }
            idx as usize
        })
        .collect()
}

/// Elementwise `f` over broadcast inputs whose values are all known.
pub fn map_n(inputs: &[(&[u64], &[Num])], out: &[u64], f: impl Fn(&[&Num]) -> Num) -> Vec<Num> {
    let idx: Vec<Vec<usize>> = inputs
        .iter()
        .map(|(s, _)| broadcast_indices(s, out))
        .collect();
    let n = idx.first().map_or(0, |v| v.len());
    let mut args: Vec<&Num> = Vec::with_capacity(inputs.len());
    (0..n)
        .map(|e| {
            args.clear();
            for (k, (_, v)) in inputs.iter().enumerate() {
                args.push(&v[idx[k][e]]);
            }
            f(&args)
        })
        .collect()
}

/// Binary arithmetic on elements, as ONNX defines it for integers (truncating division; `Mod`
/// with the divisor's sign unless `fmod`) and floats. What cannot be computed (a symbol, division
/// by zero, overflow) is `Unknown`.
pub fn binary(op: &str, a: &Num, b: &Num, fmod: bool) -> Num {
    use Num::*;
    match (a, b) {
        (Int(x), Int(y)) => {
            let (x, y) = (*x, *y);
            let r = match op {
                "Add" | "Sum" => x.checked_add(y),
                "Sub" => x.checked_sub(y),
                "Mul" => x.checked_mul(y),
                "Div" => x.checked_div(y),
                "Mod" if fmod => x.checked_rem(y),
                "Mod" => x.checked_rem(y).map(|r| {
                    if r != 0 && (r < 0) != (y < 0) {
                        r + y
                    } else {
                        r
                    }
                }),
                "Pow" => u32::try_from(y).ok().and_then(|e| x.checked_pow(e)),
                "Max" => Some(x.max(y)),
                "Min" => Some(x.min(y)),
                "Equal" => Some((x == y) as i64),
                "Less" => Some((x < y) as i64),
                "LessOrEqual" => Some((x <= y) as i64),
                "Greater" => Some((x > y) as i64),
                "GreaterOrEqual" => Some((x >= y) as i64),
                "And" => Some((x != 0 && y != 0) as i64),
                "Or" => Some((x != 0 || y != 0) as i64),
                "Xor" => Some(((x != 0) != (y != 0)) as i64),
                "BitwiseAnd" => Some(x & y),
                "BitwiseOr" => Some(x | y),
                "BitwiseXor" => Some(x ^ y),
                _ => None,
            };
            r.map_or(Unknown, Int)
        }
        (Int(_) | Float(_), Int(_) | Float(_)) => {
            let (x, y) = (a.float().unwrap_or(0.0), b.float().unwrap_or(0.0));
            let cmp = |c: bool| Int(c as i64);
            match op {
                "Add" | "Sum" => Float(x + y),
                "Sub" => Float(x - y),
                "Mul" => Float(x * y),
                "Div" => Float(x / y),
                "Mod" => Float(x % y),
                "Pow" => Float(x.powf(y)),
                "Max" => Float(x.max(y)),
                "Min" => Float(x.min(y)),
                "Equal" => cmp(x == y),
                "Less" => cmp(x < y),
                "LessOrEqual" => cmp(x <= y),
                "Greater" => cmp(x > y),
                "GreaterOrEqual" => cmp(x >= y),
                _ => Unknown,
            }
        }
        // A dimension is never negative: exporters test target shapes for -1 (`Equal(shape, -1)`
        // then `Where`), which must not lose the symbol.
        (Sym(_), Int(v)) | (Int(v), Sym(_)) if *v < 0 && op == "Equal" => Int(0),
        (Sym(x), Sym(y)) if op == "Max" || op == "Min" => {
            if x == y {
                a.clone()
            } else {
                Unknown
            }
        }
        _ => Unknown,
    }
}

/// Unary elementwise ops on elements; `None` for ops not folded.
pub fn unary(op: &str, a: &Num) -> Option<Num> {
    use Num::*;
    Some(match (op, a) {
        ("Identity", _) => a.clone(),
        ("Neg", Int(x)) => x.checked_neg().map_or(Unknown, Int),
        ("Abs", Int(x)) => x.checked_abs().map_or(Unknown, Int),
        ("Sign", Int(x)) => Int(x.signum()),
        ("Relu", Int(x)) => Int((*x).max(0)),
        ("Not", Int(x)) => Int((*x == 0) as i64),
        ("Neg", Float(x)) => Float(-x),
        ("Abs", Float(x)) => Float(x.abs()),
        ("Relu", Float(x)) => Float(x.max(0.0)),
        ("Sqrt", Float(x)) => Float(x.sqrt()),
        ("Floor", Float(x)) => Float(x.floor()),
        ("Ceil", Float(x)) => Float(x.ceil()),
        ("Round", Float(x)) => Float(x.round_ties_even()),
        ("Reciprocal", Float(x)) => Float(1.0 / x),
        ("Exp", Float(x)) => Float(x.exp()),
        ("Log", Float(x)) => Float(x.ln()),
        ("Floor" | "Ceil" | "Round", Int(_)) => a.clone(),
        (
            "Neg" | "Abs" | "Sign" | "Relu" | "Not" | "Sqrt" | "Floor" | "Ceil" | "Round"
            | "Reciprocal" | "Exp" | "Log",
            _,
        ) => Unknown,
        _ => return None,
    })
}

/// `Cast` of one element to ONNX type `to`: integers wrap to the target's width as C++ casts do
/// (torch exports cast `INT64_MAX` to int32), floats truncate toward zero.
pub fn cast(a: &Num, to: i32) -> Num {
    use Num::*;
    if dtype::is_float(to) {
        return match a {
            Int(x) => Float(round_to(*x as f64, to)),
            Float(x) => Float(round_to(*x, to)),
            _ => Unknown,
        };
    }
    if !dtype::is_int(to) {
        return Unknown;
    }
    let v = match a {
        Int(x) => *x,
        Float(x) if x.is_finite() && to == BOOL => return Int((*x != 0.0) as i64),
        Float(x) if x.is_finite() => x.trunc() as i64,
        // A shape element stays what it is through integer casts.
        Sym(_) if to != BOOL => return a.clone(),
        _ => return Unknown,
    };
    Int(match to {
        BOOL => (v != 0) as i64,
        INT8 => v as i8 as i64,
        UINT8 => v as u8 as i64,
        INT16 => v as i16 as i64,
        UINT16 => v as u16 as i64,
        INT32 => v as i32 as i64,
        UINT32 => v as u32 as i64,
        UINT64 if v < 0 => return Unknown,
        _ => v,
    })
}

fn round_to(x: f64, to: i32) -> f64 {
    if to == FLOAT {
        x as f32 as f64
    } else {
        x
    }
}

/// Gathers along `axis`: `data` of shape `dshape`, `indices` (already in range) of any shape.
pub fn gather(data: &[Num], dshape: &[u64], axis: usize, indices: &[usize]) -> Vec<Num> {
    let outer: u64 = dshape[..axis].iter().product();
    let inner: u64 = dshape[axis + 1..].iter().product();
    let d = dshape[axis];
    let mut out = Vec::with_capacity((outer * indices.len() as u64 * inner) as usize);
    for o in 0..outer {
        for &i in indices {
            let base = (o * d + i as u64) * inner;
            for k in 0..inner {
                out.push(data[(base + k) as usize].clone());
            }
        }
    }
    out
}

/// Concatenates along `axis` tensors of shapes `shapes`.
pub fn concat(parts: &[(&[u64], &[Num])], axis: usize) -> Vec<Num> {
    let outer: u64 = parts[0].0[..axis].iter().product();
    let mut out = Vec::new();
    for o in 0..outer {
        for (shape, v) in parts {
            let chunk: u64 = shape[axis..].iter().product();
            let start = (o * chunk) as usize;
            out.extend_from_slice(&v[start..start + chunk as usize]);
        }
    }
    out
}

/// Strided slice: per axis, the indices to keep.
pub fn select(data: &[Num], shape: &[u64], keep: &[Vec<u64>]) -> Vec<Num> {
    let st = strides(shape);
    let mut out = Vec::new();
    let mut pos = vec![0usize; shape.len()];
    if keep.iter().any(|k| k.is_empty()) {
        return out;
    }
    loop {
        let idx: u64 = pos
            .iter()
            .enumerate()
            .map(|(a, &p)| keep[a][p] * st[a])
            .sum();
        out.push(data[idx as usize].clone());
        // Odometer increment, last axis fastest.
        let mut a = shape.len();
        loop {
            if a == 0 {
                return out;
            }
            a -= 1;
            pos[a] += 1;
            if pos[a] < keep[a].len() {
                break;
            }
            pos[a] = 0;
        }
    }
}

/// Permutes the axes of a tensor.
pub fn transpose(data: &[Num], shape: &[u64], perm: &[usize]) -> Vec<Num> {
    let st = strides(shape);
    let out_shape: Vec<u64> = perm.iter().map(|&p| shape[p]).collect();
    let out_st = strides(&out_shape);
    let n: u64 = out_shape.iter().product();
    (0..n)
        .map(|flat| {
            let mut idx = 0u64;
            for (k, &p) in perm.iter().enumerate() {
                let coord = (flat / out_st[k]) % out_shape[k];
                idx += coord * st[p];
            }
            data[idx as usize].clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Vec<Num> {
        v.iter().map(|&x| Num::Int(x)).collect()
    }

    #[test]
    fn broadcasting() {
        let k = |v: &[u64]| v.iter().map(|&d| Dim::Known(d)).collect::<Vec<_>>();
        assert_eq!(
            broadcast(&k(&[2, 1, 3]), &k(&[4, 1])).unwrap(),
            k(&[2, 4, 3])
        );
        assert!(broadcast(&k(&[2, 3]), &k(&[4])).is_err());
        let s = Dim::Sym("n".into());
        assert_eq!(
            broadcast(std::slice::from_ref(&s), &k(&[1])).unwrap(),
            vec![s.clone()]
        );
        assert_eq!(
            broadcast(std::slice::from_ref(&s), &k(&[5])).unwrap(),
            k(&[5])
        );
        assert_eq!(
            broadcast(&[s], &[Dim::Sym("m".into())]).unwrap(),
            vec![Dim::Unknown]
        );
        let v = map_n(
            &[(&[2, 1], &ints(&[1, 2])), (&[3], &ints(&[10, 20, 30]))],
            &[2, 3],
            |a| binary("Add", a[0], a[1], false),
        );
        assert_eq!(v, ints(&[11, 21, 31, 12, 22, 32]));
    }

    #[test]
    fn integer_semantics() {
        let b = |op, x, y| binary(op, &Num::Int(x), &Num::Int(y), false);
        assert_eq!(b("Div", -7, 2), Num::Int(-3));
        assert_eq!(b("Mod", -7, 3), Num::Int(2));
        assert_eq!(
            binary("Mod", &Num::Int(-7), &Num::Int(3), true),
            Num::Int(-1)
        );
        assert_eq!(b("Div", 1, 0), Num::Unknown);
        assert_eq!(b("Mul", i64::MAX, 2), Num::Unknown);
        assert_eq!(cast(&Num::Int(i64::MAX), INT32), Num::Int(-1));
        assert_eq!(cast(&Num::Float(-2.7), INT64), Num::Int(-2));
        assert_eq!(cast(&Num::Sym("n".into()), INT32), Num::Sym("n".into()));
        let n = Num::Sym("n".into());
        assert_eq!(binary("Equal", &n, &Num::Int(-1), false), Num::Int(0));
        assert_eq!(binary("Equal", &n, &Num::Int(3), false), Num::Unknown);
    }

    #[test]
    fn gather_concat_select_transpose() {
        let d = ints(&[0, 1, 2, 3, 4, 5]);
        assert_eq!(gather(&d, &[2, 3], 1, &[2, 0]), ints(&[2, 0, 5, 3]));
        assert_eq!(gather(&d, &[2, 3], 0, &[1]), ints(&[3, 4, 5]));
        let a = ints(&[1, 2]);
        let b = ints(&[3]);
        assert_eq!(concat(&[(&[2], &a), (&[1], &b)], 0), ints(&[1, 2, 3]));
        assert_eq!(
            concat(&[(&[2, 1], &a), (&[2, 1], &ints(&[8, 9]))], 1),
            ints(&[1, 8, 2, 9])
        );
        assert_eq!(select(&d, &[2, 3], &[vec![1], vec![2, 0]]), ints(&[5, 3]));
        assert_eq!(transpose(&d, &[2, 3], &[1, 0]), ints(&[0, 3, 1, 4, 2, 5]));
    }
}
