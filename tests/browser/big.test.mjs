// Browser tests of the view on real training steps (docs/web.md), in Debian's Chromium through
// playwright-core: the 1.6k-op BERT and the 5.4k-op ResNet-50 JAX exports (tests/view/), and the
// 7.5k-op ResNet-50 step of the speed measurement. The memory timeline's bands at the peak must
// be exactly the native simulator's live set (ids, and bytes computed here from the graph file),
// hovering a band names its tensor within 100 ms, a click selects it in the graph and the lists,
// a group of the DAG expands and collapses, search finds an op inside a closed group, the first
// render of the 7.5k-op graph takes at most 2 s, and its `peakorder report` opens from file://
// with the network blocked. Needs www/dist and target/release/peakorder (scripts/test.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, openPage, readView } from './browser.mjs';
import * as po from '../../js/node.mjs';
import { buildModel } from '../../www/src/model.js';
import { lifetimes } from '../../www/src/lifetimes.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = join(root, 'www/dist');
const bin = process.env.PEAKORDER_BIN || join(root, 'target/release/peakorder');
const shots = process.env.PEAKORDER_SCREENSHOTS || join(root, 'target/browser-screenshots');
const FIXTURES = {
  seed: join(root, 'tests/cases/nvfuser-seed-breadth.json'),
  bert: join(root, 'tests/view/bert4-train.json'),
  resnet: join(root, 'tests/view/resnet50-train.json'),
  resnet7k: join(root, 'tests/view/resnet50-accum2.json'),
};
// Small fixtures with workspace, views, donated inputs, unread outputs and several outputs per op.
const CASES = ['workspace', 'views', 'donated', 'dead-outputs', 'multi-output', 'diamond'];
for (const c of CASES) FIXTURES[c] = join(root, `tests/cases/${c}.json`);
// docs/design.md §2's element sizes, written out here so that the check does not lean on the view's
// or the core's own table.
const DTYPE_BYTES = { f64: 8, f32: 4, f16: 2, bf16: 2, f8e4m3: 1, f8e5m2: 1, i64: 8, i32: 4, i16: 2, i8: 1, u8: 1, bool: 1 };

let browser;
let server;
let base;
let tmp;

