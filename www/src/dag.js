// The DAG: ops laid out in layers (layout.js), coloured by their position in the planned order;
// the tensors live at the peak are highlighted (their edges in red, their producers outlined, live
// graph inputs as red stubs). Full layouts are SVG; the simplified view of big graphs is a canvas.

import { viridis, textOn } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/**
 * Draws the DAG into `host`. `hover(kind, index, event)` is called with kind 'op' | 'tensor' |
 * null. Returns {highlight(opIndex|null)} so other panels can point at an op.
 */
export function drawDag(host, { model, layout, rank, liveAtPeak, regions, hover }) {
  host.textContent = '';
  const n = model.ops.length;
  const t = (v) => (n > 1 ? rank[v] / (n - 1) : 0);
  const live = new Set(liveAtPeak);
  if (layout.kind === 'simple') return drawSimple(host, { model, layout, t, live, hover });

  // Fit the whole graph in the panel (never enlarged); ctrl+wheel zooms about the pointer, a
  // drag pans, a double click fits again. Hover works at any zoom.
  const availW = host.clientWidth || layout.width;
  const maxH = 520;
  const fit = Math.min(1, availW / layout.width, maxH / layout.height);
  const viewW = Math.max(availW, 1);
  const viewH = Math.min(maxH, Math.max(layout.height * fit, 60));
  const svg = el('svg', {
    class: 'po-dag-svg', width: viewW, height: viewH, 'data-nodes': String(n),
  }, host);
  let box;
  const setBox = (b) => {
    box = b;
    svg.setAttribute('viewBox', `${b.x} ${b.y} ${b.w} ${b.h}`);
    svg.dataset.zoom = (viewW / b.w).toFixed(3);
  };
  const fitBox = () => {
    // The view's aspect is the panel's; centre the graph in it.
    const w = viewW / fit;
    const h = viewH / fit;
    return { x: (layout.width - w) / 2, y: (layout.height - h) / 2, w, h };
  };
  setBox(fitBox());
  svg.addEventListener('wheel', (ev) => {
    // Ctrl/Cmd + wheel (a trackpad pinch sends ctrlKey too): a plain wheel keeps scrolling the
    // page or notebook the view is in.
    if (!ev.ctrlKey && !ev.metaKey) return;
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    const px = box.x + ((ev.clientX - r.left) / r.width) * box.w;
    const py = box.y + ((ev.clientY - r.top) / r.height) * box.h;
    const k = Math.exp(Math.sign(ev.deltaY) * 0.15);
    const w = Math.min(Math.max(box.w * k, viewW / 4), Math.max(layout.width, viewW) * 2);
    const f = w / box.w;
    setBox({ x: px - (px - box.x) * f, y: py - (py - box.y) * f, w, h: box.h * f });
  }, { passive: false });
  let drag = null;
  svg.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, y: ev.clientY, box };
    svg.setPointerCapture(ev.pointerId);
    svg.classList.add('po-panning');
  });
  const stop = () => { drag = null; svg.classList.remove('po-panning'); };
  svg.addEventListener('pointerup', stop);
  svg.addEventListener('pointercancel', stop);
  svg.addEventListener('pointermove', (ev) => {
    if (!drag) return;
    const r = svg.getBoundingClientRect();
    setBox({ ...drag.box, x: drag.box.x - ((ev.clientX - drag.x) / r.width) * drag.box.w, y: drag.box.y - ((ev.clientY - drag.y) / r.height) * drag.box.h });
  });
  svg.addEventListener('dblclick', () => setBox(fitBox()));
  const defs = el('defs', {}, svg);
  for (const [id, cls] of [['po-arrow', 'po-arrowhead'], ['po-arrow-live', 'po-arrowhead po-arrowhead-live']]) {
    const m = el('marker', { id, viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0,0L8,4L0,8z', class: cls }, m);
  }
  drawRegions(svg, layout, model, regions);
  const edges = el('g', { class: 'po-edges' }, svg);
  model.edges.forEach((e, k) => {
    const pts = layout.edges[k];
    const isLive = e.tensors.some((tt) => live.has(tt));
    const d = `M${pts.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join('L')}`;
    const path = el('path', {
      d, class: isLive ? 'po-edge po-edge-live' : 'po-edge',
      'marker-end': `url(#${isLive ? 'po-arrow-live' : 'po-arrow'})`,
    }, edges);
    // A wider invisible twin makes thin edges easy to hover.
    const hitPath = el('path', { d, class: 'po-edge-hit' }, edges);
    const tensor = e.tensors.find((tt) => live.has(tt)) ?? e.tensors[0];
    hitPath.addEventListener('mouseenter', (ev) => hover('tensor', tensor, ev));
    hitPath.addEventListener('mousemove', (ev) => hover('tensor', tensor, ev));
    hitPath.addEventListener('mouseleave', () => hover(null));
    path.dataset.tensor = model.tensors[tensor].id;
  });
  // Live graph inputs have no producer node: a short red stub into each of their consumers.
  const stubs = el('g', { class: 'po-stubs' }, svg);
  for (const ti of live) {
    const tensor = model.tensors[ti];
    if (tensor.producer >= 0) continue;
    for (const c of tensor.consumers) {
      const b = layout.nodes[c];
      const x0 = b.x - b.w / 2;
      const s = el('g', { class: 'po-stub' }, stubs);
      el('line', { x1: x0 - 12, y1: b.y - 6, x2: x0, y2: b.y - 2 }, s);
      el('circle', { cx: x0 - 12, cy: b.y - 6, r: 2.5 }, s);
      s.addEventListener('mouseenter', (ev) => hover('tensor', ti, ev));
      s.addEventListener('mouseleave', () => hover(null));
    }
  }
  const nodes = el('g', { class: 'po-nodes' }, svg);
  const nodeEls = model.ops.map((o, v) => {
    const b = layout.nodes[v];
    const producesLive = o.outputs.some((tt) => live.has(tt));
    const g = el('g', { class: producesLive ? 'po-node po-node-live' : 'po-node', 'data-op': o.id, transform: `translate(${(b.x - b.w / 2).toFixed(1)},${(b.y - b.h / 2).toFixed(1)})` }, nodes);
    el('rect', { width: b.w, height: b.h, rx: 4, fill: viridis(t(v)) }, g);
    el('text', { x: b.w / 2, y: b.h / 2 + 4, 'text-anchor': 'middle', fill: textOn(t(v)) }, g).textContent = o.id;
    g.addEventListener('mouseenter', (ev) => hover('op', v, ev));
    g.addEventListener('mousemove', (ev) => hover('op', v, ev));
    g.addEventListener('mouseleave', () => hover(null));
    return g;
  });
  let lit = null;
  return {
    highlight(v) {
      if (lit !== null) nodeEls[lit].classList.remove('po-node-hl');
      lit = v;
      if (v !== null && nodeEls[v]) {
        nodeEls[v].classList.add('po-node-hl');
      }
    },
  };
}

/**
 * Outlines fusion regions (arrays of op ids): one box around the members when it holds no other
 * op, else a box around each member (a region's members need not be neighbours in the layout,
 * and a box that also held a non-member would say it is fused). Each box names its region.
 */
function drawRegions(svg, layout, model, regions) {
  if (!regions || !regions.length) return;
  const ix = new Map(model.ops.map((o, v) => [o.id, v]));
  const g = el('g', { class: 'po-regions' }, svg);
  const pad = 4;
  const around = (boxes) => {
    const x0 = Math.min(...boxes.map((b) => b.x - b.w / 2)) - pad;
    const y0 = Math.min(...boxes.map((b) => b.y - b.h / 2)) - pad;
    const x1 = Math.max(...boxes.map((b) => b.x + b.w / 2)) + pad;
    const y1 = Math.max(...boxes.map((b) => b.y + b.h / 2)) + pad;
    return { x0, y0, x1, y1 };
  };
  const hits = (r, b) => b.x + b.w / 2 > r.x0 && b.x - b.w / 2 < r.x1 && b.y + b.h / 2 > r.y0 && b.y - b.h / 2 < r.y1;
  for (const region of regions) {
    const members = new Set(region.map((id) => ix.get(id)).filter((v) => v !== undefined && layout.nodes[v]));
    if (!members.size) continue;
    const name = region.join('+');
    const whole = around([...members].map((v) => layout.nodes[v]));
    const intruder = layout.nodes.some((b, v) => b && !members.has(v) && hits(whole, b));
    const rects = intruder ? [...members].map((v) => around([layout.nodes[v]])) : [whole];
    for (const r of rects) {
      const rect = el('rect', {
        x: r.x0, y: r.y0, width: r.x1 - r.x0, height: r.y1 - r.y0, rx: 6, class: 'po-region', 'data-region': name,
      }, g);
      el('title', {}, rect).textContent = `fusion region: ${name}`;
    }
  }
}

function drawSimple(host, { model, layout, t, live, hover }) {
  const n = model.ops.length;
  const dpr = window.devicePixelRatio || 1;
  // Squeeze the layers to the panel's width (an overview); rows keep their spacing.
  const sx = Math.min(1, (host.clientWidth || layout.width) / layout.width);
  const W = layout.width * sx;
  const X = (v) => layout.x[v] * sx;
  const canvas = document.createElement('canvas');
  canvas.className = 'po-dag-canvas';
  canvas.width = Math.ceil(W * dpr);
  canvas.height = Math.ceil(layout.height * dpr);
  canvas.style.width = `${W}px`;
  canvas.style.height = `${layout.height}px`;
  canvas.dataset.nodes = String(n);
  host.appendChild(canvas);
  const ctx = canvas.getContext('2d');
  ctx.scale(dpr, dpr);
  const r = Math.max(1, Math.min(4, Math.min(layout.dx * sx, layout.dy) / 2 - 0.5));
  const draw = (hl) => {
    ctx.clearRect(0, 0, W, layout.height);
    for (let v = 0; v < n; v++) {
      ctx.fillStyle = viridis(t(v));
      ctx.fillRect(X(v) - r, layout.y[v] - r, 2 * r, 2 * r);
    }
    ctx.strokeStyle = '#d62728';
    ctx.lineWidth = 1.5;
    for (let v = 0; v < n; v++) {
      if (model.ops[v].outputs.some((tt) => live.has(tt))) ctx.strokeRect(X(v) - r - 1.5, layout.y[v] - r - 1.5, 2 * r + 3, 2 * r + 3);
    }
    if (hl !== null && hl !== undefined) {
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 2;
      ctx.strokeRect(X(hl) - r - 3, layout.y[hl] - r - 3, 2 * r + 6, 2 * r + 6);
    }
  };
  draw(null);
  const at = (ev) => {
    const b = canvas.getBoundingClientRect();
    const mx = ev.clientX - b.left;
    const my = ev.clientY - b.top;
    const col = layout.cols[Math.floor((mx / sx - 8) / layout.dx)];
    if (!col) return null;
    const v = col[Math.floor((my - 8) / layout.dy)];
    return v === undefined ? null : v;
  };
  canvas.addEventListener('mousemove', (ev) => {
    const v = at(ev);
    if (v === null) hover(null);
    else hover('op', v, ev);
  });
  canvas.addEventListener('mouseleave', () => hover(null));
  return { highlight: (v) => draw(v) };
}
