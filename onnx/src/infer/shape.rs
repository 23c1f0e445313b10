//! Ops that move data around without computing on it: Reshape, Flatten, Squeeze, Unsqueeze,
//! Transpose, Concat, Split, Slice, Gather (and its variants), Expand, Tile, Pad, DepthToSpace,
//! SpaceToDepth; and Shape and Size, whose outputs are the shape computations' sources. Where
//! an op's attributes became inputs in a later opset, the input is read when present and the
//! attribute otherwise. Small values fold through all of them.

use super::fold;
use super::node::{invalid, unknown, unsupported, Fail, Node, Out};
use super::ty::{count, dims_text, small, Dim, Num, Ty};
use crate::dtype::INT64;

/// The product of some dims: known, a lone symbol (times ones), or unknown.
fn product(dims: &[Dim]) -> Dim {
    let mut k: u64 = 1;
    let mut sym = None;
    for d in dims {
        match d {
            Dim::Known(v) => match k.checked_mul(*v) {
                Some(p) => k = p,
                None => return Dim::Unknown,
            },
            Dim::Sym(s) if sym.is_none() => sym = Some(s.clone()),
            _ => return Dim::Unknown,
        }
    }
    match sym {
        None => Dim::Known(k),
        Some(s) if k == 1 => Dim::Sym(s),
        Some(_) if k == 0 => Dim::Known(0),
        Some(_) => Dim::Unknown,
    }
}

/// A pass-through of the input's elements in the same order (Reshape, Squeeze, ...).
fn keep_value(t: Ty, x: &Ty) -> Ty {
    match &x.value {
        Some(v) => t.with_value(v.to_vec()),
        None => t,
    }
}

pub fn reshape(n: &Node) -> Out {
    let x = n.input(0)?;
    let target: Vec<Num> = if n.has(1) {
        n.value(1)?.to_vec()
    } else if let Some(s) = n.attr_ints("shape") {
        s.iter().map(|&v| Num::Int(v)).collect()
    } else {
        return invalid("it has neither a shape input nor a shape attribute");
    };
    let allowzero = n.attr_i_or("allowzero", 0) != 0;
    let mut out = Vec::with_capacity(target.len());
    let mut infer_at = None;
    for (i, e) in target.iter().enumerate() {
        out.push(match e {
            Num::Int(-1) => {
                if let Some(j) = infer_at {
                    return invalid(format!(
                        "its target shape has two -1 dimensions (at {j} and {i}); at most one \
                         can be inferred"
                    ));
                }
                infer_at = Some(i);
                Dim::Unknown
            }
            Num::Int(0) if !allowzero => {
                let Some(xs) = x.shape.as_deref() else {
                    return unknown("the input's shape is not known (a 0 in the target copies it)");
                };
                match xs.get(i) {
                    Some(d) => d.clone(),
                    None => {
                        return invalid(format!(
                            "target dimension {i} is 0 (copy), but the input has rank {}",
                            xs.len()
                        ))
                    }
                }
            }
            Num::Int(v) if *v < 0 => {
                return invalid(format!("its target shape has a negative dimension {v}"))
            }
            e => e.as_dim(),
        });
    }
    if allowzero && infer_at.is_some() && target.contains(&Num::Int(0)) {
        return invalid("allowzero=1 with both 0 and -1 in the target shape");
    }
    let xs = x.shape.as_deref();
    if let Some(at) = infer_at {
        out[at] = match xs {
            Some(xs) => infer_minus_one(xs, &out, at)?,
            None => Dim::Unknown,
        };
    } else if let (Some(a), Some(b)) = (
        x.known_dims().and_then(|d| count(&d)),
        product(&out).known(),
    ) {
        if a != b {
            return invalid(format!(
                "it reshapes {} elements into {} ({})",
                a,
                b,
                dims_text(&out)
            ));
        }
    }
    n.one(keep_value(Ty::new(x.elem, out), x))
}

