"""reorder(): plan an fx graph and move its nodes into the planned order, in place."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence

from .. import _fx
from .._graph import ExportError
from . import _order
from ._api import error, plan, simulate
from ._versions import require


def reorder(
    gm: Any,
    example_inputs: Optional[Sequence[Any]] = None,
    *,
    calibrate: bool = False,
    donate: Iterable[str] = (),
    **plan_options: Any,
) -> Dict[str, Any]:
    """Plans ``gm`` (a torch.fx GraphModule) for the lowest peak memory and moves its nodes into
    the planned order, in place; returns the plan.

    ``example_inputs`` are needed when the graph has no fake-tensor metadata (``symbolic_trace``)
    and for ``calibrate=True`` (then real tensors: each op runs once and its temporary
    allocations become its ``workspace``). ``donate`` names placeholders the program may free
    after their last use. ``plan_options`` go to :func:`peakorder.plan` (``method``,
    ``budget_ms``, ``max_states``, ``max_memory_mb``).

    The plan is :func:`peakorder.plan`'s dict, plus ``graph`` (the graph that was planned: the
    export plus 0-byte order edges) and ``applied_peak_bytes`` (the simulated peak of the order
    the nodes now run in; equal to ``peak_bytes``). On bad input (a symbolic shape, an op it
    cannot size, a torch too old) it raises :class:`peakorder.PeakorderError`
    naming the node, and ``gm`` is unchanged."""
    import torch.fx

    require("reorder")
    if not isinstance(gm, torch.fx.GraphModule):
        raise error("invalid_argument", f"reorder() takes a torch.fx.GraphModule, got {type(gm).__name__}")
    result = reorder_graph(gm.graph, example_inputs, calibrate=calibrate, donate=donate, **plan_options)
    gm.recompile()
    return result


def reorder_graph(
    fx_graph: Any,
    example_inputs: Optional[Sequence[Any]] = None,
    *,
    calibrate: bool = False,
    donate: Iterable[str] = (),
    chains: bool = False,
    **plan_options: Any,
) -> Dict[str, Any]:
    """:func:`reorder` on a GraphModule's ``torch.fx.Graph``, without recompiling (for passes
    whose caller recompiles: Inductor's post-grad pass). ``chains``: plan each pointwise chain
    as one op (``_pointwise``), so its links stay together as the partition planned them."""
    try:
        graph, env = _fx.export_fx(fx_graph, example_inputs, donate=donate, calibrate=calibrate)
    except ExportError as e:
        raise error(getattr(e, "code", None) or "unsized_op", str(e), getattr(e, "node", None)) from e
    nodes = list(fx_graph.nodes)
    edges = _order.constraints(nodes, graph, env)
    planned = _order.with_order_edges(graph, edges)
    links: Dict[str, List[str]] = {}
    if chains:
        from ._pointwise import collapse_graph, expand

        op_node = {n.name: n for n in nodes}
        fused, links = collapse_graph(planned, op_node, {})
        result = dict(plan(fused, plan_options))
        result["order"] = expand(list(result["order"]), links)
    else:
        result = dict(plan(planned, plan_options))
    new = _order.order_nodes(fx_graph, graph, result["order"], edges)
    ops = {o["id"] for o in graph["ops"]}
    applied = [n.name for n in new if n.name in ops]
    if applied == list(result["order"]):
        result["applied_peak_bytes"] = result["peak_bytes"]
    else:  # the fx graph had an edge the export could not show; say what the order now costs
        result["applied_peak_bytes"] = simulate(planned, applied)["peak_bytes"]
    _order.apply(fx_graph, new)
    result["graph"] = planned
    return result

