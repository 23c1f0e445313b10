// Everything the view asks of the planner, in one place: the Web Worker (worker.js) runs it off
// the main thread; the view falls back to running it in-page only where workers are refused.
//
// Protocol (worker.js): the page posts {id, type, ...}; the engine answers {id, ok: true, result}
// or {id, ok: false, error: {message, code}}. Types:
//   init     {wasm: ArrayBuffer|Uint8Array}  -> {version, methods}
//   analyze  {graph: string, options: {method, budget_ms, max_states, memory_limit_bytes,
//            recompute_method}, fusion: bool, given: a plan or an order/schedule to show instead
//            of planning (optional)}
//            -> {plan, program, planned, model, layout, rank, firstStep, stepRun, arena,
//                arenaError, regions, fusion, fusionError, timings}
//            (`layout`: dagre's, for a graph small enough to draw whole; else null, and the view
//            groups it; `arena`: the wasm `layout()` object of the planned order, docs/layout.md,
//            drawn by the arena panel, or null with `arenaError` {message, code})
//   fuse     {graph: string, options: {budget_ms, max_states}} -> {fusion, fusionError, regions}
//   importOnnx {bytes: Uint8Array, name, wasm: the ONNX module's bytes} -> {text: graph JSON}
// `fusion` is the wasm `fuse()` object (the `peakorder fuse --json` shape, docs/design.md §4) when
// asked for, `regions` its memory-aware regions (outlined in the DAG); a graph fusion refuses
// (e.g. no fusion meets the limit) still plans: the refusal is in `fusionError` {message, code}.
// `program`/`planned` are simulations (docs/design.md §5 fields, camelCase as the npm API gives
// them: docs/wasm.md "Names"; `during`/`after` as Float64Array, transferred, not copied; `steps`
// is dropped since the arrays carry the same numbers). `plan`, `arena` and `fusion` have the npm
// API's camelCase fields too; a given plan in the CLI's snake_case JSON is renamed to match.
// The planned order may be a schedule (a plan with a memory limit runs some ops again,
// docs/design.md §1 "Recomputation"): `stepRun[k]` is which run of its op step k is (2 and up
// recompute), `firstStep[v]` the step of op v's first run, and `rank[v]` its place among the first
// runs (0 .. ops - 1: the DAG's colours). A schedule has no arena (layouts are of orders).

import init, * as wasm from 'peakorder-wasm-web';
import { initOnnx, importOnnx } from 'peakorder-wasm-web';
import { fromCli } from '../../js/names.mjs';
import { buildModel } from './model.js';
import { layoutDag } from './layout.js';

let ready = null;
let methods = [];

// The smallest valid graph, used once to ask the core which methods it has.
const TINY = '{"tensors":[{"id":"x","bytes":1},{"id":"y","bytes":1}],"ops":[{"id":"f","inputs":["x"],"outputs":["y"]}],"outputs":["y"]}';

async function doInit(bytes) {
  await init({ module_or_path: bytes });
  try {
    methods = wasm.compare(TINY, { budgetMs: 50 }).methods.map((m) => m.method);
  } catch {
    methods = ['program', 'greedy'];
  }
  return { version: wasm.version(), methods };
}

function simulation(graph, order) {
  const s = wasm.simulate(graph, order);
  return {
    peakBytes: s.peakBytes,
    inputsBytes: s.inputsBytes,
    peakStep: s.peakStep,
    liveAtPeak: s.liveAtPeak,
    during: Float64Array.from(s.during),
    after: Float64Array.from(s.after),
  };
}

/**
 * A given plan (the plan JSON, e.g. `peakorder plan --json`'s snake_case or the npm `plan()`'s
 * camelCase, or just an order or schedule of op ids) as the view shows it: its own fields
 * (camelCase), with the peak and the inputs simulated here, so that what is drawn is always the
 * core's simulation of that order.
 */
function givenPlan(text, given) {
  const fields = Array.isArray(given) ? {} : fromCli(given);
  const order = Array.isArray(given) ? given : given && given.order;
  if (!Array.isArray(order)) {
    throw Object.assign(new Error('the plan must be an array of op ids or an object with an "order" array'), { code: 'invalid_argument' });
  }
  const s = wasm.simulate(text, order);
  const summary = wasm.validate(text);
  const num = (x) => (typeof x === 'number' ? x : null);
  return {
    ...fields,
    order: [...order],
    peakBytes: s.peakBytes,
    inputsBytes: s.inputsBytes,
    // An order's bound holds for every order; a schedule's is the plan's own or none.
    lowerBoundBytes: num(fields.lowerBoundBytes) ?? (new Set(order).size === order.length ? summary.lowerBoundBytes : null),
    optimal: fields.optimal === true,
    method: typeof fields.method === 'string' ? fields.method : 'given',
    programOrderPeakBytes: summary.programOrderPeakBytes,
    elapsedMs: num(fields.elapsedMs) ?? 0,
    given: true,
  };
}

/** Which run of its op each step of `order` is, each op's first step, and its rank among the
 * first runs. */
function runsOf(model, order) {
  const opIx = new Map(model.ops.map((o, v) => [o.id, v]));
  const n = model.ops.length;
  const firstStep = new Int32Array(n).fill(-1);
  const rank = new Int32Array(n);
  const stepRun = new Int32Array(order.length);
  const runs = new Int32Array(n);
  let next = 0;
  order.forEach((id, k) => {
    const v = opIx.get(id);
    stepRun[k] = (runs[v] += 1);
    if (firstStep[v] < 0) {
      firstStep[v] = k;
      rank[v] = next++;
    }
  });
  return { rank, firstStep, stepRun };
}