/// The `-1` of a Reshape: the input's element count over the others'. Symbols cancel when the
/// target keeps them (`[batch, 12, 64] → [batch, -1]`).
fn infer_minus_one(input: &[Dim], target: &[Dim], at: usize) -> Result<Dim, Fail> {
    let mut syms: Vec<&str> = Vec::new();
    let mut k_in: u64 = 1;
    for d in input {
        match d {
            Dim::Known(v) => {
                k_in = k_in
                    .checked_mul(*v)
                    .ok_or(Fail::Invalid("size overflows".into()))?
            }
            Dim::Sym(s) => syms.push(s),
            Dim::Unknown => return Ok(Dim::Unknown),
        }
    }
    let mut k_t: u64 = 1;
    for (i, d) in target.iter().enumerate() {
        if i == at {
            continue;
        }
        match d {
            Dim::Known(v) => {
                k_t = k_t
                    .checked_mul(*v)
                    .ok_or(Fail::Invalid("size overflows".into()))?
            }
            Dim::Sym(s) => match syms.iter().position(|x| x == &&**s) {
                Some(p) => {
                    syms.swap_remove(p);
                }
                None => return Ok(Dim::Unknown),
            },
            Dim::Unknown => return Ok(Dim::Unknown),
        }
    }
    if k_t == 0 {
        return if k_in == 0 {
            Ok(Dim::Unknown)
        } else {
            invalid("the -1 dimension cannot be inferred: the other dimensions multiply to 0")
        };
    }
    match syms.as_slice() {
        [] if k_in % k_t != 0 => invalid(format!(
            "it reshapes {k_in} elements into {} with a -1 dimension, which does not divide",
            dims_text(target)
        )),
        [] => Ok(Dim::Known(k_in / k_t)),
        [s] if k_in == k_t => Ok(Dim::Sym((*s).into())),
        _ => Ok(Dim::Unknown),
    }
}

pub fn flatten(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape(0)?;
    let r = xs.len() as i64;
    let a = n.attr_i_or("axis", 1);
    let a = if a < 0 { a + r } else { a };
    if a < 0 || a > r {
        return invalid(format!(
            "axis {} is out of range for rank {r}",
            n.attr_i_or("axis", 1)
        ));
    }
    let a = a as usize;
    let out = vec![product(&xs[..a]), product(&xs[a..])];
    n.one(keep_value(Ty::new(x.elem, out), x))
}

pub fn squeeze(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape(0)?;
    let axes = match n.ints_in_or_attr(1, "axes")? {
        Some(a) => n.axes(&a, xs.len())?,
        None => {
            if xs.iter().any(|d| d.known().is_none()) {
                return unknown("Squeeze without axes needs every dimension known");
            }
            (0..xs.len()).filter(|&i| xs[i] == Dim::Known(1)).collect()
        }
    };
    for &a in &axes {
        if let Dim::Known(v) = xs[a] {
            if v != 1 {
                return invalid(format!("axis {a} has size {v}, not 1"));
            }
        }
    }
    let drop = Node::mask(&axes, xs.len());
    let out: Vec<Dim> = (0..xs.len())
        .filter(|&i| !drop[i])
        .map(|i| xs[i].clone())
        .collect();
    n.one(keep_value(Ty::new(x.elem, out), x))
}

pub fn unsqueeze(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape(0)?;
    let Some(axes) = n.ints_in_or_attr(1, "axes")? else {
        return invalid("it has no axes");
    };
    let r = xs.len() + axes.len();
    let ones = Node::mask(&n.axes(&axes, r)?, r);
    let mut rest = xs.iter();
    let out: Vec<Dim> = (0..r)
        .map(|i| {
            if ones[i] {
                Dim::Known(1)
            } else {
                rest.next().cloned().unwrap_or(Dim::Unknown)
            }
        })
        .collect();
    n.one(keep_value(Ty::new(x.elem, out), x))
}

