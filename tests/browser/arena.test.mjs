// The page's arena panel draws the real static layout (docs/layout.md): mount() with no `arena`
// option lays the planned order out through the npm layout() in the engine, and at every step the
// drawn rectangles are exactly the buffers of that layout live then, at their offsets. Compared
// with the layout the npm package gives in Node for the same graph and order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, readView } from './browser.mjs';
import * as po from '../../js/node.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const GRAPHS = ['nvfuser-seed-breadth', 'workspace', 'views', 'donated', 'multi-output'];

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

/** The buffers the panel shows at view step k (the arena panel's convention, see big.test.mjs). */
function liveAt(layout, k) {
  return layout.buffers
    .filter((b) => Math.max(0, b.firstStep - 1) <= k && k < Math.max(b.firstStep, b.lastStep))
    .map((b) => `${b.kind}:${b.id}@${b.offset}+${b.bytes}`)
    .sort();
}

test('the arena panel draws the npm layout() of the planned order', async () => {
  for (const name of GRAPHS) {
    const text = readFileSync(join(root, `tests/cases/${name}.json`), 'utf8');
    const { page, problems } = await openPage(browser.context);
    await page.route(`${base}/arena-real.html`, (r) => r.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
        <div id="a" style="width:1200px"></div><script type="module">
          import { mount } from '/peakorder-view.js';
          window.view = mount(document.getElementById('a'), ${JSON.stringify(text)});
        </script></body></html>`,
    }));
    await page.goto(`${base}/arena-real.html`);
    const v = await readView(page);
    assert.equal(v.state, 'ready', `${name}: ${v.status}`);
    assert.ok(await page.isVisible('[data-testid="arena"] canvas'), `${name}: the arena panel is shown`);
    // The order the page planned is the one its arena was laid out for.
    assert.match(await page.textContent('.po-panel:has([data-testid="arena"]) .po-note'), /laid out for the planned order/, name);
    // The engine's layout (worker), and the page's planned order it was made for.
    const got = await page.evaluate(() => {
      const r = window.view.result();
      return { planned: r.plan.order, arena: r.arena, arenaError: r.arenaError };
    });
    assert.ok(got.arena, `${name}: no layout (${JSON.stringify(got.arenaError)})`);
    assert.deepEqual(got.arena.order, got.planned, `${name}: laid out for the planned order`);
    const want = po.layout(text, { order: got.planned });
    assert.equal(got.arena.arenaBytes, want.arenaBytes, `${name}: arena bytes`);
    assert.deepEqual(got.arena.offsets, want.offsets, `${name}: offsets`);
    assert.equal(Number(await page.getAttribute('.po-arena-canvas', 'data-buffers')), want.buffers.length, `${name}: buffers drawn`);
    await page.locator('[data-testid="arena"]').scrollIntoViewIfNeeded();
    for (let k = 0; k < want.order.length; k++) {
      const at = await page.evaluate((s) => window.view.arena().rectsAt(s), k);
      assert.deepEqual(at.map((r) => `${r.kind}:${r.id}@${r.offset}+${r.bytes}`).sort(), liveAt(want, k), `${name}: step ${k}`);
    }
    assert.deepEqual(problems, [], name);
    await page.close();
  }
});
