// The memory timeline (docs/web.md): one band per storage, stacked over the steps of an order,
// in the style of PyTorch's memory_viz active-memory timeline. A band starts at its producer's
// step, ends after its last user, and sits on the bands allocated before it (so the stack at
// every step is exactly the simulator's `during`). Every storage live at the order's peak has a
// band of its own, drawn in full colour (the rest faded); so do the largest others, up to
// MAX_BANDS; the smallest are merged into one "other" band on top, which says how many it holds.
// An op's workspace is a striped band during its step. In a schedule (an op may run again:
// docs/design.md §1 "Recomputation") each run of a producer makes its storage again: one band per
// instance, and those made by a second or later run are hatched, with the recomputing steps
// marked under the step axis. Drawn on a canvas (one fill per band); hover and selection are
// drawn on a second canvas over it, so they never redraw the bands.

import { lifetimes, liveInstancesAt } from './lifetimes.js';
import { byteTicks, stepTicks } from './chart.js';
import { formatBytes } from './format.js';

export const MAX_BANDS = 1500;
// Storages below this share of the peak go to "other" unless they are live at the peak.
const SMALL = 0.001;
const M = { left: 74, right: 16, top: 22, bottom: 26 };
// Categorical colours (Tableau 10 without its red, which marks what is live at the peak elsewhere).
const PALETTE = ['#4e79a7', '#f28e2b', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#86bcb6', '#a0cbe8', '#8cd17d', '#d4a6c8'];

/** A storage's colour, the same wherever it is drawn (the timeline, the arena). */
export function colorOf(id) {
  return PALETTE[hash(id) % PALETTE.length];
}

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * The bands of `order` (op indices; an op may repeat) whose simulation is `sim`. Returns {steps,
 * peakStep, bands, other, stepRun, recomputeSteps}: bands[i] = {kind: 'storage' | 'workspace',
 * tensor | op, id, bytes, start, end (steps, clipped to `steps`), run (which run of the producer
 * made it: 2 and up are recomputations), live (at the peak), input, xs, offs (offs[j] is the
 * band's bottom from step xs[j] on), color}; other = {count, bottom, height (Float64Array per
 * step), atStart}; stepRun (Int32Array: which run of its op each step is); recomputeSteps (the
 * steps whose run is 2 or more).
 */
export function buildBands(model, order, sim) {
  const life = lifetimes(model, order);
  const n = order.length;
  const peakStep = sim.peakStep === null || sim.peakStep === undefined ? -1 : sim.peakStep;
  const live = new Set(liveInstancesAt(model, life, peakStep));
  const T = model.tensors;
  const cand = [];
  const { inst } = life;
  for (let i = 0; i < inst.tensor.length; i++) {
    const t = inst.tensor[i];
    cand.push({
      kind: 'storage', tensor: t, bytes: T[t].bytes, start: inst.start[i], end: Math.min(n, inst.end[i]),
      run: inst.run[i], live: live.has(i), id: T[t].id, input: T[t].producer < 0,
    });
  }
  for (let j = 0; j < life.ws.op.length; j++) {
    const v = life.ws.op[j];
    const k = life.ws.step[j];
    cand.push({ kind: 'workspace', op: v, bytes: model.ops[v].workspace, start: k, end: k + 1, run: life.ws.run[j], live: k === peakStep, id: `workspace of ${model.ops[v].id}` });
  }
  // Own bands: everything at the peak, then the largest down to SMALL of the peak, up to MAX_BANDS.
  const floor = sim.peakBytes * SMALL;
  const own = cand.filter((b) => b.live);
  const rest = cand.filter((b) => !b.live).sort((a, b) => b.bytes - a.bytes);
  let k = 0;
  while (k < rest.length && own.length < MAX_BANDS && rest[k].bytes >= floor) own.push(rest[k++]);
  const merged = rest.slice(k);
  // Stack in allocation order (a step's workspace above its outputs), sweeping the steps.
  own.sort((a, b) => a.start - b.start || (a.kind === 'workspace') - (b.kind === 'workspace') || (a.tensor ?? a.op) - (b.tensor ?? b.op));
  const recomputeSteps = [];
  for (let k = 0; k < n; k++) if (life.stepRun[k] > 1) recomputeSteps.push(k);
  const startsAt = Array.from({ length: n + 1 }, () => []);
  const endsAt = Array.from({ length: n + 1 }, () => []);
  own.forEach((b, i) => {
    b.xs = [];
    b.offs = [];
    b.slot = -1;
    startsAt[b.start].push(i);
    endsAt[b.end].push(i);
  });
  let stack = [];
  for (let x = 0; x < n; x++) {
    let lowest = stack.length;
    if (endsAt[x].length) {
      const gone = new Set(endsAt[x]);
      const kept = [];
      for (let j = 0; j < stack.length; j++) {
        if (gone.has(stack[j])) lowest = Math.min(lowest, j);
        else kept.push(stack[j]);
      }
      stack = kept;
    }
    for (const i of startsAt[x]) stack.push(i);
    // Only bands above the lowest freed one move.
    let off = 0;
    if (lowest > 0 && lowest <= stack.length) {
      const below = own[stack[lowest - 1]];
      off = below.offs[below.offs.length - 1] + below.bytes;
    }
    for (let j = lowest; j < stack.length; j++) {
      const b = own[stack[j]];
      if (b.offs.length === 0 || b.offs[b.offs.length - 1] !== off) {
        b.xs.push(x);
        b.offs.push(off);
      }
      off += b.bytes;
    }
  }
  // "other": the merged storages' bytes per step (a difference array), on top of the stack.
  const diff = new Float64Array(n + 1);
  for (const b of merged) {
    diff[b.start] += b.bytes;
    diff[b.end] -= b.bytes;
  }
  const height = new Float64Array(n);
  const bottom = new Float64Array(n);
  let run = 0;
  for (let x = 0; x < n; x++) {
    run += diff[x];
    height[x] = run;
  }
  // The bottom of "other" is the own bands' total: another difference array.
  const ownDiff = new Float64Array(n + 1);
  for (const b of own) {
    ownDiff[b.start] += b.bytes;
    ownDiff[b.end] -= b.bytes;
  }
  run = 0;
  for (let x = 0; x < n; x++) {
    run += ownDiff[x];
    bottom[x] = run;
  }
  own.forEach((b) => {
    b.color = colorOf(b.id);
  });
  const atStart = merged.reduce((a, b) => a + (b.input ? b.bytes : 0), 0);
  return {
    steps: n, peakStep, peakBytes: sim.peakBytes, bands: own, other: { count: merged.length, bottom, height, atStart },
    stepRun: life.stepRun, recomputeSteps,
  };
}

/** Index of the band's stretch with a constant bottom that holds step x (live there). */
function segmentAt(b, x) {
  let lo = 0;
  let hi = b.xs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (b.xs[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The band's bottom at step x. */
function offsetAt(b, x) {
  return b.offs[segmentAt(b, x)];
}

let stripes = null;
/** The workspace's stripes (one pattern, made once). */
export function stripePattern(ctx) {
  if (stripes) return stripes;
  const c = document.createElement('canvas');
  c.width = 6;
  c.height = 6;
  const g = c.getContext('2d');
  g.fillStyle = '#98a2b3';
  g.fillRect(0, 0, 6, 6);
  g.strokeStyle = '#475467';
  g.lineWidth = 1.5;
  g.beginPath();
  g.moveTo(-1, 7);
  g.lineTo(7, -1);
  g.stroke();
  stripes = ctx.createPattern(c, 'repeat');
  return stripes;
}

/** The colour of recomputation (docs/web.md): steps that run an op again, and what they make. */
export const RECOMPUTE_COLOR = '#7a3fd1';

let hatch = null;
/** The hatch drawn over a band made again by a recomputation (one pattern, made once). */
export function recomputeHatch(ctx) {
  if (hatch) return hatch;
  const c = document.createElement('canvas');
  c.width = 8;
  c.height = 8;
  const g = c.getContext('2d');
  g.strokeStyle = RECOMPUTE_COLOR;
  g.lineWidth = 2;
  g.beginPath();
  g.moveTo(-2, 2);
  g.lineTo(2, -2);
  g.moveTo(0, 8);
  g.lineTo(8, 0);
  g.moveTo(6, 10);
  g.lineTo(10, 6);
  g.stroke();
  hatch = ctx.createPattern(c, 'repeat');
  return hatch;
}

/**
 * Draws the timeline of `data` (buildBands) into `host`. `max` is the byte scale shared by the
 * timelines shown together; `label` names the order; `width` the host's (read once by the
 * caller, so that drawing never waits for a layout); `hover(band|'other'|null, step, ev)` and
 * `click(band)` report the pointer. Returns {bandsAt(step), select(tensor|null), cursor(step|null),
 * canvas}.
 */
export function drawTimeline(host, data, { max, label, height = 240, hover, click, order, width: given }) {
  host.textContent = '';
  const width = Math.max(320, given || host.clientWidth || 800);
  const dpr = window.devicePixelRatio || 1;
  const wrap = document.createElement('div');
  wrap.className = 'po-timeline-wrap';
  wrap.style.height = `${height}px`;
  const make = (cls) => {
    const c = document.createElement('canvas');
    c.className = cls;
    c.width = Math.ceil(width * dpr);
    c.height = Math.ceil(height * dpr);
    c.style.width = `${width}px`;
    c.style.height = `${height}px`;
    wrap.appendChild(c);
    const ctx = c.getContext('2d');
    ctx.scale(dpr, dpr);
    return [c, ctx];
  };
  const [canvas, ctx] = make('po-timeline-canvas');
  const [over, octx] = make('po-timeline-over');
  host.appendChild(wrap);
  const n = data.steps;
  const pw = width - M.left - M.right;
  const ph = height - M.top - M.bottom;
  const top = max > 0 ? max : 1;
  const X = (s) => M.left + (n ? (s / n) * pw : 0);
  const Y = (b) => M.top + ph - (b / top) * ph;
  canvas.dataset.steps = String(n);
  canvas.dataset.bands = String(data.bands.length);
  canvas.dataset.other = String(data.other.count);
  const recomputed = data.bands.filter((b) => b.run > 1);
  canvas.dataset.recomputeSteps = String(data.recomputeSteps.length);
  canvas.dataset.recomputedBands = String(recomputed.length);

  // Axes.
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = '#667085';
  ctx.strokeStyle = '#eef0f3';
  ctx.lineWidth = 1;
  ctx.textAlign = 'right';
  for (const { v, label: tick } of byteTicks(top / 1.05)) {
    ctx.beginPath();
    ctx.moveTo(M.left, Math.round(Y(v)) + 0.5);
    ctx.lineTo(M.left + pw, Math.round(Y(v)) + 0.5);
    ctx.stroke();
    ctx.fillText(tick, M.left - 6, Y(v) + 4);
  }
  ctx.textAlign = 'center';
  for (const t of stepTicks(n)) ctx.fillText(String(t), X(t), M.top + ph + 15);

  // Bands: faded unless live at the peak. Painted as one rectangle per stretch of constant
  // bottom, with x snapped to whole pixels (stretches that fall inside one pixel give it to the
  // last of them), so that thousands of bands paint quickly and leave no seams between their
  // stretches; the outline of a hovered or selected band is a path, made when needed.
  const paint = (c, b) => {
    const xs = b.xs;
    const offs = b.offs;
    const h = b.bytes;
    let x0 = Math.round(X(xs[0]));
    for (let j = 0; j < xs.length; j++) {
      const x1 = Math.round(X(j + 1 < xs.length ? xs[j + 1] : b.end));
      if (x1 > x0) {
        const yt = Y(offs[j] + h);
        c.fillRect(x0, yt, x1 - x0, Y(offs[j]) - yt);
        x0 = x1;
      }
    }
  };
  const outlineOf = (b) => {
    const p = new Path2D();
    const xs = b.xs;
    const offs = b.offs;
    for (let j = 0; j < xs.length; j++) {
      const x0 = X(xs[j]);
      const x1 = X(j + 1 < xs.length ? xs[j + 1] : b.end);
      if (j === 0) p.moveTo(x0, Y(offs[j]));
      else p.lineTo(x0, Y(offs[j]));
      p.lineTo(x1, Y(offs[j]));
    }
    for (let j = xs.length - 1; j >= 0; j--) {
      const x0 = X(xs[j]);
      const x1 = X(j + 1 < xs.length ? xs[j + 1] : b.end);
      p.lineTo(x1, Y(offs[j] + b.bytes));
      p.lineTo(x0, Y(offs[j] + b.bytes));
    }
    p.closePath();
    return p;
  };
  const outlines = new Map();
  const pathOf = (i) => {
    if (!outlines.has(i)) outlines.set(i, outlineOf(data.bands[i]));
    return outlines.get(i);
  };
  for (const pass of [false, true]) {
    ctx.globalAlpha = pass ? 1 : 0.3;
    for (const b of data.bands) {
      if (b.live !== pass) continue;
      ctx.fillStyle = b.kind === 'workspace' ? stripePattern(ctx) : b.color;
      paint(ctx, b);
    }
  }
  ctx.globalAlpha = 1;
  // What a recomputation made again: hatched over its colour.
  if (recomputed.length) {
    ctx.fillStyle = recomputeHatch(ctx);
    for (const b of recomputed) paint(ctx, b);
  }
  // "other" on top of the own bands.
  const o = data.other;
  let otherPath = null;
  const otherOutline = () => {
    if (otherPath || !o.count) return otherPath;
    otherPath = new Path2D();
    otherPath.moveTo(X(0), Y(o.bottom[0]));
    for (let x = 0; x < n; x++) {
      otherPath.lineTo(X(x), Y(o.bottom[x]));
      otherPath.lineTo(X(x + 1), Y(o.bottom[x]));
    }
    for (let x = n - 1; x >= 0; x--) {
      otherPath.lineTo(X(x + 1), Y(o.bottom[x] + o.height[x]));
      otherPath.lineTo(X(x), Y(o.bottom[x] + o.height[x]));
    }
    otherPath.closePath();
    return otherPath;
  };
  if (o.count) {
    ctx.fillStyle = '#d0d5dd';
    let x0 = Math.round(X(0));
    for (let x = 0; x < n; x++) {
      const x1 = Math.round(X(x + 1));
      if (x1 > x0 && o.height[x] > 0) {
        const yt = Y(o.bottom[x] + o.height[x]);
        ctx.fillRect(x0, yt, x1 - x0, Y(o.bottom[x]) - yt);
      }
      if (x1 > x0) x0 = x1;
    }
  }
  // Axes lines, the peak line and the title.
  ctx.strokeStyle = '#98a2b3';
  ctx.beginPath();
  ctx.moveTo(M.left + 0.5, M.top);
  ctx.lineTo(M.left + 0.5, M.top + ph + 0.5);
  ctx.lineTo(M.left + pw, M.top + ph + 0.5);
  ctx.stroke();
  // The steps that recompute: a mark under the step axis, at least a pixel wide.
  if (data.recomputeSteps.length) {
    ctx.fillStyle = RECOMPUTE_COLOR;
    for (const k of data.recomputeSteps) {
      const x0 = Math.floor(X(k));
      ctx.fillRect(x0, M.top + ph + 1, Math.max(1, Math.round(X(k + 1)) - x0), 4);
    }
  }
  const px = data.peakStep < 0 ? X(0) : X(data.peakStep + 0.5);
  ctx.strokeStyle = '#1d2430';
  ctx.setLineDash([4, 3]);
  ctx.beginPath();
  ctx.moveTo(px, M.top - 4);
  ctx.lineTo(px, M.top + ph);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = '#1d2430';
  ctx.font = '600 12px system-ui, sans-serif';
  const peakText = `peak ${formatBytes(data.peakBytes)}${data.peakStep < 0 ? ' at the start' : ` at step ${data.peakStep + 1}`}`;
  ctx.textAlign = px > M.left + pw * 0.7 ? 'right' : 'left';
  ctx.fillText(peakText, px + (ctx.textAlign === 'right' ? -6 : 6), M.top - 8);
  ctx.textAlign = 'left';
  ctx.fillText(label, M.left + 4, M.top - 8);

  // Hit testing: the band under (step, bytes).
  const hitAt = (ev) => {
    const r = over.getBoundingClientRect();
    const mx = ev.clientX - r.left;
    const my = ev.clientY - r.top;
    if (mx < M.left || mx > M.left + pw || my < M.top || my > M.top + ph || !n) return null;
    const step = Math.min(n - 1, Math.floor(((mx - M.left) / pw) * n));
    const b = ((M.top + ph - my) / ph) * top;
    for (let i = 0; i < data.bands.length; i++) {
      const band = data.bands[i];
      if (band.start > step || band.end <= step) continue;
      const off = offsetAt(band, step);
      if (b >= off && b < off + band.bytes) return { step, band: i };
    }
    if (o.count && b >= o.bottom[step] && b < o.bottom[step] + o.height[step]) return { step, band: 'other' };
    return { step, band: null };
  };
  let hovered = null;
  let selected = null;
  let cursorStep = null;
  const redrawOver = () => {
    octx.clearRect(0, 0, width, height);
    const outline = (i, color, w) => {
      octx.strokeStyle = color;
      octx.lineWidth = w;
      octx.stroke(pathOf(i));
    };
    for (const i of selected || []) {
      octx.globalAlpha = 0.95;
      octx.fillStyle = data.bands[i].color;
      paint(octx, data.bands[i]);
      octx.globalAlpha = 1;
      outline(i, '#000', 2);
    }
    if (hovered !== null && hovered !== 'other') outline(hovered, '#1d2430', 1.5);
    if (hovered === 'other' && o.count) {
      octx.strokeStyle = '#1d2430';
      octx.lineWidth = 1.5;
      octx.stroke(otherOutline());
    }
    if (cursorStep !== null) {
      octx.strokeStyle = '#475467';
      octx.setLineDash([2, 3]);
      octx.beginPath();
      octx.moveTo(X(cursorStep + 0.5), M.top);
      octx.lineTo(X(cursorStep + 0.5), M.top + ph);
      octx.stroke();
      octx.setLineDash([]);
    }
  };
  over.addEventListener('mousemove', (ev) => {
    const h = hitAt(ev);
    const now = h ? h.band : null;
    if (now !== hovered) {
      hovered = now;
      redrawOver();
    }
    over.style.cursor = typeof now === 'number' ? 'pointer' : 'default';
    if (hover) hover(h && h.band !== null ? (h.band === 'other' ? 'other' : data.bands[h.band]) : null, h ? h.step : null, ev);
  });
  over.addEventListener('mouseleave', () => {
    hovered = null;
    redrawOver();
    if (hover) hover(null, null);
  });
  over.addEventListener('click', (ev) => {
    const h = hitAt(ev);
    if (click && h && typeof h.band === 'number') click(data.bands[h.band]);
  });

  // A storage's bands: one per instance (several when it is recomputed).
  const byTensor = new Map();
  data.bands.forEach((b, i) => {
    if (b.kind !== 'storage') return;
    if (!byTensor.has(b.tensor)) byTensor.set(b.tensor, []);
    byTensor.get(b.tensor).push(i);
  });
  return {
    canvas: over,
    /**
     * Own bands live at `step` (-1: the start), bottom to top: id, bytes, bottom (bytes), y0..y1
     * (their pixel rows there), x (the step's middle), x0..x1 (the stretch where the band keeps
     * that bottom); and "other" {count, bytes}.
     */
    bandsAt(step) {
      const out = [];
      const at = Math.max(0, step);
      data.bands.forEach((b, i) => {
        if (step < 0 ? !b.input : b.start > step || step >= b.end) return;
        const j = segmentAt(b, at);
        const off = b.offs[j];
        // x0..x1: where the band keeps this bottom (a flat stretch around the step), in pixels.
        out.push({
          index: i, kind: b.kind, id: b.id, bytes: b.bytes, bottom: off, run: b.run,
          y0: Y(off + b.bytes), y1: Y(off), x: X(at + 0.5), x0: X(b.xs[j]), x1: X(j + 1 < b.xs.length ? b.xs[j + 1] : b.end), color: b.color,
        });
      });
      out.sort((a, b) => a.bottom - b.bottom);
      const bytes = step < 0 ? o.atStart : o.count && n ? o.height[at] : 0;
      return { bands: out, other: { count: o.count, bytes } };
    },
    select(tensor) {
      selected = tensor === null || tensor === undefined ? null : byTensor.get(tensor) ?? null;
      redrawOver();
      return selected !== null;
    },
    /** The steps that run an op again (its second or later run). */
    recomputeSteps: () => data.recomputeSteps,
    cursor(step) {
      cursorStep = step;
      redrawOver();
    },
    /** The selected band's tensor id, or null. */
    selected: () => (selected === null ? null : data.bands[selected[0]].id),
    order,
  };
}
