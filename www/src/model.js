// The graph as the view needs it: ops, tensors with their sizes, producers and consumers, and
// the op-to-op edges. Planning never happens here (the wasm core does that); this only indexes
// the JSON for drawing and hover details. Sizes, storage roots, pinned flags and the ops that
// keep each storage alive are the core's own tables (wasm `storages()`), so the view never
// re-derives the memory model's numbers.

/** The op's scope path ("a/b/c"): `meta.scope` as a string or an array of components. */
function scopeOf(o) {
  const s = o.meta && o.meta.scope;
  if (typeof s === 'string') return s;
  if (Array.isArray(s)) return s.map(String).join('/');
  return null;
}

/**
 * Indexes a graph that the core has already validated; `st` is the wasm `storages(graph)`
 * object (per tensor, file order: bytes, root, pinned, usersStart, users). Returns plain
 * arrays (it crosses the worker boundary by structured clone).
 */
export function buildModel(g, st) {
  const tensors = g.tensors.map((t, i) => ({
    id: t.id,
    bytes: st.bytes[i],
    shape: t.shape || null,
    dtype: t.dtype || null,
    alias_of: t.alias_of ?? null,
    root: st.root[i],
    pinned: st.pinned[i] === 1,
    donated: !!t.donated,
    producer: -1,
    consumers: [],
    output: false,
  }));
  const tix = new Map(tensors.map((t, i) => [t.id, i]));
  const outputs = new Set(g.outputs || []);
  for (const t of tensors) t.output = outputs.has(t.id);
  const ops = g.ops.map((o, v) => {
    const inputs = [...new Set(o.inputs || [])].map((id) => tix.get(id));
    const outs = (o.outputs || []).map((id) => tix.get(id));
    for (const t of outs) tensors[t].producer = v;
    for (const t of inputs) tensors[t].consumers.push(v);
    return {
      id: o.id,
      kind: o.kind || '',
      inputs,
      outputs: outs,
      workspace: Number(o.workspace || 0),
      fusible: o.fusible || null,
      scope: scopeOf(o),
    };
  });
  // The ops that keep each storage alive (its consumers and its views' consumers), from the
  // core: users[usersStart[t] .. usersStart[t + 1]] (typed arrays, moved to the page, not copied).
  const usersStart = st.usersStart;
  const users = st.users;
  // Op-to-op edges, one per (producer, consumer) pair, listing the tensors that flow along it.
  // The producer of a view also depends on the producer of the tensor it aliases (the core
  // orders them so: a view needs its storage), even when it does not read that tensor.
  const edgeIx = new Map();
  const edges = [];
  const link = (p, v, t) => {
    if (p < 0 || p === v) return;
    const key = p * ops.length + v;
    let e = edgeIx.get(key);
    if (e === undefined) {
      e = edges.length;
      edgeIx.set(key, e);
      edges.push({ from: p, to: v, tensors: [] });
    }
    if (!edges[e].tensors.includes(t)) edges[e].tensors.push(t);
  };
  ops.forEach((o, v) => {
    for (const t of o.inputs) link(tensors[t].producer, v, t);
    for (const t of o.outputs) {
      const a = tensors[t].alias_of;
      if (a !== null) link(tensors[tix.get(a)].producer, v, tix.get(a));
    }
  });
  for (const t of tensors) {
    if (t.producer < 0 && t.alias_of === null) t.input = true;
  }
  return { ops, tensors, edges, users, usersStart };
}

/** The ops (indices) that keep storage t alive. */
export function usersOf(model, t) {
  return model.users.subarray(model.usersStart[t], model.usersStart[t + 1]);
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
