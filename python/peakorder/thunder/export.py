"""A Thunder trace as a peakorder graph (docs/design.md §2).

Each bound symbol that computes something becomes an op; the trace's bookkeeping stays out of the
graph and is kept by the caller:

- ``unpack_trivial`` / ``unpack_sequence`` / ... (the *prologue*): their tensor outputs are the
  graph's inputs. Inputs are owned by the caller (never freed) unless listed in ``donated``, e.g.
  the saved tensors and cotangents a backward trace receives in lists it clears.
- ``python_return``: its tensors are the graph's outputs.
- ``del`` and ``clear_mutable_collection``: dropped; Thunder's ``del_last_used`` writes them anew
  for whatever order is chosen.
- comments travel with the op that follows them.

Every proxy an op reads or writes is a tensor of the graph: a TensorProxy with its shape and
dtype, any other proxy (numbers, collections) with 0 bytes, so that dependencies through them
are kept. A fusion bound symbol (``TorchCompile0``, ``nvFusion0``) is one op.

Views (docs/design.md §1, ``alias_of``): PyTorch returns a view for ``permute``, ``transpose``,
``expand``, slicing, ``split`` and the like, and for ``reshape``/``view``/``flatten``/
``contiguous`` of a contiguous tensor. A trace has no strides, so contiguity is tracked: a fresh
op output or an input is contiguous, the result of a permuting or slicing view is not, and a
``reshape`` of a non-contiguous tensor is a copy (a new tensor). This is an estimate, as Thunder's
own `get_alloc_memory` is; the measurements in docs/thunder.md show where it is exact.

Order constraints beyond dataflow are kept with 0-byte tensors (``kind: "order"`` in their meta):
ops with side effects (``DONT_DCE`` or ``IN_PLACE`` tags, ``copy_``, no outputs) keep their program
order among themselves and relative to every other reader of the tensors they touch, and in a
joint forward-backward trace every op after the first ``get_grad`` follows every op before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from .._graph import ExportError, GraphBuilder, size_fields

# Bookkeeping symbols (by name; Thunder's PrimIDs print as these names).
PROLOGUE = {"unpack_trivial", "unpack_sequence", "unpack_key", "unpack_attr", "unpack_empty_dict"}
DROPPED = {"python_del", "del", "clear_mutable_collection"}
COMMENT = {"comment"}
RETURN = {"python_return", "return"}

# Views whose result is generally not contiguous (a trace carries no strides).
STRIDED_VIEWS = {
    "permute",
    "transpose",
    "t",
    "expand",
    "expand_as",
    "movedim",
    "swapaxes",
    "swapdims",
    "narrow",
    "select",
    "diagonal",
    "unbind",
    "split",
    "chunk",
    "tensor_split",
    "getitem",
    "slice_prim",
    "torch_slice_prim_impl",
    "as_strided",
    "unfold",
}
# Views when their input is contiguous; copies (reshape, flatten, contiguous) otherwise. view
# and the squeezes never copy in PyTorch, so they stay views of non-contiguous inputs too.
SHAPE_VIEWS = {
    "reshape",
    "torch_prims_reshape_impl",
    "flatten",
    "contiguous",
}
ALWAYS_VIEWS = {
    "view",
    "view_as",
    "unsqueeze",
    "squeeze",
    "shallow_copy",
    "detach",
    "alias",
    "real",
    "imag",
    "view_as_real",
    "view_as_complex",
}
# Ops whose k-th output is the storage of their k-th tensor input (Thunder's alias bookkeeping
# around in-place ops), and copy_(src, dst), which returns dst.
POSITIONAL_ALIASES = {"update_aliases"}
RETURNS_SECOND = {"copy_"}
# Side effects: these keep their place relative to everything else touching their tensors.
EFFECT_NAMES = {"copy_", "copy_with_setitem", "update_aliases", "set_grad", "print"}


@dataclass
class ExportedTrace:
    """A trace's graph and how its ops map back to the trace's bound symbols."""

    graph: Dict[str, Any]
    # op id -> index of its bound symbol in trace.bound_symbols
    op_index: Dict[str, int]
    # indices of the prologue symbols (kept first, in their order)
    prologue: List[int]
    # index of python_return, if any (kept last)
    ret: Optional[int]
    # op id -> indices of the comments just before it
    comments: Dict[str, List[int]] = field(default_factory=dict)
    # comments after the last op
    trailing_comments: List[int] = field(default_factory=list)


def sym_name(bsym: Any) -> str:
    return str(bsym.sym.name)


def _is_tensor(p: Any) -> bool:
    from thunder.core.proxies import FutureTensorProxy, TensorProxy

    return isinstance(p, (TensorProxy, FutureTensorProxy))


def _tensor_entry(b: GraphBuilder, p: Any, *, donated: bool, alias_of: Optional[str] = None) -> str:
    name = str(p.name)
    if alias_of is not None:
        return b.tensor(name, shape=_shape(p), dtype=_torch_dtype(p), alias_of=alias_of)
    if _is_tensor(p):
        shape = _shape(p)
        fields = size_fields(name, shape, _torch_dtype(p))
        meta = {"device": str(p.device)} if getattr(p, "device", None) is not None else None
        if "bytes" in fields:
            tid = b.tensor(name, nbytes=fields["bytes"], donated=donated, meta={**fields["meta"], **(meta or {})})
        else:
            tid = b.tensor(name, shape=fields["shape"], dtype=_torch_dtype(p), donated=donated, meta=meta)
        return tid
    return b.tensor(name, nbytes=0, donated=donated, meta={"proxy": type(p).__name__})


def _shape(p: Any) -> List[int]:
    dims = []
    for axis, d in enumerate(p.shape):
        try:
            dims.append(int(d))
        except (TypeError, ValueError):
            raise ExportError(
                f"tensor {p.name!r} has a symbolic dimension {d!r} (axis {axis}); peakorder.thunder "
                "needs static shapes (thunder.jit's default cache='constant values')"
            ) from None
    return dims


def _torch_dtype(p: Any) -> Any:
    from thunder.core.dtypes import to_torch_dtype

    return to_torch_dtype(p.dtype)


def _unique(xs: Iterable[Any]) -> List[Any]:
    seen: Set[str] = set()
    out = []
    for x in xs:
        if x.name not in seen:
            seen.add(x.name)
            out.append(x)
    return out


def _is_effect(bsym: Any) -> bool:
    from thunder.core.prims import OpTags

    tags = getattr(bsym.sym, "tags", None) or ()
    if OpTags.DONT_DCE in tags or OpTags.IN_PLACE in tags:
        return True
    name = sym_name(bsym)
    if name in EFFECT_NAMES or name.endswith("_") and not name.endswith("__"):
        return True
    return not bsym.flat_proxy_outs


def _op_id(b: GraphBuilder, bsym: Any, index: int, outs: Sequence[Any]) -> str:
    kind = sym_name(bsym).replace("+", "_")
    want = f"{outs[0].name}:{kind}" if outs else f"{kind}@{index}"
    return b.fresh_op_id(want)


def from_trace(
    trace: Any,
    *,
    fusible: Optional[Dict[int, str]] = None,
    donated: Iterable[str] = (),
    workspace: Optional[Dict[int, int]] = None,
    fence_at_get_grad: bool = False,
) -> ExportedTrace:
    """The graph of ``trace`` (a Thunder ``TraceCtx``) in program order.

    ``fusible`` maps bound-symbol indices to a ``fusible`` tag (docs/design.md §4); ``donated``
    names graph inputs the trace frees (their consumers may let them go); ``workspace`` gives
    scratch bytes per bound-symbol index; ``fence_at_get_grad`` orders a joint trace's backward
    after its forward.
    """
    fusible = fusible or {}
    workspace = workspace or {}
    donated_names = set(donated)
    b = GraphBuilder()
    declared: Dict[str, str] = {}  # proxy name -> tensor id
    contiguous: Dict[str, bool] = {}
    op_index: Dict[str, int] = {}
    prologue: List[int] = []
    ret: Optional[int] = None
    comments: Dict[str, List[int]] = {}
    pending_comments: List[int] = []
    outputs: List[str] = []
    # per op (in program order): its input and output tensor ids, and whether it is an effect
    op_ios: List[Tuple[str, List[str], List[str], bool]] = []
    grad_fence_after: Optional[int] = None  # number of ops before the first get_grad

    def declare_input(p: Any) -> str:
        tid = declared.get(p.name)
        if tid is None:
            tid = _tensor_entry(b, p, donated=p.name in donated_names)
            declared[p.name] = tid
            contiguous[p.name] = True
        return tid

    for i, bsym in enumerate(trace.bound_symbols):
        name = sym_name(bsym)
        if name in DROPPED:
            continue
        if name in COMMENT:
            pending_comments.append(i)
            continue
        if name in PROLOGUE:
            prologue.append(i)
            for p in bsym.flat_proxy_outs:
                declare_input(p)
            continue
        if name in RETURN:
            ret = i
            for p in _unique(bsym.flat_proxy_args):
                tid = declare_input(p) if p.name not in declared else declared[p.name]
                if _is_tensor(p) and tid not in outputs:
                    outputs.append(tid)
            continue
        if name == "get_grad" and fence_at_get_grad and grad_fence_after is None:
            grad_fence_after = len(op_ios)

        ins = [declare_input(p) if p.name not in declared else declared[p.name] for p in _unique(bsym.flat_proxy_args)]
        arg_names = {p.name for p in bsym.flat_proxy_args}
        # An op that returns one of its inputs does not produce it again.
        outs = [p for p in _unique(bsym.flat_proxy_outs) if p.name not in arg_names]
        oid = _op_id(b, bsym, i, outs)
        sources = _alias_sources(bsym, name, outs, contiguous)
        out_ids = []
        for p in outs:
            if p.name in declared:
                raise ExportError(f"tensor {p.name!r} is produced twice (by {oid!r} and earlier)")
            src_contig = sources.get(p.name)
            if src_contig is not None and _is_tensor(p):
                src, contig = src_contig
                tid = _tensor_entry(b, p, donated=False, alias_of=declared[src])
                contiguous[p.name] = contig
            else:
                tid = _tensor_entry(b, p, donated=False)
                contiguous[p.name] = True
            declared[p.name] = tid
            out_ids.append(tid)
        op_ios.append((oid, ins, out_ids, _is_effect(bsym)))
        entry_attrs: Dict[str, Any] = {}
        meta: Dict[str, Any] = {"index": i}
        if bsym.sym.executor is not None:
            meta["executor"] = str(bsym.sym.executor.name)
        b.op(oid, name, ins, out_ids, meta=meta, attrs=entry_attrs or None, id_reserved=True)
        if i in fusible:
            b.ops[-1]["fusible"] = fusible[i]
        if workspace.get(i):
            b.ops[-1]["workspace"] = int(workspace[i])
        op_index[oid] = i
        if pending_comments:
            comments[oid] = pending_comments
            pending_comments = []

    _add_order_edges(b, op_ios, grad_fence_after)
    b.outputs = outputs
    graph = b.build()
    return ExportedTrace(graph, op_index, prologue, ret, comments, pending_comments)


def _alias_sources(
    bsym: Any, name: str, outs: Sequence[Any], contiguous: Dict[str, bool]
) -> Dict[str, Tuple[str, bool]]:
    """For each output that shares an input's storage: (that input's name, contiguous?)."""
    if name in POSITIONAL_ALIASES:
        ins = [p for p in bsym.flat_proxy_args if _is_tensor(p)]
        flat_outs = [p for p in bsym.flat_proxy_outs if _is_tensor(p)]
        return {o.name: (i.name, contiguous.get(i.name, True)) for i, o in zip(ins, flat_outs)}
    if name in RETURNS_SECOND:
        ins = [p for p in bsym.flat_proxy_args if _is_tensor(p)]
        if len(ins) >= 2:
            return {o.name: (ins[1].name, contiguous.get(ins[1].name, True)) for o in outs if _is_tensor(o)}
        return {}
    src = _view_source(bsym, name, contiguous)
    return {o.name: src for o in outs} if src is not None else {}


def _view_source(bsym: Any, name: str, contiguous: Dict[str, bool]) -> Optional[Tuple[str, bool]]:
    """(the proxy name a view's outputs alias, whether they are contiguous), or None for a copy."""
    if name not in STRIDED_VIEWS and name not in SHAPE_VIEWS and name not in ALWAYS_VIEWS:
        return None
    tensor_args = [p for p in bsym.flat_proxy_args if _is_tensor(p)]
    if not tensor_args:
        return None
    src = tensor_args[0].name
    src_contig = contiguous.get(src, True)
    if name in STRIDED_VIEWS:
        return src, False
    if name in ALWAYS_VIEWS:
        return src, src_contig
    # reshape / flatten / contiguous: a view of a contiguous tensor, a copy otherwise.
    return (src, True) if src_contig else None


def _add_order_edges(b: GraphBuilder, op_ios: List[Tuple[str, List[str], List[str], bool]], fence: Optional[int]) -> None:
    """0-byte tensors for the order constraints that dataflow does not carry."""
    edges: List[Tuple[int, int]] = []
    readers: Dict[str, List[int]] = {}
    for k, (_, ins, _, _) in enumerate(op_ios):
        for t in ins:
            readers.setdefault(t, []).append(k)
    last_effect: Optional[int] = None
    for k, (_, ins, outs, effect) in enumerate(op_ios):
        if not effect:
            continue
        if last_effect is not None:
            edges.append((last_effect, k))
        last_effect = k
        for t in ins:
            for r in readers.get(t, ()):
                if r < k:
                    edges.append((r, k))
                elif r > k:
                    edges.append((k, r))
    entry = {op["id"]: op for op in b.ops}
    seen: Set[Tuple[int, int]] = set()
    for a, c in edges:
        if (a, c) in seen or a == c:
            continue
        seen.add((a, c))
        tid = b.tensor(f"order:{op_ios[a][0]}>{op_ios[c][0]}", nbytes=0, meta={"kind": "order"})
        entry[op_ios[a][0]]["outputs"].append(tid)
        entry[op_ios[c][0]]["inputs"].append(tid)
    if fence is not None and 0 < fence < len(op_ios):
        # One 0-byte fence op, placed in the file where the first get_grad was: every forward
        # op before it, every backward op after it.
        fence_in = []
        for k in range(fence):
            tid = b.tensor(f"order:{op_ios[k][0]}>fence", nbytes=0, meta={"kind": "order"})
            entry[op_ios[k][0]]["outputs"].append(tid)
            fence_in.append(tid)
        done = b.tensor("order:fence", nbytes=0, meta={"kind": "order"})
        fence_id = b.fresh_op_id("order:fence")
        b.op(fence_id, "order", fence_in, [done], meta={"kind": "order"}, id_reserved=True)
        b.ops.insert(fence, b.ops.pop())
        for k in range(fence, len(op_ios)):
            entry[op_ios[k][0]]["inputs"].append(done)
