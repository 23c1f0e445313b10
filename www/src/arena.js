// The arena (docs/web.md): a static memory layout (docs/layout.md, `layout()` of the npm
// package, `peakorder layout --json`) drawn as offset × step, one rectangle per buffer: from the
// step it is made to the last step it is live, at its byte offset in the one arena. The colours
// are the memory timeline's, so a tensor looks the same in both; workspaces are striped. Canvas,
// one fillRect per buffer; hover and selection on a second canvas above.

import { byteTicks, stepTicks } from './chart.js';
import { formatBytes } from './format.js';
import { colorOf, stripePattern } from './timeline.js';

const M = { left: 74, right: 16, top: 22, bottom: 26 };

/**
 * The rectangles of `layout` (its `buffers`: {kind: 'tensor' | 'workspace', id, offset, bytes,
 * firstStep, lastStep}, steps counted as `simulate` does: 0 the start, k while the k-th op
 * runs) on the x axis of the timelines: op k runs over [k - 1, k).
 */
export function arenaRects(layout) {
  return layout.buffers.map((b) => ({
    kind: b.kind,
    id: b.id,
    offset: b.offset,
    bytes: b.bytes,
    x0: Math.max(0, b.firstStep - 1),
    x1: Math.max(b.firstStep, b.lastStep),
    color: b.kind === 'workspace' ? null : colorOf(b.id),
  }));
}

/**
 * Draws the arena of `layout` into `host`. `hover(rect|null, step, ev)` and `click(rect)`
 * report the pointer. Returns {rectsAt(step), select(tensorId|null), selected()}.
 */
export function drawArena(host, layout, { width: given, height = 260, hover, click }) {
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
  const [canvas, ctx] = make('po-arena-canvas');
  const [over, octx] = make('po-arena-over');
  host.appendChild(wrap);
  const rects = arenaRects(layout);
  const n = layout.order.length;
  const top = Math.max(1, layout.arenaBytes) * 1.05;
  const pw = width - M.left - M.right;
  const ph = height - M.top - M.bottom;
  const X = (s) => M.left + (n ? (s / n) * pw : 0);
  const Y = (b) => M.top + ph - (b / top) * ph;
  canvas.dataset.buffers = String(rects.length);
  canvas.dataset.arena = String(layout.arenaBytes);

  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = '#667085';
  ctx.strokeStyle = '#eef0f3';
  ctx.textAlign = 'right';
  for (const { v, label } of byteTicks(top / 1.05)) {
    ctx.beginPath();
    ctx.moveTo(M.left, Math.round(Y(v)) + 0.5);
    ctx.lineTo(M.left + pw, Math.round(Y(v)) + 0.5);
    ctx.stroke();
    ctx.fillText(label, M.left - 6, Y(v) + 4);
  }
  ctx.textAlign = 'center';
  for (const t of stepTicks(n)) ctx.fillText(String(t), X(t), M.top + ph + 15);
  // Whole-pixel columns (at least one per buffer), exact rows.
  const box = (r) => {
    const x0 = Math.round(X(r.x0));
    const x1 = Math.max(x0 + 1, Math.round(X(r.x1)));
    const y0 = Y(r.offset + r.bytes);
    return [x0, y0, x1 - x0, Y(r.offset) - y0];
  };
  ctx.strokeStyle = '#fff';
  ctx.lineWidth = 1;
  for (const r of rects) {
    ctx.fillStyle = r.kind === 'workspace' ? stripePattern(ctx) : r.color;
    const [x, y, w, hgt] = box(r);
    ctx.fillRect(x, y, w, hgt);
    // A hairline between neighbours big enough to have one (same colours would merge).
    if (w >= 6 && hgt >= 6) ctx.strokeRect(x + 0.5, y + 0.5, w - 1, hgt - 1);
  }
  // The arena's top and the lower bound.
  const level = (b, color, text, dash) => {
    ctx.strokeStyle = color;
    ctx.setLineDash(dash);
    ctx.beginPath();
    ctx.moveTo(M.left, Math.round(Y(b)) + 0.5);
    ctx.lineTo(M.left + pw, Math.round(Y(b)) + 0.5);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = color;
    ctx.textAlign = 'right';
    ctx.fillText(text, M.left + pw - 4, Y(b) - 4);
  };
  if (layout.lowerBoundBytes < layout.arenaBytes) level(layout.lowerBoundBytes, '#2e9e44', `lower bound ${formatBytes(layout.lowerBoundBytes)}`, [5, 4]);
  level(layout.arenaBytes, '#1d2430', `arena ${formatBytes(layout.arenaBytes)}`, []);
  ctx.strokeStyle = '#98a2b3';
  ctx.beginPath();
  ctx.moveTo(M.left + 0.5, M.top);
  ctx.lineTo(M.left + 0.5, M.top + ph + 0.5);
  ctx.lineTo(M.left + pw, M.top + ph + 0.5);
  ctx.stroke();
  ctx.fillStyle = '#1d2430';
  ctx.font = '600 12px system-ui, sans-serif';
  ctx.textAlign = 'left';
  ctx.fillText('offset in the arena', M.left + 4, M.top - 8);

  const hitAt = (ev) => {
    const b = over.getBoundingClientRect();
    const mx = ev.clientX - b.left;
    const my = ev.clientY - b.top;
    if (mx < M.left || mx > M.left + pw || my < M.top || my > M.top + ph || !n) return null;
    const step = Math.min(n - 1, Math.floor(((mx - M.left) / pw) * n));
    const bytes = ((M.top + ph - my) / ph) * top;
    const i = rects.findIndex((r) => r.x0 <= step && step < Math.max(r.x1, r.x0 + 1) && r.offset <= bytes && bytes < r.offset + r.bytes);
    return { step, rect: i };
  };
  let hovered = -1;
  let selected = -1;
  const redrawOver = () => {
    octx.clearRect(0, 0, width, height);
    for (const [i, color, w] of [[selected, '#000', 2], [hovered, '#1d2430', 1.5]]) {
      if (i < 0) continue;
      octx.strokeStyle = color;
      octx.lineWidth = w;
      octx.strokeRect(...box(rects[i]));
    }
  };
  over.addEventListener('mousemove', (ev) => {
    const h = hitAt(ev);
    const i = h ? h.rect : -1;
    if (i !== hovered) {
      hovered = i;
      redrawOver();
    }
    over.style.cursor = i >= 0 ? 'pointer' : 'default';
    if (hover) hover(i >= 0 ? rects[i] : null, h ? h.step : null, ev);
  });
  over.addEventListener('mouseleave', () => {
    hovered = -1;
    redrawOver();
    if (hover) hover(null, null);
  });
  over.addEventListener('click', (ev) => {
    const h = hitAt(ev);
    if (click && h && h.rect >= 0) click(rects[h.rect]);
  });
  return {
    canvas: over,
    /** Buffers live while step `step` runs (0-based; -1: the start), bottom to top, with their pixel boxes. */
    rectsAt(step) {
      return rects
        .filter((r) => (step < 0 ? r.x0 === 0 && r.kind === 'tensor' : r.x0 <= step && step < r.x1))
        .sort((a, b) => a.offset - b.offset)
        .map((r) => {
          const [x, y, w, hgt] = box(r);
          return { ...r, x: x + w / 2, y0: y, y1: y + hgt };
        });
    },
    select(id) {
      selected = id === null || id === undefined ? -1 : rects.findIndex((r) => r.kind === 'tensor' && r.id === id);
      redrawOver();
      return selected >= 0;
    },
    selected: () => (selected >= 0 ? rects[selected].id : null),
  };
}
