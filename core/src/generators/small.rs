//! Small random graphs for the property tests (and the `optimal` and `states` benchmarks), each
//! family exercising part of the memory model (docs/design.md §1): donated and kept inputs,
//! multi-output ops, outputs nobody reads, graph outputs anywhere (inputs and intermediates too),
//! views (of an input, of the op's own output, of any earlier tensor), workspace, repeated
//! inputs, fusion tags, program orders that are not topological; and shapes: in-forests,
//! series-parallel graphs, wide fork–joins, layered networks, independent pieces, long edges.
//!
//! Every family takes its choices from a [`Draw`]: the benchmarks pass a seeded [`Rng`](super::Rng)
//! (their graphs depend on the exact sequence of choices below; change a family and their
//! results move), the property tests a proptest-drawn [`Tape`](super::Tape), so a failure
//! shrinks to a smaller graph. Every spec is valid (`Graph::from_spec` accepts it).

use super::draw::Draw;
use crate::format::{GraphSpec, OpSpec, TensorSpec};

/// The small families, for tests that draw one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// [`general`]: anything the memory model allows, fusion tags included.
    General,
    /// [`dag`].
    Dag,
    /// [`in_forest`].
    InForest,
    /// [`series_parallel`].
    SeriesParallel,
    /// [`sp_pinned_outputs`].
    SpPinnedOutputs,
    /// [`fork_join`].
    ForkJoin,
    /// [`layered`].
    Layered,
    /// [`pieces`].
    Pieces,
    /// [`uniform_dag`].
    UniformDag,
    /// [`wide_layered`].
    WideLayered,
}

impl Family {
    /// Every family.
    pub const ALL: &'static [Family] = &[
        Family::General,
        Family::Dag,
        Family::InForest,
        Family::SeriesParallel,
        Family::SpPinnedOutputs,
        Family::ForkJoin,
        Family::Layered,
        Family::Pieces,
        Family::UniformDag,
        Family::WideLayered,
    ];

    /// The family's function name.
    pub fn name(self) -> &'static str {
        match self {
            Family::General => "general",
            Family::Dag => "dag",
            Family::InForest => "in_forest",
            Family::SeriesParallel => "series_parallel",
            Family::SpPinnedOutputs => "sp_pinned_outputs",
            Family::ForkJoin => "fork_join",
            Family::Layered => "layered",
            Family::Pieces => "pieces",
            Family::UniformDag => "uniform_dag",
            Family::WideLayered => "wide_layered",
        }
    }

    /// A graph of the family with about `n` ops (at least one, except for [`general`]).
    pub fn build<D: Draw + ?Sized>(self, r: &mut D, n: usize) -> GraphSpec {
        let m = n.max(1);
        match self {
            Family::General => general(r, n),
            Family::Dag => dag(r, m),
            Family::InForest => in_forest(r, m),
            Family::SeriesParallel => series_parallel(r, m),
            Family::SpPinnedOutputs => sp_pinned_outputs(r, m),
            Family::ForkJoin => fork_join(r, m),
            Family::Layered => layered(r, m),
            Family::Pieces => pieces(r, m),
            Family::UniformDag => uniform_dag(r, m),
            Family::WideLayered => wide_layered(r, m),
        }
    }
}

/// Small sizes make ties common; a few large ones make peaks differ.
fn small_size<D: Draw + ?Sized>(r: &mut D) -> u64 {
    [0, 1, 2, 3, 4, 5, 8, 10, 16, 40][r.below(10) as usize]
}

/// Mostly [`small_size`], sometimes anything up to 200.
fn wide_size<D: Draw + ?Sized>(r: &mut D) -> u64 {
    if r.percent(20) {
        1 + r.below(200)
    } else {
        small_size(r)
    }
}

/// Builds a graph spec op by op, with generated ids (`t0, t1, ...` for tensors, `o0, o1, ...` for
/// ops).
#[derive(Default)]
struct Builder {
    spec: GraphSpec,
}

