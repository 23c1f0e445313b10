"""The exceptions peakorder raises. Every one is a :class:`PeakorderError` (a ``ValueError``) with
the stable ``code`` of the CLI and the npm package (docs/limits.md lists them all) and, where the
error names them, the offending ``op``, ``tensor``, the ``ops``/``tensors`` of a cycle, ...

The native extension makes them through :func:`_make`, so the classes live here, in Python."""

from __future__ import annotations

from typing import Any, Dict, List, Optional


class PeakorderError(ValueError):
    """peakorder refused a graph, an order, an option or a request.

    ``code`` is stable and machine-readable (``cycle``, ``unknown_tensor``, ...); ``str(e)`` is
    the one-line message of the CLI, naming the op or tensor. Attributes the error does not name
    are ``None``."""

    code: str
    op: Optional[str]
    tensor: Optional[str]
    alias_of: Optional[str]
    ops: Optional[List[str]]
    tensors: Optional[List[str]]
    region: Optional[str]
    limit_bytes: Optional[int]
    best_bytes: Optional[int]
    line: Optional[int]
    least_limit_bytes: Optional[int]
    least_limit_lower_bound_bytes: Optional[int]
    runs: Optional[int]
    value: Optional[str]

    def __init__(self, message: str, code: str = "error", **fields: Any) -> None:
        super().__init__(message)
        self.code = code
        for name in _FIELDS:
            setattr(self, name, fields.pop(name, None))
        if fields:
            raise TypeError(f"unknown PeakorderError fields: {', '.join(sorted(fields))}")

    def __reduce__(self):  # picklable, e.g. across multiprocessing
        fields = {k: getattr(self, k) for k in _FIELDS if getattr(self, k) is not None}
        return (_rebuild, (type(self), str(self), self.code, fields))


class GraphError(PeakorderError):
    """The graph is malformed: bad JSON, an unknown or duplicate id, a cycle, a size that
    overflows, ..."""


class OrderError(PeakorderError):
    """An order or a schedule does not fit the graph: an unknown, repeated or missing op, an op
    before the producer of one of its inputs, an op with ``recompute: false`` run again
    (``not_recomputable``: ``op`` and ``runs``), or a view read after its storage was computed
    again without being made again itself (``stale_view``: the ``op`` that reads it, the view as
    ``tensor`` and the tensor it aliases as ``alias_of``)."""


class InfeasibleError(PeakorderError):
    """No schedule fits the ``memory_limit_bytes`` of :func:`peakorder.plan` (code
    ``infeasible``): ``limit_bytes`` is the limit, ``least_limit_bytes`` the least peak any
    schedule was found to reach (plan again with at least that), ``least_limit_lower_bound_bytes``
    a proven lower bound on every schedule's peak, and ``op`` the op that forces the bound while it
    runs, when the limit is below it (else ``None``): the same names as the plan's fields."""


class MethodError(PeakorderError):
    """An unknown planning method, or one that does not apply to this graph (``liu`` on a graph
    that is not an in-forest)."""


class FusionError(PeakorderError):
    """Fusion cannot meet the request: a region that cannot be formed or would form a cycle, or a
    ``peak_limit`` no fusion keeps."""


class ArgumentError(PeakorderError, TypeError):
    """An argument of the wrong type or value (an option, the order's shape, a malformed
    ``memory_limit_bytes``: code ``bad_limit`` with the ``value`` as given); also a
    ``TypeError``."""


class ReportError(PeakorderError):
    """The report page cannot be made: this package was built without the web view."""


class LayoutError(PeakorderError):
    """A layout input or request that cannot stand: a malformed line of a MiniMalloc CSV
    (``bad_csv``; ``line`` is its number, 1 the header) or a lifetime or layout that is not valid
    (``bad_layout``)."""


class InterruptedWarning(UserWarning):
    """Ctrl-C stopped a search; the result is the best found before (not proven optimal)."""


_FIELDS = ("op", "tensor", "alias_of", "ops", "tensors", "region", "limit_bytes", "best_bytes",
           "line", "least_limit_bytes", "least_limit_lower_bound_bytes", "runs", "value")

# Each stable code's family; codes not listed (added later) are plain PeakorderErrors.
_FAMILY: Dict[str, type] = {
    **dict.fromkeys(
        (
            "bad_json",
            "bad_format",
            "invalid_tensor",
            "invalid_op",
            "duplicate_id",
            "unknown_tensor",
            "produced_twice",
            "cycle",
            "alias_cycle",
            "size_overflow",
            "unknown_output",
            "too_large",
        ),
        GraphError,
    ),
    **dict.fromkeys(
        ("unknown_op", "repeated_op", "missing_op", "not_topological", "not_recomputable",
         "stale_view"),
        OrderError,
    ),
    **dict.fromkeys(("unknown_method", "not_applicable"), MethodError),
    **dict.fromkeys(("bad_region", "region_cycle", "peak_limit"), FusionError),
    **dict.fromkeys(("bad_csv", "bad_layout"), LayoutError),
    "infeasible": InfeasibleError,
    "invalid_argument": ArgumentError,
    "bad_limit": ArgumentError,
    "report_unavailable": ReportError,
}

# Every code, for documentation and tests.
CODES = tuple(_FAMILY)


def _make(code: str, message: str, fields: Optional[Dict[str, Any]] = None) -> PeakorderError:
    """The exception for ``code`` (called by the native extension)."""
    return _FAMILY.get(code, PeakorderError)(message, code, **(fields or {}))


def _rebuild(cls: type, message: str, code: str, fields: Dict[str, Any]) -> PeakorderError:
    return cls(message, code, **fields)
