//! Convolution, pooling and normalization. The output-size arithmetic follows ONNX's own
//! `convPoolShapeInference` and `convTransposeShapeInference` (onnx/defs/nn/defs.cc), including
//! its integer division and PyTorch's rule for `ceil_mode` windows that start in the padding.

use super::node::{invalid, unknown, Fail, Node, Out};
use super::ty::{Dim, Ty};
use crate::dtype::{FLOAT, INT32, INT64};

/// Which conv-like op: where its input, weight and output type come from.
#[derive(Clone, Copy)]
pub enum Kind {
    /// `Conv`: output channels from the weight's first dim.
    Conv,
    /// `ConvInteger`: as Conv, int32 output.
    ConvInteger,
    /// `QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B)`.
    QLinearConv,
    /// Max/Average/Lp pooling: `kernel_shape` is required; channels pass through.
    Pool,
}

pub fn conv(n: &Node, kind: Kind) -> Out {
    let (x, w) = match kind {
        Kind::QLinearConv => (0, 3),
        _ => (0, 1),
    };
    let elem = match kind {
        Kind::Conv | Kind::Pool => n.elem(0),
        Kind::ConvInteger => Some(INT32),
        Kind::QLinearConv => n.elem(7),
    };
    let xs = n.shape_min(x, 3)?;
    let spatial = xs.len() - 2;
    let pool = matches!(kind, Kind::Pool);
    let ints = |name: &str, default: i64| -> Result<Vec<i64>, Fail> {
        match n.attr_ints(name) {
            Some(v) if v.len() == spatial => Ok(v.to_vec()),
            Some(v) => invalid(format!(
                "attribute {name} has {} values for {spatial} spatial axes",
                v.len()
            )),
            None => Ok(vec![default; spatial]),
        }
    };
    let dilations = ints("dilations", 1)?;
    let strides = ints("strides", 1)?;
    if dilations.iter().chain(&strides).any(|&v| v <= 0) {
        return invalid("strides and dilations must be positive");
    }
    let kernel: Vec<i64> = match n.attr_ints("kernel_shape") {
        Some(_) => ints("kernel_shape", 1)?,
        None if pool => return invalid("it has no kernel_shape attribute"),
        None => {
            let ws = n.shape(w)?;
            if ws.len() != xs.len() {
                return invalid(format!(
                    "the weight has rank {} but the input rank {}",
                    ws.len(),
                    xs.len()
                ));
            }
            let mut k = Vec::with_capacity(spatial);
            for d in &ws[2..] {
                match d.known() {
                    Some(v) => k.push(i64::try_from(v).or_else(|_| invalid("kernel too large"))?),
                    None => return unknown("the weight's kernel dimensions are not known"),
                }
            }
            k
        }
    };
    if kernel.iter().any(|&k| k <= 0) {
        return invalid("kernel dimensions must be positive");
    }
    let ek: Vec<i64> = kernel
        .iter()
        .zip(&dilations)
        .map(|(&k, &d)| (k - 1).checked_mul(d).and_then(|v| v.checked_add(1)))
        .collect::<Option<_>>()
        .ok_or_else(|| Fail::Invalid("kernel size overflows".into()))?;
    let mut pads = vec![0i64; 2 * spatial];
    match n.attr_ints("pads") {
        Some(p) if p.len() == 2 * spatial => {
            if p.iter().any(|&v| v < 0) {
                return invalid("pads must not be negative");
            }
            pads.copy_from_slice(p);
        }
        Some(p) => {
            return invalid(format!(
                "attribute pads has {} values for {spatial} spatial axes",
                p.len()
            ))
        }
        None => {
            let auto = n.attr_s("auto_pad").unwrap_or(b"NOTSET");
            if auto == b"SAME_UPPER" || auto == b"SAME_LOWER" {
                for i in 0..spatial {
                    let s = strides[i];
                    let residual = if s > 1 {
                        match xs[2 + i].known() {
                            Some(d) => (d % s as u64) as i64,
                            None => continue,
                        }
                    } else {
                        0
                    };
                    let total = if residual == 0 {
                        ek[i] - s
                    } else {
                        ek[i] - residual
                    }
                    .max(0);
                    let (small, big) = (total >> 1, total - (total >> 1));
                    if auto == b"SAME_UPPER" {
                        (pads[i], pads[i + spatial]) = (small, big);
                    } else {
                        (pads[i], pads[i + spatial]) = (big, small);
                    }
                }
            }
        }
    }
    let ceil = n.attr_i_or("ceil_mode", 0) != 0;
    let mut out = Vec::with_capacity(xs.len());
    out.push(xs[0].clone());
    out.push(if pool {
        xs[1].clone()
    } else {
        match n.shape_min(w, 1) {
            Ok(ws) => ws[0].clone(),
            Err(Fail::Unknown(_)) => Dim::Unknown,
            Err(e) => return Err(e),
        }
    });
    for i in 0..spatial {
        let Some(d) = xs[2 + i].known() else {
            out.push(Dim::Unknown);
            continue;
        };
        // i128: hostile attributes must not overflow.
        let (d, s) = (d as i128, strides[i] as i128);
        let eff = d + pads[i] as i128 + pads[i + spatial] as i128;
        let mut num = eff - ek[i] as i128;
        if ceil {
            num += s - 1;
        }
        // Truncating division, as ONNX's C++.
        let mut size = num / s + 1;
        if ceil && (size - 1) * s >= d + pads[i] as i128 {
            size -= 1;
        }
        if size < 0 {
            return invalid(format!(
                "the kernel (size {}) is larger than the padded input (size {eff}) on spatial axis {i}",
                ek[i]
            ));
        }
        if size > i64::MAX as i128 {
            return invalid(format!("the output size on spatial axis {i} overflows"));
        }
        out.push(Dim::Known(size as u64));
    }
    let y = Ty::new(elem, out);
    let mut outs = vec![y.clone()];
    if n.n_outputs > 1 {
        // MaxPool's Indices.
        outs.push(Ty {
            elem: Some(INT64),
            ..y
        });
    }
    Ok(outs)
}