pub fn transpose(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape(0)?;
    let perm: Vec<usize> = match n.attr_ints("perm") {
        Some(p) => {
            if p.len() != xs.len() {
                return invalid(format!(
                    "perm has {} entries for rank {}",
                    p.len(),
                    xs.len()
                ));
            }
            n.axes(p, xs.len())?
        }
        None => (0..xs.len()).rev().collect(),
    };
    let out: Vec<Dim> = perm.iter().map(|&p| xs[p].clone()).collect();
    let mut t = Ty::new(x.elem, out);
    if let (Some(v), Some(d)) = (&x.value, x.known_dims()) {
        t = t.with_value(fold::transpose(v, &d, &perm));
    }
    n.one(t)
}

pub fn concat(n: &Node) -> Out {
    let count_in = n.proto.input.len();
    if count_in == 0 {
        return invalid("Concat needs at least one input");
    }
    let first = n.shape(0)?;
    let r = first.len();
    let default_axis = if n.opset < 4 { Some(1) } else { None };
    let Some(axis) = n.attr_i("axis").or(default_axis) else {
        return invalid("it has no axis");
    };
    let axis = n.axis(axis, r)?;
    let mut out = first.to_vec();
    let mut sum = first[axis].known();
    let mut elem = n.elem(0);
    for i in 1..count_in {
        let s = n.shape(i)?;
        if s.len() != r {
            return invalid(format!(
                "its inputs have different ranks: {} and {}",
                dims_text(first),
                dims_text(s)
            ));
        }
        elem = elem.or(n.elem(i));
        for (k, d) in s.iter().enumerate() {
            if k == axis {
                sum = match (sum, d.known()) {
                    (Some(a), Some(b)) => a.checked_add(b),
                    _ => None,
                };
                continue;
            }
            out[k] = match (&out[k], d) {
                (Dim::Known(a), Dim::Known(b)) if a != b => {
                    return invalid(format!(
                        "its inputs differ off the concatenation axis: {} and {}",
                        dims_text(first),
                        dims_text(s)
                    ))
                }
                (Dim::Known(a), _) | (_, Dim::Known(a)) => Dim::Known(*a),
                (a, _) => a.clone(),
            };
        }
    }
    out[axis] = match sum {
        Some(v) => Dim::Known(v),
        // One input that carries the whole axis symbolically.
        None if count_in == 1 => first[axis].clone(),
        None => Dim::Unknown,
    };
    let mut t = Ty::new(elem, out);
    let parts: Option<Vec<(Vec<u64>, &[Num])>> = (0..count_in)
        .map(|i| {
            let x = n.input(i).ok()?;
            Some((x.known_dims()?, x.value.as_deref()?.as_slice()))
        })
        .collect();
    if let Some(parts) = parts.filter(|_| small(&t)) {
        let refs: Vec<(&[u64], &[Num])> = parts.iter().map(|(d, v)| (d.as_slice(), *v)).collect();
        t = t.with_value(fold::concat(&refs, axis));
    }
    n.one(t)
}

