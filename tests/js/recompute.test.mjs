// Plans with a memory limit and schedules with repeats (docs/design.md §1 "Recomputation", §3
// "Plans with a memory limit"), through the package: the options, the plan's added fields, the
// coded errors (bad_limit, infeasible, not_recomputable, stale_view, bad graph costs), and the
// same results as the native CLI where it has the flags. The planner is the core's: these tests
// hold for any schedule it returns, checking it with the simulator, and pin numbers only where
// every valid answer has them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as po from 'peakorder';
import { seedGraph, chainTrainGraph } from './graphs.mjs';
import { assertThrowsCode, haveCli, CLI, cliJson } from './helpers.mjs';

const MiB = 1 << 20;

/**
 * core/src/recompute/schedule.rs's example: a -> b -> c, and D reads a and c. Keeping `a` over C
 * (whose workspace is 100 bytes) peaks at 221; running A again for D peaks at 121, the least any
 * schedule reaches (C needs x, b, c and its workspace, and D's inputs must be live).
 */
function keepOrRedo(costs = {}) {
  const op = (id, inputs, outputs, extra = {}) => ({ id, inputs, outputs, ...extra, ...(id in costs ? { cost: costs[id] } : {}) });
  return {
    tensors: [{ id: 'x', bytes: 1 }, { id: 'a', bytes: 100 }, { id: 'b', bytes: 10 }, { id: 'c', bytes: 10 }, { id: 'd', bytes: 1 }],
    ops: [op('A', ['x'], ['a']), op('B', ['a'], ['b']), op('C', ['b'], ['c'], { workspace: 100 }), op('D', ['a', 'c'], ['d'])],
    outputs: ['d'],
  };
}

const LIMIT_FIELDS = [
  'memoryLimitBytes', 'recomputeMethod', 'addedCost', 'addedCostLowerBound', 'runs',
  'leastLimitBytes', 'leastLimitLowerBoundBytes', 'leastLimitOp',
];
const PLAN_FIELDS = [
  'order', 'peakBytes', 'inputsBytes', 'lowerBoundBytes', 'optimal', 'proof', 'lowerBoundBy',
  'method', 'programOrderPeakBytes', 'elapsedMs',
];

/** Everything a plan with a limit must satisfy, whichever schedule the planner chose. */
function assertLimitedPlan(g, p, limit) {
  assert.deepEqual(Object.keys(p).sort(), [...PLAN_FIELDS, ...LIMIT_FIELDS].sort());
  assert.equal(p.memoryLimitBytes, limit);
  assert.ok(p.peakBytes <= limit, `peak ${p.peakBytes} over the limit ${limit}`);
  // The schedule re-simulates to its peak.
  const sim = po.simulate(g, p.order);
  assert.equal(sim.peakBytes, p.peakBytes);
  // runs: exactly the ops that run more than once, with their counts.
  const counts = {};
  for (const id of p.order) counts[id] = (counts[id] || 0) + 1;
  assert.deepEqual(p.runs, Object.fromEntries(Object.entries(counts).filter(([, k]) => k > 1)));
  // addedCost: the cost of the runs after each op's first.
  const cost = new Map(g.ops.map((o) => [o.id, o.cost ?? 1]));
  const added = Object.entries(p.runs).reduce((a, [id, k]) => a + (k - 1) * cost.get(id), 0);
  assert.ok(Math.abs(p.addedCost - added) <= 1e-9 * Math.max(1, added), `addedCost ${p.addedCost} vs ${added}`);
  assert.ok(p.addedCostLowerBound <= p.addedCost, 'the cost bound is a lower bound');
  if (p.optimal) assert.equal(p.addedCost, p.addedCostLowerBound);
  assert.ok(p.leastLimitLowerBoundBytes <= p.leastLimitBytes);
  assert.ok(p.leastLimitBytes <= p.peakBytes);
  assert.ok(p.lowerBoundBytes <= p.peakBytes);
  assert.equal(p.lowerBoundBy, 'recompute');
  assert.ok(['order', 'exact', 'revolve', 'evict', 'repair'].includes(p.recomputeMethod), p.recomputeMethod);
  if (p.recomputeMethod === 'order') {
    assert.equal(p.addedCost, 0);
    assert.deepEqual(p.runs, {});
  }
  assert.ok(p.leastLimitOp === null || g.ops.some((o) => o.id === p.leastLimitOp));
}

