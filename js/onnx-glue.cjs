'use strict';
// The ONNX functions over a loaded peakorder_onnx module (wasm/ + onnx-wasm/; docs/wasm.md
// "ONNX"). The module checks the options and the order; this only converts JS values to what it
// takes, so that no JS exception unwinds through wasm frames.

function fail(code, message) {
  const e = new Error(message);
  e.name = 'PeakorderError';
  e.code = code;
  return e;
}

function bytesOf(b) {
  if (b instanceof Uint8Array) return b;
  if (b instanceof ArrayBuffer) return new Uint8Array(b);
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  throw fail('invalid_argument', 'the model must be a Uint8Array or an ArrayBuffer of its bytes');
}

function textOf(v, what) {
  if (typeof v === 'string') return v;
  let t;
  try {
    t = JSON.stringify(v);
  } catch (e) {
    throw fail('invalid_argument', `${what} cannot be converted to JSON: ${e && e.message}`);
  }
  if (t === undefined) throw fail('invalid_argument', `${what} cannot be converted to JSON`);
  return t;
}

function make(load) {
  return {
    importOnnx(bytes, options) {
      const m = load();
      const opts = options == null ? {} : options;
      if (typeof opts !== 'object' || Array.isArray(opts)) {
        throw fail('invalid_argument', 'options must be an object');
      }
      const text = m.importOnnxText(bytesOf(bytes), textOf(opts, 'options'));
      return opts.format === 'text' ? text : JSON.parse(text);
    },
    reorderOnnx(bytes, order) {
      const m = load();
      return m.reorderOnnx(bytesOf(bytes), textOf(order, 'order'));
    },
    fail,
  };
}

module.exports = { make };
