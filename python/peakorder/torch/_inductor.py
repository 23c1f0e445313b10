"""inductor_options(): peakorder's plan as Inductor's post-grad pass (and, optionally, its
scheduler pass), for ``torch.compile(fn, options=peakorder.torch.inductor_options())``.

After the post-grad pass Inductor lowers the graph in its (new) order, fuses, and, with
``reorder_for_peak_memory`` on (its default), compares the order it got against its own
heuristics (LPMF, BFS, DFS) on its own estimate and keeps the lowest; that estimate counts
graph inputs as freed after their last use. ``inductor_reorder=False`` turns that pass off, so
that peakorder's order is the one that runs (docs/pytorch.md)."""

from __future__ import annotations

import warnings
from typing import Any, Dict

from ._uuid import pass_uuid
from ._versions import require


def _graph_pass_class() -> type:
    from torch._inductor.custom_graph_pass import CustomGraphPass

    class PeakorderGraphPass(CustomGraphPass):
        """Moves the post-grad graph's nodes into peakorder's plan. On input it cannot plan
        (symbolic shapes, an op it cannot size) it warns and leaves the graph as it was."""

        def __init__(self, options: Dict[str, Any]) -> None:
            self.options = dict(options)
            self.last_plan: Any = None

        def __call__(self, graph: Any) -> None:
            from peakorder import PeakorderError

            from ._aot import freeable_placeholders
            from ._reorder import reorder_graph

            try:
                self.last_plan = reorder_graph(graph, donate=freeable_placeholders(graph), **self.options)
            except PeakorderError as e:
                self.last_plan = None
                warnings.warn(f"peakorder: graph left in Inductor's order: {e}", stacklevel=2)

        def uuid(self) -> str:
            return pass_uuid("post_grad", self.options)

    return PeakorderGraphPass


def inductor_options(*, inductor_reorder: bool = True, scheduler: bool = False, **plan_options: Any) -> Dict[str, Any]:
    """Options for ``torch.compile(fn, options=...)``: peakorder plans Inductor's post-grad graph
    (``post_grad_custom_post_pass``) with ``plan_options`` (those of :func:`peakorder.plan`).

    ``inductor_reorder=False`` also turns off Inductor's ``reorder_for_peak_memory``, which may
    otherwise replace the order when one of its heuristics scores lower on its estimate.
    ``scheduler=True`` also plans Inductor's fused kernels with their real buffer sizes
    (``_post_fusion_custom_pass``, torch >= 2.8)."""
    require("inductor_options")
    opts: Dict[str, Any] = {"post_grad_custom_post_pass": _graph_pass_class()(plan_options)}
    if not inductor_reorder:
        opts["reorder_for_peak_memory"] = False
    if scheduler:
        from ._scheduler import scheduler_pass

        opts["_post_fusion_custom_pass"] = scheduler_pass(**plan_options)
    return opts
