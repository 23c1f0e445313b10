//! Random small graphs and the brute-force referee for the optimal orderers' property tests
//! (shared by prop_liu.rs and prop_exact.rs).
#![allow(dead_code)]

use peakorder::format::{GraphSpec, OpSpec, TensorSpec};
use peakorder::simulate::MemState;
use peakorder::{Graph, OpIx};

/// A tiny deterministic RNG (SplitMix64): proptest picks the seed, the seed picks the graph.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn size(&mut self) -> u64 {
        // Small sizes make ties common; a few large ones make peaks differ.
        [0, 1, 2, 3, 4, 5, 8, 10, 16, 40][self.below(10) as usize]
    }
}

/// Builds a GraphSpec op by op.
#[derive(Default)]
pub struct Builder {
    pub spec: GraphSpec,
}

impl Builder {
    pub fn tensor(&mut self, bytes: u64, donated: bool) -> String {
        let id = format!("t{}", self.spec.tensors.len());
        self.spec.tensors.push(TensorSpec {
            id: id.clone(),
            bytes: Some(bytes),
            donated: donated.then_some(true),
            ..Default::default()
        });
        id
    }
    pub fn view(&mut self, of: &str) -> String {
        let id = format!("t{}", self.spec.tensors.len());
        self.spec.tensors.push(TensorSpec {
            id: id.clone(),
            alias_of: Some(of.to_string()),
            ..Default::default()
        });
        id
    }
    pub fn op(&mut self, inputs: Vec<String>, outputs: Vec<String>, workspace: u64) -> usize {
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
    pub fn output(&mut self, t: &str) {
        if !self.spec.outputs.iter().any(|o| o == t) {
            self.spec.outputs.push(t.to_string());
        }
    }
    pub fn graph(self) -> Graph {
        Graph::from_spec(self.spec).expect("generated graph is valid")
    }
}

fn workspace(r: &mut Rng) -> u64 {
    if r.chance(25) {
        r.size()
    } else {
        0
    }
}

/// An in-forest that Liu's algorithm must accept: every op feeds at most one op; storages are
/// read by one op, or along one path (views), or are pinned; donated inputs, multi-output ops,
/// unread outputs, pinned outputs consumed later and workspace all occur. Ops are listed in a
/// random topological order.
pub fn in_forest(r: &mut Rng, n: usize) -> Graph {
    // parent[i] > i or none; op i's main output goes to its parent.
    let parent: Vec<Option<usize>> = (0..n)
        .map(|i| {
            if i + 1 < n && !r.chance(15) {
                Some(i + 1 + r.below((n - i - 1) as u64) as usize)
            } else {
                None
            }
        })
        .collect();
    let mut b = Builder::default();
    let shared = b.tensor(r.size(), false); // pinned input anyone may read
                                            // inbox[i]: tensors op i reads.
    let mut inbox: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut ops_out: Vec<Vec<String>> = vec![Vec::new(); n];
    for i in 0..n {
        if r.chance(30) {
            inbox[i].push(shared.clone());
        }
        if r.chance(30) {
            let d = b.tensor(r.size(), true);
            inbox[i].push(d.clone());
            // Sometimes the parent reads it too: the last user is determined.
            if let Some(p) = parent[i] {
                if r.chance(30) {
                    inbox[p].push(d);
                }
            }
        }
    }
    for outs in ops_out.iter_mut() {
        outs.push(b.tensor(r.size(), false));
        if r.chance(20) {
            outs.push(b.tensor(r.size(), false)); // multi-output
        }
    }
    // Build ops in index order (children before parents); shuffle op listing afterwards.
    let mut specs = Vec::new();
    for i in 0..n {
        let mut inputs = inbox[i].clone();
        if r.chance(20) && !inputs.is_empty() {
            inputs.push(inputs[0].clone()); // repeated input
        }
        let outs = ops_out[i].clone();
        let mut outputs = outs.clone();
        let mut forward = Vec::new();
        for (k, t) in outs.iter().enumerate() {
            match parent[i] {
                Some(_) if k == 0 || r.chance(50) => forward.push(t.clone()),
                _ => {}
            }
            if r.chance(15) {
                b.output(t); // pinned output, maybe consumed later
            }
        }
        // A view of a forwarded output, made by this op too.
        if let Some(t) = forward.first().cloned() {
            if r.chance(20) {
                let v = b.view(&t);
                outputs.push(v.clone());
                forward[0] = v;
            }
        }
        if let Some(p) = parent[i] {
            inbox[p].extend(forward);
        } else if r.chance(50) {
            b.output(&outs[0]);
        }
        specs.push((inputs, outputs, workspace(r)));
    }
    for (inputs, outputs, ws) in specs {
        b.op(inputs, outputs, ws);
    }
    shuffle_ops(r, &mut b);
    b.graph()
}

/// Reorders the op list into another topological order (ops are built in one).
fn shuffle_ops(r: &mut Rng, b: &mut Builder) {
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
pub fn dag(r: &mut Rng, n: usize) -> Graph {
    let mut b = Builder::default();
    let mut pool: Vec<String> = Vec::new();
    for _ in 0..1 + r.below(3) {
        let t = b.tensor(r.size(), r.chance(40));
        pool.push(t);
    }
    for _ in 0..n {
        let k = 1 + r.below(3) as usize;
        let mut inputs = Vec::new();
        for _ in 0..k {
            // Prefer recent tensors so graphs are deep as well as wide.
            let len = pool.len() as u64;
            let back = r.below(len.min(5));
            let idx = if r.chance(70) {
                len - 1 - back
            } else {
                r.below(len)
            };
            inputs.push(pool[idx as usize].clone());
        }
        let mut outputs = vec![b.tensor(r.size(), false)];
        if r.chance(20) {
            outputs.push(b.tensor(r.size(), false));
        }
        if r.chance(15) {
            let v = b.view(&inputs[0]);
            outputs.push(v);
        }
        for t in &outputs {
            if r.chance(10) {
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
    b.graph()
}

/// A series-parallel graph of `n` ops built from series and parallel compositions.
pub fn series_parallel(r: &mut Rng, n: usize) -> Graph {
    let mut b = Builder::default();
    let x = b.tensor(r.size(), r.chance(50));
    let out = sp(r, &mut b, n, x);
    b.output(&out);
    shuffle_ops(r, &mut b);
    b.graph()
}

/// A series-parallel graph like [`series_parallel`] whose 2–4 extra graph outputs (pinned: never
/// freed) are intermediate tensors, as when a model also returns hidden states.
pub fn sp_pinned_outputs(r: &mut Rng, n: usize) -> Graph {
    let mut b = Builder::default();
    let x = b.tensor(r.size(), r.chance(50));
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
    b.graph()
}

/// Wide fork–joins: stages where one tensor fans out to 4–10 branches (chains of 1–4 ops, some
/// with a view of their input, a second output nobody reads, or workspace, some reading a
/// donated input), joined by one op; 2–3 stages in series up to `n` ops.
pub fn fork_join(r: &mut Rng, n: usize) -> Graph {
    let mut b = Builder::default();
    let mut cur = b.tensor(r.size() + 1, false);
    let donated = b.tensor(r.size() + 1, true);
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
                if k == 0 && r.chance(20) {
                    inputs.push(donated.clone());
                }
                let o = b.tensor(r.size(), false);
                let mut outputs = vec![o.clone()];
                if r.chance(10) {
                    outputs.push(b.tensor(r.size(), false));
                }
                if r.chance(10) {
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
        let j = b.tensor(r.size() + 1, false);
        b.op(ends, vec![j.clone()], workspace(r));
        made += 1;
        cur = j;
    }
    b.output(&cur);
    shuffle_ops(r, &mut b);
    b.graph()
}

fn sp(r: &mut Rng, b: &mut Builder, n: usize, input: String) -> String {
    if n == 1 {
        let t = b.tensor(r.size(), false);
        let mut outs = vec![t.clone()];
        if r.chance(15) {
            outs.push(b.tensor(r.size(), false)); // an output nobody reads
        }
        b.op(vec![input], outs, workspace(r));
        return t;
    }
    if n >= 3 && r.chance(50) {
        let k1 = 1 + r.below((n - 2) as u64) as usize;
        let k2 = n - 1 - k1;
        let a = sp(r, b, k1, input.clone());
        let c = sp(r, b, k2, input);
        let t = b.tensor(r.size(), false);
        b.op(vec![a, c], vec![t.clone()], workspace(r));
        t
    } else {
        let k1 = 1 + r.below((n - 1) as u64) as usize;
        let mid = sp(r, b, k1, input);
        sp(r, b, n - k1, mid)
    }
}

/// The referee: the least peak over all topological orders, by enumerating them (memoized on
/// the set of ops already run, since what follows depends only on that set).
pub fn brute_force(g: &Graph) -> u64 {
    let n = g.num_ops();
    assert!(n <= 16);
    let mut memo: std::collections::HashMap<u32, u64> = std::collections::HashMap::new();
    fn go(
        g: &Graph,
        mask: u32,
        state: &MemState,
        memo: &mut std::collections::HashMap<u32, u64>,
    ) -> u64 {
        let n = g.num_ops();
        if mask == (1u32 << n) - 1 {
            return 0;
        }
        if let Some(&v) = memo.get(&mask) {
            return v;
        }
        let mut best = u64::MAX;
        for v in 0..n as OpIx {
            if mask >> v & 1 == 1 || g.preds(v).iter().any(|&p| mask >> p & 1 == 0) {
                continue;
            }
            let mut s = state.clone();
            let (during, _) = s.run(v);
            let rest = go(g, mask | 1 << v, &s, memo);
            best = best.min(during.max(rest));
        }
        memo.insert(mask, best);
        best
    }
    let state = MemState::new(g);
    go(g, 0, &state, &mut memo).max(g.inputs_bytes())
}

/// A layered DAG, like a network with branches and skip connections: ops in layers of 1–4,
/// each reading one to three tensors from the last three layers.
pub fn layered(r: &mut Rng, n: usize) -> Graph {
    Graph::from_spec(layered_spec(r, n)).expect("generated graph is valid")
}

/// The spec of [`layered`].
pub fn layered_spec(r: &mut Rng, n: usize) -> GraphSpec {
    let mut b = Builder::default();
    let x = b.tensor(r.size() + 1, r.chance(30));
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
            let t = b.tensor(r.size() + 1, false);
            let mut outputs = vec![t.clone()];
            if r.chance(10) {
                outputs.push(b.tensor(r.size(), false));
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
pub fn pieces(r: &mut Rng, n: usize) -> Graph {
    let mut b = Builder::default();
    let shared = b.tensor(r.size(), false);
    let donated = r.chance(30).then(|| b.tensor(r.size() + 1, true));
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
        let mut pool = vec![b.tensor(r.size(), r.chance(30))];
        if r.chance(50) {
            pool.push(shared.clone());
        }
        if let Some(d) = &donated {
            if r.chance(50) {
                pool.push(d.clone());
            }
        }
        for _ in 0..m {
            let mut inputs = Vec::new();
            for _ in 0..1 + r.below(2) {
                let len = pool.len() as u64;
                inputs.push(pool[(len - 1 - r.below(len.min(3))) as usize].clone());
            }
            let t = b.tensor(r.size(), false);
            let mut outputs = vec![t.clone()];
            if r.chance(15) {
                outputs.push(b.view(&t));
            }
            b.op(inputs, outputs, workspace(r));
            pool.push(t);
        }
        let last = pool.last().unwrap().clone();
        b.output(&last);
    }
    shuffle_ops(r, &mut b);
    b.graph()
}

/// A DAG whose ops read 1-3 tensors chosen uniformly among all made so far (long edges, so
/// wide), with sizes over two orders of magnitude, some workspace and 0-3 pinned outputs
/// besides the last op's.
pub fn uniform_dag(r: &mut Rng, n: usize) -> Graph {
    Graph::from_spec(uniform_dag_spec(r, n)).expect("generated graph is valid")
}

/// The spec of [`uniform_dag`].
pub fn uniform_dag_spec(r: &mut Rng, n: usize) -> GraphSpec {
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
        let ws = if r.chance(20) { r.below(100) } else { 0 };
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
pub fn wide_layered(r: &mut Rng, n: usize) -> Graph {
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
            let ws = if r.chance(20) { r.below(50) } else { 0 };
            b.op(inputs, vec![t.clone()], ws);
            layer.push(t);
            made += 1;
        }
        layers.push(layer);
    }
    for t in layers.last().expect("a layer").clone() {
        b.output(&t);
    }
    b.graph()
}
