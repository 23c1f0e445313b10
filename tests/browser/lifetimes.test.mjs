// The memory timeline's lifetimes (www/src/lifetimes.js) against the core's simulator (the wasm
// `simulate`), on thousands of small random graphs with views, donated and pinned inputs, graph
// outputs (views among them), unread outputs, zero-byte tensors, repeated inputs and workspace,
// each in a random valid order and in a random schedule that runs some ops again (docs/design.md
// §1 "Recomputation"): at every step the stacked bands are exactly `during` (and, once the step's
// frees are done, `after`), and the bands at the peak are exactly `liveAtPeak`.
// Runs in Node (no browser); a failure names its seed and prints the graph.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as po from '../../js/node.mjs';
import { buildModel, usersOf } from '../../www/src/model.js';
import { lifetimes, liveAt } from '../../www/src/lifetimes.js';

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random graph of up to `maxOps` ops mixing every case of docs/design.md §1. */
export function randomGraph(seed, maxOps = 8) {
  const r = rng(seed);
  const int = (k) => Math.floor(r() * k);
  const tensors = [];
  const ops = [];
  const avail = [];
  const size = () => (r() < 0.1 ? 0 : 1 + int(64));
  const nIn = 1 + int(3);
  for (let i = 0; i < nIn; i++) {
    const t = { id: `in${i}`, bytes: size() };
    if (r() < 0.5) t.donated = true;
    tensors.push(t);
    avail.push(t.id);
  }
  const nOps = 1 + int(maxOps);
  for (let v = 0; v < nOps; v++) {
    const inputs = [];
    for (let j = 0, k = int(4); j < k; j++) inputs.push(avail[avail.length - 1 - int(Math.min(avail.length, 6))]);
    if (inputs.length && r() < 0.15) inputs.push(inputs[0]); // matmul(t, t)
    const outputs = [];
    for (let j = 0, k = r() < 0.2 ? 0 : 1 + int(2); j < k; j++) {
      const id = `t${v}_${j}`;
      if (r() < 0.25 && avail.length) tensors.push({ id, alias_of: avail[avail.length - 1 - int(Math.min(avail.length, 4))] });
      else tensors.push({ id, bytes: size() });
      outputs.push(id);
      avail.push(id);
    }
    const op = { id: `op${v}`, inputs, outputs };
    if (r() < 0.3) op.workspace = int(40);
    ops.push(op);
  }
  const outs = avail.filter(() => r() < 0.2);
  return { tensors, ops, outputs: outs };
}

/** A random topological order (op indices) of a valid graph. */
function randomOrder(model, r) {
  const n = model.ops.length;
  const indeg = new Int32Array(n);
  const succ = Array.from({ length: n }, () => []);
  for (const e of model.edges) { indeg[e.to]++; succ[e.from].push(e.to); }
  // Views: an op reading a view depends on the view's producer, which `edges` already has.
  const ready = [];
  for (let v = 0; v < n; v++) if (!indeg[v]) ready.push(v);
  const order = [];
  while (ready.length) {
    const v = ready.splice(Math.floor(r() * ready.length), 1)[0];
    order.push(v);
    for (const w of succ[v]) if (--indeg[w] === 0) ready.push(w);
  }
  return order;
}

/** The order with 1-3 ops run again at random later steps (valid or not: the core decides). */
function randomSchedule(order, r) {
  const s = [...order];
  for (let j = 0, k = 1 + Math.floor(r() * 3); j < k && s.length; j++) {
    const at = Math.floor(r() * s.length);
    const later = at + 1 + Math.floor(r() * (s.length - at));
    s.splice(later, 0, s[at]);
  }
  return s;
}

