'use strict';
// peakorder for Node (CommonJS). The wasm-bindgen `nodejs` build loads the .wasm synchronously
// on require, so every function works at once; `init` exists only so that code written for
// browsers (`await init()`) runs unchanged.
const wasm = require('../pkg/node/peakorder.js');

module.exports = {
  validate: wasm.validate,
  plan: wasm.plan,
  simulate: wasm.simulate,
  compare: wasm.compare,
  fuse: wasm.fuse,
  layout: wasm.layout,
  storages: wasm.storages,
  version: wasm.version,
  init: () => Promise.resolve(),
  initSync: () => {},
};
module.exports.default = module.exports.init;
