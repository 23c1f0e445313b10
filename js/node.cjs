'use strict';
// peakorder for Node (CommonJS). The wasm-bindgen `nodejs` build loads the .wasm synchronously
// on require, so every function works at once; `init` exists only so that code written for
// browsers (`await init()`) runs unchanged. The ONNX module (peakorder_onnx_bg.wasm) is loaded
// on the first importOnnx/reorderOnnx call.
const wasm = require('../pkg/node/peakorder.js');
// Results camelCase, errors' fields too; the snake_case names deprecated (js/names.cjs).
const { wrap } = require('./names.cjs');
let onnxModule = null;
const onnx = require('./onnx-glue.cjs').make(
  () => onnxModule || (onnxModule = require('../pkg/node/peakorder_onnx.js')),
);

module.exports = {
  validate: wrap(wasm.validate),
  plan: wrap(wasm.plan),
  simulate: wrap(wasm.simulate),
  compare: wrap(wasm.compare),
  fuse: wrap(wasm.fuse),
  layout: wrap(wasm.layout),
  storages: wrap(wasm.storages),
  version: wasm.version,
  importOnnx: onnx.importOnnx,
  reorderOnnx: onnx.reorderOnnx,
  init: () => Promise.resolve(),
  initOnnx: () => Promise.resolve(),
  initSync: () => {},
};
module.exports.default = module.exports.init;
