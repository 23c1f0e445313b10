// Result field names (issue #31, docs/wasm.md "Names"): every result field of the JS API is
// camelCase, nested objects too; the snake_case names of the last release still read (and
// write) the same values for one release, as non-enumerable accessors that warn once per name.
// The warnings are once per name and process: the tests that count them run before the one that
// reads every old name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as po from 'peakorder';
import { seedGraph } from './graphs.mjs';
import { ROOT, haveCli, cliJson, camelFields, assertThrowsCode } from './helpers.mjs';

const snake = (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const ID_MAPS = new Set(['runs', 'offsets', 'workspaceOffsets']);

/** A graph whose ids have underscores (they are data, never renamed), with a workspace, where a
 * limit of 121 makes the planner run `op_a` again (tests/js/recompute.test.mjs's keepOrRedo). */
function underscored() {
  return {
    tensors: [
      { id: 'in_x', bytes: 1 }, { id: 't_a', bytes: 100 }, { id: 't_b', bytes: 10 },
      { id: 't_c', bytes: 10 }, { id: 'out_y', bytes: 1 },
    ],
    ops: [
      { id: 'op_a', inputs: ['in_x'], outputs: ['t_a'], cost: 5 },
      { id: 'op_b', inputs: ['t_a'], outputs: ['t_b'] },
      { id: 'op_c', inputs: ['t_b'], outputs: ['t_c'], workspace: 100 },
      { id: 'op_d', inputs: ['t_a', 't_c'], outputs: ['out_y'] },
    ],
    outputs: ['out_y'],
  };
}

/** Every result of the API, by name, with the type of each nested object (for the .d.ts check). */
function results() {
  const g = underscored();
  const limited = po.plan(g, { memoryLimitBytes: 121, budgetMs: 1e9, maxStates: 200000 });
  const csv = po.layout('id,lower,upper,size\nbuf_a,0,2,4\nbuf_b,1,3,4\n', { capacity: 8 });
  return [
    ['Summary', po.validate(g)],
    ['Plan', po.plan(g)],
    ['Plan', limited],
    ['Simulation', po.simulate(g, limited)],
    ['Comparison', po.compare(g)],
    ['Fusion', po.fuse(seedGraph(3))],
    ['Layout', po.layout(g)],
    ['IntervalLayout', csv],
    ['Storages', po.storages(g)],
  ];
}

const NESTED = {
  steps: 'Step', methods: 'MethodRow', baseline: 'FusedGraph', orderSearch: 'OrderSearch',
};

/** Calls `visit(typeName, object)` for the result and every object nested in it. */
function walk(type, v, visit) {
  visit(type, v);
  for (const [k, x] of Object.entries(v)) {
    if (ID_MAPS.has(k) || x === null || typeof x !== 'object' || ArrayBuffer.isView(x)) continue;
    const inner = k === 'buffers' ? (type === 'IntervalLayout' ? 'IntervalBuffer' : 'LayoutBuffer') : NESTED[k];
    for (const y of Array.isArray(x) ? x : [x]) {
      if (y !== null && typeof y === 'object' && !Array.isArray(y)) walk(inner, y, visit);
    }
  }
}

/** Runs `f` with console.warn captured; returns the warnings. */
function warnings(f) {
  const got = [];
  const warn = console.warn;
  console.warn = (m) => got.push(String(m));
  try {
    f();
  } finally {
    console.warn = warn;
  }
  return got;
}

test('every result field is camelCase, nested ones too; ids stay as they are', () => {
  let objects = 0;
  for (const [type, r] of results()) {
    walk(type, r, (t, o) => {
      objects += 1;
      assert.equal(Object.getPrototypeOf(o), Object.prototype, t);
      for (const k of Object.keys(o)) assert.doesNotMatch(k, /_/, `${t}.${k}`);
    });
  }
  assert.ok(objects > 30, `${objects} objects`);
  const [, limited] = results()[2];
  assert.deepEqual(limited.runs, { op_a: 2 });
  assert.deepEqual(limited.order, ['op_a', 'op_b', 'op_c', 'op_a', 'op_d']);
  assert.equal(limited.addedCost, 5);
  assert.equal(limited.memoryLimitBytes, 121);
  assert.equal(limited.recomputeMethod, 'exact');
  assert.equal(limited.leastLimitBytes, 121);
  assert.equal(limited.leastLimitOp, 'op_c');
  const l = po.layout(underscored());
  assert.deepEqual(Object.keys(l.offsets).sort(), ['in_x', 'out_y', 't_a', 't_b', 't_c']);
  assert.deepEqual(Object.keys(l.workspaceOffsets), ['op_c']);
  assert.equal(l.buffers.find((b) => b.kind === 'workspace').id, 'op_c');
  const s = po.simulate(underscored(), ['op_a', 'op_b', 'op_c', 'op_d']);
  assert.deepEqual(s.liveAtPeak.sort(), ['in_x', 't_a', 't_b', 't_c']);
  assert.equal(s.peakBytes, 221);
  assert.equal(s.steps[2].duringBytes, 1 + 100 + 10 + 10 + 100);
  assert.deepEqual(Object.keys(po.storages(underscored())), ['bytes', 'root', 'pinned', 'usersStart', 'users']);
});

test('a snake_case name warns once per name, naming the new one', () => {
  const p = po.plan(seedGraph());
  const s = po.simulate(seedGraph(), p);
  const got = warnings(() => {
    assert.equal(p.lower_bound_bytes, p.lowerBoundBytes);
    assert.equal(p.lower_bound_bytes, 3.5 * 2 ** 20);
    assert.equal(po.plan(seedGraph()).lower_bound_bytes, p.lowerBoundBytes);
    assert.equal(s.steps[0].during_bytes, s.steps[0].duringBytes);
    assert.equal(s.steps[1].during_bytes, s.steps[1].duringBytes);
    // The CommonJS entry point is the same module instance: no second warning.
    const cjs = createRequire(import.meta.url)('peakorder');
    assert.equal(cjs.plan(seedGraph()).lower_bound_bytes, p.lowerBoundBytes);
  });
  assert.deepEqual(got, [
    'peakorder: result field lower_bound_bytes is deprecated, use lowerBoundBytes (snake_case result fields are removed in the next release)',
    'peakorder: result field during_bytes is deprecated, use duringBytes (snake_case result fields are removed in the next release)',
  ]);
  // Reading the camelCase fields, copying and serialising never warn.
  const quiet = warnings(() => {
    const copy = { ...p };
    JSON.stringify(s);
    structuredClone(s);
    assert.deepEqual(copy, JSON.parse(JSON.stringify(p)));
    void p.peakBytes;
  });
  assert.deepEqual(quiet, []);
});

test('JSON, Object.keys, spreads, structuredClone and deepStrictEqual see only camelCase', () => {
  const p = po.plan(seedGraph(), { method: 'greedy' });
  const keys = Object.keys(p);
  assert.ok(keys.includes('peakBytes') && !keys.includes('peak_bytes'));
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(p))), keys);
  assert.deepEqual(Object.keys({ ...p }), keys);
  assert.deepEqual(Object.keys(structuredClone(p)), keys);
  // A plain object literal with the same fields is deepStrictEqual to a result.
  assert.deepEqual(p, { ...p });
  const s = po.simulate(seedGraph(), p);
  assert.deepEqual(s.steps[0], { op: s.steps[0].op, duringBytes: s.steps[0].duringBytes, afterBytes: s.steps[0].afterBytes });
});