before(async () => {
  assert.ok(existsSync(join(dist, 'peakorder-view.js')), 'www/dist is not built: run scripts/build.d/50-web.sh');
  assert.ok(existsSync(bin), `${bin} is not built (scripts/test.sh builds it)`);
  tmp = mkdtempSync(join(tmpdir(), 'peakorder-big-'));
  mkdirSync(shots, { recursive: true });
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
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/**
 * A page that mounts fixture `name` with `options` (the graph fetched from the page's server, so
 * that the measured time starts with the text in hand). Resolves with the page once drawn;
 * window.mounted is the time mount() took to draw (performance.now()).
 */
async function mountFixture(name, options = {}) {
  const { page, problems } = await openPage(browser.context);
  const text = readFileSync(FIXTURES[name], 'utf8');
  await page.route(`${base}/fixture.json`, (r) => r.fulfill({ contentType: 'application/json', body: text }));
  await page.route(`${base}/big.html`, (r) => r.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head>
      <body style="margin:0;padding:8px 16px"><div id="a" style="width:1320px"></div>
      <script type="module">
        import { mount } from '/peakorder-view.js';
        const text = await (await fetch('/fixture.json')).text();
        const t0 = performance.now();
        window.view = mount(document.getElementById('a'), text, ${JSON.stringify({ exampleLabel: name, ...options })});
        window.view.ready.then(() => { window.mounted = performance.now() - t0; });
      </script></body></html>`,
  }));
  await page.goto(`${base}/big.html`);
  const v = await readView(page);
  assert.equal(v.state, 'ready', `${name}: ${v.status}`);
  await page.waitForFunction(() => window.mounted !== undefined);
  return { page, problems, text, graph: JSON.parse(text), v };
}

/** Bytes of each tensor's own storage, from the graph file (0 for views). */
function tensorBytes(graph) {
  const out = new Map();
  for (const t of graph.tensors) {
    if (t.alias_of !== undefined) out.set(t.id, 0);
    else if (t.bytes !== undefined) out.set(t.id, t.bytes);
    else out.set(t.id, t.shape.reduce((a, d) => a * d, 1) * DTYPE_BYTES[t.dtype]);
  }
  return out;
}

/** The native simulator's view of `order` on the graph file (`peakorder simulate --json`). */
function nativeSimulate(file, order, name) {
  const orderFile = join(tmp, `${name}-order.json`);
  writeFileSync(orderFile, JSON.stringify(order));
  return JSON.parse(execFileSync(bin, ['simulate', file, orderFile, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 }));
}

/**
 * The timeline of `key` at its peak holds exactly the native simulator's live set: the same
 * storages with the graph's sizes, plus the running op's workspace, and nothing merged away.
 */
async function assertPeakBands(page, name, graph, key, { pixels: look = true } = {}) {
  const r = await page.evaluate((k) => {
    const res = window.view.result();
    return { order: k === 'planned' ? res.plan.order : null, peak: res[k].peakStep };
  }, key);
  const order = r.order || graph.ops.map((o) => o.id);
  const sim = nativeSimulate(FIXTURES[name], order, `${name}-${key}`);
  assert.equal(r.peak, sim.peak_step, `${name} ${key}: the view's peak step is the simulator's`);
  const at = await page.evaluate(([k, s]) => window.view.timeline(k).bandsAt(s), [key, sim.peak_step ?? -1]);
  const sizes = tensorBytes(graph);
  const storages = at.bands.filter((b) => b.kind === 'storage');
  assert.deepEqual(storages.map((b) => b.id).sort(), [...sim.live_at_peak].sort(), `${name} ${key}: bands at the peak = live_at_peak`);
  for (const b of storages) assert.equal(b.bytes, sizes.get(b.id), `${name} ${key}: bytes of ${b.id}`);
  const ws = at.bands.filter((b) => b.kind === 'workspace');
  const peakOp = sim.peak_step === null ? null : graph.ops.find((o) => o.id === order[sim.peak_step]);
  assert.equal(ws.reduce((a, b) => a + b.bytes, 0), (peakOp && peakOp.workspace) || 0, `${name} ${key}: workspace band`);
  assert.equal(at.other.bytes, 0, `${name} ${key}: nothing live at the peak is merged into "other"`);
  const total = at.bands.reduce((a, b) => a + b.bytes, 0);
  assert.equal(total, sim.peak_bytes, `${name} ${key}: the stack at the peak is the peak`);
  // The canvas shows the largest bands where bandsAt says they are, in their colours: a pixel in
  // the middle of the stretch where each keeps the bottom it has at the peak, off the peak line.
  const spot = (b) => {
    const mid = (b.x0 + b.x1) / 2;
    return Math.abs(mid - b.x) > 3 ? mid : b.x + (b.x1 - b.x > b.x - b.x0 ? 1 : -1) * Math.min(8, Math.abs(b.x1 - b.x0) / 3);
  };
  const big = [...storages].sort((a, b) => b.bytes - a.bytes).filter((b) => b.y1 - b.y0 >= 2 && b.x1 - b.x0 >= 12).slice(0, 3);
  if (!look) return { sim, at, storages };
  assert.ok(big.length > 0, `${name} ${key}: bands big enough to look at`);
  const pixels = await page.evaluate(([k, pts]) => {
    const c = document.querySelector(`.po-timeline[data-order="${k}"] .po-timeline-canvas`);
    const ctx = c.getContext('2d');
    const dpr = c.width / c.clientWidth;
    // A pixel row wholly inside the band (no anti-aliased edge).
    return pts.map(([x, y0, y1]) => {
      const row = Math.ceil(y0 * dpr);
      return row + 1 <= y1 * dpr ? [...ctx.getImageData(Math.floor(x * dpr), row, 1, 1).data] : null;
    });
  }, [key, big.map((b) => [spot(b), b.y0, b.y1])]);
  assert.ok(pixels.some((p) => p), `${name} ${key}: a pixel row inside a band`);
  big.forEach((b, i) => {
    const want = [1, 3, 5].map((j) => parseInt(b.color.slice(j, j + 2), 16));
    const got = pixels[i];
    if (!got) return;
    assert.ok(want.every((c, j) => Math.abs(c - got[j]) <= 8), `${name} ${key}: ${b.id} drawn in ${b.color} at its place (pixel ${got})`);
  });
  return { sim, at, storages };
}

/** Hovers the middle of each band; returns the latencies (event to painted tooltip, ms). */
async function hoverBands(page, key, bands) {
  const times = [];
  for (const b of bands) {
    const ms = await page.evaluate(async ([k, x, y]) => {
      const over = document.querySelector(`.po-timeline[data-order="${k}"] .po-timeline-over`);
      const r = over.getBoundingClientRect();
      const t0 = performance.now();
      over.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + x, clientY: r.top + y, bubbles: true }));
      await new Promise((ok) => requestAnimationFrame(() => ok()));
      return performance.now() - t0;
    }, [key, b.x, (b.y0 + b.y1) / 2]);
    times.push(ms);
    const tip = await page.textContent('.po-tooltip');
    assert.ok(tip.startsWith(`tensor ${b.id}`), `hovering ${b.id} shows it (${tip.slice(0, 80)})`);
  }
  return times;
}

test('the timeline at the peak is the simulator\'s live set: seed, 1.6k-op BERT, 5.4k-op ResNet-50, small cases', async () => {
  for (const name of ['seed', 'bert', 'resnet', ...CASES]) {
    const { page, problems, graph } = await mountFixture(name);
    for (const key of ['planned', 'program']) await assertPeakBands(page, name, graph, key, { pixels: !CASES.includes(name) });
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test('a graph with no ops draws an empty timeline and no graph, without errors', async () => {
  const { page, problems } = await openPage(browser.context);
  await page.route(`${base}/empty.html`, (r) => r.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
      <div id="a" style="width:1000px"></div><script type="module">
        import { mount } from '/peakorder-view.js';
        window.view = mount(document.getElementById('a'), { tensors: [{ id: 'x', bytes: 4 }], ops: [], outputs: ['x'] });
      </script></body></html>`,
  }));
  await page.goto(`${base}/empty.html`);
  const v = await readView(page);
  assert.equal(v.state, 'ready', v.status);
  assert.equal(v.timelineSteps, 0);
  assert.deepEqual(await page.evaluate(() => window.view.timeline('planned').bandsAt(-1).bands.map((b) => b.id)), ['x']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('ResNet-50 (5.4k ops): hover names a band\'s tensor, a click selects it everywhere; groups open and close; search finds an op', async () => {
  const { page, problems, graph } = await mountFixture('resnet');
  assert.ok(graph.ops.length >= 5000, `a training graph of ${graph.ops.length} ops`);
  const { storages } = await assertPeakBands(page, 'resnet', graph, 'planned');
  // The planned order alone (the toggle), taller; hover bands tall enough to aim at, from the
  // bottom of the stack to the top.
  await page.click('.po-seg-btn[data-mode="planned"]');
  assert.equal(await page.locator('.po-timeline').count(), 1, 'the toggle shows one order');
  const { storages: tallView } = await assertPeakBands(page, 'resnet', graph, 'planned');
  await page.locator('.po-timeline[data-order="planned"]').scrollIntoViewIfNeeded();
  const tall = tallView.filter((b) => b.y1 - b.y0 >= 2);
  assert.ok(tall.length >= 5, 'bands to hover');
  const pick = [0, 0.25, 0.5, 0.75, 1].map((f) => tall[Math.round(f * (tall.length - 1))]);
  const times = await hoverBands(page, 'planned', pick);
  assert.ok(Math.max(...times) <= 100, `hover within 100 ms (${times.map((t) => t.toFixed(1)).join(', ')} ms)`);
  // A click selects the tensor: the timeline outlines it, the DAG opens its producer's groups
  // and marks it, the live list marks the tensor.
  const target = pick[2];
  const box = await page.locator('.po-timeline[data-order="planned"] .po-timeline-over').boundingBox();
  await page.mouse.click(box.x + target.x, box.y + (target.y0 + target.y1) / 2);
  const producer = graph.ops.find((o) => o.outputs.includes(target.id));
  await page.waitForSelector(`.po-node.po-node-sel[data-op="${producer.id}"]`);
  assert.equal(await page.evaluate(() => window.view.timeline('planned').selected()), target.id);
  assert.equal(await page.getAttribute('[data-testid="live"] li.po-sel', 'data-tensor'), target.id);
  await page.mouse.move(2, 2);
  // A closed group opens (its members drawn in a box headed by its name) and closes again.
  const visible = () => page.evaluate(() => window.view.dag().visible().nodes);
  const before = await visible();
  await page.locator('.po-dag-svg').scrollIntoViewIfNeeded();
  // A closed group inside the part of the graph the panel shows.
  const key = await page.evaluate(() => {
    const r = document.querySelector('.po-dag-svg').getBoundingClientRect();
    const g = [...document.querySelectorAll('.po-group')].find((e) => {
      const b = e.getBoundingClientRect();
      return b.left >= r.left && b.right <= r.right && b.top >= r.top && b.bottom <= r.bottom;
    });
    return g ? g.dataset.group : null;
  });
  assert.ok(key !== null, 'a closed group in view');
  await page.click(`.po-group[data-group="${key}"]`);
  await page.waitForSelector(`.po-cluster[data-group="${key}"]`);
  assert.ok(await visible() > before, 'opening a group shows its members');
  assert.equal(await page.locator(`.po-group[data-group="${key}"]`).count(), 0);
  await page.click(`.po-cluster[data-group="${key}"] .po-cluster-head`);
  await page.waitForSelector(`.po-group[data-group="${key}"]`);
  assert.equal(await page.locator(`.po-cluster[data-group="${key}"]`).count(), 0, 'the group closed');
  assert.equal(await visible(), before);
  // Search: the last op of the step sits in a closed group; typing its id and Enter opens its
  // groups and marks it.
  const last = graph.ops[graph.ops.length - 1].id;
  assert.equal(await page.locator(`.po-node[data-op="${last}"]`).count(), 0, 'the op starts hidden in a group');
  await page.fill('[data-testid="search"]', last);
  await page.waitForSelector(`[data-testid="search-results"] li[data-id="${last}"]`);
  await page.press('[data-testid="search"]', 'Enter');
  await page.waitForSelector(`.po-node.po-node-sel[data-op="${last}"]`);
  assert.equal(await page.getAttribute('[data-testid="order"] li.po-sel', 'data-op'), last, 'and in the planned order');
  // A tensor found by search is selected in the timeline too.
  const live = storages[storages.length - 1].id;
  await page.fill('[data-testid="search"]', live);
  await page.click(`[data-testid="search-results"] li[data-kind="tensor"][data-id="${live}"]`);
  assert.equal(await page.evaluate(() => window.view.timeline('planned').selected()), live);
  await page.screenshot({ path: join(shots, 'big-resnet50.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('the 7.5k-op ResNet-50 step: first render within 2 s, hover within 100 ms', async (t) => {
  const { page, problems, graph, v } = await mountFixture('resnet7k', { method: 'greedy' });
  assert.ok(graph.ops.length >= 7000);
  assert.equal(v.timelineSteps, graph.ops.length);
  const m = await page.evaluate(() => ({ mounted: window.mounted, ...window.view.result().timings }));
  await page.click('.po-seg-btn[data-mode="planned"]');
  // The planner's own search is the budget's business; everything else is the view's.
  const render = m.mounted - m.plan_ms;
  const { storages } = await assertPeakBands(page, 'resnet7k', graph, 'planned');
  await page.locator('.po-timeline[data-order="planned"]').scrollIntoViewIfNeeded();
  const tall = storages.filter((b) => b.y1 - b.y0 >= 2);
  assert.ok(tall.length >= 10, 'bands to hover');
  const pick = Array.from({ length: 10 }, (_, i) => tall[Math.round((i / 9) * (tall.length - 1))]);
  const times = await hoverBands(page, 'planned', pick);
  const report = {
    ops: graph.ops.length, first_render_ms: Math.round(render), mount_to_drawn_ms: Math.round(m.mounted),
    breakdown_ms: Object.fromEntries(Object.entries(m).filter(([k]) => k.endsWith('_ms')).map(([k, x]) => [k, Math.round(x)])),
    hover_ms_max: Math.round(Math.max(...times) * 10) / 10, hover_ms_median: Math.round(times.sort((a, b) => a - b)[times.length >> 1] * 10) / 10,
  };
  writeFileSync(join(shots, 'speed-7k.json'), `${JSON.stringify(report, null, 2)}\n`);
  t.diagnostic(JSON.stringify(report));
  assert.ok(render <= 2000, `first render ${render.toFixed(0)} ms (of ${m.mounted.toFixed(0)} ms from mount to drawn)`);
  assert.ok(report.hover_ms_max <= 100, `hover ${report.hover_ms_max} ms`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the report of the 7.5k-op graph opens from file:// with the network blocked', async (t) => {
  const out = join(tmp, 'report-7k.html');
  execFileSync(bin, ['report', FIXTURES.resnet7k, '--method', 'greedy', '-o', out], { stdio: 'inherit' });
  const size = statSync(out).size;
  t.diagnostic(`report of ${FIXTURES.resnet7k}: ${size} bytes`);
  writeFileSync(join(shots, 'report-7k-size.txt'), `${size}\n`);
  assert.ok(size < 4 * 1024 * 1024, `report size ${size} bytes`);
  const { page, problems } = await openPage(browser.context);
  const blocked = [];
  await page.route('**/*', (r) => {
    const url = r.request().url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return r.continue();
    blocked.push(url);
    return r.abort('internetdisconnected');
  });
  await page.goto(pathToFileURL(out).href);
  const v = await readView(page);
  assert.equal(v.state, 'ready', v.status);
  assert.match(v.status, /7,502 ops.*worker\)$/);
  assert.equal(v.timelineSteps, 7502, 'the timeline is drawn');
  assert.ok(v.dagGroups > 0, 'the grouped DAG is drawn');
  assert.deepEqual(blocked, [], 'the report asked for nothing over the network');
  assert.deepEqual(problems, []);
  await page.close();
});

/**
 * A layout of `order` in the shape of `peakorder layout --json` (docs/layout.md): each storage and
 * workspace at the lowest offset where it overlaps no buffer live at the same time (first fit, in
 * allocation order). Made here to draw; the layout engine's own is checked where it runs. In the
 * CLI's snake_case names on purpose: the view's `arena` option reads them as the npm camelCase.
 */
function firstFitLayout(graph, order) {
  const model = buildModel(graph, po.storages(graph));
  const ix = new Map(model.ops.map((o, v) => [o.id, v]));
  const life = lifetimes(model, order.map((id) => ix.get(id)));
  const n = order.length;
  const bufs = [];
  model.tensors.forEach((t, i) => {
    if (life.start[i] < 0) return;
    // simulate's steps: 0 the start, k while the k-th op runs.
    const first = t.producer < 0 ? 0 : life.start[i] + 1;
    bufs.push({ kind: 'tensor', id: t.id, bytes: t.bytes, first_step: first, last_step: Math.min(n, life.end[i]) });
  });
  model.ops.forEach((o, v) => {
    if (life.wsStart[v] >= 0) bufs.push({ kind: 'workspace', id: o.id, bytes: o.workspace, first_step: life.wsStart[v] + 1, last_step: life.wsStart[v] + 1 });
  });
  const placed = [];
  for (const b of [...bufs].sort((a, c) => a.first_step - c.first_step)) {
    const clash = placed.filter((p) => p.first_step <= b.last_step && b.first_step <= p.last_step).sort((a, c) => a.offset - c.offset);
    let off = 0;
    for (const p of clash) if (p.offset < off + b.bytes && off < p.offset + p.bytes) off = p.offset + p.bytes;
    placed.push({ ...b, offset: off });
  }
  const arena = Math.max(...placed.map((p) => p.offset + p.bytes));
  const sim = po.simulate(graph, order);
  return {
    arena_bytes: arena, lower_bound_bytes: sim.peakBytes, optimal: arena === sim.peakBytes, method: 'first-fit (test)', align: 1,
    order, peak_bytes: sim.peakBytes, inputs_bytes: sim.inputsBytes,
    offsets: Object.fromEntries(placed.filter((p) => p.kind === 'tensor').map((p) => [p.id, p.offset])),
    workspace_offsets: Object.fromEntries(placed.filter((p) => p.kind === 'workspace').map((p) => [p.id, p.offset])),
    buffers: placed,
  };
}

test('the arena view draws a layout: a rectangle per buffer at its offset, hover and click', async () => {
  const graph = JSON.parse(readFileSync(FIXTURES.workspace, 'utf8'));
  const seedGraph = JSON.parse(readFileSync(FIXTURES.seed, 'utf8'));
  for (const g of [seedGraph, graph]) {
    const plan = po.plan(g);
    const layout = firstFitLayout(g, plan.order);
    const { page, problems } = await openPage(browser.context);
    await page.route(`${base}/arena.html`, (r) => r.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
        <div id="a" style="width:1200px"></div><script type="module">
          import { mount } from '/peakorder-view.js';
          window.view = mount(document.getElementById('a'), ${JSON.stringify(JSON.stringify(g))}, { arena: ${JSON.stringify(layout)} });
        </script></body></html>`,
    }));
    await page.goto(`${base}/arena.html`);
    const v = await readView(page);
    assert.equal(v.state, 'ready', v.status);
    assert.ok(await page.isVisible('[data-testid="arena"] canvas'), 'the arena panel is shown');
    assert.equal(Number(await page.getAttribute('.po-arena-canvas', 'data-buffers')), layout.buffers.length);
    assert.match(await page.textContent('.po-panel:has([data-testid="arena"]) .po-note'), /laid out for the planned order/);
    // At every step, the rectangles are the buffers live then, each at its offset, in its colour.
    await page.locator('[data-testid="arena"]').scrollIntoViewIfNeeded();
    for (let k = 0; k < plan.order.length; k++) {
      const at = await page.evaluate((s) => window.view.arena().rectsAt(s), k);
      const want = layout.buffers.filter((b) => Math.max(0, b.first_step - 1) <= k && k < Math.max(b.first_step, b.last_step));
      assert.deepEqual(at.map((r) => `${r.kind}:${r.id}@${r.offset}`).sort(), want.map((b) => `${b.kind}:${b.id}@${b.offset}`).sort(), `step ${k}`);
    }
    const rects = await page.evaluate(() => window.view.arena().rectsAt(0).filter((r) => r.kind === 'tensor' && r.y1 - r.y0 >= 4));
    assert.ok(rects.length > 0);
    const box = await page.locator('.po-arena-over').boundingBox();
    for (const r of rects.slice(0, 4)) {
      const px = await page.evaluate(([x, y]) => {
        const c = document.querySelector('.po-arena-canvas');
        const dpr = c.width / c.clientWidth;
        return [...c.getContext('2d').getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data];
      }, [r.x, (r.y0 + r.y1) / 2]);
      const want = [1, 3, 5].map((j) => parseInt(r.color.slice(j, j + 2), 16));
      assert.ok(want.every((c, j) => Math.abs(c - px[j]) <= 8), `${r.id} drawn in ${r.color} (pixel ${px})`);
      await page.mouse.move(box.x + r.x, box.y + (r.y0 + r.y1) / 2);
      assert.ok((await page.textContent('.po-tooltip')).startsWith(`tensor ${r.id}`), `hover names ${r.id}`);
    }
    // A click selects the tensor in the arena and the timeline.
    const r = rects[0];
    await page.mouse.click(box.x + r.x, box.y + (r.y0 + r.y1) / 2);
    assert.equal(await page.evaluate(() => window.view.arena().selected()), r.id);
    assert.equal(await page.evaluate(() => window.view.timeline('planned').selected()), r.id);
    await page.locator('.po-panel:has([data-testid="arena"])').screenshot({ path: join(shots, `arena-${g === graph ? 'workspace' : 'seed'}.png`) });
    assert.deepEqual(problems, []);
    await page.close();
  }
});
