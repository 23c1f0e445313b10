// The layout of a small graph drawn whole: dagre's layered (Sugiyama) layout with routed edges,
// computed in the worker so the page never waits for it. Past FULL_DAG_LIMIT ops (or
// FULL_DAG_EDGE_LIMIT edges) the view groups the graph instead (groups.js, layered.js), which
// reads better than thousands of boxes and lays out in linear time.

import dagre from '@dagrejs/dagre';

export const FULL_DAG_LIMIT = 150;
export const FULL_DAG_EDGE_LIMIT = 400;

const NODE_H = 22;
const CHAR_W = 6.6; // 11px monospace

/** Whether `model` is drawn whole (with dagre) rather than grouped. */
export function drawnWhole(model) {
  return model.ops.length <= FULL_DAG_LIMIT && model.edges.length <= FULL_DAG_EDGE_LIMIT;
}

/** dagre's layout of every op, or null for a graph that is grouped instead. */
export function layoutDag(model) {
  if (!drawnWhole(model)) return null;
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
