// When each storage is live in an order: the memory timeline's bands (docs/web.md). This reads
// the core's tables (wasm `storages()`: sizes, pinned flags, the ops that keep each storage
// alive) and applies docs/design.md §1 step by step; tests/browser/lifetimes.test.mjs checks it
// against the core's simulator on thousands of random graphs (stack heights = `during` and
// `after` at every step, live set at the peak = `live_at_peak`).
//
// Steps are half-open intervals on the x axis: op k of the order runs over [k, k + 1). A storage
// is live over [start, end): from its producer's step (0 for a graph input, live at the start)
// to the step after its last user; `end` is `steps + 1` for a storage that is never freed (it
// outlives the last step; drawings clip it at `steps`).

import { usersOf } from './model.js';

/**
 * Lifetimes of every storage in `order` (op indices). Returns {start, end} (Int32Array per
 * tensor; -1 for tensors that own no bytes, such as views) and {wsStart} (Int32Array per op:
 * the step of its workspace, -1 when it has none).
 */
export function lifetimes(model, order) {
  const n = order.length;
  const pos = new Int32Array(model.ops.length).fill(-1);
  for (let k = 0; k < n; k++) pos[order[k]] = k;
  const T = model.tensors;
  const start = new Int32Array(T.length).fill(-1);
  const end = new Int32Array(T.length).fill(-1);
  for (let t = 0; t < T.length; t++) {
    if (!(T[t].bytes > 0)) continue;
    const p = T[t].producer;
    const s = p >= 0 ? pos[p] : 0;
    const users = usersOf(model, t);
    let e;
    if (T[t].pinned) e = n + 1;
    else if (users.length === 0) e = p >= 0 ? s + 1 : n + 1; // an unread graph input is never freed
    else {
      let last = -1;
      for (const u of users) if (pos[u] > last) last = pos[u];
      e = last + 1;
    }
    start[t] = s;
    end[t] = e;
  }
  const wsStart = new Int32Array(model.ops.length).fill(-1);
  model.ops.forEach((o, v) => { if (o.workspace > 0) wsStart[v] = pos[v]; });
  return { start, end, wsStart, steps: n };
}

/** Storages live while step `k` runs (the running op's outputs included), as tensor indices;
 * `k` null or -1: at the start. The simulator's `live_at_peak` is this set at its peak step. */
export function liveAt(model, life, k) {
  const out = [];
  const T = model.tensors;
  for (let t = 0; t < T.length; t++) {
    if (life.start[t] < 0) continue;
    if (k === null || k < 0) {
      if (T[t].producer < 0) out.push(t);
    } else if (life.start[t] <= k && k < life.end[t]) out.push(t);
  }
  return out;
}
