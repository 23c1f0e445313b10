//! The executor on the CPU: its measured peak equals the simulator's, step by step, on the seed
//! graph and on thousands of random graphs (views, donated inputs, workspaces, bytes-only
//! tensors, unknown kinds) in random valid orders, and every order computes the same bits.

use peakorder::examples::{seed_graph, SeedOptions, SeedOrder};
use peakorder::format::{GraphSpec, OpSpec, TensorSpec};
use peakorder::{simulate, Graph, Method, NoClock, OpIx, PlanOptions};
use peakorder_gpu::exec::{self, cpu::CpuBackend, Backend, Device, ExecError, Kernel, Slot};
use proptest::prelude::*;

/// A CPU backend that also records the live bytes at every launch (the "during" memory).
struct Recording {
    inner: CpuBackend,
    live: u64,
    sizes: std::collections::HashMap<Slot, u64>,
    during: Vec<u64>,
}

impl Recording {
    fn new() -> Self {
        Recording {
            inner: CpuBackend::new(),
            live: 0,
            sizes: Default::default(),
            during: Vec::new(),
        }
    }
}

impl Backend for Recording {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn prepare(&mut self, sizes: &[u64]) -> Result<(), ExecError> {
        self.inner.prepare(sizes)
    }
    fn charge(&self, bytes: u64) -> u64 {
        self.inner.charge(bytes)
    }
    fn reset_peak(&mut self) -> Result<(), ExecError> {
        self.during.clear();
        self.inner.reset_peak()
    }
    fn alloc(
        &mut self,
        slot: Slot,
        bytes: u64,
        what: &dyn Fn() -> String,
    ) -> Result<(), ExecError> {
        self.live += bytes;
        assert!(
            self.sizes.insert(slot, bytes).is_none(),
            "{slot:?} allocated twice"
        );
        self.inner.alloc(slot, bytes, what)
    }
    fn free(&mut self, slot: Slot) -> Result<(), ExecError> {
        self.live -= self.sizes.remove(&slot).expect("freed but not allocated");
        self.inner.free(slot)
    }
    fn upload(&mut self, slot: Slot, data: &[u8]) -> Result<(), ExecError> {
        self.inner.upload(slot, data)
    }
    fn launch(&mut self, kernel: &Kernel) -> Result<(), ExecError> {
        self.during.push(self.live);
        self.inner.launch(kernel)
    }
    fn sync(&mut self) -> Result<(), ExecError> {
        self.inner.sync()
    }
    fn peak(&mut self) -> Result<u64, ExecError> {
        self.inner.peak()
    }
    fn download(&mut self, slot: Slot, bytes: u64) -> Result<Vec<u8>, ExecError> {
        self.inner.download(slot, bytes)
    }
    fn free_all(&mut self) {
        self.sizes.clear();
        self.live = 0;
        self.inner.free_all()
    }
}

fn seed(order: SeedOrder) -> Graph {
    Graph::from_spec(seed_graph(SeedOptions {
        order,
        ..SeedOptions::default()
    }))
    .unwrap()
}

fn planned_order(g: &Graph) -> Vec<OpIx> {
    let opts = PlanOptions {
        method: Method::Greedy,
        budget_ms: None,
        ..PlanOptions::default()
    };
    peakorder::plan(g, &opts, &NoClock).unwrap().order_ix
}

#[test]
fn seed_graph_measures_the_seed_reports_peaks() {
    let g = seed(SeedOrder::BreadthFirst);
    let prepared = exec::prepare(&g).unwrap();
    let mut cpu = CpuBackend::new();
    let program: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
    let a = exec::execute(&g, &prepared, &program, &mut cpu).unwrap();
    let b = exec::execute(&g, &prepared, &planned_order(&g), &mut cpu).unwrap();
    assert_eq!(a.inputs_bytes, 2_883_584);
    assert_eq!(a.measured_peak_bytes, 5_767_168); // 5.5 MiB, 2.75 above inputs
    assert_eq!(a.planned_peak_bytes, 5_767_168);
    assert_eq!(b.measured_peak_bytes, 3_670_016); // 3.5 MiB, 0.75 above inputs
    assert_eq!(b.planned_peak_bytes, 3_670_016);
    assert!(a.matches_plan() && b.matches_plan());
    assert_eq!(a.outputs_checksum, b.outputs_checksum);
    // The path-by-path file runs the same computation: same output bits.
    let g2 = seed(SeedOrder::PathByPath);
    let p2 = exec::prepare(&g2).unwrap();
    let order2: Vec<OpIx> = (0..g2.num_ops() as OpIx).collect();
    let c = exec::execute(&g2, &p2, &order2, &mut cpu).unwrap();
    assert_eq!(c.measured_peak_bytes, 3_670_016);
    assert_eq!(c.outputs_checksum, a.outputs_checksum);
}

