// Memory over time: a step chart of the program order and the planned order, overlaid, with
// each peak marked, the memory limit of a plan that has one as a line, and the steps of a
// schedule that recompute (an op's second or later run) shaded. SVG, redrawn on resize; one
// path per series (and one for the recomputing steps), so it stays fast at 5,000 ops.

import { formatBytes } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const M = { left: 74, right: 92, top: 26, bottom: 34 };

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/**
 * Round ticks for a byte axis up to `max`: 1, 2, 2.5 or 5 × a power of ten of one binary unit,
 * each {v, label}, the label in that unit ("0.2 GiB", not "204.80 MiB").
 */
export function byteTicks(max) {
  const [unit, name] = max >= 512 * 1024 * 1024 ? [1024 ** 3, 'GiB'] : max >= 512 * 1024 ? [1024 ** 2, 'MiB'] : max >= 512 ? [1024, 'KiB'] : [1, 'B'];
  const raw = max / unit / 6;
  const pow = 10 ** Math.floor(Math.log10(raw || 1));
  const mult = [1, 2, 2.5, 5, 10].find((m) => m * pow >= raw);
  const step = mult * pow;
  const digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9) + (mult === 2.5 ? 1 : 0));
  const ticks = [];
  for (let k = 0; k * step * unit <= max * 1.0001; k++) ticks.push({ v: k * step * unit, label: k ? `${(k * step).toFixed(digits)} ${name}` : '0' });
  return ticks;
}

export function stepTicks(n) {
  const raw = n / 8;
  const pow = 10 ** Math.floor(Math.log10(raw || 1));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw));
  const ticks = [];
  for (let v = 0; v <= n; v += step) ticks.push(v);
  return ticks;
}

/** The path of one series: start at the inputs, then for each op its `during` level, then the
 * drop to its `after` level at the op's end. */
function seriesPath(sim, x, y) {
  const n = sim.during.length;
  const parts = [`M${x(0).toFixed(1)},${y(sim.inputsBytes).toFixed(1)}`];
  for (let i = 0; i < n; i++) {
    const x0 = x(i).toFixed(1);
    const x1 = x(i + 1).toFixed(1);
    const yd = y(sim.during[i]).toFixed(1);
    parts.push(`L${x0},${yd}L${x1},${yd}L${x1},${y(sim.after[i]).toFixed(1)}`);
  }
  return parts.join('');
}

/** The step of a simulation's peak (first op reaching it), or -1 when the start is the peak. */
export function peakStep(sim) {
  let best = sim.inputsBytes;
  let at = -1;
  for (let i = 0; i < sim.during.length; i++) {
    if (sim.during[i] > best) {
      best = sim.during[i];
      at = i;
    }
  }
  return at;
}

/**
 * Draws the chart into `host` (emptied first). `series`: [{key, label, sim, order (op ids),
 * recomputeSteps (steps that run an op again; optional)}]. `memoryLimit`: the plan's limit, drawn
 * as a line (optional). `onHover(step|null)` is called as the pointer moves over the plot.
 */
