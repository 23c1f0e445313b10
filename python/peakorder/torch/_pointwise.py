"""Pointwise chains of the joint problem planned as one op each, as Inductor runs them.

Inductor fuses a chain of pointwise nodes into one kernel: the values passed along the chain
are never buffers. The joint problem (``_joint``) has one op per node, so a chain recomputed
by the backward was planned with each link a buffer of its own, live while the next runs. The
planner then found recomputing GELU's five nodes (or LayerNorm's normalisation) no cheaper in
bytes than keeping its output, and recomputed a matmul instead (the GPT-style step at a
28.5 MB limit: 0.134 GFLOPs planned where PyTorch's partitioner lowers the peak as far with
pointwise recomputation only).

``collapse`` joins each pointwise node to its reader where the reader is the only one, is
pointwise too, and runs on the same side of the boundary; a chain becomes one op that reads
what its links read from outside it, makes what is read outside it, and costs their sum.
``expand`` turns a schedule of the collapsed problem back into the joint problem's nodes (each
run of a chain: its links in graph order), which is a valid schedule of the joint problem."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from . import _joint


def pointwise(node: Any) -> bool:
    """Whether ``node`` calls an op torch tags pointwise and that writes none of its inputs
    (``mul_`` is tagged pointwise too; Inductor does not fuse it away)."""
    import torch

    target = getattr(node, "target", None)
    return (getattr(node, "op", None) == "call_function" and isinstance(target, torch._ops.OpOverload)
            and torch.Tag.pointwise in target.tags and not target._schema.is_mutable)


def collapse(problem: _joint.JointProblem) -> Tuple[_joint.JointProblem, Dict[str, List[str]]]:
    """The problem with its pointwise chains as one op each (see the module docstring), and each
    chain's op id -> its links' op ids in graph order. The problem itself is not changed."""
    graph, chains = collapse_graph(problem.graph, problem.op_node, problem.cost)
    if not chains:
        return problem, {}
    cost = dict(problem.cost)
    cost.update({o["id"]: o["cost"] for o in graph["ops"] if o["id"] in chains})
    return _joint.JointProblem(graph, problem.op_node, cost), chains


def collapse_graph(graph: Dict[str, Any], op_node: Dict[str, Any],
                   cost: Dict[str, int]) -> Tuple[Dict[str, Any], Dict[str, List[str]]]:
    """An exported graph (op id -> fx node in ``op_node``) with its pointwise chains as one op
    each, and each chain's op id -> its links' op ids in graph order; ``graph`` is not changed."""
    ops = graph["ops"]
    outputs = set(graph.get("outputs", []))
    by_id = {o["id"]: o for o in ops}
    readers: Dict[str, List[str]] = {}
    for o in ops:
        for t in o["inputs"]:
            readers.setdefault(t, []).append(o["id"])

    def joinable(o: Dict[str, Any]) -> bool:
        node = op_node.get(o["id"])
        return node is not None and o.get("recompute", True) is not False and pointwise(node)

    def side(o: Dict[str, Any]) -> bool:
        return _joint.TOKEN in o["inputs"]

    # Union-find over op ids; each chain's representative is its last link (ops are in graph
    # order, so the reader comes later and every link flows into it).
    parent = {o["id"]: o["id"] for o in ops}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for o in ops:
        if not joinable(o) or len(o["outputs"]) != 1:
            continue
        t = o["outputs"][0]
        users = readers.get(t, [])
        if t in outputs or len(users) != 1 or users[0] == o["id"]:
            continue
        reader = by_id[users[0]]
        if joinable(reader) and side(reader) == side(o):
            parent[find(o["id"])] = find(reader["id"])
    links: Dict[str, List[str]] = {}
    for o in ops:
        links.setdefault(find(o["id"]), []).append(o["id"])
    new_ops: List[Dict[str, Any]] = []
    gone: set = set()
    for o in ops:
        root = find(o["id"])
        chain = links[root]
        if len(chain) == 1:
            new_ops.append(o)
            continue
        if o["id"] != chain[-1]:
            continue  # a chain is emitted where its last link was
        made = {t for m in chain for t in by_id[m]["outputs"]}
        inputs: List[str] = []
        for m in chain:
            for t in by_id[m]["inputs"]:
                if t not in made and t not in inputs:
                    inputs.append(t)
        out = [t for m in chain for t in by_id[m]["outputs"]
               if t in outputs or any(find(u) != root for u in readers.get(t, []))]
        gone.update(made.difference(out))
        fused = {"id": root, "kind": "pointwise chain", "inputs": inputs, "outputs": out,
                 "cost": sum(cost.get(m, 1) for m in chain),
                 "workspace": max(int(by_id[m].get("workspace", 0)) for m in chain),
                 "meta": {"links": chain}}
        new_ops.append(fused)
    if not gone:
        return graph, {}
    tensors = [t for t in graph["tensors"] if t["id"] not in gone]
    return dict(graph, tensors=tensors, ops=new_ops), {r: c for r, c in links.items() if len(c) > 1}


def expand(schedule: List[str], chains: Dict[str, List[str]]) -> List[str]:
    """A schedule of the collapsed problem as one of the joint problem: each run of a chain
    becomes its links, in graph order."""
    out: List[str] = []
    for step in schedule:
        out.extend(chains.get(step, (step,)))
    return out
