"""The calls peakorder.torch makes into peakorder itself (in-process: ``peakorder.plan``,
``peakorder.simulate``), and the errors it raises: :class:`peakorder.PeakorderError` with a
stable ``code`` and, as ``op``, the fx node at fault (its op id in the exported graph)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import peakorder

#: The codes peakorder.torch adds to peakorder's own (docs/pytorch.md lists them).
CODES = ("symbolic_shape", "unsized_op", "unsupported_torch")


def error(code: str, message: str, node: Optional[str] = None) -> "peakorder.PeakorderError":
    return peakorder.PeakorderError(message, code, op=node)


def plan(graph: Dict[str, Any], options: Dict[str, Any]) -> Dict[str, Any]:
    return peakorder.plan(graph, **options)


def simulate(graph: Dict[str, Any], order: List[str]) -> Dict[str, Any]:
    return peakorder.simulate(graph, order)


def version() -> str:
    return str(peakorder.__version__)
