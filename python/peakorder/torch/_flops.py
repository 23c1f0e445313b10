"""The cost of an fx node for the recompute planner: FLOPs as PyTorch's own partitioner counts
them (``activation_memory_budget_runtime_estimator="flops"``: ``torch.utils.flop_counter``'s
formulas, at least 1 per node), so that recomputation planned by peakorder and by PyTorch's
knapsack is compared in one unit."""

from __future__ import annotations

from typing import Any


def node_flops(node: Any) -> int:
    """FLOPs of one call of ``node`` by ``torch.utils.flop_counter``'s formulas, read from the
    node's fake-tensor metadata (nothing runs); 1 for ops without a formula (pointwise, views,
    reductions), as PyTorch's estimator returns ``max(flops, 1)``."""
    import torch
    import torch.utils._pytree as pytree
    from torch.utils.flop_counter import flop_registry

    target = node.target
    if node.op != "call_function" or not isinstance(target, torch._ops.OpOverload):
        return 1
    formula = flop_registry.get(target.overloadpacket)
    if formula is None:
        return 1

    def val(x: Any) -> Any:
        return x.meta.get("val") if isinstance(x, torch.fx.Node) else x

    try:
        args, kwargs = pytree.tree_map(val, (node.args, node.kwargs))
        flops = formula(*args, out_val=node.meta.get("val"), **kwargs)
        return max(int(flops), 1)
    except Exception:  # a formula that cannot read this node's metadata: count it as PyTorch's fallback
        return 1
