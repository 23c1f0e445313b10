// ONNX in Node (docs/wasm.md "ONNX"): importOnnx gives the native CLI's graph JSON byte for
// byte on every model the onnx wheel ships (or the CLI's error, with a coded PeakorderError);
// reorderOnnx writes a plan's order into the model and changes nothing else; bad options and
// orders are coded errors naming what is wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createRequire } from 'node:module';
import { importOnnx, reorderOnnx, plan } from 'peakorder';
import { ROOT, CLI, haveCli, assertThrowsCode } from './helpers.mjs';

/** The onnx wheel's test data in the repository's .venv (scripts/setup.d/50-python.sh). */
function wheelModels() {
  const lib = join(ROOT, '.venv', 'lib');
  if (!existsSync(lib)) return [];
  for (const py of readdirSync(lib)) {
    const data = join(lib, py, 'site-packages', 'onnx', 'backend', 'test', 'data');
    if (!existsSync(data)) continue;
    const out = [];
    const walk = (d) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.onnx')) out.push(p);
      }
    };
    walk(data);
    return out.sort();
  }
  return [];
}

const MODELS = wheelModels();
const LIGHT = MODELS.filter((p) => basename(p).startsWith('light_'));

/** Every code an ONNX error may carry (onnx/src/error.rs Error::code). */
const ONNX_CODES = new Set([
  'bad_onnx', 'no_graph', 'empty_graph', 'unknown_domain', 'unnamed_initializer',
  'produced_twice', 'initializer_produced', 'unknown_input', 'unknown_output', 'not_a_tensor',
  'bad_elem_type', 'negative_dim', 'size_overflow', 'invalid_node', 'shape_mismatch',
  'no_shape', 'symbolic_dim', 'external_data', 'invalid_graph',
]);

/** The CLI's answer: {text} or {message} (stderr less `peakorder: PATH: `). */
function cliImport(path) {
  const r = spawnSync(CLI, ['import', 'onnx', path], { maxBuffer: 1 << 30 });
  if (r.status === 0) return { text: r.stdout.toString() };
  assert.equal(r.status, 2, r.stderr.toString());
  const prefix = `peakorder: ${path}: `;
  const err = r.stderr.toString();
  assert.ok(err.startsWith(prefix), err);
  return { message: err.slice(prefix.length).replace(/\n$/, '') };
}

function jsImport(path) {
  try {
    return { text: importOnnx(readFileSync(path), { format: 'text', name: basename(path) }) + '\n' };
  } catch (e) {
    assert.equal(e.name, 'PeakorderError');
    assert.ok(ONNX_CODES.has(e.code), `code ${e.code}: ${e.message}`);
    return { message: e.message, code: e.code };
  }
}

test('the nine light models import as the CLI writes them, byte for byte', { skip: !haveCli || LIGHT.length === 0 }, () => {
  assert.equal(LIGHT.length, 9);
  for (const p of LIGHT) {
    const js = jsImport(p);
    assert.ok(js.text, `${p}: ${js.message}`);
    assert.equal(js.text, cliImport(p).text, p);
  }
});

test('every model the onnx wheel ships: the CLI\'s bytes or the CLI\'s error', { skip: !haveCli || MODELS.length === 0 }, (t) => {
  let same = 0;
  let errors = 0;
  for (const p of MODELS) {
    const js = jsImport(p);
    const cli = cliImport(p);
    if (cli.text !== undefined) {
      assert.equal(js.text, cli.text, p);
      same++;
    } else {
      assert.equal(js.message, cli.message, p);
      errors++;
    }
  }
  t.diagnostic(`${MODELS.length} models: ${same} graphs identical, ${errors} errors identical`);
});

test('the graph object is the text parsed; assumeDims and name as the CLI\'s flags', { skip: LIGHT.length === 0 }, () => {
  const bytes = readFileSync(LIGHT[0]);
  const g = importOnnx(bytes);
  assert.deepEqual(g, JSON.parse(importOnnx(bytes, { format: 'text' })));
  assert.equal(g.meta.model, undefined);
  assert.equal(importOnnx(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), { name: 'm.onnx' }).meta.model, 'm.onnx');
  assert.ok(plan(g, { method: 'greedy' }).peakBytes > 0);
});

test('bad files: coded errors with the CLI\'s message', { skip: !haveCli }, () => {
  const cases = [
    [Buffer.from('not a model at all'), 'bad_onnx'],
    [Buffer.from([0x08, 0x07]), 'no_graph'], // ir_version only
    [Buffer.from([0x3a, 0x00]), 'empty_graph'],
  ];
  for (const [bytes, code] of cases) {
    const e = assertThrowsCode(() => importOnnx(bytes), code);
    const path = join(mkdtempSync(join(tmpdir(), 'peakorder-onnx-')), 'bad.onnx');
    writeFileSync(path, bytes);
    assert.equal(cliImport(path).message, e.message);
  }
  assertThrowsCode(() => importOnnx('text'), 'invalid_argument');
  assertThrowsCode(() => importOnnx(new Uint8Array(0)), 'no_graph');
});

