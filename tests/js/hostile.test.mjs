// No input may trap the module: every bad input throws a coded PeakorderError, nothing else,
// and the module keeps working afterwards. A wasm panic would surface as a RuntimeError
// ("unreachable") and typically leave the module unusable, which these tests would catch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as po from 'peakorder';
import { seedGraph, randomGraph, rng } from './graphs.mjs';
import { CODES } from './helpers.mjs';

const SEED_PEAK = 3670016;

/** Calls every function on `graph` (and `order`), allowing only coded errors. */
function poke(graph, order, options) {
  const calls = [
    () => po.validate(graph),
    () => po.plan(graph, options),
    () => po.compare(graph, options),
    () => po.simulate(graph, order),
    // A short budget: fusion plans many fused graphs, and this runs thousands of times.
    () => po.fuse(graph, options === undefined ? { budgetMs: 20 } : options),
  ];
  for (const call of calls) {
    try {
      call();
    } catch (e) {
      assert.ok(e instanceof Error, `threw a non-Error: ${String(e)}`);
      assert.ok(!(e instanceof WebAssembly.RuntimeError), `wasm trapped: ${e.message}`);
      assert.ok(CODES.has(e.code), `uncoded error ${e.name}: ${e.message}`);
      assert.equal(typeof e.message, 'string');
      assert.ok(e.message.length < 2000, 'messages stay one readable line');
    }
  }
}

function stillWorks() {
  assert.equal(po.plan(seedGraph()).peakBytes, SEED_PEAK);
}

const u64max = '18446744073709551615';
const hostileTexts = [
  '', ' ', 'null', 'true', '0', '-1', '"x"', '[]', '{}', '{"tensors":null}', '{"ops":{}}',
  '{"tensors":[{}]}', '{"tensors":[{"id":1}]}', '{"tensors":[{"id":""}]}',
  '{"tensors":[{"id":"x","bytes":-1}]}', '{"tensors":[{"id":"x","bytes":1e400}]}',
  `{"tensors":[{"id":"x","bytes":${u64max}},{"id":"y","bytes":${u64max}}],"ops":[]}`,
  `{"tensors":[{"id":"x","bytes":${u64max}}],"ops":[{"id":"a","inputs":["x"],"outputs":["y"]}]}`,
  `{"tensors":[{"id":"x","bytes":9007199254740993},{"id":"y","bytes":1}],"ops":[{"id":"a","inputs":["x"],"outputs":["y"]}],"outputs":["y"]}`,
  `{"tensors":[{"id":"x","bytes":1},{"id":"y","bytes":${u64max}}],"ops":[{"id":"a","inputs":["x"],"outputs":["y"],"workspace":${u64max}}]}`,
  '{"tensors":[{"id":"x","shape":[4294967296,4294967296,4294967296],"dtype":"f64"}],"ops":[]}',
  '{"tensors":[{"id":"x","shape":[],"dtype":"f32"}],"ops":[]}',
  '{"tensors":[{"id":"x","shape":[0],"dtype":"f32"}],"ops":[]}',
  '{"tensors":[{"id":"x","alias_of":"x"}],"ops":[]}',
  '{"tensors":[{"id":"x","bytes":1}],"ops":[{"id":"a","inputs":["x"],"outputs":["x"]}]}',
  '{"tensors":[{"id":"x","bytes":1}],"ops":[{"id":"a","outputs":["x","x"]}]}',
  '{"tensors":[{"id":"x","bytes":1}],"ops":[],"outputs":["x","x","nope"]}',
  '{"tensors":[{"id":"x","bytes":1},{"id":"v","alias_of":"x"}],"ops":[{"id":"a","inputs":["v"],"outputs":["x"]}]}',
  '{"tensors":[{"id":"\\ud800","bytes":1}],"ops":[{"id":"\\udfff","outputs":["\\ud800"]}]}',
  '['.repeat(100000),
  `{"meta":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)},"tensors":[],"ops":[]}`,
  '{"tensors":[],"ops":[],"outputs":[]}',
  JSON.stringify({ tensors: [{ id: 'x'.repeat(1 << 20), bytes: 1 }], ops: [{ id: 'a', inputs: ['y'.repeat(1 << 20)] }] }),
];

test('a hostile corpus throws only coded errors, and the module stays usable', () => {
  for (const text of hostileTexts) {
    poke(text, [], undefined);
    stillWorks();
  }
});

