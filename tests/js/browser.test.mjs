// The web build in a real browser (headless Chromium, when installed): init() fetches the .wasm,
// the seed graph plans to 3.5 MiB, a cycle throws code "cycle", the module stays usable. The page
// is served from the repo by a server on 127.0.0.1 that this test starts and stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { ROOT } from './helpers.mjs';

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  .find((p) => existsSync(p));

const TYPES = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };

test('the web build works in headless Chromium', { skip: chromium ? false : 'no Chromium installed', timeout: 120000 }, async () => {
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
    const url = `http://127.0.0.1:${server.address().port}/tests/js/browser.html`;
    const dom = await new Promise((resolve, reject) => {
      execFile(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
        '--virtual-time-budget=20000', '--dump-dom', url], { timeout: 90000, maxBuffer: 1 << 24 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    const m = dom.match(/<pre id="out">(.*?)<\/pre>/s);
    assert.ok(m, `no result in the page: ${dom.slice(0, 500)}`);
    const r = JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
    assert.equal(r.error, undefined, r.error);
    assert.equal(r.before_init, 'not_initialized');
    assert.equal(r.peak, 3670016);
    assert.equal(r.optimal, true);
    assert.equal(r.cycle, 'cycle');
    assert.equal(r.is_error, true);
    assert.equal(r.after_error, 3670016);
    assert.equal(r.during, 'Float64Array:40');
    assert.ok(r.methods >= 2);
    assert.equal(r.fuse_before_init, 'not_initialized');
    assert.equal(r.fused, '12->11:8:true', 'fuse in the web build');
    assert.equal(r.fuse_limit, 'peak_limit');
  } finally {
    server.close();
  }
});
