"""The calls peakorder.torch makes into peakorder itself, and the errors it raises.

Planning and simulation are peakorder's (``peakorder.plan``, ``peakorder.simulate``); this module
only adapts what it is given and raises :class:`peakorder.PeakorderError` with a stable ``code``
naming the fx node at fault."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import peakorder

#: The codes peakorder.torch adds to peakorder's own (docs/pytorch.md lists them).
CODES = ("symbolic_shape", "unsized_op", "unsupported_torch")


def error(code: str, message: str, node: Optional[str] = None) -> "peakorder.PeakorderError":
    """A PeakorderError with ``code`` whose ``op`` is the fx node's name (the op id it has in the
    exported graph)."""
    try:
        return peakorder.PeakorderError(message, code, op=node)
    except TypeError:  # the CLI-backed stand-in: (message, returncode)
        e = peakorder.PeakorderError(message)
        e.code = code
        e.op = node
        return e


def plan(graph: Dict[str, Any], options: Dict[str, Any]) -> Dict[str, Any]:
    return peakorder.plan(graph, **options)


def simulate(graph: Dict[str, Any], order: List[str]) -> Dict[str, Any]:
    fn = getattr(peakorder, "simulate", None)
    if fn is not None:
        return fn(graph, order)
    import json  # the CLI-backed stand-in has no simulate(): ask the CLI

    from peakorder import _cli

    with _cli._GraphFile(graph) as gpath, _cli._GraphFile({"order": order}) as opath:
        return json.loads(_cli._run(["simulate", gpath, opath, "--json"]).stdout)


def version() -> str:
    return str(getattr(peakorder, "__version__", "0"))
