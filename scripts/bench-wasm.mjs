#!/usr/bin/env node
// Planning speed of the wasm package in Node against the native CLI, on 10,000-op graphs.
//
//   node scripts/bench-wasm.mjs [--reps N] [--method M] [--max-ratio R]
//
// Needs the built package (npm run build) and the native CLI (cargo build --release).
// Both sides report the core's own `elapsed_ms` (run the orderer, re-check its order, measure
// its peak), read from performance.now() in Node and the OS monotonic clock natively, so the
// ratio compares the same work. The medians of N runs are compared, after warm-up runs (V8
// compiles wasm in tiers). End-to-end times are printed too: the whole `plan(jsonText)` call in
// Node (parse, validate, plan, convert the result) and the whole CLI process.
// With --max-ratio R, exits 1 if a planning ratio is above R.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { seedGraph, randomGraph } from '../tests/js/graphs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const reps = Number(opt('--reps', 15));
const method = opt('--method', 'greedy');
const maxRatio = opt('--max-ratio', null);

const cli = join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'release', 'peakorder');
if (!existsSync(cli)) {
  console.error(`bench-wasm: ${cli} not found; run cargo build --release -p peakorder-gpu`);
  process.exit(1);
}
const po = createRequire(import.meta.url)(join(root, 'js', 'node.cjs'));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x) => x.toFixed(x < 10 ? 3 : 1);

const dir = mkdtempSync(join(tmpdir(), 'peakorder-bench-'));
let worst = 0;
try {
  const cases = [
    ['seed x2500 (10,000 ops)', seedGraph(2500, 'breadth')],
    ['random DAG (10,000 ops)', randomGraph(10000, 7)],
  ];
  console.log(`method ${method}, median of ${reps} runs; times in ms`);
  console.log('graph                     native plan  wasm plan  ratio   node plan() call  CLI process');
  for (const [name, graph] of cases) {
    const text = JSON.stringify(graph);
    const file = join(dir, 'graph.json');
    writeFileSync(file, text);

    const nPlan = [];
    const nWall = [];
    let nativePeak;
    for (let i = 0; i < reps + 2; i++) {
      const t0 = performance.now();
      const out = execFileSync(cli, ['plan', file, '--method', method, '--json'], { maxBuffer: 1 << 30 });
      const t1 = performance.now();
      const p = JSON.parse(out.toString());
      nativePeak = p.peak_bytes;
      if (i >= 2) {
        nPlan.push(p.elapsed_ms);
        nWall.push(t1 - t0);
      }
    }

    const wPlan = [];
    const wCall = [];
    let wasmPeak;
    for (let i = 0; i < reps + 3; i++) {
      const t0 = performance.now();
      const p = po.plan(text, { method });
      const t1 = performance.now();
      wasmPeak = p.peakBytes;
      if (i >= 3) {
        wPlan.push(p.elapsedMs);
        wCall.push(t1 - t0);
      }
    }
    if (wasmPeak !== nativePeak) {
      throw new Error(`${name}: wasm peak ${wasmPeak} != native peak ${nativePeak}`);
    }
    const ratio = median(wPlan) / median(nPlan);
    worst = Math.max(worst, ratio);
    console.log(
      `${name.padEnd(26)}${fmt(median(nPlan)).padStart(11)}${fmt(median(wPlan)).padStart(11)}` +
        `${(ratio.toFixed(2) + 'x').padStart(7)}${fmt(median(wCall)).padStart(19)}${fmt(median(nWall)).padStart(13)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`ratio (wasm in Node / native CLI planning time, worst case): ${worst.toFixed(2)}x`);
if (maxRatio !== null && worst > Number(maxRatio)) {
  console.error(`bench-wasm: ratio ${worst.toFixed(2)}x is above ${maxRatio}x`);
  process.exit(1);
}