test('without a limit the plan has none of the limit fields', () => {
  const p = po.plan(keepOrRedo());
  assert.deepEqual(Object.keys(p).sort(), [...PLAN_FIELDS].sort());
  assert.equal(p.peakBytes, 221);
});

test('a limit the best order meets: the order, nothing recomputed', () => {
  const g = keepOrRedo();
  for (const limit of [221, 1000, 2 ** 40]) {
    const p = po.plan(g, { memoryLimitBytes: limit });
    assertLimitedPlan(g, p, limit);
    assert.equal(p.recomputeMethod, 'order');
    assert.equal(p.proof, 'order');
    assert.equal(p.optimal, true);
    assert.deepEqual(p.order, ['A', 'B', 'C', 'D']);
    assert.equal(p.leastLimitLowerBoundBytes, 121);
    assert.equal(p.leastLimitOp, 'C');
  }
});

test('a limit below every order: a schedule within it that runs A again', () => {
  const g = keepOrRedo({ A: 5 });
  for (const limit of [121, 150, 220]) {
    const p = po.plan(g, { memoryLimitBytes: limit, budgetMs: 1e9, maxStates: 200000 });
    assertLimitedPlan(g, p, limit);
    // Only one thing helps: A again before D (5 per run); on 4 ops the exact search proves it.
    assert.deepEqual(p.runs, { A: 2 });
    assert.deepEqual(p.order, ['A', 'B', 'C', 'A', 'D']);
    assert.equal(p.addedCost, 5);
    assert.equal(p.addedCostLowerBound, 5);
    assert.equal(p.optimal, true);
    assert.equal(p.recomputeMethod, 'exact');
    assert.equal(p.leastLimitBytes, 121);
  }
});

test('a training chain: Revolve\'s optimum, proven, the cost falling as the limit grows', () => {
  const n = 12;
  const g = chainTrainGraph(n);
  const limit = g.limit;
  delete g.limit;
  let last = Infinity;
  for (let s = 1; s <= n; s++) {
    const p = po.plan(g, { memoryLimitBytes: limit(s) });
    assertLimitedPlan(g, p, limit(s));
    assert.equal(p.optimal, true, `${s} slots`);
    assert.ok(p.addedCost <= last, `${s} slots: ${p.addedCost} after ${last}`);
    if (p.addedCost > 0) {
      assert.equal(p.recomputeMethod, 'revolve', `${s} slots`);
      assert.deepEqual(po.plan(g, { memoryLimitBytes: limit(s), recomputeMethod: 'revolve' }).order, p.order);
    }
    last = p.addedCost;
  }
  assert.equal(last, 0, 'n slots need no recomputation');
  assert.ok(po.plan(g, { memoryLimitBytes: limit(1) }).addedCost > 0, 'one slot recomputes');
  // Below one slot no schedule fits.
  assertThrowsCode(() => po.plan(g, { memoryLimitBytes: limit(1) - 1 }), 'infeasible');
  // Revolve refuses a graph that is not a training chain.
  assertThrowsCode(() => po.plan(keepOrRedo(), { memoryLimitBytes: 150, recomputeMethod: 'revolve' }), 'not_applicable');
});

