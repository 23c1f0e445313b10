"""calibrate(): each op's temporary allocations, measured by PyTorch's allocator.

The memory model (docs/design.md §1) counts, while an op runs, its outputs and its
``workspace``. ATen ops also allocate scratch they free before returning (a convolution's
unfolded input, a reduction's partial sums); without it the simulator predicts a lower peak
than the allocator measures. calibrate() runs the graph once on real inputs with an fx
Interpreter, each node inside a ``record_function`` range, under the CPU profiler with memory
events; an op's workspace is the highest its own allocations rose above what it kept at the end
(its outputs). Frees of dead values happen between the ranges, so they are not counted."""

from __future__ import annotations

import bisect
from typing import Any, Dict, List, Sequence, Tuple

from ._versions import require

_PREFIX = "peakorder::calibrate::"


def calibrate(gm: Any, example_inputs: Sequence[Any]) -> Dict[str, int]:
    """{node name: workspace bytes} for ``gm``'s nodes that allocate scratch, from one run on
    ``example_inputs`` (real tensors, on the CPU). The run's results are dropped; an in-place
    update of an input happens once, as in one call."""
    import torch
    import torch.fx
    from torch.profiler import ProfilerActivity, profile, record_function

    require("measure_peak")
    nodes = list(gm.graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}

    class _Timed(torch.fx.Interpreter):
        def run_node(self, n: Any) -> Any:
            if n.op in ("placeholder", "output"):
                return super().run_node(n)
            with record_function(f"{_PREFIX}{index[n]}"):
                return super().run_node(n)

    # The graph may update inputs in place (BatchNorm's running statistics): run on copies.
    inputs = list(example_inputs)
    for i in _written_inputs(gm):
        if i < len(inputs) and isinstance(inputs[i], torch.Tensor):
            inputs[i] = inputs[i].clone()
    # Without autograd: a traced graph's ops are the whole computation (a make_fx training step
    # holds its own backward), and recording them for autograd would keep their inputs alive.
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        out = _Timed(gm).run(*inputs)
        del out
    ranges: List[Tuple[int, int, int]] = []
    mem: List[Tuple[int, int]] = []
    for e in prof.profiler.kineto_results.events():
        name = e.name()
        if name == "[memory]":
            mem.append((e.start_ns(), e.nbytes()))
        elif name.startswith(_PREFIX):
            ranges.append((e.start_ns(), e.end_ns(), int(name[len(_PREFIX):])))
    mem.sort()
    starts = [t for t, _ in mem]
    out_ws: Dict[str, int] = {}
    for start, end, i in ranges:
        cur = peak = 0
        for _, nbytes in mem[bisect.bisect_left(starts, start) : bisect.bisect_right(starts, end)]:
            cur += nbytes
            peak = max(peak, cur)
        ws = peak - max(cur, 0)
        if ws > 0:
            out_ws[nodes[i].name] = int(ws)
    return out_ws



def _written_inputs(gm: Any) -> List[int]:
    """Positions of the placeholders whose storage some node writes (from fake-tensor metadata;
    every placeholder when the graph has none)."""
    import torch
    from torch.multiprocessing.reductions import StorageWeakRef

    from . import _effects

    def key(n: Any) -> Any:
        val = n.meta.get("val")
        return StorageWeakRef(val.untyped_storage()) if isinstance(val, torch.Tensor) else None

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if any("val" not in n.meta for n in placeholders):
        return list(range(len(placeholders)))
    written = {key(w) for n in gm.graph.nodes for w in _effects.written(n)}
    return [i for i, n in enumerate(placeholders) if key(n) is not None and key(n) in written]
