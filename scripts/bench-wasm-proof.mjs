// The proof path in wasm beside the CLI (issue #31 item 3, docs/wasm.md "Speed"): for each graph,
// `plan` in Node at the page's default budget (1 s) and the CLI at its default (100 ms) and at
// 1 s; prints the lower bound, the peak and whether each is proven. Not a test: timings depend
// on the machine.
//
//   node scripts/bench-wasm-proof.mjs GRAPH.json [...]        (PEAKORDER_BIN: the CLI, default
//                                                              target/release/peakorder)
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as po from '../js/node.mjs';

const bin = process.env.PEAKORDER_BIN || new URL('../target/release/peakorder', import.meta.url).pathname;
const cli = (g, ms) => JSON.parse(execFileSync(bin, ['plan', g, '--json', '--budget-ms', String(ms)], { maxBuffer: 1 << 28 }));
const cell = (bound, peak, optimal) => (optimal ? `proven ${peak}` : `${bound} / ${peak}`);
console.log('| graph (ops) | wasm 1 s: bound / peak | CLI 100 ms: bound / peak | CLI 1 s |');
console.log('| --- | --- | --- | --- |');
for (const g of process.argv.slice(2)) {
  const text = readFileSync(g, 'utf8');
  const w = po.plan(text, { budgetMs: 1000 });
  const a = cli(g, 100);
  const b = cli(g, 1000);
  const ops = JSON.parse(text).ops.length;
  console.log(`| ${g.split('/').pop().replace(/\.json$/, '')} (${ops}) | ${cell(w.lowerBoundBytes, w.peakBytes, w.optimal)} `
    + `| ${cell(a.lower_bound_bytes, a.peak_bytes, a.optimal)} | ${cell(b.lower_bound_bytes, b.peak_bytes, b.optimal)} |`);
}
