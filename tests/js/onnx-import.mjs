// `node tests/js/onnx-import.mjs MODEL.onnx...`: the npm package's importOnnx on each file, one
// JSON line per file: {"text": graph JSON text} or {"code", "message"} (python/tests use it to
// compare the CLI, Python and Node on the same models).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { importOnnx } from 'peakorder';

for (const path of process.argv.slice(2)) {
  let line;
  try {
    line = { text: importOnnx(readFileSync(path), { format: 'text', name: basename(path) }) };
  } catch (e) {
    line = { code: e.code, message: e.message };
  }
  process.stdout.write(JSON.stringify(line) + '\n');
}
