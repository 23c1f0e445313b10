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
