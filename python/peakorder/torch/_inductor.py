"""inductor_options(): peakorder's plan as Inductor's post-grad pass (and, optionally, its
scheduler pass), for ``torch.compile(fn, options=peakorder.torch.inductor_options())``.

After the post-grad pass Inductor lowers the graph in its (new) order, fuses, and, with
``reorder_for_peak_memory`` on (its default), compares the order it got against its own
heuristics (LPMF, BFS, DFS) on its own estimate and keeps the lowest; that estimate counts
graph inputs as freed after their last use. ``inductor_reorder=False`` turns that pass off, so
that peakorder's order is the one that runs (docs/pytorch.md)."""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Union

from ._uuid import pass_uuid
from ._versions import require


def _realize_distant(graph: Any, chains: bool = False) -> None:
    """In a graph cut with recomputations, every value read more than ``DISTANCE`` nodes after
    it is made gets a buffer of its own (``inductor_realize_to_strides``). Inductor otherwise
    inlines a pointwise value into each of its readers, so what lives until the last reader is
    its inputs, not the value: the plan trades a recomputation for keeping that value, and the
    inlined step keeps what the recomputation was to free (measured: mobilenet_v2's step at
    its least limit, a saved schedule, 45.6 MB against 27.8 planned; 33.1 MB with this). With
    ``chains`` (the plan fused its pointwise chains), a link read only by a pointwise node is
    left to Inductor: it was planned as one op with its reader."""
    import torch

    from ._fusion import DISTANCE
    from ._pointwise import pointwise

    pos = {n: i for i, n in enumerate(graph.nodes)}
    for n in graph.nodes:
        if n.op != "call_function" or not isinstance(n.meta.get("val"), torch.Tensor):
            continue
        if chains and pointwise(n) and len(n.users) == 1 and pointwise(next(iter(n.users))):
            continue  # a link of a pointwise chain: planned as one op with its reader (_pointwise)
        last = max((pos[u] for u in n.users if u.op != "output"), default=pos[n])
        if last - pos[n] > DISTANCE:
            n.meta["inductor_realize_to_strides"] = True


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

            from ._fusion import CHAINS, MARK, ORDERED, install

            owner = getattr(graph, "owning_module", None)
            meta = owner.meta if owner is not None else {}
            # A graph whose partition holds only with its pointwise chains fused is ordered
            # with each chain as one op, so that their links stay together (_pointwise), and
            # in the partition's order (``program``): the joint plan put each recomputation
            # where the step's peak allows it, which the graph alone does not show. Re-planned
            # alone, the 4-block GPT step's backward at a limit of 29,046,583 bytes (a 74-FLOP
            # schedule) ran its 13 LayerNorm recomputations first (4 KB lower in that graph's
            # model), Inductor fused them into one kernel whose outputs lived through the
            # backward, and the step measured 29.83 MB; in the partition's order, 28.25 MB.
            # Where the partition's order is not one (a post-grad pass moved a node), re-planned.
            chains = bool(meta.get(MARK) and meta.get(CHAINS))

            def ordered(**options: Any) -> Any:
                return reorder_graph(graph, donate=freeable_placeholders(graph), chains=chains, **options)

            try:
                try:
                    self.last_plan = ordered(**dict(self.options, method="program") if chains else self.options)
                except PeakorderError as e:
                    if not chains or getattr(e, "code", None) != "not_topological":
                        raise
                    self.last_plan = ordered(**self.options)
            except PeakorderError as e:
                self.last_plan = None
                warnings.warn(f"peakorder: graph left in Inductor's order: {e}", stacklevel=2)
                return
            # Inductor's distant vertical fusions then keep to the order (_fusion): the veto is
            # installed here, in the thread that compiles, and the graph module it lowers marked.
            install()
            if owner is not None:
                owner.meta[ORDERED] = True
                if meta.get(MARK):
                    _realize_distant(graph, chains)

        def uuid(self) -> str:
            return pass_uuid("post_grad", self.options)

    return PeakorderGraphPass


class InductorOptions(dict):
    """``torch.compile``'s ``options`` dict, with ``explain``: why each option peakorder set is
    there (and what it decided)."""

    explain: List[str]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.explain = []


_REUSE_WHY = (
    "allow_buffer_reuse=False: Inductor's wrapper keeps a buffer past its last use when a later "
    "allocation of the same size can take it over, whenever its own peak estimate does not rise; "
    "on a backward planned with recomputation those held buffers are what exceeded the plan (the "
    "4-block GPT step of docs/pytorch.md at its least limit: two 2 MiB MLP buffers held across an "
    "attention backward, 15.45 MiB measured against 13.57 planned; 12.17 without reuse). Freed at "
    "their last use they are the plan's frees; in-place kernels (inplace_buffers) still write "
    "into their inputs. Set opts['allow_buffer_reuse'] = True to trade that memory for fewer "
    "allocations."
)

_FUSION_WHY = (
    "fusion: in each graph peakorder ordered, Inductor's vertical fusion of two nodes more than 4 "
    "apart in that order is vetoed (peakorder/torch/_fusion.py): a fused kernel runs where all "
    "its parts can, so a distant fusion keeps buffers live across the plan's frees (densenet121's "
    "training step of docs/pytorch.md: 54.58 MiB with them, 51.32 without, eager 52.05); in "
    "graphs cut with recomputations (memory_limit) distant horizontal fusions too, any fusion "
    "across an extern kernel (a convolution's scratch), and values read far from where they are "
    "made get buffers of their own. Adjacent nodes still fuse, and mix-order reductions always."
)

