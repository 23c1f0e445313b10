#!/usr/bin/env node
// The Node half of scripts/bench-budget.sh: `plan(text, {method, budget_ms: 50})` in the wasm
// package on each graph JSON in DIR, every method, wall time of the whole call (parse, validate,
// plan, convert the result) measured with performance.now(): median and worst of N runs after a
// warm-up run (V8 compiles wasm in tiers). Prints Markdown rows; with --check exits 1 when a
// worst time is above 100 ms.
//
//   node scripts/bench-budget.mjs DIR [--reps N] [--check]
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dir = args[0];
const reps = Number(args.includes('--reps') ? args[args.indexOf('--reps') + 1] : 5);
const check = args.includes('--check');
const po = createRequire(import.meta.url)(join(root, 'js', 'node.cjs'));
const METHODS = ['program', 'greedy', 'sp', 'spize', 'local', 'inductor', 'xla', 'liu', 'exact', 'auto'];
const BUDGET_MS = 50;
const LIMIT_MS = 100;

const over = [];
console.log('| graph | method | median ms | worst ms | peak |');
console.log('|---|---|---:|---:|---:|');
for (const file of readdirSync(dir).filter((f) => f.endsWith('-5k.json')).sort()) {
  const text = readFileSync(join(dir, file), 'utf8');
  const name = file.replace(/\.json$/, '');
  for (const method of METHODS) {
    const times = [];
    let peak = 'refused';
    for (let i = 0; i <= reps; i++) {
      const t = performance.now();
      try {
        peak = po.plan(text, { method, budgetMs: BUDGET_MS }).peakBytes;
      } catch (e) {
        if (e.code !== 'not_applicable') throw e;
      }
      if (i > 0) times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const worst = times[times.length - 1];
    if (worst > LIMIT_MS) over.push(`${name}/${method}: ${worst.toFixed(1)} ms`);
    console.log(`| ${name} | ${method} | ${times[times.length >> 1].toFixed(1)} | ${worst.toFixed(1)} | ${peak} |`);
  }
}
if (over.length) {
  console.error(`over ${LIMIT_MS} ms with a ${BUDGET_MS} ms budget: ${over.join(', ')}`);
  if (check) process.exit(1);
}
