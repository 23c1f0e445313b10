//! Resizing (`Resize`, `Upsample`) and the recurrent ops (`RNN`, `GRU`, `LSTM`).

use super::node::{invalid, unknown, Fail, Node, Out};
use super::ty::{Dim, Num, Ty};

/// `floor(dim * scale)` per axis, as ONNX computes it (in double).
fn scaled(xs: &[Dim], scales: &[f64]) -> Vec<Dim> {
    xs.iter()
        .zip(scales)
        .map(|(d, &s)| match d {
            Dim::Known(v) => {
                let r = (*v as f64 * s).floor();
                if r >= 0.0 && r < 1e18 {
                    Dim::Known(r as u64)
                } else {
                    Dim::Unknown
                }
            }
            d if s == 1.0 => d.clone(),
            _ => Dim::Unknown,
        })
        .collect()
}

fn floats(v: &[Num]) -> Result<Vec<f64>, Fail> {
    v.iter()
        .map(|e| e.float().ok_or(Fail::Unknown("a scale is not known".into())))
        .collect()
}

/// Places per-axis values given for `axes` (or all axes) into a full-rank list.
fn spread<T: Clone>(n: &Node, vals: Vec<T>, fill: impl Fn(usize) -> T, rank: usize) -> Result<Vec<T>, Fail> {
    match n.attr_ints("axes") {
        Some(axes) => {
            let axes = n.axes(axes, rank)?;
            if axes.len() != vals.len() {
                return invalid("axes and scales/sizes have different lengths");
            }
            let mut full: Vec<T> = (0..rank).map(fill).collect();
            for (a, v) in axes.into_iter().zip(vals) {
                full[a] = v;
            }
            Ok(full)
        }
        None if vals.len() == rank => Ok(vals),
        None => invalid(format!("{} scales/sizes for rank {rank}", vals.len())),
    }
}

/// `Resize(X, roi, scales, sizes)` (opset 11+) and `Resize(X, scales)` (opset 10).
pub fn resize(n: &Node) -> Out {
    let xs = n.shape(0)?;
    let r = xs.len();
    let (scales_i, sizes_i) = if n.opset < 11 { (1, None) } else { (2, Some(3)) };
    let non_empty = |i: usize| n.has(i) && n.value(i).map_or(true, |v| !v.is_empty());
    let out = if let Some(si) = sizes_i.filter(|&i| non_empty(i)) {
        let sizes = n.ints(si)?;
        let mut sizes = sizes;
        let policy = n.attr_s("keep_aspect_ratio_policy").unwrap_or(b"stretch");
        if policy == b"not_larger" || policy == b"not_smaller" {
            let axes: Vec<usize> = match n.attr_ints("axes") {
                Some(a) => n.axes(a, r)?,
                None => (0..sizes.len()).collect(),
            };
            let mut scale = if policy == b"not_larger" { f64::MAX } else { f64::MIN };
            for (k, &a) in axes.iter().enumerate() {
                let Some(d) = xs.get(a).and_then(|d| d.known()) else {
                    return unknown("an input dimension is not known");
                };
                let s = sizes[k] as f64 / d as f64;
                scale = if policy == b"not_larger" { scale.min(s) } else { scale.max(s) };
            }
            for (k, &a) in axes.iter().enumerate() {
                sizes[k] = (scale * xs[a].known().unwrap_or(0) as f64).round() as i64;
            }
        }
        // -1: an axis not resized keeps its dimension.
        let full = spread(n, sizes, |_| -1, r)?;
        full.iter()
            .enumerate()
            .map(|(i, &s)| match s {
                -1 => xs[i].clone(),
                s if s > 0 => Dim::Known(s as u64),
                _ => Dim::Unknown,
            })
            .collect()
    } else if non_empty(scales_i) {
        let s = floats(n.value(scales_i)?)?;
        let full = spread(n, s, |_| 1.0, r)?;
        scaled(xs, &full)
    } else {
        return invalid("it has neither scales nor sizes");
    };
    n.one(Ty::new(n.elem(0), out))
}

/// `Upsample`: `scales` attribute (opset 7) or input (opset 9).
pub fn upsample(n: &Node) -> Out {
    let xs = n.shape(0)?;
    let s: Vec<f64> = if n.has(1) {
        floats(n.value(1)?)?
    } else if let Some(s) = n.attr_floats("scales") {
        s.iter().map(|&v| v as f64).collect()
    } else {
        return invalid("it has no scales");
    };
    if s.len() != xs.len() {
        return invalid(format!("{} scales for rank {}", s.len(), xs.len()));
    }
    n.one(Ty::new(n.elem(0), scaled(xs, &s)))
}

/// `RNN`, `GRU`, `LSTM`: Y `[seq, dirs, batch, hidden]` and Y_h (Y_c) `[dirs, batch, hidden]`,
/// batch first when `layout` is 1.
pub fn rnn(n: &Node) -> Out {
    let xs = n.shape(0)?;
    if xs.len() != 3 {
        return invalid("X must be 3-D");
    }
    let layout = n.attr_i_or("layout", 0);
    let (seq, batch) = if layout == 0 {
        (&xs[0], &xs[1])
    } else {
        (&xs[1], &xs[0])
    };
    let dirs = match n.attr_s("direction").unwrap_or(b"forward") {
        b"bidirectional" => 2,
        _ => 1,
    };
    let hidden = match n.attr_i("hidden_size") {
        Some(h) if h > 0 => Dim::Known(h as u64),
        Some(h) => return invalid(format!("hidden_size is {h}")),
        // Else from R: [dirs, gates * hidden, hidden].
        None => match n.shape(2) {
            Ok(rs) if rs.len() == 3 => rs[2].clone(),
            _ => Dim::Unknown,
        },
    };
    let d = Dim::Known(dirs);
    let e = n.elem(0);
    let (y, yh) = if layout == 0 {
        (
            vec![seq.clone(), d.clone(), batch.clone(), hidden.clone()],
            vec![d, batch.clone(), hidden],
        )
    } else {
        (
            vec![batch.clone(), seq.clone(), d.clone(), hidden.clone()],
            vec![batch.clone(), d, hidden],
        )
    };
    Ok(vec![Ty::new(e, y), Ty::new(e, yh.clone()), Ty::new(e, yh)])
}