pub fn split(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape(0)?;
    let axis = n.axis(n.attr_i_or("axis", 0), xs.len())?;
    let outs = n.n_outputs;
    if outs == 0 {
        return invalid("it has no outputs");
    }
    let d = &xs[axis];
    let sizes: Vec<Dim> = match n.ints_in_or_attr(1, "split")? {
        Some(s) => {
            if s.len() != outs {
                return invalid(format!("split has {} sizes for {outs} outputs", s.len()));
            }
            if s.iter().any(|&v| v < 0) {
                return invalid("split sizes must not be negative");
            }
            let total = s.iter().try_fold(0u64, |a, &v| a.checked_add(v as u64));
            if let (Some(t), Some(d)) = (total, d.known()) {
                if t != d {
                    return invalid(format!("split sizes sum to {t}, but the axis has size {d}"));
                }
            }
            s.iter().map(|&v| Dim::Known(v as u64)).collect()
        }
        None => match (d.known(), n.attr_i("num_outputs")) {
            (None, _) => vec![Dim::Unknown; outs],
            (Some(d), Some(k)) => {
                if k as usize != outs || k <= 0 {
                    return invalid(format!(
                        "num_outputs is {k} but the node has {outs} outputs"
                    ));
                }
                let chunk = d.div_ceil(k as u64);
                let last = d.checked_sub(chunk * (k as u64 - 1));
                let Some(last) = last else {
                    return invalid(format!("{d} cannot be split into {k} parts"));
                };
                let mut v = vec![Dim::Known(chunk); outs - 1];
                v.push(Dim::Known(last));
                v
            }
            (Some(d), None) => {
                if d % outs as u64 != 0 {
                    return invalid(format!(
                        "the axis has size {d}, which does not split evenly into {outs} outputs"
                    ));
                }
                vec![Dim::Known(d / outs as u64); outs]
            }
        },
    };
    let mut start = 0u64;
    let dims = x.known_dims();
    Ok(sizes
        .into_iter()
        .map(|s| {
            let mut shape = xs.to_vec();
            shape[axis] = s.clone();
            let mut t = Ty::new(x.elem, shape);
            if let (Some(v), Some(dd), Some(len)) = (&x.value, &dims, s.known()) {
                let keep: Vec<Vec<u64>> = (0..dd.len())
                    .map(|a| {
                        if a == axis {
                            (start..start + len).collect()
                        } else {
                            (0..dd[a]).collect()
                        }
                    })
                    .collect();
                t = t.with_value(fold::select(v, dd, &keep));
            }
            start += s.known().unwrap_or(0);
            t
        })
        .collect())
}

pub fn slice(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape(0)?;
    let (starts, ends, axes, steps) = if n.opset < 10 {
        let get = |k: &str| n.attr_ints(k).map(|v| v.to_vec());
        let Some(s) = get("starts") else {
            return invalid("it has no starts");
        };
        let Some(e) = get("ends") else {
            return invalid("it has no ends");
        };
        (s, e, get("axes"), None)
    } else {
        let axes = if n.has(3) { Some(n.ints(3)?) } else { None };
        let steps = if n.has(4) { Some(n.ints(4)?) } else { None };
        (n.ints(1)?, n.ints(2)?, axes, steps)
    };
    if starts.len() != ends.len() {
        return invalid("starts and ends have different lengths");
    }
    let axes = match axes {
        Some(a) if a.len() == starts.len() => n.axes(&a, xs.len())?,
        Some(_) => return invalid("axes and starts have different lengths"),
        None if starts.len() <= xs.len() => (0..starts.len()).collect(),
        None => return invalid("more starts than the input has dimensions"),
    };
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if steps.len() != starts.len() {
        return invalid("steps and starts have different lengths");
    }
    let mut out = xs.to_vec();
    let mut keep: Option<Vec<Vec<u64>>> = x
        .known_dims()
        .filter(|_| x.value.is_some())
        .map(|d| d.iter().map(|&v| (0..v).collect()).collect());
    for (k, &a) in axes.iter().enumerate() {
        let step = steps[k];
        if step == 0 {
            return invalid("a step is 0");
        }
        let Some(d) = xs[a].known() else {
            // A whole axis of unknown size stays what it was.
            let whole = starts[k] == 0 && ends[k] >= i32::MAX as i64 && step == 1;
            if !whole {
                out[a] = Dim::Unknown;
            }
            keep = None;
            continue;
        };
        let d = i64::try_from(d).or_else(|_| invalid("dimension too large"))?;
        if d == 0 {
            out[a] = Dim::Known(0);
            if let Some(kp) = keep.as_mut() {
                kp[a] = Vec::new();
            }
            continue;
        }
        let (mut s, mut e) = (starts[k], ends[k]);
        if s < 0 {
            s = s.saturating_add(d);
        }
        if e < 0 {
            e = e.saturating_add(d);
        }
        let (s, e) = if step > 0 {
            (s.clamp(0, d), e.clamp(0, d))
        } else {
            (s.clamp(0, d - 1), e.clamp(-1, d - 1))
        };
        let len = {
            let (s, e, st) = (s as i128, e as i128, step as i128);
            let span = e - s;
            // ceil(span / step) for either sign of step.
            let q = if (span > 0) == (st > 0) && span != 0 {
                (span + st - st.signum()) / st
            } else {
                0
            };
            q.max(0) as u64
        };
        out[a] = Dim::Known(len);
        if let Some(kp) = keep.as_mut() {
            kp[a] = (0..len)
                .map(|j| (s as i128 + j as i128 * step as i128) as u64)
                .collect();
        }
    }
    let mut t = Ty::new(x.elem, out);
    if let (Some(kp), Some(v), Some(d)) = (keep, &x.value, x.known_dims()) {
        t = t.with_value(fold::select(v, &d, &kp));
    }
    n.one(t)
}

