"""The uuid of peakorder's Inductor passes (the post-grad pass in ``_inductor``, the scheduler
pass in ``_scheduler``): what Inductor's FX graph cache keys on, so that a cached graph is reused
only for the same plan. A module of its own so that both passes use it without importing each
other."""

from __future__ import annotations

import functools
import hashlib
import json
import os
from typing import Any, Dict

from ._api import version


@functools.lru_cache(maxsize=None)
def _source_hash() -> str:
    """The files whose code decides the order: a change to any of them is a new uuid. The native
    extension (the core's planners) is one of them: a rebuilt core with the same version would
    otherwise be served the partitions and orders its predecessor cached."""
    here = os.path.dirname(os.path.abspath(__file__))
    package = os.path.dirname(here)
    files = sorted(os.path.join(here, f) for f in os.listdir(here) if f.endswith(".py"))
    files.append(os.path.join(package, "_fx.py"))
    files += sorted(os.path.join(package, f) for f in os.listdir(package)
                    if f.startswith("_native") and f.endswith((".so", ".pyd")))
    h = hashlib.sha256()
    for path in files:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def pass_uuid(kind: str, options: Dict[str, Any]) -> str:
    """What Inductor's FX graph cache keys on: the package version, the options, our sources."""
    text = json.dumps({"kind": kind, "version": version(), "options": options}, sort_keys=True, default=str)
    return hashlib.sha256((text + _source_hash()).encode()).hexdigest()
