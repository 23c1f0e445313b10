"""peakorder as AOTAutograd's partitioner: what the forward saves for the backward, decided by
the recompute planner against a byte limit (docs/pytorch.md, "Within a byte limit").

The joint graph becomes one recompute problem (``_joint``); the planner returns the schedule
within the limit whose recomputed FLOPs are least; the steps before the boundary are the
forward, those after it the backward, and what the backward reads from before the boundary is
what the forward saves. torch's own ``_extract_fwd_bwd_modules`` then cuts the two graphs (so
AOTAutograd's conventions for saved values, tangents and static inputs hold as for its own
partitioners), and ``_schedule`` puts the planned order, with its recomputations, into each.

The limit counts what the step allocates above what was live before it (the primals), the
quantity :func:`peakorder.torch.measure_peak` reports. A limit below the least peak any
schedule reaches raises ``PeakorderError`` ``infeasible`` naming it; a graph peakorder cannot
plan (symbolic shapes, an unsizable op) warns and gets Inductor's own partitioner."""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Dict, List, Optional, Tuple, Union

import peakorder

from . import _joint, _pointwise
from ._api import error
from ._fusion import CHAINS, MARK
from ._schedule import duplicate, order

Limit = Union[int, str]


#: The partition's plans, without a ``budget_ms`` of the caller's: 1 ms per op of the joint
#: problem, from 100 ms (``peakorder.plan``'s default) to 2 s. A step is planned once, in a
#: compile of tens of seconds, and its schedule's FLOPs depend on the time: on a busy machine,
#: mobilenet_v2 at batch 16 within 40,000,000 bytes recomputed 2.906 GFLOPs at 100 ms and 0.099
#: at 2 s; the 4-block GPT at 28,000,000 bytes 98 FLOPs at 100 ms, 82 at 500 ms. Small graphs
#: keep 100 ms: a limit of ``"min"`` plans three times.
BUDGET_MS_PER_OP = 1.0
BUDGET_MS_RANGE = (100.0, 2000.0)


def default_budget_ms(num_ops: int) -> float:
    """The partition's plan budget for a joint problem of ``num_ops`` ops (see above)."""
    lo, hi = BUDGET_MS_RANGE
    return min(hi, max(lo, BUDGET_MS_PER_OP * num_ops))


def _parse_limit(memory_limit: Limit) -> Union[int, str]:
    if isinstance(memory_limit, str) and memory_limit.strip().lower() == "min":
        return "min"
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, (int, str)):
        raise error("bad_limit", f"memory_limit is bytes (an int), text with a unit (\"8GiB\") or \"min\", "
                                 f"not {memory_limit!r}")
    return peakorder.parse_bytes(memory_limit)


def _required_bw(joint_module: Any, bwd_outputs: List[Any]) -> set:
    """Nodes that need the tangents, and the backward's outputs: they run after the boundary."""
    out: set = set()
    for node in joint_module.graph.nodes:
        if node.op == "placeholder" and "tangents" in str(node.target):
            out.add(node)
        if node in out:
            out.update(node.users)
        elif node.meta.get("partitioner_tag") == "must_be_in_backward":
            out.add(node)
            out.update(node.users)
    out.update(o for o in bwd_outputs if o is not None and getattr(o, "op", None) != "output")
    return out


class _Info:
    def __init__(self, required_bw: set) -> None:
        self.required_bw = required_bw

    def is_required_bw(self, n: Any) -> bool:
        return n in self.required_bw


def plan_joint(problem: _joint.JointProblem, memory_limit: Union[int, str],
               plan_options: Dict[str, Any]) -> Dict[str, Any]:
    """The schedule of the joint problem within ``memory_limit`` (bytes above the primals, or
    ``"min"``), as :func:`peakorder.plan`'s dict plus ``limit_above_inputs_bytes``."""
    free = peakorder.plan(problem.graph, **plan_options)
    held = int(free["inputs_bytes"])
    p0 = int(free["peak_bytes"])
    if memory_limit == "min":
        # A limit of one byte: no schedule is searched for, so the least-limit search gets the
        # budget left after the order. Asked at p0 - 1, the schedule search took most of it
        # first, and under load mobilenet_v2's step at batch 16 got p0 - 4 as its least limit.
        try:
            peakorder.plan(problem.graph, memory_limit_bytes=1, **plan_options)
            return dict(free, limit_above_inputs_bytes=p0 - held)  # nothing to fit: a step of no bytes
        except peakorder.PeakorderError as e:
            if getattr(e, "code", None) != "infeasible" or getattr(e, "least_limit_bytes", None) is None:
                raise
            target = int(e.least_limit_bytes)
        if target >= p0:
            return dict(free, limit_above_inputs_bytes=p0 - held)
    else:
        target = held + int(memory_limit)
        if target >= p0:
            return dict(free, limit_above_inputs_bytes=int(memory_limit))
    try:
        result = peakorder.plan(problem.graph, memory_limit_bytes=target, **plan_options)
    except peakorder.PeakorderError as e:
        if getattr(e, "code", None) == "infeasible":
            least = getattr(e, "least_limit_bytes", None)
            least_txt = f"; the least limit found is {int(least) - held} bytes above the inputs" if least else ""
            raise peakorder.PeakorderError(
                f"memory_limit {int(memory_limit)} bytes above the step's inputs cannot be met{least_txt} "
                f"({e})", "infeasible", op=getattr(e, "op", None)) from e
        raise
    return dict(result, limit_above_inputs_bytes=target - held)