impl Builder {
    /// A new tensor of `bytes` (a graph input unless an op lists it as an output).
    fn tensor(&mut self, bytes: u64, donated: bool) -> String {
        let id = format!("t{}", self.spec.tensors.len());
        self.spec.tensors.push(TensorSpec {
            id: id.clone(),
            bytes: Some(bytes),
            donated: donated.then_some(true),
            ..Default::default()
        });
        id
    }
    /// A new view of `of`.
    fn view(&mut self, of: &str) -> String {
        let id = format!("t{}", self.spec.tensors.len());
        self.spec.tensors.push(TensorSpec {
            id: id.clone(),
            alias_of: Some(of.to_string()),
            ..Default::default()
        });
        id
    }
    /// A new op; returns its index.
    fn op(&mut self, inputs: Vec<String>, outputs: Vec<String>, workspace: u64) -> usize {
        let i = self.spec.ops.len();
        self.spec.ops.push(OpSpec {
            id: format!("o{i}"),
            inputs,
            outputs,
            workspace: (workspace > 0).then_some(workspace),
            ..Default::default()
        });
        i
    }
    /// Marks `t` as a graph output (once).
    fn output(&mut self, t: &str) {
        if !self.spec.outputs.iter().any(|o| o == t) {
            self.spec.outputs.push(t.to_string());
        }
    }
}

fn workspace<D: Draw + ?Sized>(r: &mut D) -> u64 {
    if r.percent(25) {
        small_size(r)
    } else {
        0
    }
}

/// An in-forest that Liu's algorithm must accept: every op feeds at most one op; storages are
/// read by one op, or along one path (views), or are pinned; donated inputs, multi-output ops,
/// unread outputs, pinned outputs consumed later and workspace all occur. Ops are listed in a
/// random topological order.
pub fn in_forest<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    // parent[i] > i or none; op i's main output goes to its parent.
    let parent: Vec<Option<usize>> = (0..n)
        .map(|i| {
            if i + 1 < n && !r.percent(15) {
                Some(i + 1 + r.below((n - i - 1) as u64) as usize)
            } else {
                None
            }
        })
        .collect();
    let mut b = Builder::default();
    let shared = b.tensor(small_size(r), false); // pinned input anyone may read
                                                 // inbox[i]: tensors op i reads.
    let mut inbox: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut ops_out: Vec<Vec<String>> = vec![Vec::new(); n];
    for i in 0..n {
        if r.percent(30) {
            inbox[i].push(shared.clone());
        }
        if r.percent(30) {
            let d = b.tensor(small_size(r), true);
            inbox[i].push(d.clone());
            // Sometimes the parent reads it too: the last user is determined.
            if let Some(p) = parent[i] {
                if r.percent(30) {
                    inbox[p].push(d);
                }
            }
        }
    }
    for outs in ops_out.iter_mut() {
        outs.push(b.tensor(small_size(r), false));
        if r.percent(20) {
            outs.push(b.tensor(small_size(r), false)); // multi-output
        }
    }
    // Build ops in index order (children before parents); shuffle op listing afterwards.
    let mut specs = Vec::new();
    for i in 0..n {
        let mut inputs = inbox[i].clone();
        if r.percent(20) && !inputs.is_empty() {
            inputs.push(inputs[0].clone()); // repeated input
        }
        let outs = ops_out[i].clone();
        let mut outputs = outs.clone();
        let mut forward = Vec::new();
        for (k, t) in outs.iter().enumerate() {
            match parent[i] {
                Some(_) if k == 0 || r.percent(50) => forward.push(t.clone()),
                _ => {}
            }
            if r.percent(15) {
                b.output(t); // pinned output, maybe consumed later
            }
        }
        // A view of a forwarded output, made by this op too.
        if let Some(t) = forward.first().cloned() {
            if r.percent(20) {
                let v = b.view(&t);
                outputs.push(v.clone());
                forward[0] = v;
            }
        }
        if let Some(p) = parent[i] {
            inbox[p].extend(forward);
        } else if r.percent(50) {
            b.output(&outs[0]);
        }
        specs.push((inputs, outputs, workspace(r)));
    }
    for (inputs, outputs, ws) in specs {
        b.op(inputs, outputs, ws);
    }
    shuffle_ops(r, &mut b);
    b.spec
}

