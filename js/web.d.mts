// Types of the browser entry point (web.mjs). The functions and every object type are generated
// by wasm-bindgen from wasm/src (lib.rs and types.rs).
export * from '../pkg/web/peakorder.js';
import type { InitInput, SyncInitInput } from '../pkg/web/peakorder.js';
/** Loads the wasm; call (and await) once before any other function. */
declare function init(
  options?: { module_or_path: InitInput | Promise<InitInput> },
): Promise<void>;
export default init;
export { init };
/** Instantiates synchronously from a compiled module or its bytes. */
export function initSync(options: { module: SyncInitInput }): void;
export * from './onnx-types.js';
/** Loads the ONNX module (peakorder_onnx_bg.wasm); await once before importOnnx/reorderOnnx. */
export function initOnnx(
  options?: { module_or_path: InitInput | Promise<InitInput> },
): Promise<void>;
/** Instantiates the ONNX module synchronously: pass pkg/web/peakorder_onnx.js's namespace. */
export function initOnnxSync(mod: unknown, options: { module: SyncInitInput }): void;
