// The JS API of the package, through its own exports map (`import ... from 'peakorder'`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as po from 'peakorder';
import init from 'peakorder';
import { seedGraph, chainGraph, cyclicGraph, randomGraph } from './graphs.mjs';
import { assertThrowsCode, haveCli, cliJson } from './helpers.mjs';

const MiB = 1 << 20;

test('the seed graph plans to 3.5 MiB, from 5.5 MiB in program order', () => {
  const p = po.plan(seedGraph());
  assert.equal(p.peakBytes, 3670016);
  assert.equal(p.peakBytes, 3.5 * MiB);
  assert.equal(p.inputsBytes, 2.75 * MiB);
  assert.equal(p.programOrderPeakBytes, 5.5 * MiB);
  assert.equal(p.lowerBoundBytes, 3.5 * MiB);
  assert.equal(p.optimal, true);
  assert.equal(p.method, 'auto'); // the default method
  assert.equal(p.order.length, 40);
  assert.equal(typeof p.elapsedMs, 'number');
  assert.ok(p.elapsedMs >= 0);
  // Exactly the docs/design.md §3 fields, as a plain object.
  assert.equal(Object.getPrototypeOf(p), Object.prototype);
  assert.deepEqual(Object.keys(p).sort(), [
    'elapsedMs', 'inputsBytes', 'lowerBoundBy', 'lowerBoundBytes', 'method', 'optimal',
    'order', 'peakBytes', 'programOrderPeakBytes', 'proof',
  ]);
  assert.ok(Array.isArray(p.order));
});

test('a graph as JSON text plans the same as the object', () => {
  const g = seedGraph();
  const a = po.plan(g);
  const b = po.plan(JSON.stringify(g));
  assert.deepEqual(b.order, a.order);
  assert.equal(b.peakBytes, a.peakBytes);
});

test('init() resolves in Node and the functions work before and after it', async () => {
  assert.equal(po.validate(seedGraph()).ops, 40);
  await init();
  await po.init();
  po.initSync();
  assert.equal(po.validate(seedGraph()).ops, 40);
});

test('a cycle throws Error with code "cycle" naming the ops, and the next call still works', () => {
  const e = assertThrowsCode(() => po.plan(cyclicGraph()), 'cycle');
  assert.match(e.message, /"f"/);
  assert.match(e.message, /"g"/);
  assert.deepEqual([...new Set(e.ops)].sort(), ['f', 'g']);
  for (let i = 0; i < 3; i++) {
    assertThrowsCode(() => po.validate(cyclicGraph()), 'cycle');
    assert.equal(po.plan(seedGraph()).peakBytes, 3670016);
  }
});

test('errors name the op and tensor, with fields', () => {
  const g = { tensors: [{ id: 'x', bytes: 1 }], ops: [{ id: 'a', inputs: ['nope'], outputs: ['x'] }] };
  const e = assertThrowsCode(() => po.plan(g), 'unknown_tensor', '"nope"');
  assert.equal(e.op, 'a');
  assert.equal(e.tensor, 'nope');
  assertThrowsCode(() => po.plan('{"tensors": ['), 'bad_json');
  assertThrowsCode(() => po.plan({ tensors: [], ops: [], oops: 1 }), 'bad_json', 'oops');
  assertThrowsCode(() => po.plan({ format: 'peakorder/9', tensors: [], ops: [] }), 'bad_format');
  assertThrowsCode(() => po.plan(undefined), 'bad_json');
  assertThrowsCode(() => po.plan(null), 'bad_json');
  assertThrowsCode(() => po.plan(42), 'bad_json');
});

test('validate summarises a valid graph', () => {
  const s = po.validate(seedGraph());
  assert.deepEqual(s, {
    format: 'peakorder/1',
    ops: 40,
    tensors: 51,
    inputs: 11,
    outputs: 1,
    inputsBytes: 2.75 * MiB,
    lowerBoundBytes: 3.5 * MiB,
    programOrderPeakBytes: 5.5 * MiB,
    inForest: true,
  });
  assert.equal(po.validate(randomGraph(50, 3)).ops, 50);
  assert.equal(po.validate(cyclicGraphFixedByOrder()).programOrderPeakBytes, null);
});

/** Valid, but its file order is not topological (the consumer is listed first). */
function cyclicGraphFixedByOrder() {
  return {
    tensors: [{ id: 'x', bytes: 4 }, { id: 'y', bytes: 4 }],
    ops: [
      { id: 'g', inputs: ['x'], outputs: ['y'] },
      { id: 'f', outputs: ['x'] },
    ],
  };
}

