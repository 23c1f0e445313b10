"""The scheduler-level pass: peakorder plans Inductor's fused kernels (``_post_fusion_custom_pass``,
torch >= 2.8; cacheable as a ``CustomSchedulerPass`` from 2.13).

After fusion a post-grad order is only a hint: a fused node sits where its earliest member was,
pointwise ops were inlined into their consumers, and buffers that fusion made internal no longer
exist. This pass sees what will run: one op per scheduler node, one tensor per buffer, sized by
Inductor's own memory model (``torch._inductor.memory.prepare_planning_info``, the same numbers
``reorder_for_peak_memory`` scores), and returns the nodes in peakorder's order.

The graph it plans (docs/design.md §2):

- a graph input Inductor may free after its last use (``FreeableInputBuffer``) is a donated input;
  inputs it never frees are left out (a constant offset, the same for every order);
- a buffer is a tensor of its ``size_free`` bytes made by its node; a multi-output kernel's buffer
  holds its outputs' bytes and each output is a view of it; a mutated buffer (a new name for the
  same memory) is a view of the buffer it mutates;
- ordering-only dependencies (Inductor's weak and mutation edges) are 0-byte tensors.

If the plan's order is not a topological order of the scheduler's own dependencies, or anything
else goes wrong, the pass warns and returns the nodes unchanged."""

from __future__ import annotations

import warnings
from typing import Any, Dict, List

import torch

from ._api import plan
from ._uuid import pass_uuid

try:  # torch >= 2.13: a pass Inductor's FX graph cache can key on
    from torch._inductor.custom_graph_pass import CustomSchedulerPass as _Base
except ImportError:  # torch 2.8 - 2.12: a plain callable (picklable: a module-level class)
    _Base = object


def scheduler_graph(nodes: List[Any]) -> Dict[str, Any]:
    """The peakorder graph of Inductor's scheduler nodes (see the module docstring)."""
    from torch._inductor import memory
    from torch._inductor.virtualized import V

    sched = V.graph.scheduler
    graph_inputs = set(V.graph.graph_inputs.keys())
    graph_outputs = set(V.graph.get_output_names())
    name_to_buf = {b.get_name(): b for n in nodes for b in n.get_outputs()}
    name_to_fused = {n.get_name(): n for n in nodes}
    for n in nodes:
        for sub in n.get_nodes():
            name_to_fused.setdefault(sub.get_name(), n)
    _, freeable = memory.prepare_planning_info(
        nodes, name_to_buf, name_to_fused, graph_inputs, graph_outputs
    )
    mutation_real = dict(getattr(sched, "mutation_real_name", {}))

    tensors: List[Dict[str, Any]] = []
    for name, inp in freeable.items():
        tensors.append({"id": name, "bytes": int(inp.mpi_buffer.size_free), "donated": True})
    multi_parent: Dict[str, str] = {}  # a multi-output kernel's output -> its parent buffer
    for n in nodes:
        for b in n.get_outputs():
            for user in getattr(b, "users", ()):
                for out in getattr(getattr(user, "node", None), "get_outputs", lambda: ())():
                    if isinstance(getattr(out, "node", None), torch._inductor.ir.MultiOutput):
                        multi_parent[out.get_name()] = b.get_name()
    ops: List[Dict[str, Any]] = []
    declared = {t["id"] for t in tensors}
    for n in nodes:
        outs, ins = [], []
        for b in n.get_outputs():
            bid = b.get_name()
            root = mutation_real.get(bid) or multi_parent.get(bid)
            if root is not None and root in declared:
                tensors.append({"id": bid, "alias_of": root})
                ins.append(root)  # a view's maker reads the storage it views
            elif root is not None:  # a view of an input Inductor never frees
                tensors.append({"id": bid, "bytes": 0})
            elif isinstance(getattr(b.node, "layout", None), torch._inductor.ir.MultiOutputLayout):
                tensors.append({"id": bid, "bytes": int(b.mpi_buffer.size_alloc)})
            else:
                tensors.append({"id": bid, "bytes": int(b.mpi_buffer.size_free)})
            declared.add(bid)
            outs.append(bid)
        ins += [p.get_name() for p in n.mpi_node.pred_buffers if p.get_name() in declared]
        ins = [t for t in dict.fromkeys(ins) if t not in outs]
        ops.append({"id": n.get_name(), "inputs": ins, "outputs": outs})
    # Ordering-only predecessors: a 0-byte tensor from each to the node.
    by_id = {o["id"]: o for o in ops}
    made_by = {t: o["id"] for o in ops for t in o["outputs"]}
    for n in nodes:
        op = by_id[n.get_name()]
        have = {made_by.get(t) for t in op["inputs"]}
        for p in n.mpi_node.pred_nodes:
            pid = p.get_name()
            if pid in by_id and pid not in have and pid != op["id"]:
                tok = f"order:{pid}>{op['id']}"
                tensors.append({"id": tok, "bytes": 0})
                by_id[pid]["outputs"].append(tok)
                op["inputs"].append(tok)
    outputs = [t["id"] for t in tensors if t["id"] in graph_outputs]
    return {"format": "peakorder/1", "tensors": tensors, "ops": ops, "outputs": outputs}


def _is_topological(order: List[Any]) -> bool:
    """Every node after the nodes that make what it reads (the scheduler's own dependencies)."""
    made_by = {b: n for n in order for b in n.get_buffer_names()}
    seen = set()
    for n in order:
        for dep in n.unmet_dependencies:
            src = made_by.get(dep.name)
            if src is not None and src is not n and src not in seen:
                return False
        seen.add(n)
    return True


class SchedulerPass(_Base):  # type: ignore[misc, valid-type]
    """``_post_fusion_custom_pass``: the fused nodes in peakorder's order."""

    def __init__(self, options: Dict[str, Any]) -> None:
        self.options = dict(options)

    def __call__(self, nodes: List[Any]) -> List[Any]:
        try:
            graph = scheduler_graph(nodes)
            result = plan(graph, self.options)
            by_name = {n.get_name(): n for n in nodes}
            new = [by_name[i] for i in result["order"]]
            if len(new) != len(nodes) or not _is_topological(new):
                raise RuntimeError("the plan is not an order of the scheduler's dependencies")
            return new
        except Exception as e:  # Inductor's internals change between releases: never break it
            warnings.warn(f"peakorder: scheduler nodes left in Inductor's order: {e}", stacklevel=2)
            return nodes

    def uuid(self) -> str:
        return pass_uuid("post_fusion", self.options)


def scheduler_pass(**plan_options: Any) -> SchedulerPass:
    """The pass for ``torch._inductor.config._post_fusion_custom_pass`` (torch >= 2.8)."""
    from ._versions import require

    require("scheduler")
    return SchedulerPass(plan_options)
