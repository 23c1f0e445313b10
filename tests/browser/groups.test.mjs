// The grouped DAG's tree, cut and layout (www/src/groups.js, www/src/layered.js) on 2,000 random
// graphs with random scope paths (as strings, arrays, op-id prefixes with "/" or ".", or none),
// in Node: every op sits in exactly one group, no level holds more than maxChildren members, the
// visible graph stands for every op and edge, the first view shows the peak op itself within its
// node budget, and the layout puts every node inside its open group's box with no two boxes of
// one level overlapping. A failure names its seed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGroups, visibleGraph, defaultExpanded, ancestors } from '../../www/src/groups.js';
import { layoutGrouped } from '../../www/src/layered.js';

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A model as model.js builds it (only what groups and layout read): ops with ids and scopes, edges. */
function randomModel(seed) {
  const r = rng(seed);
  const int = (k) => Math.floor(r() * k);
  const n = 1 + int(r() < 0.2 ? 300 : 60);
  const style = int(5); // 0 scope strings, 1 scope arrays, 2 "/" ids, 3 "." ids, 4 no names
  const names = ['enc', 'dec', 'layer_0', 'layer_1', 'attn', 'ffn', 'jvp(f)', 'transpose(jvp(f))'];
  const ops = [];
  for (let v = 0; v < n; v++) {
    const depth = int(4);
    const path = Array.from({ length: depth }, () => names[int(r() < 0.7 ? 3 : names.length)]);
    const leaf = `op${v}`;
    let id = leaf;
    let scope = null;
    if (style === 0) scope = path.join('/');
    else if (style === 1) scope = path;
    else if (style === 2) id = [...path, leaf].join('/');
    else if (style === 3) id = [...path.map((p) => p.replace(/[^a-z0-9]/g, '')), leaf].join('.');
    ops.push({ id: `${id}#${v}`, scope: style === 1 ? path.join('/') : scope });
  }
  const edges = [];
  const seen = new Set();
  for (let v = 1; v < n; v++) {
    for (let k = 0, m = int(3); k < m; k++) {
      const u = Math.max(0, v - 1 - int(r() < 0.8 ? 4 : v));
      if (u === v || seen.has(u * n + v)) continue;
      seen.add(u * n + v);
      edges.push({ from: u, to: v, tensors: [edges.length] });
    }
  }
  return { ops, edges, maxChildren: 3 + int(24) };
}

test('groups, the visible graph and the grouped layout, on 2,000 random graphs', () => {
  for (let seed = 1; seed <= 2000; seed++) {
    const model = randomModel(seed);
    const what = `seed ${seed}`;
    const n = model.ops.length;
    const tree = buildGroups(model, { maxChildren: model.maxChildren });
    const { groups, opGroup } = tree;
    // Every op is a member of exactly one group, the one opGroup names; counts add up.
    const seenOps = new Int32Array(n);
    groups.forEach((g, i) => {
      assert.ok(g.children.length <= model.maxChildren, `${what}: group ${i} has ${g.children.length} members`);
      if (i > 0) assert.ok(g.children.length >= 2, `${what}: group ${i} (${g.name}) has one member`);
      let count = 0;
      for (const m of g.children) {
        if (m.op !== undefined) {
          seenOps[m.op] += 1;
          assert.equal(opGroup[m.op], i, `${what}: op ${m.op} in group ${i}`);
          count += 1;
        } else {
          assert.equal(groups[m.group].parent, i, `${what}: parent of group ${m.group}`);
          assert.equal(groups[m.group].depth, g.depth + 1);
          count += groups[m.group].count;
        }
      }
      assert.equal(count, g.count, `${what}: count of group ${i}`);
    });
    assert.ok(seenOps.every((c) => c === 1), `${what}: every op once`);
    assert.equal(groups[0].count, n);
    // The first view: the focus op is drawn as itself, within the budget unless its path needs more.
    const focus = Math.floor(rng(seed * 31)() * n);
    const budget = 20;
    const expanded = defaultExpanded(tree, focus, budget);
    const vis = visibleGraph(model, tree, expanded);
    assert.equal(vis.nodes[vis.rep[focus]].op, focus, `${what}: the focus op is visible as itself`);
    const pathNodes = ancestors(tree, opGroup[focus]).reduce((a, g) => a + groups[g].children.length - (g ? 1 : 0), 0);
    assert.ok(vis.nodes.length <= Math.max(budget, pathNodes), `${what}: ${vis.nodes.length} nodes shown`);
    // Every op is represented by one node, inside an open group; every edge between different
    // nodes is drawn once, none from a node to itself.
    for (let v = 0; v < n; v++) {
      const nd = vis.nodes[vis.rep[v]];
      assert.ok(nd, `${what}: op ${v} has a node`);
      assert.ok(expanded.has(nd.parent), `${what}: op ${v}'s node sits in an open group`);
      if (nd.group !== undefined) assert.ok(ancestors(tree, opGroup[v]).includes(nd.group), `${what}: op ${v} in its node's group`);
    }
    const drawn = new Set(vis.edges.map((e) => `${e.from}>${e.to}`));
    assert.equal(drawn.size, vis.edges.length, `${what}: no edge twice`);
    for (const e of vis.edges) assert.notEqual(e.from, e.to);
    for (const e of model.edges) {
      const a = vis.rep[e.from];
      const b = vis.rep[e.to];
      if (a !== b) assert.ok(drawn.has(`${a}>${b}`), `${what}: edge ${e.from}->${e.to} drawn`);
    }
    // The layout: each node in its group's box, and the members of one group apart.
    const layout = layoutGrouped(tree, vis, (i) => ({ w: 20 + (i % 5) * 9, h: vis.nodes[i].group !== undefined ? 34 : 22 }), 400 + (seed % 3) * 300);
    const boxOf = (i) => {
      const b = layout.nodes[i];
      return { x0: b.x - b.w / 2, y0: b.y - b.h / 2, x1: b.x + b.w / 2, y1: b.y + b.h / 2 };
    };
    const clusterBox = (g) => {
      const c = layout.clusters.get(g);
      return { x0: c.x, y0: c.y, x1: c.x + c.w, y1: c.y + c.h };
    };
    const inside = (a, b) => a.x0 >= b.x0 - 1e-6 && a.y0 >= b.y0 - 1e-6 && a.x1 <= b.x1 + 1e-6 && a.y1 <= b.y1 + 1e-6;
    const apart = (a, b) => a.x1 <= b.x0 + 1e-6 || b.x1 <= a.x0 + 1e-6 || a.y1 <= b.y0 + 1e-6 || b.y1 <= a.y0 + 1e-6;
    const whole = { x0: 0, y0: 0, x1: layout.width + 16, y1: layout.height + 16 };
    const level = new Map();
    vis.nodes.forEach((nd, i) => {
      const b = boxOf(i);
      assert.ok(inside(b, nd.parent === 0 ? whole : clusterBox(nd.parent)), `${what}: node ${i} inside its group's box`);
      if (!level.has(nd.parent)) level.set(nd.parent, []);
      level.get(nd.parent).push(b);
    });
    for (const g of vis.clusters) {
      const p = groups[g].parent;
      assert.ok(inside(clusterBox(g), p === 0 ? whole : clusterBox(p)), `${what}: group ${g} inside its parent's box`);
      if (!level.has(p)) level.set(p, []);
      level.get(p).push(clusterBox(g));
    }
    for (const boxes of level.values()) {
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) assert.ok(apart(boxes[i], boxes[j]), `${what}: two members of one group overlap`);
    }
    assert.equal(layout.edges.length, vis.edges.length);
  }
});