test('errors: the detail fields camelCase, the old names deprecated', () => {
  const limit = { tensors: [{ id: 'x', bytes: 1 }, { id: 'y', bytes: 100 }], ops: [{ id: 'f', inputs: ['x'], outputs: ['y'] }], outputs: ['y'] };
  const e = assertThrowsCode(() => po.plan(limit, { memoryLimitBytes: 50 }), 'infeasible');
  assert.equal(e.limitBytes, 50);
  assert.equal(e.leastLimitBytes, 101);
  assert.equal(e.leastLimitLowerBoundBytes, 101);
  for (const k of Object.keys(e)) assert.doesNotMatch(k, /_/, k);
  const f = assertThrowsCode(() => po.fuse(seedGraph(), { peakLimit: 1 }), 'peak_limit');
  assert.equal(f.limitBytes, 1);
  assert.ok(f.bestBytes > 1);
  const v = assertThrowsCode(() => po.validate({ tensors: [{ id: 'v', alias_of: 'nope' }], ops: [] }), 'unknown_tensor');
  assert.equal(v.aliasOf, 'nope');
  const got = warnings(() => {
    assert.equal(e.least_limit_bytes, 101);
    assert.equal(f.best_bytes, f.bestBytes);
    assert.equal(v.alias_of, 'nope');
  });
  assert.equal(got.length, 3, got.join('\n'));
  assert.match(got[0], /least_limit_bytes is deprecated, use leastLimitBytes/);
  assert.match(got[2], /alias_of is deprecated, use aliasOf/);
});

