// Builds the web bundle into www/dist/ (scripts/build.d/50-web.sh runs it after the wasm build):
//   peakorder-view.js  one self-contained ES module: the view (mount, render), the Web Worker
//                      source and the wasm planner (base64) inlined; nothing is fetched at run time
//   index.html         the static page (loads ./peakorder-view.js)
//   report.html        the template `peakorder report` fills in (native-gpu embeds it at build time)
// The wasm comes from the wasm-bindgen `web` build of wasm/ (see docs/wasm.md); set
// PEAKORDER_WASM_WEB_DIR to use another directory.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, writeFileSync, copyFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const dist = join(here, 'dist');

function findWasm() {
  // The package's browser entry (js/web.mjs: init + coded errors) over the wasm-bindgen `web`
  // build in pkg/web/ (scripts/build-wasm.sh), or another build's directory of glue + wasm.
  const dir = process.env.PEAKORDER_WASM_WEB_DIR;
  if (dir) {
    const d = resolve(root, dir);
    const glue = existsSync(d) && readdirSync(d).find((f) => f.endsWith('.js') && existsSync(join(d, f.replace(/\.js$/, '_bg.wasm'))));
    if (glue) return { glue: join(d, glue), wasm: join(d, glue.replace(/\.js$/, '_bg.wasm')) };
    fail(`PEAKORDER_WASM_WEB_DIR=${dir} holds no wasm-bindgen web build (X.js + X_bg.wasm)`);
  }
  const glue = join(root, 'js/web.mjs');
  const wasm = join(root, 'pkg/web/peakorder_bg.wasm');
  if (existsSync(glue) && existsSync(wasm)) return { glue, wasm };
  fail(`the wasm build was not found (${wasm}). Build it first: bash scripts/build.d/20-wasm.sh ` +
    '(after scripts/setup.d/20-wasm.sh), which scripts/test.sh runs before this step.');
}

function fail(msg) {
  console.error(`www/build.mjs: ${msg}`);
  process.exit(1);
}

const { glue, wasm } = findWasm();
const common = {
  bundle: true,
  // PEAKORDER_WEB_DEV=1: readable output (function names in browser profiles).
  minify: !process.env.PEAKORDER_WEB_DEV,
  target: 'es2020',
  legalComments: 'none',
  write: false,
  alias: { 'peakorder-wasm-web': glue },
  loader: { '.css': 'text', '.json': 'json' },
  // The glue's default wasm URL (import.meta.url) is never used: the bytes are always passed in.
  logOverride: { 'empty-import-meta': 'silent', 'import-is-undefined': 'silent' },
  absWorkingDir: root,
};

const worker = await build({ ...common, entryPoints: [join(here, 'src/worker.js')], format: 'iife' });
const workerSource = worker.outputFiles[0].text;
const wasmBase64 = readFileSync(wasm).toString('base64');

const virtual = {
  name: 'virtual',
  setup(b) {
    b.onResolve({ filter: /^virtual:/ }, (a) => ({ path: a.path, namespace: 'virtual' }));
    b.onLoad({ filter: /.*/, namespace: 'virtual' }, (a) => ({
      contents: `export default ${JSON.stringify(a.path === 'virtual:worker-source' ? workerSource : wasmBase64)};`,
      loader: 'js',
    }));
  },
};
const entry = { ...common, entryPoints: [join(here, 'src/index.js')], plugins: [virtual] };
const bundle = (await build({ ...entry, format: 'esm' })).outputFiles[0].text;
// The report inlines a classic-script build (global `peakorder`) into a <script> element, so it
// must not close the element or open an HTML comment there.
let inline = (await build({ ...entry, format: 'iife', globalName: 'peakorder' })).outputFiles[0].text;
inline = inline.replace(/<\/(script)/gi, '<\\/$1');
if (/<!--|<script/i.test(inline)) {
  console.error('www/build.mjs: the bundle contains "<!--" or "<script", which would break it inlined in HTML');
  process.exit(1);
}
const template = readFileSync(join(here, 'report.html'), 'utf8');
if (!template.includes('__PEAKORDER_BUNDLE__')) throw new Error('report.html lacks __PEAKORDER_BUNDLE__');

mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, 'peakorder-view.js'), bundle);
copyFileSync(join(here, 'index.html'), join(dist, 'index.html'));
// The ONNX module, fetched by the page when a model is opened (www/src/planner.js).
const onnxWasm = join(root, 'pkg/web/peakorder_onnx_bg.wasm');
if (existsSync(onnxWasm)) copyFileSync(onnxWasm, join(dist, 'peakorder_onnx_bg.wasm'));
else console.warn('www/build.mjs: pkg/web/peakorder_onnx_bg.wasm is missing; the page cannot open .onnx files');
writeFileSync(join(dist, 'report.html'), template.replace('__PEAKORDER_BUNDLE__', () => inline));
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`www/dist/peakorder-view.js ${kb(bundle.length)} (worker ${kb(workerSource.length)}, wasm ${wasm ? kb(readFileSync(wasm).length) : 'STAND-IN, no wasm'}) from ${glue}`);