function analyze(text, options, fusion, given) {
  const t0 = performance.now();
  const plan = given ? givenPlan(text, given) : wasm.plan(text, apiOptions(options));
  const t1 = performance.now();
  const graph = JSON.parse(text); // already validated by the core
  const model = buildModel(graph, wasm.storages(text));
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
  const { rank, firstStep, stepRun } = runsOf(model, plan.order);
  // A given schedule without its added cost: the sum of `cost` (default 1) over its repeated runs.
  if (plan.given && typeof plan.addedCost !== 'number' && stepRun.some((k) => k > 1)) {
    const opIx = new Map(model.ops.map((o, v) => [o.id, v]));
    plan.addedCost = plan.order.reduce((a, id, k) => a + (stepRun[k] > 1 ? graph.ops[opIx.get(id)].cost ?? 1 : 0), 0);
  }
  const layout = layoutDag(model);
  const t3 = performance.now();
  const fused = fusion ? fuse(text, options) : { fusion: null, fusionError: null, regions: null };
  const t4 = performance.now();
  const { arena, arenaError } = plan.order.length === model.ops.length
    ? staticLayout(text, plan.order, options)
    : { arena: null, arenaError: { message: 'the schedule runs ops more than once; an arena is laid out for an order', code: 'schedule' } };
  const t5 = performance.now();
  return {
    plan, program, programError, planned, model, layout, rank, firstStep, stepRun, arena, arenaError, ...fused,
    timings: { plan_ms: t1 - t0, simulate_ms: t2 - t1, layout_ms: t3 - t2, fuse_ms: t4 - t3, arena_layout_ms: t5 - t4 },
  };
}

// The arena panel's layout gets the planning budget, at most a second: the page waits for it.
const ARENA_MAX_BUDGET_MS = 1000;

/** The static memory layout of the planned order (the npm `layout()`), for the arena panel. */
function staticLayout(text, order, options) {
  const budget = Math.min(Number(options.budget_ms) || ARENA_MAX_BUDGET_MS, ARENA_MAX_BUDGET_MS);
  try {
    return { arena: wasm.layout(text, { order, budgetMs: budget }), arenaError: null };
  } catch (e) {
    return { arena: null, arenaError: errorOf(e) };
  }
}

// The fusion search plans hundreds of fused graphs; it gets at least the core's default budget
// (the CLI's) so that a short planning budget does not cut it off early.
const FUSE_MIN_BUDGET_MS = 2000;

/** The view's plan options (its own, snake_case names, synced with the anywidget traits) as the
 * npm API's camelCase options (docs/wasm.md "Names"). */
function apiOptions(o) {
  const names = { budget_ms: 'budgetMs', max_states: 'maxStates', max_memory_mb: 'maxMemoryMb',
    memory_limit_bytes: 'memoryLimitBytes', recompute_method: 'recomputeMethod' };
  const out = {};
  for (const [k, v] of Object.entries(o || {})) out[names[k] || k] = v;
  return out;
}

/** Memory-aware fusion and the Thunder-style baseline. */
function fuse(text, options) {
  const fuseOptions = { budgetMs: Math.max(Number(options.budget_ms) || 0, FUSE_MIN_BUDGET_MS) };
  if (options.max_states !== undefined) fuseOptions.maxStates = options.max_states;
  try {
    const fusion = wasm.fuse(text, fuseOptions);
    return { fusion, fusionError: null, regions: fusion.regions };
  } catch (e) {
    return { fusion: null, fusionError: errorOf(e), regions: null };
  }
}

function transferables(result) {
  const list = [];
  for (const s of [result.program, result.planned]) if (s) list.push(s.during.buffer, s.after.buffer);
  list.push(result.rank.buffer, result.firstStep.buffer, result.stepRun.buffer, result.model.users.buffer, result.model.usersStart.buffer);
  return list;
}

function errorOf(e) {
  return { message: e && e.message ? e.message : String(e), code: (e && e.code) || 'error' };
}

let onnxReady = null;

/** An ONNX model's graph JSON text (the CLI's bytes), imported here in the worker: the ONNX
 * module (its own wasm, msg.wasm) is instantiated on the first model. */
async function onnxText(msg) {
  onnxReady = onnxReady || initOnnx({ module_or_path: msg.wasm }).catch((e) => {
    onnxReady = null;
    throw e;
  });
  await onnxReady;
  return { text: importOnnx(msg.bytes, { format: 'text', name: msg.name }) };
}

/** Handles one request; resolves to [reply, transfer list]. */
export async function handle(msg) {
  try {
    if (msg.type === 'importOnnx') return [{ id: msg.id, ok: true, result: await onnxText(msg) }, []];
    if (msg.type === 'init') {
      ready = ready || doInit(msg.wasm);
      return [{ id: msg.id, ok: true, result: await ready }, []];
    }
    if (!ready) throw Object.assign(new Error('planner not initialised'), { code: 'not_ready' });
    await ready;
    if (msg.type === 'analyze') {
      const result = analyze(msg.graph, msg.options || {}, !!msg.fusion, msg.given || null);
      return [{ id: msg.id, ok: true, result }, transferables(result)];
    }
    if (msg.type === 'fuse') {
      return [{ id: msg.id, ok: true, result: fuse(msg.graph, msg.options || {}) }, []];
    }
    throw Object.assign(new Error(`unknown request ${msg.type}`), { code: 'bad_request' });
  } catch (e) {
    return [{ id: msg.id, ok: false, error: errorOf(e) }, []];
  }
}