/// Reorders the op list into another topological order (ops are built in one).
fn shuffle_ops<D: Draw + ?Sized>(r: &mut D, b: &mut Builder) {
    let ops = std::mem::take(&mut b.spec.ops);
    let producer: std::collections::HashMap<String, usize> = ops
        .iter()
        .enumerate()
        .flat_map(|(i, o)| o.outputs.iter().map(move |t| (t.clone(), i)))
        .collect();
    let alias: std::collections::HashMap<String, String> = b
        .spec
        .tensors
        .iter()
        .filter_map(|t| t.alias_of.clone().map(|a| (t.id.clone(), a)))
        .collect();
    let deps: Vec<Vec<usize>> = ops
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let mut d: Vec<usize> = o
                .inputs
                .iter()
                .filter_map(|t| producer.get(t).copied())
                .collect();
            for t in &o.outputs {
                if let Some(a) = alias.get(t) {
                    d.extend(producer.get(a).copied().filter(|&p| p != i));
                }
            }
            d
        })
        .collect();
    let mut done = vec![false; ops.len()];
    let mut order = Vec::new();
    while order.len() < ops.len() {
        let ready: Vec<usize> = (0..ops.len())
            .filter(|&i| !done[i] && deps[i].iter().all(|&p| done[p]))
            .collect();
        let pick = ready[r.below(ready.len() as u64) as usize];
        done[pick] = true;
        order.push(pick);
    }
    let mut ops: Vec<Option<OpSpec>> = ops.into_iter().map(Some).collect();
    b.spec.ops = order.into_iter().map(|i| ops[i].take().unwrap()).collect();
}

/// A general DAG: each op reads a few earlier tensors, makes one or two (sometimes a view),
/// with workspace, donated and pinned inputs and graph outputs anywhere.
pub fn dag<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let mut pool: Vec<String> = Vec::new();
    for _ in 0..1 + r.below(3) {
        let t = b.tensor(small_size(r), r.percent(40));
        pool.push(t);
    }
    for _ in 0..n {
        let k = 1 + r.below(3) as usize;
        let mut inputs = Vec::new();
        for _ in 0..k {
            // Prefer recent tensors so graphs are deep as well as wide.
            let len = pool.len() as u64;
            let back = r.below(len.min(5));
            let idx = if r.percent(70) {
                len - 1 - back
            } else {
                r.below(len)
            };
            inputs.push(pool[idx as usize].clone());
        }
        let mut outputs = vec![b.tensor(small_size(r), false)];
        if r.percent(20) {
            outputs.push(b.tensor(small_size(r), false));
        }
        if r.percent(15) {
            let v = b.view(&inputs[0]);
            outputs.push(v);
        }
        for t in &outputs {
            if r.percent(10) {
                b.output(t);
            }
        }
        pool.extend(outputs.iter().cloned());
        b.op(inputs, outputs, workspace(r));
    }
    if b.spec.outputs.is_empty() {
        let last = pool.last().unwrap().clone();
        b.output(&last);
    }
    shuffle_ops(r, &mut b);
    b.spec
}

/// A series-parallel graph of `n` ops built from series and parallel compositions.
pub fn series_parallel<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let x = b.tensor(small_size(r), r.percent(50));
    let out = sp(r, &mut b, n, x);
    b.output(&out);
    shuffle_ops(r, &mut b);
    b.spec
}

/// A series-parallel graph like [`series_parallel`] whose 2–4 extra graph outputs (pinned: never
/// freed) are intermediate tensors, as when a model also returns hidden states.
pub fn sp_pinned_outputs<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let x = b.tensor(small_size(r), r.percent(50));
    let out = sp(r, &mut b, n, x);
    b.output(&out);
    let made: Vec<String> = b
        .spec
        .ops
        .iter()
        .flat_map(|o| o.outputs.iter().cloned())
        .collect();
    for _ in 0..2 + r.below(3) {
        let t = made[r.below(made.len() as u64) as usize].clone();
        b.output(&t);
    }
    shuffle_ops(r, &mut b);
    b.spec
}

