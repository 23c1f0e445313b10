"""PyTorch torch.fx → peakorder graph.

Works on any ``torch.fx.GraphModule``: ``torch.fx.symbolic_trace`` output, the ``graph_module`` of
a ``torch.export`` program (an ``ExportedProgram`` is accepted directly), ``make_fx`` traces and
AOTAutograd forward, backward or joint graphs.

- Sizes come from each node's fake-tensor metadata (``node.meta['val']``); a graph without it
  (plain symbolic_trace) is first run on fake copies of ``example_inputs`` with FakeTensorProp, so
  nothing real is computed or allocated.
- Views and in-place ops become ``alias_of``: a tensor whose storage is already held by an earlier
  tensor aliases it. Storage identity is what the framework itself allocates, so a ``reshape``
  that copies is not a view while one that does not is. Where a node has no tensor metadata, the
  op schema's alias annotations (``Tensor(a)``, ``Tensor(a!)``) decide instead.
- Parameters and buffers (placeholders of torch.export / AOTAutograd graphs, ``get_attr`` nodes,
  and the parameters of ``call_module`` submodules) are graph inputs, never freed.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ._graph import ExportError, GraphBuilder, dtype_name, json_safe, size_bytes, size_fields


def _is_tensor(x: Any) -> bool:
    import torch

    return isinstance(x, torch.Tensor)


def _storage_key(t: Any) -> Any:
    try:
        from torch.multiprocessing.reductions import StorageWeakRef

        return StorageWeakRef(t.untyped_storage())
    except Exception:  # sparse, nested or otherwise storage-less tensors
        return None


def _storage_nbytes(t: Any) -> Optional[int]:
    try:
        return int(t.untyped_storage().nbytes())
    except Exception:
        return None


def _ensure_vals(gm: Any, example_inputs: Optional[Sequence[Any]]) -> None:
    """Gives every node a `meta['val']` by fake propagation, unless the graph already has them."""
    nodes = [n for n in gm.graph.nodes if n.op in ("placeholder", "call_function", "call_method", "call_module")]
    if all("val" in n.meta for n in nodes):
        return
    if example_inputs is None:
        raise ExportError(
            "this graph has no tensor metadata (node.meta['val']); pass example_inputs so that "
            "peakorder can propagate fake tensors through it"
        )
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    mode = FakeTensorMode(allow_non_fake_inputs=True)
    FakeTensorProp(gm, mode).propagate(*example_inputs)


def _kind(node: Any, gm: Any) -> str:
    if node.op == "call_module":
        try:
            return type(gm.get_submodule(node.target)).__name__
        except Exception:
            return str(node.target)
    if node.op == "call_method":
        return str(node.target)
    t = node.target
    name = getattr(t, "__name__", None)
    if hasattr(t, "_schema") or hasattr(t, "overloadpacket"):
        return str(t)
    return name or str(t)


def _schema_alias_sources(node: Any) -> List[Optional[Any]]:
    """For each returned tensor, the argument node it aliases per the op's schema, or None."""
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return []
    sets = {}
    for i, a in enumerate(schema.arguments):
        if a.alias_info is not None:
            val = node.args[i] if i < len(node.args) else node.kwargs.get(a.name)
            for s in a.alias_info.before_set:
                sets[s] = val
    out = []
    for r in schema.returns:
        src = None
        if r.alias_info is not None:
            for s in r.alias_info.before_set:
                if s in sets:
                    src = sets[s]
        out.append(src)
    return out


