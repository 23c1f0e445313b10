// Browser tests of the web view (docs/web.md), in Debian's Chromium through playwright-core:
// the static page (served by `npm run serve`), the embedded view (mount and the anywidget
// render), and a `peakorder report` file opened from disk with the network blocked.
// Needs: www/dist (scripts/build.d/50-web.sh) and target/release/peakorder (scripts/test.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, openPage, readView } from './browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = join(root, 'www/dist');
const bin = process.env.PEAKORDER_BIN || join(root, 'target/release/peakorder');
const shots = process.env.PEAKORDER_SCREENSHOTS || join(root, 'target/browser-screenshots');
const cases = join(root, 'tests/cases');
const seed = JSON.parse(readFileSync(join(cases, 'nvfuser-seed-breadth.json'), 'utf8'));
const MiB = 1024 * 1024;

let browser;
let server;
let base;
let tmp;

before(async () => {
  assert.ok(existsSync(join(dist, 'peakorder-view.js')), 'www/dist is not built: run scripts/build.d/50-web.sh');
  tmp = mkdtempSync(join(tmpdir(), 'peakorder-browser-'));
  // `npm run serve` is `node www/serve.mjs`; port 0 picks a free port, printed on stdout.
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

/** The checks every view of the seed graph must pass: numbers, chart and DAG. */
function assertSeedView(v, what) {
  assert.equal(v.state, 'ready', `${what}: ${v.status}`);
  assert.equal(v.program, '5.50 MiB', `${what}: program-order peak`);
  assert.equal(v.programSub, '+2.75 MiB above inputs', `${what}: program above inputs`);
  assert.equal(v.planned, '3.50 MiB', `${what}: planned peak`);
  assert.match(v.plannedSub, /^\+0\.75 MiB above inputs/, `${what}: planned above inputs`);
  assert.equal(v.lowerBound, '3.50 MiB', `${what}: lower bound`);
  assert.equal(v.optimal, 'proven', `${what}: optimality`);
  assertChart(v, seed.ops.length, what);
  assert.equal(v.dagNodes, seed.ops.length, `${what}: DAG nodes = ops`);
  assert.ok(v.dagEdges > 0, `${what}: DAG edges drawn`);
  assert.ok(v.liveEdges > 0, `${what}: tensors live at the peak highlighted`);
  assert.equal(v.orderItems, seed.ops.length, `${what}: planned order listed`);
}

/** The chart drew both series over every step, and each peak marker sits on its series' top. */
function assertChart(v, steps, what, keys = ['program', 'planned']) {
  assert.equal(v.steps, steps, `${what}: chart steps`);
  for (const k of keys) {
    const s = v.series[k];
    assert.ok(s, `${what}: ${k} series drawn`);
    assert.ok(s.points >= 3 * steps, `${what}: ${k} series has a point per step (${s.points})`);
    assert.ok(s.width > 100 && s.height > 0, `${what}: ${k} series has a size`);
    const p = v.peaks[k];
    assert.ok(p, `${what}: ${k} peak marked`);
    assert.ok(Math.abs(p.cy - s.top) < 1, `${what}: ${k} peak marker (${p.cy}) on the series' highest point (${s.top})`);
  }
}

async function shot(page, name) {
  await page.screenshot({ path: join(shots, name), fullPage: true });
}

test('the page plans the seed example in a worker and shows it', async () => {
  const { page, problems } = await openPage(browser.context);
  await page.goto(`${base}/`);
  const v = await readView(page);
  assertSeedView(v, 'page');
  assert.match(v.status, /worker\)$/, 'planned in the Web Worker');
  // Hover an op: its details appear.
  await page.hover('.po-node[data-op="mm1_0"]');
  const tip = await page.textContent('.po-tooltip');
  assert.match(tip, /op mm1_0/);
  assert.match(tip, /planned order/);
  // Ctrl+wheel zooms the DAG; a double click fits it again.
  const zoom = () => page.getAttribute('.po-dag-svg', 'data-zoom').then(Number);
  const z0 = await zoom();
  await page.hover('.po-node[data-op="mm2_5"]');
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -300);
  await page.keyboard.up('Control');
  await page.waitForFunction((z) => Number(document.querySelector('.po-dag-svg').dataset.zoom) > z, z0);
  await page.dblclick('.po-dag-svg');
  assert.equal(await zoom(), z0);
  await page.mouse.move(5, 5);
  // Hovering the chart shows both orders at that step.
  await page.locator('.po-hit').scrollIntoViewIfNeeded();
  const hit = await page.locator('.po-hit').boundingBox();
  await page.mouse.move(hit.x + hit.width * 0.26, hit.y + hit.height / 2);
  assert.match(await page.textContent('.po-tooltip'), /step 11.*program.*mm1_0.*5\.50 MiB/s);
  await page.mouse.move(5, 5);
  // The plan downloads as the docs/design.md §3 JSON.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download plan (JSON)')]);
  const plan = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(plan.peak_bytes, 3.5 * MiB);
  assert.equal(plan.order.length, seed.ops.length);
  assert.equal(plan.program_order_peak_bytes, 5.5 * MiB);
  assert.equal('peakBytes' in plan, false, 'the file has the CLI\'s names');
  await shot(page, 'page-seed.png');
  // The other seed: already in the good order.
  await page.selectOption('[data-testid="example"]', 'seed-thunder');
  await page.waitForFunction(() => document.querySelector('.po-status').textContent.startsWith('Seed: Thunder'));
  const t = await readView(page);
  assert.equal(t.program, '3.50 MiB');
  assert.equal(t.planned, '3.50 MiB');
  assert.deepEqual(problems, []);
  await page.close();
});