test('memoryLimitBytes: a number or text with a unit, the same limit', () => {
  const g = seedGraph(2);
  const a = po.plan(g, { memoryLimitBytes: 64 * MiB });
  const b = po.plan(g, { memoryLimitBytes: '64MiB' });
  const c = po.plan(g, { memoryLimitBytes: ' 64 MiB ' });
  const d = po.plan(g, { memoryLimitBytes: String(64 * MiB) });
  for (const p of [a, b, c, d]) {
    assertLimitedPlan(g, p, 64 * MiB);
    assert.deepEqual(p.order, a.order);
  }
  assert.equal(po.plan(g, { memoryLimitBytes: '0.5GiB' }).memoryLimitBytes, 512 * MiB);
  assert.equal(po.plan(g, { memoryLimitBytes: '1GB' }).memoryLimitBytes, 1e9);
  // The seed's order peak, and the order it plans without a limit.
  const free = po.plan(g);
  const at = po.plan(g, { memoryLimitBytes: free.peakBytes });
  assert.deepEqual(at.order, free.order);
  assert.equal(at.recomputeMethod, 'order');
});

test('a malformed limit is bad_limit naming the value', () => {
  const g = keepOrRedo();
  for (const bad of ['12 parsecs', '', 'MiB', '-1MiB', '1.2.3', 'nan', '1e3', '99999999999999999999']) {
    const e = assertThrowsCode(() => po.plan(g, { memoryLimitBytes: bad }), 'bad_limit', JSON.stringify(bad));
    assert.equal(e.value, bad);
  }
  for (const [bad, shown] of [[-1, '-1'], [1.5, '1.5'], [true, 'true'], [[], '[]'], [{}, '{}'], [2 ** 64, '1.8446744073709552e+19']]) {
    const e = assertThrowsCode(() => po.plan(g, { memoryLimitBytes: bad }), 'bad_limit', shown);
    assert.equal(e.value, shown);
  }
  // JSON has no NaN or Infinity: the package sees null, and says what that may have been.
  for (const bad of [NaN, Infinity, -Infinity, null]) {
    assertThrowsCode(() => po.plan(g, { memoryLimitBytes: bad }), 'bad_limit', 'NaN');
  }
  // A limit that holds but does not fit a JS number exactly makes a plan that cannot be returned.
  assertThrowsCode(() => po.plan(g, { memoryLimitBytes: '18446744073709551615' }), 'too_large');
  assert.equal(po.plan(g).peakBytes, 221, 'the module still works');
});

test('a limit below the least limit is infeasible, with its numbers and the op on the error', () => {
  const g = keepOrRedo();
  for (const limit of [120, 50, 0, '100B']) {
    const e = assertThrowsCode(() => po.plan(g, { memoryLimitBytes: limit }), 'infeasible', '"C"');
    assert.equal(e.limitBytes, typeof limit === 'string' ? 100 : limit);
    assert.equal(e.leastLimitBytes, 121);
    assert.equal(e.leastLimitLowerBoundBytes, 121);
    assert.equal(e.op, 'C', 'the op that needs 121 bytes while it runs');
    assert.match(e.message, /121 bytes/);
    assert.equal(Object.getPrototypeOf(e), Error.prototype);
  }
});

test('recomputeMethod: each of the core, only with a limit, names checked', () => {
  const g = keepOrRedo();
  for (const m of ['auto', 'exact', 'revolve', 'evict', 'repair']) {
    const p = po.plan(g, { memoryLimitBytes: 1000, recomputeMethod: m });
    assert.equal(p.recomputeMethod, 'order', 'an order that fits comes first');
    // Below the orders the method itself answers: a schedule, or why not.
    try {
      assertLimitedPlan(g, po.plan(g, { memoryLimitBytes: 150, recomputeMethod: m }), 150);
    } catch (e) {
      assert.ok(['infeasible', 'not_applicable'].includes(e.code), `${m}: ${e.code} ${e.message}`);
    }
  }
  assertThrowsCode(() => po.plan(g, { memoryLimitBytes: 150, recomputeMethod: 'magic' }), 'unknown_method', 'magic');
  assertThrowsCode(() => po.plan(g, { memoryLimitBytes: 150, recomputeMethod: 1 }), 'invalid_argument', 'recomputeMethod');
  assertThrowsCode(() => po.plan(g, { recomputeMethod: 'evict' }), 'invalid_argument', 'memoryLimitBytes');
  // compare plans orders only.
  assertThrowsCode(() => po.compare(g, { memoryLimitBytes: 150 }), 'invalid_argument', 'memoryLimitBytes');
});

