//! Model-like graph families for benchmarks and tests, deterministic from a seed.
//!
//! - [`random_layered`]: random layered DAGs (ops read from the last few layers).
//! - [`random_sp`]: random series-parallel (fork–join) graphs.
//! - [`unet`]: U-Nets with long skip connections, forward and backward.
//! - [`transformer`]: transformer blocks, forward and backward, with or without activation
//!   checkpointing (per-block recomputation in the backward pass).
//! - [`nas_cells`]: ResNet/NAS-like cells (DARTS-style: each node sums two ops of earlier nodes),
//!   forward and backward.
//! - [`workflow`]: scientific workflows with large files (split, map, merge and reference data).
//!
//! Training graphs come from one reverse-mode builder ([`Net::training`]): each forward op gets a
//! gradient op per differentiable input that reads the output's gradient and the op's saved
//! inputs, and gradients of a tensor used several times are summed as they arrive. The random
//! families take a seed ([`Rng`]); [`random_layered_from`] and [`random_sp_from`] take any
//! [`Draw`] (a proptest [`Tape`](super::draw::Tape) in the property tests).

use super::draw::{Draw, Rng};
use crate::format::{GraphSpec, OpSpec, TensorSpec, FORMAT};

/// A graph under construction: tensors and ops with generated ids.
#[derive(Clone, Debug, Default)]
pub struct Net {
    pub tensors: Vec<TensorSpec>,
    pub ops: Vec<OpSpec>,
    pub outputs: Vec<String>,
    /// Tensor index → bytes.
    bytes: Vec<u64>,
    /// Tensor index → needs a gradient (activations and parameters, not data).
    grad: Vec<bool>,
    /// Op index → (kind, inputs, output) as indices, for the backward builder.
    fwd: Vec<(String, Vec<usize>, usize)>,
    /// Op index → checkpoint segment (ops of one segment are recomputed together).
    segment: Vec<u32>,
    current_segment: u32,
}

impl Net {
    pub fn new() -> Self {
        Net::default()
    }

    fn add_tensor(&mut self, prefix: &str, bytes: u64, grad: bool) -> usize {
        let i = self.tensors.len();
        self.tensors.push(TensorSpec {
            id: format!("{prefix}{i}"),
            bytes: Some(bytes),
            ..Default::default()
        });
        self.bytes.push(bytes);
        self.grad.push(grad);
        i
    }

    /// A graph input the caller keeps (a parameter when `grad`).
    pub fn input(&mut self, bytes: u64, grad: bool) -> usize {
        self.add_tensor(if grad { "w" } else { "x" }, bytes, grad)
    }

    /// An op reading `inputs` and writing one new tensor of `bytes`; returns that tensor.
    pub fn op(&mut self, kind: &str, inputs: &[usize], bytes: u64) -> usize {
        self.op_ws(kind, inputs, bytes, 0)
    }

    /// Like [`Net::op`], with scratch workspace.
    pub fn op_ws(&mut self, kind: &str, inputs: &[usize], bytes: u64, workspace: u64) -> usize {
        let out = self.add_tensor("t", bytes, true);
        let k = self.ops.len();
        self.ops.push(OpSpec {
            id: format!("{kind}{k}"),
            kind: Some(kind.to_string()),
            inputs: inputs.iter().map(|&t| self.tensors[t].id.clone()).collect(),
            outputs: vec![self.tensors[out].id.clone()],
            workspace: (workspace > 0).then_some(workspace),
            ..Default::default()
        });
        self.fwd.push((kind.to_string(), inputs.to_vec(), out));
        self.segment.push(self.current_segment);
        out
    }

    /// Starts a new checkpoint segment (used by [`Net::training`] with checkpointing).
    pub fn next_segment(&mut self) {
        self.current_segment += 1;
    }

    pub fn bytes(&self, t: usize) -> u64 {
        self.bytes[t]
    }

    pub fn mark_output(&mut self, t: usize) {
        self.outputs.push(self.tensors[t].id.clone());
    }

    /// The graph as built so far.
    pub fn spec(self) -> GraphSpec {
        GraphSpec {
            format: Some(FORMAT.into()),
            tensors: self.tensors,
            ops: self.ops,
            outputs: self.outputs,
            meta: None,
        }
    }