/** The fusion cards and the DAG's region outlines, as the view shows them. */
async function readFusion(page, scope = '.po-root') {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    const text = (id) => root.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
    return {
      pressed: root.querySelector('[data-testid="fuse"]')?.getAttribute('aria-pressed') ?? null,
      fused: text('fused-kernels'),
      fusedSub: text('fused-kernels-sub'),
      baseline: text('baseline-kernels'),
      baselineSub: text('baseline-kernels-sub'),
      regions: new Set([...root.querySelectorAll('.po-region')].map((r) => r.dataset.region)).size,
      regionKey: !root.querySelector('.po-region-key')?.hidden,
    };
  }, scope);
}

/** Bytes of a formatted size such as "7.75 MiB". */
function bytesOf(text) {
  const m = /([\d.]+) (B|KiB|MiB|GiB)/.exec(text);
  assert.ok(m, `no size in ${JSON.stringify(text)}`);
  return Number(m[1]) * { B: 1, KiB: 1024, MiB: MiB, GiB: 1024 * MiB }[m[2]];
}

/** No two of the elements `selector` matches overlap, and none overflows its own box. */
async function assertNoOverlap(page, selector, what) {
  const boxes = await page.evaluate((sel) => [...document.querySelectorAll(sel)].map((e) => {
    const r = e.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height, over: e.scrollWidth > e.clientWidth + 1, text: e.textContent.slice(0, 40) };
  }), selector);
  assert.ok(boxes.length > 0, `${what}: nothing matches ${selector}`);
  for (const [i, a] of boxes.entries()) {
    assert.ok(!a.over, `${what}: "${a.text}" overflows its box`);
    for (const b of boxes.slice(i + 1)) {
      const apart = a.x + a.w <= b.x + 0.5 || b.x + b.w <= a.x + 0.5 || a.y + a.h <= b.y + 0.5 || b.y + b.h <= a.y + 0.5;
      assert.ok(apart, `${what}: "${a.text}" overlaps "${b.text}"`);
    }
  }
}

