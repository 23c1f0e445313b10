//! Phase 3: shape and type inference with constant folding.
//!
//! Nodes are visited in the file's order (ONNX requires it to be topological). Each node's rule
//! (`rules`) computes its outputs' element types and shapes from its inputs' and, for the small
//! integer tensors that shape computations pass around (`Shape → Gather → Concat → Reshape`), their
//! elements, so that a Reshape to a computed shape gets sizes. Symbolic dimensions travel as
//! symbols. What the file gives for an output is merged in and wins: a known dimension in the file
//! beats an inferred symbol, and a file dimension that contradicts an inferred one is an error
//! naming the tensor. A node whose outputs cannot be inferred (an op without a rule, a shape that
//! depends on data) is not an error by itself: it is remembered, and named if one of the tensors it
//! leaves without a shape has none in the file either (`build`).

pub mod ty;

mod elementwise;
mod fold;
mod gen;
mod linalg;
mod misc;
mod nn;
mod node;
mod reduce;
mod rules;
mod shape;

use std::collections::HashMap;

use super::decode::{norm, Decoded};
use super::error::Error;
use super::resolve::{self, Given, Resolved};
use node::{Fail, Node};
use ty::{Dim, Ty};

pub struct Inferred<'a> {
    /// What is known about every tensor, the file's information merged in.
    pub types: HashMap<&'a str, Ty>,
    /// For tensors left without a complete shape: the node, upstream or their own producer, whose
    /// outputs could not be inferred.
    pub blame: HashMap<&'a str, usize>,
    /// Why each such node could not be inferred.
    pub causes: HashMap<usize, String>,
}

pub fn infer<'a>(d: &'a Decoded, r: &Resolved<'a>) -> Result<Inferred<'a>, Error> {
    let g = d.graph();
    let mut types: HashMap<&str, Ty> = r.sources.clone();
    let mut budget = r.fold_budget;
    let mut blame: HashMap<&str, usize> = HashMap::new();
    let mut causes: HashMap<usize, String> = HashMap::new();
    for (i, node) in g.node.iter().enumerate() {
        let op = node.op_type.as_deref().unwrap_or("");
        let domain = norm(node.domain.as_deref().unwrap_or(""));
        let inputs: Vec<Option<Ty>> = node
            .input
            .iter()
            .map(|x| (!x.is_empty()).then(|| types.get(x.as_str()).cloned().unwrap_or_default()))
            .collect();
        let result = if !domain.is_empty() {
            Err(Fail::Unsupported(format!(
                "peakorder has no shape rules for domain {domain:?}"
            )))
        } else if op == "Constant" {
            let out = node.output.first().map_or("", |s| s.as_str());
            match resolve::constant(node, out, &r.whose(out))? {
                Some(t) => Ok(vec![t]),
                None => Err(Fail::Invalid("it has no value attribute".into())),
            }
        } else {
            let n = Node {
                proto: node,
                op,
                opset: d.opset(domain),
                inputs: inputs.iter().map(|t| t.as_ref()).collect(),
                n_outputs: node.output.len(),
            };
            rules::infer(&n)
        };
        let upstream = node
            .input
            .iter()
            .find_map(|x| blame.get(x.as_str()).copied());
        let (outs, own_fault) = match result {
            Ok(v) => (v, None),
            Err(Fail::Invalid(reason)) => {
                return Err(Error::BadNode {
                    node: d.op_ids[i].clone(),
                    op: op.to_string(),
                    reason,
                })
            }
            Err(Fail::Unknown(reason)) => (Vec::new(), upstream.is_none().then_some(reason)),
            Err(Fail::Unsupported(reason)) => (Vec::new(), Some(reason)),
        };
        let mut blamed_here = false;
        for (j, out) in node.output.iter().enumerate() {
            if out.is_empty() {
                continue;
            }
            let inferred = outs.get(j).cloned().unwrap_or_default();
            let mut t = match merge(r.given.get(out.as_str()), inferred) {
                Ok(t) => t,
                Err((given, inferred)) => {
                    return Err(Error::Mismatch {
                        tensor: out.clone(),
                        whose: r.whose(out),
                        node: d.op_ids[i].clone(),
                        given,
                        inferred,
                    })
                }
            };
            if let Some(v) = &t.value {
                match budget.checked_sub(v.len()) {
                    Some(left) => budget = left,
                    None => t.value = None,
                }
            }
            if !t.is_complete() {
                if own_fault.is_some() {
                    blame.insert(out, i);
                    blamed_here = true;
                } else if let Some(u) = upstream {
                    blame.insert(out, u);
                }
            }
            types.insert(out, t);
        }
        if let (true, Some(reason)) = (blamed_here, own_fault) {
            causes.insert(i, reason);
        }
    }
    Ok(Inferred {
        types,
        blame,
        causes,
    })
}

/// The file's information about a value merged with the inferred: the file wins, a known
/// dimension beats a symbolic or unknown one, and two different known ones are a contradiction
/// (`Err((given, inferred))`, described for the message).
fn merge(given: Option<&Given>, inferred: Ty) -> Result<Ty, (String, String)> {
    let Some(Given::Tensor(g)) = given else {
        return Ok(inferred);
    };
    let clash = || Err((g.describe(), inferred.describe()));
    let elem = match (g.elem, inferred.elem) {
        (Some(a), Some(b)) if a != b => return clash(),
        (a, b) => a.or(b),
    };
    let shape = match (&g.shape, &inferred.shape) {
        (Some(a), Some(b)) if a.len() != b.len() => return clash(),
        (Some(a), Some(b)) => {
            let mut out = Vec::with_capacity(a.len());
            for (x, y) in a.iter().zip(b) {
                out.push(match (x, y) {
                    (Dim::Known(p), Dim::Known(q)) if p != q => return clash(),
                    (Dim::Known(_), _) => x.clone(),
                    (_, Dim::Known(_)) => y.clone(),
                    (Dim::Sym(_), _) => x.clone(),
                    (Dim::Unknown, _) => y.clone(),
                });
            }
            Some(out)
        }
        (Some(a), None) => Some(a.clone()),
        (None, b) => b.clone(),
    };
    let value = (elem == inferred.elem && shape == inferred.shape)
        .then_some(inferred.value)
        .flatten();
    Ok(Ty { elem, shape, value })
}