#[test]
fn kernels_compute_the_right_values() {
    // x = [[1, -2], [3, -4]] is not a graph input we control, so check relations instead:
    // relu(x) + relu(-x)... is not expressible; use copy/relu/add/mul/matmul/sum on one input
    // and compare the downloaded bytes with a host computation.
    let text = r#"{"tensors": [
        {"id": "x", "shape": [2, 3], "dtype": "f32"},
        {"id": "w", "shape": [3, 2], "dtype": "f32"},
        {"id": "r", "shape": [2, 3], "dtype": "f32"},
        {"id": "s", "shape": [2, 3], "dtype": "f32"},
        {"id": "p", "shape": [2, 3], "dtype": "f32"},
        {"id": "m", "shape": [2, 2], "dtype": "f32"},
        {"id": "t", "shape": [2], "dtype": "f32"},
        {"id": "c", "shape": [2], "dtype": "f32"},
        {"id": "all", "shape": [], "dtype": "f32"}
      ],
      "ops": [
        {"id": "relu", "kind": "relu", "inputs": ["x"], "outputs": ["r"]},
        {"id": "add", "kind": "add", "inputs": ["x", "r"], "outputs": ["s"]},
        {"id": "mul", "kind": "mul", "inputs": ["s", "s"], "outputs": ["p"]},
        {"id": "mm", "kind": "matmul", "inputs": ["p", "w"], "outputs": ["m"]},
        {"id": "sum", "kind": "sum", "inputs": ["m"], "outputs": ["t"]},
        {"id": "copy", "kind": "copy", "inputs": ["t"], "outputs": ["c"]},
        {"id": "sumall", "kind": "sum", "inputs": ["x"], "outputs": ["all"]}
      ],
      "outputs": ["c", "all"]}"#;
    let g = Graph::from_json(text).unwrap();
    let prepared = exec::prepare(&g).unwrap();
    let names: Vec<&str> = prepared.kernels.iter().map(Kernel::name).collect();
    assert_eq!(
        names,
        ["relu", "add", "mul", "matmul", "sum", "copy", "sum"]
    );

    let f = |id: &str, n: u64| -> Vec<f32> {
        exec::data::input_bytes(id, n * 4)
            .chunks_exact(4)
            .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    };
    let (x, w) = (f("x", 6), f("w", 6));
    let r: Vec<f32> = x.iter().map(|&v| if v > 0.0 { v } else { 0.0 }).collect();
    let s: Vec<f32> = x.iter().zip(&r).map(|(a, b)| a + b).collect();
    let p: Vec<f32> = s.iter().map(|a| a * a).collect();
    let mut m = [0f32; 4];
    for i in 0..2 {
        for k in 0..3 {
            for j in 0..2 {
                m[i * 2 + j] += p[i * 3 + k] * w[k * 2 + j];
            }
        }
    }
    let t = [m[0] + m[1], m[2] + m[3]];
    let all = x.iter().fold(0f32, |acc, &v| acc + v);
    let mut expect = exec::data::Fnv::new();
    for v in t {
        expect.write(&v.to_le_bytes());
    }
    expect.write(&all.to_le_bytes());

    let mut cpu = CpuBackend::new();
    let order: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
    let res = exec::execute(&g, &prepared, &order, &mut cpu).unwrap();
    assert_eq!(res.outputs_checksum, expect.finish());
    assert!(
        t[0] != 0.0 || t[1] != 0.0,
        "the test data must not be trivial"
    );
}

fn refused(text: &str) -> ExecError {
    let g = Graph::from_json(text).unwrap();
    exec::prepare(&g).unwrap_err()
}

