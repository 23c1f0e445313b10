"""measure_peak(): the peak memory of one call, as PyTorch's allocator saw it."""

from __future__ import annotations

import gc
from typing import Any, Callable, List

from ._versions import require


def _tensors(args: Any) -> List[Any]:
    import torch
    import torch.utils._pytree as pytree

    return [x for x in pytree.tree_leaves(args) if isinstance(x, torch.Tensor)]


def measure_peak(fn: Callable[..., Any], *args: Any, device: Any = None, warmup: bool = True) -> int:
    """Bytes above what was live before one call of ``fn(*args)``, at the call's peak, measured
    by PyTorch's allocator. The call's result is dropped.

    ``fn`` runs once first (``warmup``): lazy initialisation, compilation and caches are not
    measured. The device is ``device``, else that of the first tensor in ``args``, else the CPU.

    - CUDA: ``torch.cuda.max_memory_allocated`` minus ``memory_allocated`` before the call, after
      ``reset_peak_memory_stats``.
    - CPU: ``torch.profiler.profile(activities=[CPU], profile_memory=True)`` around the call; the
      ``[memory]`` events of ``prof.profiler.kineto_results.events()`` summed in ``start_ns()``
      order; the running maximum is the peak."""
    import torch

    require("measure_peak")
    if device is None:
        ts = _tensors(args)
        device = ts[0].device if ts else torch.device("cpu")
    device = torch.device(device)
    if warmup:
        out = fn(*args)
        del out
    gc.collect()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
        out = fn(*args)
        torch.cuda.synchronize(device)
        peak = torch.cuda.max_memory_allocated(device) - before
        del out
        return int(peak)
    if device.type != "cpu":
        raise ValueError(f"measure_peak measures cpu and cuda, not {device.type}")
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        out = fn(*args)
        del out
    return peak_of_events(prof.profiler.kineto_results.events())


def peak_of_events(events: Any) -> int:
    """The running maximum of the ``[memory]`` events' sizes summed in ``start_ns()`` order."""
    mem = sorted((e for e in events if e.name() == "[memory]"), key=lambda e: e.start_ns())
    cur = peak = 0
    for e in mem:
        cur += e.nbytes()
        peak = max(peak, cur)
    return int(peak)
