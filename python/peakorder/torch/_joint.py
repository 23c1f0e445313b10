"""AOTAutograd's joint forward-backward graph as one recompute problem for the planner.

The joint graph holds the forward and the backward of a training step. As a program the step
runs the forward to its end, returns to the caller, and later runs the backward, which receives
the incoming gradients (``tangents_*``). The export says so with one op of its own, the
*boundary*: it reads the forward's outputs (held by the caller anyway, so it adds no memory)
and makes the tangents and a 0-byte token that every op PyTorch places in the backward reads.
Any schedule of this graph is then a forward, the boundary, and a backward; a forward op that
runs again after the boundary is recomputed by the backward, and what the backward reads from
before the boundary is what the forward saves (``_partition``).

Costs are FLOPs (``_flops``); random ops, in-place writes, effectful and impure nodes never
run twice (``recompute: false``), nor does the boundary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from .. import _fx
from .._graph import ExportError
from . import _effects, _order
from ._api import error
from ._flops import node_flops

BOUNDARY = "peakorder:backward"
TOKEN = "peakorder:backward_token"


@dataclass
class JointProblem:
    graph: Dict[str, Any]
    #: op id -> the joint graph's fx node
    op_node: Dict[str, Any]
    cost: Dict[str, int] = field(default_factory=dict)


def _never_twice(node: Any) -> bool:
    if _effects.is_ordered(node) or _effects.written(node):
        return True
    try:
        return bool(node.is_impure())
    except Exception:
        return True


def calibrate_joint(joint_module: Any) -> Dict[str, int]:
    """Each node's scratch memory (``_calibrate``), from one run of the joint graph on inputs
    made from its placeholders' metadata: random floats, zero integers (valid indices and class
    targets). {} with a warning when the graph cannot run so (then the plan ignores scratch).
    The run draws its random numbers with the global generator's state saved and restored, so
    compiling does not change what the program draws."""
    import torch
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    # The partitioner runs inside AOTAutograd's FakeTensorMode: without leaving it, the inputs
    # made here would be fake and every op's scratch 0 (measured: mobilenet_v2's convolutions,
    # 6 MiB of mkldnn scratch each, calibrated as none, and its step 19% above its plan).
    with unset_fake_temporarily(), torch.random.fork_rng(devices=[]):
        return _calibrate_real(joint_module)


def _calibrate_real(joint_module: Any) -> Dict[str, int]:
    import warnings

    import torch

    from ._calibrate import calibrate

    inputs = []
    for n in joint_module.graph.nodes:
        if n.op != "placeholder":
            continue
        v = n.meta.get("val")
        if isinstance(v, torch.SymInt) or (isinstance(v, torch.Tensor) and _fx._has_symbolic(v)):
            return {}  # int() of a symbol would specialise it; the export refuses this graph
        if isinstance(v, torch.Tensor) and v.device.type != "cpu":
            return {}  # the CPU profiler measures CPU scratch only; a CUDA step plans without it
        if isinstance(v, torch.Tensor):
            shape = [int(d) for d in v.shape]
            if v.dtype.is_floating_point or v.dtype.is_complex:
                inputs.append(torch.randn(shape, dtype=v.dtype))
            else:
                inputs.append(torch.zeros(shape, dtype=v.dtype))
        else:
            inputs.append(v)
    try:
        return calibrate(joint_module, inputs)
    except Exception as e:  # an op that needs real data: plan without scratch, and say so
        warnings.warn(f"peakorder: the joint graph's scratch memory is not calibrated ({type(e).__name__}: {e}); "
                      "the measured peak may exceed the limit by the ops' temporaries", stacklevel=4)
        return {}


def mutated_inputs(joint_module: Any, fwd_output_descs: List[Any]) -> List[Any]:
    """The placeholders whose new value the forward returns (BatchNorm's running statistics):
    AOTAutograd copies it into the input after the forward, so a backward that read the input
    would see the new value (and autograd's version check refuses it)."""
    try:
        from torch._functorch._aot_autograd.descriptors import InputMutationAOTOutput
    except ImportError:  # no descriptors: nothing is known mutated (every input is then read as is)
        return []
    mutated = [d.mutated_input for d in fwd_output_descs if isinstance(d, InputMutationAOTOutput)]
    return [n for n in joint_module.graph.nodes if n.op == "placeholder" and n.meta.get("desc") in mutated]


def export_joint(joint_module: Any, node_info: Any, fwd_outputs: List[Any],
                 workspace: Optional[Dict[str, int]] = None, mutated: Sequence[Any] = ()) -> JointProblem:
    """The recompute problem of ``joint_module`` (see the module docstring). ``node_info`` says
    which nodes need the tangents; ``workspace`` is each node's scratch (``calibrate_joint``)."""
    try:
        graph, env = _fx.export_fx(joint_module, workspace=workspace)
    except ExportError as e:
        raise error(getattr(e, "code", None) or "unsized_op", str(e), getattr(e, "node", None)) from e
    nodes = list(joint_module.graph.nodes)
    graph = _order.with_order_edges(graph, _order.constraints(nodes, graph, env))
    op_node = {n.name: n for n in nodes if n.op not in ("placeholder", "output", "get_attr")}
    ops = [dict(o) for o in graph["ops"]]
    tangents = [t for n in nodes if n.op == "placeholder" and "tangents" in str(n.target)
                for t in _order._ids(env, n)]
    fwd_ids: List[str] = []
    for n in fwd_outputs:
        if n is not None and n.op != "output":
            for t in _order._ids(env, n):
                if t not in fwd_ids:
                    fwd_ids.append(t)
    tensors = list(graph["tensors"]) + [{"id": TOKEN, "bytes": 0, "meta": {"order_only": True}}]
    # A storage some node writes (BatchNorm's running statistics, copied back into the buffer
    # at the forward's end) reads differently before and after the write: nothing that reads it
    # may run again, or a recomputation would see the new values.
    root = _order._roots(graph)
    written = {root.get(t, t) for n in nodes for w in _effects.written(n) for t in _order._ids(env, w)}
    written.update(root.get(t, t) for n in mutated for t in _order._ids(env, n))
    cost: Dict[str, int] = {}
    for o in ops:
        node = op_node.get(o["id"])
        if node is None:
            continue
        cost[o["id"]] = node_flops(node)
        o["cost"] = cost[o["id"]]
        if _never_twice(node) or any(root.get(t, t) in written for t in o["inputs"]):
            o["recompute"] = False
        if node_info.is_required_bw(node):
            o["inputs"] = list(o["inputs"]) + [TOKEN]
    # A forward op nothing reads (the copy_ of BatchNorm's new running statistics into its
    # buffer) is no forward output, yet torch's extraction puts it in the forward graph, with
    # whatever it reads: run after the boundary, it read the backward's recomputations, and
    # the forward made them too (mobilenet_v2 at its least limit: a 6 MiB convolution made
    # three times in the forward, one run saved). The boundary waits for it.
    for n in nodes:
        if n.name in op_node and not node_info.is_required_bw(n) and all(u.op == "output" for u in n.users):
            for t in _order._ids(env, n):
                if t not in fwd_ids:
                    fwd_ids.append(t)
    boundary = {"id": BOUNDARY, "kind": "backward", "inputs": fwd_ids, "outputs": tangents + [TOKEN],
                "cost": 0, "recompute": False, "meta": {"note": "the forward returns; the backward starts"}}
    # The boundary runs where the forward ends: after the last op the forward outputs need.
    ops.append(boundary)
    out = dict(graph, tensors=tensors, ops=ops)
    return JointProblem(out, op_node, cost)


def saved_and_recomputed(problem: JointProblem, schedule: List[str]) -> Dict[str, Any]:
    """What a schedule of the joint problem means for the partition: ``pre`` and ``post`` (the
    steps before and after the boundary), ``saved`` (tensor ids the backward reads from before
    the boundary: what the forward must return), and ``recomputed`` (op id -> how many times it
    runs after the boundary while it also ran before)."""
    b = schedule.index(BOUNDARY)
    pre, post = schedule[:b], schedule[b + 1:]
    producer = {t: o["id"] for o in problem.graph["ops"] for t in o["outputs"]}
    inputs = {o["id"]: o["inputs"] for o in problem.graph["ops"]}
    ran_before = set(pre)
    ran_after = {BOUNDARY}
    saved: List[str] = []
    recomputed: Dict[str, int] = {}
    for op in post:
        for t in inputs[op]:
            p = producer.get(t)
            if p in ran_after or t == TOKEN:
                continue
            if t not in saved and (p is None or p in ran_before):
                saved.append(t)
        if op in ran_before:
            recomputed[op] = recomputed.get(op, 0) + 1
        ran_after.add(op)
    return {"pre": pre, "post": post, "saved": saved, "recomputed": recomputed}