#[test]
fn unfit_kinds_are_refused_naming_the_op() {
    let e = refused(
        r#"{"tensors": [{"id": "a", "shape": [2, 3], "dtype": "f32"},
                        {"id": "b", "shape": [2, 3], "dtype": "f32"},
                        {"id": "c", "shape": [2, 3], "dtype": "f32"}],
            "ops": [{"id": "mm", "kind": "matmul", "inputs": ["a", "b"], "outputs": ["c"]}],
            "outputs": ["c"]}"#,
    );
    assert!(
        matches!(&e, ExecError::Unsupported { op, .. } if op == "mm"),
        "{e}"
    );
    assert!(e.is_input_error());
    assert!(e.to_string().contains("\"mm\""), "{e}");

    let e = refused(
        r#"{"tensors": [{"id": "a", "shape": [4], "dtype": "f16"},
                        {"id": "c", "shape": [4], "dtype": "f16"}],
            "ops": [{"id": "r", "kind": "relu", "inputs": ["a"], "outputs": ["c"]}],
            "outputs": ["c"]}"#,
    );
    assert!(
        e.to_string().contains("f32") && e.to_string().contains("\"r\""),
        "{e}"
    );

    let e = refused(
        r#"{"tensors": [{"id": "a", "shape": [4], "dtype": "f32"},
                        {"id": "b", "shape": [5], "dtype": "f32"},
                        {"id": "c", "shape": [4], "dtype": "f32"}],
            "ops": [{"id": "add1", "kind": "add", "inputs": ["a", "b"], "outputs": ["c"]}],
            "outputs": ["c"]}"#,
    );
    assert!(e.to_string().contains("add1"), "{e}");

    let e = refused(
        r#"{"tensors": [{"id": "a", "shape": [4], "dtype": "f32"},
                        {"id": "c", "bytes": 12}],
            "ops": [{"id": "cp", "kind": "copy", "inputs": ["a"], "outputs": ["c"]}],
            "outputs": ["c"]}"#,
    );
    assert!(
        e.to_string().contains("cp") && e.to_string().contains("differ"),
        "{e}"
    );

    let e = refused(
        r#"{"tensors": [{"id": "a", "shape": [4, 4], "dtype": "f32"},
                        {"id": "c", "shape": [3], "dtype": "f32"}],
            "ops": [{"id": "s", "kind": "sum", "inputs": ["a"], "outputs": ["c"]}],
            "outputs": ["c"]}"#,
    );
    assert!(e.to_string().contains("last axis"), "{e}");

    // Writing through a view would make results depend on the order.
    let e = refused(
        r#"{"tensors": [{"id": "a", "shape": [4], "dtype": "f32"},
                        {"id": "v", "alias_of": "a"}],
            "ops": [{"id": "inplace", "kind": "relu", "inputs": ["a"], "outputs": ["v"]}],
            "outputs": ["v"]}"#,
    );
    assert!(e.to_string().contains("view"), "{e}");

    // A view larger than its storage cannot be read.
    let e = refused(
        r#"{"tensors": [{"id": "a", "bytes": 8},
                        {"id": "v", "alias_of": "a", "shape": [4], "dtype": "f32"}],
            "ops": [{"id": "t", "kind": "reshape", "inputs": [], "outputs": ["v"]}],
            "outputs": ["v"]}"#,
    );
    assert!(e.to_string().contains("\"v\""), "{e}");
}

#[test]
fn bytes_only_and_unknown_kinds_run_as_fill() {
    let text = r#"{"tensors": [
        {"id": "a", "bytes": 1000},
        {"id": "b", "bytes": 333},
        {"id": "c", "shape": [10], "dtype": "f32"},
        {"id": "d", "bytes": 7}
      ],
      "ops": [
        {"id": "weird", "kind": "conv3d", "inputs": ["a"], "outputs": ["b", "c"], "workspace": 4096},
        {"id": "r", "kind": "relu", "inputs": ["b"], "outputs": ["d"]}
      ],
      "outputs": ["c", "d"]}"#;
    let g = Graph::from_json(text).unwrap();
    let prepared = exec::prepare(&g).unwrap();
    assert!(prepared
        .kernels
        .iter()
        .all(|k| matches!(k, Kernel::Fill { .. })));
    let mut cpu = CpuBackend::new();
    let res = exec::execute(&g, &prepared, &[0, 1], &mut cpu).unwrap();
    let sim = simulate(&g, &[0, 1]).unwrap();
    assert_eq!(res.measured_peak_bytes, sim.peak_bytes);
    assert_eq!(res.measured_peak_bytes, 1000 + 333 + 40 + 4096);
}

