"""JAX → peakorder graph: trace with ``jax.make_jaxpr`` and walk the jaxpr.

Calls (``jit``/``pjit``, ``closed_call``, ``custom_jvp_call``, ``custom_vjp_call``) and
``jax.checkpoint`` / remat (``remat2``/``checkpoint``) are inlined, so the forward ops that a
rematerialised backward pass recomputes appear as ops of their own (``meta.remat``, and the calls
they sit in as ``meta.calls``). Each op's ``meta.scope`` is its JAX name stack (``jax.named_scope``
and the transforms, e.g. ``transpose(jvp(bert))/encoder/layer_0``), components joined with "/", the
path the web view groups the DAG by (docs/web.md).
Control flow (``cond``, ``while``, ``scan``) stays one op: its body's memory is not modelled,
which its ``meta.note`` says.
"""

from __future__ import annotations

import inspect
from typing import Any, Dict, List, Optional, Sequence

from ._graph import ExportError, GraphBuilder, json_safe

# Primitives whose body runs exactly once, inline, where they are called.
_INLINE = {
    "jit",
    "pjit",
    "xla_call",
    "core_call",
    "closed_call",
    "named_call",
    "remat",
    "remat2",
    "checkpoint",
    "custom_jvp_call",
    "custom_vjp_call",
    "custom_vjp_call_jaxpr",
}
_REMAT = {"remat", "remat2", "checkpoint"}
_BODY_PARAMS = ("jaxpr", "call_jaxpr", "fun_jaxpr")


def _aval_size(b: GraphBuilder, want: str, aval: Any, meta: Optional[Dict[str, Any]] = None, **kw: Any) -> str:
    shape = getattr(aval, "shape", None)
    dtype = getattr(aval, "dtype", None)
    if shape is None or dtype is None:
        # Tokens and other abstract values hold no array memory.
        return b.tensor(want, nbytes=0, meta={"jax_aval": str(aval), **(meta or {})}, **kw)
    return b.tensor(want, shape, dtype, meta=meta, **kw)


def _open(j: Any):
    """(jaxpr, consts) for a Jaxpr or a ClosedJaxpr."""
    if hasattr(j, "jaxpr") and hasattr(j, "consts"):
        return j.jaxpr, list(j.consts)
    return j, []


def _arg_names(fn: Any, n: int) -> List[str]:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        if i < len(params) and params[i].kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            names.append(params[i].name)
        else:
            names.append(f"arg{i}")
    return names


def from_jaxpr(
    fn: Any,
    *args: Any,
    static_argnums: Sequence[int] = (),
    donate_argnums: Sequence[int] = (),
    **kwargs: Any,
) -> Dict[str, Any]:
    """Traces ``fn(*args, **kwargs)`` and returns its graph (a dict in docs/design.md's JSON format).

    Graph inputs are the flattened arguments, named after ``fn``'s parameters and their pytree
    paths (``params['w'][0]``); ``donate_argnums`` marks arguments the step may free (as with
    ``jax.jit(..., donate_argnums=...)``); ``static_argnums`` are passed as Python values, not
    traced (as with ``jax.jit``). Keyword arguments are static. Constants the function closes over
    are graph inputs too. Outputs are the flattened results.
    """
    import jax
    from jax import tree_util

    static = {i % len(args) for i in static_argnums} if args else set()
    closed = jax.make_jaxpr(lambda *a: fn(*a, **kwargs), static_argnums=tuple(sorted(static)))(*args)
    b = GraphBuilder()
    b.meta = {"source": "jax", "jax_version": jax.__version__}
    jaxpr, consts = _open(closed)

    # Name the inputs after the parameters and pytree paths.
    names = _arg_names(fn, len(args))
    in_ids: List[str] = []
    donate = set(donate_argnums)
    for i, a in enumerate(args):
        if i in static:
            continue
        for path, _leaf in tree_util.tree_flatten_with_path(a)[0]:
            in_ids.append((names[i] + tree_util.keystr(path), i in donate))
    if len(in_ids) != len(jaxpr.invars):
        in_ids = [(f"in{k}", False) for k in range(len(jaxpr.invars))]

    env: Dict[Any, Optional[str]] = {}
    for v, (name, don) in zip(jaxpr.invars, in_ids):
        env[v] = _aval_size(b, name, v.aval, donated=don)
    for v, c in zip(jaxpr.constvars, consts):
        env[v] = _aval_size(b, "const", v.aval, meta={"constant": True})

    counter = [0]
    _walk(b, jaxpr, env, scope=[], counter=counter, names="")

    for v in jaxpr.outvars:
        b.outputs.append(_read_or_literal(b, env, v, [], counter))
    return b.build()


def _is_literal(v: Any) -> bool:
    return type(v).__name__ == "Literal"


