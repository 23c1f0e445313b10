//! One node as a shape rule sees it: its inputs' types, its attributes, its opset version, and
//! the ways a rule can fail.

use super::ty::{Dim, Num, Ty};
use crate::proto::{AttributeProto, NodeProto, TensorProto};

/// Why a rule gives no (complete) answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Fail {
    /// Something the rule needs is not known (an input's shape, or the value of an input that
    /// must be a constant). Not an error by itself: the file may give the outputs' shapes.
    Unknown(String),
    /// peakorder has no rule for this op, or for this use of it.
    Unsupported(String),
    /// The node contradicts itself or its inputs (a Reshape with two -1 dims, ...): an error.
    Invalid(String),
}

pub type Out = Result<Vec<Ty>, Fail>;

pub struct Node<'a> {
    pub proto: &'a NodeProto,
    pub op: &'a str,
    /// The opset version of the node's domain.
    pub opset: i64,
    /// One per `proto.input`; `None` for an absent optional input (empty name).
    pub inputs: Vec<Option<&'a Ty>>,
    /// How many outputs the node names (trailing optional ones may be empty names).
    pub n_outputs: usize,
}

pub fn unknown<T>(what: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::Unknown(what.into()))
}
pub fn invalid<T>(what: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::Invalid(what.into()))
}
pub fn unsupported<T>(what: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::Unsupported(what.into()))
}

impl<'a> Node<'a> {
    fn input_name(&self, i: usize) -> &str {
        self.proto.input.get(i).map_or("", |s| s.as_str())
    }

    pub fn has(&self, i: usize) -> bool {
        matches!(self.inputs.get(i), Some(Some(_)))
    }

    /// Input `i`, which the op requires.
    pub fn input(&self, i: usize) -> Result<&'a Ty, Fail> {
        match self.inputs.get(i) {
            Some(Some(t)) => Ok(t),
            _ => invalid(format!("it has no input {i}, which {} requires", self.op)),
        }
    }

    pub fn elem(&self, i: usize) -> Option<i32> {
        self.inputs.get(i).copied().flatten().and_then(|t| t.elem)
    }

    /// Input `i`'s shape; `Fail::Unknown` when not known.
    pub fn shape(&self, i: usize) -> Result<&'a [Dim], Fail> {
        match self.input(i)?.shape.as_deref() {
            Some(s) => Ok(s),
            None => unknown(format!(
                "the shape of input {:?} is not known",
                self.input_name(i)
            )),
        }
    }

    /// Input `i`'s shape with at least `min` dims.
    pub fn shape_min(&self, i: usize, min: usize) -> Result<&'a [Dim], Fail> {
        let s = self.shape(i)?;
        if s.len() < min {
            return invalid(format!(
                "input {:?} has rank {}, but {} needs at least {min}",
                self.input_name(i),
                s.len(),
                self.op
            ));
        }
        Ok(s)
    }

    /// The elements of input `i`, which must be computable before running the model.
    pub fn value(&self, i: usize) -> Result<&'a [Num], Fail> {
        match &self.input(i)?.value {
            Some(v) => Ok(v),
            None => unknown(format!(
                "the value of input {:?} is not a constant peakorder can compute",
                self.input_name(i)
            )),
        }
    }

    /// The integer elements of input `i`.
    pub fn ints(&self, i: usize) -> Result<Vec<i64>, Fail> {
        self.value(i)?
            .iter()
            .map(|n| match n {
                Num::Int(v) => Ok(*v),
                _ => unknown(format!(
                    "input {:?} has elements peakorder cannot compute",
                    self.input_name(i)
                )),
            })
            .collect()
    }

    /// Integer list from input `i` when present, else from attribute `attr` (the many ops whose
    /// attributes became inputs in later opsets); `None` when neither is given.
    pub fn ints_in_or_attr(&self, i: usize, attr: &str) -> Result<Option<Vec<i64>>, Fail> {
        if self.has(i) {
            return self.ints(i).map(Some);
        }
        Ok(self.attr_ints(attr).map(|v| v.to_vec()))
    }

    pub fn attr(&self, name: &str) -> Option<&'a AttributeProto> {
        self.proto
            .attribute
            .iter()
            .find(|a| a.name.as_deref() == Some(name))
    }
    pub fn attr_i(&self, name: &str) -> Option<i64> {
        self.attr(name).and_then(|a| a.i)
    }
    pub fn attr_i_or(&self, name: &str, default: i64) -> i64 {
        self.attr_i(name).unwrap_or(default)
    }
    pub fn attr_ints(&self, name: &str) -> Option<&'a [i64]> {
        self.attr(name).map(|a| a.ints.as_slice())
    }
    pub fn attr_floats(&self, name: &str) -> Option<&'a [f32]> {
        self.attr(name).map(|a| a.floats.as_slice())
    }
    pub fn attr_s(&self, name: &str) -> Option<&'a [u8]> {
        self.attr(name).and_then(|a| a.s.as_deref())
    }
    pub fn attr_t(&self, name: &str) -> Option<&'a TensorProto> {
        self.attr(name).and_then(|a| a.t.as_ref())
    }

    /// `axis` in `[-rank, rank)` as an index.
    pub fn axis(&self, axis: i64, rank: usize) -> Result<usize, Fail> {
        let r = rank as i64;
        let a = if axis < 0 { axis + r } else { axis };
        if a < 0 || a >= r {
            return invalid(format!("axis {axis} is out of range for rank {rank}"));
        }
        Ok(a as usize)
    }

    /// Several axes, normalised; a repeated axis is invalid.
    pub fn axes(&self, axes: &[i64], rank: usize) -> Result<Vec<usize>, Fail> {
        let out = axes
            .iter()
            .map(|&a| self.axis(a, rank))
            .collect::<Result<Vec<_>, _>>()?;
        // Sorted, not pairwise: hostile attributes may list very many axes.
        let mut sorted = out.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return invalid(format!("axis {} is given twice", w[0]));
        }
        Ok(out)
    }

    /// `axes` as a mask over `rank` dims.
    pub fn mask(axes: &[usize], rank: usize) -> Vec<bool> {
        let mut m = vec![false; rank];
        for &a in axes {
            m[a] = true;
        }
        m
    }

    /// The output list with output 0 = `t` and the rest unknown.
    pub fn one(&self, t: Ty) -> Out {
        let mut v = vec![Ty::default(); self.n_outputs.max(1)];
        v[0] = t;
        Ok(v)
    }
}
