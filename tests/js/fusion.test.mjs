// fuse(): the docs/design.md §4 object, the same as `peakorder fuse --json` prints, the expected values
// of the tests/cases/fusion-*.json fixtures, and coded errors for bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import * as po from 'peakorder';
import { seedGraph, cyclicGraph } from './graphs.mjs';
import { CASES, haveCli, cliJson, camelFields, CLI, assertThrowsCode } from './helpers.mjs';

const SEED_PEAK = 3670016; // 3.5 MiB: the best unfused peak of the seed graph
const SIDE_KEYS = [
  'inputsBytes', 'limitBytes', 'opsAfter', 'opsBefore', 'order', 'peakAfterBytes',
  'peakBeforeBytes', 'regions', 'withinLimit',
];
// A budget no search here comes near, so native and wasm both finish the same search (a
// deadline hit at different points would make them stop at different, equally valid answers).
const GENEROUS_MS = 120000;

/** Checks one side's shape and that its order is a valid order of the fused graph. */
function checkSide(side, ops) {
  assert.equal(Object.getPrototypeOf(side), Object.prototype);
  for (const k of SIDE_KEYS) assert.ok(k in side, `missing ${k}`);
  assert.equal(side.opsBefore, ops.length);
  assert.equal(side.order.length, side.opsAfter);
  // Every op runs exactly once, alone or in its region (named by its members joined with "+").
  const members = side.order.flatMap((name) => name.split('+'));
  assert.deepEqual([...members].sort(), ops.map((o) => o.id).sort());
  for (const r of side.regions) {
    assert.ok(r.length >= 2);
    assert.ok(side.order.includes(r.join('+')), `region ${r.join('+')} not in the order`);
  }
  assert.equal(side.opsAfter, side.opsBefore - side.regions.reduce((a, r) => a + r.length - 1, 0));
  assert.equal(side.withinLimit, side.peakAfterBytes <= side.limitBytes);
}

test('the seed graph: memory-aware fusion keeps 3.5 MiB with 39 kernels, the baseline does not', () => {
  const g = seedGraph();
  const f = po.fuse(g);
  checkSide(f, g.ops);
  checkSide(f.baseline, g.ops);
  assert.deepEqual(Object.keys(f).sort(), [...SIDE_KEYS, 'baseline', 'evaluations', 'exhaustive', 'planner'].sort());
  assert.deepEqual(Object.keys(f.baseline).sort(), SIDE_KEYS);
  assert.equal(f.opsBefore, 40);
  assert.equal(f.opsAfter, 39);
  assert.equal(f.peakBeforeBytes, SEED_PEAK);
  assert.equal(f.peakAfterBytes, SEED_PEAK);
  assert.equal(f.limitBytes, SEED_PEAK);
  assert.equal(f.withinLimit, true);
  assert.equal(f.baseline.opsAfter, 22);
  assert.ok(f.baseline.peakAfterBytes > f.peakBeforeBytes, 'the Thunder-style pass raises the peak');
  assert.equal(f.baseline.withinLimit, false);
  assert.equal(typeof f.planner, 'string');
  // The same graph as text fuses identically. A generous budget keeps both searches off the
  // clock (on a loaded machine the default 2 s can cut one short, and `evaluations` differ).
  const unhurried = { budgetMs: 600000 };
  assert.deepEqual(po.fuse(JSON.stringify(g), unhurried), po.fuse(g, unhurried));
});

test('options: peak_limit, budget_ms and max_states are honoured', () => {
  const g = seedGraph(3);
  const unfused = po.plan(g).peakBytes;
  const loose = po.fuse(g, { peakLimit: 2 ** 40, budgetMs: 5000, maxStates: 10 ** 9 });
  assert.equal(loose.limitBytes, 2 ** 40);
  assert.ok(loose.opsAfter <= po.fuse(g).opsAfter, 'a looser limit never needs more kernels');
  assert.equal(po.fuse(g, { peakLimit: unfused }).limitBytes, unfused);
  assert.deepEqual(po.fuse(g, null), po.fuse(g, {}));
  // CommonJS exports the same function.
  const cjs = createRequire(import.meta.url)('peakorder');
  assert.equal(cjs.fuse(g).opsAfter, po.fuse(g).opsAfter);
});

