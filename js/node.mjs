// peakorder for Node (ES modules): the same synchronous build as node.cjs.
import wasm from '../pkg/node/peakorder.js';
import cjs from './node.cjs';

export const { validate, plan, simulate, compare, fuse, storages, layout, version } = wasm;
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