test('bad costs and recompute flags are coded errors naming the op', () => {
  const withOp = (extra) => {
    const g = keepOrRedo();
    Object.assign(g.ops[1], extra);
    return g;
  };
  const cases = [
    [{ cost: -1 }, 'invalid_op'],
    [{ cost: NaN }, 'invalid_op'],
    [{ cost: Infinity }, 'invalid_op'],
    [{ cost: -Infinity }, 'invalid_op'],
    [{ cost: 'cheap' }, 'bad_json'],
    [{ cost: [1] }, 'bad_json'],
    [{ recompute: 'no' }, 'bad_json'],
    [{ recompute: 0 }, 'bad_json'],
  ];
  for (const [extra, code] of cases) {
    const g = withOp(extra);
    for (const f of [() => po.validate(g), () => po.plan(g), () => po.plan(g, { memoryLimitBytes: 150 }), () => po.simulate(g, ['A', 'B', 'C', 'D'])]) {
      const e = assertThrowsCode(f, code, '"B"');
      if (code === 'invalid_op') {
        assert.equal(e.op, 'B');
        assert.match(e.message, /cost/);
      }
    }
  }
  // As JSON text the same, where JSON can say it (it has no NaN).
  assertThrowsCode(() => po.plan(JSON.stringify(withOp({ cost: -0.5 }))), 'invalid_op', '"B"');
  assertThrowsCode(() => po.plan(JSON.stringify(withOp({ recompute: 'yes' }))), 'bad_json', '"B"');
  // Good values plan.
  assert.equal(po.plan(withOp({ cost: 0 })).peakBytes, 221);
  assert.equal(po.plan(withOp({ cost: 1e30, recompute: false })).peakBytes, 221);
});

test('recompute: false ops are never run again by a plan', () => {
  const g = keepOrRedo();
  g.ops[0].recompute = false;
  // Without A again, the least limit is the order's 221: below it nothing fits.
  const e = assertThrowsCode(() => po.plan(g, { memoryLimitBytes: 150 }), 'infeasible');
  assert.ok(e.leastLimitBytes > 150);
  const p = po.plan(g, { memoryLimitBytes: 221 });
  assertLimitedPlan(g, p, 221);
  assertThrowsCode(() => po.simulate(g, ['A', 'B', 'C', 'A', 'D']), 'not_recomputable', '"A"');
});

test('simulate: a schedule with repeats, exactly as docs/design.md §1 frees it', () => {
  const g = keepOrRedo();
  const once = po.simulate(g, ['A', 'B', 'C', 'D']);
  assert.equal(once.peakBytes, 1 + 100 + 10 + 10 + 100);
  const again = po.simulate(g, ['A', 'B', 'C', 'A', 'D']);
  assert.equal(again.peakBytes, 1 + 10 + 10 + 100);
  assert.deepEqual(again.steps.map((s) => s.op), ['A', 'B', 'C', 'A', 'D']);
  // a is freed after B (its next use is after A runs again), made again for D.
  assert.deepEqual([...again.during], [101, 111, 121, 111, 112]);
  assert.deepEqual([...again.after], [101, 11, 11, 111, 2]);
  assert.equal(again.peakStep, 2);
  assert.deepEqual(again.liveAtPeak, ['x', 'b', 'c']);
  // A run whose outputs nothing reads before the next run is freed at once.
  const wasted = po.simulate(g, ['A', 'A', 'B', 'C', 'D']);
  assert.deepEqual([...wasted.during.slice(0, 2)], [101, 101]);
  assert.equal(wasted.steps[0].afterBytes, 1);
  // Plans are schedules: a limited plan's order simulates as given (JSON text and objects too).
  const p = po.plan(g, { memoryLimitBytes: 1000 });
  assert.equal(po.simulate(JSON.stringify(g), JSON.stringify(p)).peakBytes, p.peakBytes);
});

