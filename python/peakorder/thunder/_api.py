"""The one place peakorder.thunder calls the planner: peakorder's in-process API (issue 15).

Only options the caller set are passed on, so each call gets the library's defaults otherwise.
"""

from __future__ import annotations

from typing import Any, Dict

import peakorder


def _call(name: str, graph: Dict[str, Any], *args: Any, **opts: Any) -> Dict[str, Any]:
    fn = getattr(peakorder, name)
    return fn(graph, *args, **{k: v for k, v in opts.items() if v is not None})


def plan(graph: Dict[str, Any], **opts: Any) -> Dict[str, Any]:
    return _call("plan", graph, **opts)


def fuse(graph: Dict[str, Any], **opts: Any) -> Dict[str, Any]:
    return _call("fuse", graph, **opts)


def simulate(graph: Dict[str, Any], order: Any) -> Dict[str, Any]:
    return _call("simulate", graph, order)