def _read(env: Dict[Any, Optional[str]], v: Any) -> Optional[str]:
    """The tensor id of a jaxpr atom; None for literals (scalars baked into the op)."""
    if _is_literal(v):
        return None
    try:
        return env[v]
    except KeyError:
        raise ExportError(f"jaxpr variable {v} is read before it is defined") from None


def _read_or_literal(b: GraphBuilder, env, v, scope: List[str], counter) -> str:
    """Like _read, but a literal becomes a tensor made by a `literal` op (needed for outputs)."""
    t = _read(env, v)
    if t is not None:
        return t
    counter[0] += 1
    oid = f"{'/'.join(scope + ['literal'])}_{counter[0]}"
    tid = _aval_size(b, oid + ":0", v.aval)
    b.op(oid, "literal", [], [tid], attrs={"value": json_safe(getattr(v, "val", None))})
    return tid


def _walk(
    b: GraphBuilder,
    jaxpr: Any,
    env: Dict[Any, Optional[str]],
    scope: List[str],
    counter: List[int],
    remat: bool = False,
    names: str = "",
) -> None:
    # Recursion here follows the nesting of calls in the program (a few levels), not graph size.
    # `names`: the name stack of the call being inlined; a body's own stacks are relative to it.
    for eqn in jaxpr.eqns:
        prim = eqn.primitive.name
        body = next((eqn.params[p] for p in _BODY_PARAMS if p in eqn.params), None)
        counter[0] += 1
        name_stack = _join_names(names, _name_stack(eqn))
        if prim in _INLINE and body is not None:
            inner, consts = _open(body)
            label = f"{prim}_{counter[0]}"
            name = eqn.params.get("name")
            if isinstance(name, str) and name:
                label = f"{prim}({name})_{counter[0]}"
            sub_env: Dict[Any, Optional[str]] = {}
            n_in = len(inner.invars)
            # custom_vjp/jvp calls may pass extra leading operands; align from the end.
            outer_in = list(eqn.invars)[-n_in:] if n_in else []
            for iv, ov in zip(inner.invars, outer_in):
                sub_env[iv] = _read(env, ov)
            for cv, _c in zip(inner.constvars, consts):
                sub_env[cv] = _aval_size(b, f"{label}/const", cv.aval, meta={"constant": True})
            inner_names = name_stack
            if prim in ("jit", "pjit") and isinstance(name, str) and name:
                inner_names = _join_names(inner_names, f"jit({name})")
            _walk(b, inner, sub_env, scope + [label], counter, remat or prim in _REMAT, inner_names)
            for ov, iv in zip(eqn.outvars, inner.outvars):
                sub_scope = scope + [label]
                env[ov] = _read_or_literal(b, sub_env, iv, sub_scope, counter)
            continue

        oid_want = "/".join(scope + [f"{prim}_{counter[0]}"])
        oid = b.fresh_op_id(oid_want)
        inputs = []
        for v in eqn.invars:
            t = _read(env, v)
            if t is not None and t not in inputs:
                inputs.append(t)
        outputs = []
        for k, v in enumerate(eqn.outvars):
            # A dropped result (`_`) is still written by the op, then freed at once.
            t = _aval_size(b, f"{oid}:{k}", v.aval)
            outputs.append(t)
            if type(v).__name__ != "DropVar":
                env[v] = t
        attrs = {}
        meta: Dict[str, Any] = {}
        for k, v in eqn.params.items():
            if _has_jaxpr(v):
                continue
            attrs[k] = json_safe(v)
        if name_stack:
            meta["scope"] = name_stack
        if scope:
            meta["calls"] = list(scope)
        if remat:
            # Inside jax.checkpoint: in a backward pass these ops are the recomputation.
            meta["remat"] = True
        if any(_has_jaxpr(v) for v in eqn.params.values()):
            meta["note"] = (
                f"{prim} has a body (control flow); it is planned as one op: memory used inside "
                "its body is not modelled"
            )
        b.op(oid, prim, inputs, outputs, attrs=attrs or None, meta=meta or None, id_reserved=True)


def _name_stack(eqn: Any) -> str:
    """The equation's JAX name stack as "a/b/c" ("" when JAX records none)."""
    info = getattr(eqn, "source_info", None)
    stack = getattr(info, "name_stack", None)
    return str(stack) if stack is not None else ""


def _join_names(outer: str, inner: str) -> str:
    return f"{outer}/{inner}" if outer and inner else outer or inner


def _has_jaxpr(v: Any) -> bool:
    if isinstance(v, (list, tuple)):
        return any(_has_jaxpr(x) for x in v)
    return hasattr(v, "eqns") or (hasattr(v, "jaxpr") and hasattr(v, "consts"))
