// peakorder for Node (ES modules): node.cjs's functions, so that both module systems share one
// module instance (and warn once per deprecated name, js/names.cjs).
import cjs from './node.cjs';

export const { validate, plan, simulate, compare, fuse, storages, layout, version } = cjs;
/** ONNX (docs/wasm.md "ONNX"); the importer's module loads on the first call. */
export const { importOnnx, reorderOnnx } = cjs;

/** Nothing to load in Node; kept so browser code (`await init()`) runs unchanged. */
export default function init() {
  return Promise.resolve();
}
export function initSync() {}
/** Nothing to load in Node (see init). */
export function initOnnx() {
  return Promise.resolve();
}
export { init };
