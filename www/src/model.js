// The graph as the view needs it: ops, tensors with their sizes, producers and consumers, and
// the op-to-op edges. Planning never happens here (the wasm core does that); this only indexes
// the JSON for drawing and hover details.

const DTYPE_BYTES = {
  f64: 8, f32: 4, f16: 2, bf16: 2, f8e4m3: 1, f8e5m2: 1,
  i64: 8, i32: 4, i16: 2, i8: 1, u8: 1, bool: 1,
};

function tensorBytes(t) {
  if (t.alias_of !== undefined) return 0;
  if (t.bytes !== undefined) return Number(t.bytes);
  if (t.shape && t.dtype) return t.shape.reduce((a, b) => a * Number(b), 1) * (DTYPE_BYTES[t.dtype] || 0);
  return 0;
}

/**
 * Indexes a graph that the core has already validated. Returns plain arrays (it crosses the
 * worker boundary by structured clone).
 */
export function buildModel(g) {
  const tensors = g.tensors.map((t) => ({
    id: t.id,
    bytes: tensorBytes(t),
    shape: t.shape || null,
    dtype: t.dtype || null,
    alias_of: t.alias_of ?? null,
    donated: !!t.donated,
    producer: -1,
    consumers: [],
    output: false,
  }));
  const tix = new Map(tensors.map((t, i) => [t.id, i]));
  const outputs = new Set(g.outputs || []);
  for (const t of tensors) t.output = outputs.has(t.id);
  const ops = g.ops.map((o, v) => {
    const inputs = [...new Set(o.inputs)].map((id) => tix.get(id));
    const outs = o.outputs.map((id) => tix.get(id));
    for (const t of outs) tensors[t].producer = v;
    for (const t of inputs) tensors[t].consumers.push(v);
    return {
      id: o.id,
      kind: o.kind || '',
      inputs,
      outputs: outs,
      workspace: Number(o.workspace || 0),
      fusible: o.fusible || null,
    };
  });
  // Op-to-op edges, one per (producer, consumer) pair, listing the tensors that flow along it.
  const edgeIx = new Map();
  const edges = [];
  ops.forEach((o, v) => {
    for (const t of o.inputs) {
      const p = tensors[t].producer;
      if (p < 0) continue;
      const key = p * ops.length + v;
      let e = edgeIx.get(key);
      if (e === undefined) {
        e = edges.length;
        edgeIx.set(key, e);
        edges.push({ from: p, to: v, tensors: [] });
      }
      edges[e].tensors.push(t);
    }
  });
  for (const t of tensors) {
    if (t.producer < 0 && t.alias_of === null) t.input = true;
  }
  return { ops, tensors, edges };
}

/**
 * Longest-path layering (iterative Kahn order, so a deep chain cannot overflow the stack).
 * Returns layer per op, or null when the graph has a cycle (the core refuses those first).
 */
export function layers(model) {
  const n = model.ops.length;
  const indeg = new Int32Array(n);
  const out = Array.from({ length: n }, () => []);
  for (const e of model.edges) {
    indeg[e.to] += 1;
    out[e.from].push(e.to);
  }
  const layer = new Int32Array(n);
  const queue = [];
  for (let v = 0; v < n; v++) if (indeg[v] === 0) queue.push(v);
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    for (const w of out[v]) {
      if (layer[v] + 1 > layer[w]) layer[w] = layer[v] + 1;
      if (--indeg[w] === 0) queue.push(w);
    }
  }
  return queue.length === n ? layer : null;
}
