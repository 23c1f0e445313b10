// The page's side of the planner: one Web Worker per page, shared by every mounted view, fed
// with the wasm bytes that the bundle carries (base64), so the same code runs from a web server,
// from a file:// report and inside a notebook without fetching anything.

import workerSource from 'virtual:worker-source';
import wasmBase64 from 'virtual:wasm-base64';

let shared = null;
let onnxWasm = null; // the ONNX module's bytes, fetched once (a promise)

function wasmBytes() {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(wasmBase64);
  const bin = atob(wasmBase64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

class Planner {
  constructor() {
    this.next = 1;
    this.pending = new Map();
    this.mode = 'worker';
    this.sent = new Map(); // requests the worker has not answered, to replay in-page
    this.started = false;
    try {
      const url = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
      this.worker = new Worker(url);
      this.worker.onmessage = (ev) => {
        this.started = true;
        this.sent.delete(ev.data.id);
        this.settle(ev.data);
      };
      this.worker.onerror = (ev) => {
        // A worker refused before it ever answered (a Content-Security-Policy without blob:
        // in worker-src, as some notebook front ends set): plan in-page instead.
        if (!this.started) this.fallBack();
        else this.failAll(ev.message || 'the planner worker failed');
      };
    } catch {
      this.worker = null;
      this.mode = 'in-page';
    }
    this.ready = this.request({ type: 'init', wasm: wasmBytes() });
  }

  fallBack() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.mode = 'in-page';
    const replay = [...this.sent.values()];
    this.sent.clear();
    for (const msg of replay) this.runInPage(msg);
  }

  runInPage(msg) {
    import('./engine.js').then(async ({ handle }) => this.settle((await handle(msg))[0]));
  }

  settle(reply) {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (reply.ok) p.resolve(reply.result);
    else p.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
  }

  failAll(message) {
    for (const [id] of this.pending) this.settle({ id, ok: false, error: { message, code: 'worker' } });
  }

  request(msg, transfer = []) {
    const id = this.next++;
    const promise = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    const full = { ...msg, id };
    if (this.worker) {
      // Transferred buffers cannot be replayed in-page, so such requests are not kept for it.
      if (!transfer.length) this.sent.set(id, full);
      this.worker.postMessage(full, transfer);
    } else {
      this.runInPage(full);
    }
    return promise;
  }

  async analyze(graphText, options, fusion = false, given = null) {
    await this.ready;
    return this.request({ type: 'analyze', graph: graphText, options, fusion, given });
  }

  /** An ONNX model's graph JSON text, imported in the worker (its bytes are transferred). */
  async importOnnx(bytes, name) {
    if (!onnxWasm) {
      // The ONNX module is a file next to the bundle (www/dist/peakorder_onnx_bg.wasm), fetched
      // on the first model only: pages that never open one never load it. A classic-script
      // build (the inlined report) has no URL to fetch it from.
      const base = typeof import.meta !== 'undefined' ? import.meta.url : undefined;
      if (!base) {
        throw Object.assign(new Error('ONNX import is not available in this build of the view; import the model with `peakorder import onnx`'), { code: 'onnx_unavailable' });
      }
      onnxWasm = fetch(new URL('peakorder_onnx_bg.wasm', base)).then((r) => {
        if (!r.ok) throw Object.assign(new Error(`cannot load the ONNX module: HTTP ${r.status}`), { code: 'onnx_unavailable' });
        return r.arrayBuffer();
      }).catch((e) => {
        onnxWasm = null;
        throw e;
      });
    }
    const wasm = new Uint8Array(await onnxWasm);
    await this.ready;
    return this.request({ type: 'importOnnx', bytes, name, wasm }, [bytes.buffer]);
  }

  async fuse(graphText, options) {
    await this.ready;
    return this.request({ type: 'fuse', graph: graphText, options });
  }
}

/** The page's planner, started on first use. */
export function planner() {
  if (!shared) shared = new Planner();
  return shared;
}
