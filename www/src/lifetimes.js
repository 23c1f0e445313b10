// When each storage is live in an order or a schedule: the memory timeline's bands (docs/web.md).
// This reads the core's tables (wasm `storages()`: sizes, pinned flags, the ops that keep each
// storage alive) and applies docs/design.md §1 step by step, "Recomputation" included;
// tests/browser/lifetimes.test.mjs checks it against the core's simulator on thousands of random
// graphs, orders and schedules (stack heights = `during` and `after` at every step, live set at
// the peak = `live_at_peak`).
//
// Steps are half-open intervals on the x axis: op k of the order runs over [k, k + 1). A storage
// instance is live over [start, end): from its producer's step (0 for a graph input, live at the
// start) to the step after its last use before its producer runs again (the step after it is
// made when nothing reads it before then); `end` is `steps + 1` for an instance that is never
// freed (it outlives the last step; drawings clip it at `steps`). In an order every storage has
// one instance; in a schedule, each run of its producer makes a new one.

import { usersOf } from './model.js';

/**
 * Lifetimes of every storage in `order` (op indices; an op may repeat). Returns
 * - `inst`: every storage instance, {tensor, start, end, run} (Int32Arrays; `run` is which run
 *   of the producer made it, 1 for the first and for graph inputs), in the order they are made;
 * - `ws`: every workspace, {op, step, run} (Int32Arrays), one per run of an op with workspace;
 * - `stepRun` (Int32Array per step): which run of its op each step is (1: the first);
 * - `start`, `end` (Int32Array per tensor; -1 for tensors that own no bytes, such as views) and
 *   `wsStart` (Int32Array per op; -1 without workspace): the first instance, which in an order
 *   is the only one.
 */
export function lifetimes(model, order) {
  const n = order.length;
  const T = model.tensors;
  const nOps = model.ops.length;
  // The storages each op keeps alive (reads), from the core's users table.
  const readsStart = new Int32Array(nOps + 1);
  for (let t = 0; t < T.length; t++) for (const u of usersOf(model, t)) readsStart[u + 1] += 1;
  for (let v = 0; v < nOps; v++) readsStart[v + 1] += readsStart[v];
  const reads = new Int32Array(readsStart[nOps]);
  const fill = readsStart.slice(0, nOps);
  for (let t = 0; t < T.length; t++) for (const u of usersOf(model, t)) reads[fill[u]++] = t;

  const iTensor = [];
  const iStart = [];
  const iEnd = [];
  const iRun = [];
  const lastRead = [];
  // The open instance of each storage (-1: none yet).
  const cur = new Int32Array(T.length).fill(-1);
  const open = (t, k, run) => {
    cur[t] = iTensor.length;
    iTensor.push(t);
    iStart.push(k);
    iEnd.push(-1);
    iRun.push(run);
    lastRead.push(-1);
  };
  // Freed after its last read, or right after it is made when nothing read it.
  const close = (i) => {
    iEnd[i] = lastRead[i] >= 0 ? lastRead[i] + 1 : iStart[i] + 1;
  };
  for (let t = 0; t < T.length; t++) if (T[t].bytes > 0 && T[t].producer < 0) open(t, 0, 1);
  const runs = new Int32Array(nOps);
  const stepRun = new Int32Array(n);
  const wsOp = [];
  const wsStep = [];
  const wsRun = [];
  for (let k = 0; k < n; k++) {
    const v = order[k];
    const run = (runs[v] += 1);
    stepRun[k] = run;
    for (let j = readsStart[v]; j < readsStart[v + 1]; j++) {
      const i = cur[reads[j]];
      if (i >= 0) lastRead[i] = k;
    }
    for (const t of model.ops[v].outputs) {
      if (!(T[t].bytes > 0) || T[t].producer !== v) continue;
      if (cur[t] >= 0) close(cur[t]);
      open(t, k, run);
    }
    if (model.ops[v].workspace > 0) {
      wsOp.push(v);
      wsStep.push(k);
      wsRun.push(run);
    }
  }
  // The last instances: a pinned one (a graph output, an input the caller keeps) and an unread
  // graph input are never freed.
  for (let t = 0; t < T.length; t++) {
    const i = cur[t];
    if (i < 0) continue;
    if (T[t].pinned || (T[t].producer < 0 && lastRead[i] < 0)) iEnd[i] = n + 1;
    else close(i);
  }
  const start = new Int32Array(T.length).fill(-1);
  const end = new Int32Array(T.length).fill(-1);
  for (let i = iTensor.length - 1; i >= 0; i--) {
    start[iTensor[i]] = iStart[i];
    end[iTensor[i]] = iEnd[i];
  }
  const wsStart = new Int32Array(nOps).fill(-1);
  for (let j = wsOp.length - 1; j >= 0; j--) wsStart[wsOp[j]] = wsStep[j];
  return {
    start,
    end,
    wsStart,
    steps: n,
    stepRun,
    inst: { tensor: Int32Array.from(iTensor), start: Int32Array.from(iStart), end: Int32Array.from(iEnd), run: Int32Array.from(iRun) },
    ws: { op: Int32Array.from(wsOp), step: Int32Array.from(wsStep), run: Int32Array.from(wsRun) },
  };
}

/** The instances (indices into `life.inst`) live while step `k` runs (the running op's outputs
 * included); `k` null or -1: at the start. */
export function liveInstancesAt(model, life, k) {
  const out = [];
  const { tensor, start, end } = life.inst;
  for (let i = 0; i < tensor.length; i++) {
    if (k === null || k < 0) {
      if (model.tensors[tensor[i]].producer < 0) out.push(i);
    } else if (start[i] <= k && k < end[i]) out.push(i);
  }
  return out;
}

/** Storages live while step `k` runs (the running op's outputs included), as tensor indices in
 * tensor order; `k` null or -1: at the start. The simulator's `live_at_peak` is this set at its
 * peak step. A storage has at most one instance live at a time. */
export function liveAt(model, life, k) {
  return liveInstancesAt(model, life, k).map((i) => life.inst.tensor[i]).sort((a, b) => a - b);
}
