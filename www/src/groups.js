// Groups for the DAG of a big graph (docs/web.md): ops nested by their scope path (`meta.scope`:
// torch.fx module path, JAX name stack, ONNX node-name prefix; components split on "/"), or,
// without one, by their id's prefixes ("bert/encoder/layer_0/MatMul", "layer1.0.conv1"). Chains
// of single groups are merged ("encoder/layer_0"), one-op groups dissolved, and a group with more
// than `maxChildren` members gets its members split into runs in program order, so that every
// level stays small enough to read. The view shows a *cut* of this tree: expanded groups show
// their members, collapsed ones are one node.

/** Scope components of op `o` ("a/b/c" -> [a, b]; the op itself is the leaf). */
function pathOf(o) {
  if (o.scope !== null && o.scope !== undefined) return o.scope.split('/').filter((c) => c !== '');
  const id = o.id;
  const sep = id.includes('/') ? '/' : id.includes('.') ? '.' : null;
  if (!sep) return [];
  const parts = id.split(sep).filter((c) => c !== '');
  parts.pop();
  return parts;
}

/**
 * Builds the group tree. Returns {groups, opGroup}: `groups[g]` = {key, name, parent, depth,
 * children (member list in program order: {group: g} or {op: v}), count (ops inside), first
 * (smallest op index inside), chunk (true for a run made to split a big group)}; `groups[0]` is
 * the root; `opGroup[v]` is the group whose members list op v.
 */
export function buildGroups(model, { maxChildren = 24 } = {}) {
  const n = model.ops.length;
  const groups = [{ key: '', name: '', parent: -1, kids: new Map(), ops: [], chunk: false }];
  const opGroup = new Int32Array(n);
  for (let v = 0; v < n; v++) {
    let g = 0;
    let key = '';
    for (const c of pathOf(model.ops[v])) {
      key = key ? `${key}/${c}` : c;
      let k = groups[g].kids.get(c);
      if (k === undefined) {
        k = groups.length;
        groups.push({ key, name: c, parent: g, kids: new Map(), ops: [], chunk: false });
        groups[g].kids.set(c, k);
      }
      g = k;
    }
    groups[g].ops.push(v);
    opGroup[v] = g;
  }
  // Members in program order (a group sits where its first op is), counts, first ops: children
  // are created after their parents, so one backwards pass sees every child before its parent.
  for (const gr of groups) {
    gr.count = gr.ops.length;
    gr.first = gr.ops.length ? gr.ops[0] : n;
  }
  for (let g = groups.length - 1; g > 0; g--) {
    const p = groups[groups[g].parent];
    p.count += groups[g].count;
    p.first = Math.min(p.first, groups[g].first);
  }
  for (const gr of groups) {
    gr.children = [...[...gr.kids.values()].map((k) => ({ group: k })), ...gr.ops.map((v) => ({ op: v }))];
    delete gr.kids;
    delete gr.ops;
  }
  const firstOf = (m) => (m.op !== undefined ? m.op : groups[m.group].first);
  // Simplify, top-down (a work list, not recursion): lift the only child of the root, dissolve
  // groups of one op, merge a group whose only member is a group into it. (Groups left out of
  // the tree this way are dropped when it is renumbered below.)
  const work = [0];
  while (work.length) {
    const g = work.pop();
    const gr = groups[g];
    let changed = true;
    while (changed) {
      changed = false;
      const next = [];
      for (const m of gr.children) {
        if (m.group === undefined) {
          next.push(m);
          continue;
        }
        const c = groups[m.group];
        if (c.count === 1) {
          // Dissolve: its one op (somewhere below) joins this group.
          let d = m.group;
          while (groups[d].children[0].group !== undefined) d = groups[d].children[0].group;
          const v = groups[d].children[0].op;
          opGroup[v] = g;
          next.push({ op: v });
          changed = true;
        } else if (c.children.length === 1 && c.children[0].group !== undefined) {
          // Merge the chain: "a" holding only "b" becomes "a/b".
          const only = groups[c.children[0].group];
          c.name = `${c.name}/${only.name}`;
          c.key = only.key;
          c.children = only.children;
          for (const mm of c.children) {
            if (mm.group !== undefined) groups[mm.group].parent = m.group;
            else opGroup[mm.op] = m.group;
          }
          next.push(m);
          changed = true;
        } else next.push(m);
      }
      gr.children = next;
      if (g === 0 && gr.children.length === 1 && gr.children[0].group !== undefined) {
        // The root holding one group: show that group's members at the top.
        const only = gr.children[0].group;
        gr.children = groups[only].children;
        for (const mm of gr.children) {
          if (mm.group !== undefined) groups[mm.group].parent = 0;
          else opGroup[mm.op] = 0;
        }
        changed = true;
      }
    }
    gr.children.sort((a, b) => firstOf(a) - firstOf(b));
    for (const m of gr.children) if (m.group !== undefined) work.push(m.group);
  }
  // Split big groups into runs of members in program order, as many levels as needed.
  const splitWork = [0];
  while (splitWork.length) {
    const g = splitWork.pop();
    let members = groups[g].children;
    for (let level = 0; members.length > maxChildren; level++) {
      const runs = Math.ceil(members.length / maxChildren);
      const size = Math.ceil(members.length / runs);
      const next = [];
      for (let i = 0; i < members.length; i += size) {
        const run = members.slice(i, i + size);
        if (run.length === 1) {
          next.push(run[0]);
          continue;
        }
        const k = groups.length;
        const count = run.reduce((a, m) => a + (m.op !== undefined ? 1 : groups[m.group].count), 0);
        groups.push({
          key: `${groups[g].key}#${level}.${i / size}`, name: '', parent: g, children: run,
          count, first: firstOf(run[0]), chunk: true, span: [run[0], run[run.length - 1]],
        });
        for (const m of run) {
          if (m.group !== undefined) groups[m.group].parent = k;
          else opGroup[m.op] = k;
        }
        next.push({ group: k });
      }
      members = next;
    }
    groups[g].children = members;
    for (const m of members) if (m.group !== undefined) splitWork.push(m.group);
  }
  // Renumber the live groups (root first), naming runs by the members they span.
  const keep = [];
  const newIx = new Int32Array(groups.length).fill(-1);
  const order = [0];
  for (let head = 0; head < order.length; head++) {
    const g = order[head];
    newIx[g] = keep.length;
    keep.push(g);
    for (const m of groups[g].children) if (m.group !== undefined) order.push(m.group);
  }
  const label = (m) => (m.op !== undefined ? model.ops[m.op].id : groups[m.group].chunk ? label(groups[m.group].span[0]) : groups[m.group].name);
  const lastLabel = (m) => (m.op !== undefined ? model.ops[m.op].id : groups[m.group].chunk ? lastLabel(groups[m.group].span[1]) : groups[m.group].name);
  const out = keep.map((g) => {
    const gr = groups[g];
    return {
      key: gr.key,
      name: gr.chunk ? `${shortName(label(gr.span[0]))} … ${shortName(lastLabel(gr.span[1]))}` : gr.name,
      parent: gr.parent >= 0 ? newIx[gr.parent] : -1,
      children: gr.children.map((m) => (m.op !== undefined ? { op: m.op } : { group: newIx[m.group] })),
      count: gr.count,
      first: gr.first,
      chunk: gr.chunk,
      depth: 0,
    };
  });
  for (let g = 1; g < out.length; g++) out[g].depth = out[out[g].parent].depth + 1;
  for (let v = 0; v < n; v++) opGroup[v] = newIx[opGroup[v]];
  return { groups: out, opGroup };
}