_LAYOUT_WHY = (
    "layout_optimization=False: Inductor's layout optimization makes channels-last copies of "
    "convolution weights and activations, and the forward saves them for the backward; on the "
    "torchvision training steps of docs/pytorch.md they raise the measured peak by 17-27 MiB "
    "(resnet18 74.87 -> 46.75 MiB without them, below eager's 47.84). Pass "
    "layout_optimization=True for the channels-last speed-up instead."
)


_BATCH_NORM_WHY = (
    "pre_grad_custom_pass: BatchNorm in training mode runs ATen's own kernels "
    "(peakorder::batch_norm_train, peakorder/torch/_batch_norm.py), not Inductor's decomposition, "
    "so the step computes eager's gradients: where BatchNorm is ill-conditioned Inductor's "
    "reductions, rounded in another order, moved mobilenet_v2's gradients by 473x rtol 1e-4 "
    "(docs/pytorch.md)."
)


def inductor_options(*, inductor_reorder: bool = True, scheduler: bool = False,
                     memory_limit: Optional[Union[int, str]] = None,
                     layout_optimization: Optional[bool] = None, eager_batch_norm: bool = False,
                     **plan_options: Any) -> Dict[str, Any]:
    """Options for ``torch.compile(fn, options=...)``: peakorder plans Inductor's post-grad graph
    (``post_grad_custom_post_pass``) with ``plan_options`` (those of :func:`peakorder.plan`).

    ``memory_limit`` (bytes, text such as ``"8GiB"``, or ``"min"``) also makes peakorder the
    partitioner of training graphs (``custom_partitioner_fn``, torch >= 2.9): what the forward
    saves and what the backward recomputes is planned so that the step allocates at most that
    many bytes above what was live before it (the quantity :func:`measure_peak` reports), with
    the least recomputed FLOPs; ``"min"`` asks for the least peak whatever the recomputation. A
    limit below the least peak raises ``PeakorderError`` code ``infeasible`` at compile time.
    Without ``budget_ms`` the partition's plans get 1 ms per op of the joint graph, 100 ms to 2 s
    (the schedule's FLOPs depend on the time); the post-grad plans keep 100 ms.

    The memory preset: Inductor's layout optimization is off (``layout_optimization=True`` keeps
    it), and with ``memory_limit`` so is its buffer reuse (``allow_buffer_reuse``: a buffer
    waiting for a same-sized allocation outlives the plan's free); ``.explain`` on the returned
    dict says why. ``inductor_reorder=False`` also turns off
    Inductor's ``reorder_for_peak_memory``, which may otherwise replace the order when one of
    its heuristics scores lower on its estimate. ``scheduler=True`` also plans Inductor's fused
    kernels with their real buffer sizes (``_post_fusion_custom_pass``, torch >= 2.8).

    ``eager_batch_norm=True`` (torch >= 2.9) runs BatchNorm in training mode with ATen's own
    kernels (``pre_grad_custom_pass``, ``peakorder/torch/_batch_norm.py``) instead of Inductor's
    decomposition, so that the step computes eager's gradients and running statistics where
    BatchNorm is ill-conditioned (mobilenet_v2 at batch 16: 473x rtol 1e-4 from eager's
    gradients with the decomposition, 0.0013x with this; not efficientnet_b0, whose distance
    comes from Inductor's other kernels too: 8.15x with it). BatchNorm is then not
    fused with its neighbours: on mobilenet_v2 the step took 7% longer and its least limit rose
    from 29.52 to 32.54 MiB (docs/pytorch.md), so the option is off by default."""
    require("inductor_options")
    opts = InductorOptions({"post_grad_custom_post_pass": _graph_pass_class()(plan_options)})
    opts.explain.append("post_grad_custom_post_pass: peakorder orders each graph for the lowest peak")
    opts.explain.append(_FUSION_WHY)
    if layout_optimization is None or layout_optimization is False:
        opts["layout_optimization"] = False
        opts.explain.append(_LAYOUT_WHY if layout_optimization is None else "layout_optimization=False, as asked")
    else:
        opts["layout_optimization"] = True
        opts.explain.append("layout_optimization=True, as asked (channels-last copies cost memory)")
    if memory_limit is not None:
        require("memory_limit")
        from ._partition import partitioner

        opts["custom_partitioner_fn"] = partitioner(memory_limit, plan_options)
        opts.explain.append(
            f"custom_partitioner_fn: peakorder decides what the forward saves within memory_limit={memory_limit!r}")
        opts["allow_buffer_reuse"] = False
        opts.explain.append(_REUSE_WHY)
    if eager_batch_norm:
        require("eager_batch_norm")
        from ._batch_norm import pre_grad_pass

        opts["pre_grad_custom_pass"] = pre_grad_pass()
        opts.explain.append(_BATCH_NORM_WHY)
    if not inductor_reorder:
        opts["reorder_for_peak_memory"] = False
        opts.explain.append("reorder_for_peak_memory=False: Inductor keeps peakorder's order")
    if scheduler:
        from ._scheduler import scheduler_pass

        opts["_post_fusion_custom_pass"] = scheduler_pass(**plan_options)
        opts.explain.append("_post_fusion_custom_pass: peakorder orders the fused kernels")
    return opts
