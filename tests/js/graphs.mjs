// Graph builders shared by the Node tests and scripts/bench-wasm.mjs.

const f32 = (id) => ({ id, shape: [256, 256], dtype: 'f32' });

/**
 * The nvFuser seed graph (docs/design.md §1, core/src/examples.rs): `paths` parallel paths
 * relu -> matmul(t, t) -> relu -> matmul(t, a) over 256x256 f32, `a` chained through the second
 * matmuls. order "breadth" lists ops as nvFuser ran them, "paths" path by path. 4 ops per path.
 */
export function seedGraph(paths = 10, order = 'breadth') {
  const tensors = [];
  for (let i = 0; i < paths; i++) tensors.push(f32(`t0_${i}`));
  tensors.push(f32('a0'));
  const stages = [[], [], [], []];
  for (let i = 0; i < paths; i++) {
    for (const t of [`t1_${i}`, `t2_${i}`, `t3_${i}`, `a${i + 1}`]) tensors.push(f32(t));
    stages[0].push({ id: `relu1_${i}`, kind: 'relu', inputs: [`t0_${i}`], outputs: [`t1_${i}`], fusible: 'nvfuser' });
    stages[1].push({ id: `matmul1_${i}`, kind: 'matmul', inputs: [`t1_${i}`, `t1_${i}`], outputs: [`t2_${i}`] });
    stages[2].push({ id: `relu2_${i}`, kind: 'relu', inputs: [`t2_${i}`], outputs: [`t3_${i}`], fusible: 'nvfuser' });
    stages[3].push({ id: `matmul2_${i}`, kind: 'matmul', inputs: [`t3_${i}`, `a${i}`], outputs: [`a${i + 1}`] });
  }
  let ops;
  if (order === 'breadth') {
    ops = stages.flat();
  } else {
    ops = [];
    for (let i = 0; i < paths; i++) for (const s of stages) ops.push(s[i]);
  }
  return { format: 'peakorder/1', tensors, ops, outputs: [`a${paths}`] };
}

/** A chain of `n` ops, each reading the previous one's output. */
export function chainGraph(n) {
  const tensors = [{ id: 't0', bytes: 8 }];
  const ops = [];
  for (let i = 1; i <= n; i++) {
    tensors.push({ id: `t${i}`, bytes: 8 + (i % 7) });
    ops.push({ id: `o${i}`, inputs: [`t${i - 1}`], outputs: [`t${i}`] });
  }
  return { tensors, ops, outputs: [`t${n}`] };
}

/** Two ops that feed each other. */
export function cyclicGraph() {
  return {
    tensors: [{ id: 'x', bytes: 4 }, { id: 'y', bytes: 4 }],
    ops: [
      { id: 'f', inputs: ['y'], outputs: ['x'] },
      { id: 'g', inputs: ['x'], outputs: ['y'] },
    ],
  };
}

/** A small deterministic PRNG (mulberry32), so every run sees the same "random" graphs. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random DAG of `n` ops: each reads up to 3 earlier tensors, some ops make two outputs. */
export function randomGraph(n, seed = 1) {
  const r = rng(seed);
  const int = (k) => Math.floor(r() * k);
  const tensors = [];
  const ops = [];
  const inputs = Math.max(1, Math.floor(n / 10));
  for (let i = 0; i < inputs; i++) tensors.push({ id: `in${i}`, bytes: 1 + int(1 << 20), donated: r() < 0.5 });
  for (let v = 0; v < n; v++) {
    const reads = new Set();
    const k = 1 + int(3);
    // Mostly recent tensors, so the graph is deep as well as wide.
    for (let j = 0; j < k; j++) {
      const back = r() < 0.8 ? 1 + int(20) : 1 + int(tensors.length);
      reads.add(tensors[Math.max(0, tensors.length - back)].id);
    }
    const outs = [];
    for (let j = 0, m = r() < 0.1 ? 2 : 1; j < m; j++) {
      const id = `t${v}_${j}`;
      tensors.push({ id, bytes: 1 + int(1 << 20) });
      outs.push(id);
    }
    ops.push({ id: `op${v}`, inputs: [...reads], outputs: outs, workspace: r() < 0.2 ? int(1 << 16) : 0 });
  }
  return { format: 'peakorder/1', tensors, ops, outputs: [tensors[tensors.length - 1].id] };
}

/**
 * A homogeneous chain training graph (core/src/generators/chain_train.rs): forward f1..fn over
 * activations a1..an, a loss against the donated target y, backward bn..b1 over gradients, every
 * tensor `bytes`; the output is g0. `limit(s)` is the least limit with s activation slots.
 */
export function chainTrainGraph(n, bytes = 8) {
  const tensors = [{ id: 'a0', bytes }, { id: 'y', bytes, donated: true }];
  const ops = [];
  for (let i = 1; i <= n; i++) {
    tensors.push({ id: `a${i}`, bytes });
    ops.push({ id: `f${i}`, kind: 'relu', inputs: [`a${i - 1}`], outputs: [`a${i}`] });
  }
  tensors.push({ id: `g${n}`, bytes });
  ops.push({ id: 'loss', kind: 'add', inputs: [`a${n}`, 'y'], outputs: [`g${n}`] });
  for (let i = n; i >= 1; i--) {
    tensors.push({ id: `g${i - 1}`, bytes });
    ops.push({ id: `b${i}`, kind: 'mul', inputs: [`a${i - 1}`, `g${i}`], outputs: [`g${i - 1}`] });
  }
  return { tensors, ops, outputs: ['g0'], limit: (s) => bytes + (s + 2) * bytes };
}
