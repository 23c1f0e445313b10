"""Putting an fx graph's nodes into a planned order, safely.

The plan orders the exported graph's ops (docs/design.md §3); the fx graph also has nodes that
are no ops there (placeholders, ``get_attr``, ``getitem``, SymInt arithmetic, the output) and
ordering rules that the data edges do not show (``_effects``). This module

- finds those rules as extra edges between fx nodes (:func:`constraints`),
- adds them to the exported graph as 0-byte tensors, so the planner respects them
  (:func:`with_order_edges`),
- and moves the nodes (:func:`apply`): a topological sort of the fx graph plus the extra edges
  that takes, among the nodes ready, placeholders and ``get_attr`` first, then ``getitem``, views
  and other non-op nodes at once (next to their producer, so a multi-output node's tuple dies at
  once), then the op that comes first in the plan; the output node last. When the plan respects
  every edge (it does, with :func:`with_order_edges`) the ops run exactly in the planned order.

Only ``Node.prepend`` moves nodes: no node is created, copied or changed; the graph is linted
after the move and restored to its old order if lint fails."""

from __future__ import annotations

import heapq
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from . import _effects
from ._api import error

Edge = Tuple[Any, Any]


def _roots(graph: Dict[str, Any]) -> Dict[str, str]:
    """tensor id -> the id of the storage it lives in (its alias_of chain's end)."""
    parent = {t["id"]: t.get("alias_of") for t in graph["tensors"]}
    root: Dict[str, str] = {}
    for tid in parent:
        path = []
        cur = tid
        while cur not in root and parent.get(cur) is not None:
            path.append(cur)
            cur = parent[cur]
        end = root.get(cur, cur)
        for p in path:
            root[p] = end
        root[tid] = end
    return root


def _ids(env: Dict[Any, Any], node: Any) -> List[str]:
    v = env.get(node)
    if v is None:
        return []
    return [t for t in v if t is not None] if isinstance(v, list) else [v]


def constraints(nodes: Sequence[Any], graph: Dict[str, Any], env: Dict[Any, Any]) -> List[Edge]:
    """Edges (a, b): ``a`` must run before ``b``, beyond the fx data edges. Every edge points
    forward in ``nodes`` (the program order), so adding them keeps the graph acyclic."""
    root = _roots(graph)
    accesses: Dict[str, List[Tuple[Any, bool]]] = {}
    edges: List[Edge] = []
    prev_ordered = None
    for node in nodes:
        if node.op in ("placeholder", "get_attr", "output"):
            continue
        writes = set()
        for w in _effects.written(node):
            writes.update(root.get(t, t) for t in _ids(env, w))  # non-tensors hold no storage
        touched = set(writes)
        for a in node.all_input_nodes:
            touched.update(root.get(t, t) for t in _ids(env, a))
        touched.update(root.get(t, t) for t in _ids(env, node))
        for r in touched:
            accesses.setdefault(r, []).append((node, r in writes))
        if _effects.is_ordered(node):
            if prev_ordered is not None:
                edges.append((prev_ordered, node))
            prev_ordered = node
    for seq in accesses.values():
        if not any(w for _, w in seq):
            continue
        last_write = None
        reads: List[Any] = []
        for node, w in seq:
            if w:
                for r in reads:
                    edges.append((r, node))
                if last_write is not None and not reads:
                    edges.append((last_write, node))
                last_write, reads = node, []
            else:
                if last_write is not None:
                    edges.append((last_write, node))
                reads.append(node)
    return edges


def with_order_edges(graph: Dict[str, Any], edges: Iterable[Edge]) -> Dict[str, Any]:
    """A copy of ``graph`` where each edge between two ops that no tensor already joins is a
    0-byte tensor (``meta.order_only``) from the first op to the second."""
    ops = {o["id"]: o for o in graph["ops"]}
    producer = {t: o["id"] for o in graph["ops"] for t in o["outputs"]}
    new_ops = {oid: dict(o, inputs=list(o["inputs"]), outputs=list(o["outputs"])) for oid, o in ops.items()}
    tensors = list(graph["tensors"])
    used = {t["id"] for t in tensors}
    seen: Set[Tuple[str, str]] = set()
    for a, b in edges:
        if a.name not in ops or b.name not in ops or (a.name, b.name) in seen:
            continue
        seen.add((a.name, b.name))
        if any(producer.get(t) == a.name for t in ops[b.name]["inputs"]):
            continue
        tid = f"order:{a.name}>{b.name}"
        while tid in used:
            tid += "'"
        used.add(tid)
        tensors.append({"id": tid, "bytes": 0, "meta": {"order_only": True}})
        new_ops[a.name]["outputs"].append(tid)
        new_ops[b.name]["inputs"].append(tid)
    out = dict(graph, tensors=tensors, ops=[new_ops[o["id"]] for o in graph["ops"]])
    return out


def _eager(node: Any, graph_ops: Dict[str, Dict[str, Any]], aliased: Set[str]) -> bool:
    """Non-op nodes, and ops that only make views, run as soon as they can."""
    op = graph_ops.get(node.name)
    if op is None:
        return True
    return bool(op["outputs"]) and all(t in aliased for t in op["outputs"]) and not (
        _effects.written(node) or _effects.is_ordered(node)
    )


def order_nodes(
    fx_graph: Any, graph: Dict[str, Any], plan_order: Sequence[str], edges: Iterable[Edge]
) -> List[Any]:
    """The fx nodes in their new order (see the module docstring)."""
    nodes = list(fx_graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    graph_ops = {o["id"]: o for o in graph["ops"]}
    aliased = {t["id"] for t in graph["tensors"] if "alias_of" in t}
    pos = {oid: i for i, oid in enumerate(plan_order)}
    missing = [n.name for n in nodes if n.name in graph_ops and n.name not in pos]
    if missing:
        raise error("missing_op", f"the plan leaves out op {missing[0]!r}", missing[0])
    succ: Dict[Any, List[Any]] = {n: [] for n in nodes}
    indeg: Dict[Any, int] = {n: 0 for n in nodes}
    for n in nodes:
        for p in dict.fromkeys(n.all_input_nodes):
            succ[p].append(n)
            indeg[n] += 1
    for a, b in dict.fromkeys(edges):
        succ[a].append(b)
        indeg[b] += 1

    def key(n: Any) -> Tuple[int, int]:
        if n.op in ("placeholder", "get_attr"):
            return (0, index[n])
        if n.op == "output":
            return (3, index[n])
        if _eager(n, graph_ops, aliased):
            return (1, index[n])
        return (2, pos[n.name])

    ready = [(key(n), index[n], n) for n in nodes if indeg[n] == 0]
    heapq.heapify(ready)
    out: List[Any] = []
    while ready:
        _, _, n = heapq.heappop(ready)
        out.append(n)
        for s in succ[n]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(ready, (key(s), index[s], s))
    if len(out) != len(nodes):  # cannot happen: every edge points forward in program order
        raise error("cycle", "the ordering rules of this fx graph form a cycle")
    return out


def apply(fx_graph: Any, new_order: Sequence[Any]) -> None:
    """Moves ``fx_graph``'s nodes into ``new_order`` in place; lints, and restores on failure."""
    old = list(fx_graph.nodes)
    _move(fx_graph, new_order)
    try:
        fx_graph.lint()
    except Exception:
        _move(fx_graph, old)
        raise


def _move(fx_graph: Any, order: Sequence[Any]) -> None:
    first = next(iter(fx_graph.nodes))
    if order[0] is not first:
        first.prepend(order[0])
    for prev, n in zip(order, order[1:]):
        if prev.next is not n:
            prev.append(n)
