// peakorder for browsers and bundlers (ES module, wasm-bindgen `web` build).
// Call `await init()` once (it fetches peakorder_bg.wasm next to pkg/web/peakorder.js, or what
// you pass as {module_or_path}), or `initSync({module})` with compiled bytes; then every
// function is synchronous.
import wasmInit, * as wasm from '../pkg/web/peakorder.js';

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

export const validate = ensure(wasm.validate);
export const plan = ensure(wasm.plan);
export const simulate = ensure(wasm.simulate);
export const compare = ensure(wasm.compare);
export const fuse = ensure(wasm.fuse);
export const layout = ensure(wasm.layout);
export const storages = ensure(wasm.storages);
export const version = ensure(wasm.version);