def _extract(joint_module: Any, saved: List[Any], sym: List[Any], num_fwd_outputs: int,
             static_nodes: Any) -> Tuple[Any, Any]:
    from torch._functorch import partitioners as P

    params = inspect.signature(P._extract_fwd_bwd_modules).parameters
    kwargs: Dict[str, Any] = {"num_fwd_outputs": num_fwd_outputs}
    if "saved_opaque_nodes" in params:
        kwargs["saved_opaque_nodes"] = []
    if "static_lifetime_input_nodes" in params:
        kwargs["static_lifetime_input_nodes"] = static_nodes
    return P._extract_fwd_bwd_modules(joint_module, saved, saved_sym_nodes=sym, **kwargs)


def partition(joint_module: Any, joint_inputs: Any, *, num_fwd_outputs: int,
              memory_limit: Limit, plan_options: Optional[Dict[str, Any]] = None,
              static_lifetime_input_indices: Optional[List[int]] = None, record: Optional[Dict[str, Any]] = None,
              **kwargs: Any) -> Tuple[Any, Any]:
    """AOTAutograd's ``partition_fn`` contract: the joint graph in, the forward and backward
    graph modules out (see the module docstring). ``record`` (a dict) receives the plan."""
    from torch._functorch import partitioners as P

    limit = _parse_limit(memory_limit)
    plan_options = dict(plan_options or {})
    outs = P._extract_fwd_bwd_outputs(joint_module, num_fwd_outputs=num_fwd_outputs)
    fwd_outputs, bwd_outputs = outs[0], outs[1]
    info = _Info(_required_bw(joint_module, bwd_outputs))
    try:
        mutated = _joint.mutated_inputs(joint_module, list(outs[2]) if len(outs) > 2 else [])
        problem = _joint.export_joint(joint_module, info, fwd_outputs, _joint.calibrate_joint(joint_module), mutated)
    except peakorder.PeakorderError as e:
        if getattr(e, "code", None) not in ("symbolic_shape", "unsized_op"):
            raise
        warnings.warn(f"peakorder: this graph keeps PyTorch's partition: {e}", stacklevel=2)
        return _fallback(joint_module, joint_inputs, num_fwd_outputs, static_lifetime_input_indices, kwargs)
    # Planned with pointwise chains as one op each, as Inductor runs them (``_pointwise``).
    planned, chains = _pointwise.collapse(problem)
    plan_options.setdefault("budget_ms", default_budget_ms(len(planned.graph["ops"])))
    result = plan_joint(planned, limit, plan_options)
    schedule = _pointwise.expand(list(result["order"]), chains)
    split = _joint.saved_and_recomputed(problem, schedule)
    try:
        fw, bw, copies = _cut(joint_module, schedule, info, num_fwd_outputs, static_lifetime_input_indices)
    except Exception as e:  # a graph shape this partition cannot cut yet: PyTorch's, and say so
        warnings.warn(f"peakorder: this graph keeps PyTorch's partition: the planned schedule could not be "
                      f"applied ({type(e).__name__}: {e})", stacklevel=2)
        return _fallback(joint_module, joint_inputs, num_fwd_outputs, static_lifetime_input_indices, kwargs)
    if split["recomputed"]:
        fw.meta[MARK] = bw.meta[MARK] = True
        # Where the schedule recomputes a pointwise chain, or run link by link peaks higher
        # than planned, the plan holds only with its chains fused, and the post-grad order
        # must keep them so (mobilenet_v2 at its least limit: 35.2-39.9 MB ordered link by
        # link, 30.95 by chains, against 30.96 planned). Elsewhere the order is planned link by
        # link, as it measured before chains were planned (resnet18 at its least limit,
        # recomputing one convolution: 61.66 MB, its plan, link by link; 63.26 MB by chains).
        links = {m for c in chains.values() for m in c}
        if chains and (any(op in links for op in split["recomputed"])
                       or peakorder.simulate(problem.graph, schedule)["peak_bytes"] > result["peak_bytes"]):
            fw.meta[CHAINS] = bw.meta[CHAINS] = True
    if record is not None:
        record.update(plan=result, schedule=schedule, saved=[n.name for n in bw.graph.nodes if n.op == "placeholder"],
                      recomputed=split["recomputed"],
                      recomputed_flops=sum(problem.cost.get(o, 0) * k for o, k in split["recomputed"].items()),
                      copies=copies, graph=problem.graph)
    return fw, bw


