// Issue 10: 1,000,000-op graphs planned in wasm. Everything in the core is iterative, so nothing
// may overflow wasm's small stack; a stack overflow would surface as a RangeError or a
// WebAssembly.RuntimeError. Each plan is re-checked by `simulate`, and the module stays usable.
// (About 10 s each: the wasm heap grows geometrically, wasm/src/heap.rs; with std's page-by-page
// growth the first call on such a graph took minutes.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as po from 'peakorder';
import { chainGraph, seedGraph } from './graphs.mjs';

/** A binary in-tree: `leaves` leaf ops read `x`, inner ops join two children (2 * leaves - 1 ops). */
function inTree(leaves) {
  const tensors = [{ id: 'x', bytes: 1 }];
  const ops = [];
  let level = [];
  for (let i = 0; i < leaves; i++) {
    tensors.push({ id: `l${i}`, bytes: 2 + ((i * 7919) % 13) });
    ops.push({ id: `leaf${i}`, inputs: ['x'], outputs: [`l${i}`] });
    level.push(`l${i}`);
  }
  let k = 0;
  while (level.length > 1) {
    const next = [];
    for (let i = 0; i < level.length; i += 2) {
      const out = `n${k}`;
      tensors.push({ id: out, bytes: 1 + ((k * 104729) % 17) });
      ops.push({ id: `join${k}`, inputs: level.slice(i, i + 2), outputs: [out] });
      k++;
      next.push(out);
    }
    level = next;
  }
  return { tensors, ops, outputs: level };
}

/** Plans with `auto` (Liu on both graphs: optimal), re-checks with `simulate`, times both. */
function planAndCheck(t, text, nOps) {
  let start = performance.now();
  const p = po.plan(text, { budgetMs: 50, maxStates: 10000 });
  const planMs = performance.now() - start;
  assert.equal(p.order.length, nOps);
  assert.ok(p.optimal, 'auto (Liu) is optimal on an in-forest');
  assert.equal(p.peakBytes, p.lowerBoundBytes);
  start = performance.now();
  const sim = po.simulate(text, p.order);
  t.diagnostic(`plan ${planMs.toFixed(0)} ms, simulate ${(performance.now() - start).toFixed(0)} ms`);
  assert.equal(sim.peakBytes, p.peakBytes, 'simulated peak');
  assert.equal(po.plan(seedGraph()).peakBytes, 3670016, 'module still usable');
  return p;
}

test('a 1,000,000-op chain plans in wasm (no stack overflow)', (t) => {
  planAndCheck(t, JSON.stringify(chainGraph(1_000_000)), 1_000_000);
});

test('a 1,000,000-op in-tree plans in wasm (no stack overflow)', (t) => {
  const g = inTree(1 << 19);
  planAndCheck(t, JSON.stringify(g), g.ops.length);
});
