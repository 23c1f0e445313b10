// The page opens ONNX models (issue #31): a .onnx file dropped on the page is read, imported in
// the worker by the ONNX module (fetched from www/dist on the first model) and planned, with the
// status showing each phase; the graph is the CLI's (same op and tensor counts, same planned peak
// as `peakorder plan`); a file too large for the tab gets a clear message naming the CLI command,
// and a bad file the importer's code. Needs www/dist, target/release/peakorder and the onnx wheel
// in .venv (skipped without it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, readView } from './browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = process.env.PEAKORDER_BIN || join(root, 'target/release/peakorder');

function lightModel(name) {
  const lib = join(root, '.venv', 'lib');
  if (!existsSync(lib)) return null;
  for (const py of readdirSync(lib)) {
    const p = join(lib, py, 'site-packages', 'onnx', 'backend', 'test', 'data', 'light', name);
    if (existsSync(p)) return p;
  }
  return null;
}
const MODEL = lightModel('light_squeezenet.onnx');

let browser;
let server;
let base;

before(async () => {
  if (!MODEL) return;
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

/** Drops a file built from `bytes` (an array of numbers) on the page; `size` fakes its size. */
async function drop(page, bytes, name, size) {
  await page.evaluate(([b, n, s]) => {
    const file = new File([new Uint8Array(b)], n, { type: 'application/octet-stream' });
    if (s !== null) Object.defineProperty(file, 'size', { value: s });
    const dt = new DataTransfer();
    dt.items.add(file);
    document.body.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [bytes, name, size ?? null]);
}

test('a dropped .onnx file is imported in the worker and planned, as the CLI does', { skip: MODEL ? false : 'no onnx wheel in .venv', timeout: 120000 }, async () => {
  const { page, problems } = await openPage(browser.context);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${base}/`);
  await readView(page);
  assert.ok(!requests.some((u) => u.endsWith('peakorder_onnx_bg.wasm')), 'the ONNX module is fetched only for a model');
  const bytes = [...readFileSync(MODEL)];
  const statuses = [];
  await page.exposeFunction('poStatus', (t) => statuses.push(t));
  await page.evaluate(() => {
    const s = document.querySelector('.po-status');
    new MutationObserver(() => window.poStatus(s.textContent)).observe(s, { childList: true, characterData: true, subtree: true });
  });
  await drop(page, bytes, 'light_squeezenet.onnx');
  await page.waitForFunction(() => /^light_squeezenet\.onnx: /.test(document.querySelector('.po-status').textContent), null, { timeout: 60000 });
  const v = await readView(page);
  assert.equal(v.state, 'ready', v.status);
  assert.ok(requests.some((u) => u.endsWith('/peakorder_onnx_bg.wasm')));
  assert.ok(statuses.some((s) => s.startsWith('Reading light_squeezenet.onnx')), statuses.join(' | '));
  assert.ok(statuses.some((s) => s.startsWith('Importing light_squeezenet.onnx')), statuses.join(' | '));
  // The CLI's graph and plan of the same model.
  const g = JSON.parse(execFileSync(bin, ['import', 'onnx', MODEL]));
  assert.match(v.status, new RegExp(`^light_squeezenet\\.onnx: ${g.ops.length} ops, ${g.tensors.length} tensors`));
  assert.equal(v.dagNodes > 0, true);
  assert.deepEqual(problems, []);

  // Too large for the tab: a clear message naming the CLI, before anything is read.
  await drop(page, [1, 2, 3], 'huge.onnx', 3 * 1024 ** 3);
  await page.waitForFunction(() => document.querySelector('.po-status').textContent.startsWith('huge.onnx'));
  const big = await readView(page);
  assert.equal(big.state, 'error');
  assert.match(big.status, /^huge\.onnx is 3\.00 GiB: too large to import in this tab .*peakorder import onnx huge\.onnx/, big.status);

  // A bad file: the importer's code; then a good one still works.
  await drop(page, [...Buffer.from('not a model')], 'bad.onnx');
  await page.waitForFunction(() => document.querySelector('.po-status').textContent.startsWith('Cannot import bad.onnx'));
  assert.match((await readView(page)).status, /\[bad_onnx\]$/);
  await drop(page, bytes, 'again.onnx');
  await page.waitForFunction(() => document.querySelector('.po-status').textContent.startsWith('again.onnx: '));
  assert.equal((await readView(page)).state, 'ready');
});
