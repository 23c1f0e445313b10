//! Which kernel each op runs, decided and checked for the whole graph before anything runs.
//!
//! Real kernels: `relu`, `add`, `mul` (same shapes, no broadcasting), `matmul` (2-D), `sum`
//! (over the last axis, or over everything into one element), all on f32, and `copy` (bytes, any
//! dtype). A binary op listing one tensor twice (`matmul(t, t)`) reads it as both operands: the
//! graph keeps each distinct input once, so one distinct input means both operands are it.
//! Any other kind runs as `fill`: it writes a fixed pattern over the storages it creates, so a
//! graph of unknown ops still runs with correct memory. A known kind whose tensors are given only
//! by `bytes` (no shape) also runs as `fill`, since its shapes cannot be checked.
//! A known kind whose shapes or dtypes do not fit is refused with an error naming the op.

use peakorder::dtype::Dtype;
use peakorder::error::show_id;
use peakorder::{Graph, TensorIx};

use super::data::fill_word;
use super::ExecError;

/// One op's work. Tensors are named by their storage (root tensor index); a view reads its
/// storage from the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// `y[i] = max(x[i], 0)` over `n` f32s (NaN gives 0).
    Relu { x: u32, y: u32, n: u64 },
    /// `y[i] = a[i] + b[i]`.
    Add { a: u32, b: u32, y: u32, n: u64 },
    /// `y[i] = a[i] * b[i]`.
    Mul { a: u32, b: u32, y: u32, n: u64 },
    /// Row-major `y[m,n] = a[m,k] @ b[k,n]`.
    Matmul {
        a: u32,
        b: u32,
        y: u32,
        m: u64,
        k: u64,
        n: u64,
    },
    /// `y[r] = sum_c x[r, c]`, summed in order of `c` (deterministic).
    Sum {
        x: u32,
        y: u32,
        rows: u64,
        cols: u64,
    },
    /// Copies `bytes` bytes from `x` to `y`.
    Copy { x: u32, y: u32, bytes: u64 },
    /// Writes the little-endian `word` repeated over each (storage, bytes).
    Fill { outputs: Vec<(u32, u64)>, word: u32 },
}

impl Kernel {
    /// The kernel's name in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Kernel::Relu { .. } => "relu",
            Kernel::Add { .. } => "add",
            Kernel::Mul { .. } => "mul",
            Kernel::Matmul { .. } => "matmul",
            Kernel::Sum { .. } => "sum",
            Kernel::Copy { .. } => "copy",
            Kernel::Fill { .. } => "fill",
        }
    }
}

/// A graph checked for execution: one kernel per op, and where each tensor's data lives.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Indexed by op.
    pub kernels: Vec<Kernel>,
    /// Per tensor: its storage and how many bytes of it the tensor spans.
    extents: Vec<(u32, u64)>,
}

impl Prepared {
    /// Storage and byte length of tensor `t`.
    pub fn extent(&self, t: TensorIx) -> (u32, u64) {
        self.extents[t as usize]
    }
}

/// A tensor's element type and shape, a view inheriting its target's when it declares none.
#[derive(Clone, Debug)]
struct Typed {
    shape: Vec<u64>,
    dtype: Dtype,
    numel: u64,
}

fn typed_of(g: &Graph, t: TensorIx) -> Option<Typed> {
    // Iterative walk up the alias chain (chains are acyclic: the graph checked that).
    let mut cur = t;
    loop {
        let tensor = &g.tensors()[cur as usize];
        if let (Some(shape), Some(dtype)) = (&tensor.shape, tensor.dtype) {
            let numel = shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))?;
            return Some(Typed {
                shape: shape.clone(),
                dtype,
                numel,
            });
        }
        cur = tensor.alias_of?;
    }
}

/// Checks every op and picks its kernel. Nothing is allocated.
pub fn prepare(g: &Graph) -> Result<Prepared, ExecError> {
    let n = g.num_tensors();
    let mut typed: Vec<Option<Typed>> = Vec::with_capacity(n);
    let mut extents = Vec::with_capacity(n);
    for t in 0..n as u32 {
        let tensor = &g.tensors()[t as usize];
        let root = tensor.root;
        let ty = typed_of(g, t);
        let bytes = match &ty {
            Some(ty) => ty.numel.checked_mul(ty.dtype.size()).ok_or_else(|| {
                ExecError::BadInput(format!(
                    "tensor {}: its shape's size overflows u64",
                    show_id(&tensor.id)
                ))
            })?,
            None => g.size(root),
        };
        if bytes > g.size(root) {
            return Err(ExecError::BadInput(format!(
                "view {} spans {bytes} bytes but its storage {} has only {}",
                show_id(&tensor.id),
                show_id(&g.tensors()[root as usize].id),
                g.size(root)
            )));
        }
        typed.push(ty);
        extents.push((root, bytes));
    }
    let mut kernels = Vec::with_capacity(g.num_ops());
    for v in 0..g.num_ops() as u32 {
        kernels.push(choose(g, v, &typed, &extents)?);
    }
    Ok(Prepared { kernels, extents })
}

fn fill(g: &Graph, v: u32) -> Kernel {
    Kernel::Fill {
        outputs: g.creates(v).iter().map(|&s| (s, g.size(s))).collect(),
        word: fill_word(&g.ops()[v as usize].id),
    }
}

