// ONNX in a real browser (headless Chromium, when installed; issue #31): initOnnx() fetches the
// ONNX module, and importOnnx gives, for each of the onnx wheel's nine light models, the native
// CLI's graph JSON byte for byte (SHA-256 and length compared); reorderOnnx keeps the length; bad
// files give the CLI's codes. Served from the repo by a server on 127.0.0.1 that this test runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { extname, join, normalize, relative } from 'node:path';
import { ROOT, CLI, haveCli } from './helpers.mjs';

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  .find((p) => existsSync(p));
const TYPES = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.cjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };

function lightModels() {
  const lib = join(ROOT, '.venv', 'lib');
  if (!existsSync(lib)) return [];
  for (const py of readdirSync(lib)) {
    const d = join(lib, py, 'site-packages', 'onnx', 'backend', 'test', 'data', 'light');
    if (existsSync(d)) return readdirSync(d).filter((f) => f.endsWith('.onnx')).sort().map((f) => join(d, f));
  }
  return [];
}
const MODELS = lightModels();
const skip = !chromium ? 'no Chromium installed' : !haveCli ? 'no native CLI' : MODELS.length === 0 ? 'no onnx wheel in .venv' : false;

test('importOnnx in Chromium gives the CLI\'s bytes for the nine light models', { skip, timeout: 180000 }, async () => {
  const server = createServer(async (req, res) => {
    const path = normalize(join(ROOT, decodeURIComponent(new URL(req.url, 'http://localhost').pathname)));
    if (!path.startsWith(ROOT)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(path);
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const rel = MODELS.map((p) => relative(ROOT, p));
    const q = rel.map((p) => `m=${encodeURIComponent(p)}`).join('&');
    const url = `http://127.0.0.1:${server.address().port}/tests/js/browser-onnx.html?${q}`;
    const dom = await new Promise((resolve, reject) => {
      execFile(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
        '--virtual-time-budget=60000', '--dump-dom', url], { timeout: 170000, maxBuffer: 1 << 24 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    const m = dom.match(/<pre id="out">(.*?)<\/pre>/s);
    assert.ok(m, `no result in the page: ${dom.slice(0, 500)}`);
    const r = JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
    assert.equal(r.error, undefined, r.error);
    assert.equal(r.before_init, 'not_initialized');
    assert.deepEqual(r.bad, ['bad_onnx', 'no_graph', 'empty_graph']);
    assert.equal(Object.keys(r.models).length, 9);
    for (const [i, p] of MODELS.entries()) {
      const got = r.models[rel[i]];
      assert.equal(got.code, undefined, `${p}: ${got.message}`);
      const cli = execFileSync(CLI, ['import', 'onnx', p], { maxBuffer: 1 << 30 });
      assert.equal(got.length, cli.length, p);
      assert.equal(got.sha256, createHash('sha256').update(cli).digest('hex'), p);
      assert.equal(got.reordered_length, got.length_in, p);
    }
  } finally {
    server.close();
  }
});
