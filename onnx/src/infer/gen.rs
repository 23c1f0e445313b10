//! Ops that make new tensors: ConstantOfShape, Range, EyeLike, OneHot and the random generators.
//! (`Constant` is read with the initializers, in `resolve`.)

use super::node::{invalid, Fail, Node, Out};
use super::ty::{count, Dim, Num, Ty, FOLD_LIMIT};
use crate::dtype::{FLOAT, INT32};
use crate::tensor_data;

/// A target shape given as a 1-D tensor's elements.
fn dims_from(n: &Node, i: usize) -> Result<Vec<Dim>, Fail> {
    match n.value(i) {
        Ok(v) => v
            .iter()
            .map(|e| match e {
                Num::Int(x) if *x < 0 => invalid(format!("the shape has a negative dimension {x}")),
                e => Ok(e.as_dim()),
            })
            .collect(),
        // The rank is still known from the shape tensor's length.
        Err(e) => match n
            .shape(i)
            .ok()
            .and_then(|s| s.first().and_then(|d| d.known()))
        {
            Some(r) if r <= 64 => Ok(vec![Dim::Unknown; r as usize]),
            _ => Err(e),
        },
    }
}

pub fn constant_of_shape(n: &Node) -> Out {
    let dims = dims_from(n, 0)?;
    let t = n.attr_t("value");
    let elem = t.and_then(|t| t.data_type).unwrap_or(FLOAT);
    let mut ty = Ty::new(Some(elem), dims);
    if let Some(c) = ty.known_dims().and_then(|d| count(&d)) {
        if c <= FOLD_LIMIT as u64 {
            let fill = match t {
                Some(t) => tensor_data::elements(t, 1).and_then(|v| v.into_iter().next()),
                None => Some(Num::Float(0.0)),
            };
            if let Some(f) = fill {
                ty = ty.with_value(vec![f; c as usize]);
            }
        }
    }
    n.one(ty)
}

pub fn range(n: &Node) -> Out {
    let elem = n.elem(0);
    let vals = (n.value(0), n.value(1), n.value(2));
    let (Ok([a]), Ok([b]), Ok([d])) = vals else {
        return n.one(Ty::new(elem, vec![Dim::Unknown]));
    };
    let len: Option<u64> = match (a, b, d) {
        (Num::Int(_), Num::Int(_), Num::Int(0)) => return invalid("delta is 0"),
        (Num::Int(a), Num::Int(b), Num::Int(d)) => {
            let (a, b, d) = (*a as i128, *b as i128, *d as i128);
            let span = b - a;
            let q = if span != 0 && (span > 0) == (d > 0) {
                (span + d - d.signum()) / d
            } else {
                0
            };
            u64::try_from(q.max(0)).ok()
        }
        _ => match (a.float(), b.float(), d.float()) {
            (Some(_), Some(_), Some(0.0)) => return invalid("delta is 0"),
            (Some(a), Some(b), Some(d)) => {
                let q = ((b - a) / d).ceil().max(0.0);
                (q.is_finite() && q < 1e18).then_some(q as u64)
            }
            _ => None,
        },
    };
    let Some(len) = len else {
        return n.one(Ty::new(elem, vec![Dim::Unknown]));
    };
    let mut t = Ty::new(elem, vec![Dim::Known(len)]);
    if len <= FOLD_LIMIT as u64 {
        let v: Vec<Num> = (0..len)
            .map(|i| match (a, d) {
                (Num::Int(a), Num::Int(d)) => Num::Int(a + i as i64 * d),
                _ => Num::Float(a.float().unwrap_or(0.0) + i as f64 * d.float().unwrap_or(0.0)),
            })
            .collect();
        t = t.with_value(v);
    }
    n.one(t)
}

/// The `dtype` attribute, else `default`.
fn dtype_attr(n: &Node, default: Option<i32>) -> Option<i32> {
    n.attr_i("dtype")
        .and_then(|d| i32::try_from(d).ok())
        .or(default)
}

/// `RandomNormal` / `RandomUniform`: `shape` attribute, float unless `dtype`.
pub fn random(n: &Node) -> Out {
    let Some(s) = n.attr_ints("shape") else {
        return invalid("it has no shape attribute");
    };
    let dims = s
        .iter()
        .map(|&d| u64::try_from(d).map(Dim::Known))
        .collect::<Result<Vec<_>, _>>()
        .or_else(|_| invalid("the shape has a negative dimension"))?;
    n.one(Ty::new(dtype_attr(n, Some(FLOAT)), dims))
}

/// `EyeLike`, `RandomNormalLike`, `RandomUniformLike`, `Bernoulli`: the input's shape, `dtype`
/// or the input's type.
pub fn like(n: &Node) -> Out {
    let x = n.input(0)?;
    n.one(Ty {
        elem: dtype_attr(n, x.elem),
        shape: x.shape.clone(),
        value: None,
    })
}

/// `Multinomial`: `[batch, sample_size]`, int32 unless `dtype`.
pub fn multinomial(n: &Node) -> Out {
    let xs = n.shape(0)?;
    if xs.len() != 2 {
        return invalid("Multinomial needs a 2-D input");
    }
    let k = n.attr_i_or("sample_size", 1);
    let k = u64::try_from(k).or_else(|_| invalid("sample_size is negative"))?;
    n.one(Ty::new(
        dtype_attr(n, Some(INT32)),
        vec![xs[0].clone(), Dim::Known(k)],
    ))
}

/// `OneHot(indices, depth, values)`: depth inserted at `axis`, `values`' type.
pub fn one_hot(n: &Node) -> Out {
    let is = n.shape(0)?;
    let depth = match n.value(1) {
        Ok([e]) => match e.float() {
            Some(d) if d >= 0.0 && d.is_finite() && d < 1e18 => Dim::Known(d as u64),
            Some(d) => return invalid(format!("depth is {d}")),
            None => Dim::Unknown,
        },
        _ => Dim::Unknown,
    };
    let r = is.len() + 1;
    let axis = n.axis(n.attr_i_or("axis", -1), r)?;
    let mut out = is.to_vec();
    out.insert(axis, depth);
    n.one(Ty::new(n.elem(2), out))
}