#[test]
fn a_bad_order_is_refused_before_anything_runs() {
    let g = seed(SeedOrder::BreadthFirst);
    let prepared = exec::prepare(&g).unwrap();
    let mut cpu = CpuBackend::new();
    let mut order: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
    order.swap(0, 15);
    let e = exec::execute(&g, &prepared, &order, &mut cpu).unwrap_err();
    assert!(e.is_input_error(), "{e}");
    order.pop();
    assert!(exec::execute(&g, &prepared, &order, &mut cpu).is_err());
}

#[test]
fn cuda_without_a_driver_is_a_clean_error() {
    if exec::cuda_available() {
        return; // covered by scripts/gpu-check.sh on a GPU machine
    }
    let e = exec::open(Device::Cuda).err().expect("no CUDA here");
    assert!(matches!(e, ExecError::NoCuda(_)), "{e}");
    assert!(!e.is_input_error());
    assert!(e.to_string().contains("no CUDA driver was found"), "{e}");
}

// ---- random graphs --------------------------------------------------------------------------

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A random graph over square f32 tensors of side `d`: every kind the executor knows, views
/// (made by a metadata-only `view` op), donated and bytes-only inputs, workspaces, multi-output
/// unknown ops, unused outputs and view outputs.
fn random_graph(seed: u64) -> GraphSpec {
    let mut rng = Rng(seed);
    let d = 1 + rng.below(4) as u64;
    let mut tensors: Vec<TensorSpec> = Vec::new();
    let mut ops: Vec<OpSpec> = Vec::new();
    // (id, is a plain [d, d] f32 tensor)
    let mut avail: Vec<(String, bool)> = Vec::new();
    let square = |id: String| TensorSpec {
        id,
        shape: Some(vec![d, d]),
        dtype: Some("f32".into()),
        ..Default::default()
    };
    for i in 0..1 + rng.below(3) {
        let id = format!("in{i}");
        let mut t = if rng.chance(20) {
            TensorSpec {
                id: id.clone(),
                bytes: Some(d * d * 4),
                ..Default::default()
            }
        } else {
            square(id.clone())
        };
        t.donated = rng.chance(40).then_some(true);
        avail.push((id, t.bytes.is_none()));
        tensors.push(t);
    }
    let n_ops = 1 + rng.below(9);
    for v in 0..n_ops {
        let pick =
            |rng: &mut Rng, avail: &[(String, bool)]| avail[rng.below(avail.len())].0.clone();
        let out = format!("t{v}");
        let kind = [
            "relu", "add", "mul", "matmul", "sum", "copy", "view", "opaque",
        ][rng.below(8)];
        let mut op = OpSpec {
            id: format!("op{v}"),
            kind: Some(kind.into()),
            ..Default::default()
        };
        match kind {
            "relu" | "copy" => op.inputs = vec![pick(&mut rng, &avail)],
            "add" | "mul" | "matmul" => {
                op.inputs = vec![pick(&mut rng, &avail), pick(&mut rng, &avail)]
            }
            "sum" => op.inputs = vec![pick(&mut rng, &avail)],
            "view" => op.inputs = vec![],
            _ => {
                for _ in 0..rng.below(3) {
                    op.inputs.push(pick(&mut rng, &avail));
                }
            }
        }
        match kind {
            "sum" => {
                tensors.push(TensorSpec {
                    id: out.clone(),
                    shape: Some(vec![d]),
                    dtype: Some("f32".into()),
                    ..Default::default()
                });
                op.outputs = vec![out];
            }
            "view" => {
                let target = pick(&mut rng, &avail);
                tensors.push(TensorSpec {
                    id: out.clone(),
                    alias_of: Some(target.clone()),
                    shape: Some(vec![d, d]),
                    dtype: Some("f32".into()),
                    ..Default::default()
                });
                op.outputs = vec![out.clone()];
                avail.push((out, true));
            }
            "opaque" => {
                op.workspace = rng.chance(50).then(|| 1 + rng.below(100) as u64);
                for k in 0..1 + rng.below(2) {
                    let id = format!("{out}_{k}");
                    tensors.push(square(id.clone()));
                    op.outputs.push(id.clone());
                    avail.push((id, true));
                }
            }
            _ => {
                // copy may read a bytes-only tensor: give its output bytes too, so sizes match.
                let bytes_only = kind == "copy"
                    && avail
                        .iter()
                        .any(|(id, typed)| !typed && op.inputs[0] == *id);
                if bytes_only {
                    tensors.push(TensorSpec {
                        id: out.clone(),
                        bytes: Some(d * d * 4),
                        ..Default::default()
                    });
                } else {
                    tensors.push(square(out.clone()));
                }
                op.outputs = vec![out.clone()];
                avail.push((out, !bytes_only));
            }
        }
        if kind == "opaque" || rng.chance(10) {
            op.workspace = op.workspace.or(Some(rng.below(64) as u64));
        }
        ops.push(op);
    }
    let mut outputs = Vec::new();
    for t in &tensors {
        if rng.chance(15) {
            outputs.push(t.id.clone());
        }
    }
    if outputs.is_empty() {
        outputs.push(tensors.last().unwrap().id.clone());
    }
    GraphSpec {
        format: None,
        tensors,
        ops,
        outputs,
        meta: None,
    }
}

