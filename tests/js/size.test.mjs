// The size budget: each built .wasm under 300 KB gzipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from './helpers.mjs';

const LIMIT = 300 * 1024;

for (const build of ['node', 'web']) {
  test(`pkg/${build}/peakorder_bg.wasm is under 300 KB gzipped`, (t) => {
    const wasm = readFileSync(join(ROOT, 'pkg', build, 'peakorder_bg.wasm'));
    const gz = gzipSync(wasm, { level: 9 }).length;
    t.diagnostic(`${wasm.length} bytes, ${gz} gzipped`);
    assert.ok(gz < LIMIT, `${gz} bytes gzipped`);
  });
}