test('simulate: a view read after its storage was made again must be made again too', () => {
  const g = {
    tensors: [{ id: 'x', bytes: 1 }, { id: 'a', bytes: 8 }, { id: 'v', alias_of: 'a' }, { id: 'y', bytes: 1 }],
    ops: [
      { id: 'A', inputs: ['x'], outputs: ['a'] },
      { id: 'V', inputs: ['a'], outputs: ['v'] },
      { id: 'Y', inputs: ['v'], outputs: ['y'] },
    ],
    outputs: ['y'],
  };
  const e = assertThrowsCode(() => po.simulate(g, ['A', 'V', 'A', 'Y']), 'stale_view', '"v"');
  assert.equal(e.op, 'Y');
  assert.equal(e.tensor, 'v');
  assert.equal(e.aliasOf, 'a');
  assert.equal(po.simulate(g, ['A', 'V', 'A', 'V', 'Y']).peakBytes, 10);
  // Unknown, missing and out-of-order ops in a schedule keep their codes.
  assertThrowsCode(() => po.simulate(g, ['A', 'V', 'A']), 'missing_op', '"Y"');
  assertThrowsCode(() => po.simulate(g, ['V', 'A', 'Y']), 'not_topological', '"V"');
  assertThrowsCode(() => po.simulate(g, ['A', 'V', 'Y', 'Z']), 'unknown_op', '"Z"');
});

/** Whether the CLI runs `args` (builds without the recompute surfaces refuse them). */
function cliHas(args, input) {
  if (!haveCli) return false;
  try {
    execFileSync(CLI, args, { input, stdio: ['pipe', 'pipe', 'pipe'] });
    return true;
  } catch {
    return false;
  }
}

const doc = JSON.stringify(keepOrRedo());
const docPath = join(mkdtempSync(join(tmpdir(), 'peakorder-recompute-')), 'keep-or-redo.json');
writeFileSync(docPath, doc);
const cliLimits = cliHas(['plan', docPath, '--memory-limit', '1000', '--json']);
const cliSchedules = cliHas(['simulate', docPath, '-', '--json'], '["A","B","C","A","D"]');

const withoutTime = (p) => {
  const { elapsedMs: _, ...rest } = p;
  return rest;
};

test('plans with a limit are the CLI\'s', { skip: cliLimits ? false : `${CLI} has no --memory-limit` }, () => {
  const g = keepOrRedo({ A: 3, B: 0.5 });
  const text = JSON.stringify(g);
  for (const limit of ['121', '150', '221', '64KiB']) {
    const args = ['plan', '-', '--json', '--memory-limit', limit, '--budget-ms', '1000000000', '--max-states', '200000'];
    const native = cliJson(args, text);
    const wasm = po.plan(text, { memoryLimitBytes: limit, budgetMs: 1e9, maxStates: 200000 });
    assert.deepEqual(withoutTime(wasm), withoutTime(native), limit);
  }
});

test('schedules simulate as the CLI simulates them', { skip: cliSchedules ? false : `${CLI} refuses schedules` }, () => {
  for (const s of [['A', 'B', 'C', 'A', 'D'], ['A', 'A', 'B', 'C', 'D'], ['A', 'B', 'C', 'D']]) {
    const ws = po.simulate(doc, s);
    delete ws.during;
    delete ws.after;
    assert.deepEqual(ws, cliJson(['simulate', docPath, '-', '--json'], JSON.stringify(s)));
  }
});