pub fn conv_transpose(n: &Node) -> Out {
    let xs = n.shape_min(0, 3)?;
    let ws = n.shape_min(1, 3)?;
    let spatial = xs.len() - 2;
    let group = n.attr_i_or("group", 1);
    if group <= 0 {
        return invalid(format!("group is {group}"));
    }
    let ints = |name: &str, default: i64| -> Result<Vec<i64>, Fail> {
        match n.attr_ints(name) {
            Some(v) if v.len() == spatial => Ok(v.to_vec()),
            Some(v) => invalid(format!(
                "attribute {name} has {} values for {spatial} spatial axes",
                v.len()
            )),
            None => Ok(vec![default; spatial]),
        }
    };
    let dilations = ints("dilations", 1)?;
    let strides = ints("strides", 1)?;
    if dilations.iter().chain(&strides).any(|&v| v <= 0) {
        return invalid("strides and dilations must be positive");
    }
    let kernel: Vec<i64> = match n.attr_ints("kernel_shape") {
        Some(_) => ints("kernel_shape", 1)?,
        None => {
            if ws.len() != xs.len() {
                return invalid("the weight's spatial rank differs from the input's");
            }
            let mut k = Vec::new();
            for d in &ws[2..] {
                match d.known() {
                    Some(v) => k.push(v as i64),
                    None => return unknown("the weight's kernel dimensions are not known"),
                }
            }
            k
        }
    };
    if kernel.iter().any(|&k| k <= 0) {
        return invalid("kernel dimensions must be positive");
    }
    let ek: Vec<i64> = kernel
        .iter()
        .zip(&dilations)
        .map(|(&k, &d)| (k - 1).saturating_mul(d).saturating_add(1))
        .collect();
    let mut pads = vec![0i64; 2 * spatial];
    match n.attr_ints("pads") {
        Some(p) if p.len() == 2 * spatial && p.iter().all(|&v| v >= 0) => pads.copy_from_slice(p),
        Some(_) => return invalid("attribute pads has the wrong size or a negative value"),
        None => {
            let auto = n.attr_s("auto_pad").unwrap_or(b"NOTSET");
            if auto == b"SAME_UPPER" || auto == b"SAME_LOWER" {
                for i in 0..spatial {
                    let total = (ek[i] - strides[i]).max(0);
                    let (small, big) = (total >> 1, total - (total >> 1));
                    if auto == b"SAME_UPPER" {
                        (pads[i], pads[i + spatial]) = (small, big);
                    } else {
                        (pads[i], pads[i + spatial]) = (big, small);
                    }
                }
            }
        }
    }
    let output_padding = ints("output_padding", 0)?;
    let channels = match ws[1] {
        Dim::Known(m) => (m as i64)
            .checked_mul(group)
            .map_or(Dim::Unknown, |c| Dim::Known(c as u64)),
        _ => Dim::Unknown,
    };
    let mut out = vec![xs[0].clone(), channels];
    if let Some(os) = n.attr_ints("output_shape") {
        if os.len() != spatial || os.iter().any(|&v| v < 0) {
            return invalid("attribute output_shape has the wrong size or a negative value");
        }
        for (i, &v) in os.iter().enumerate() {
            if xs[2 + i].known().is_some_and(|d| (v as u64) < d) {
                return unknown("output_shape is smaller than the input");
            }
            out.push(Dim::Known(v as u64));
        }
    } else {
        for i in 0..spatial {
            let Some(d) = xs[2 + i].known() else {
                out.push(Dim::Unknown);
                continue;
            };
            let v =
                strides[i] as i128 * (d as i128 - 1) + output_padding[i] as i128 + ek[i] as i128
                    - pads[i] as i128
                    - pads[i + spatial] as i128;
            match u64::try_from(v) {
                Ok(v) if v <= i64::MAX as u64 => out.push(Dim::Known(v)),
                _ => {
                    return invalid(format!(
                        "output size {v} on spatial axis {i} is out of range"
                    ))
                }
            }
        }
    }
    n.one(Ty::new(n.elem(0), out))
}

