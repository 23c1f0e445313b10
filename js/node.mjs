// peakorder for Node (ES modules): the same synchronous build as node.cjs.
import wasm from '../pkg/node/peakorder.js';

export const { validate, plan, simulate, compare, fuse, storages, layout, version } = wasm;

/** Nothing to load in Node; kept so browser code (`await init()`) runs unchanged. */
export default function init() {
  return Promise.resolve();
}
export function initSync() {}
export { init };
