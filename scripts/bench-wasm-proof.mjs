// The proof path in wasm beside the CLI (issue #31 item 3, docs/wasm.md "Speed"). Not a test:
// timings depend on the machine. Two modes:
//
//   node scripts/bench-wasm-proof.mjs GRAPH.json [...]
//     budgets: `plan` in Node and the CLI at the CLI's default budget (100 ms) and at the page's
//     (1 s), the wasm at 100 ms first (a fresh process, as a page's first plan); prints the lower
//     bound, the peak and whether each is proven.
//
//   node scripts/bench-wasm-proof.mjs --fixed [--reps N] [--min-ops N] [--max-native-ms MS] [--warmup-ms MS] GRAPH.json [...]
//     speed: `auto` with a budget of 1e9 ms, which `auto` runs as one epoch bounded only by its
//     state caps (core/src/order/auto.rs, `epoch_budget`), so wasm and native do the same work
//     and must give the same plan (checked: peak, bound, optimal). Compares the core's own
//     `elapsed_ms`: the median of N (default 5) CLI processes against the median of N `plan` calls
//     in one Node process after --warmup-ms (default 1000) of warm-up calls (V8 compiles wasm in
//     tiers, optimising a function only after it has run a while; the first call is printed
//     too), the two alternating. Graphs under --min-ops ops (default 1000) are skipped,
//     and so are graphs whose first native run takes over --max-native-ms (default 2000; the
//     slowest of the corpus take minutes natively).
//     Ends with the median and worst ratio over the graphs measured, and over those whose native
//     run takes 1 ms or more.
//
// PEAKORDER_BIN: the CLI (default $CARGO_TARGET_DIR/release/peakorder, else target/release/peakorder).
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as po from '../js/node.mjs';

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v)) throw new Error(`${name} needs a number, got ${args[i + 1]}`);
  args.splice(i, 2);
  return v;
};
const fixed = flag('--fixed');
const reps = opt('--reps', 5);
const minOps = opt('--min-ops', 1000);
const maxNativeMs = opt('--max-native-ms', 2000);
const warmupMs = opt('--warmup-ms', 1000);
const graphs = args;

const bin = process.env.PEAKORDER_BIN
  || (process.env.CARGO_TARGET_DIR ? `${process.env.CARGO_TARGET_DIR}/release/peakorder`
    : new URL('../target/release/peakorder', import.meta.url).pathname);
const cli = (g, ms, timeout) => JSON.parse(execFileSync(bin, ['plan', g, '--json', '--budget-ms', String(ms)],
  { maxBuffer: 1 << 28, timeout }));
const name = (g) => g.split('/').pop().replace(/\.json$/, '');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