/** The last component of an id or a path, for labels. */
export function shortName(s) {
  const cut = s.includes('/') ? s.lastIndexOf('/') : s.lastIndexOf('.');
  return cut >= 0 && cut < s.length - 1 ? s.slice(cut + 1) : s;
}

/** Groups from the root down to (and including) group `g`. */
export function ancestors(tree, g) {
  const out = [];
  for (let x = g; x >= 0; x = tree.groups[x].parent) out.push(x);
  return out.reverse();
}

/**
 * The visible graph for the set of expanded groups (the root is always expanded): `nodes` (each
 * {op: v} or {group: g}, with `parent`: the expanded group it is drawn in), `rep[v]` (the node
 * showing op v), and `edges` between nodes ({from, to, tensors}: the model's edges merged).
 */
export function visibleGraph(model, tree, expanded) {
  const { groups } = tree;
  const nodes = [];
  const nodeOfGroup = new Map();
  const nodeOfOp = new Int32Array(model.ops.length).fill(-1);
  const clusters = []; // expanded groups other than the root, drawn as boxes
  const stack = [0];
  while (stack.length) {
    const g = stack.pop();
    if (g !== 0) clusters.push(g);
    for (let i = groups[g].children.length - 1; i >= 0; i--) {
      const m = groups[g].children[i];
      if (m.op !== undefined) {
        nodeOfOp[m.op] = nodes.length;
        nodes.push({ op: m.op, parent: g });
      } else if (expanded.has(m.group)) stack.push(m.group);
      else {
        nodeOfGroup.set(m.group, nodes.length);
        nodes.push({ group: m.group, parent: g });
      }
    }
  }
  // rep[v]: the node of op v, or of its outermost collapsed group.
  const rep = new Int32Array(model.ops.length);
  for (let v = 0; v < model.ops.length; v++) {
    if (nodeOfOp[v] >= 0) {
      rep[v] = nodeOfOp[v];
      continue;
    }
    let at = -1;
    for (let g = tree.opGroup[v]; g > 0; g = groups[g].parent) if (nodeOfGroup.has(g)) at = nodeOfGroup.get(g);
    rep[v] = at;
  }
  const edgeIx = new Map();
  const edges = [];
  for (const e of model.edges) {
    const a = rep[e.from];
    const b = rep[e.to];
    if (a === b) continue;
    const key = a * nodes.length + b;
    let k = edgeIx.get(key);
    if (k === undefined) {
      k = edges.length;
      edgeIx.set(key, k);
      edges.push({ from: a, to: b, tensors: [] });
    }
    for (const t of e.tensors) edges[k].tensors.push(t);
  }
  return { nodes, rep, edges, clusters, nodeOfGroup };
}

/**
 * The groups to expand at first: the path to the `focus` op (the planned peak), then more groups,
 * largest share of `weight` first, while the visible nodes stay within `budget`.
 */
export function defaultExpanded(tree, focus, budget = 60, weight = null) {
  const { groups } = tree;
  const expanded = new Set([0]);
  let visible = groups[0].children.length;
  if (focus !== null && focus !== undefined && focus >= 0) {
    for (const g of ancestors(tree, tree.opGroup[focus]).slice(1)) {
      expanded.add(g);
      visible += groups[g].children.length - 1;
    }
  }
  // Candidates: collapsed groups whose parent is expanded.
  const score = (g) => (weight ? weight[g] : 0) * 1e9 + groups[g].count;
  for (;;) {
    let best = -1;
    for (let g = 1; g < groups.length; g++) {
      if (expanded.has(g) || !expanded.has(groups[g].parent)) continue;
      if (visible + groups[g].children.length - 1 > budget) continue;
      if (best < 0 || score(g) > score(best)) best = g;
    }
    if (best < 0) break;
    expanded.add(best);
    visible += groups[best].children.length - 1;
  }
  return expanded;
}
