"""BatchNorm in training mode run by ATen's own kernels inside Inductor
(``inductor_options(eager_batch_norm=True)``), so that a compiled step computes eager's gradients.

Inductor decomposes ``native_batch_norm`` and its backward into reductions and pointwise ops of
its own. Its sums are rounded in another order than ATen's CPU kernel, and where BatchNorm is
ill-conditioned (mobilenet_v2's and efficientnet_b0's late layers, 2x2 pixels at batch 16) that
rounding moves the gradients by hundreds of times rtol 1e-4 (docs/pytorch.md: 473x on
mobilenet_v2; eager against eager in float64 differs as much). The decomposition table is
global and not an option, so a pre-grad pass (``pre_grad_custom_pass``) replaces each
``F.batch_norm`` call in training mode by ``peakorder::batch_norm_train``, a custom op (which
Inductor runs as an extern kernel, undecomposed) that calls ``aten.native_batch_norm`` without
running statistics (so that it reads no buffer and may be recomputed), and
``peakorder::batch_norm_running_stats``, whose new running statistics (eager's, to the bit) the
graph copies into the buffers; the first one's backward, ``peakorder::batch_norm_train_backward``, calls
``aten.native_batch_norm_backward``, the kernel eager's autograd calls. Both custom ops are
functional, so AOTAutograd's partitioners (PyTorch's and peakorder's) may save or recompute them
like any other op."""

from __future__ import annotations

import inspect
import operator
from typing import Any, Dict, List, Optional, Tuple

import torch
from torch import Tensor
from torch._inductor.custom_graph_pass import CustomGraphPass

from ._uuid import pass_uuid

_ns = "peakorder"