    /// Adds a loss on `out` and the backward pass; parameter gradients become graph outputs.
    /// With `checkpoint`, only tensors crossing checkpoint segments are kept for the backward
    /// pass; each segment's ops are recomputed from them just before its gradients.
    pub fn training(mut self, out: usize, checkpoint: bool) -> GraphSpec {
        let n_fwd = self.fwd.len();
        let fwd = self.fwd.clone();
        let segment = self.segment.clone();
        let loss = self.op("loss", &[out], 4);
        let mut grad_of: Vec<Option<usize>> = vec![None; self.tensors.len()];
        grad_of[out] = Some(self.op("loss_grad", &[loss, out], self.bytes[out]));
        // Which op produces each tensor, in the forward pass.
        let mut producer: Vec<Option<usize>> = vec![None; self.tensors.len()];
        for (k, (_, _, o)) in fwd.iter().enumerate() {
            producer[*o] = Some(k);
        }
        let mut k = n_fwd;
        while k > 0 {
            // One checkpoint segment at a time, last first.
            let seg = segment[k - 1];
            let mut start = k - 1;
            while start > 0 && segment[start - 1] == seg {
                start -= 1;
            }
            // The tensors the backward ops of this segment read: originals, or recomputed.
            let mut saved: Vec<usize> = (0..self.tensors.len()).collect();
            if checkpoint {
                for (kind, ins, o) in &fwd[start..k] {
                    let ins: Vec<usize> = ins.iter().map(|&t| saved[t]).collect();
                    let r = self.op(&format!("re_{kind}"), &ins, self.bytes[*o]);
                    saved.resize(self.tensors.len(), 0);
                    saved[*o] = r;
                }
            }
            for j in (start..k).rev() {
                let (kind, ins, o) = &fwd[j];
                let Some(gy) = grad_of[*o] else { continue };
                let reads: Vec<usize> = std::iter::once(gy)
                    .chain(ins.iter().map(|&t| saved[t]))
                    .collect();
                for &x in ins {
                    if !self.grad[x] {
                        continue;
                    }
                    let gx = self.op(&format!("d_{kind}"), &reads, self.bytes[x]);
                    grad_of.resize(self.tensors.len(), None);
                    grad_of[x] = Some(match grad_of[x] {
                        None => gx,
                        Some(acc) => self.op("grad_add", &[acc, gx], self.bytes[x]),
                    });
                }
            }
            k = start;
        }
        for (t, made_by) in producer.iter().enumerate() {
            if made_by.is_none() && self.grad[t] {
                if let Some(gw) = grad_of.get(t).copied().flatten() {
                    self.mark_output(gw);
                }
            }
        }
        self.spec()
    }
}

/// Random layered DAG: `layers` layers of `width` ops; each op reads one to three tensors from
/// the previous three layers (mostly the previous one), sizes spread over 64×.
pub fn random_layered(seed: u64, layers: usize, width: usize) -> GraphSpec {
    random_layered_from(&mut Rng::new(seed), layers, width)
}

/// [`random_layered`] with its choices drawn from `rng`.
pub fn random_layered_from<D: Draw + ?Sized>(
    rng: &mut D,
    layers: usize,
    width: usize,
) -> GraphSpec {
    let mut net = Net::new();
    let mut prev: Vec<Vec<usize>> = vec![(0..width)
        .map(|_| net.input(rng.size(1 << 12, 6), false))
        .collect()];
    for _ in 0..layers {
        let mut layer = Vec::with_capacity(width);
        for _ in 0..width {
            let k = rng.range(1, 3) as usize;
            let mut ins: Vec<usize> = Vec::with_capacity(k);
            for _ in 0..k {
                let back = if rng.chance(0.75) {
                    1
                } else {
                    rng.range(1, 3.min(prev.len() as u64)) as usize
                };
                let from = &prev[prev.len() - back];
                let t = from[rng.range(0, from.len() as u64 - 1) as usize];
                if !ins.contains(&t) {
                    ins.push(t);
                }
            }
            layer.push(net.op("op", &ins, rng.size(1 << 12, 6)));
        }
        prev.push(layer);
    }
    let last = prev.last().cloned().unwrap_or_default();
    for t in last {
        net.mark_output(t);
    }
    net.spec()
}

/// Random series-parallel (fork–join) graph of about `ops` ops: a random decomposition tree,
/// each parallel block joined by one op, every block reading one tensor and writing one.
pub fn random_sp(seed: u64, ops: usize) -> GraphSpec {
    random_sp_from(&mut Rng::new(seed), ops)
}

