// The page's side of the planner: one Web Worker per page, shared by every mounted view, fed
// with the wasm bytes that the bundle carries (base64), so the same code runs from a web server,
// from a file:// report and inside a notebook without fetching anything.

import workerSource from 'virtual:worker-source';
import wasmBase64 from 'virtual:wasm-base64';

let shared = null;

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
    try {
      const url = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
      this.worker = new Worker(url);
      this.worker.onmessage = (ev) => this.settle(ev.data);
      this.worker.onerror = (ev) => this.failAll(ev.message || 'the planner worker failed');
    } catch {
      // A page whose Content-Security-Policy refuses blob: workers: plan in-page instead.
      this.worker = null;
      this.mode = 'in-page';
    }
    this.ready = this.request({ type: 'init', wasm: wasmBytes() });
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

  request(msg) {
    const id = this.next++;
    const promise = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    const full = { ...msg, id };
    if (this.worker) {
      this.worker.postMessage(full);
    } else {
      import('./engine.js').then(async ({ handle }) => this.settle((await handle(full))[0]));
    }
    return promise;
  }

  async analyze(graphText, options) {
    await this.ready;
    return this.request({ type: 'analyze', graph: graphText, options });
  }
}

/** The page's planner, started on first use. */
export function planner() {
  if (!shared) shared = new Planner();
  return shared;
}
