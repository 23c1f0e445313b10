// Everything the view asks of the planner, in one place: the Web Worker (worker.js) runs it off
// the main thread; the view falls back to running it in-page only where workers are refused.
//
// Protocol (worker.js): the page posts {id, type, ...}; the engine answers {id, ok: true, result}
// or {id, ok: false, error: {message, code}}. Types:
//   init     {wasm: ArrayBuffer|Uint8Array}  -> {version, methods}
//   analyze  {graph: string, options: {method, budget_ms, max_states}, fusion: bool}
//            -> {plan, program, planned, model, layout, timings}
// `program`/`planned` are simulations (DESIGN.md §5 fields; `during`/`after` as Float64Array,
// transferred, not copied; `steps` is dropped since the arrays carry the same numbers).

import init, * as wasm from 'peakorder-wasm-web';
import { buildModel } from './model.js';
import { layoutDag } from './layout.js';

let ready = null;
let methods = [];

// The smallest valid graph, used once to ask the core which methods it has.
const TINY = '{"tensors":[{"id":"x","bytes":1},{"id":"y","bytes":1}],"ops":[{"id":"f","inputs":["x"],"outputs":["y"]}],"outputs":["y"]}';

async function doInit(bytes) {
  await init({ module_or_path: bytes });
  try {
    methods = wasm.compare(TINY, { budget_ms: 50 }).methods.map((m) => m.method);
  } catch {
    methods = ['program', 'greedy'];
  }
  return { version: wasm.version(), methods };
}

function simulation(graph, order) {
  const s = wasm.simulate(graph, order);
  return {
    peak_bytes: s.peak_bytes,
    inputs_bytes: s.inputs_bytes,
    peak_step: s.peak_step,
    live_at_peak: s.live_at_peak,
    during: Float64Array.from(s.during),
    after: Float64Array.from(s.after),
  };
}

function analyze(text, options, fusion) {
  const t0 = performance.now();
  const plan = wasm.plan(text, options);
  const t1 = performance.now();
  const graph = JSON.parse(text); // already validated by the core
  const model = buildModel(graph);
  const programOrder = graph.ops.map((o) => o.id);
  let program = null;
  let programError = null;
  try {
    program = simulation(text, programOrder);
  } catch (e) {
    // A file may list ops out of dependency order; then it has no program-order peak.
    programError = e.message;
  }
  const planned = simulation(text, plan.order);
  const t2 = performance.now();
  const opIx = new Map(model.ops.map((o, v) => [o.id, v]));
  const rank = new Int32Array(model.ops.length);
  plan.order.forEach((id, k) => { rank[opIx.get(id)] = k; });
  const layout = layoutDag(model, rank);
  // FUSION HOOK: once the wasm package exports fuse() (fusion lands in another branch), call it
  // here, e.g. `regions = wasm.fuse(text, {}).regions`, and return them; the view already
  // outlines any `regions` (arrays of op ids) it is given (see dag.js drawRegions).
  const regions = fusion && typeof wasm.fuse === 'function' ? fuseRegions(text) : null;
  const t3 = performance.now();
  return {
    plan, program, programError, planned, model, layout, regions, rank,
    timings: { plan_ms: t1 - t0, simulate_ms: t2 - t1, layout_ms: t3 - t2 },
  };
}

function fuseRegions(text) {
  try {
    return wasm.fuse(text, {}).regions || null;
  } catch {
    return null;
  }
}

function transferables(result) {
  const list = [];
  for (const s of [result.program, result.planned]) if (s) list.push(s.during.buffer, s.after.buffer);
  if (result.layout && result.layout.kind === 'simple') list.push(result.layout.x.buffer, result.layout.y.buffer);
  list.push(result.rank.buffer);
  return list;
}

function errorOf(e) {
  return { message: e && e.message ? e.message : String(e), code: (e && e.code) || 'error' };
}

/** Handles one request; resolves to [reply, transfer list]. */
export async function handle(msg) {
  try {
    if (msg.type === 'init') {
      ready = ready || doInit(msg.wasm);
      return [{ id: msg.id, ok: true, result: await ready }, []];
    }
    if (!ready) throw Object.assign(new Error('planner not initialised'), { code: 'not_ready' });
    await ready;
    if (msg.type === 'analyze') {
      const result = analyze(msg.graph, msg.options || {}, !!msg.fusion);
      return [{ id: msg.id, ok: true, result }, transferables(result)];
    }
    throw Object.assign(new Error(`unknown request ${msg.type}`), { code: 'bad_request' });
  } catch (e) {
    return [{ id: msg.id, ok: false, error: errorOf(e) }, []];
  }
}
