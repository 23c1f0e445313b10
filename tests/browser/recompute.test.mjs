// The view with a memory limit and with a schedule that recomputes (docs/web.md): the limit is a
// line in the memory chart and a card in the summary with the added cost; the steps that run an
// op again are marked in both timelines (a shaded column and an axis mark in the chart, hatched
// bands and axis marks in the per-tensor timeline, with legend entries) and listed as "run 2" in
// the planned order and the tooltips. Through mount() with `memory_limit_bytes`, with a given
// schedule (`plan`), and through the page's "memory limit" box.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, readView } from './browser.mjs';
import * as po from '../../js/node.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const shots = process.env.PEAKORDER_SCREENSHOTS || join(root, 'target/browser-screenshots');

/** core/src/recompute/schedule.rs's example: within 121 bytes A must run again before D. */
const GRAPH = {
  tensors: [{ id: 'x', bytes: 1 }, { id: 'a', bytes: 100 }, { id: 'b', bytes: 10 }, { id: 'c', bytes: 10 }, { id: 'd', bytes: 1 }],
  ops: [
    { id: 'A', inputs: ['x'], outputs: ['a'], cost: 3 },
    { id: 'B', inputs: ['a'], outputs: ['b'] },
    { id: 'C', inputs: ['b'], outputs: ['c'], workspace: 100 },
    { id: 'D', inputs: ['a', 'c'], outputs: ['d'] },
  ],
  outputs: ['d'],
};
const SCHEDULE = ['A', 'B', 'C', 'A', 'D'];

let browser;
let server;
let base;