fn choose(
    g: &Graph,
    v: u32,
    typed: &[Option<Typed>],
    extents: &[(u32, u64)],
) -> Result<Kernel, ExecError> {
    let op = &g.ops()[v as usize];
    let kind = op.kind.as_str();
    let (min_in, max_in) = match kind {
        "relu" | "sum" | "copy" => (1, 1),
        "add" | "mul" | "matmul" => (1, 2),
        _ => return Ok(fill(g, v)),
    };
    let refuse = |reason: String| ExecError::Unsupported {
        op: op.id.clone(),
        reason,
    };
    let name = |t: TensorIx| show_id(&g.tensors()[t as usize].id);
    if op.inputs.len() < min_in || op.inputs.len() > max_in {
        let want = if min_in == max_in {
            format!("{min_in}")
        } else {
            format!("{min_in} or {max_in}")
        };
        return Err(refuse(format!(
            "{kind} takes {want} distinct input(s), it has {}",
            op.inputs.len()
        )));
    }
    if op.outputs.len() != 1 {
        return Err(refuse(format!(
            "{kind} has one output, it lists {}",
            op.outputs.len()
        )));
    }
    let out = op.outputs[0];
    if g.tensors()[out as usize].alias_of.is_some() {
        return Err(refuse(format!(
            "its output {} is a view; the executor writes only new storage, so that every \
             order computes the same values",
            name(out)
        )));
    }
    let x = op.inputs[0];
    let x2 = *op.inputs.get(1).unwrap_or(&x);
    if kind == "copy" {
        let (xb, yb) = (extents[x as usize].1, extents[out as usize].1);
        if xb != yb {
            return Err(refuse(format!(
                "copy from {} ({xb} bytes) to {} ({yb} bytes): sizes differ",
                name(x),
                name(out)
            )));
        }
        return Ok(Kernel::Copy {
            x: extents[x as usize].0,
            y: out,
            bytes: xb,
        });
    }
    // Real f32 kernels need every shape; without one the op can only be filled.
    let (tx, tx2, tout) = match (
        &typed[x as usize],
        &typed[x2 as usize],
        &typed[out as usize],
    ) {
        (Some(a), Some(b), Some(c)) => (a, b, c),
        _ => return Ok(fill(g, v)),
    };
    for (t, tt) in [(x, tx), (x2, tx2), (out, tout)] {
        if tt.dtype != Dtype::F32 {
            return Err(refuse(format!(
                "{kind} runs on f32; tensor {} is {}",
                name(t),
                tt.dtype.name()
            )));
        }
    }
    let (sx, sx2, sy) = (&tx.shape, &tx2.shape, &tout.shape);
    let root = |t: TensorIx| extents[t as usize].0;
    let k = match kind {
        "relu" => {
            if sx != sy {
                return Err(refuse(format!(
                    "relu keeps the shape, but {} is {sx:?} and {} is {sy:?}",
                    name(x),
                    name(out)
                )));
            }
            Kernel::Relu {
                x: root(x),
                y: out,
                n: tout.numel,
            }
        }
        "add" | "mul" => {
            if sx != sy || sx2 != sy {
                return Err(refuse(format!(
                    "{kind} needs equal shapes (no broadcasting): {} is {sx:?}, {} is {sx2:?}, \
                     {} is {sy:?}",
                    name(x),
                    name(x2),
                    name(out)
                )));
            }
            let (a, b, y, n) = (root(x), root(x2), out, tout.numel);
            if kind == "add" {
                Kernel::Add { a, b, y, n }
            } else {
                Kernel::Mul { a, b, y, n }
            }
        }
        "matmul" => {
            let fits = sx.len() == 2
                && sx2.len() == 2
                && sy.len() == 2
                && sx[1] == sx2[0]
                && sy[0] == sx[0]
                && sy[1] == sx2[1];
            if !fits {
                return Err(refuse(format!(
                    "matmul needs 2-D [m, k] @ [k, n] -> [m, n]; got {} {sx:?} @ {} {sx2:?} -> \
                     {} {sy:?}",
                    name(x),
                    name(x2),
                    name(out)
                )));
            }
            // cuBLAS takes 32-bit dimensions; refuse here so both backends agree.
            if [sx[0], sx[1], sx2[1]].iter().any(|&d| d > i32::MAX as u64) {
                return Err(refuse(format!(
                    "matmul dimensions {sx:?} @ {sx2:?} exceed 2^31 - 1"
                )));
            }
            Kernel::Matmul {
                a: root(x),
                b: root(x2),
                y: out,
                m: sx[0],
                k: sx[1],
                n: sx2[1],
            }
        }
        "sum" => {
            let nx = tx.numel;
            let ny = tout.numel;
            let last = sx.last().copied();
            let keep_last_as_one = sx.len() == sy.len()
                && !sx.is_empty()
                && sy[sy.len() - 1] == 1
                && sx[..sx.len() - 1] == sy[..sy.len() - 1];
            let drop_last = !sx.is_empty() && sx[..sx.len() - 1] == sy[..];
            let (rows, cols) = if ny == 1 {
                (1, nx)
            } else if keep_last_as_one || drop_last {
                (ny, last.unwrap_or(1))
            } else {
                return Err(refuse(format!(
                    "sum reduces the last axis (or everything into one element); {} is {sx:?} \
                     and {} is {sy:?}",
                    name(x),
                    name(out)
                )));
            };
            Kernel::Sum {
                x: root(x),
                y: out,
                rows,
                cols,
            }
        }
        _ => fill(g, v),
    };
    Ok(k)
}
