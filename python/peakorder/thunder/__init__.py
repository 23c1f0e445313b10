"""peakorder for Lightning Thunder: fusion and order that keep the memory-efficient program's peak.

    import peakorder.thunder
    from thunder.executors.torch_compile import torch_compile_ex

    jfn = peakorder.thunder.jit(fn, executors=[torch_compile_ex])   # thunder.jit + peakorder
    jfn(*args)

`jit` is ``thunder.jit`` with two pieces added, which can also be used on their own:

- :class:`MemoryAwareFusion` (a ``thunder.extend.FusionExecutor``, listed before the fusion
  executors it serves): chooses torch.compile / nvFuser regions with ``peakorder.fuse`` (as few
  regions as possible while the fused program's best peak stays at the unfused optimum) and
  builds exactly those, each in the planned order;
- :class:`MemoryOrder` (a ``thunder.core.transform_common.Transform``): runs the final forward and
  backward traces in the order ``peakorder.plan`` gives.

:func:`from_trace` exports any Thunder trace as a peakorder graph. Supported: lightning-thunder
0.2.6 with torch 2.9; anything else raises :class:`UnsupportedVersionError` here and in `jit`.
See docs/thunder.md.
"""

from __future__ import annotations

from ._versions import UnsupportedVersionError, check as check_versions

check_versions()

from .export import ExportedTrace, from_trace  # noqa: E402
from .fusion import MemoryAwareFusion, managed  # noqa: E402
from .jit import jit, kernel_count  # noqa: E402
from .order import MemoryOrder  # noqa: E402

__all__ = [
    "jit",
    "MemoryOrder",
    "MemoryAwareFusion",
    "from_trace",
    "ExportedTrace",
    "kernel_count",
    "managed",
    "check_versions",
    "UnsupportedVersionError",
]