/// Wide fork–joins: stages where one tensor fans out to 4–10 branches (chains of 1–4 ops, some
/// with a view of their input, a second output nobody reads, or workspace, some reading a
/// donated input), joined by one op; 2–3 stages in series up to `n` ops.
pub fn fork_join<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let mut cur = b.tensor(small_size(r) + 1, false);
    let donated = b.tensor(small_size(r) + 1, true);
    let mut made = 0;
    while made < n {
        let left = n - made;
        let width = (4 + r.below(7) as usize).min(left.saturating_sub(1).max(1));
        let mut ends = Vec::new();
        for _ in 0..width {
            if made + 1 >= n {
                break;
            }
            let len = 1 + r.below(4) as usize;
            let mut t = cur.clone();
            for k in 0..len {
                if made + 1 >= n {
                    break;
                }
                let mut inputs = vec![t.clone()];
                if k == 0 && r.percent(20) {
                    inputs.push(donated.clone());
                }
                let o = b.tensor(small_size(r), false);
                let mut outputs = vec![o.clone()];
                if r.percent(10) {
                    outputs.push(b.tensor(small_size(r), false));
                }
                if r.percent(10) {
                    let v = b.view(&t);
                    outputs.push(v);
                }
                b.op(inputs, outputs, workspace(r));
                made += 1;
                t = o;
            }
            ends.push(t);
        }
        if ends.is_empty() {
            ends.push(cur.clone());
        }
        let j = b.tensor(small_size(r) + 1, false);
        b.op(ends, vec![j.clone()], workspace(r));
        made += 1;
        cur = j;
    }
    b.output(&cur);
    shuffle_ops(r, &mut b);
    b.spec
}

/// The series-parallel composition of `n` ops reading `input`; returns its output. An explicit
/// stack, not recursion (a series chain is `n` deep); the choices are drawn in the order of the
/// recursive definition: a node draws its split, then its first part is built, then its second,
/// then the join of a parallel node.
fn sp<D: Draw + ?Sized>(r: &mut D, b: &mut Builder, n: usize, input: String) -> String {
    enum Task {
        /// Build `n` ops reading `input`; push the output.
        Node(usize, String),
        /// Pop two outputs, join them with one op; push its output.
        Join,
        /// Pop an output; build `n` ops reading it.
        Then(usize),
    }
    let mut tasks = vec![Task::Node(n, input)];
    let mut outs: Vec<String> = Vec::new();
    while let Some(task) = tasks.pop() {
        match task {
            Task::Node(1, input) => {
                let t = b.tensor(small_size(r), false);
                let mut made = vec![t.clone()];
                if r.percent(15) {
                    made.push(b.tensor(small_size(r), false)); // an output nobody reads
                }
                b.op(vec![input], made, workspace(r));
                outs.push(t);
            }
            Task::Node(n, input) if n >= 3 && r.percent(50) => {
                let k1 = 1 + r.below((n - 2) as u64) as usize;
                let k2 = n - 1 - k1;
                tasks.push(Task::Join);
                tasks.push(Task::Node(k2, input.clone()));
                tasks.push(Task::Node(k1, input));
            }
            Task::Node(n, input) => {
                let k1 = 1 + r.below((n - 1) as u64) as usize;
                tasks.push(Task::Then(n - k1));
                tasks.push(Task::Node(k1, input));
            }
            Task::Join => {
                let c = outs.pop().expect("second part built");
                let a = outs.pop().expect("first part built");
                let t = b.tensor(small_size(r), false);
                b.op(vec![a, c], vec![t.clone()], workspace(r));
                outs.push(t);
            }
            Task::Then(n) => {
                let mid = outs.pop().expect("first part built");
                tasks.push(Task::Node(n, mid));
            }
        }
    }
    outs.pop().expect("one output")
}