/// A uniformly chosen ready op at each step: a random valid order.
fn random_order(g: &Graph, rng: &mut Rng) -> Vec<OpIx> {
    let n = g.num_ops();
    let mut indeg: Vec<usize> = (0..n as OpIx).map(|v| g.preds(v).len()).collect();
    let mut ready: Vec<OpIx> = (0..n as OpIx).filter(|&v| indeg[v as usize] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let v = ready.swap_remove(rng.below(ready.len()));
        order.push(v);
        for &s in g.succs(v) {
            indeg[s as usize] -= 1;
            if indeg[s as usize] == 0 {
                ready.push(s);
            }
        }
    }
    order
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn measured_equals_simulated_and_results_do_not_depend_on_the_order(seed in any::<u64>()) {
        let g = Graph::from_spec(random_graph(seed)).unwrap();
        let prepared = exec::prepare(&g).unwrap();
        let mut rng = Rng(seed ^ 0x5eed);
        let mut backend = Recording::new();
        let mut checksum = None;
        for _ in 0..4 {
            let order = random_order(&g, &mut rng);
            let sim = simulate(&g, &order).unwrap();
            let res = exec::execute(&g, &prepared, &order, &mut backend).unwrap();
            prop_assert_eq!(res.measured_peak_bytes, sim.peak_bytes);
            prop_assert_eq!(res.planned_peak_bytes, sim.peak_bytes);
            // Every step, not only the peak.
            let during: Vec<u64> = sim.steps.iter().map(|s| s.during_bytes).collect();
            prop_assert_eq!(&backend.during, &during);
            prop_assert_eq!(*checksum.get_or_insert(res.outputs_checksum), res.outputs_checksum);
        }
    }
}

/// A backend whose allocator runs out of memory at the `fail_at`-th allocation.
struct Failing {
    inner: Recording,
    allocs: usize,
    fail_at: usize,
    freed_all: bool,
}

impl Backend for Failing {
    fn describe(&self) -> String {
        "failing".into()
    }
    fn prepare(&mut self, sizes: &[u64]) -> Result<(), ExecError> {
        self.inner.prepare(sizes)
    }
    fn charge(&self, bytes: u64) -> u64 {
        bytes
    }
    fn reset_peak(&mut self) -> Result<(), ExecError> {
        self.inner.reset_peak()
    }
    fn alloc(
        &mut self,
        slot: Slot,
        bytes: u64,
        what: &dyn Fn() -> String,
    ) -> Result<(), ExecError> {
        self.allocs += 1;
        if self.allocs == self.fail_at {
            return Err(ExecError::OutOfMemory {
                what: what(),
                bytes,
                detail: "test".into(),
            });
        }
        self.inner.alloc(slot, bytes, what)
    }
    fn free(&mut self, slot: Slot) -> Result<(), ExecError> {
        self.inner.free(slot)
    }
    fn upload(&mut self, slot: Slot, data: &[u8]) -> Result<(), ExecError> {
        self.inner.upload(slot, data)
    }
    fn launch(&mut self, kernel: &Kernel) -> Result<(), ExecError> {
        self.inner.launch(kernel)
    }
    fn sync(&mut self) -> Result<(), ExecError> {
        Ok(())
    }
    fn peak(&mut self) -> Result<u64, ExecError> {
        self.inner.peak()
    }
    fn download(&mut self, slot: Slot, bytes: u64) -> Result<Vec<u8>, ExecError> {
        self.inner.download(slot, bytes)
    }
    fn free_all(&mut self) {
        self.freed_all = true;
        self.inner.free_all()
    }
}