/// [`random_sp`] with its choices drawn from `rng`.
pub fn random_sp_from<D: Draw + ?Sized>(rng: &mut D, ops: usize) -> GraphSpec {
    #[derive(Clone)]
    enum T {
        Leaf,
        Series(Vec<usize>),
        Parallel(Vec<usize>),
    }
    // Build the tree by splitting sizes (explicit stack: no recursion).
    let mut nodes: Vec<T> = Vec::new();
    let mut todo: Vec<(usize, usize)> = vec![(0, ops.max(1))];
    nodes.push(T::Leaf);
    while let Some((id, size)) = todo.pop() {
        if size <= 1 {
            continue;
        }
        let parts = rng.range(2, 4.min(size as u64)) as usize;
        let mut kids = Vec::with_capacity(parts);
        let mut left = size;
        for p in 0..parts {
            let s = if p + 1 == parts {
                left
            } else {
                rng.range(1, (left - (parts - p - 1)) as u64 / 2 + 1) as usize
            };
            left -= s;
            nodes.push(T::Leaf);
            let c = nodes.len() - 1;
            kids.push(c);
            todo.push((c, s));
        }
        nodes[id] = if rng.chance(0.5) {
            T::Series(kids)
        } else {
            T::Parallel(kids)
        };
    }
    let mut net = Net::new();
    let x = net.input(rng.size(1 << 14, 4), false);
    // Materialise depth-first: (node, input tensor, next child, outputs of children so far).
    let mut out_of: Vec<usize> = vec![usize::MAX; nodes.len()];
    let mut stack: Vec<(usize, usize, usize)> = vec![(0, x, 0)];
    while let Some(&(id, input, next)) = stack.last() {
        match &nodes[id] {
            T::Leaf => {
                let b = rng.size(1 << 12, 8);
                out_of[id] = net.op("op", &[input], b);
                stack.pop();
            }
            T::Series(kids) | T::Parallel(kids) => {
                let series = matches!(nodes[id], T::Series(_));
                if next < kids.len() {
                    let child_in = if series && next > 0 {
                        out_of[kids[next - 1]]
                    } else {
                        input
                    };
                    let c = kids[next];
                    stack.last_mut().unwrap().2 += 1;
                    stack.push((c, child_in, 0));
                } else {
                    out_of[id] = if series {
                        out_of[*kids.last().unwrap()]
                    } else {
                        let ins: Vec<usize> = kids.iter().map(|&c| out_of[c]).collect();
                        let b = rng.size(1 << 12, 8);
                        net.op("join", &ins, b)
                    };
                    stack.pop();
                }
            }
        }
    }
    net.mark_output(out_of[0]);
    net.spec()
}

/// U-Net with `depth` down/up levels and long skip connections, forward and backward.
/// Activations are `batch · c · h · w` f16 values, channels doubling as resolution halves.
pub fn unet(depth: usize, base_channels: u64, resolution: u64) -> GraphSpec {
    let mut net = Net::new();
    let act = |c: u64, r: u64| 2 * 4 * c * r * r;
    let x = net.input(act(3, resolution), false);
    let mut h = x;
    let mut skips = Vec::new();
    let (mut c, mut r) = (base_channels, resolution);
    let mut prev_c = 3;
    for _ in 0..depth {
        let w1 = net.input(2 * 9 * prev_c * c, true);
        let w2 = net.input(2 * 9 * c * c, true);
        let a = net.op_ws("conv", &[h, w1], act(c, r), act(c, r) / 4);
        let a = net.op("relu", &[a], act(c, r));
        let b = net.op_ws("conv", &[a, w2], act(c, r), act(c, r) / 4);
        let b = net.op("relu", &[b], act(c, r));
        skips.push((b, c, r));
        h = net.op("pool", &[b], act(c, r / 2));
        prev_c = c;
        c *= 2;
        r /= 2;
    }
    let w = net.input(2 * 9 * prev_c * c, true);
    h = net.op_ws("conv", &[h, w], act(c, r), act(c, r) / 4);
    h = net.op("relu", &[h], act(c, r));
    for (skip, sc, sr) in skips.into_iter().rev() {
        let wu = net.input(2 * 4 * c * sc, true);
        let up = net.op("upconv", &[h, wu], act(sc, sr));
        let cat = net.op("concat", &[up, skip], act(2 * sc, sr));
        let w1 = net.input(2 * 9 * 2 * sc * sc, true);
        let w2 = net.input(2 * 9 * sc * sc, true);
        let a = net.op_ws("conv", &[cat, w1], act(sc, sr), act(sc, sr) / 4);
        let a = net.op("relu", &[a], act(sc, sr));
        let b = net.op_ws("conv", &[a, w2], act(sc, sr), act(sc, sr) / 4);
        h = net.op("relu", &[b], act(sc, sr));
        c = sc;
    }
    let wh = net.input(2 * c, true);
    let out = net.op("head", &[h, wh], act(1, resolution));
    net.training(out, false)
}