pub fn gather(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape_min(0, 1)?;
    let is = n.shape(1)?;
    let axis = n.axis(n.attr_i_or("axis", 0), xs.len())?;
    let mut out = xs[..axis].to_vec();
    out.extend_from_slice(is);
    out.extend_from_slice(&xs[axis + 1..]);
    let mut t = Ty::new(x.elem, out);
    if let (Some(v), Some(d), Ok(idx), true) = (&x.value, x.known_dims(), n.ints(1), small(&t)) {
        let size = d[axis] as i64;
        let mut norm = Vec::with_capacity(idx.len());
        for i in idx {
            let j = if i < 0 { i + size } else { i };
            if j < 0 || j >= size {
                return invalid(format!("index {i} is out of range for size {size}"));
            }
            norm.push(j as usize);
        }
        t = t.with_value(fold::gather(v, &d, axis, &norm));
    }
    n.one(t)
}

/// `GatherElements`: the indices' shape.
pub fn gather_elements(n: &Node) -> Out {
    n.one(Ty::new(n.elem(0), n.shape(1)?.to_vec()))
}

/// `GatherND(data, indices, batch_dims)`: `indices[:-1] + data[batch_dims + indices[-1]:]`.
pub fn gather_nd(n: &Node) -> Out {
    let ds = n.shape(0)?;
    let is = n.shape_min(1, 1)?;
    let b = n.attr_i_or("batch_dims", 0);
    let Some(last) = is[is.len() - 1].known() else {
        return unknown("the indices' last dimension is not known");
    };
    let from = usize::try_from(b)
        .ok()
        .and_then(|b| b.checked_add(last as usize))
        .filter(|&f| f <= ds.len());
    let Some(from) = from else {
        return invalid("batch_dims plus the index depth exceed the data's rank");
    };
    let mut out = is[..is.len() - 1].to_vec();
    out.extend_from_slice(&ds[from..]);
    n.one(Ty::new(n.elem(0), out))
}

/// `Expand(x, shape)`: broadcast of x's shape and the target.
pub fn expand(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape(0)?;
    let target: Vec<Dim> = n.value(1)?.iter().map(|e| e.as_dim()).collect();
    let out = fold::broadcast(xs, &target).or_else(invalid)?;
    let mut t = Ty::new(x.elem, out);
    if let (Some(v), Some(d), Some(o), true) = (&x.value, x.known_dims(), t.known_dims(), small(&t))
    {
        let vals = fold::map_n(&[(&d, v)], &o, |a| a[0].clone());
        t = t.with_value(vals);
    }
    n.one(t)
}

pub fn tile(n: &Node) -> Out {
    if n.opset < 6 {
        return unsupported("Tile before opset 6");
    }
    let xs = n.shape(0)?;
    let reps = n.ints(1)?;
    if reps.len() != xs.len() {
        return invalid(format!(
            "repeats has {} values for rank {}",
            reps.len(),
            xs.len()
        ));
    }
    let out: Vec<Dim> = xs
        .iter()
        .zip(&reps)
        .map(|(d, &r)| match (d, u64::try_from(r)) {
            (_, Err(_)) => Err(Fail::Invalid(format!("repeat {r} is negative"))),
            (d, Ok(1)) => Ok(d.clone()),
            (Dim::Known(v), Ok(r)) => Ok(v.checked_mul(r).map_or(Dim::Unknown, Dim::Known)),
            (_, Ok(0)) => Ok(Dim::Known(0)),
            _ => Ok(Dim::Unknown),
        })
        .collect::<Result<_, _>>()?;
    n.one(Ty::new(n.elem(0), out))
}