if (!fixed) {
  const cell = (bound, peak, optimal) => (optimal ? `proven ${peak}` : `${bound} / ${peak}`);
  console.log('| graph (ops) | wasm 100 ms: bound / peak | CLI 100 ms: bound / peak | wasm 1 s | CLI 1 s |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const g of graphs) {
    const text = readFileSync(g, 'utf8');
    // A first call compiles the hot functions (V8 tiers up), as the page's own first plan does.
    const w = po.plan(text, { budgetMs: 100 });
    const w1 = po.plan(text, { budgetMs: 1000 });
    const a = cli(g, 100);
    const b = cli(g, 1000);
    const ops = JSON.parse(text).ops.length;
    console.log(`| ${name(g)} (${ops}) | ${cell(w.lowerBoundBytes, w.peakBytes, w.optimal)} `
      + `| ${cell(a.lower_bound_bytes, a.peak_bytes, a.optimal)} | ${cell(w1.lowerBoundBytes, w1.peakBytes, w1.optimal)} `
      + `| ${cell(b.lower_bound_bytes, b.peak_bytes, b.optimal)} |`);
  }
} else {
  const UNBOUNDED = 1e9;
  const fmt = (x) => x.toFixed(x < 10 ? 1 : 0);
  const ratios = [];
  console.log(`auto at --budget-ms ${UNBOUNDED} (fixed work); median and best of ${reps}; elapsed ms`);
  console.log('| graph (ops) | native | wasm | ratio | native best | wasm best | ratio of best | wasm 1st call | peak | optimal |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const g of graphs) {
    const text = readFileSync(g, 'utf8');
    const ops = JSON.parse(text).ops.length;
    if (ops < minOps) continue;
    let first;
    try {
      // Killed well past the limit (the process also parses and prints).
      first = cli(g, UNBOUNDED, 2 * maxNativeMs + 1000);
    } catch (e) {
      if (e.code !== 'ETIMEDOUT' && e.signal !== 'SIGTERM') throw e;
    }
    if (!first || first.elapsed_ms > maxNativeMs) {
      const took = first ? fmt(first.elapsed_ms) : `> ${2 * maxNativeMs}`;
      console.log(`| ${name(g)} (${ops}) | ${took} | skipped (native over --max-native-ms ${maxNativeMs}) | | | | | | | |`);
      continue;
    }
    // Native and wasm runs alternate, so that a machine shared with other work loads both alike.
    const native = [first.elapsed_ms];
    let w = po.plan(text, { budgetMs: UNBOUNDED });
    const w0 = w.elapsedMs;
    // V8 runs wasm in baseline code first and optimises each function once it has run for a
    // while, in the background: a proof of a few ms is over before its hot functions are
    // optimised, so one warm-up call measures the compiler, not the planner. Warm up for
    // --warmup-ms of wall time (at least two calls), so every graph is timed in steady state.
    const warmStart = performance.now();
    for (let i = 0; i < 2 || performance.now() - warmStart < warmupMs; i++) {
      w = po.plan(text, { budgetMs: UNBOUNDED });
    }
    const wasm = [];
    for (let i = 0; i < reps; i++) {
      if (i > 0) native.push(cli(g, UNBOUNDED).elapsed_ms);
      w = po.plan(text, { budgetMs: UNBOUNDED });
      wasm.push(w.elapsedMs);
    }
    // Same work, same answer: otherwise the times are not comparable.
    const same = w.peakBytes === first.peak_bytes && w.optimal === first.optimal
      && w.lowerBoundBytes === first.lower_bound_bytes;
    if (!same) {
      throw new Error(`${g}: wasm and native plans differ (peak ${w.peakBytes} / ${first.peak_bytes}, `
        + `bound ${w.lowerBoundBytes} / ${first.lower_bound_bytes}, optimal ${w.optimal} / ${first.optimal})`);
    }
    const n = median(native);
    const r = median(wasm) / n;
    // The work is fixed, so noise only adds time: the least of the runs is the least disturbed
    // estimate of each side's speed, and its ratio varies far less between runs on a shared
    // machine than the medians' does.
    const nBest = Math.min(...native);
    const wBest = Math.min(...wasm);
    ratios.push([r, n, wBest / nBest]);
    console.log(`| ${name(g)} (${ops}) | ${fmt(n)} | ${fmt(median(wasm))} | ${r.toFixed(2)}x `
      + `| ${fmt(nBest)} | ${fmt(wBest)} | ${(wBest / nBest).toFixed(2)}x | ${fmt(w0)} `
      + `| ${w.peakBytes} | ${w.optimal} |`);
  }
  const summary = (label, rs) => rs.length && console.log(`${label} (${rs.length} graphs): wasm/native `
    + `median ${median(rs).toFixed(2)}x, worst ${Math.max(...rs).toFixed(2)}x`);
  console.log('');
  summary('medians of the runs, all', ratios.map((r) => r[0]));
  // Under a millisecond, a few page faults or a timer tick are the difference.
  summary('medians of the runs, native >= 1 ms', ratios.filter((r) => r[1] >= 1).map((r) => r[0]));
  summary('best of the runs, all', ratios.map((r) => r[2]));
  summary('best of the runs, native >= 1 ms', ratios.filter((r) => r[1] >= 1).map((r) => r[2]));
}
