// Layout of the grouped DAG (docs/web.md): a layered (Sugiyama-style) layout, left to right,
// nested: each expanded group is laid out on its own, from the deepest up, and then is one box
// among its parent's members. Layers are longest paths (edges kept in program order, so the
// graph of members is acyclic even where collapsing groups made cycles), members are ordered in
// their layer by a few barycenter sweeps (Sugiyama, Tagawa, Toda 1981), layers wrap into rows
// when they would be wider than the panel, edges are curves. Linear in the graph's size, so
// expanding a group re-lays out at once on the main thread.

const GAP_X = 34;
const GAP_Y = 8;
const PAD = 8;
const HEADER = 20;
const SWEEPS = 4;
const ROW_GAP = 30;

/**
 * `vis` from groups.js visibleGraph; `size(i)` gives {w, h} of visible node i; layers wrap into
 * rows no wider than `wrapWidth` (at every level). Returns
 * {kind: 'grouped', width, height, nodes: [{x, y, w, h}] (centres, per visible node),
 * clusters: Map(group -> {x, y, w, h}) (top-left corners), edges: [[p0, c1, c2, p1]] (a cubic
 * curve per visible edge)}.
 */
export function layoutGrouped(tree, vis, size, wrapWidth = Infinity) {
  const { groups } = tree;
  // Members of each expanded group: visible nodes, and expanded groups as boxes.
  const expanded = [0, ...vis.clusters];
  const members = new Map(expanded.map((g) => [g, []]));
  vis.nodes.forEach((nd, i) => members.get(nd.parent).push({ node: i }));
  for (const g of vis.clusters) members.get(groups[g].parent).push({ box: g });
  // Which member of group G holds visible node i: walk up from i's parent.
  const depthOf = (g) => groups[g].depth;
  const itemIx = new Map(); // `${group}:${node|box}` -> index in members
  for (const [g, ms] of members) ms.forEach((m, k) => itemIx.set(m.node !== undefined ? `${g}:n${m.node}` : `${g}:b${m.box}`, k));
  const memberEdges = new Map(expanded.map((g) => [g, new Set()]));
  for (const e of vis.edges) {
    // Lift both ends to the children of their lowest common expanded group.
    let a = { g: vis.nodes[e.from].parent, key: `n${e.from}` };
    let b = { g: vis.nodes[e.to].parent, key: `n${e.to}` };
    while (a.g !== b.g) {
      if (depthOf(a.g) >= depthOf(b.g)) a = { g: groups[a.g].parent, key: `b${a.g}` };
      else b = { g: groups[b.g].parent, key: `b${b.g}` };
    }
    const ia = itemIx.get(`${a.g}:${a.key}`);
    const ib = itemIx.get(`${b.g}:${b.key}`);
    if (ia !== ib) memberEdges.get(a.g).add(ia * 1e6 + ib);
  }
  const firstOf = (m) => (m.node !== undefined ? firstOfNode(vis.nodes[m.node]) : groups[m.box].first);
  const firstOfNode = (nd) => (nd.op !== undefined ? nd.op : groups[nd.group].first);

  const boxSize = new Map();
  const local = new Map(); // group -> member positions (top-left, relative to its content)
  const byDepth = [...expanded].sort((x, y) => depthOf(y) - depthOf(x));
  for (const g of byDepth) {
    const ms = members.get(g);
    const sizes = ms.map((m) => (m.node !== undefined ? size(m.node) : boxSize.get(m.box)));
    const keys = ms.map(firstOf);
    const pairs = [...memberEdges.get(g)].map((x) => [Math.floor(x / 1e6), x % 1e6]);
    const placed = layerOut(ms.length, keys, pairs, sizes, wrapWidth);
    local.set(g, placed.pos);
    const header = g === 0 ? 0 : HEADER;
    boxSize.set(g, { w: placed.width + 2 * PAD, h: placed.height + header + PAD + (g === 0 ? PAD : 0) });
  }
  // Absolute positions, from the root down.
  const nodes = new Array(vis.nodes.length);
  const clusters = new Map();
  const origin = new Map([[0, { x: PAD, y: PAD }]]);
  const topDown = [...expanded].sort((x, y) => depthOf(x) - depthOf(y));
  for (const g of topDown) {
    const o = origin.get(g);
    members.get(g).forEach((m, k) => {
      const p = local.get(g)[k];
      const x = o.x + p.x;
      const y = o.y + p.y;
      if (m.node !== undefined) {
        const s = size(m.node);
        nodes[m.node] = { x: x + s.w / 2, y: y + s.h / 2, w: s.w, h: s.h };
      } else {
        const s = boxSize.get(m.box);
        clusters.set(m.box, { x, y, w: s.w, h: s.h });
        origin.set(m.box, { x: x + PAD, y: y + HEADER });
      }
    });
  }
  const edges = vis.edges.map((e) => curve(nodes[e.from], nodes[e.to]));
  const root = boxSize.get(0);
  return { kind: 'grouped', width: root.w, height: root.h, nodes, clusters, edges };
}