/// `GlobalAveragePool` and friends: `[N, C, 1, 1, ...]`.
pub fn global_pool(n: &Node) -> Out {
    let xs = n.shape_min(0, 2)?;
    let mut out = xs[..2].to_vec();
    out.resize(xs.len(), Dim::Known(1));
    n.one(Ty::new(n.elem(0), out))
}

/// `BatchNormalization`: Y is X; the optional statistics outputs (running mean and variance,
/// and the saved mean and variance of opset 9) have the per-channel shape of `mean`.
pub fn batch_norm(n: &Node) -> Out {
    let x = n.input(0)?;
    let mut out = vec![Ty {
        elem: x.elem,
        shape: x.shape.clone(),
        value: None,
    }];
    let stat_i = if n.has(3) { 3 } else { 1 };
    let stat = n.input(stat_i).ok();
    for _ in 1..n.n_outputs {
        out.push(Ty {
            elem: n.elem(3).or(n.elem(1)).or(x.elem),
            shape: stat.and_then(|s| s.shape.clone()),
            value: None,
        });
    }
    Ok(out)
}

/// `LayerNormalization`: Y is X; Mean and InvStdDev keep the dims before `axis` and are 1 from
/// it on, of type `stash_type`.
pub fn layer_norm(n: &Node) -> Out {
    let x = n.input(0)?;
    let xs = n.shape(0)?;
    let axis = n.axis(n.attr_i_or("axis", -1), xs.len())?;
    let stash = n
        .attr_i("stash_type")
        .and_then(|t| i32::try_from(t).ok())
        .unwrap_or(FLOAT);
    let mut stats: Vec<Dim> = xs.to_vec();
    for d in &mut stats[axis..] {
        *d = Dim::Known(1);
    }
    let mut out = vec![Ty {
        elem: x.elem,
        shape: x.shape.clone(),
        value: None,
    }];
    for _ in 1..n.n_outputs.min(3) {
        out.push(Ty::new(Some(stash), stats.clone()));
    }
    Ok(out)
}
