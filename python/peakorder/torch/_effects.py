"""What an fx node does besides making its outputs: which arguments it writes in place, and
whether it must keep its place among the graph's other side effects.

A reordering may move a node anywhere its data allows, except:

- a node that *writes* a tensor (``add_``, ``copy_``, BatchNorm's running statistics, an ``out=``
  argument) stays after every node that touched that storage before it and before every node
  that touches it after (``_order.hazards``);
- an *ordered* node (random numbers, prints and asserts, effect tokens, higher-order ops,
  ``call_module`` and unknown Python callables) keeps its place relative to every other ordered
  node, so random streams draw in the same order and side effects happen in the same order.

ATen ops are read from their schemas (``Tensor(a!)`` arguments, the ``nondeterministic_seeded``
tag); Python callables in ``symbolic_trace`` / dynamo graphs by name, conservatively."""

from __future__ import annotations

import operator
from typing import Any, List

# Python-level functions that draw random numbers (symbolic_trace / dynamo graphs).
_RANDOM_WORDS = (
    "rand", "bernoulli", "dropout", "multinomial", "normal", "poisson", "uniform",
    "exponential", "geometric", "cauchy", "log_normal", "rrelu",
)
_INPLACE_OPERATORS = {
    operator.setitem, operator.iadd, operator.isub, operator.imul, operator.itruediv,
    operator.ifloordiv, operator.imod, operator.ipow, operator.iand, operator.ior,
    operator.ixor, operator.ilshift, operator.irshift, operator.imatmul,
}
_PURE_OPERATORS = {
    getattr(operator, n)
    for n in dir(operator)
    if not n.startswith("_") and callable(getattr(operator, n))
} - _INPLACE_OPERATORS


def _nodes_in(value: Any) -> List[Any]:
    import torch.fx

    found: List[Any] = []
    torch.fx.node.map_arg(value, lambda n: found.append(n) or n)
    return found


def _arg(node: Any, i: int, name: str) -> Any:
    return node.args[i] if i < len(node.args) else node.kwargs.get(name)


def _is_aten(target: Any) -> bool:
    import torch

    return isinstance(target, torch._ops.OpOverload)


def _is_hop(target: Any) -> bool:
    import torch

    return isinstance(target, torch._ops.HigherOrderOperator)


def _name(target: Any) -> str:
    return str(getattr(target, "__name__", target))


_IMPURE_BUILTINS = {"print", "setattr", "delattr", "exec", "eval", "input", "open", "breakpoint"}


def _torch_callable(target: Any) -> bool:
    """A torch, operator, math or side-effect-free builtin callable (its effects are known)."""
    if target in _PURE_OPERATORS:
        return True
    mod = getattr(target, "__module__", None) or ""
    if mod in ("builtins", "math"):
        return _name(target) not in _IMPURE_BUILTINS
    if mod == "torch" or mod.startswith("torch."):
        return True
    owner = getattr(target, "__self__", None)  # torch._C._VariableFunctions.relu and friends
    return owner is not None and (getattr(owner, "__name__", "") or type(owner).__module__).startswith("torch")


def written(node: Any) -> List[Any]:
    """The fx nodes whose storage ``node`` writes (may be empty)."""
    if node.op == "call_function":
        t = node.target
        if _is_aten(t):
            out: List[Any] = []
            for i, a in enumerate(t._schema.arguments):
                if a.alias_info is not None and a.alias_info.is_write:
                    out += _nodes_in(_arg(node, i, a.name))
            return out
        if _is_hop(t) or not _torch_callable(t):
            return _nodes_in((node.args, node.kwargs))  # unknown: any argument may be written
        first = _nodes_in(node.args[:1])
        out = _nodes_in(node.kwargs.get("out"))
        name = _name(t)
        if t in _INPLACE_OPERATORS or node.kwargs.get("inplace") is True or (
            name.endswith("_") and not name.endswith("__")
        ):
            out += first
        return out
    if node.op == "call_method":
        name = str(node.target)
        out = _nodes_in(node.kwargs.get("out"))
        if (name.endswith("_") and not name.endswith("__")) or name in ("__setitem__", "__iadd__"):
            out += _nodes_in(node.args[:1])
        return out
    if node.op == "call_module":
        return _nodes_in((node.args, node.kwargs))  # a module may change its inputs in place
    return []


def is_ordered(node: Any) -> bool:
    """Whether ``node`` keeps its place among the graph's other ordered nodes."""
    import torch

    if node.op == "call_module":
        return True  # may draw random numbers or update its state
    if node.op not in ("call_function", "call_method"):
        return False
    t = node.target
    if node.op == "call_function":
        if _is_aten(t):
            if torch.Tag.nondeterministic_seeded in t.tags:
                return True
            try:
                from torch._higher_order_ops.effects import _get_effect

                if _get_effect(t) is not None:
                    return True
            except ImportError:  # older torch: effects are tokens threaded through the graph
                pass
            return t in torch.fx.node._side_effectful_functions
        if _is_hop(t) or not _torch_callable(t):
            return True
        if t in torch.fx.node._side_effectful_functions:
            return True
    name = _name(t).lower()
    return any(w in name for w in _RANDOM_WORDS)
