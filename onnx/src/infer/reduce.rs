//! Reductions (`ReduceSum`, `ReduceMean`, ...), `ArgMax`/`ArgMin` and `TopK`.

use super::fold;
use super::node::{invalid, Node, Out};
use super::ty::{Dim, Num, Ty};
use crate::dtype::INT64;

/// `axes` from the input (opset 13 for ReduceSum, 18 for the others) or the attribute;
/// `keepdims` (default 1); `noop_with_empty_axes` makes "no axes" the identity.
pub fn reduce(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape(0)?;
    let keep = n.attr_i_or("keepdims", 1) != 0;
    let axes = n.ints_in_or_attr(1, "axes")?.unwrap_or_default();
    if axes.is_empty() && n.attr_i_or("noop_with_empty_axes", 0) != 0 {
        return n.one(Ty {
            elem: x.elem,
            shape: x.shape.clone(),
            value: x.value.clone(),
        });
    }
    let axes = if axes.is_empty() {
        (0..xs.len()).collect()
    } else {
        n.axes(&axes, xs.len())?
    };
    let reduced = Node::mask(&axes, xs.len());
    let mut out = Vec::with_capacity(xs.len());
    for (i, d) in xs.iter().enumerate() {
        if !reduced[i] {
            out.push(d.clone());
        } else if keep {
            out.push(Dim::Known(1));
        }
    }
    let mut t = Ty::new(x.elem, out);
    // Reducing a whole small tensor (the element count of a shape, say) folds.
    if axes.len() == xs.len() {
        if let Some(v) = &x.value {
            let op = match n.op {
                "ReduceSum" => Some("Add"),
                "ReduceProd" => Some("Mul"),
                "ReduceMax" => Some("Max"),
                "ReduceMin" => Some("Min"),
                _ => None,
            };
            if let (Some(op), Some((first, rest))) = (op, v.split_first()) {
                let r = rest
                    .iter()
                    .fold(first.clone(), |a, b| fold::binary(op, &a, b, false));
                t = t.with_value(vec![r]);
            }
        }
    }
    n.one(t)
}

/// `ArgMax` / `ArgMin`: int64, `axis` (default 0) kept as 1 or removed.
pub fn arg(n: &Node) -> Out {
    let xs = n.shape(0)?;
    let axis = n.axis(n.attr_i_or("axis", 0), xs.len())?;
    let keep = n.attr_i_or("keepdims", 1) != 0;
    let mut out = xs.to_vec();
    if keep {
        out[axis] = Dim::Known(1);
    } else {
        out.remove(axis);
    }
    n.one(Ty::new(Some(INT64), out))
}

/// `TopK(X, K)`: values and int64 indices with `axis` (default -1) of size K.
pub fn top_k(n: &Node) -> Out {
    let xs = n.shape(0)?;
    let axis = n.axis(n.attr_i_or("axis", -1), xs.len())?;
    let k = if n.has(1) {
        match n.value(1) {
            Ok([Num::Int(k)]) => Some(*k),
            Ok(_) => return invalid("K must hold one integer"),
            Err(_) => None,
        }
    } else {
        n.attr_i("k")
    };
    let mut out = xs.to_vec();
    out[axis] = match k {
        Some(k) if k < 0 => return invalid(format!("K is {k}")),
        Some(k) => Dim::Known(k as u64),
        None => Dim::Unknown,
    };
    Ok(vec![
        Ty::new(n.elem(0), out.clone()),
        Ty::new(Some(INT64), out),
    ])
}
