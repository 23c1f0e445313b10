"""A schedule (op ids; an op may appear more than once) written into an fx graph.

``duplicate`` rewrites (a copy of) the joint graph so that every run of the schedule is a node
of its own: the first run of an op is its node, each later run a copy (``Graph.node_copy``,
with its ``getitem`` users) that every later step reads instead; the forward's outputs keep
reading the first instances. torch's extraction of the forward and backward graphs then sees
the recomputations as ordinary nodes, and saves exactly what they and the backward read from
before the boundary. ``order`` moves the nodes of an extracted graph into the schedule's order:
scheduled instances by their step, other nodes (placeholders, ``getitem``, SymInt arithmetic)
as soon as their inputs allow, the output last."""

from __future__ import annotations

import heapq
import operator
from typing import Any, Dict, List, Sequence, Tuple


def _is_getitem(n: Any) -> bool:
    return n.op == "call_function" and n.target is operator.getitem


def duplicate(gm: Any, steps: Sequence[str], num_fwd_outputs: int) -> List[str]:
    """Makes each run of ``steps`` a node of ``gm``'s graph (see the module docstring); returns
    the name of each step's instance, in step order. Unknown step names are an error."""
    import torch.fx
    import torch.utils._pytree as pytree

    graph = gm.graph
    by_name = {n.name: n for n in graph.nodes}
    current: Dict[Any, Any] = {}  # original node -> the instance later steps read
    # instance -> its original node. A first run rewritten to read a recomputation holds that
    # instance in its args: its own later copies must read the input's run current *then*
    # (mobilenet_v2 at its least limit: hardtanh masks recomputed in the backward read the
    # forward's second run of their input, which was then saved, 8.6 MB the plan did not save).
    origin: Dict[Any, Any] = {}
    instances: List[str] = []
    seen = set()
    output = next(n for n in reversed(list(graph.nodes)) if n.op == "output")

    def now(a: Any) -> Any:
        a = origin.get(a, a)
        return current.get(a, a)

    for name in steps:
        node = by_name.get(name)
        if node is None:
            raise KeyError(f"schedule step {name!r} is no node of the joint graph")
        if name not in seen:
            seen.add(name)
            node.args = torch.fx.node.map_arg(node.args, now)
            node.kwargs = torch.fx.node.map_arg(node.kwargs, now)
            current[node] = node
            for u in node.users:
                if _is_getitem(u):
                    current[u] = u
            instances.append(name)
            continue
        with graph.inserting_before(output):
            copy = graph.node_copy(node, now)
            origin[copy] = node
            for u in list(node.users):
                if _is_getitem(u):
                    g = graph.node_copy(u, lambda a: copy if a is node else now(a))
                    origin[g] = u
                    current[u] = g
            current[node] = copy
        instances.append(copy.name)
    leaves, spec = pytree.tree_flatten(output.args)
    leaves = [x if i < num_fwd_outputs or not isinstance(x, torch.fx.Node) else now(x) for i, x in enumerate(leaves)]
    output.args = pytree.tree_unflatten(leaves, spec)
    order(graph, instances)
    graph.lint()
    return instances


def order(graph: Any, instances: Sequence[str]) -> None:
    """Moves ``graph``'s nodes so that the named instances run in the given order and the rest
    as soon as their inputs are there (placeholders first, the output last)."""
    nodes = list(graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    step = {name: i for i, name in enumerate(instances)}
    indeg = {n: 0 for n in nodes}
    succ: Dict[Any, List[Any]] = {n: [] for n in nodes}
    for n in nodes:
        for p in dict.fromkeys(n.all_input_nodes):
            succ[p].append(n)
            indeg[n] += 1

    def key(n: Any) -> Tuple[int, int, int]:
        if n.op in ("placeholder", "get_attr"):
            return (0, 0, index[n])
        if n.op == "output":
            return (3, 0, index[n])
        if n.name in step:
            return (2, step[n.name], index[n])
        return (1, 0, index[n])

    ready = [(key(n), n.name, n) for n in nodes if indeg[n] == 0]
    heapq.heapify(ready)
    out: List[Any] = []
    while ready:
        _, _, n = heapq.heappop(ready)
        out.append(n)
        for s in succ[n]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(ready, (key(s), s.name, s))
    if len(out) != len(nodes):
        raise RuntimeError("the schedule's graph has a cycle")
    first = nodes[0]
    if out[0] is not first:
        first.prepend(out[0])
    for prev, n in zip(out, out[1:]):
        if prev.next is not n:
            prev.append(n)
