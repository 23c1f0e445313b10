//! Elementwise ops: unary ops and activations keep their input's shape; binary and variadic ops
//! broadcast (numpy rules); comparisons give booleans; `Cast` changes the type. Small values fold.

use super::fold;
use super::node::{invalid, unknown, Node, Out};
use super::ty::{small, Num, Ty};
use crate::dtype::{BOOL, UINT8};

/// The output: input 0's type and shape, with elements folded by `unary` where it knows the op.
pub fn same(n: &Node) -> Out {
    let x = n.input(0)?;
    let mut t = Ty {
        elem: x.elem,
        shape: x.shape.clone(),
        value: None,
    };
    if let Some(v) = &x.value {
        let folded: Option<Vec<Num>> = v.iter().map(|e| fold::unary(n.op, e)).collect();
        if let Some(f) = folded {
            t = t.with_value(f);
        }
    }
    n.one(t)
}

/// Same shape, boolean (`IsNaN`, `IsInf`).
pub fn same_bool(n: &Node) -> Out {
    let x = n.input(0)?;
    n.one(Ty {
        elem: Some(BOOL),
        shape: x.shape.clone(),
        value: None,
    })
}

/// `Dropout`: output 0 is the input; the optional mask has its shape, boolean (the input's
/// type before opset 10).
pub fn dropout(n: &Node) -> Out {
    let x = n.input(0)?;
    let y = Ty {
        elem: x.elem,
        shape: x.shape.clone(),
        value: x.value.clone(),
    };
    let mask = Ty {
        elem: if n.opset < 10 { x.elem } else { Some(BOOL) },
        shape: x.shape.clone(),
        value: None,
    };
    let mut out = vec![y, mask];
    out.truncate(n.n_outputs.max(1));
    Ok(out)
}

fn is_comparison(op: &str) -> bool {
    matches!(
        op,
        "Equal" | "Less" | "LessOrEqual" | "Greater" | "GreaterOrEqual"
    )
}

/// Binary and variadic broadcasting ops (`Add` ... `Sum`, `Max`, comparisons, `And`, ...).
pub fn broadcasting(n: &Node) -> Out {
    let count = n.proto.input.len();
    if count == 0 {
        return invalid(format!("{} needs at least one input", n.op));
    }
    let mut elem = None;
    let mut shape = n.shape(0)?.to_vec();
    for i in 0..count {
        elem = elem.or(n.elem(i));
    }
    let elem = if is_comparison(n.op) {
        Some(BOOL)
    } else {
        elem
    };
    // Before opset 7 (8 for the variadic ops) ONNX did not broadcast like numpy: the second
    // operand aligned at `axis`, or shapes were equal; the output is the first input's shape.
    let variadic = matches!(n.op, "Sum" | "Max" | "Min" | "Mean");
    if n.opset < if variadic { 8 } else { 7 } {
        return n.one(Ty::new(elem, shape));
    }
    for i in 1..count {
        shape = fold::broadcast(&shape, n.shape(i)?).or_else(invalid)?;
    }
    let t = Ty::new(elem, shape);
    n.one(fold_broadcast(n, t, 0..count))
}

/// Folds a broadcasting op's elements when every input's elements are known.
fn fold_broadcast(n: &Node, t: Ty, inputs: std::ops::Range<usize>) -> Ty {
    let Some(out) = t.known_dims().filter(|_| small(&t)) else {
        return t;
    };
    let mut parts: Vec<(Vec<u64>, &[Num])> = Vec::new();
    for i in inputs {
        let Ok(x) = n.input(i) else { return t };
        match (x.known_dims(), &x.value) {
            (Some(d), Some(v)) => parts.push((d, v.as_slice())),
            _ => return t,
        }
    }
    let fmod = n.attr_i_or("fmod", 0) != 0;
    let refs: Vec<(&[u64], &[Num])> = parts.iter().map(|(d, v)| (d.as_slice(), *v)).collect();
    let op = n.op;
    let values = match op {
        "Where" => fold::map_n(&refs, &out, |a| match a[0] {
            Num::Int(c) => (if *c != 0 { a[1] } else { a[2] }).clone(),
            _ => Num::Unknown,
        }),
        "Mean" => return t,
        _ => fold::map_n(&refs, &out, |a| {
            a[1..]
                .iter()
                .fold(a[0].clone(), |acc, b| fold::binary(op, &acc, b, fmod))
        }),
    };
    t.with_value(values)
}

