"""Inductor's horizontal fusion, kept from undoing a recompute plan.

Inductor fuses nodes that only share a read (horizontal fusion) when they are within 64 nodes
of each other (``Scheduler.are_long_distant_nodes``). On a backward that peakorder planned with
recomputations, the recomputed nodes of neighbouring blocks read the same saved tensor; fused,
they all run at the first one's place and their outputs live together, which is the memory the
plan freed (measured: a 2-block GPT step at its least limit, 6.66 MiB against 5.78 planned; with
Inductor's buffer reuse off, as ``memory_limit`` sets it, still 5.91 against 5.41 vetoed).
This hook vetoes a horizontal fusion of two nodes more than ``DISTANCE`` nodes apart in graphs
peakorder's partitioner made (marked in ``GraphModule.meta``); every other fusion, and every
other graph, is Inductor's own decision. Fusions with a reduction are never vetoed: unfused, a
GPT step's LayerNorm backward computed wrong gradients (blocks.0.ln2, 35% off, at a limit of
30,290,948 bytes; python/tests/test_torch_budget.py keeps that point), and a mix-order
reduction is split on the promise that it fuses."""

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

    try:  # torch 2.15: a mix-order reduction is split on the promise that it fuses; never veto it
        from torch._inductor.choices import MixOrderReduction
    except ImportError:
        MixOrderReduction = None

    def can_fuse_horizontal(scheduler: Any, node1: Any, node2: Any, shared_data_score: int) -> bool:
        mixed = MixOrderReduction is not None and MixOrderReduction.can_fuse(node1, node2)
        reduction = any(getattr(n, "is_reduction", lambda: False)() for n in (node1, node2))
        if _marked() and not mixed and not reduction:
            apart = max(abs(node1.min_order - node2.max_order), abs(node2.min_order - node1.max_order))
            if apart > DISTANCE:
                return False
        return base.can_fuse_horizontal(scheduler, node1, node2, shared_data_score)

    cls = type("PeakorderChoices", (base,), {"_peakorder_fusion": True,
                                              "can_fuse_horizontal": staticmethod(can_fuse_horizontal)})
    from torch._inductor import virtualized

    virtualized._choices._set_handler(cls())  # the returned context (which would restore) is not entered