/** Layers, order and positions of `n` members with sizes, keys (program order) and edges. */
function layerOut(n, keys, pairs, sizes, wrap) {
  const byKey = [...Array(n).keys()].sort((a, b) => keys[a] - keys[b]);
  const rankOf = new Int32Array(n);
  byKey.forEach((m, r) => { rankOf[m] = r; });
  const ins = Array.from({ length: n }, () => []);
  const outs = Array.from({ length: n }, () => []);
  for (const [a, b] of pairs) {
    // Forward in program order only: the members' graph is then acyclic.
    if (rankOf[a] < rankOf[b]) {
      ins[b].push(a);
      outs[a].push(b);
    } else {
      ins[a].push(b);
      outs[b].push(a);
    }
  }
  const layer = new Int32Array(n);
  let depth = 0;
  for (const m of byKey) {
    for (const p of ins[m]) if (layer[p] + 1 > layer[m]) layer[m] = layer[p] + 1;
    depth = Math.max(depth, layer[m] + 1);
  }
  const cols = Array.from({ length: depth }, () => []);
  for (const m of byKey) cols[layer[m]].push(m);
  // Barycenter sweeps: each member moves towards the mean position of its neighbours in the
  // layers already ordered (positions normalised to [0, 1], so long edges count too).
  const at = new Float64Array(n);
  const norm = () => cols.forEach((c) => c.forEach((m, i) => { at[m] = (i + 0.5) / c.length; }));
  norm();
  for (let s = 0; s < SWEEPS; s++) {
    const down = s % 2 === 0;
    const seq = down ? cols : [...cols].reverse();
    for (const c of seq) {
      const bary = new Map();
      for (const m of c) {
        const nb = down ? ins[m] : outs[m];
        bary.set(m, nb.length ? nb.reduce((a, x) => a + at[x], 0) / nb.length : at[m]);
      }
      c.sort((a, b) => bary.get(a) - bary.get(b) || keys[a] - keys[b]);
      c.forEach((m, i) => { at[m] = (i + 0.5) / c.length; });
    }
  }
  const colW = cols.map((c) => Math.max(...c.map((m) => sizes[m].w)));
  const colH = cols.map((c) => c.reduce((a, m) => a + sizes[m].h, 0) + GAP_Y * (c.length - 1));
  // Wrap the layers into rows no wider than `wrap` (as ELK's layered graph wrapping does): a
  // training step is mostly one long chain of groups, which would otherwise be one thin line.
  const rows = [];
  let row = null;
  cols.forEach((_, l) => {
    if (!row || (row.width + GAP_X + colW[l] > wrap && row.cols.length)) {
      row = { cols: [], width: -GAP_X, height: 0 };
      rows.push(row);
    }
    row.cols.push(l);
    row.width += GAP_X + colW[l];
    row.height = Math.max(row.height, colH[l]);
  });
  const pos = new Array(n);
  let y0 = 0;
  let width = 0;
  for (const r of rows) {
    let x = 0;
    for (const l of r.cols) {
      let y = y0 + (r.height - colH[l]) / 2;
      for (const m of cols[l]) {
        pos[m] = { x: x + (colW[l] - sizes[m].w) / 2, y };
        y += sizes[m].h + GAP_Y;
      }
      x += colW[l] + GAP_X;
    }
    width = Math.max(width, r.width);
    y0 += r.height + ROW_GAP;
  }
  return { pos, width: Math.max(0, width), height: Math.max(0, y0 - ROW_GAP) };
}

/** A curve from a's right side to b's left side; a loop out and back in when b is not to the right. */
function curve(a, b) {
  const p0 = [a.x + a.w / 2, a.y];
  const p1 = [b.x - b.w / 2, b.y];
  const dx = Math.max(24, Math.abs(p1[0] - p0[0]) / 2);
  return [p0, [p0[0] + dx, p0[1]], [p1[0] - dx, p1[1]], p1];
}