/// `Where(cond, x, y)`: broadcast of all three, `x`'s type.
pub fn where_(n: &Node) -> Out {
    let mut shape = n.shape(0)?.to_vec();
    for i in 1..3 {
        shape = fold::broadcast(&shape, n.shape(i)?).or_else(invalid)?;
    }
    let t = Ty::new(n.elem(1).or(n.elem(2)), shape);
    n.one(fold_broadcast(n, t, 0..3))
}

/// `PRelu`: the slope broadcasts to `X` (unidirectionally), so the output is `X`'s shape.
pub fn prelu(n: &Node) -> Out {
    let x = n.input(0)?;
    n.one(Ty {
        elem: x.elem,
        shape: x.shape.clone(),
        value: None,
    })
}

/// `Cast(to)`: elements convert; shapes and symbols survive integer casts.
pub fn cast(n: &Node) -> Out {
    let x = n.input(0)?;
    let Some(to) = n.attr_i("to") else {
        return invalid("it has no 'to' attribute");
    };
    let to = i32::try_from(to).or_else(|_| invalid(format!("'to' is {to}, not a type")))?;
    let mut t = Ty::new(Some(to), x.shape.clone().unwrap_or_default());
    t.shape = x.shape.clone();
    if let Some(v) = &x.value {
        t = t.with_value(v.iter().map(|e| fold::cast(e, to)).collect());
    }
    n.one(t)
}

/// `CastLike(x, like)`: `x`'s shape, `like`'s type.
pub fn cast_like(n: &Node) -> Out {
    let x = n.input(0)?;
    let to = n.elem(1);
    let mut t = Ty {
        elem: to,
        shape: x.shape.clone(),
        value: None,
    };
    if let (Some(v), Some(to)) = (&x.value, to) {
        t = t.with_value(v.iter().map(|e| fold::cast(e, to)).collect());
    }
    n.one(t)
}

/// `QuantizeLinear`: the zero point's type (uint8 without one, or `output_dtype`).
pub fn quantize(n: &Node) -> Out {
    let x = n.input(0)?;
    let elem = match n.attr_i("output_dtype").filter(|&d| d != 0) {
        Some(d) => i32::try_from(d).ok(),
        None => n.elem(2).or(Some(UINT8)),
    };
    n.one(Ty {
        elem,
        shape: x.shape.clone(),
        value: None,
    })
}

/// `DequantizeLinear`: the scale's type (or `output_dtype`).
pub fn dequantize(n: &Node) -> Out {
    let x = n.input(0)?;
    let elem = match n.attr_i("output_dtype").filter(|&d| d != 0) {
        Some(d) => i32::try_from(d).ok(),
        None => n.elem(1),
    };
    n.one(Ty {
        elem,
        shape: x.shape.clone(),
        value: None,
    })
}

/// `DynamicQuantizeLinear`: y (uint8, x's shape), scale (float scalar), zero point (uint8 scalar).
pub fn dynamic_quantize(n: &Node) -> Out {
    let x = n.input(0)?;
    if x.shape.is_none() {
        return unknown("the shape of its input is not known");
    }
    Ok(vec![
        Ty {
            elem: Some(UINT8),
            shape: x.shape.clone(),
            value: None,
        },
        Ty::known(crate::dtype::FLOAT, &[]),
        Ty::known(UINT8, &[]),
    ])
}
