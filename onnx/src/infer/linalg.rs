//! `MatMul` (numpy semantics: 1-D operands promoted, batch dims broadcast), `Gemm`, their
//! integer and quantized forms, and `Einsum`.

use std::collections::HashMap;

use super::fold;
use super::node::{invalid, unsupported, Node, Out};
use super::ty::{Dim, Ty};
use crate::dtype::INT32;

pub fn matmul_shape(n: &Node, a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>, super::node::Fail> {
    if a.is_empty() || b.is_empty() {
        return invalid("MatMul operands must have rank 1 or more");
    }
    let ka = &a[a.len() - 1];
    let kb = if b.len() == 1 { &b[0] } else { &b[b.len() - 2] };
    if let (Dim::Known(x), Dim::Known(y)) = (ka, kb) {
        if x != y {
            return invalid(format!(
                "inner dimensions differ: {} and {}",
                super::ty::dims_text(a),
                super::ty::dims_text(b)
            ));
        }
    }
    let batch_a = &a[..a.len().saturating_sub(2)];
    let batch_b = &b[..b.len().saturating_sub(2)];
    let mut out = fold::broadcast(batch_a, batch_b).or_else(invalid)?;
    if a.len() > 1 {
        out.push(a[a.len() - 2].clone());
    }
    if b.len() > 1 {
        out.push(b[b.len() - 1].clone());
    }
    let _ = n;
    Ok(out)
}

pub fn matmul(n: &Node) -> Out {
    let s = matmul_shape(n, n.shape(0)?, n.shape(1)?)?;
    n.one(Ty::new(n.elem(0), s))
}

pub fn matmul_integer(n: &Node) -> Out {
    let s = matmul_shape(n, n.shape(0)?, n.shape(1)?)?;
    n.one(Ty::new(Some(INT32), s))
}

/// `QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp)`.
pub fn qlinear_matmul(n: &Node) -> Out {
    let s = matmul_shape(n, n.shape(0)?, n.shape(3)?)?;
    n.one(Ty::new(n.elem(7), s))
}

pub fn gemm(n: &Node) -> Out {
    let a = n.shape(0)?;
    let b = n.shape(1)?;
    if a.len() != 2 || b.len() != 2 {
        return invalid(format!(
            "Gemm needs 2-D operands, got {} and {}",
            super::ty::dims_text(a),
            super::ty::dims_text(b)
        ));
    }
    let ta = n.attr_i_or("transA", 0) != 0;
    let tb = n.attr_i_or("transB", 0) != 0;
    let (m, ka) = if ta { (&a[1], &a[0]) } else { (&a[0], &a[1]) };
    let (kb, nn) = if tb { (&b[1], &b[0]) } else { (&b[0], &b[1]) };
    if let (Dim::Known(x), Dim::Known(y)) = (ka, kb) {
        if x != y {
            return invalid(format!("inner dimensions differ: {x} and {y}"));
        }
    }
    n.one(Ty::new(n.elem(0), vec![m.clone(), nn.clone()]))
}

/// `Einsum(equation)`: explicit (`ij,jk->ik`) or implicit (`ij,jk`) equations, with `...`.
pub fn einsum(n: &Node) -> Out {
    let Some(eq) = n.attr_s("equation") else {
        return invalid("it has no equation");
    };
    let eq: String = String::from_utf8_lossy(eq)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != n.proto.input.len() {
        return invalid(format!(
            "the equation has {} operands but the node {} inputs",
            terms.len(),
            n.proto.input.len()
        ));
    }
    let mut letters: HashMap<char, Dim> = HashMap::new();
    let mut counts: HashMap<char, usize> = HashMap::new();
    let mut ellipsis: Vec<Dim> = Vec::new();
    for (i, term) in terms.iter().enumerate() {
        let shape = n.shape(i)?;
        let (before, after) = match term.split_once("...") {
            Some((b, a)) => (b, Some(a)),
            None => (*term, None),
        };
        let named = before.chars().count() + after.map_or(0, |a| a.chars().count());
        if named > shape.len() || (after.is_none() && named != shape.len()) {
            return invalid(format!(
                "operand {i} has rank {}, term {term:?}",
                shape.len()
            ));
        }
        let ell_len = shape.len() - named;
        let mut dims = shape.iter();
        for c in before.chars() {
            bind(&mut letters, &mut counts, c, dims.next().cloned())?;
        }
        if after.is_some() {
            let e: Vec<Dim> = dims.by_ref().take(ell_len).cloned().collect();
            ellipsis = fold::broadcast(&ellipsis, &e).or_else(invalid)?;
        }
        for c in after.unwrap_or("").chars() {
            bind(&mut letters, &mut counts, c, dims.next().cloned())?;
        }
    }
    let out_term = match rhs {
        Some(r) => r,
        None => {
            // Implicit: letters that appear once, in alphabetical order, after the ellipsis.
            let mut once: Vec<char> = counts
                .iter()
                .filter(|(_, &c)| c == 1)
                .map(|(&l, _)| l)
                .collect();
            once.sort_unstable();
            let mut s = if lhs.contains("...") {
                "...".to_string()
            } else {
                String::new()
            };
            s.extend(once);
            s
        }
    };
    let mut out = Vec::new();
    let (before, after) = match out_term.split_once("...") {
        Some((b, a)) => (b.to_string(), Some(a.to_string())),
        None => (out_term.clone(), None),
    };
    for c in before.chars() {
        out.push(letter(&letters, c)?);
    }
    if let Some(a) = after {
        out.extend(ellipsis);
        for c in a.chars() {
            out.push(letter(&letters, c)?);
        }
    }
    n.one(Ty::new(n.elem(0), out))
}

fn bind(
    letters: &mut HashMap<char, Dim>,
    counts: &mut HashMap<char, usize>,
    c: char,
    d: Option<Dim>,
) -> Result<(), super::node::Fail> {
    if !c.is_ascii_alphabetic() {
        return unsupported(format!("equation letter {c:?}"));
    }
    let Some(d) = d else {
        return invalid("equation and operand ranks differ");
    };
    *counts.entry(c).or_default() += 1;
    let merged = match letters.get(&c) {
        None => d,
        Some(old) => fold::broadcast(std::slice::from_ref(old), std::slice::from_ref(&d))
            .or_else(invalid)?
            .remove(0),
    };
    letters.insert(c, merged);
    Ok(())
}

fn letter(letters: &HashMap<char, Dim>, c: char) -> Result<Dim, super::node::Fail> {
    match letters.get(&c) {
        Some(d) => Ok(d.clone()),
        None => invalid(format!("output letter {c:?} is not in any operand")),
    }
}
