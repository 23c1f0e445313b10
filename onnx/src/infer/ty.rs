//! What shape inference knows about a value: element type, shape (dimensions may be symbolic or
//! unknown) and, for small tensors that shape computations use, the elements themselves.

use std::fmt;
use std::rc::Rc;

/// The most elements one folded tensor may have (a [`Ty`] keeps elements up to this many).
pub const FOLD_LIMIT: usize = 4096;
/// The most elements all folded tensors together may have (about 50 MB): a hostile model with
/// many large foldable tensors stops being folded instead of exhausting memory.
pub const FOLD_BUDGET: usize = 1 << 21;

/// One dimension.
#[derive(Clone, Debug, PartialEq)]
pub enum Dim {
    Known(u64),
    /// A named dimension (`dim_param`) no `--assume-dim` gave a value; carried through as is.
    Sym(Rc<str>),
    Unknown,
}

impl Dim {
    pub fn known(&self) -> Option<u64> {
        match self {
            Dim::Known(v) => Some(*v),
            _ => None,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(v) => write!(f, "{v}"),
            Dim::Sym(s) => f.write_str(s),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// `[2, batch, ?]`.
pub fn dims_text(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// One element of a folded tensor. Integer and boolean tensors hold `Int`; floating-point ones
/// `Float`. A `Shape` of a tensor with a symbolic dimension holds `Sym`, so that shape arithmetic
/// (`Shape → Gather → Concat → Reshape`) carries the symbol through; what cannot be computed is
/// `Unknown`.
#[derive(Clone, Debug, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
    Sym(Rc<str>),
    Unknown,
}

impl Num {
    pub fn int(&self) -> Option<i64> {
        match self {
            Num::Int(v) => Some(*v),
            _ => None,
        }
    }
    pub fn float(&self) -> Option<f64> {
        match self {
            Num::Int(v) => Some(*v as f64),
            Num::Float(v) => Some(*v),
            _ => None,
        }
    }
    /// As a dimension of a target shape (Reshape, Expand, ConstantOfShape, ...).
    pub fn as_dim(&self) -> Dim {
        match self {
            Num::Int(v) if *v >= 0 => Dim::Known(*v as u64),
            Num::Sym(s) => Dim::Sym(s.clone()),
            _ => Dim::Unknown,
        }
    }
    pub fn from_dim(d: &Dim) -> Num {
        match d {
            Dim::Known(v) => i64::try_from(*v).map_or(Num::Unknown, Num::Int),
            Dim::Sym(s) => Num::Sym(s.clone()),
            Dim::Unknown => Num::Unknown,
        }
    }
}

/// What is known about one value. `Ty::default()` knows nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ty {
    /// `TensorProto.DataType`; `None` when unknown.
    pub elem: Option<i32>,
    /// `None` when even the rank is unknown.
    pub shape: Option<Vec<Dim>>,
    /// The elements, row-major, when the tensor is small and computable before running the model.
    /// Present only when every dimension is known and the count matches.
    pub value: Option<Rc<Vec<Num>>>,
}

impl Ty {
    pub fn new(elem: Option<i32>, shape: Vec<Dim>) -> Ty {
        Ty {
            elem,
            shape: Some(shape),
            value: None,
        }
    }
    pub fn elem_only(elem: Option<i32>) -> Ty {
        Ty {
            elem,
            ..Ty::default()
        }
    }
    pub fn known(elem: i32, dims: &[u64]) -> Ty {
        Ty::new(Some(elem), dims.iter().map(|&d| Dim::Known(d)).collect())
    }
    /// Attaches `value` when the shape is fully known and has as many elements, at most
    /// `FOLD_LIMIT`.
    pub fn with_value(mut self, value: Vec<Num>) -> Ty {
        if value.len() <= FOLD_LIMIT
            && self.known_dims().and_then(|d| count(&d)) == Some(value.len() as u64)
        {
            self.value = Some(Rc::new(value));
        }
        self
    }
    /// Every dimension, when all are known.
    pub fn known_dims(&self) -> Option<Vec<u64>> {
        self.shape.as_ref()?.iter().map(|d| d.known()).collect()
    }
    pub fn is_complete(&self) -> bool {
        self.elem.is_some() && self.known_dims().is_some()
    }
    /// `f32[2, batch]`, for messages.
    pub fn describe(&self) -> String {
        let e = self
            .elem
            .map_or_else(|| "?".to_string(), crate::dtype::name);
        match &self.shape {
            Some(s) => format!("{e}{}", dims_text(s)),
            None => format!("{e} of unknown shape"),
        }
    }
}

/// The element count of a shape, `None` on overflow.
pub fn count(dims: &[u64]) -> Option<u64> {
    dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d))
}

/// Whether a tensor of this type is small enough to fold (checked before computing elements).
pub fn small(t: &Ty) -> bool {
    t.known_dims()
        .and_then(|d| count(&d))
        .is_some_and(|c| c <= FOLD_LIMIT as u64)
}