before(async () => {
  assert.ok(existsSync(join(root, 'www/dist/peakorder-view.js')), 'www/dist is not built: run scripts/build.d/50-web.sh');
  server = spawn(process.execPath, [join(root, 'www/serve.mjs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  base = await new Promise((ok, fail) => {
    server.stdout.on('data', (d) => {
      const m = /http:\/\/localhost:(\d+)\//.exec(String(d));
      if (m) ok(`http://127.0.0.1:${m[1]}`);
    });
    server.on('exit', (c) => fail(new Error(`www/serve.mjs exited with ${c}`)));
  });
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
});

/** A page that mounts one view per entry of `views` ({id, options}) on GRAPH. */
async function mountPage(views) {
  const { page, problems } = await openPage(browser.context);
  const divs = views.map((v) => `<div id="${v.id}" style="width:1100px"></div>`).join('');
  const mounts = views.map((v) => `window.views[${JSON.stringify(v.id)}] = mount(document.getElementById(${JSON.stringify(v.id)}), ${JSON.stringify(GRAPH)}, ${JSON.stringify(v.options)});
    window.views[${JSON.stringify(v.id)}].ready.catch(() => {});`).join('\n');
  await page.route(`${base}/recompute.html`, (r) => r.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>${divs}
      <script type="module">
        import { mount } from '/peakorder-view.js';
        window.views = {};
        ${mounts}
      </script></body></html>`,
  }));
  await page.goto(`${base}/recompute.html`);
  return { page, problems };
}

/** What the view shows of recomputation and the limit. */
function readMarks(page, scope) {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    const text = (id) => root.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
    const svg = root.querySelector('.po-chart-svg');
    const col = root.querySelector('.po-recompute-col');
    const canvas = root.querySelector('.po-timeline[data-order="planned"] .po-timeline-canvas');
    const limit = root.querySelector('line.po-ref-limit');
    const key = root.querySelector('[data-testid="timeline-recompute-key"]');
    return {
      chartSteps: Number(svg.getAttribute('data-recompute-steps')),
      chartMarked: root.querySelector('.po-recompute')?.getAttribute('data-steps') ?? null,
      columnWidth: col ? col.getBBox().width : 0,
      legendRecompute: text('legend-recompute'),
      legendLimit: text('legend-limit'),
      limitLine: limit ? Number(limit.getAttribute('y1')) : null,
      timelineSteps: Number(canvas.dataset.recomputeSteps),
      timelineBands: Number(canvas.dataset.recomputedBands),
      timelineKey: key && !key.hidden ? key.textContent : null,
      reruns: [...root.querySelectorAll('[data-testid="order"] li[data-run]')].map((li) => ({
        op: li.dataset.op, step: Number(li.dataset.step), run: Number(li.dataset.run), text: li.textContent,
      })),
      orderItems: root.querySelectorAll('[data-testid="order"] li').length,
      memoryLimit: text('memory-limit'),
      memoryLimitSub: text('memory-limit-sub'),
      addedCost: text('added-cost'),
      addedCostSub: text('added-cost-sub'),
    };
  }, scope);
}

/** The recomputing steps of the view's planned timeline and the bands a step shows. */
function readTimeline(page, id, step) {
  return page.evaluate(([k, s]) => {
    const tl = window.views[k].timeline('planned');
    return { steps: tl.recomputeSteps(), at: tl.bandsAt(s).bands.map((b) => ({ id: b.id, run: b.run })) };
  }, [id, step]);
}

test('a given schedule: its second run of A is marked in every timeline and the list', async () => {
  const { page, problems } = await mountPage([{ id: 'given', options: { plan: SCHEDULE } }]);
  const v = await readView(page, '#given .po-root');
  assert.equal(v.state, 'ready', v.status);
  assert.match(v.status, /the plan given/);
  assert.equal(v.planned, '121 B', 'the schedule simulated: a is not kept over C');
  assert.equal(v.steps, SCHEDULE.length, 'the chart has a step per run');
  const m = await readMarks(page, '#given .po-root');
  assert.equal(m.chartSteps, 1);
  assert.equal(m.chartMarked, '3', 'step 4 (index 3) recomputes');
  assert.ok(m.columnWidth > 1, 'the recomputing step is shaded');
  assert.match(m.legendRecompute, /recomputed step .*1 step/);
  assert.equal(m.timelineSteps, 1);
  assert.ok(m.timelineBands >= 1, 'what run 2 makes is hatched');
  assert.match(m.timelineKey, /made again by a recomputation/);
  assert.equal(m.orderItems, SCHEDULE.length);
  assert.deepEqual(m.reruns.map((r) => [r.op, r.step, r.run]), [['A', 3, 2]]);
  assert.match(m.reruns[0].text, /run 2/);
  assert.equal(m.legendLimit, null, 'no limit given, no limit line');
  assert.equal(m.addedCost, '3', 'the added cost: A\'s cost, once');
  const tl = await readTimeline(page, 'given', 3);
  assert.deepEqual(tl.steps, [3]);
  assert.ok(tl.at.some((b) => b.id === 'a' && b.run === 2), `a made again at step 4: ${JSON.stringify(tl.at)}`);
  assert.ok((await readTimeline(page, 'given', 0)).at.some((b) => b.id === 'a' && b.run === 1));
  // The chart's tooltip says which run a step is.
  const box = await page.locator('#given .po-hit').boundingBox();
  await page.mouse.move(box.x + box.width * (3.5 / SCHEDULE.length), box.y + box.height / 2);
  assert.match(await page.textContent('#given .po-tooltip'), /A\s*run 2/);
  await page.locator('#given').screenshot({ path: join(shots, 'recompute-schedule.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('memory_limit_bytes: the planner\'s schedule within the limit, the limit line and the added cost', async () => {
  const want = po.plan(GRAPH, { memoryLimitBytes: 121 });
  const { page, problems } = await mountPage([
    { id: 'limited', options: { memory_limit_bytes: 121 } },
    { id: 'fits', options: { memory_limit_bytes: '1KiB' } },
    { id: 'cli', options: { plan: want } },
    // The same plan as `peakorder plan --json` writes it: the CLI's snake_case names.
    { id: 'snake', options: { plan: Object.fromEntries(Object.entries(want).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), x])) } },
    { id: 'below', options: { memory_limit_bytes: 100 } },
  ]);
  const v = await readView(page, '#limited .po-root');
  assert.equal(v.state, 'ready', v.status);
  assert.match(v.status, /within 121 B/);
  const got = await page.evaluate(() => window.views.limited.result().plan);
  assert.deepEqual(got.order, want.order, 'the worker plans what the npm package plans');
  assert.ok(got.peakBytes <= 121);
  // result()'s objects read the last release's snake_case names too, deprecated (docs/wasm.md).
  const old = await page.evaluate(() => {
    const r = window.views.limited.result();
    return [r.plan.peak_bytes === r.plan.peakBytes, r.plan.added_cost === r.plan.addedCost,
      r.planned.peak_step === r.planned.peakStep, Object.keys(r.plan).some((k) => k.includes('_'))];
  });
  assert.deepEqual(old, [true, true, true, false]);
  const m = await readMarks(page, '#limited .po-root');
  const reruns = want.order.length - GRAPH.ops.length;
  assert.ok(reruns >= 1, 'within 121 bytes A runs again');
  assert.equal(m.chartSteps, reruns);
  assert.equal(m.timelineSteps, reruns);
  assert.ok(m.reruns.some((r) => r.op === 'A' && r.run === 2));
  assert.equal(m.legendLimit, 'memory limit 121 B');
  assert.ok(m.limitLine > 0, 'the limit is a line in the chart');
  assert.equal(m.memoryLimit, '121 B');
  assert.match(m.memoryLimitSub, /least limit 121 B/);
  assert.equal(m.addedCost, String(want.addedCost));
  assert.match(m.addedCostSub, /again of 1 op/);
  await page.locator('#limited').screenshot({ path: join(shots, 'recompute-limit.png') });

  // A limit the order meets: the line, nothing marked.
  const f = await readView(page, '#fits .po-root');
  assert.equal(f.state, 'ready', f.status);
  const fm = await readMarks(page, '#fits .po-root');
  assert.deepEqual([fm.chartSteps, fm.timelineSteps, fm.reruns.length, fm.timelineKey], [0, 0, 0, null]);
  assert.equal(fm.legendLimit, 'memory limit 1.00 KiB');
  assert.equal(fm.addedCost, '0');
  assert.match(fm.addedCostSub, /an order fits/);

  // The npm plan handed over as `plan` shows the same.
  const c = await readView(page, '#cli .po-root');
  assert.equal(c.state, 'ready', c.status);
  const cm = await readMarks(page, '#cli .po-root');
  assert.deepEqual([cm.chartSteps, cm.legendLimit, cm.addedCost], [m.chartSteps, m.legendLimit, m.addedCost]);
  const sm = await readMarks(page, '#snake .po-root');
  assert.deepEqual([sm.chartSteps, sm.legendLimit, sm.addedCost, sm.memoryLimitSub], [m.chartSteps, m.legendLimit, m.addedCost, m.memoryLimitSub]);

  // Below the least limit: the view says why, with the core's words.
  const b = await readView(page, '#below .po-root');
  assert.equal(b.state, 'error');
  assert.match(b.status, /no schedule fits within 100 bytes.*"C".*\[infeasible\]/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the page\'s memory limit box plans within the limit, and reports a bad one', async () => {
  const { page, problems } = await openPage(browser.context);
  await page.goto(`${base}/`);
  let v = await readView(page);
  assert.equal(v.state, 'ready', v.status);
  await page.fill('[data-testid="limit-input"]', '4MiB');
  await page.press('[data-testid="limit-input"]', 'Enter');
  await page.waitForSelector('[data-testid="legend-limit"]');
  v = await readView(page);
  assert.equal(v.state, 'ready', v.status);
  assert.equal(await page.textContent('[data-testid="legend-limit"]'), 'memory limit 4.00 MiB');
  assert.equal(await page.textContent('[data-testid="memory-limit"]'), '4.00 MiB');
  await page.fill('[data-testid="limit-input"]', 'lots');
  await page.press('[data-testid="limit-input"]', 'Enter');
  await page.waitForSelector('.po-root[data-state="error"]');
  assert.match(await page.textContent('.po-status'), /"lots".*\[bad_limit\]/);
  // Cleared: no limit again.
  await page.fill('[data-testid="limit-input"]', '');
  await page.press('[data-testid="limit-input"]', 'Enter');
  await page.waitForSelector('.po-root[data-state="ready"]');
  assert.equal(await page.locator('[data-testid="legend-limit"]').count(), 0);
  assert.deepEqual(problems.filter((p) => !/bad_limit|bad byte count/.test(p)), []);
  await page.close();
});