test('the Fuse toggle: 40 -> 39 kernels within the planned peak, the baseline\'s higher peak, regions outlined', async () => {
  const { page, problems } = await openPage(browser.context);
  await page.goto(`${base}/`);
  assertSeedView(await readView(page), 'page');
  const off = await readFusion(page);
  assert.equal(off.pressed, 'false');
  assert.equal(off.fused, null, 'no fusion cards before the toggle');
  assert.equal(off.regions, 0);
  await page.click('[data-testid="fuse"]');
  await page.waitForSelector('.po-root[data-state="ready"] [data-testid="fused-kernels"]', { timeout: 60000 });
  const on = await readFusion(page);
  assert.equal(on.pressed, 'true');
  assert.equal(on.fused, '40 → 39', 'memory-aware fusion: one kernel fewer');
  assert.equal(on.baseline, '40 → 22', 'Thunder-style baseline');
  const fusedPeak = bytesOf(on.fusedSub);
  assert.match(on.fusedSub, /^fused peak 3\.50 MiB · at the limit/, 'fused peak stays at the planned peak');
  assert.match(on.baselineSub, /^peak 7\.75 MiB · 4\.25 MiB over the limit/);
  assert.ok(bytesOf(on.baselineSub) > fusedPeak, 'the baseline peaks higher');
  assert.equal(on.regions, 1, 'the one memory-aware region outlined');
  assert.ok(on.regionKey, 'the DAG legend names the outline');
  // The outline surrounds its members.
  const f0 = await page.evaluate(() => window.peakorderView.result().fusion);
  const members = await Promise.all(f0.regions[0].map((id) => page.locator(`.po-node[data-op="${id}"]`).boundingBox()));
  assert.equal(members.length, 2);
  // Every member inside an outline of its region, and no other op inside any outline.
  const outlines = await page.evaluate(() => [...document.querySelectorAll('.po-region')].map((r) => {
    const b = r.getBoundingClientRect();
    return { x: b.x, y: b.y, width: b.width, height: b.height, region: r.dataset.region };
  }));
  const inside = (m, o) => m.x >= o.x - 0.5 && m.y >= o.y - 0.5 && m.x + m.width <= o.x + o.width + 0.5
    && m.y + m.height <= o.y + o.height + 0.5;
  for (const m of members) assert.ok(outlines.some((o) => inside(m, o)), 'region outline around its member');
  const others = await page.evaluate((ids) => [...document.querySelectorAll('.po-node')]
    .filter((n) => !ids.includes(n.dataset.op)).map((n) => {
      const b = n.getBoundingClientRect();
      return { x: b.x, y: b.y, width: b.width, height: b.height, op: n.dataset.op };
    }), f0.regions[0]);
  for (const n of others) {
    for (const o of outlines) {
      const apart = n.x + n.width <= o.x + 0.5 || o.x + o.width <= n.x + 0.5 || n.y + n.height <= o.y + 0.5 || o.y + o.height <= n.y + 0.5;
      assert.ok(apart, `${n.op} is not fused but overlaps the outline of ${o.region}`);
    }
  }
  // Hovering a member names the op it is fused with.
  await page.hover(`.po-node[data-op="${f0.regions[0][0]}"]`);
  assert.match(await page.textContent('.po-tooltip'), new RegExp(`fused with${f0.regions[0][1]}`));
  await page.mouse.move(5, 5);
  // The same numbers as the core's fuse (the wasm result the view holds).
  const f = await page.evaluate(() => window.peakorderView.result().fusion);
  assert.equal(f.peakAfterBytes, 3.5 * MiB);
  assert.equal(f.baseline.peakAfterBytes, 7.75 * MiB);
  await assertNoOverlap(page, '.po-summary .po-card', 'summary cards');
  await assertNoOverlap(page, '.po-controls > *:not([hidden])', 'controls');
  await shot(page, 'page-fuse.png');
  // Off: cards and outlines go; on again: back without re-fusing.
  await page.click('[data-testid="fuse"]');
  const again = await readFusion(page);
  assert.equal(again.pressed, 'false');
  assert.equal(again.fused, null);
  assert.equal(again.regions, 0);
  assert.ok(!again.regionKey);
  await page.click('[data-testid="fuse"]');
  await page.waitForSelector('[data-testid="fused-kernels"]');
  assert.equal((await readFusion(page)).fused, '40 → 39');
  // Fusion stays on for the next graph: the Thunder report's order fuses the same way.
  await page.selectOption('[data-testid="example"]', 'seed-thunder');
  await page.waitForFunction(() => document.querySelector('.po-status').textContent.startsWith('Seed: Thunder')
    && document.querySelector('[data-testid="fused-kernels"]')?.textContent === '40 → 39');
  assert.equal((await readFusion(page)).baseline, '40 → 22');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the page plans a graph from the file picker and from a paste, and reports bad input', async () => {
  const { page, problems } = await openPage(browser.context);
  await page.goto(`${base}/`);
  await readView(page);
  // Our own graph, by the file picker: the fixture's expected peaks.
  const fj = JSON.parse(readFileSync(join(cases, 'fork-join.json'), 'utf8'));
  await page.setInputFiles('[data-testid="file"]', join(cases, 'fork-join.json'));
  await page.waitForFunction(() => document.querySelector('.po-status').textContent.startsWith('fork-join.json'));
  const v = await readView(page);
  assert.equal(v.program, `${fj.meta.expect.program_peak_bytes} B`);
  assert.equal(v.planned, `${fj.meta.expect.optimal_peak_bytes} B`);
  assert.equal(v.dagNodes, fj.ops.length);
  // Dropped on the page, and pasted outside any text field: the Thunder seed graph.
  const paths = readFileSync(join(cases, 'nvfuser-seed-paths.json'), 'utf8');
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
    document.body.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, paths);
  await page.waitForFunction(() => document.querySelector('.po-status').textContent.startsWith('dropped.json'));
  assert.equal((await readView(page)).program, '3.50 MiB', 'dropped file planned');
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.setData('text/plain', text);
    document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, JSON.stringify(seed));
  await page.waitForFunction(() => document.querySelector('.po-status').textContent.startsWith('pasted graph'));
  assertSeedView(await readView(page), 'pasted graph');
  // A pasted cyclic graph: a clear error with its code, and the page still works after it.
  const cyclic = {
    tensors: [{ id: 'a', bytes: 1 }, { id: 'b', bytes: 1 }],
    ops: [{ id: 'f', inputs: ['b'], outputs: ['a'] }, { id: 'g', inputs: ['a'], outputs: ['b'] }],
  };
  await page.click('text=Paste JSON…');
  await page.fill('[data-testid="paste"]', JSON.stringify(cyclic));
  await page.click('text=Plan pasted graph');
  await page.waitForSelector('.po-root[data-state="error"]');
  assert.match(await page.textContent('.po-status'), /\[cycle\]/);
  await page.selectOption('[data-testid="example"]', 'seed-nvfuser');
  assertSeedView(await readView(page), 'page after an error');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the page stays usable on a 5,000-op graph', async () => {
  const { page, problems } = await openPage(browser.context);
  await page.goto(`${base}/`);
  await readView(page);
  await page.selectOption('[data-testid="example"]', 'random-5000');
  // The main thread answers while the worker plans.
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
  assert.ok(Date.now() - t0 < 1000, 'the page answers while planning');
  await page.waitForFunction(() => document.querySelector('.po-status').textContent.startsWith('Random graph, 5,000'), null, { timeout: 120000 });
  const v = await readView(page);
  assertChart(v, 5000, '5,000 ops');
  // No scopes and no id prefixes: the DAG groups runs of the program order, a few nodes each level.
  assert.equal(v.dagDeclared, 5000, 'the grouped DAG stands for every op');
  assert.ok(v.dagGroups > 0 && v.dagVisible <= 60, `grouped DAG drawn (${v.dagVisible} nodes, ${v.dagGroups} closed groups)`);
  assert.match(await page.textContent('[data-testid="dag"] ~ .po-note, .po-panel:has([data-testid="dag"]) .po-note'), /grouped by runs of the program order/);
  assert.equal(v.timelineSteps, 5000, 'the memory timeline spans every step');
  await shot(page, 'page-5000.png');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the embedded view: mount() and the anywidget render()', async () => {
  const { page, problems } = await openPage(browser.context);
  // A plain third-party page that imports the bundle, as a notebook or Observable would.
  await page.route(`${base}/embed.html`, (r) => r.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
      <h2>mount</h2><div id="a" style="width:1000px"></div>
      <h2>anywidget</h2><div id="b" style="width:1000px"></div>
      <h2>mount with fuse</h2><div id="c" style="width:1000px"></div>
      <script type="module">
        import { mount, render } from '/peakorder-view.js';
        import widget from '/peakorder-view.js';
        window.graph = ${JSON.stringify(seed)};
        // Fusion regions given by the caller are outlined.
        window.handle = mount(document.getElementById('a'), window.graph, { regions: [['relu1_0', 'mm1_0', 'relu2_0']] });
        // A minimal anywidget model: get/on/off over a map of traits.
        const traits = { graph: JSON.stringify(window.graph), method: null };
        const handlers = {};
        window.model = {
          get: (k) => traits[k],
          set: (k, v) => { traits[k] = v; (handlers['change:' + k] || []).forEach((f) => f()); },
          on: (ev, f) => { (handlers[ev] = handlers[ev] || []).push(f); },
          off: (ev, f) => { handlers[ev] = (handlers[ev] || []).filter((g) => g !== f); },
        };
        window.cleanup = widget.render({ model: window.model, el: document.getElementById('b') });
        window.sameRender = widget.render === render;
        window.fused = mount(document.getElementById('c'), window.graph, { fuse: true });
      </script></body></html>`,
  }));
  await page.goto(`${base}/embed.html`);
  assertSeedView(await readView(page, '#a .po-root'), 'mount');
  assertSeedView(await readView(page, '#b .po-root'), 'anywidget render');
  assert.equal(await page.evaluate(() => window.sameRender), true);
  assert.equal(await page.locator('#a .po-region').count(), 1, 'fusion region outlined');
  // mount(..., {fuse: true}): fused in the same request as the plan.
  assertSeedView(await readView(page, '#c .po-root'), 'mount with fuse');
  const c = await readFusion(page, '#c .po-root');
  assert.deepEqual([c.fused, c.baseline, c.regions, c.pressed], ['40 → 39', '40 → 22', 1, null]);
  assert.ok(bytesOf(c.baselineSub) > bytesOf(c.fusedSub));
  assert.equal(await page.evaluate(() => window.fused.fuse(false).then(() => document.querySelectorAll('#c .po-region').length)), 0);
  assert.equal(await page.locator('.po-controls').count(), 0, 'no loader controls when embedded');
  await page.locator('#a').screenshot({ path: join(shots, 'embed-mount.png') });
  // A trait change re-plans.
  await page.evaluate(async () => {
    const g = structuredClone(window.graph);
    g.ops.reverse(); // not a valid program order any more: the view must say so, not fail
    window.model.set('graph', JSON.stringify(g));
  });
  await page.waitForFunction(() => document.querySelector('#b [data-testid="program-peak"]').textContent === 'n/a');
  const v = await readView(page, '#b .po-root');
  assertChart(v, seed.ops.length, 'render after update', ['planned']);
  await page.evaluate((g) => window.model.set('graph', g), readFileSync(join(cases, 'nvfuser-seed-paths.json'), 'utf8'));
  await page.waitForFunction(() => document.querySelector('#b [data-testid="program-peak"]').textContent === '3.50 MiB');
  await page.evaluate(() => window.cleanup());
  assert.equal(await page.locator('#b .po-root').count(), 0, 'render() cleans up');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a page whose Content-Security-Policy refuses workers still plans, in-page', async () => {
  const { page, problems } = await openPage(browser.context);
  await page.route(`${base}/csp.html`, (r) => r.fulfill({
    contentType: 'text/html',
    headers: { 'content-security-policy': "worker-src 'none'" },
    body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
      <div id="a" style="width:1000px"></div>
      <script type="module">
        import { mount } from '/peakorder-view.js';
        mount(document.getElementById('a'), ${JSON.stringify(JSON.stringify(seed))});
      </script></body></html>`,
  }));
  await page.goto(`${base}/csp.html`);
  const v = await readView(page);
  assertSeedView(v, 'CSP page');
  assert.match(v.status, /in-page\)$/, 'planned in-page');
  // The browser reports the refused worker itself; nothing else may go wrong.
  assert.deepEqual(problems.filter((p) => !/Content Security Policy/.test(p)), []);
  await page.close();
});

