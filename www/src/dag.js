// The DAG: ops coloured by their position in the planned order; the tensors live at the peak
// highlighted (their edges in red, their producers outlined, live graph inputs as red stubs),
// the peak op marked. Small graphs are drawn whole (dagre's layout, from the worker). Big ones
// are grouped by scope (groups.js), collapsed by default with the groups around the peak opened;
// a click on a group expands it, a click on an open group's header collapses it, and each change
// is laid out again at once (layered.js). SVG; ctrl+wheel zooms, a drag pans, a double click fits.

import { viridis, textOn, count } from './format.js';
import { visibleGraph, ancestors, shortName } from './groups.js';
import { layoutGrouped } from './layered.js';

const SVG = 'http://www.w3.org/2000/svg';
// The fonts of style.css's .po-node text, .po-group-name and .po-group-sub, for measuring labels.
const FONT_OP = '11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
const FONT_GROUP = '600 11px system-ui, sans-serif';
const FONT_SUB = '10.5px system-ui, sans-serif';
let measure = null;
function textWidth(font, s) {
  if (!measure) measure = document.createElement('canvas').getContext('2d');
  measure.font = font;
  return measure.measureText(s).width;
}
const MAX_H = 560;
const READABLE = 0.6;

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function clip(s, n) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/**
 * Draws the DAG into `host`. Options: model, rank (op -> planned position), tree (groups.js, or
 * null to draw every op), fullLayout (dagre's, when every op is drawn), expanded (the Set of open
 * groups; kept by the caller across redraws), liveAtPeak (tensor indices), peakOp (op index or
 * -1), regions (arrays of op ids to outline), hover(kind, index, event) with kind 'op' | 'tensor'
 * | 'group' | null, select(kind, index) on a click on an op.
 * Returns {highlight(op|null), reveal(op), selectOp(op|null), selectTensor(tensor|null),
 * expand(group), collapse(group), visible()}.
 */