/// A layered DAG, like a network with branches and skip connections: ops in layers of 1–4,
/// each reading one to three tensors from the last three layers.
pub fn layered<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let x = b.tensor(small_size(r) + 1, r.percent(30));
    let mut layers: Vec<Vec<String>> = vec![vec![x]];
    let mut made = 0;
    while made < n {
        let width = (1 + r.below(4) as usize).min(n - made);
        let mut layer = Vec::new();
        for _ in 0..width {
            let k = 1 + r.below(3) as usize;
            let mut inputs = Vec::new();
            for _ in 0..k {
                let back = 1 + r.below(3.min(layers.len() as u64)) as usize;
                let l = &layers[layers.len() - back];
                inputs.push(l[r.below(l.len() as u64) as usize].clone());
            }
            let t = b.tensor(small_size(r) + 1, false);
            let mut outputs = vec![t.clone()];
            if r.percent(10) {
                outputs.push(b.tensor(small_size(r), false));
            }
            b.op(inputs, outputs, workspace(r));
            layer.push(t);
            made += 1;
        }
        layers.push(layer);
    }
    for t in layers.last().unwrap().clone() {
        b.output(&t);
    }
    shuffle_ops(r, &mut b);
    b.spec
}

/// Two or three independent pieces (small DAGs over their own tensors) that may share a pinned
/// input, and sometimes a donated one (which couples them: it is freed after the last reader).
pub fn pieces<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let shared = b.tensor(small_size(r), false);
    let donated = r.percent(30).then(|| b.tensor(small_size(r) + 1, true));
    let k = if n >= 6 {
        2 + r.below(2) as usize
    } else {
        2.min(n)
    };
    let mut sizes = vec![n / k; k];
    for s in sizes.iter_mut().take(n % k) {
        *s += 1;
    }
    for &m in &sizes {
        let mut pool = vec![b.tensor(small_size(r), r.percent(30))];
        if r.percent(50) {
            pool.push(shared.clone());
        }
        if let Some(d) = &donated {
            if r.percent(50) {
                pool.push(d.clone());
            }
        }
        for _ in 0..m {
            let mut inputs = Vec::new();
            for _ in 0..1 + r.below(2) {
                let len = pool.len() as u64;
                inputs.push(pool[(len - 1 - r.below(len.min(3))) as usize].clone());
            }
            let t = b.tensor(small_size(r), false);
            let mut outputs = vec![t.clone()];
            if r.percent(15) {
                outputs.push(b.view(&t));
            }
            b.op(inputs, outputs, workspace(r));
            pool.push(t);
        }
        let last = pool.last().unwrap().clone();
        b.output(&last);
    }
    shuffle_ops(r, &mut b);
    b.spec
}

/// A DAG whose ops read 1-3 tensors chosen uniformly among all made so far (long edges, so
/// wide), with sizes over two orders of magnitude, some workspace and 0-3 pinned outputs
/// besides the last op's.
pub fn uniform_dag<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let mut pool: Vec<String> = (0..1 + r.below(3))
        .map(|_| b.tensor(1 + r.below(100), false))
        .collect();
    let mut last = String::new();
    for _ in 0..n {
        let mut inputs: Vec<String> = Vec::new();
        for _ in 0..1 + r.below(3) {
            let t = pool[r.below(pool.len() as u64) as usize].clone();
            if !inputs.contains(&t) {
                inputs.push(t);
            }
        }
        let t = b.tensor(1 + r.below(100), false);
        let ws = if r.percent(20) { r.below(100) } else { 0 };
        b.op(inputs, vec![t.clone()], ws);
        pool.push(t.clone());
        last = t;
    }
    b.output(&last);
    for _ in 0..r.below(4) {
        let t = pool[r.below(pool.len() as u64) as usize].clone();
        b.output(&t);
    }
    b.spec
}