#[test]
fn out_of_memory_frees_everything_and_names_the_op() {
    let g = seed(SeedOrder::BreadthFirst);
    let prepared = exec::prepare(&g).unwrap();
    let order: Vec<OpIx> = (0..g.num_ops() as OpIx).collect();
    // 11 inputs, then one output per op: allocation 14 is op 3's output (relu1_2).
    let mut b = Failing {
        inner: Recording::new(),
        allocs: 0,
        fail_at: 14,
        freed_all: false,
    };
    let e = exec::execute(&g, &prepared, &order, &mut b).unwrap_err();
    assert!(e.to_string().contains("relu1_2"), "{e}");
    assert!(!e.is_input_error());
    assert!(b.freed_all && b.inner.sizes.is_empty() && b.inner.live == 0);
    // The same backend runs cleanly afterwards.
    b.fail_at = 0;
    let r = exec::execute(&g, &prepared, &order, &mut b).unwrap();
    assert_eq!(r.measured_peak_bytes, 5_767_168);
}

// Schedules with recomputations (docs/design.md §1, "Recomputation"): a step that runs an op
// again allocates its outputs again; the executor frees as the schedule simulator does.

/// `order` with up to `k` extra runs inserted at random places, each of an op that already ran
/// there, kept only where the schedule stays valid (`recompute: false` ops run once; a view
/// read after its storage was made again must be made again too).
fn with_repeats(g: &Graph, order: &[OpIx], rng: &mut Rng, k: usize) -> Vec<OpIx> {
    let mut s = order.to_vec();
    for _ in 0..k {
        let at = 1 + rng.below(s.len().max(1));
        let v = s[rng.below(at.min(s.len()))];
        s.insert(at.min(s.len()), v);
        if peakorder::recompute::check_schedule(g, &s).is_err() {
            s.remove(at.min(s.len() - 1));
        }
    }
    s
}

/// The doc example of `simulate_schedule`: a -> b -> c, and d reads a and c, over f32s.
fn keep_or_recompute() -> Graph {
    Graph::from_json(
        r#"{
      "tensors": [{"id": "x", "shape": [4], "dtype": "f32"}, {"id": "a", "shape": [100], "dtype": "f32"},
                  {"id": "b", "shape": [10], "dtype": "f32"}, {"id": "c", "shape": [10], "dtype": "f32"},
                  {"id": "d", "shape": [1], "dtype": "f32"}],
      "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"]},
              {"id": "B", "inputs": ["a"], "outputs": ["b"]},
              {"id": "C", "inputs": ["b"], "outputs": ["c"], "workspace": 400},
              {"id": "D", "inputs": ["a", "c"], "outputs": ["d"]}],
      "outputs": ["d"]
    }"#,
    )
    .unwrap()
}

#[test]
fn a_hand_written_schedule_frees_and_makes_again_as_planned() {
    let g = keep_or_recompute();
    let prepared = exec::prepare(&g).unwrap();
    let mut b = Recording::new();
    let once = g.order_from_ids(&["A", "B", "C", "D"]).unwrap();
    let again = g.schedule_from_ids(&["A", "B", "C", "A", "D"]).unwrap();
    let o = exec::execute(&g, &prepared, &once, &mut b).unwrap();
    assert_eq!(o.measured_peak_bytes, 16 + 400 + 40 + 40 + 400);
    let r = exec::execute(&g, &prepared, &again, &mut b).unwrap();
    let sim = peakorder::recompute::simulate_schedule(&g, &again).unwrap();
    // `a` is freed after B and made again for D: C runs without it.
    assert_eq!(sim.peak_bytes, 16 + 40 + 40 + 400);
    assert_eq!(r.planned_peak_bytes, sim.peak_bytes);
    assert_eq!(r.measured_peak_bytes, sim.peak_bytes);
    let during: Vec<u64> = sim.steps.iter().map(|s| s.during_bytes).collect();
    assert_eq!(b.during, during);
    assert_eq!(r.outputs_checksum, o.outputs_checksum);
}