def from_fx(
    graph_module: Any,
    example_inputs: Optional[Sequence[Any]] = None,
    *,
    donate: Iterable[str] = (),
) -> Dict[str, Any]:
    """Exports a torch.fx GraphModule (or a torch.export ExportedProgram) as a peakorder graph.

    ``example_inputs`` are needed only when the graph has no fake-tensor metadata (plain
    ``torch.fx.symbolic_trace``). ``donate`` names placeholders the program may free once used
    (e.g. activations saved for backward passed to a backward graph)."""
    import torch
    import torch.fx

    kinds: Dict[str, str] = {}
    gm = graph_module
    if hasattr(graph_module, "graph_signature") and hasattr(graph_module, "graph_module"):
        # torch.export.ExportedProgram: name each placeholder's role (parameter, buffer, input).
        gm = graph_module.graph_module
        for spec in graph_module.graph_signature.input_specs:
            kinds[spec.arg.name] = str(spec.kind).split(".")[-1].lower()
    if not isinstance(gm, torch.fx.GraphModule):
        raise ExportError(f"expected a torch.fx.GraphModule or ExportedProgram, got {type(gm).__name__}")
    _ensure_vals(gm, example_inputs)
    donate = set(donate)

    b = GraphBuilder()
    b.meta = {"source": "torch.fx", "torch_version": torch.__version__}
    # node -> tensor id, or list of ids (None for non-tensor elements) for multi-output nodes.
    env: Dict[Any, Any] = {}
    # storage -> id of the tensor that owns it (the first seen).
    owner: Dict[Any, str] = {}
    # tensor id -> its root owner (for schema-based aliasing).
    root_of: Dict[str, str] = {}

    def declare(want: str, t: Any, *, pinned_input: bool = False, alias_hint: Optional[str] = None,
                donated: bool = False, meta: Optional[Dict[str, Any]] = None) -> str:
        key = _storage_key(t)
        target = owner.get(key) if key is not None else None
        if target is None and alias_hint is not None:
            target = root_of.get(alias_hint, alias_hint)
        shape = tuple(int(d) for d in t.shape) if not _has_symbolic(t) else tuple(t.shape)
        if target is not None and not pinned_input:
            tid = b.tensor(want, shape, t.dtype, alias_of=target, meta=meta)
            root_of[tid] = root_of.get(target, target)
            return tid
        fields = size_fields(want, shape, t.dtype)
        own = size_bytes(fields)
        nbytes = _storage_nbytes(t)
        if nbytes is not None and nbytes > own:
            # The storage is larger than the shape (a slice, padding): count what is allocated.
            m = dict(meta or {})
            m.update({"shape": [int(d) for d in shape], "framework_dtype": dtype_name(t.dtype),
                      "note": "storage larger than its shape"})
            tid = b.tensor(want, nbytes=nbytes, donated=donated, meta=m)
        else:
            tid = b.tensor(want, shape, t.dtype, donated=donated, meta=meta)
        if key is not None and key not in owner:
            owner[key] = tid
        root_of[tid] = tid
        return tid

    def lookup(x: Any) -> List[str]:
        v = env.get(x)
        if v is None:
            return []
        if isinstance(v, list):
            return [t for t in v if t is not None]
        return [v]

    def node_inputs(node: Any) -> List[str]:
        found: List[str] = []
        torch.fx.node.map_arg((node.args, node.kwargs), lambda n: found.extend(lookup(n)) or n)
        out: List[str] = []
        for t in found:
            if t not in out:
                out.append(t)
        return out

    for node in gm.graph.nodes:
        val = node.meta.get("val", node.meta.get("example_value"))
        if node.op == "placeholder":
            if not _is_tensor(val):
                continue  # SymInts, None, opaque objects hold no tensor memory here
            m = {"role": kinds[node.name]} if node.name in kinds else None
            env[node] = declare(node.name, val, pinned_input=True, donated=node.name in donate, meta=m)
            continue
        if node.op == "get_attr":
            try:
                attr = _getattr(gm, node.target)
            except AttributeError:
                continue
            if _is_tensor(attr):
                env[node] = declare(node.target, attr, pinned_input=True, meta={"role": "attribute"})
            continue
        if node.op == "output":
            outs: List[str] = []
            torch.fx.node.map_arg(node.args, lambda n: outs.extend(lookup(n)) or n)
            for t in outs:
                if t not in b.outputs:
                    b.outputs.append(t)
            continue

        # getitem on a multi-output node selects an element: no op, no memory.
        if node.op == "call_function" and getattr(node.target, "__name__", "") == "getitem":
            src = node.args[0]
            if isinstance(env.get(src), list) and isinstance(node.args[1], int):
                lst = env[src]
                i = node.args[1]
                if -len(lst) <= i < len(lst) and lst[i] is not None:
                    env[node] = lst[i]
                continue

        inputs = node_inputs(node)
        if node.op == "call_module":
            # Submodule parameters and buffers are memory the op reads: pinned graph inputs.
            try:
                mod = gm.get_submodule(node.target)
                for pname, p in list(mod.named_parameters()) + list(mod.named_buffers()):
                    pid = f"{node.target}.{pname}"
                    if pid not in root_of:
                        declare(pid, p.detach(), pinned_input=True, meta={"role": "parameter"})
                    inputs.append(pid)
            except AttributeError:
                pass

        hints = _schema_alias_sources(node) if node.op == "call_function" else []
        outputs: List[str] = []
        if _is_tensor(val):
            hint = lookup(hints[0])[0] if hints and hints[0] is not None and lookup(hints[0]) else None
            tid = declare(node.name, val, alias_hint=hint)
            outputs.append(tid)
            env[node] = tid
        elif isinstance(val, (list, tuple)):
            lst: List[Optional[str]] = []
            for i, x in enumerate(val):
                if _is_tensor(x):
                    h = hints[i] if i < len(hints) else (hints[0] if len(hints) == 1 else None)
                    hint = lookup(h)[0] if h is not None and lookup(h) else None
                    tid = declare(f"{node.name}.{i}", x, alias_hint=hint)
                    outputs.append(tid)
                    lst.append(tid)
                else:
                    lst.append(None)
            env[node] = lst
        elif val is None and not inputs:
            continue  # a pure-Python node with no tensors (asserts, shape arithmetic)
        elif val is not None and not _is_tensor(val):
            continue  # SymInt / scalar results hold no tensor memory
        attrs = {}
        for i, a in enumerate(node.args):
            if not isinstance(a, torch.fx.Node) and not _contains_node(a):
                attrs[f"arg{i}"] = json_safe(a)
        for k, a in node.kwargs.items():
            if not isinstance(a, torch.fx.Node) and not _contains_node(a):
                attrs[k] = json_safe(a)
        meta: Dict[str, Any] = {"fx_op": node.op}
        stack = node.meta.get("nn_module_stack")
        if isinstance(stack, dict) and stack:
            last = list(stack.values())[-1]
            meta["module"] = str(last[0] if isinstance(last, tuple) else last)
        b.op(node.name, _kind(node, gm), inputs, outputs, attrs=attrs or None, meta=meta)
    return b.build()


def _contains_node(a: Any) -> bool:
    import torch.fx

    if isinstance(a, (list, tuple)):
        return any(isinstance(x, torch.fx.Node) or _contains_node(x) for x in a)
    if isinstance(a, dict):
        return any(isinstance(x, torch.fx.Node) or _contains_node(x) for x in a.values())
    return False


def _has_symbolic(t: Any) -> bool:
    try:
        [int(d) for d in t.shape]
        return False
    except Exception:
        return True


def _getattr(mod: Any, target: str) -> Any:
    obj = mod
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj
