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
                if (0.0..1e18).contains(&r) {
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
        .map(|e| {
            e.float()
                .ok_or(Fail::Unknown("a scale is not known".into()))
        })
        .collect()
}

/// Places per-axis values given for `axes` (or all axes) into a full-rank list.
fn spread<T: Clone>(
    n: &Node,
    vals: Vec<T>,
    fill: impl Fn(usize) -> T,
    rank: usize,
) -> Result<Vec<T>, Fail> {
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
    let (scales_i, sizes_i) = if n.opset < 11 {
        (1, None)
    } else {
        (2, Some(3))
    };
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
            let mut scale = if policy == b"not_larger" {
                f64::MAX
            } else {
                f64::MIN
            };
            for (k, &a) in axes.iter().enumerate() {
                let Some(d) = xs.get(a).and_then(|d| d.known()) else {
                    return unknown("an input dimension is not known");
                };
                let s = sizes[k] as f64 / d as f64;
                scale = if policy == b"not_larger" {
                    scale.min(s)
                } else {
                    scale.max(s)
                };
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

/// `Attention` (opset 23): Y is `[B, Hq, Sq, Dv]` for 4-D inputs and `[B, Sq, Hq * Dv]` for 3-D
/// ones (with `q_num_heads`, `kv_num_heads`); the present key and value append the new sequence
/// to the past ones; the optional QK output is `[B, Hq, Sq, total]`. As ONNX infers it
/// (onnx/defs/nn/utils.cc).
pub fn attention(n: &Node) -> Out {
    let q = n.shape(0)?;
    let v = n.shape(2)?;
    let e = n.elem(0);
    if !matches!(q.len(), 3 | 4) || !matches!(v.len(), 3 | 4) {
        return invalid("query, key and value must be 3-D or 4-D");
    }
    let (y, qk, kv_seq) = match (q.len(), v.len()) {
        (4, 4) => (
            vec![q[0].clone(), q[1].clone(), q[2].clone(), v[3].clone()],
            vec![q[0].clone(), q[1].clone(), q[2].clone(), v[2].clone()],
            v[2].clone(),
        ),
        (3, 3) => {
            let (Some(hq), Some(hkv)) = (n.attr_i("q_num_heads"), n.attr_i("kv_num_heads")) else {
                return invalid("3-D inputs need q_num_heads and kv_num_heads");
            };
            if hq <= 0 || hkv <= 0 {
                return invalid("q_num_heads and kv_num_heads must be positive");
            }
            let hidden = match v[2].known() {
                Some(vh) => Dim::Known(vh / hkv as u64 * hq as u64),
                None => Dim::Unknown,
            };
            (
                vec![q[0].clone(), q[1].clone(), hidden],
                vec![
                    q[0].clone(),
                    Dim::Known(hq as u64),
                    q[1].clone(),
                    v[1].clone(),
                ],
                v[1].clone(),
            )
        }
        _ => return unknown("query and value have different ranks"),
    };
    let mut out = vec![Ty::new(e, y), Ty::default(), Ty::default(), Ty::new(e, qk)];
    if n.has(4) && n.has(5) {
        let (pk, pv) = (n.shape(4)?, n.shape(5)?);
        if pk.len() != 4 || pv.len() != 4 {
            return invalid("past_key and past_value must be 4-D");
        }
        if let (Some(s), Some(p)) = (kv_seq.known(), pk[2].known()) {
            let total = Dim::Known(s + p);
            let mut k = pk.to_vec();
            k[2] = total.clone();
            let mut vv = pv.to_vec();
            vv[2] = total.clone();
            out[1] = Ty::new(n.elem(4), k);
            out[2] = Ty::new(n.elem(5), vv);
            if let Some(s) = out[3].shape.as_mut() {
                s[3] = total;
            }
        }
    }
    Ok(out)
}

/// `NegativeLogLikelihoodLoss` and `SoftmaxCrossEntropyLoss`: the target's shape with
/// `reduction="none"`, else a scalar; the latter's optional log-probabilities are the scores'.
pub fn loss(n: &Node) -> Out {
    let target = n.shape(1)?;
    let none = n.attr_s("reduction") == Some(b"none");
    let y = Ty::new(n.elem(0), if none { target.to_vec() } else { Vec::new() });
    let x = n.input(0)?;
    Ok(vec![
        y,
        Ty {
            elem: x.elem,
            shape: x.shape.clone(),
            value: None,
        },
    ])
}

/// `GridSample(X [N, C, D...], grid [N, H..., k])`: `[N, C, H...]`.
pub fn grid_sample(n: &Node) -> Out {
    let x = n.shape_min(0, 2)?;
    let g = n.shape_min(1, 2)?;
    let mut out = vec![x[0].clone(), x[1].clone()];
    out.extend_from_slice(&g[1..g.len() - 1]);
    n.one(Ty::new(n.elem(0), out))
}

/// `Det(X [*, M, M])`: `[*]`.
pub fn det(n: &Node) -> Out {
    let x = n.shape_min(0, 2)?;
    n.one(Ty::new(n.elem(0), x[..x.len() - 2].to_vec()))
}
