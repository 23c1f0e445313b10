// The shared fixtures of tests/cases/: the expected values in each graph's meta.expect, the
// malformed corpus in tests/cases/invalid/ (codes in _expected.json), and the same plans as the
// native CLI for every method.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import * as po from 'peakorder';
import { CASES, haveCli, cliJson, CLI, assertThrowsCode } from './helpers.mjs';

// A budget no fixture's search comes near, and the state limit that stops it instead. Far
// beyond an hour: `auto` runs a deadline an hour or more away as one epoch (core/src/order/
// auto.rs, UNBOUNDED_MS), and with a memory limit the order phase gets only part of the budget;
// a nearer deadline is cut into epochs by the clock, so a loaded machine could stop wasm and
// native at different points (series-parallel-150 did at 600 s, and with a limit at 2 h).
const NO_CLOCK_MS = 1e9;
const STATES = 200_000;

// Whether the CLI plans with a memory limit (builds before issue #29's surfaces do not).
const cliLimits = haveCli && (() => {
  try {
    execFileSync(CLI, ['plan', join(CASES, 'diamond.json'), '--memory-limit', '1GiB', '--json'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
})();

const graphs = existsSync(CASES)
  ? readdirSync(CASES).filter((f) => f.endsWith('.json')).sort()
  : [];

test('tests/cases has fixtures', { skip: graphs.length ? false : `no fixtures in ${CASES}` }, () => {
  assert.ok(graphs.length > 0);
});

for (const file of graphs) {
  const path = join(CASES, file);
  const text = readFileSync(path, 'utf8');
  const expect = JSON.parse(text).meta?.expect ?? {};

  test(`${file}: expected values`, () => {
    const summary = po.validate(text);
    if ('inputs_bytes' in expect) assert.equal(summary.inputsBytes, expect.inputs_bytes);
    if ('program_peak_bytes' in expect) {
      assert.equal(summary.programOrderPeakBytes, expect.program_peak_bytes);
      assert.equal(po.plan(text, { method: 'program' }).peakBytes, expect.program_peak_bytes);
    }
    const cmp = po.compare(text);
    if ('optimal_peak_bytes' in expect) {
      const best = expect.optimal_peak_bytes;
      assert.ok(cmp.lowerBoundBytes <= best, `lower bound ${cmp.lowerBoundBytes} > optimal ${best}`);
      for (const m of cmp.methods) {
        if (m.peakBytes === null) continue;
        assert.ok(m.peakBytes >= best, `${m.method}: ${m.peakBytes} below the optimum ${best}`);
        if (m.optimal) assert.equal(m.peakBytes, best, `${m.method} claims optimal`);
      }
    }
    // Every plan's order re-checks with the simulator.
    for (const m of cmp.methods) {
      if (m.peakBytes === null) continue;
      const p = po.plan(text, { method: m.method });
      assert.equal(po.simulate(text, p).peakBytes, p.peakBytes);
    }
  });

  // Both sides stop at the same state limit, never at the clock: the wasm build is a few times
  // slower than the native one, so at a shared time budget a loaded machine could stop them at
  // different points of the same search (series-parallel-150 did) and the plans would differ.
  test(`${file}: same plans as the native CLI`, { skip: haveCli ? false : `no ${CLI}` }, () => {
    const cmp = cliJson(['compare', path, '--json']);
    for (const row of cmp.methods) {
      if (row.peakBytes === null) continue;
      const native = cliJson([
        'plan', path, '--method', row.method, '--json',
        '--budget-ms', String(NO_CLOCK_MS), '--max-states', String(STATES),
      ]);
      const wasm = po.plan(text, { method: row.method, budgetMs: NO_CLOCK_MS, maxStates: STATES });
      assert.equal(wasm.peakBytes, native.peakBytes, row.method);
      assert.equal(wasm.lowerBoundBytes, native.lowerBoundBytes, row.method);
      assert.equal(wasm.optimal, native.optimal, row.method);
      assert.deepEqual(wasm.order, native.order, row.method);
      const ws = po.simulate(text, wasm.order);
      const ns = cliJson(['simulate', path, '-', '--json'], JSON.stringify(native.order));
      delete ws.during;
      delete ws.after;
      assert.deepEqual(ws, ns);
    }
  });

  // With a memory limit (docs/design.md §3): at the order's peak, at the least limit, half way
  // between them, and below it (infeasible), the same plan or the same refusal, and the same
  // simulation of the schedule.
  test(`${file}: same plans with a memory limit as the native CLI`, { skip: cliLimits ? false : `${CLI} has no --memory-limit` }, () => {
    const budget = ['--budget-ms', String(NO_CLOCK_MS), '--max-states', String(STATES)];
    const opts = { budgetMs: NO_CLOCK_MS, maxStates: STATES };
    const free = po.plan(text, opts);
    const top = po.plan(text, { ...opts, memoryLimitBytes: free.peakBytes });
    const least = top.leastLimitBytes;
    const limits = [free.peakBytes, least, Math.floor((least + free.peakBytes) / 2)];
    if (top.leastLimitLowerBoundBytes > 0) limits.push(top.leastLimitLowerBoundBytes - 1);
    for (const limit of limits) {
      let wasm;
      let werr;
      try {
        wasm = po.plan(text, { ...opts, memoryLimitBytes: limit });
      } catch (e) {
        werr = e;
      }
      let native;
      try {
        native = cliJson(['plan', path, '--json', '--memory-limit', String(limit), ...budget]);
      } catch (e) {
        assert.ok(werr, `${limit}: the CLI refused (${e.stderr}) but npm planned`);
        assert.equal(e.status, 2, `${limit}: exit code`);
        assert.ok(String(e.stderr).includes(werr.message), `${limit}: ${e.stderr} vs ${werr.message}`);
        continue;
      }
      assert.ok(!werr, `${limit}: npm refused (${werr && werr.message}) but the CLI planned`);
      delete wasm.elapsedMs;
      delete native.elapsedMs;
      assert.deepEqual(wasm, native, `limit ${limit}`);
      const ws = po.simulate(text, wasm.order);
      const ns = cliJson(['simulate', path, '-', '--json'], JSON.stringify(native.order));
      delete ws.during;
      delete ws.after;
      assert.deepEqual(ws, ns, `limit ${limit}: the schedule's simulation`);
    }
  });
}

const invalidDir = join(CASES, 'invalid');
const expectedPath = join(invalidDir, '_expected.json');
const invalid = existsSync(expectedPath) ? JSON.parse(readFileSync(expectedPath, 'utf8')) : {};

test('tests/cases/invalid has a corpus', { skip: Object.keys(invalid).length ? false : 'none' }, () => {
  assert.ok(Object.keys(invalid).length > 0);
});

for (const [file, want] of Object.entries(invalid)) {
  test(`invalid/${file}: code ${want.code}`, () => {
    const text = readFileSync(join(invalidDir, file), 'utf8');
    assertThrowsCode(() => po.validate(text), want.code, want.mentions);
    assertThrowsCode(() => po.plan(text), want.code, want.mentions);
    // As an object too, where the text is JSON at all (same parser, same verdict), and holds no
    // integer a JS number cannot carry exactly (JSON.parse would round it: docs/wasm.md).
    if (/\d{16,}/.test(text)) return;
    let obj;
    try {
      obj = JSON.parse(text);
    } catch {
      return;
    }
    if (want.code !== 'bad_json') assertThrowsCode(() => po.plan(obj), want.code, want.mentions);
  });
}