test('peakorder report writes one file that works from disk with the network off', async () => {
  assert.ok(existsSync(bin), `${bin} is not built (scripts/test.sh builds it)`);
  const out = join(tmp, 'report.html');
  execFileSync(bin, ['report', join(cases, 'nvfuser-seed-breadth.json'), '-o', out], { stdio: 'inherit' });
  const html = readFileSync(out, 'utf8');
  // The binary embeds www/dist/report.html when it is built: it must be this bundle's.
  const template = readFileSync(join(dist, 'report.html'), 'utf8').split(/__PEAKORDER_[A-Z]+__/);
  let at = 0;
  for (const part of template) {
    const found = html.indexOf(part, at);
    assert.ok(found >= 0, `${bin} embeds an older web bundle: rebuild it (cargo build --release) after www/dist`);
    at = found + part.length;
  }
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href="(?!data:)/, 'nothing loaded from outside the file');
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
  assertSeedView(v, 'report');
  assert.match(v.status, /worker\)$/, 'report plans in a Web Worker');
  assert.deepEqual(blocked, [], 'the report asked for nothing over the network');
  assert.deepEqual(problems, []);
  await shot(page, 'report-seed.png');
  await page.close();
});

test('the npm package exports the view as peakorder/view and ships it', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.exports['./view'].default, './www/dist/peakorder-view.js');
  const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
  const files = packed[0].files.map((f) => f.path);
  for (const f of ['www/dist/peakorder-view.js', 'www/view.d.ts']) assert.ok(files.includes(f), `${f} in the package`);
});