export function drawDag(host, opts) {
  const { model, rank, tree, fullLayout, expanded, hover } = opts;
  // The panel's width, given once (reading it after drawing would force a layout each time).
  const hostWidth = () => opts.width || host.clientWidth || 1000;
  const n = model.ops.length;
  const t = (v) => (n > 1 ? rank[v] / (n - 1) : 0);
  const live = new Set(opts.liveAtPeak);
  const producesLive = (v) => model.ops[v].outputs.some((x) => live.has(x));
  let vis;
  let layout;
  let svg = null;
  let box = null;
  let viewW = 0;
  let viewH = 0;
  let fit = 1;
  let nodeEls = [];
  let edgeEls = [];
  let lit = null;
  let sel = null; // {kind, index}

  const opLabel = (v) => {
    const id = model.ops[v].id;
    return tree ? clip(id.length > 22 ? shortName(id) : id, 22) : id;
  };

  function relayout() {
    if (!tree) {
      vis = {
        nodes: model.ops.map((_, v) => ({ op: v, parent: 0 })),
        rep: Int32Array.from(model.ops, (_, v) => v),
        edges: model.edges,
        clusters: [],
      };
      layout = fullLayout;
      return;
    }
    vis = visibleGraph(model, tree, expanded);
    // Per visible node: the planned positions of its ops (their median colours a group), and
    // how many tensors live at the peak its ops make.
    const ranks = vis.nodes.map(() => []);
    vis.liveCount = new Int32Array(vis.nodes.length);
    for (let v = 0; v < n; v++) ranks[vis.rep[v]].push(rank[v]);
    for (const x of live) if (model.tensors[x].producer >= 0) vis.liveCount[vis.rep[model.tensors[x].producer]] += 1;
    vis.median = ranks.map((r) => {
      r.sort((a, b) => a - b);
      return r.length ? r[r.length >> 1] : 0;
    });
    vis.labels = vis.nodes.map((nd, i) => (nd.op !== undefined ? [opLabel(nd.op)] : groupLabel(nd.group, i)));
    layout = layoutGrouped(tree, vis, (i) => {
      const lines = vis.labels[i];
      if (lines.length === 1) return { w: Math.max(28, textWidth(FONT_OP, lines[0]) + 12), h: 22 };
      return { w: Math.max(textWidth(FONT_GROUP, `+ ${lines[0]}`), textWidth(FONT_SUB, lines[1])) + 22, h: 34 };
    }, Math.max(600, hostWidth() / READABLE));
  }

  function groupLabel(g, i) {
    const gr = tree.groups[g];
    const k = vis.liveCount[i];
    return [clip(gr.name, 30), `${count(gr.count)} ops${k ? ` · ${count(k)} live at peak` : ''}`];
  }

  function render(focus = null) {
    host.textContent = '';
    const availW = hostWidth();
    fit = Math.min(1, availW / layout.width, MAX_H / layout.height);
    viewW = Math.max(availW, 1);
    // The panel is as tall as the graph at the zoom it opens at (fitted, or READABLE when
    // fitting would shrink it below that), within MAX_H.
    const zoom0 = focus !== null && focus !== undefined && box ? viewW / box.w : Math.max(fit, READABLE);
    viewH = Math.min(MAX_H, Math.max(layout.height * zoom0, 60));
    svg = el('svg', {
      class: 'po-dag-svg', width: viewW, height: viewH, 'data-nodes': String(n), 'data-visible': String(vis.nodes.length),
    }, host);
    const defs = el('defs', {}, svg);
    for (const [id, cls] of [['po-arrow', 'po-arrowhead'], ['po-arrow-live', 'po-arrowhead po-arrowhead-live']]) {
      const m = el('marker', { id, viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
      el('path', { d: 'M0,0L8,4L0,8z', class: cls }, m);
    }
    drawClusters();
    drawRegions(svg, vis, layout, model, opts.regions);
    drawEdges();
    drawStubs();
    drawNodes();
    // The first view fits the graph, unless that makes it unreadably small: then it shows the
    // focus (the peak) at a readable zoom.
    if (focus !== null && focus !== undefined) centerOn(focus, zoom0);
    else if (fit < READABLE && opts.peakOp >= 0) centerOn(vis.rep[opts.peakOp], READABLE);
    else if (fit < READABLE) centerOn(0, READABLE);
    else setBox(fitBox());
    attachPanZoom();
    if (lit !== null) highlight(lit);
    if (sel) mark();
    if (opts.rendered) opts.rendered();
  }

  const fitBox = () => {
    const w = viewW / fit;
    const h = viewH / fit;
    return { x: (layout.width - w) / 2, y: (layout.height - h) / 2, w, h };
  };
  function setBox(b) {
    box = b;
    svg.setAttribute('viewBox', `${b.x} ${b.y} ${b.w} ${b.h}`);
    svg.dataset.zoom = (viewW / b.w).toFixed(3);
  }
  function centerOn(i, zoom) {
    const b = layout.nodes[i];
    if (!b) return;
    const z = Math.min(Math.max(zoom, fit), 2);
    const w = viewW / z;
    const h = viewH / z;
    // Centred on the node, but kept over the graph (no empty margin where the graph could be).
    const keep = (c, size, total) => (size >= total ? (total - size) / 2 : Math.min(Math.max(c - size / 2, 0), total - size));
    setBox({ x: keep(b.x, w, layout.width), y: keep(b.y, h, layout.height), w, h });
  }

  function attachPanZoom() {
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
    // A drag pans (the pointer is captured only once it moves, so clicks reach the nodes).
    let drag = null;
    let moved = false;
    svg.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0) return;
      drag = { x: ev.clientX, y: ev.clientY, box, id: ev.pointerId };
      moved = false;
    });
    const stop = () => {
      drag = null;
      svg.classList.remove('po-panning');
    };
    svg.addEventListener('pointerup', stop);
    svg.addEventListener('pointercancel', stop);
    svg.addEventListener('pointermove', (ev) => {
      if (!drag) return;
      if (!moved && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 4) return;
      if (!moved) {
        moved = true;
        svg.setPointerCapture(drag.id);
        svg.classList.add('po-panning');
      }
      const r = svg.getBoundingClientRect();
      setBox({ ...drag.box, x: drag.box.x - ((ev.clientX - drag.x) / r.width) * drag.box.w, y: drag.box.y - ((ev.clientY - drag.y) / r.height) * drag.box.h });
    });
    svg.addEventListener('click', (ev) => {
      if (moved) return;
      const g = ev.target.closest('[data-group-ix]');
      if (g) {
        const ix = Number(g.dataset.groupIx);
        if (g.classList.contains('po-cluster')) collapse(ix);
        else expand(ix);
        return;
      }
      const o = ev.target.closest('[data-op-ix]');
      if (o && opts.select) opts.select('op', Number(o.dataset.opIx));
    });
    svg.addEventListener('dblclick', (ev) => {
      if (ev.target.closest('[data-group-ix]')) return;
      setBox(fitBox());
    });
  }

  function drawClusters() {
    if (!vis.clusters.length) return;
    const g = el('g', { class: 'po-clusters' }, svg);
    for (const c of [...vis.clusters].sort((a, b) => tree.groups[a].depth - tree.groups[b].depth)) {
      const b = layout.clusters.get(c);
      const gr = tree.groups[c];
      const cl = el('g', { class: `po-cluster po-depth-${gr.depth % 2}`, 'data-group': gr.key, 'data-group-ix': String(c) }, g);
      el('rect', { x: b.x, y: b.y, width: b.w, height: b.h, rx: 6 }, cl);
      const head = el('text', { x: b.x + 6, y: b.y + 14, class: 'po-cluster-head' }, cl);
      head.textContent = `▾ ${clip(gr.name, Math.max(8, Math.floor((b.w - 20) / 6.2)))} · ${count(gr.count)} ops`;
      el('title', {}, cl).textContent = `${gr.chunk ? 'ops ' : ''}${gr.name} (${gr.count} ops): click the header to collapse`;
    }
  }

  function drawEdges() {
    const g = el('g', { class: 'po-edges' }, svg);
    edgeEls = vis.edges.map((e, k) => {
      const pts = layout.edges[k];
      const isLive = e.tensors.some((x) => live.has(x));
      const d = layout.kind === 'grouped'
        ? `M${pts[0][0].toFixed(1)},${pts[0][1].toFixed(1)}C${pts.slice(1).map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(' ')}`
        : `M${pts.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join('L')}`;
      const path = el('path', {
        d, class: isLive ? 'po-edge po-edge-live' : 'po-edge',
        'marker-end': `url(#${isLive ? 'po-arrow-live' : 'po-arrow'})`,
      }, g);
      // A wider invisible twin makes thin edges easy to hover.
      const hitPath = el('path', { d, class: 'po-edge-hit' }, g);
      let tensor = e.tensors.find((x) => live.has(x));
      if (tensor === undefined) tensor = e.tensors.reduce((a, x) => (model.tensors[x].bytes > model.tensors[a].bytes ? x : a), e.tensors[0]);
      hitPath.addEventListener('mouseenter', (ev) => hover('tensor', tensor, ev));
      hitPath.addEventListener('mousemove', (ev) => hover('tensor', tensor, ev));
      hitPath.addEventListener('mouseleave', () => hover(null));
      path.dataset.tensor = model.tensors[tensor].id;
      return path;
    });
  }

  function drawStubs() {
    // Live graph inputs have no producer node: a short red stub into each node that reads them.
    const g = el('g', { class: 'po-stubs' }, svg);
    for (const ti of live) {
      const tensor = model.tensors[ti];
      if (tensor.producer >= 0) continue;
      for (const i of new Set(tensor.consumers.map((c) => vis.rep[c]))) {
        const b = layout.nodes[i];
        const x0 = b.x - b.w / 2;
        const s = el('g', { class: 'po-stub' }, g);
        el('line', { x1: x0 - 12, y1: b.y - 6, x2: x0, y2: b.y - 2 }, s);
        el('circle', { cx: x0 - 12, cy: b.y - 6, r: 2.5 }, s);
        s.addEventListener('mouseenter', (ev) => hover('tensor', ti, ev));
        s.addEventListener('mouseleave', () => hover(null));
      }
    }
  }

  function drawNodes() {
    const g = el('g', { class: 'po-nodes' }, svg);
    const peakNode = opts.peakOp >= 0 ? vis.rep[opts.peakOp] : -1;
    nodeEls = vis.nodes.map((nd, i) => {
      const b = layout.nodes[i];
      const tr = `translate(${(b.x - b.w / 2).toFixed(1)},${(b.y - b.h / 2).toFixed(1)})`;
      let e;
      if (nd.op !== undefined) {
        const v = nd.op;
        const cls = ['po-node'];
        if (producesLive(v)) cls.push('po-node-live');
        if (i === peakNode) cls.push('po-node-peak');
        e = el('g', { class: cls.join(' '), 'data-op': model.ops[v].id, 'data-op-ix': String(v), transform: tr }, g);
        el('rect', { width: b.w, height: b.h, rx: 4, fill: viridis(t(v)) }, e);
        el('text', { x: b.w / 2, y: b.h / 2 + 4, 'text-anchor': 'middle', fill: textOn(t(v)) }, e).textContent = tree ? vis.labels[i][0] : model.ops[v].id;
        e.addEventListener('mouseenter', (ev) => hover('op', v, ev));
        e.addEventListener('mousemove', (ev) => hover('op', v, ev));
      } else {
        const gr = tree.groups[nd.group];
        const c = n > 1 ? vis.median[i] / (n - 1) : 0;
        const cls = ['po-group'];
        if (vis.liveCount[i]) cls.push('po-node-live');
        if (i === peakNode) cls.push('po-node-peak');
        e = el('g', { class: cls.join(' '), 'data-group': gr.key, 'data-group-ix': String(nd.group), transform: tr }, g);
        el('rect', { width: b.w, height: b.h, rx: 7, fill: viridis(c) }, e);
        el('rect', { x: 3, y: 3, width: b.w - 6, height: b.h - 6, rx: 5, class: 'po-group-inner' }, e);
        const [l1, l2] = vis.labels[i];
        el('text', { x: 10, y: 14, fill: textOn(c), class: 'po-group-name' }, e).textContent = `+ ${l1}`;
        el('text', { x: 10, y: 27, fill: textOn(c), class: 'po-group-sub' }, e).textContent = l2;
        e.addEventListener('mouseenter', (ev) => hover('group', { group: nd.group, node: i, vis }, ev));
        e.addEventListener('mousemove', (ev) => hover('group', { group: nd.group, node: i, vis }, ev));
      }
      e.addEventListener('mouseleave', () => hover(null));
      return e;
    });
  }

  function highlight(v) {
    if (lit !== null && nodeEls[vis.rep[lit]]) nodeEls[vis.rep[lit]].classList.remove('po-node-hl');
    lit = v;
    if (v !== null && v !== undefined && nodeEls[vis.rep[v]]) nodeEls[vis.rep[v]].classList.add('po-node-hl');
  }

  /** Opens the groups around op v so that it is drawn as itself; true when that changed the layout. */
  function open(v) {
    if (!tree || vis.nodes[vis.rep[v]].op === v) return false;
    for (const g of ancestors(tree, tree.opGroup[v])) expanded.add(g);
    relayout();
    return true;
  }

  function mark() {
    for (const e of svg.querySelectorAll('.po-node-sel')) e.classList.remove('po-node-sel');
    for (const e of svg.querySelectorAll('.po-edge-sel')) e.classList.remove('po-edge-sel');
    if (!sel) return;
    if (sel.kind === 'op') {
      const e = nodeEls[vis.rep[sel.index]];
      if (e) e.classList.add('po-node-sel');
    } else {
      vis.edges.forEach((e, k) => { if (e.tensors.includes(sel.index)) edgeEls[k].classList.add('po-edge-sel'); });
      const p = model.tensors[sel.index].producer;
      if (p >= 0 && nodeEls[vis.rep[p]]) nodeEls[vis.rep[p]].classList.add('po-node-sel');
    }
  }

  /** Shows op v (opening its groups) in the middle of the panel and marks it. */
  function reveal(v) {
    const changed = open(v);
    if (changed) render(vis.rep[v]);
    else centerOn(vis.rep[v], Math.max(viewW / box.w, 0.8));
  }

  function expand(g) {
    if (expanded.has(g)) return;
    expanded.add(g);
    relayout();
    const first = tree.groups[g].children[0];
    const focus = first.op !== undefined ? vis.rep[first.op] : vis.nodeOfGroup.get(first.group) ?? null;
    render(focus);
  }

  function collapse(g) {
    if (g === 0 || !expanded.has(g)) return;
    // Closing a group closes the groups inside it too.
    for (const x of [...expanded]) if (ancestors(tree, x).includes(g)) expanded.delete(x);
    relayout();
    render(vis.nodeOfGroup.get(g));
  }

  relayout();
  render();
  return {
    highlight,
    reveal,
    expand,
    collapse,
    selectOp(v) {
      sel = v === null || v === undefined ? null : { kind: 'op', index: v };
      if (sel) reveal(v);
      mark();
    },
    selectTensor(x) {
      sel = x === null || x === undefined ? null : { kind: 'tensor', index: x };
      if (sel) {
        const tensor = model.tensors[x];
        const at = tensor.producer >= 0 ? tensor.producer : tensor.consumers[0];
        if (at !== undefined) reveal(at);
      }
      mark();
    },
    visible: () => ({ nodes: vis.nodes.length, groups: vis.nodes.filter((nd) => nd.group !== undefined).length, clusters: vis.clusters.length }),
    groupKeyOf: (g) => tree && tree.groups[g].key,
  };
}

/**
 * Outlines fusion regions (arrays of op ids) among the ops drawn as themselves: one box around
 * the members when it holds no other node, else a box around each member (a region's members
 * need not be neighbours in the layout, and a box that also held a non-member would say it is
 * fused). Each box names its region.
 */
function drawRegions(svg, vis, layout, model, regions) {
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
    const members = new Set(region.map((id) => ix.get(id)).filter((v) => v !== undefined && vis.nodes[vis.rep[v]].op === v).map((v) => vis.rep[v]));
    if (!members.size) continue;
    const name = region.join('+');
    const whole = around([...members].map((i) => layout.nodes[i]));
    const intruder = layout.nodes.some((b, i) => b && !members.has(i) && hits(whole, b));
    const rects = intruder ? [...members].map((i) => around([layout.nodes[i]])) : [whole];
    for (const r of rects) {
      const rect = el('rect', {
        x: r.x0, y: r.y0, width: r.x1 - r.x0, height: r.y1 - r.y0, rx: 6, class: 'po-region', 'data-region': name,
      }, g);
      el('title', {}, rect).textContent = `fusion region: ${name}`;
    }
  }
}
