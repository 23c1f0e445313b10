// peakorder for browsers and bundlers (ES module, wasm-bindgen `web` build).
// Call `await init()` once (it fetches peakorder_bg.wasm next to pkg/web/peakorder.js, or what
// you pass as {module_or_path}), or `initSync({module})` with compiled bytes; then every
// function is synchronous.
import wasmInit, * as wasm from '../pkg/web/peakorder.js';
// Results camelCase, errors' fields too; the snake_case names deprecated (js/names.mjs).
import { wrap } from './names.mjs';

let ready = false;
let loading = null;

function notReady() {
  const e = new Error('peakorder is not initialised: call `await init()` first');
  e.name = 'PeakorderError';
  e.code = 'not_initialized';
  return e;
}

function ensure(f) {
  return (...args) => {
    if (!ready) throw notReady();
    return f(...args);
  };
}

/** Loads the wasm once; later calls return the same promise. */
export default function init(options) {
  if (!loading) {
    loading = wasmInit(options).then(() => {
      ready = true;
    }, (e) => {
      loading = null;
      throw e;
    });
  }
  return loading;
}

export { init };

/** Instantiates from a compiled module or bytes: `initSync({module: bytes})`. */
export function initSync(options) {
  if (!ready) {
    wasm.initSync(options);
    ready = true;
  }
}

export const validate = ensure(wrap(wasm.validate));
export const plan = ensure(wrap(wasm.plan));
export const simulate = ensure(wrap(wasm.simulate));
export const compare = ensure(wrap(wasm.compare));
export const fuse = ensure(wrap(wasm.fuse));
export const layout = ensure(wrap(wasm.layout));
export const storages = ensure(wrap(wasm.storages));
export const version = ensure(wasm.version);

// ONNX (docs/wasm.md "ONNX"): a module of its own, peakorder_onnx_bg.wasm (146 KB gzipped), so
// that pages that only plan never fetch it. `await initOnnx()` once, then importOnnx and
// reorderOnnx are synchronous. initOnnx takes the same options as init.
import * as glue from './onnx-glue.mjs';

let onnxModule = null;
let onnxLoading = null;

export function initOnnx(options) {
  if (!onnxLoading) {
    onnxLoading = import('../pkg/web/peakorder_onnx.js').then(async (m) => {
      await m.default(options);
      onnxModule = m;
    }, (e) => {
      onnxLoading = null;
      throw e;
    });
  }
  return onnxLoading;
}

/** Instantiates the ONNX module from a compiled module or its bytes (a module namespace of
 * pkg/web/peakorder_onnx.js must be passed too, since ES modules cannot be loaded synchronously). */
export function initOnnxSync(mod, options) {
  if (!onnxModule) {
    mod.initSync(options);
    onnxModule = mod;
  }
}

const onnx = glue.make(() => {
  if (!onnxModule) {
    throw glue.fail('not_initialized', 'the ONNX module is not loaded: call `await initOnnx()` first');
  }
  return onnxModule;
});
export const importOnnx = onnx.importOnnx;
export const reorderOnnx = onnx.reorderOnnx;