test('each snake_case name reads, and writes, its camelCase field', () => {
  warnings(() => {
    for (const [type, r] of results()) {
      walk(type, r, (t, o) => {
        for (const k of Object.keys(o)) {
          const old = snake(k);
          if (old === k) continue;
          assert.ok(old in o, `${t}.${old}`);
          assert.equal(Object.getOwnPropertyDescriptor(o, old).enumerable, false, `${t}.${old}`);
          assert.equal(o[old], o[k], `${t}.${old}`);
        }
      });
    }
    const p = po.plan(seedGraph());
    p.peak_bytes = 7;
    assert.equal(p.peakBytes, 7);
    p.peakBytes = 8;
    assert.equal(p.peak_bytes, 8);
    delete p.peak_bytes;
    assert.equal('peak_bytes' in p, false);
    assert.equal(p.peakBytes, 8);
  });
});

test('the same values as the CLI\'s --json, field for field', { skip: !haveCli && 'no native CLI built' }, () => {
  // camelFields (tests/js/helpers.mjs) renames the CLI's JSON independently of js/names.cjs.
  const text = JSON.stringify(underscored());
  const budget = ['--budget-ms', '1000000000', '--max-states', '200000'];
  const opts = { budgetMs: 1e9, maxStates: 200000 };
  const time = ({ elapsedMs: _, ...rest }) => rest;
  assert.deepEqual(time(po.plan(text, { ...opts, memoryLimitBytes: 121 })), time(cliJson(['plan', '-', '--json', '--memory-limit', '121', ...budget], text)));
  const path = join(mkdtempSync(join(tmpdir(), 'peakorder-names-')), 'g.json');
  writeFileSync(path, text);
  const schedule = ['op_a', 'op_b', 'op_c', 'op_a', 'op_d'];
  const { during: _d, after: _a, ...sim } = po.simulate(text, schedule);
  assert.deepEqual(sim, cliJson(['simulate', path, '-', '--json'], JSON.stringify(schedule)));
  assert.deepEqual(time(po.layout(text)), time(cliJson(['layout', path, '--json'])));
  const { evaluations: _e, ...fused } = po.fuse(text, { budgetMs: 120000 });
  const { evaluations: _n, ...cliFused } = cliJson(['fuse', path, '--json', '--budget-ms', '120000']);
  assert.deepEqual(fused, cliFused);
  const rows = (c) => c.methods.map(({ elapsedMs: _, ...row }) => row);
  assert.deepEqual(rows(po.compare(text, opts)), rows(cliJson(['compare', path, '--json', ...budget])));
});

test('names.mjs is names.cjs as an ES module', () => {
  const strip = (s) => s.replace(/^'use strict';\n/, '').replace(/^\/\/.*\n/gm, '')
    .replace(/^export /gm, '').replace(/\n\nmodule\.exports = \{[^}]*\};\n$/, '\n');
  assert.equal(strip(readFileSync(join(ROOT, 'js', 'names.mjs'), 'utf8')),
    strip(readFileSync(join(ROOT, 'js', 'names.cjs'), 'utf8')));
  assert.deepEqual(camelFields({ least_limit_bytes: 1, runs: { op_a: 2 } }), { leastLimitBytes: 1, runs: { op_a: 2 } });
});

test('the .d.ts declares every result field, and every snake_case name as @deprecated', () => {
  const dts = readFileSync(join(ROOT, 'pkg', 'node', 'peakorder.d.ts'), 'utf8');
  const body = (name) => {
    const m = dts.match(new RegExp(`export interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`));
    assert.ok(m, `interface ${name}`);
    return m[1] + (name === 'Fusion' ? body('FusedGraph') : '');
  };
  const errors = [
    assertThrowsCode(() => po.plan(underscored(), { memoryLimitBytes: 50 }), 'infeasible'),
    assertThrowsCode(() => po.fuse(seedGraph(), { peakLimit: 1 }), 'peak_limit'),
    assertThrowsCode(() => po.validate({ tensors: [{ id: 'v', alias_of: 'nope' }], ops: [] }), 'unknown_tensor'),
  ];
  const all = [...results(), ...errors.map((e) => ['PeakorderError', e])];
  for (const [type, r] of all) {
    walk(type, r, (t, o) => {
      const b = body(t);
      for (const k of Object.keys(o)) {
        if (t === 'PeakorderError' && ['code', 'message', 'name', 'stack'].includes(k)) continue;
        assert.match(b, new RegExp(`\\n\\s*${k}\\??: `), `${t}.${k} is declared`);
        const old = snake(k);
        if (old !== k) {
          assert.match(b, new RegExp(`@deprecated since issue #31: use \`${k}\`[^\\n]*\\*/\\n\\s*${old}\\??: `), `${t}.${old} is declared @deprecated`);
        }
      }
    });
  }
});