/** Checks the lifetimes of `order` (op indices) against the simulator's `sim`. */
function checkAgainst(model, order, sim, what) {
  const life = lifetimes(model, order);
  const T = model.tensors;
  const { tensor, start, end, run } = life.inst;
  const ws = (k) => model.ops[order[k]].workspace;
  // At the start: the graph inputs.
  const atStart = liveAt(model, life, null).reduce((a, t) => a + T[t].bytes, 0);
  assert.equal(atStart, sim.inputsBytes, `inputs, ${what}`);
  const runs = new Map();
  for (let k = 0; k < order.length; k++) {
    runs.set(order[k], (runs.get(order[k]) || 0) + 1);
    assert.equal(life.stepRun[k], runs.get(order[k]), `run of step ${k}, ${what}`);
    let during = 0;
    let after = 0;
    for (let i = 0; i < tensor.length; i++) {
      if (start[i] <= k && k < end[i]) during += T[tensor[i]].bytes;
      if (start[i] <= k && k + 1 < end[i]) after += T[tensor[i]].bytes;
    }
    for (let j = 0; j < life.ws.op.length; j++) {
      if (life.ws.step[j] === k) {
        assert.equal(life.ws.op[j], order[k], `workspace op of step ${k}, ${what}`);
        assert.equal(life.ws.run[j], life.stepRun[k], `workspace run of step ${k}, ${what}`);
        during += model.ops[order[k]].workspace;
      }
    }
    assert.equal(during, sim.during[k], `during step ${k}, ${what}`);
    assert.equal(after, sim.after[k], `after step ${k}, ${what}`);
    assert.equal(life.wsStart[order[k]] >= 0, ws(k) > 0, `workspace step ${k}, ${what}`);
  }
  // Each instance is made by the run it says, and instances of one storage never overlap.
  for (let i = 0; i < tensor.length; i++) {
    const t = T[tensor[i]];
    if (t.producer < 0) {
      assert.equal(start[i], 0);
      assert.equal(run[i], 1);
    } else {
      assert.equal(order[start[i]], t.producer, `instance ${i} made by its producer, ${what}`);
      assert.equal(run[i], life.stepRun[start[i]], `instance ${i} run, ${what}`);
    }
    for (let j = i + 1; j < tensor.length; j++) {
      if (tensor[j] === tensor[i]) assert.ok(end[i] <= start[j], `instances of ${t.id} overlap, ${what}`);
    }
  }
  const live = liveAt(model, life, sim.peakStep).map((t) => T[t].id).sort();
  assert.deepEqual(live, [...sim.liveAtPeak].sort(), `live at the peak, ${what}`);
}

test('lifetimes stack up to the simulator at every step, on 4,000 random graphs and schedules', () => {
  let checked = 0;
  let schedules = 0;
  let repeats = 0;
  for (let seed = 1; seed <= 4000; seed++) {
    const g = randomGraph(seed);
    let st;
    try {
      st = po.storages(g);
    } catch {
      continue; // an invalid random graph (e.g. an alias cycle) is the core's to refuse
    }
    const model = buildModel(g, st);
    const r = rng(seed * 7919);
    const order = randomOrder(model, r);
    const ids = order.map((v) => model.ops[v].id);
    let sim;
    const what = `seed ${seed}: ${JSON.stringify(g)} order ${JSON.stringify(ids)}`;
    try {
      sim = po.simulate(g, ids);
    } catch (e) {
      throw new Error(`${e.message}: ${what}`);
    }
    checkAgainst(model, order, sim, what);
    checked += 1;
    // The same graph in a schedule that runs ops again, where the core finds it valid (a view
    // read after its storage was made again, without being made again itself, is not).
    const schedule = randomSchedule(order, r);
    const sids = schedule.map((v) => model.ops[v].id);
    let ssim;
    try {
      ssim = po.simulate(g, sids);
    } catch (e) {
      assert.equal(e.code, 'stale_view', `${e.message}: ${what} schedule ${JSON.stringify(sids)}`);
      continue;
    }
    checkAgainst(model, schedule, ssim, `${what} schedule ${JSON.stringify(sids)}`);
    schedules += 1;
    repeats += schedule.length - order.length;
  }
  assert.ok(checked > 3000, `only ${checked} random graphs were valid`);
  assert.ok(schedules > 2000, `only ${schedules} random schedules were valid`);
  assert.ok(repeats > 3000, `only ${repeats} repeated runs`);
});

test('the model takes its sizes from the core (dtype sizes are not re-derived)', () => {
  const g = {
    tensors: [
      { id: 'a', shape: [3, 5], dtype: 'bf16' }, { id: 'b', shape: [7], dtype: 'f8e5m2' },
      { id: 'v', alias_of: 'a' }, { id: 'c', shape: [2, 2], dtype: 'i64' },
    ],
    ops: [{ id: 'f', inputs: ['v', 'b'], outputs: ['c'] }],
    outputs: ['c'],
  };
  const m = buildModel(g, po.storages(g));
  assert.deepEqual(m.tensors.map((t) => t.bytes), [30, 7, 0, 32]);
  assert.deepEqual(m.tensors.map((t) => t.root), [0, 1, 0, 3]);
  assert.deepEqual([...usersOf(m, 0)], [0], 'the view keeps its storage alive');
});
