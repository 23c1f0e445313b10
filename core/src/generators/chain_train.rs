//! Homogeneous chain training graphs: the graphs `recompute::chain` (Revolve) plans exactly.
//!
//! With `n` forward ops, every activation, the target and every gradient of one size `S`:
//! - inputs: `x` (`a0`, the caller's, `input_bytes`) and `y` (the target, `S`, donated: the loss
//!   is its last reader);
//! - forward `f1..fn`: `fi` reads `a{i-1}` and makes `ai` (kind `relu`);
//! - `loss` reads `an` and `y` and makes `gn`, the gradient of the loss at `an` (kind `add`);
//! - backward `bn..b1`: `bi` reads `a{i-1}` and `gi` and makes `g{i-1}` (kind `mul`);
//! - the output is `g0`, the gradient at the input.
//!
//! The op list is the program order `f1..fn, loss, bn..b1`.
//!
//! **Limits and activation slots.** A limit of `input_bytes + (s + 2) * S` (up to `S - 1`
//! bytes more) gives `s` activation slots: while a backward op (or the loss) runs, `x`, two
//! gradients (or the target and a gradient) and at most `s` activations `a1..an` fit, its input
//! among them; while a forward op runs, `x`, one gradient (or the target), its output and at most
//! `s` other activations. [`ChainTrain::limit`] is the least limit with `s` slots. One slot is the
//! least any schedule reaches; `n` slots need no recomputation (see `recompute::chain`).

use crate::format::{GraphSpec, OpSpec, TensorSpec, FORMAT};

/// A homogeneous chain training graph's parameters; [`ChainTrain::spec`] builds it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainTrain {
    /// Forward ops (at least 1).
    pub n: usize,
    /// Bytes of every activation `a1..an`, of the target `y` and of every gradient.
    pub bytes: u64,
    /// Bytes of the input `x` (`a0`).
    pub input_bytes: u64,
    /// `cost` of every forward op.
    pub forward_cost: f64,
    /// `cost` of the loss and of every backward op.
    pub backward_cost: f64,
    /// Give the tensors `shape: [bytes / 4]` and `dtype: f32` instead of `bytes` (so that an
    /// executor runs real kernels); needs `bytes` divisible by 4, and `input_bytes == bytes`
    /// for `x` to be typed too.
    pub typed: bool,
}

impl ChainTrain {
    /// `n` forward ops, `bytes` per tensor (`x` included), unit costs.
    pub fn new(n: usize, bytes: u64) -> ChainTrain {
        ChainTrain {
            n,
            bytes,
            input_bytes: bytes,
            forward_cost: 1.0,
            backward_cost: 1.0,
            typed: false,
        }
    }

    /// The least limit that gives `slots` activation slots: `input_bytes + (slots + 2) * bytes`
    /// (`None` on overflow).
    pub fn limit(&self, slots: u64) -> Option<u64> {
        slots
            .checked_add(2)?
            .checked_mul(self.bytes)?
            .checked_add(self.input_bytes)
    }

    /// The activation slots a limit gives (`None` below two: `input_bytes + 2 * bytes`).
    pub fn slots(&self, limit: u64) -> Option<u64> {
        let rest = limit.checked_sub(self.limit(0)?)?;
        rest.checked_div(self.bytes)
    }

    fn tensor(&self, id: String, bytes: u64, donated: bool) -> TensorSpec {
        let typed = self.typed && bytes == self.bytes && bytes % 4 == 0;
        TensorSpec {
            id,
            bytes: (!typed).then_some(bytes),
            shape: typed.then(|| vec![bytes / 4]),
            dtype: typed.then(|| "f32".to_string()),
            donated: donated.then_some(true),
            ..Default::default()
        }
    }

    fn op(&self, id: String, kind: &str, inputs: Vec<String>, output: String, cost: f64) -> OpSpec {
        OpSpec {
            id,
            kind: Some(kind.to_string()),
            inputs,
            outputs: vec![output],
            cost: (cost != 1.0).then_some(cost),
            ..Default::default()
        }
    }

    /// The graph.
    pub fn spec(&self) -> GraphSpec {
        let n = self.n;
        let a = |i: usize| {
            if i == 0 {
                "x".to_string()
            } else {
                format!("a{i}")
            }
        };
        let g = |i: usize| format!("g{i}");
        let mut tensors = vec![
            self.tensor("x".into(), self.input_bytes, false),
            self.tensor("y".into(), self.bytes, true),
        ];
        tensors.extend((1..=n).map(|i| self.tensor(a(i), self.bytes, false)));
        tensors.extend((0..=n).rev().map(|i| self.tensor(g(i), self.bytes, false)));
        let mut ops: Vec<OpSpec> = (1..=n)
            .map(|i| {
                self.op(
                    format!("f{i}"),
                    "relu",
                    vec![a(i - 1)],
                    a(i),
                    self.forward_cost,
                )
            })
            .collect();
        ops.push(self.op(
            "loss".into(),
            "add",
            vec![a(n), "y".into()],
            g(n),
            self.backward_cost,
        ));
        ops.extend((1..=n).rev().map(|i| {
            self.op(
                format!("b{i}"),
                "mul",
                vec![a(i - 1), g(i)],
                g(i - 1),
                self.backward_cost,
            )
        }));
        GraphSpec {
            format: Some(FORMAT.into()),
            tensors,
            ops,
            outputs: vec![g(0)],
            meta: None,
        }
    }
}

/// [`ChainTrain::new`]`(n, bytes).spec()`.
pub fn chain_train(n: usize, bytes: u64) -> GraphSpec {
    ChainTrain::new(n, bytes).spec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;
    use crate::simulate::peak_of;

    #[test]
    fn program_order_needs_n_slots() {
        // Without recomputation every activation is live at the loss: n slots.
        for n in 1..6 {
            let c = ChainTrain::new(n, 8);
            let g = Graph::from_spec(c.spec()).unwrap();
            let order: Vec<u32> = (0..g.num_ops() as u32).collect();
            assert_eq!(peak_of(&g, &order), c.limit(n as u64).unwrap());
            assert_eq!(c.slots(c.limit(3).unwrap() + 7), Some(3));
            assert_eq!(c.slots(c.limit(0).unwrap() - 1), None);
        }
    }
}
