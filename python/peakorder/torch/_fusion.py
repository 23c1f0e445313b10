"""Inductor's fusion, kept from undoing peakorder's order and recompute plan.

Inductor fuses nodes that only share a read (horizontal fusion) when they are within 64 nodes
of each other (``Scheduler.are_long_distant_nodes``). On a backward that peakorder planned with
recomputations, the recomputed nodes of neighbouring blocks read the same saved tensor; fused,
they all run at the first one's place and their outputs live together, which is the memory the
plan freed (measured: a 2-block GPT step at its least limit, 6.66 MiB against 5.78 planned; with
Inductor's buffer reuse off, as ``memory_limit`` sets it, still 5.91 against 5.41 vetoed).
A producer fused into a distant consumer (vertical fusion, at any distance) does the same from
the other side: the fused kernel runs where both can, so the producer's inputs stay live to the
consumer's place, or the consumer's output is made at the producer's (measured, torch 2.9.1: the
2-block GPT step at its least limit with a schedule that places recomputations early in the
backward, fused into readers 40-70 nodes later: 8.94 MB against 6.06 MB planned; 6.14 MB vetoed).
This hook vetoes a horizontal or vertical fusion of two nodes more than ``DISTANCE`` nodes apart
in graphs peakorder's partitioner cut with recomputations (``MARK`` in ``GraphModule.meta``),
and a distant vertical fusion in every graph its post-grad pass ordered (``ORDERED``):
densenet121's training step, no recomputation, measured 54.58 MiB with Inductor's distant
vertical fusions and 51.32 without them (eager 52.05), while vetoing horizontal ones there too
raised the 4-block GPT step with nothing recomputed from 37.11 to 39.64 MiB; every other fusion, and
every other graph, is Inductor's own decision, except a mix-order reduction (torch 2.15), which
is split on the promise that it fuses and so is never vetoed. Horizontal fusions with any other
reduction used to be exempt too (made in the same change: a GPT step's LayerNorm gradients were
wrong, blocks.0.ln2 35% off, at a limit of 30,290,948 bytes; python/tests/test_torch_budget.py
keeps that point, whose gradients equal eager's without the exemption on torch 2.9.1 and 2.15).
The exemption let a LayerNorm output recomputed for a weight gradient fuse with a LayerNorm
backward 100 nodes later; the fused kernel, and the weight gradient with it, ran after the other
block's recomputation while a 1 MiB gradient waited (measured, torch 2.9.1: the 2-block GPT at
its least limit, 7.19 MB against 6.06 MB planned; 5.67 MB without the exemption).

In graphs cut with recomputations, two nodes on either side of an extern kernel (a convolution,
a matmul, with the step's largest scratch) do not fuse either, however near: fused, the later
one's outputs are made before the kernel and live through its scratch (mobilenet_v2's step at
its least limit: 32.89 MB against 30.95 planned; 31.07 with this rule)."""

from __future__ import annotations

import bisect
from typing import Any

#: Set in ``GraphModule.meta`` of the graphs peakorder's partitioner cut with recomputations.
MARK = "peakorder_recompute_plan"
#: Set in ``GraphModule.meta`` of the graphs peakorder's post-grad pass ordered.
ORDERED = "peakorder_ordered"
#: Set with ``MARK`` where the partition's plan holds only with its pointwise chains fused
#: (``_pointwise``): the post-grad pass then orders each chain as one op.
CHAINS = "peakorder_chains"
#: Nodes apart (in the planned order) beyond which a horizontal fusion may move an output's
#: allocation across the plan's frees. Adjacent reads of one tensor (q, k, v) still fuse.
DISTANCE = 4


def _marked(*keys: str) -> bool:
    from torch._inductor.virtualized import V

    try:
        gm = V.graph.module
    except Exception:
        return False
    meta = getattr(gm, "meta", {})
    return any(meta.get(k) for k in keys)


def extern_between(scheduler: Any, node1: Any, node2: Any) -> bool:
    """An extern kernel (a convolution, a matmul: never fused, with the largest scratch) of
    ``scheduler`` lies strictly between the two nodes' places. Fused, the later one's outputs
    would be made before that kernel runs and live through its scratch (mobilenet_v2 at its least
    limit: a 2.25 MiB value the plan makes after a depthwise convolution's backward was fused
    into the kernel before it, 1.94 MB above the plan at the step's peak)."""
    from torch._inductor.scheduler import ExternKernelSchedulerNode

    ext = getattr(scheduler, "_peakorder_extern", None)
    if ext is None:  # extern kernels never fuse, so their places stay as first numbered
        ext = sorted(n.min_order for n in scheduler.nodes if isinstance(n, ExternKernelSchedulerNode))
        scheduler._peakorder_extern = ext
    lo = min(node1.max_order, node2.max_order)
    hi = max(node1.min_order, node2.min_order)
    i = bisect.bisect_right(ext, lo)
    return i < len(ext) and ext[i] < hi


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

    def vetoable(node1: Any, node2: Any, *keys: str) -> bool:
        """In a graph marked with one of ``keys``, and not a mix-order reduction."""
        return _marked(*keys) and not (MixOrderReduction is not None and MixOrderReduction.can_fuse(node1, node2))

    def distant(node1: Any, node2: Any, *keys: str) -> bool:
        """Too far apart to fuse without moving the plan's frees."""
        return (max(abs(node1.min_order - node2.max_order), abs(node2.min_order - node1.max_order)) > DISTANCE
                and vetoable(node1, node2, *keys))

    def across_extern(scheduler: Any, node1: Any, node2: Any) -> bool:
        return vetoable(node1, node2, MARK) and extern_between(scheduler, node1, node2)

    def can_fuse_horizontal(scheduler: Any, node1: Any, node2: Any, shared_data_score: int) -> bool:
        if distant(node1, node2, MARK) or across_extern(scheduler, node1, node2):
            return False
        return base.can_fuse_horizontal(scheduler, node1, node2, shared_data_score)

    def can_fuse_vertical(scheduler: Any, node1: Any, node2: Any, shared_data_score: int) -> bool:
        if distant(node1, node2, MARK, ORDERED) or across_extern(scheduler, node1, node2):
            return False
        return base.can_fuse_vertical(scheduler, node1, node2, shared_data_score)

    cls = type("PeakorderChoices", (base,), {"_peakorder_fusion": True,
                                              "can_fuse_horizontal": staticmethod(can_fuse_horizontal),
                                              "can_fuse_vertical": staticmethod(can_fuse_vertical)})
    from torch._inductor import virtualized

    virtualized._choices._set_handler(cls())  # the returned context (which would restore) is not entered
