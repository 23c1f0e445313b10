"""Inductor's horizontal fusion, kept from undoing a recompute plan.

Inductor fuses nodes that only share a read (horizontal fusion) when they are within 64 nodes
of each other (``Scheduler.are_long_distant_nodes``). On a backward that peakorder planned with
recomputations, the recomputed nodes of neighbouring blocks read the same saved tensor; fused,
they all run at the first one's place and their outputs live together, which is the memory the
plan freed (measured: a 2-block GPT step at its least limit, 6.66 MiB against 5.78 planned).
This hook vetoes a horizontal fusion of two nodes more than ``DISTANCE`` nodes apart in graphs
peakorder's partitioner made (marked in ``GraphModule.meta``); every other fusion, and every
other graph, is Inductor's own decision."""

from __future__ import annotations

from typing import Any

MARK = "peakorder_recompute_plan"
#: Nodes apart (in the planned order) beyond which a horizontal fusion may move an output's
#: allocation across the plan's frees. Adjacent reads of one tensor (q, k, v) still fuse.
DISTANCE = 4


def _marked() -> bool:
    from torch._inductor.virtualized import V

    try:
        gm = V.graph.module
    except Exception:
        return False
    return bool(getattr(gm, "meta", {}).get(MARK))


def install() -> None:
    """Wraps Inductor's current choices handler (once per thread) with the veto above."""
    from torch._inductor.virtualized import V

    current = V.choices
    if getattr(current, "_peakorder_fusion", False):
        return
    base = type(current)

    def can_fuse_horizontal(scheduler: Any, node1: Any, node2: Any, shared_data_score: int) -> bool:
        if _marked():
            apart = max(abs(node1.min_order - node2.max_order), abs(node2.min_order - node1.max_order))
            if apart > DISTANCE:
                return False
        return base.can_fuse_horizontal(scheduler, node1, node2, shared_data_score)

    cls = type("PeakorderChoices", (base,), {"_peakorder_fusion": True,
                                              "can_fuse_horizontal": staticmethod(can_fuse_horizontal)})
    from torch._inductor import virtualized

    virtualized._choices._set_handler(cls())  # the returned context (which would restore) is not entered