export function drawChart(host, { series, lowerBound, inputsBytes, memoryLimit = null, height = 280, onHover, width: given }) {
  host.textContent = '';
  const width = Math.max(320, given || host.clientWidth || 800);
  const svg = el('svg', { class: 'po-chart-svg', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' }, host);
  const n = Math.max(...series.map((s) => s.sim.during.length));
  svg.setAttribute('data-steps', String(n));
  let max = Math.max(inputsBytes, lowerBound || 0, memoryLimit || 0, ...series.map((s) => s.sim.peakBytes));
  max = max > 0 ? max * 1.1 : 1;
  const pw = width - M.left - M.right;
  const ph = height - M.top - M.bottom;
  const x = (i) => M.left + (n ? (i / n) * pw : 0);
  const y = (b) => M.top + ph - (b / max) * ph;

  // Steps that recompute, under everything: a shaded column each, and a mark on the step axis
  // (at least a pixel wide, so a few among thousands of steps still show). One path each.
  const reruns = series.flatMap((s) => (s.recomputeSteps || []).map((k) => ({ k, key: s.key })));
  svg.setAttribute('data-recompute-steps', String(reruns.length));
  if (reruns.length) {
    const cols = [];
    const ticks = [];
    for (const { k } of reruns) {
      const x0 = x(k);
      const w = Math.max(1, x(k + 1) - x0);
      cols.push(`M${x0.toFixed(1)},${M.top}h${w.toFixed(1)}v${ph}h${(-w).toFixed(1)}z`);
      ticks.push(`M${x0.toFixed(1)},${M.top + ph + 1}h${w.toFixed(1)}v5h${(-w).toFixed(1)}z`);
    }
    const g = el('g', { class: 'po-recompute', 'data-steps': reruns.map((r) => r.k).join(' ') }, svg);
    el('path', { d: cols.join(''), class: 'po-recompute-col' }, g);
    el('path', { d: ticks.join(''), class: 'po-recompute-tick' }, g);
  }

  const axes = el('g', { class: 'po-axes' }, svg);
  for (const t of byteTicks(max / 1.1)) {
    el('line', { x1: M.left, x2: M.left + pw, y1: y(t.v), y2: y(t.v), class: 'po-grid' }, axes);
    el('text', { x: M.left - 6, y: y(t.v) + 4, class: 'po-tick', 'text-anchor': 'end' }, axes).textContent = t.label;
  }
  for (const t of stepTicks(n)) {
    el('line', { x1: x(t), x2: x(t), y1: M.top + ph, y2: M.top + ph + 4, class: 'po-axis' }, axes);
    el('text', { x: x(t), y: M.top + ph + 16, class: 'po-tick', 'text-anchor': 'middle' }, axes).textContent = String(t);
  }
  el('line', { x1: M.left, x2: M.left + pw, y1: M.top + ph, y2: M.top + ph, class: 'po-axis' }, axes);
  el('line', { x1: M.left, x2: M.left, y1: M.top, y2: M.top + ph, class: 'po-axis' }, axes);
  el('text', { x: M.left + pw / 2, y: height - 4, class: 'po-axis-label', 'text-anchor': 'middle' }, axes).textContent = 'step (ops run so far)';

  // Reference levels: the inputs (memory at the start) and the lower bound.
  const refs = el('g', { class: 'po-refs' }, svg);
  // Labels sit in the right margin, clear of the series, nudged apart when the levels are close.
  const used = [];
  const ref = (b, cls, name) => {
    el('line', { x1: M.left, x2: M.left + pw, y1: y(b), y2: y(b), class: cls }, refs);
    let ly = y(b) - 3;
    while (used.some((u) => Math.abs(u - ly) < 24)) ly -= 24;
    used.push(ly);
    const t = el('text', { x: M.left + pw + 6, y: ly, class: `po-ref-label ${cls}` }, refs);
    el('tspan', { x: M.left + pw + 6, dy: 0 }, t).textContent = name;
    el('tspan', { x: M.left + pw + 6, dy: 12 }, t).textContent = formatBytes(b);
  };
  ref(inputsBytes, 'po-ref-inputs', 'inputs');
  if (lowerBound && lowerBound > inputsBytes) ref(lowerBound, 'po-ref-bound', 'lower bound');
  if (memoryLimit !== null && memoryLimit !== undefined) ref(memoryLimit, 'po-ref-limit', 'memory limit');

  const lines = el('g', { class: 'po-lines' }, svg);
  const marks = el('g', { class: 'po-marks' }, svg);
  for (const s of series) {
    el('path', { d: seriesPath(s.sim, x, y), class: `po-series po-series-${s.key}`, 'data-peak': String(s.sim.peakBytes) }, lines);
  }
  // Peak markers last, so they sit on top: a dot, a drop line to the step axis and the value;
  // the full description (step, op) goes in the legend, so close peaks never collide.
  const placed = [];
  for (const s of series) {
    const k = peakStep(s.sim);
    const px = k < 0 ? x(0) : x(k + 0.5);
    const py = y(s.sim.peakBytes);
    const g = el('g', { class: `po-peak po-peak-${s.key}`, 'data-step': String(k) }, marks);
    el('line', { x1: px, x2: px, y1: py, y2: M.top + ph, class: 'po-peak-drop' }, g);
    el('circle', { cx: px, cy: py, r: 4.5 }, g);
    const label = el('text', { class: 'po-peak-label' }, g);
    label.textContent = `${formatBytes(s.sim.peakBytes)}`;
    // Above the dot; moved right (or left near the edge) until clear of labels already placed.
    const wGuess = label.textContent.length * 7 + 6;
    let lx = px - wGuess / 2;
    const ly = Math.max(M.top - 6, py - 9);
    lx = Math.min(Math.max(lx, M.left + 2), M.left + pw - wGuess);
    for (let tries = 0; tries < 20 && placed.some((p) => Math.abs(p.y - ly) < 14 && lx < p.x + p.w && p.x < lx + wGuess); tries++) {
      lx = lx + wGuess + 8 > M.left + pw ? lx - 2 * wGuess : lx + 12;
    }
    placed.push({ x: lx, y: ly, w: wGuess });
    label.setAttribute('x', lx);
    label.setAttribute('y', ly);
    s.describe = k < 0 ? 'at the start' : `at step ${k + 1}, ${s.order[k]}`;
  }

  // Hover: a cursor line and a callback with the step under the pointer.
  const cursor = el('line', { x1: 0, x2: 0, y1: M.top, y2: M.top + ph, class: 'po-cursor', visibility: 'hidden' }, svg);
  const hit = el('rect', { x: M.left, y: M.top, width: pw, height: ph, class: 'po-hit' }, svg);
  hit.addEventListener('mousemove', (ev) => {
    const r = svg.getBoundingClientRect();
    const i = Math.min(n - 1, Math.max(0, Math.floor(((ev.clientX - r.left - M.left) / pw) * n)));
    cursor.setAttribute('x1', x(i + 0.5));
    cursor.setAttribute('x2', x(i + 0.5));
    cursor.setAttribute('visibility', 'visible');
    if (onHover) onHover(i, ev);
  });
  hit.addEventListener('mouseleave', () => {
    cursor.setAttribute('visibility', 'hidden');
    if (onHover) onHover(null);
  });
  return svg;
}