test('hostile JS values throw only coded errors', () => {
  const cyclic = { tensors: [], ops: [] };
  cyclic.self = cyclic;
  const throwingGetter = { tensors: [], get ops() { throw new Error('getter'); } };
  const values = [
    undefined, null, 0, NaN, -0, true, Symbol('s'), () => 1, 10n, [], [1, 2], new Map(),
    new Uint8Array(4), new Date(0), cyclic, throwingGetter, { tensors: [{ id: 'x', bytes: 2n }], ops: [] },
    { tensors: [{ id: 'x', bytes: 1.5 }], ops: [] }, { tensors: [{ id: 'x', bytes: Infinity }], ops: [] },
    { tensors: [{ id: 'x', bytes: 2 ** 64 }], ops: [] }, Object.create(null),
    new Proxy({}, { get() { throw new Error('proxy'); }, ownKeys() { throw new Error('proxy'); } }),
  ];
  const orders = [undefined, null, 1, 'x', [null], [1n], cyclic, { order: 'x' }, { order: [1] }, [[]], throwingGetter];
  const options = [undefined, null, 1, 'x', [], { method: 1 }, { budgetMs: Infinity }, { maxStates: 2 ** 64 },
    { maxStates: -1 }, { maxMemoryMb: -1 }, { maxMemoryMb: 1.5 }, { maxMemoryMb: 'x' }, { budgetMs: 1n }, cyclic, throwingGetter, { method: 'x'.repeat(100000) },
    // Memory limits (plan only; compare refuses them): every malformed or extreme value.
    { memoryLimitBytes: -1 }, { memoryLimitBytes: NaN }, { memoryLimitBytes: 1.5 }, { memoryLimitBytes: 2 ** 64 },
    { memoryLimitBytes: 0 }, { memoryLimitBytes: 1 }, { memoryLimitBytes: '18446744073709551615' },
    { memoryLimitBytes: '18446744073709551616' }, { memoryLimitBytes: '1e400' }, { memoryLimitBytes: '∞ MiB' },
    { memoryLimitBytes: 'x'.repeat(100000) }, { memoryLimitBytes: 10n }, { memoryLimitBytes: [1] },
    { memoryLimitBytes: '3MiB', recomputeMethod: 'revolve' }, { memoryLimitBytes: '3MiB', recomputeMethod: null },
    { memoryLimitBytes: 3 * 2 ** 20, recomputeMethod: 'exact', budgetMs: 0 }, { recomputeMethod: 'evict' }];
  for (const v of values) {
    for (const o of orders) poke(v, o, undefined);
    stillWorks();
  }
  for (const opt of options) {
    poke(seedGraph(2), ['relu1_0'], opt);
    stillWorks();
  }
  for (const o of orders) {
    poke(seedGraph(2), o, undefined);
    stillWorks();
  }
});

test('random mutations of valid graphs throw only coded errors', () => {
  const r = rng(12345);
  const int = (k) => Math.floor(r() * k);
  const junk = [
    -1, 0, 1.5, 2 ** 53, 2 ** 63, 2 ** 64, '', 'x', 'relu1_0', 't0_0', null, true, [], {}, ['a0'],
    { id: 'z' }, 'f32', 'peakorder/1', NaN, Infinity, -Infinity, false,
  ];
  const pick = (a) => a[int(a.length)];
  const base = [seedGraph(3), randomGraph(30, 5)];
  for (let round = 0; round < 1500; round++) {
    const g = structuredClone(pick(base));
    const order = g.ops.map((o) => o.id);
    for (let k = 1 + int(3); k > 0; k--) {
      // Pick a random object or array inside the graph and break one of its entries.
      const targets = [g, g.tensors, g.ops, ...(Array.isArray(g.tensors) ? g.tensors : []),
        ...(Array.isArray(g.ops) ? g.ops : [])].filter((t) => t !== null && typeof t === 'object');
      if (!targets.length) continue;
      const t = pick(targets);
      const keys = Array.isArray(t) ? [...t.keys()] : [...Object.keys(t), 'bytes', 'alias_of', 'shape', 'dtype', 'donated', 'inputs', 'outputs', 'workspace', 'cost', 'recompute', 'oops'];
      if (!keys.length) continue;
      const key = pick(keys);
      const what = int(4);
      if (what === 0) delete t[key];
      else if (what === 1) t[key] = pick(junk);
      else if (what === 2 && Array.isArray(t[key])) t[key].push(pick(junk));
      else if (Array.isArray(t) && t.length > 1) t.splice(int(t.length), 0, t[int(t.length)]);
      else t[key] = pick(junk);
    }
    if (r() < 0.3) order.reverse();
    if (r() < 0.2) order.pop();
    // A schedule: some op again, anywhere.
    if (r() < 0.3 && order.length) order.splice(int(order.length + 1), 0, pick(order));
    // Now and then a memory limit somewhere around the graph's memory (short: this runs often).
    const limited = r() < 0.15 ? { memoryLimitBytes: pick([0, 1, 1 << 20, 3 << 20, 2 ** 40, '2.5MiB']), budgetMs: 5 } : null;
    poke(g, order, limited || (r() < 0.5 ? { method: pick(['program', 'greedy']) } : undefined));
    if (round % 100 === 0) stillWorks();
  }
  stillWorks();
});

test('byte counts above 2^53 are refused as too_large or handled exactly, never wrong', () => {
  const big = 2n ** 60n;
  const text = `{"tensors":[{"id":"x","bytes":${big}},{"id":"y","bytes":1}],"ops":[{"id":"a","inputs":["x"],"outputs":["y"]}],"outputs":["y"]}`;
  let result;
  try {
    result = po.plan(text);
  } catch (e) {
    assert.equal(e.code, 'too_large');
    assert.match(e.message, /2\^53/);
  }
  assert.equal(result, undefined, 'a peak of 2^60 bytes cannot be a JS number exactly');
  let fused;
  try {
    fused = po.fuse(text);
  } catch (e) {
    assert.equal(e.code, 'too_large');
  }
  assert.equal(fused, undefined, 'nor can fuse report it');
  stillWorks();
});

test('max_memory_mb caps the exact search and is checked', () => {
  const p = po.plan(seedGraph(), { method: 'exact', maxMemoryMb: 0 });
  assert.equal(p.peakBytes, SEED_PEAK, 'a zero cap stops the search at once; the incumbent stays');
  assert.throws(() => po.plan(seedGraph(), { maxMemoryMb: -1 }), (e) => e.code === 'invalid_argument');
  stillWorks();
});