pub fn pad(n: &Node) -> Out {
    let xs = n.shape(0)?;
    let r = xs.len();
    let pads = if n.opset < 11 {
        match n.attr_ints("pads").or(n.attr_ints("paddings")) {
            Some(p) => p.to_vec(),
            None => return invalid("it has no pads"),
        }
    } else {
        n.ints(1)?
    };
    let axes: Vec<usize> = if n.has(3) {
        n.axes(&n.ints(3)?, r)?
    } else {
        (0..r).collect()
    };
    if pads.len() != 2 * axes.len() {
        return invalid(format!(
            "pads has {} values for {} axes",
            pads.len(),
            axes.len()
        ));
    }
    let mut out = xs.to_vec();
    for (k, &a) in axes.iter().enumerate() {
        let (b, e) = (pads[k] as i128, pads[k + axes.len()] as i128);
        if let Dim::Known(d) = xs[a] {
            let v = d as i128 + b + e;
            if v < 0 || v > i64::MAX as i128 {
                return invalid(format!("padding axis {a} gives size {v}"));
            }
            out[a] = Dim::Known(v as u64);
        } else if b != 0 || e != 0 {
            out[a] = Dim::Unknown;
        }
    }
    n.one(Ty::new(n.elem(0), out))
}

/// `DepthToSpace` (`to_space`) and `SpaceToDepth`.
pub fn depth_space(n: &Node, to_space: bool) -> Out {
    let xs = n.shape(0)?;
    if xs.len() != 4 {
        return invalid(format!("it needs a 4-D input, got {}", dims_text(xs)));
    }
    let b = n.attr_i_or("blocksize", 0);
    if b <= 0 {
        return invalid("blocksize must be positive");
    }
    let b = b as u64;
    let (bb, mul) = (b.saturating_mul(b), |d: &Dim, k: u64| match d {
        Dim::Known(v) => v.checked_mul(k).map_or(Dim::Unknown, Dim::Known),
        _ => Dim::Unknown,
    });
    let div = |d: &Dim, k: u64| -> Result<Dim, Fail> {
        match d {
            Dim::Known(v) if v % k != 0 => invalid(format!("{v} is not divisible by {k}")),
            Dim::Known(v) => Ok(Dim::Known(v / k)),
            _ => Ok(Dim::Unknown),
        }
    };
    let out = if to_space {
        vec![
            xs[0].clone(),
            div(&xs[1], bb)?,
            mul(&xs[2], b),
            mul(&xs[3], b),
        ]
    } else {
        vec![
            xs[0].clone(),
            mul(&xs[1], bb),
            div(&xs[2], b)?,
            div(&xs[3], b)?,
        ]
    };
    n.one(Ty::new(n.elem(0), out))
}

/// `Shape(x, start, end)`: int64 `[rank]` whose elements are x's dims (symbols included).
pub fn shape(n: &Node) -> Out {
    let xs = n.shape(0)?;
    let r = xs.len() as i64;
    let clamp = |v: i64| (if v < 0 { v.saturating_add(r) } else { v }).clamp(0, r) as usize;
    let start = clamp(n.attr_i_or("start", 0));
    let end = clamp(n.attr_i_or("end", r));
    let dims = if start < end {
        &xs[start..end]
    } else {
        &xs[0..0]
    };
    let value: Vec<Num> = dims.iter().map(Num::from_dim).collect();
    n.one(Ty::known(INT64, &[value.len() as u64]).with_value(value))
}

/// `Size(x)`: an int64 scalar.
pub fn size(n: &Node) -> Out {
    let xs = n.shape(0)?;
    let t = Ty::known(INT64, &[]);
    n.one(match product(xs) {
        d @ (Dim::Known(_) | Dim::Sym(_)) => t.with_value(vec![Num::from_dim(&d)]),
        Dim::Unknown => t,
    })
}
