"""``peakorder.thunder.jit``: ``thunder.jit`` with peakorder's fusion executor and order transform."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import thunder

from ._versions import check as check_versions
from .export import COMMENT, DROPPED, PROLOGUE, RETURN, sym_name
from .fusion import MemoryAwareFusion, managed
from .order import MemoryOrder


def jit(
    fn: Callable,
    /,
    *,
    plan_options: Optional[Dict[str, Any]] = None,
    fusion: bool = True,
    peak_limit: Optional[int] = None,
    fusion_budget_ms: Optional[float] = None,
    **thunder_jit_kwargs: Any,
) -> Callable:
    """``thunder.jit(fn, **thunder_jit_kwargs)`` with peakorder's passes added:

    - when ``executors`` (Thunder's default list if not given) holds ``torch_compile_ex`` or
      nvFuser and ``fusion`` is true, a :class:`MemoryAwareFusion` for them is listed first
      (``peak_limit``, ``fusion_budget_ms`` go to ``peakorder.fuse``);
    - a :class:`MemoryOrder` transform (``plan_options`` go to ``peakorder.plan``) is appended to
      ``transforms``.

    Equivalent by hand::

        ex = [torch_compile_ex]
        thunder.jit(fn, executors=[MemoryAwareFusion(ex), *ex], transforms=[MemoryOrder()])
    """
    check_versions()
    executors = thunder_jit_kwargs.pop("executors", None)
    executors = list(thunder.extend.resolve_executors(executors))
    if fusion and managed(executors):
        executors.insert(
            0,
            MemoryAwareFusion(
                executors,
                peak_limit=peak_limit,
                budget_ms=fusion_budget_ms,
                plan_options=plan_options,
            ),
        )
    transforms = list(thunder_jit_kwargs.pop("transforms", None) or [])
    transforms.append(MemoryOrder(**(plan_options or {})))
    return thunder.jit(fn, executors=executors, transforms=transforms, **thunder_jit_kwargs)


def kernel_count(trace: Any) -> int:
    """Bound symbols of an execution trace that launch work: fusion regions plus unfused ops,
    without the trace's bookkeeping (unpacks, ``del``, comments, return)."""
    skip = PROLOGUE | DROPPED | COMMENT | RETURN
    return sum(1 for b in trace.bound_symbols if sym_name(b) not in skip)