test('plan options: method, budget, max_states; bad options are refused', () => {
  const g = seedGraph();
  const p = po.plan(g, { method: 'program' });
  assert.equal(p.method, 'program');
  assert.equal(p.peakBytes, 5.5 * MiB);
  assert.equal(po.plan(g, { budgetMs: 5, maxStates: 10 }).peakBytes, 3.5 * MiB);
  assert.equal(po.plan(g, null).peakBytes, 3.5 * MiB);
  assert.equal(po.plan(g, {}).peakBytes, 3.5 * MiB);
  assertThrowsCode(() => po.plan(g, { method: 'magic' }), 'unknown_method', 'magic');
  assertThrowsCode(() => po.plan(g, { methd: 'greedy' }), 'invalid_argument', 'methd');
  assertThrowsCode(() => po.plan(g, { budgetMs: -1 }), 'invalid_argument');
  assertThrowsCode(() => po.plan(g, { budgetMs: NaN }), 'invalid_argument');
  assertThrowsCode(() => po.plan(g, { budgetMs: 'soon' }), 'invalid_argument');
  assertThrowsCode(() => po.plan(g, { maxStates: -3 }), 'invalid_argument');
  assertThrowsCode(() => po.plan(g, { maxStates: 1.5 }), 'invalid_argument');
  assertThrowsCode(() => po.plan(g, 'greedy'), 'invalid_argument');
  assertThrowsCode(() => po.plan(g, [1]), 'invalid_argument');
  // A method that the file order cannot give: program order of a non-topological file.
  assertThrowsCode(() => po.plan(cyclicGraphFixedByOrder(), { method: 'program' }), 'not_topological');
});

test('simulate: the docs/design.md §5 shape plus Float64Array series', () => {
  const g = seedGraph();
  const p = po.plan(g);
  for (const order of [p, p.order, JSON.stringify(p.order), JSON.stringify(p)]) {
    const s = po.simulate(g, order);
    assert.equal(s.peakBytes, 3.5 * MiB);
    assert.equal(s.inputsBytes, 2.75 * MiB);
    assert.equal(typeof s.peakStep, 'number');
    assert.equal(s.steps.length, 40);
    assert.deepEqual(Object.keys(s.steps[0]).sort(), ['afterBytes', 'duringBytes', 'op']);
    assert.ok(s.during instanceof Float64Array);
    assert.ok(s.after instanceof Float64Array);
    assert.equal(s.during.length, 40);
    assert.deepEqual([...s.during], s.steps.map((x) => x.duringBytes));
    assert.deepEqual([...s.after], s.steps.map((x) => x.afterBytes));
    assert.equal(Math.max(...s.during), s.peakBytes);
    assert.equal(s.steps[s.peakStep].duringBytes, s.peakBytes);
    assert.ok(s.liveAtPeak.includes('a0'));
  }
  const program = g.ops.map((o) => o.id);
  assert.equal(po.simulate(g, program).peakBytes, 5.5 * MiB);
});

test('simulate refuses bad orders with the right codes', () => {
  const g = seedGraph(2);
  const order = po.plan(g).order;
  assertThrowsCode(() => po.simulate(g, order.slice(0, -1)), 'missing_op');
  assertThrowsCode(() => po.simulate(g, ['nope', ...order]), 'unknown_op', '"nope"');
  assertThrowsCode(() => po.simulate(g, [...order].reverse()), 'not_topological');
  assertThrowsCode(() => po.simulate(g, [1, 2]), 'invalid_argument');
  assertThrowsCode(() => po.simulate(g, { steps: [] }), 'invalid_argument');
  assertThrowsCode(() => po.simulate(g, 7), 'invalid_argument');
  assertThrowsCode(() => po.simulate(g, undefined), 'invalid_argument');
  assertThrowsCode(() => po.simulate(g, '[oops'), 'bad_json');
  assertThrowsCode(() => po.simulate(cyclicGraph(), []), 'cycle');
});

test('simulate takes a schedule: a repeated op runs again (docs/design.md §1 "Recomputation")', () => {
  const g = seedGraph(2);
  const order = po.plan(g).order;
  const once = po.simulate(g, order);
  // The first op (a relu of a graph input, which stays live) again at the end: it makes its
  // 0.25 MiB output again, which nothing reads, so it is freed right after.
  const again = po.simulate(g, [...order, order[0]]);
  assert.equal(again.steps.length, order.length + 1);
  assert.deepEqual(again.steps.slice(0, -1), once.steps);
  const last = again.steps[order.length];
  assert.equal(last.op, order[0]);
  assert.equal(last.duringBytes, once.steps[order.length - 1].afterBytes + MiB / 4);
  assert.equal(last.afterBytes, once.steps[order.length - 1].afterBytes);
  assert.equal(again.peakBytes, Math.max(once.peakBytes, last.duringBytes));
  assert.equal(again.during.length, order.length + 1);
  // An op that must run once may not run again; the error names it and how often it ran.
  const g1 = seedGraph(2);
  g1.ops.find((o) => o.id === order[0]).recompute = false;
  const e = assertThrowsCode(() => po.simulate(g1, [...order, order[0]]), 'not_recomputable', JSON.stringify(order[0]));
  assert.equal(e.op, order[0]);
  assert.equal(e.runs, 2);
  assert.equal(po.simulate(g1, order).peakBytes, once.peakBytes);
});