#[test]
fn a_bad_schedule_is_refused_naming_the_op() {
    let g = Graph::from_json(
        r#"{
      "tensors": [{"id": "x", "shape": [4], "dtype": "f32"}, {"id": "a", "shape": [4], "dtype": "f32"},
                  {"id": "v", "alias_of": "a", "shape": [4], "dtype": "f32"},
                  {"id": "b", "shape": [4], "dtype": "f32"}, {"id": "c", "shape": [4], "dtype": "f32"}],
      "ops": [{"id": "A", "kind": "relu", "inputs": ["x"], "outputs": ["a"]},
              {"id": "V", "kind": "view", "outputs": ["v"], "inputs": []},
              {"id": "B", "kind": "relu", "inputs": ["v"], "outputs": ["b"], "recompute": false},
              {"id": "C", "kind": "add", "inputs": ["v", "b"], "outputs": ["c"]}],
      "outputs": ["c"]
    }"#,
    )
    .unwrap();
    let prepared = exec::prepare(&g).unwrap();
    let mut cpu = CpuBackend::new();
    let ix = |ids: &[&str]| -> Vec<OpIx> { ids.iter().map(|i| g.op_ix(i).unwrap()).collect() };
    for (schedule, code_text, op) in [
        (ix(&["A", "V", "B", "B", "C"]), "recompute: false", "\"B\""),
        (ix(&["A", "V", "B", "A", "C"]), "computed again", "\"C\""),
    ] {
        let e = exec::execute(&g, &prepared, &schedule, &mut cpu).unwrap_err();
        let m = e.to_string();
        assert!(e.is_input_error(), "{m}");
        assert!(m.contains(code_text) && m.contains(op), "{m}");
    }
    // Making the view again after its storage makes the schedule valid.
    let ok = ix(&["A", "V", "B", "A", "V", "C"]);
    let r = exec::execute(&g, &prepared, &ok, &mut cpu).unwrap();
    let once = exec::execute(&g, &prepared, &ix(&["A", "V", "B", "C"]), &mut cpu).unwrap();
    assert_eq!(r.outputs_checksum, once.outputs_checksum);
    assert_eq!(
        r.measured_peak_bytes,
        peakorder::recompute::schedule_peak(&g, &ok)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn schedules_with_repeats_measure_their_simulated_peak_and_compute_the_same_bits(
        seed in any::<u64>(),
        k in 1usize..8,
    ) {
        let mut spec = random_graph(seed);
        let mut rng = Rng(seed ^ 0x5c4e_d01e);
        for op in &mut spec.ops {
            if rng.chance(15) {
                op.recompute = Some(false);
            }
        }
        let g = Graph::from_spec(spec).unwrap();
        let prepared = exec::prepare(&g).unwrap();
        let mut backend = Recording::new();
        let order = random_order(&g, &mut rng);
        let base = exec::execute(&g, &prepared, &order, &mut backend).unwrap();
        for _ in 0..3 {
            let schedule = with_repeats(&g, &order, &mut rng, k);
            let sim = peakorder::recompute::simulate_schedule(&g, &schedule).unwrap();
            let res = exec::execute(&g, &prepared, &schedule, &mut backend).unwrap();
            prop_assert_eq!(res.planned_peak_bytes, sim.peak_bytes);
            prop_assert_eq!(res.measured_peak_bytes, sim.peak_bytes);
            let during: Vec<u64> = sim.steps.iter().map(|s| s.during_bytes).collect();
            prop_assert_eq!(&backend.during, &during);
            prop_assert_eq!(res.outputs_checksum, base.outputs_checksum);
        }
    }
}

/// Wall time, so that each plan keeps to its default budget.
struct Wall(std::time::Instant);

