"""``MemoryOrder``: a Thunder transform that runs each final trace in peakorder's planned order.

Thunder calls ``transform_trace_post_optimization`` on the forward trace and then on the backward
trace, after fusion and after ``del_last_used`` (``thunder/__init__.py``). Each trace is exported
(:mod:`.export`; a fusion region is one op), planned with ``peakorder.plan``, and, when the plan's
peak is below the trace's own, its bound symbols are put in the planned order: the ``del`` and
``clear_mutable_collection`` symbols are dropped and ``del_last_used`` writes them again for the
new order (without it the backward fails with ``assert not args``: the lists it receives must be
cleared).

In the backward trace, the saved tensors and cotangents arrive in lists that the trace clears, so
they may be freed after their last use (``donated``), except tensors that are also inputs of the
forward trace (parameters, the batch): their owner keeps them. The forward trace of the same
compilation is always transformed first, which is how its inputs are known here.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Set

from thunder.core.trace import TraceProvenance
from thunder.core.trace import from_trace as thunder_from_trace
from thunder.core.transform_common import Transform
from thunder.executors.passes import del_last_used

from . import _api
from .export import PROLOGUE, from_trace, sym_name


class MemoryOrder(Transform):
    """Reorders Thunder's final traces by peakorder's plan. ``plan_options`` go to
    ``peakorder.plan`` (``method``, ``budget_ms``, ``max_states``, ``max_memory_mb``).

    After each trace, ``last_plans`` holds the plans made for the latest forward (and backward)
    trace, with the program order's peak beside the planned one."""

    def __init__(self, **plan_options: Any) -> None:
        self.plan_options = plan_options
        self._forward_inputs: Set[str] = set()
        self.last_plans: Dict[str, Dict[str, Any]] = {}

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.plan_options.items())
        return f"peakorder.thunder.MemoryOrder({opts})"

    def transform_trace_post_optimization(self, computation_trace: Any, **kwargs: Any) -> Any:
        trace = computation_trace
        is_backward = is_backward_trace(trace)
        if is_backward:
            donated = backward_donated(trace, self._forward_inputs)
        else:
            self._forward_inputs = set(prologue_tensors(trace))
            donated = []
        exported = from_trace(trace, donated=donated)
        plan = _api.plan(exported.graph, **self.plan_options)
        self.last_plans["backward" if is_backward else "forward"] = plan
        program = plan.get("program_order_peak_bytes")
        if program is not None and plan["peak_bytes"] >= program:
            return trace  # already as good as planned: leave Thunder's trace as it is
        bsyms = trace.bound_symbols
        out: List[Any] = [bsyms[i] for i in exported.prologue]
        for op in plan["order"]:
            i = exported.op_index.get(op)
            if i is None:
                continue  # an ordering-only op of the export
            out.extend(bsyms[c] for c in exported.comments.get(op, ()))
            out.append(bsyms[i])
        out.extend(bsyms[c] for c in exported.trailing_comments)
        if exported.ret is not None:
            out.append(bsyms[exported.ret])
        new = thunder_from_trace(trace)
        new.bound_symbols = out
        new = del_last_used(new, clear_mutable_collections=is_backward)
        new.set_provenance(
            TraceProvenance(
                f"peakorder MemoryOrder ({plan['method']}): planned peak {plan['peak_bytes']} B, "
                f"program order {plan['program_order_peak_bytes']} B"
            )
        )
        return new


def is_backward_trace(trace: Any) -> bool:
    """Thunder's backward trace clears the lists it receives; the forward trace has none."""
    return any(sym_name(b) == "clear_mutable_collection" for b in trace.bound_symbols)


def backward_donated(trace: Any, forward_inputs: Iterable[str]) -> List[str]:
    """The backward trace's inputs it may free: all but the forward trace's own inputs."""
    keep = set(forward_inputs)
    return [n for n in prologue_tensors(trace) if n not in keep]


def prologue_tensors(trace: Any) -> List[str]:
    """Names of the proxies a trace's unpacking symbols produce: its inputs."""
    names: List[str] = []
    for b in trace.bound_symbols:
        if sym_name(b) in PROLOGUE:
            names.extend(p.name for p in b.flat_proxy_outs)
    return names