/// `layers` transformer blocks (pre-norm attention + MLP), forward and backward, bf16, with
/// per-block activation checkpointing when `checkpoint`.
pub fn transformer(
    layers: usize,
    batch: u64,
    seq: u64,
    hidden: u64,
    checkpoint: bool,
) -> GraphSpec {
    let mut net = Net::new();
    let heads = (hidden / 64).max(1);
    let act = 2 * batch * seq * hidden;
    let scores = 2 * batch * heads * seq * seq;
    let mut x = net.input(act, false);
    for _ in 0..layers {
        net.next_segment();
        let g1 = net.input(2 * hidden, true);
        let wqkv = net.input(2 * 3 * hidden * hidden, true);
        let wo = net.input(2 * hidden * hidden, true);
        let g2 = net.input(2 * hidden, true);
        let w1 = net.input(2 * 4 * hidden * hidden, true);
        let w2 = net.input(2 * 4 * hidden * hidden, true);
        let n1 = net.op("layernorm", &[x, g1], act);
        let qkv = net.op("matmul", &[n1, wqkv], 3 * act);
        let s = net.op("scores", &[qkv], scores);
        let p = net.op("softmax", &[s], scores);
        let a = net.op("attend", &[p, qkv], act);
        let o = net.op("matmul", &[a, wo], act);
        let x2 = net.op("add", &[x, o], act);
        let n2 = net.op("layernorm", &[x2, g2], act);
        let f1 = net.op("matmul", &[n2, w1], 4 * act);
        let f2 = net.op("gelu", &[f1], 4 * act);
        let f3 = net.op("matmul", &[f2, w2], act);
        x = net.op("add", &[x2, f3], act);
    }
    net.next_segment();
    let wout = net.input(2 * hidden * 1024, true);
    let logits = net.op("matmul", &[x, wout], 2 * batch * seq * 1024);
    net.training(logits, checkpoint)
}

/// `cells` NAS-like cells (each of `nodes` nodes sums two ops applied to earlier nodes or the
/// two previous cells' outputs; the cell's output concatenates its nodes), forward and backward.
pub fn nas_cells(seed: u64, cells: usize, nodes: usize, channels: u64, res: u64) -> GraphSpec {
    let mut rng = Rng::new(seed);
    let mut net = Net::new();
    let act = 2 * 8 * channels * res * res;
    let stem = net.input(act, false);
    let (mut pp, mut p) = (stem, stem);
    for _ in 0..cells {
        let mut states = vec![pp, p];
        for _ in 0..nodes {
            let mut sum_in = Vec::new();
            for _ in 0..2 {
                let src = states[rng.range(0, states.len() as u64 - 1) as usize];
                let t = match rng.range(0, 3) {
                    0 => {
                        let w = net.input(2 * 9 * channels, true);
                        let a = net.op("dwconv", &[src, w], act);
                        let w2 = net.input(2 * channels * channels, true);
                        net.op_ws("pwconv", &[a, w2], act, act / 2)
                    }
                    1 => net.op("maxpool", &[src], act),
                    2 => {
                        let w = net.input(2 * 25 * channels, true);
                        net.op_ws("dilconv", &[src, w], act, act)
                    }
                    _ => net.op("identity", &[src], act),
                };
                sum_in.push(t);
            }
            states.push(net.op("add", &sum_in, act));
        }
        let cat = net.op("concat", &states[2..], act * nodes as u64);
        let w = net.input(2 * nodes as u64 * channels * channels, true);
        let out = net.op("reduce", &[cat, w], act);
        pp = p;
        p = out;
    }
    net.training(p, false)
}

/// A scientific workflow (Montage/Epigenomics-like) with large files: `stages` of split → map
/// (`width` tasks) → merge, reference files read by many tasks across stages, file sizes from
/// megabytes to gigabytes.
pub fn workflow(seed: u64, stages: usize, width: usize) -> GraphSpec {
    let mut rng = Rng::new(seed);
    let mut net = Net::new();
    let mb = 1u64 << 20;
    let mut cur = net.input(rng.size(64 * mb, 4), false);
    let mut refs: Vec<usize> = vec![net.input(rng.size(256 * mb, 2), false)];
    for _ in 0..stages {
        let chunks: Vec<usize> = (0..width)
            .map(|_| net.op("split", &[cur], rng.size(8 * mb, 5)))
            .collect();
        let mut outs = Vec::with_capacity(width);
        for &ch in &chunks {
            let r = refs[rng.range(0, refs.len() as u64 - 1) as usize];
            let a = net.op_ws("map", &[ch, r], rng.size(4 * mb, 6), rng.size(mb, 4));
            let b = if rng.chance(0.5) {
                net.op("filter", &[a], rng.size(mb, 4))
            } else {
                a
            };
            outs.push(b);
        }
        // Some stages also emit a large reference product used by later stages.
        if rng.chance(0.5) {
            let k = rng.range(1, width as u64) as usize;
            let r = net.op("index", &outs[..k], rng.size(128 * mb, 3));
            refs.push(r);
        }
        cur = net.op("merge", &outs, rng.size(32 * mb, 4));
    }
    net.mark_output(cur);
    net.spec()
}