test('compare: every method, the compare --json shape', () => {
  const c = po.compare(seedGraph());
  assert.equal(c.lowerBoundBytes, 3.5 * MiB);
  assert.equal(c.inputsBytes, 2.75 * MiB);
  const names = c.methods.map((m) => m.method);
  assert.ok(names.includes('program') && names.includes('greedy'));
  const greedy = c.methods.find((m) => m.method === 'greedy');
  assert.equal(greedy.peakBytes, 3.5 * MiB);
  assert.equal(greedy.optimal, true);
  assert.equal(po.compare(seedGraph(), { budgetMs: 1 }).methods.length, c.methods.length);
  assertThrowsCode(() => po.compare(seedGraph(), { method: 'greedy' }), 'invalid_argument');
  // A method that does not apply gives a row with an error, not a throw.
  const bad = po.compare(cyclicGraphFixedByOrder());
  const prog = bad.methods.find((m) => m.method === 'program');
  assert.equal(prog.peakBytes, null);
  assert.match(prog.error, /runs before/);
});

test('version matches package.json', () => {
  const require = createRequire(import.meta.url);
  assert.equal(po.version(), require('../../package.json').version);
});

test('CommonJS require gives the same API', () => {
  const require = createRequire(import.meta.url);
  const cjs = require('peakorder');
  assert.equal(cjs.plan(seedGraph()).peakBytes, 3670016);
  assert.equal(typeof cjs.init, 'function');
  assertThrowsCode(() => cjs.plan(cyclicGraph()), 'cycle');
});

test('the web (ES module) build works once initialised, and says so before', async () => {
  const web = await import('peakorder/web');
  assertThrowsCode(() => web.plan(seedGraph()), 'not_initialized');
  const { readFileSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const wasmPath = fileURLToPath(new URL('../../pkg/web/peakorder_bg.wasm', import.meta.url));
  web.initSync({ module: readFileSync(wasmPath) });
  await web.default(); // already initialised: a no-op
  assert.equal(web.plan(seedGraph()).peakBytes, 3670016);
  assertThrowsCode(() => web.plan(cyclicGraph()), 'cycle');
  assert.equal(web.simulate(seedGraph(), web.plan(seedGraph())).during.length, 40);
});

test('a 10,000-op graph is planned, and its order re-checks', () => {
  for (const g of [seedGraph(2500, 'breadth'), randomGraph(10000, 7)]) {
    assert.equal(g.ops.length, 10000);
    // A state budget, not a deadline, so the wasm and native searches do the same work whatever
    // each machine's speed (with a deadline, how far a search gets depends on the clock).
    const opts = { budgetMs: 1e9, maxStates: 20000 };
    const p = po.plan(g, opts);
    assert.equal(p.order.length, 10000);
    // The core read performance.now() through the Clock: a 10,000-op plan takes measurable time.
    assert.ok(p.elapsedMs > 0, `elapsedMs ${p.elapsedMs}`);
    const s = po.simulate(g, p);
    assert.equal(s.peakBytes, p.peakBytes);
    assert.ok(p.lowerBoundBytes <= p.peakBytes);
    if (haveCli) {
      const native = cliJson(['plan', '-', '--json', '--budget-ms', '1000000000', '--max-states', '20000'], JSON.stringify(g));
      assert.equal(p.peakBytes, native.peakBytes);
      assert.deepEqual(p.order, native.order);
    }
  }
});

test('a 200,000-op chain does not overflow the wasm stack', () => {
  const g = chainGraph(200000);
  const p = po.plan(g);
  assert.equal(p.order.length, 200000);
  assert.equal(p.order[0], 'o1');
});

test('option names: camelCase; snake_case deprecated for one release, with one warning per name', () => {
  const g = seedGraph();
  const warned = [];
  const warn = console.warn;
  console.warn = (m) => warned.push(String(m));
  try {
    const a = po.plan(g, { method: 'greedy', budgetMs: 50, maxStates: 1000 });
    assert.equal(warned.length, 0);
    const b = po.plan(g, { method: 'greedy', budget_ms: 50 });
    po.plan(g, { method: 'greedy', budget_ms: 50 });
    assert.deepEqual(b.order, a.order);
    assert.equal(warned.filter((m) => m.includes('budget_ms')).length, 1, warned.join('\n'));
    assert.ok(warned.every((m) => /option \w+ is deprecated, use \w+/.test(m)), warned.join('\n'));
  } finally {
    console.warn = warn;
  }
  assertThrowsCode(() => po.plan(g, { budgetMs: 5, budget_ms: 5 }), 'invalid_argument', 'given twice');
  assertThrowsCode(() => po.plan(g, { budgetMS: 5 }), 'invalid_argument', 'budgetMs');
});