test('options: camelCase only, unknown keys and bad values refused by name', { skip: LIGHT.length === 0 }, () => {
  const b = readFileSync(LIGHT[0]);
  assertThrowsCode(() => importOnnx(b, { assume_dims: { N: 1 } }), 'invalid_argument', 'assumeDims');
  assertThrowsCode(() => importOnnx(b, { budgetMs: 1 }), 'invalid_argument', 'budgetMs');
  assertThrowsCode(() => importOnnx(b, { assumeDims: { N: -1 } }), 'invalid_argument', 'assumeDims.N');
  assertThrowsCode(() => importOnnx(b, { format: 'xml' }), 'invalid_argument', 'format');
  assertThrowsCode(() => importOnnx(b, []), 'invalid_argument');
  const cyclic = {};
  cyclic.self = cyclic;
  assertThrowsCode(() => importOnnx(b, cyclic), 'invalid_argument');
});

test('reorderOnnx: the plan\'s order in the file, same length, the rest unchanged', { skip: LIGHT.length === 0 }, () => {
  for (const p of LIGHT) {
    const bytes = readFileSync(p);
    const g = importOnnx(bytes);
    const program = g.ops.map((o) => o.id);
    assert.deepEqual(Buffer.from(reorderOnnx(bytes, program)), bytes, `${p}: identity`);
    const pl = plan(g, { method: 'greedy' });
    const out = reorderOnnx(bytes, pl);
    assert.ok(out instanceof Uint8Array);
    assert.equal(out.length, bytes.length);
    const again = importOnnx(out);
    // Unnamed nodes get positional ids (`Conv_3`), so the reimported ids of moved unnamed nodes
    // differ: an op is known by what it does (docs/wasm.md "ONNX").
    const body = ({ id, ...rest }) => JSON.stringify(rest);
    const byId = Object.fromEntries(g.ops.map((o) => [o.id, o]));
    assert.deepEqual(again.ops.map(body), pl.order.map((id) => body(byId[id])), p);
    // Tensors are listed inputs, initializers, then node outputs in node order.
    const sorted = (ts) => [...ts].sort((a, b) => (a.id < b.id ? -1 : 1));
    assert.deepEqual(sorted(again.tensors), sorted(g.tensors));
    const againId = new Map(again.ops.map((o) => [body(o), o.id]));
    const back = g.ops.map((o) => againId.get(body(o)));
    assert.deepEqual(Buffer.from(reorderOnnx(out, back)), bytes, `${p}: and back`);
  }
});

test('reorderOnnx: bad orders name the node', { skip: LIGHT.length === 0 }, () => {
  const bytes = readFileSync(LIGHT.find((p) => p.includes('squeezenet')) || LIGHT[0]);
  const ids = importOnnx(bytes).ops.map((o) => o.id);
  const e = assertThrowsCode(() => reorderOnnx(bytes, [...ids].reverse()), 'not_topological');
  assert.equal(e.op, ids[ids.length - 1]);
  assertThrowsCode(() => reorderOnnx(bytes, ids.slice(1)), 'missing_op', ids[0]);
  assertThrowsCode(() => reorderOnnx(bytes, [...ids, ids[0]]), 'repeated_op', ids[0]);
  assertThrowsCode(() => reorderOnnx(bytes, ['nope', ...ids.slice(1)]), 'unknown_op', 'nope');
  assertThrowsCode(() => reorderOnnx(bytes, { steps: [] }), 'invalid_argument');
  assertThrowsCode(() => reorderOnnx(bytes, [1, 2]), 'invalid_argument');
  assertThrowsCode(() => reorderOnnx(bytes.subarray(0, bytes.length - 10), ids), 'bad_onnx');
  // The module stays usable after errors.
  assert.equal(reorderOnnx(bytes, ids).length, bytes.length);
});

test('CommonJS require and the ESM copy of the glue agree', () => {
  const require = createRequire(import.meta.url);
  const cjs = require('peakorder');
  assert.equal(typeof cjs.importOnnx, 'function');
  assert.equal(typeof cjs.reorderOnnx, 'function');
  const strip = (s) => s.replace(/^'use strict';\n/, '').replace(/^\/\/.*\n/gm, '')
    .replace(/^export /gm, '').replace(/\n\nmodule\.exports = \{ make \};\n$/, "\n");
  assert.equal(strip(readFileSync(join(ROOT, 'js', 'onnx-glue.mjs'), 'utf8')),
    strip(readFileSync(join(ROOT, 'js', 'onnx-glue.cjs'), 'utf8')));
});