test('a limit no fusion meets throws peak_limit with the numbers, and the module stays usable', () => {
  const e = assertThrowsCode(() => po.fuse(seedGraph(), { peakLimit: 1 }), 'peak_limit');
  assert.equal(e.limitBytes, 1);
  assert.equal(typeof e.bestBytes, 'number');
  assert.ok(e.bestBytes > 1);
  assert.equal(po.fuse(seedGraph()).opsAfter, 39);
});

test('bad graphs and bad options throw coded errors; the next call works', () => {
  const e = assertThrowsCode(() => po.fuse(cyclicGraph()), 'cycle');
  assert.deepEqual([...new Set(e.ops)].sort(), ['f', 'g']);
  assertThrowsCode(() => po.fuse('{"tensors":'), 'bad_json');
  assertThrowsCode(() => po.fuse(undefined), 'bad_json');
  assertThrowsCode(() => po.fuse({ tensors: [], ops: [{ id: 'a', inputs: ['nope'] }] }), 'unknown_tensor', 'nope');
  const g = seedGraph(2);
  for (const bad of [
    'x', 1, [], { peakLimit: -1 }, { peakLimit: 1.5 }, { peakLimit: 'big' }, { peakLimit: null },
    { budgetMs: -1 }, { budgetMs: Infinity }, { maxStates: 2 ** 64 }, { method: 'greedy' },
    { peakLimit: 10n },
  ]) {
    assertThrowsCode(() => po.fuse(g, bad), 'invalid_argument');
  }
  assertThrowsCode(() => po.fuse(g, { method: 'greedy' }), 'invalid_argument', 'peakLimit, budgetMs, maxStates');
  assert.equal(po.fuse(seedGraph()).opsAfter, 39);
});

const fusionCases = existsSync(CASES)
  ? readdirSync(CASES).filter((f) => f.startsWith('fusion-') && f.endsWith('.json')).sort()
  : [];

test('tests/cases has fusion fixtures', { skip: fusionCases.length ? false : `none in ${CASES}` }, () => {
  assert.ok(fusionCases.length >= 4);
});

/** Checks `side` against a fixture's meta.expect (only the keys it lists; the fixture names them
 * as the CLI does, snake_case). */
function checkExpect(side, expect) {
  for (const [k, v] of Object.entries(camelFields(expect))) {
    if (k === 'baseline') continue;
    assert.deepEqual(side[k], v, k);
  }
}

for (const file of fusionCases) {
  const path = join(CASES, file);
  const text = readFileSync(path, 'utf8');
  const graph = JSON.parse(text);
  const expect = graph.meta?.expect ?? {};

  test(`${file}: fuse meets meta.expect`, () => {
    const f = po.fuse(text);
    checkSide(f, graph.ops);
    checkSide(f.baseline, graph.ops);
    checkExpect(f, expect);
    checkExpect(f.baseline, expect.baseline ?? {});
  });

  test(`${file}: fuse gives what \`peakorder fuse --json\` prints`, { skip: haveCli ? false : `no ${CLI}` }, () => {
    const native = cliJson(['fuse', path, '--json', '--budget-ms', String(GENEROUS_MS)]);
    const wasm = po.fuse(text, { budgetMs: GENEROUS_MS });
    assert.deepEqual(wasm, native);
  });
}

test('the seed graph: fuse gives what `peakorder fuse --json` prints', { skip: haveCli ? false : `no ${CLI}` }, () => {
  const g = JSON.stringify(seedGraph());
  const native = cliJson(['fuse', '-', '--json', '--budget-ms', String(GENEROUS_MS)], g);
  assert.deepEqual(po.fuse(g, { budgetMs: GENEROUS_MS }), native);
  // With the defaults of both too (the search ends well within 2 s).
  assert.deepEqual(po.fuse(g), cliJson(['fuse', '-', '--json'], g));
});