def _cut(joint_module: Any, schedule: List[str], info: "_Info", num_fwd_outputs: int,
         static_lifetime_input_indices: Optional[List[int]]) -> Tuple[Any, Any, int]:
    """The forward and backward graphs of a schedule: each run a node of a copy of the joint
    graph (``_schedule.duplicate``), what the backward reads from before the boundary saved,
    torch's extraction, then each graph in the schedule's order. Returns (fw, bw, copies)."""
    import copy as _copy

    from torch.fx.experimental.proxy_tensor import is_sym_node
    from torch.utils._ordered_set import OrderedSet

    joint = _copy.deepcopy(joint_module)
    names = {n.name for n in joint.graph.nodes}
    b = schedule.index(_joint.BOUNDARY)
    steps = [s for s in schedule if s in names]
    n_pre = sum(1 for s in schedule[:b] if s in names)
    instances = duplicate(joint, steps, num_fwd_outputs)
    by_name = {n.name: n for n in joint.graph.nodes}
    pre_nodes = {by_name[i] for i in instances[:n_pre]}
    post_nodes = {by_name[i] for i in instances[n_pre:]}
    required_bw = {by_name[n.name] for n in info.required_bw if n.name in by_name}
    pre: set = set()
    for n in joint.graph.nodes:
        if n.op == "placeholder":
            if "tangents" not in str(n.target) and "bwd_seed" not in str(n.target):
                pre.add(n)
        elif n in pre_nodes:
            pre.add(n)
        elif n in post_nodes or n.op == "output" or n in required_bw:
            continue
        elif n.all_input_nodes and all(a in pre for a in n.all_input_nodes):
            pre.add(n)  # getitem, SymInt arithmetic, unexported nodes over forward values
    saved: List[Any] = []
    sym: List[Any] = []
    for n in joint.graph.nodes:
        if n not in pre or not any(u not in pre and u.op != "output" for u in n.users):
            continue
        if is_sym_node(n):
            sym.append(n)
        elif n.users and all(_is_getitem(u) for u in n.users):
            continue  # a multi-output node: its getitems are saved
        else:
            saved.append(n)
    primals = [n for n in joint.graph.nodes if n.op == "placeholder" and "primals" in str(n.target)]
    static = OrderedSet(p for i, p in enumerate(primals) if i in set(static_lifetime_input_indices or []))
    fw, bw = _extract(joint, saved, sym, num_fwd_outputs, static)
    for gm in (fw, bw):
        order(gm.graph, instances)
        gm.graph.lint()
        gm.recompile()
    return fw, bw, len(instances) - len(set(steps))


def _is_getitem(n: Any) -> bool:
    import operator

    return n.op == "call_function" and n.target is operator.getitem


def _fallback(joint_module: Any, joint_inputs: Any, num_fwd_outputs: int,
              static_lifetime_input_indices: Optional[List[int]], kwargs: Dict[str, Any]) -> Tuple[Any, Any]:
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    return min_cut_rematerialization_partition(
        joint_module, joint_inputs, num_fwd_outputs=num_fwd_outputs,
        static_lifetime_input_indices=static_lifetime_input_indices, **kwargs)


def partitioner(memory_limit: Limit, plan_options: Optional[Dict[str, Any]] = None) -> Any:
    """An Inductor ``CustomPartitionerFn`` that partitions with :func:`partition`. Its
    ``records`` list gets one dict per graph partitioned (the plan, the saved values, the
    recomputed ops and their FLOPs); its ``uuid()`` covers the limit, the options and
    peakorder's sources, so Inductor's FX graph cache stays on."""
    from torch._inductor.custom_graph_pass import CustomPartitionerFn

    from ._fusion import install
    from ._uuid import pass_uuid

    install()

    limit = _parse_limit(memory_limit)  # bad limits fail where the options are made
    options = dict(plan_options or {})

    global PeakorderPartitioner

    class PeakorderPartitioner(CustomPartitionerFn):  # type: ignore[misc]
        """peakorder's partitioner (a module attribute, so that Inductor's cache can pickle it)."""

        def __init__(self, limit: Any, options: Dict[str, Any]) -> None:
            super().__init__()
            self.limit, self.options = limit, options
            self.records: List[Dict[str, Any]] = []

        def __call__(self, gm: Any, joint_inputs: Any, **kwargs: Any) -> Tuple[Any, Any]:
            record: Dict[str, Any] = {}
            out = partition(gm, joint_inputs, memory_limit=self.limit, plan_options=self.options, record=record,
                            **kwargs)
            self.records.append(record)
            return out

        def uuid(self) -> Any:
            return pass_uuid("partition", {"memory_limit": self.limit, "plan": self.options})

    return PeakorderPartitioner(limit, options)
