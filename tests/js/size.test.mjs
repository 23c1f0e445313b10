// The size budget: each built .wasm under 360 KB gzipped. It was 300 KB (an earlier issue's budget)
// until #29 made the recompute planner (exact search, Revolve, eviction, pruning) reachable from
// JS: 342,377 bytes gzipped with it, 313,763 before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from './helpers.mjs';

// The ONNX importer is a module of its own (peakorder_onnx_bg.wasm, issue #31): 146,797 bytes
// gzipped (352,456 raw) with prost, shape inference and folding; linked into the planner it
// would have taken that module from 343 KB to about 490 KB, and every page that only plans would
// pay for it. Its budget leaves the same ~20 KB of room the planner's has.
const ONNX_LIMIT = 170 * 1024;
for (const build of ['node', 'web']) {
  test(`pkg/${build}/peakorder_onnx_bg.wasm is under 170 KB gzipped`, (t) => {
    const wasm = readFileSync(join(ROOT, 'pkg', build, 'peakorder_onnx_bg.wasm'));
    const gz = gzipSync(wasm, { level: 9 }).length;
    t.diagnostic(`${wasm.length} bytes, ${gz} gzipped`);
    assert.ok(gz < ONNX_LIMIT, `${gz} bytes gzipped`);
  });
}

const LIMIT = 360 * 1024;

for (const build of ['node', 'web']) {
  test(`pkg/${build}/peakorder_bg.wasm is under 360 KB gzipped`, (t) => {
    const wasm = readFileSync(join(ROOT, 'pkg', build, 'peakorder_bg.wasm'));
    const gz = gzipSync(wasm, { level: 9 }).length;
    t.diagnostic(`${wasm.length} bytes, ${gz} gzipped`);
    assert.ok(gz < LIMIT, `${gz} bytes gzipped`);
  });
}