/// Layers of 5-12 ops, each reading 1-3 tensors of the previous two layers.
pub fn wide_layered<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let mut layers: Vec<Vec<String>> = vec![vec![b.tensor(1 + r.below(50), false)]];
    let mut made = 0;
    while made < n {
        let width = (5 + r.below(8) as usize).min(n - made);
        let mut layer = Vec::new();
        for _ in 0..width {
            let mut inputs: Vec<String> = Vec::new();
            for _ in 0..1 + r.below(3) {
                let back = 1 + r.below(2.min(layers.len() as u64)) as usize;
                let l = &layers[layers.len() - back];
                let t = l[r.below(l.len() as u64) as usize].clone();
                if !inputs.contains(&t) {
                    inputs.push(t);
                }
            }
            let t = b.tensor(1 + r.below(50), false);
            let ws = if r.percent(20) { r.below(50) } else { 0 };
            b.op(inputs, vec![t.clone()], ws);
            layer.push(t);
            made += 1;
        }
        layers.push(layer);
    }
    for t in layers.last().expect("a layer").clone() {
        b.output(&t);
    }
    b.spec
}

/// Anything the memory model allows, on `n` ops (0 too): 1–3 inputs, some donated; ops reading
/// 0–3 tensors made anywhere before (recent ones more often, repeats allowed) and writing 0–2,
/// some of them views (of one of the op's inputs, of its own first output, or of any earlier
/// tensor the op does not read); sizes 0–200 with ties; workspace; fusion tags "a"/"b"; graph
/// outputs anywhere, graph inputs and views included; a program order as built, shuffled
/// topologically, or with ops swapped (often not topological). About 30% of the graphs have no
/// views at all (checks that hold only without views need enough of them).
pub fn general<D: Draw + ?Sized>(r: &mut D, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let views = r.percent(70);
    let mut pool: Vec<String> = Vec::new();
    for _ in 0..1 + r.below(3) {
        let t = b.tensor(wide_size(r), r.percent(40));
        pool.push(t);
    }
    let graph_inputs = pool.clone();
    for _ in 0..n {
        let reads = if r.percent(10) { 0 } else { 1 + r.below(3) };
        let mut inputs: Vec<String> = Vec::new();
        for _ in 0..reads {
            let len = pool.len() as u64;
            let i = if r.percent(40) {
                r.below(len)
            } else {
                len - 1 - r.below(len.min(4))
            };
            inputs.push(pool[i as usize].clone());
        }
        let writes = if r.percent(10) {
            0
        } else if r.percent(25) {
            2
        } else {
            1
        };
        let mut outputs: Vec<String> = Vec::new();
        for _ in 0..writes {
            let t = if views && r.percent(20) {
                let of = match r.below(3) {
                    0 if !inputs.is_empty() => {
                        inputs[r.below(inputs.len() as u64) as usize].clone()
                    }
                    1 if !outputs.is_empty() => outputs[0].clone(),
                    _ => pool[r.below(pool.len() as u64) as usize].clone(),
                };
                b.view(&of)
            } else {
                b.tensor(wide_size(r), false)
            };
            outputs.push(t);
        }
        let ws = if r.percent(25) { wide_size(r) } else { 0 };
        let tag = [None, Some("a"), Some("a"), Some("b"), None][r.below(5) as usize];
        let v = b.op(inputs, outputs.clone(), ws);
        b.spec.ops[v].fusible = tag.map(String::from);
        for t in &outputs {
            if r.percent(12) {
                b.output(t);
            }
        }
        pool.extend(outputs);
    }
    for t in &graph_inputs {
        if r.percent(10) {
            b.output(t);
        }
    }
    match r.below(3) {
        0 => {}
        1 => shuffle_ops(r, &mut b),
        _ => {
            let len = b.spec.ops.len() as u64;
            for _ in 0..1 + r.below(3) {
                let (x, y) = (r.below(len) as usize, r.below(len) as usize);
                if len > 1 {
                    b.spec.ops.swap(x, y);
                }
            }
        }
    }
    b.spec
}
