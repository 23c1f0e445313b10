// DAG layout, computed in the worker so a large graph never freezes the page.
// Up to FULL_DAG_LIMIT ops: dagre's layered (Sugiyama) layout with routed edges. Past it: a
// simplified view (one column per longest-path layer, ops as dots, no edge routing), which
// the page labels as such.

import dagre from '@dagrejs/dagre';
import { layers } from './model.js';

export const FULL_DAG_LIMIT = 400;
export const FULL_DAG_EDGE_LIMIT = 1600;

const NODE_H = 22;
const CHAR_W = 6.6; // 11px monospace

/** `rank` maps op index -> position in the planned order (orders ops within a simple layer). */
export function layoutDag(model, rank) {
  const n = model.ops.length;
  if (n <= FULL_DAG_LIMIT && model.edges.length <= FULL_DAG_EDGE_LIMIT) return dagreLayout(model);
  return simpleLayout(model, rank);
}

function dagreLayout(model) {
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: 'LR', nodesep: 6, ranksep: 34, edgesep: 4, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  model.ops.forEach((o, v) => {
    g.setNode(String(v), { width: Math.max(28, o.id.length * CHAR_W + 12), height: NODE_H });
  });
  for (const e of model.edges) g.setEdge(String(e.from), String(e.to));
  dagre.layout(g);
  const nodes = model.ops.map((_, v) => {
    const p = g.node(String(v));
    return { x: p.x, y: p.y, w: p.width, h: p.height };
  });
  const edges = model.edges.map((e) => {
    const p = g.edge(String(e.from), String(e.to));
    return p.points.map((q) => [q.x, q.y]);
  });
  const gg = g.graph();
  return { kind: 'full', width: gg.width, height: gg.height, nodes, edges };
}

function simpleLayout(model, rank) {
  const n = model.ops.length;
  const layer = layers(model) || new Int32Array(n);
  let depth = 0;
  for (let v = 0; v < n; v++) depth = Math.max(depth, layer[v] + 1);
  const cols = Array.from({ length: depth }, () => []);
  for (let v = 0; v < n; v++) cols[layer[v]].push(v);
  let tallest = 0;
  for (const c of cols) {
    c.sort((a, b) => rank[a] - rank[b]);
    tallest = Math.max(tallest, c.length);
  }
  // Fit in a box about 1000 × 460 css px, whatever the shape.
  const dx = Math.max(2, Math.min(40, 1000 / Math.max(1, depth)));
  const dy = Math.max(1, Math.min(14, 460 / Math.max(1, tallest)));
  const x = new Float32Array(n);
  const y = new Float32Array(n);
  cols.forEach((c, l) => c.forEach((v, i) => {
    x[v] = 8 + l * dx + dx / 2;
    y[v] = 8 + i * dy + dy / 2;
  }));
  return {
    kind: 'simple', width: depth * dx + 16, height: tallest * dy + 16,
    layers: depth, widest: tallest, dx, dy, x, y, cols,
  };
}
