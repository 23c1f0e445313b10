// A Vite 8 app as a user writes one (tests/consumers/vite/): the packed npm tarball installed into
// a scratch copy, `vite build`, the built site served on 127.0.0.1 and opened in headless
// Chromium, where it imports an ONNX model (the onnx wheel's SqueezeNet) and plans it; the graph
// and the peak must be the native CLI's. Needs the network for `npm install vite` (the npm
// registry), Chromium, the CLI and the onnx wheel in .venv; skipped without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'target/release/peakorder');
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

function model() {
  const lib = join(ROOT, '.venv', 'lib');
  if (!existsSync(lib)) return null;
  for (const py of readdirSync(lib)) {
    const p = join(lib, py, 'site-packages/onnx/backend/test/data/light/light_squeezenet.onnx');
    if (existsSync(p)) return p;
  }
  return null;
}
const MODEL = model();
const skip = !chromium ? 'no Chromium' : !existsSync(CLI) ? 'no native CLI' : !MODEL ? 'no onnx wheel in .venv' : false;
const TYPES = { '.js': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm' };

test('a Vite app built on the packed tarball imports an ONNX model and plans it in Chromium', { skip, timeout: 600000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'peakorder-vite-'));
  try {
    const app = join(dir, 'app');
    cpSync(join(ROOT, 'tests/consumers/vite'), app, { recursive: true });
    mkdirSync(join(app, 'public'));
    cpSync(MODEL, join(app, 'public', 'model.onnx'));
    const tgz = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT }).toString().trim().split('\n').pop();
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', join(dir, tgz)], { cwd: app, stdio: 'inherit' });
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app, stdio: 'inherit' });
    execFileSync(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: app, stdio: 'inherit' });
    const dist = join(app, 'dist');
    const server = createServer(async (req, res) => {
      let path = normalize(join(dist, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
      if (path.endsWith('/')) path = join(path, 'index.html');
      if (!path.startsWith(dist)) return res.writeHead(403).end();
      try {
        const body = await readFile(path);
        res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${server.address().port}/`;
      const dom = await new Promise((ok, fail) => execFile(chromium, ['--headless', '--no-sandbox', '--disable-gpu',
        '--disable-dev-shm-usage', '--virtual-time-budget=30000', '--dump-dom', url], { timeout: 120000 },
      (e, out) => (e ? fail(e) : ok(out))));
      const m = dom.match(/<pre id="out">(.*?)<\/pre>/s);
      assert.ok(m, dom.slice(0, 500));
      const r = JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
      assert.equal(r.error, undefined, r.error);
      const g = JSON.parse(execFileSync(CLI, ['import', 'onnx', MODEL]));
      assert.equal(r.ops, g.ops.length);
      assert.equal(r.tensors, g.tensors.length);
      assert.equal(r.order, g.ops.length);
      assert.equal(r.sameLength, true);
    } finally {
      server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