impl peakorder::Clock for Wall {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1e3
    }
}

/// Every fixture planned at limits from its order's peak down to the least limit's bound:
/// each schedule found runs with measured = planned to the byte, and computes the program
/// order's outputs bit for bit.
#[test]
fn planned_schedules_of_every_fixture_run_as_planned() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut graphs: Vec<(String, Graph)> = vec![("keep-or-recompute".into(), keep_or_recompute())];
    for dir in ["tests/cases", "tests/hard"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for p in paths {
            let g = Graph::from_json(&std::fs::read_to_string(&p).unwrap()).unwrap();
            graphs.push((p.display().to_string(), g));
        }
    }
    let mut recomputed = 0;
    let mut cpu = CpuBackend::new();
    for (name, g) in &graphs {
        let prepared = exec::prepare(g).unwrap_or_else(|e| panic!("{name}: {e}"));
        let program = peakorder::order::program::program_order(g).unwrap();
        let base = exec::execute(g, &prepared, &program, &mut cpu).unwrap();
        let clock = Wall(std::time::Instant::now());
        let top = peakorder::plan(g, &PlanOptions::default(), &clock)
            .unwrap()
            .peak_bytes;
        let (bound, _) = peakorder::recompute::least_peak_bound(g);
        for frac in [1.0, 0.9, 0.7, 0.5, 0.0] {
            let limit = bound + ((top - bound) as f64 * frac) as u64;
            let opts = PlanOptions {
                memory_limit: Some(limit),
                ..PlanOptions::default()
            };
            let plan = match peakorder::plan(g, &opts, &clock) {
                Ok(p) => p,
                Err(e) if e.code() == "infeasible" => continue,
                Err(e) => panic!("{name} at {limit}: {e}"),
            };
            assert!(plan.peak_bytes <= limit, "{name}");
            let r = exec::execute(g, &prepared, &plan.order_ix, &mut cpu)
                .unwrap_or_else(|e| panic!("{name} at {limit}: {e}"));
            assert_eq!(r.planned_peak_bytes, plan.peak_bytes, "{name} at {limit}");
            assert_eq!(r.measured_peak_bytes, plan.peak_bytes, "{name} at {limit}");
            assert_eq!(
                r.outputs_checksum, base.outputs_checksum,
                "{name} at {limit}: outputs differ from the program order's"
            );
            if plan.order_ix.len() > g.num_ops() {
                recomputed += 1;
            }
        }
    }
    // The keep-or-recompute graph needs a recomputation below its order's peak.
    assert!(
        recomputed >= 1,
        "no fixture was planned with a recomputation"
    );
}

/// Revolve's schedules on a training chain (the chain forward, its backward, the loss), at 2
/// to 6 activation slots: executed with measured = planned and the program order's outputs.
#[test]
fn revolve_schedules_of_a_training_chain_run_as_planned() {
    let g = Graph::from_spec(peakorder::generators::chain_train::chain_train(24, 4096)).unwrap();
    let prepared = exec::prepare(&g).unwrap();
    let mut cpu = CpuBackend::new();
    let program = peakorder::order::program::program_order(&g).unwrap();
    let base = exec::execute(&g, &prepared, &program, &mut cpu).unwrap();
    let (least, _) = peakorder::recompute::least_peak_bound(&g);
    let mut repeats = 0;
    for slots in 2..=6u64 {
        let opts = PlanOptions {
            memory_limit: Some(least + slots * 4096),
            recompute_method: peakorder::recompute::RecomputeMethod::Revolve,
            ..PlanOptions::default()
        };
        let plan = match peakorder::plan(&g, &opts, &NoClock) {
            Ok(p) => p,
            Err(e) if e.code() == "infeasible" => continue,
            Err(e) => panic!("{slots} slots: {e}"),
        };
        let r = exec::execute(&g, &prepared, &plan.order_ix, &mut cpu).unwrap();
        assert_eq!(r.measured_peak_bytes, plan.peak_bytes, "{slots} slots");
        assert_eq!(r.outputs_checksum, base.outputs_checksum, "{slots} slots");
        repeats += usize::from(plan.order_ix.len() > g.num_ops());
    }
    assert!(repeats >= 3, "only {repeats} limits needed a recomputation");
}
