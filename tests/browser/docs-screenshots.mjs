// The screenshots in docs/web.md, taken in Debian's Chromium the way the tests drive it:
//   node tests/browser/docs-screenshots.mjs        (after scripts/build.d/50-web.sh)
// writes docs/img/view-seed.png (the nvFuser seed, 40 ops), docs/img/view-bert.png (the 4-layer
// BERT training step, 1,593 ops) and docs/img/view-resnet50.png (the ResNet-50 training step,
// 5,434 ops), each the whole view as it first opens, with the default method and budget.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, readView } from './browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(root, 'docs/img');
const SHOTS = [
  ['view-seed.png', 'tests/cases/nvfuser-seed-breadth.json'],
  ['view-bert.png', 'tests/view/bert4-train.json'],
  ['view-resnet50.png', 'tests/view/resnet50-train.json'],
];

mkdirSync(out, { recursive: true });
const server = spawn(process.execPath, [join(root, 'www/serve.mjs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((ok) => server.stdout.on('data', (d) => {
  const m = /http:\/\/localhost:(\d+)\//.exec(String(d));
  if (m) ok(`http://127.0.0.1:${m[1]}`);
}));
const browser = await launch();
try {
  for (const [name, file] of SHOTS) {
    const { page, problems } = await openPage(browser.context);
    const text = readFileSync(join(root, file), 'utf8');
    await page.route(`${base}/shot.html`, (r) => r.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head>
        <body style="margin:0;padding:12px 20px;max-width:1360px"><div id="a"></div>
        <script type="module">
          import { mount } from '/peakorder-view.js';
          window.view = mount(document.getElementById('a'), ${JSON.stringify(text)}, { exampleLabel: ${JSON.stringify(file)} });
        </script></body></html>`,
    }));
    await page.goto(`${base}/shot.html`);
    const v = await readView(page);
    if (v.state !== 'ready' || problems.length) throw new Error(`${file}: ${v.status} ${problems.join('; ')}`);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: join(out, name), fullPage: true });
    console.log(`docs/img/${name}: ${v.status}`);
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