@torch.library.custom_op(f"{_ns}::batch_norm_train", mutates_args=())
def batch_norm_train(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                     eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    """``F.batch_norm(..., training=True)`` without its running statistics: the output, the
    saved mean and inverse standard deviation (``aten.native_batch_norm``'s three results). It
    reads no buffer, so a partitioner may run it again in the backward."""
    out, save_mean, save_invstd = torch.ops.aten.native_batch_norm(x, weight, bias, None, None, True, 0.0, eps)
    return out, save_mean, save_invstd


@batch_norm_train.register_fake
def _batch_norm_train_fake(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                           eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    c = x.shape[1]
    return torch.empty_like(x), x.new_empty(c), x.new_empty(c)


@torch.library.custom_op(f"{_ns}::batch_norm_running_stats", mutates_args=())
def batch_norm_running_stats(x: Tensor, running_mean: Tensor, running_var: Tensor,
                             momentum: float) -> Tuple[Tensor, Tensor]:
    """The running mean and variance after a training-mode BatchNorm of ``x``, as eager computes
    them (``aten.batch_norm_update_stats``, the statistics kernel of ``native_batch_norm`` on the
    CPU: equal to the bit), on copies: the graph copies them into the buffers."""
    rm, rv = running_mean.clone(), running_var.clone()
    torch.batch_norm_update_stats(x, rm, rv, momentum)
    return rm, rv


@batch_norm_running_stats.register_fake
def _batch_norm_running_stats_fake(x: Tensor, running_mean: Tensor, running_var: Tensor,
                                   momentum: float) -> Tuple[Tensor, Tensor]:
    return torch.empty_like(running_mean), torch.empty_like(running_var)


@torch.library.custom_op(f"{_ns}::batch_norm_train_backward", mutates_args=())
def batch_norm_train_backward(grad_out: Tensor, x: Tensor, weight: Optional[Tensor], save_mean: Tensor,
                              save_invstd: Tensor, eps: float, need_weight: bool,
                              need_bias: bool) -> Tuple[Tensor, Tensor, Tensor]:
    """``aten.native_batch_norm_backward`` in training mode, a group of channels at a time
    (``_by_channels``); a gradient not asked for is empty."""
    gi, gw, gb = _by_channels(grad_out, x, weight, save_mean, save_invstd, eps, [True, need_weight, need_bias])
    empty = x.new_empty(0)
    return gi, gw if gw is not None else empty, gb if gb is not None else empty.clone()


#: ATen's kernel runs on groups of channels (``_by_channels``): at most 16, of at least 128 KiB
#: each, and only where there are 8 or more (a group costs four times its bytes, the whole call
#: once the input's: fewer groups would hold more).
_GROUP_BYTES = 128 * 1024
_GROUPS = 16
_MIN_GROUPS = 8


def _by_channels(grad_out: Tensor, x: Tensor, weight: Optional[Tensor], save_mean: Tensor, save_invstd: Tensor,
                 eps: float, mask: List[bool]) -> Tuple[Optional[Tensor], Optional[Tensor], Optional[Tensor]]:
    """``aten.native_batch_norm_backward`` (training mode), run on groups of channels and written
    into one gradient. Why: ATen's CPU kernel allocates its input gradient twice when its inputs
    are contiguous (once before it checks that they are, once after), so the call holds two
    input-sized buffers for a moment: 12 MiB above its inputs for a 6 MiB gradient, in eager's
    step too. On mobilenet_v2's step at batch 16 that moment was the least limit's peak (32.54
    MiB, 29.52 without it; docs/pytorch.md). A group's call holds two group-sized buffers and the
    group's copies of ``x`` and ``grad_out``: half the input at most, a quarter from 2 MiB up.
    The kernel reduces each channel on its own, so a group of channels gets the bits the whole
    call gives (``test_torch_batch_norm.py`` compares them); inputs it treats otherwise
    (channels-last, other strides, no pixels), small ones and other devices' (other kernels, not
    checked) go through it whole."""
    aten = torch.ops.aten.native_batch_norm_backward
    c = x.shape[1] if x.dim() >= 3 else 0
    nbytes = x.numel() * x.element_size()
    groups = min(c, _GROUPS, nbytes // _GROUP_BYTES)
    if (x.device.type != "cpu" or groups < _MIN_GROUPS or x.numel() == c * x.shape[0] or not x.is_contiguous()
            or not grad_out.is_contiguous() or grad_out.shape != x.shape):
        return aten(grad_out, x, weight, None, None, save_mean, save_invstd, True, eps, mask)
    gi = torch.empty_like(x) if mask[0] else None
    gw = x.new_empty(c) if mask[1] else None
    gb = x.new_empty(c) if mask[2] else None
    step = -(-c // groups)
    for lo in range(0, c, step):
        hi = min(c, lo + step)
        r = aten(grad_out[:, lo:hi].contiguous(), x[:, lo:hi].contiguous(),
                 None if weight is None else weight[lo:hi], None, None, save_mean[lo:hi], save_invstd[lo:hi],
                 True, eps, mask)
        for whole, part in zip((gi, gw, gb), r):
            if whole is not None:
                (whole[:, lo:hi] if whole is gi else whole[lo:hi]).copy_(part)
        del r
    return gi, gw, gb


@batch_norm_train_backward.register_fake
def _batch_norm_train_backward_fake(grad_out: Tensor, x: Tensor, weight: Optional[Tensor], save_mean: Tensor,
                                    save_invstd: Tensor, eps: float, need_weight: bool,
                                    need_bias: bool) -> Tuple[Tensor, Tensor, Tensor]:
    c = x.shape[1]
    return (torch.empty_like(x), x.new_empty(c if need_weight else 0), x.new_empty(c if need_bias else 0))


def _setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Tuple[Tensor, ...]) -> None:
    x, weight, bias, eps = inputs
    ctx.save_for_backward(x, weight, output[1], output[2])
    ctx.eps = eps
    ctx.has_weight = weight is not None
    ctx.has_bias = bias is not None


def _backward(ctx: Any, grad_out: Tensor, *_: Any) -> Tuple[Optional[Tensor], ...]:
    x, weight, save_mean, save_invstd = ctx.saved_tensors
    need_weight = ctx.has_weight and ctx.needs_input_grad[1]
    need_bias = ctx.has_bias and ctx.needs_input_grad[2]
    gi, gw, gb = batch_norm_train_backward(grad_out, x, weight, save_mean, save_invstd, ctx.eps,
                                           need_weight, need_bias)
    return gi, gw if need_weight else None, gb if need_bias else None, None


batch_norm_train.register_autograd(_backward, setup_context=_setup_context)

_SIGNATURE = inspect.signature(torch.nn.functional.batch_norm)


def _training_call(node: Any) -> Optional[Dict[str, Any]]:
    """The arguments of an ``F.batch_norm`` node in training mode whose input is a float32 or
    float64 tensor of two or more dimensions and whose momentum and eps are numbers (the
    kernels eager runs then); None for any other node."""
    if node.op != "call_function" or node.target is not torch.nn.functional.batch_norm:
        return None
    try:
        bound = _SIGNATURE.bind(*node.args, **node.kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    a = dict(bound.arguments)
    if a["training"] is not True or not isinstance(a["momentum"], float) or not isinstance(a["eps"], float):
        return None
    if (a["running_mean"] is None) != (a["running_var"] is None):
        return None
    x = getattr(a["input"], "meta", {}).get("example_value")
    if not isinstance(x, torch.Tensor) or x.dim() < 2 or x.dtype not in (torch.float32, torch.float64):
        return None
    return a


def replace_batch_norm(graph: Any) -> int:
    """Replaces each ``F.batch_norm`` call in training mode (see ``_training_call``) in a Dynamo
    graph by ``peakorder::batch_norm_train`` and copies of its new running statistics into the
    buffers; returns how many it replaced."""
    replaced = 0
    for node in list(graph.nodes):
        a = _training_call(node)
        if a is None:
            continue
        x = a["input"]
        with graph.inserting_before(node):
            if a["running_mean"] is not None:
                # The statistics of a detached input: BatchNorm's update is no part of autograd.
                stats = graph.call_function(torch.ops.peakorder.batch_norm_running_stats.default,
                                            (graph.call_method("detach", (x,)), a["running_mean"],
                                             a["running_var"], a["momentum"]))
                for i, buffer in enumerate((a["running_mean"], a["running_var"])):
                    graph.call_method("copy_", (buffer, graph.call_function(operator.getitem, (stats, i))))
            call = graph.call_function(torch.ops.peakorder.batch_norm_train.default,
                                       (x, a["weight"], a["bias"], a["eps"]))
            out = graph.call_function(operator.getitem, (call, 0))
        out.meta.update(node.meta)
        node.replace_all_uses_with(out)
        graph.erase_node(node)
        replaced += 1
    return replaced


class EagerBatchNormPass(CustomGraphPass):
    """``replace_batch_norm`` as Inductor's pre-grad pass; its uuid keys the FX graph cache."""

    def __call__(self, graph: Any) -> None:
        replace_batch_norm(graph)

    def uuid(self) -> str:
        return pass_uuid("pre_grad_batch_norm", {})


def pre_grad_pass() -> EagerBatchNormPass:
    """The pre-grad pass of ``inductor_options(eager_batch_norm=True)``."""
    return EagerBatchNormPass()


__all__: List[str] = ["batch_norm_train", "batch_norm_running_stats", "batch_norm_train_backward",
                     "replace_batch_norm", "EagerBatchNormPass", "pre_grad_pass"]
