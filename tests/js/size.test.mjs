// The size budget: each built .wasm under 360 KB gzipped. It was 300 KB (an earlier issue's budget)
// until #29 made the recompute planner (exact search, Revolve, eviction, pruning) reachable from
// JS: 342,377 bytes gzipped with it, 313,763 before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from './helpers.mjs';

const LIMIT = 360 * 1024;

for (const build of ['node', 'web']) {
  test(`pkg/${build}/peakorder_bg.wasm is under 360 KB gzipped`, (t) => {
    const wasm = readFileSync(join(ROOT, 'pkg', build, 'peakorder_bg.wasm'));
    const gz = gzipSync(wasm, { level: 9 }).length;
    t.diagnostic(`${wasm.length} bytes, ${gz} gzipped`);
    assert.ok(gz < LIMIT, `${gz} bytes gzipped`);
  });
}
