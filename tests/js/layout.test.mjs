// layout(): the static memory layout of docs/layout.md, the same object `peakorder layout --json`
// prints: every tensor's offset in one arena, valid (no two buffers live at one step share a
// byte), for graphs (planned or a given order) and MiniMalloc CSV text; coded errors otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as po from 'peakorder';
import { seedGraph, cyclicGraph } from './graphs.mjs';
import { CASES, ROOT, haveCli, cliJson, assertThrowsCode } from './helpers.mjs';

const GRAPH_KEYS = [
  'arenaBytes', 'lowerBoundBytes', 'optimal', 'method', 'align', 'order', 'peakBytes',
  'inputsBytes', 'offsets', 'workspaceOffsets', 'buffers', 'searchNodes', 'elapsedMs',
];

/** Every buffer inside the arena and aligned; buffers live at a common step are disjoint. */
function checkLayout(l) {
  for (const k of GRAPH_KEYS) assert.ok(k in l, `missing ${k}`);
  assert.ok(l.arenaBytes >= l.lowerBoundBytes);
  assert.equal(l.optimal, l.arenaBytes === l.lowerBoundBytes);
  const b = l.buffers;
  for (let i = 0; i < b.length; i++) {
    assert.ok(b[i].offset + b[i].bytes <= l.arenaBytes);
    assert.equal(b[i].offset % l.align, 0);
    assert.ok(b[i].firstStep <= b[i].lastStep && b[i].lastStep <= l.order.length);
    if (b[i].kind === 'tensor') assert.equal(l.offsets[b[i].id], b[i].offset);
    else assert.equal(l.workspaceOffsets[b[i].id], b[i].offset);
    for (let j = i + 1; j < b.length; j++) {
      const time = b[i].firstStep <= b[j].lastStep && b[j].firstStep <= b[i].lastStep;
      const space = b[i].offset < b[j].offset + b[j].bytes && b[j].offset < b[i].offset + b[i].bytes;
      assert.ok(!(time && space), `${b[i].id} and ${b[j].id} overlap`);
    }
  }
}

test('the seed graph fits one arena of its planned peak, 3.5 MiB', () => {
  const l = po.layout(seedGraph());
  checkLayout(l);
  assert.equal(l.arenaBytes, 3670016);
  assert.equal(l.optimal, true);
  assert.equal(l.orderSearch.changed, false);
  assert.equal(Object.keys(l.offsets).length, seedGraph().tensors.length);
  // Text input and object input give the same layout.
  const t = po.layout(JSON.stringify(seedGraph()));
  assert.deepEqual(t.offsets, l.offsets);
});

test('every fixture, planned and in its program order, at two alignments', () => {
  for (const f of readdirSync(CASES).filter((n) => n.endsWith('.json'))) {
    const g = JSON.parse(readFileSync(join(CASES, f), 'utf8'));
    const program = g.ops.map((o) => o.id);
    for (const align of [1, 64]) {
      const l = po.layout(g, { align });
      checkLayout(l);
      assert.equal(l.align, align, f);
      let given;
      try {
        given = po.layout(g, { order: program, align });
      } catch (e) {
        assert.equal(e.code, 'not_topological', `${f}: ${e.message}`);
        continue;
      }
      checkLayout(given);
      assert.deepEqual(given.order, program);
      assert.equal('orderSearch' in given, false);
    }
  }
});

test('the same layout as the native CLI for a given order', { skip: !haveCli && 'no native CLI built' }, () => {
  const file = join(CASES, 'workspace.json');
  const g = JSON.parse(readFileSync(file, 'utf8'));
  const order = g.ops.map((o) => o.id);
  const wasm = po.layout(g, { order, method: 'size', align: 8 });
  const orderFile = join(mkdtempSync(join(tmpdir(), 'peakorder-layout-')), 'order.json');
  writeFileSync(orderFile, JSON.stringify(order));
  const cli = cliJson(['layout', file, '--order', orderFile, '--method', 'size', '--align', '8', '--json']);
  assert.deepEqual(wasm.offsets, cli.offsets);
  assert.deepEqual(wasm.buffers, cli.buffers);
  assert.equal(wasm.arenaBytes, cli.arenaBytes);
});

test('MiniMalloc CSV text: a challenging instance within its capacity', () => {
  const text = readFileSync(join(ROOT, 'tests', 'minimalloc', 'K.1048576.csv'), 'utf8');
  const l = po.layout(text, { capacity: 1048576, budgetMs: 60000 });
  assert.equal(l.withinCapacity, true);
  assert.ok(l.arenaBytes <= 1048576);
  assert.equal(l.buffers.length, 454);
  const small = po.layout('id,lower,upper,size\na,0,2,4\nb,1,3,4\nc,2,4,4\n');
  assert.equal(small.arenaBytes, 8);
  assert.equal(small.optimal, true);
  assert.deepEqual(Object.keys(small.offsets), ['a', 'b', 'c']);
});

test('coded errors: bad CSV lines, options, graphs', () => {
  const e = assertThrowsCode(() => po.layout('id,lower,upper,size\na,0,1,1\na,1,2,1\n'), 'bad_csv', 'line 3');
  assert.equal(e.line, 3);
  assertThrowsCode(() => po.layout('id,lower,upper,size\na,4,4,1\n'), 'bad_csv', 'below upper');
  assertThrowsCode(() => po.layout('id,lower,upper,size\na,0,4,-1\n'), 'bad_csv', 'negative');
  assertThrowsCode(() => po.layout(seedGraph(), { align: 0 }), 'invalid_argument');
  assertThrowsCode(() => po.layout(seedGraph(), { method: 'nope' }), 'unknown_method');
  assertThrowsCode(() => po.layout(seedGraph(), { colour: 1 }), 'invalid_argument', 'colour');
  assertThrowsCode(() => po.layout(seedGraph(), { order: ['nope'] }), 'unknown_op');
  assertThrowsCode(() => po.layout('id,lower,upper,size\na,0,1,1\n', { order: [] }), 'invalid_argument');
  // slack and plan_method act on a planned order: refused with a given order or a CSV.
  for (const opt of [{ slack: 0.05 }, { planMethod: 'greedy' }]) {
    assertThrowsCode(() => po.layout(seedGraph(), { order: ['nope'], ...opt }), 'invalid_argument', 'planned order');
    assertThrowsCode(() => po.layout('id,lower,upper,size\na,0,1,1\n', opt), 'invalid_argument', 'CSV');
  }
  assertThrowsCode(() => po.layout(cyclicGraph()), 'cycle');
  // Still usable after errors.
  assert.equal(po.layout(seedGraph()).arenaBytes, 3670016);
});
