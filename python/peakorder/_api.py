"""The calls: graphs in (a dict, JSON text or a path), the CLI's ``--json`` dicts out, computed
in-process by the native extension (``peakorder._native``) with the GIL released.

Ctrl-C (KeyboardInterrupt) during a long search stops it and returns the best result found so
far, as the CLI does, with an :class:`InterruptedWarning`."""

from __future__ import annotations

import json
import math
import numbers
import operator
import os
import warnings
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import InterruptedWarning, _make

#: A graph: a dict in the graph format (docs/design.md §2), its JSON text (``str`` or
#: ``bytes``), or the path of a JSON file (``str`` or ``os.PathLike``).
GraphLike = Union[Mapping, str, bytes, bytearray, "os.PathLike[str]"]
#: An order: op ids in order, a plan (any mapping with an ``order`` list), JSON text of either,
#: or the path of a JSON file holding either.
OrderLike = Union[Sequence[str], Mapping, str, bytes, "os.PathLike[str]"]

_INTERRUPTED = "interrupted: returning the best result found so far (not proven optimal)"


def _json_default(o: Any) -> Any:
    # numpy and torch integers (shape entries, byte counts) are ints in JSON.
    try:
        return operator.index(o)
    except TypeError:
        raise TypeError(f"{type(o).__name__} {o!r} is not JSON (expected dicts, lists, strings, ints)") from None


def _read_text(path: Any, what: str) -> str:
    with open(path, "rb") as f:
        data = f.read()
    return _decode(data, f"{what} {os.fspath(path)!s}")


def _decode(data: bytes, what: str) -> str:
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        raise _make("bad_json", f"bad JSON in {what}: not UTF-8 ({e})") from None


def _graph_text(graph: GraphLike) -> Tuple[str, str]:
    """(JSON text, title) of a graph argument; the title is the file name for a path."""
    if isinstance(graph, Mapping):
        try:
            # json.dumps(graph, allow_nan=False, separators=(",", ":"), default=_json_default,
            # check_circular=False), byte for byte and with its exceptions, in Rust and several
            # times faster (python/src/dumps.rs). No circular check, as that call had: a dict
            # that holds itself ends in RecursionError, reported below.
            text = _native.json_dumps(graph, _json_default)
        except RecursionError:
            raise _make("bad_json", "the graph cannot be converted to JSON: it is nested too deeply "
                        "or contains itself") from None
        except (TypeError, ValueError) as e:
            # JSON has no NaN or infinity: a cost that is one is the core's invalid_op (as for a
            # negative cost), naming the op, not a JSON error.
            bad = _non_finite_cost(graph) if isinstance(e, ValueError) else None
            if bad is not None:
                raise bad from None
            raise _make("bad_json", f"the graph cannot be converted to JSON: {e}") from None
        return text, "graph"
    if isinstance(graph, (bytes, bytearray, memoryview)):
        return _decode(graph, "the graph"), "graph"
    if isinstance(graph, str) and graph.lstrip().startswith("{"):
        return graph, "graph"
    if isinstance(graph, (str, os.PathLike)):
        return _read_text(graph, "graph file"), os.path.basename(os.fspath(graph)) or "graph"
    raise _make(
        "invalid_argument",
        f"the graph must be a dict, JSON text or a path, got {type(graph).__name__}",
    )


def _non_finite_cost(graph: Mapping) -> Optional[Exception]:
    """The core's ``invalid_op`` error (its message) for the first op of a graph dict whose
    ``cost`` is a NaN or an infinity, if one is."""
    ops = graph.get("ops")
    if not isinstance(ops, (list, tuple)):
        return None
    for i, op in enumerate(ops):
        cost = op.get("cost") if isinstance(op, Mapping) else None
        if isinstance(cost, numbers.Real) and not isinstance(cost, bool):
            try:
                x = float(cost)
            except (TypeError, ValueError, OverflowError):
                continue
            if not math.isfinite(x):
                op_id = op.get("id")
                op_id = op_id if isinstance(op_id, str) else f"#{i}"
                shown = "NaN" if math.isnan(x) else ("inf" if x > 0 else "-inf")
                return _make(
                    "invalid_op",
                    f"op {json.dumps(op_id)}: `cost` must be a finite non-negative number, got {shown}",
                    {"op": op_id},
                )
    return None


_ORDER_SHAPE = 'the order must be a list of op ids or a plan with an "order" list'


def _order_ids(order: OrderLike) -> List[str]:
    """Op ids of an order argument."""
    value: Any = order
    if isinstance(order, (bytes, bytearray, memoryview)):
        value = _decode(order, "the order")
    if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
        value = _loads(value, "the order")
    elif isinstance(value, (str, os.PathLike)):
        value = _loads(_read_text(value, "order file"), f"order file {os.fspath(value)!s}")
    if isinstance(value, Mapping):
        if "order" not in value:
            raise _make("invalid_argument", _ORDER_SHAPE)
        value = value["order"]
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise _make("invalid_argument", f"{_ORDER_SHAPE}, got {type(value).__name__}")
    ids = list(value)
    for i, v in enumerate(ids):
        if not isinstance(v, str):
            raise _make("invalid_argument", f"{_ORDER_SHAPE}: entry {i} is {type(v).__name__} {v!r}")
    return ids


def _loads(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise _make("bad_json", f"bad JSON in {what}: {e}") from None


def _finish(result: Any, interrupted: bool) -> Any:
    if interrupted:
        # stacklevel 3: the warning points at the caller of plan()/compare()/...
        warnings.warn(_INTERRUPTED, InterruptedWarning, stacklevel=3)
    return result


def plan(
    graph: GraphLike,
    method: Optional[str] = None,
    budget_ms: Optional[float] = None,
    *,
    max_states: Optional[int] = None,
    max_memory_mb: Optional[int] = None,
    memory_limit_bytes: Optional[Union[int, str]] = None,
    recompute_method: Optional[str] = None,
) -> Dict[str, Any]:
    """Plans an order for ``graph``; returns ``peakorder plan --json``'s dict: ``order`` (op ids),
    ``peak_bytes``, ``inputs_bytes``, ``lower_bound_bytes``, ``optimal`` (true only when proven),
    ``proof`` (what proved it: ``liu``, ``search``, ``cut``, ``last-of-set``, ``first-of-set``, ``first-free``, ``either-side``, ``nested-set``, ``join-free``, ``rewrite-set``, ``branching``,
    ``part`` or ``simple``; ``None`` unless optimal), ``lower_bound_by``, ``method``, ``program_order_peak_bytes`` (``None`` when the file's order is not topological)
    and ``elapsed_ms``.

    ``method``: ``auto`` (default), ``liu``, ``exact``, ``greedy``, ``sp``, ``spize``, ``local``,
    ``inductor``, ``xla`` or ``program``. ``budget_ms``: time a search may take (default 100).
    ``max_states``: most states a search may expand (default 2,000,000). ``max_memory_mb``: most
    memory the exact search's state table may hold (default 1024).

    ``memory_limit_bytes`` (an int, or text with a unit: ``"64MiB"``, ``"8GiB"``, ``"1.5GB"``; as
    ``peakorder plan --memory-limit``): a bound on ``peak_bytes``, inputs included. The plan is
    then the schedule within it with the least added cost: ``order`` may run an op more than once
    (docs/design.md §3), and the dict gains ``memory_limit_bytes``, ``recompute_method`` (what
    found the schedule: ``order`` when an order fits and nothing is recomputed, ``exact``,
    ``revolve``, ``evict`` or ``repair``), ``added_cost`` (the sum of the ops' ``cost`` over their repeated
    runs), ``added_cost_lower_bound`` (proven), ``runs`` (op id to how often it runs, for the ops
    that run more than once), ``least_limit_bytes`` (the least peak any schedule was found to
    reach), ``least_limit_lower_bound_bytes`` (a proven bound on it) and ``least_limit_op``.
    ``optimal`` then says the added cost is proven least. A limit below the least limit raises
    :class:`InfeasibleError` (code ``infeasible``), a malformed one :class:`ArgumentError` (code
    ``bad_limit``). ``recompute_method``: ``auto`` (default), ``exact``, ``revolve``, ``evict`` or ``repair``;
    only with ``memory_limit_bytes``."""
    text, _ = _graph_text(graph)
    return _finish(*_native.plan(text, method, budget_ms, max_states, max_memory_mb,
                                 memory_limit_bytes, recompute_method))


def simulate(graph: GraphLike, order: OrderLike) -> Dict[str, Any]:
    """Memory at every step of ``order`` on ``graph``: ``peakorder simulate --json``'s dict.
    ``order`` may be a schedule, in which an op runs more than once (a plan with a memory limit;
    docs/design.md §1 "Recomputation"); an op with ``recompute: false`` run again raises
    :class:`OrderError` (code ``not_recomputable``). The dict:
    ``peak_bytes``, ``inputs_bytes``, ``peak_step`` (index into ``steps``, ``None`` when the peak
    is at the start), ``live_at_peak`` (tensor ids) and ``steps`` (``op``, ``during_bytes``,
    ``after_bytes``)."""
    text, _ = _graph_text(graph)
    return _native.simulate(text, _order_ids(order))


def compare(
    graph: GraphLike,
    *,
    budget_ms: Optional[float] = None,
    max_states: Optional[int] = None,
    max_memory_mb: Optional[int] = None,
) -> Dict[str, Any]:
    """Every method side by side: ``peakorder compare --json``'s dict, ``lower_bound_bytes``,
    ``lower_bound_by``, ``inputs_bytes`` and ``methods`` (``method``, ``peak_bytes`` or ``None``
    with an ``error`` saying why the method does not apply, ``optimal``, ``proof``,
    ``elapsed_ms``). Options as for
    :func:`plan`, applied to every method."""
    text, _ = _graph_text(graph)
    return _finish(*_native.compare(text, budget_ms, max_states, max_memory_mb))


def fuse(
    graph: GraphLike,
    *,
    peak_limit: Optional[int] = None,
    budget_ms: Optional[float] = None,
    max_states: Optional[int] = None,
    output: Optional[Union[str, "os.PathLike[str]"]] = None,
) -> Dict[str, Any]:
    """Memory-aware fusion: as few kernels as possible while the fused graph's planned peak stays
    within ``peak_limit`` bytes (default: the best peak found for the unfused graph), next to the
    Thunder-style baseline. Returns ``peakorder fuse --json``'s dict (``regions``, ``ops_before``,
    ``ops_after``, ``peak_before_bytes``, ``peak_after_bytes``, ``limit_bytes``, ``order``,
    ``baseline``, ...). ``budget_ms``: time for the whole search (default 2000). ``output``:
    also write the fused graph there (as ``peakorder fuse -o FILE``)."""
    text, _ = _graph_text(graph)
    result, fused_graph, interrupted = _native.fuse(
        text, peak_limit, budget_ms, max_states, output is not None
    )
    if output is not None:
        with open(output, "w", encoding="utf-8") as f:
            f.write(fused_graph)
    return _finish(result, interrupted)


def _layout_input(graph: Any) -> Tuple[str, bool]:
    """(text, is MiniMalloc CSV) of ``layout``'s input: a graph as for :func:`plan`, CSV text
    (a ``str`` with a line break that is not JSON), or the path of a ``.csv`` file."""
    if isinstance(graph, (bytes, bytearray, memoryview)):
        graph = _decode(graph, "the input")
    if isinstance(graph, str) and not graph.lstrip().startswith("{") and "\n" in graph:
        return graph, True
    if isinstance(graph, (str, os.PathLike)) and os.fspath(graph).lower().endswith(".csv"):
        return _read_text(graph, "CSV file"), True
    return _graph_text(graph)[0], False


def layout(
    graph: Union[GraphLike, str],
    order: Optional[OrderLike] = None,
    method: Optional[str] = None,
    *,
    align: Optional[int] = None,
    budget_ms: Optional[float] = None,
    capacity: Optional[int] = None,
    slack: Optional[float] = None,
    plan_method: Optional[str] = None,
    max_states: Optional[int] = None,
) -> Dict[str, Any]:
    """A static memory layout (docs/layout.md): a byte offset for every tensor in one arena that
    runs the order. Returns ``peakorder layout --json``'s dict: ``arena_bytes``,
    ``lower_bound_bytes``, ``optimal`` (true only when proven), ``order``, ``offsets`` (tensor id
    to offset, views included), ``workspace_offsets`` (op id to offset), ``buffers`` (``kind``,
    ``id``, ``offset``, ``bytes``, ``first_step``, ``last_step``), ``align``, ``elapsed_ms``, and
    ``order_search`` when the order was planned.

    ``graph``: a graph as for :func:`plan`, or MiniMalloc CSV (``id,lower,upper,size``; its
    text, or the path of a ``.csv`` file), whose layout dict has ``within_capacity`` and the
    buffers' ``lower``/``upper`` instead. ``order``: lay out this order (default: plan one with
    ``plan_method``). ``method``: ``auto`` (default), ``exact``, ``size``, ``duration``,
    ``conflicts``, ``area``, ``online`` or ``local``. ``align``: sizes and offsets rounded up to
    it (default 1). ``budget_ms``: time for the whole call (default 1000; planning takes a tenth).
    ``capacity``: stop at the first layout within it. ``slack``: when the planned order's arena is
    above its peak, other orders may peak up to this fraction higher (default 0). ``slack`` and
    ``plan_method`` act on the planned order: with ``order`` or a CSV they raise
    :class:`ArgumentError` (code ``invalid_argument``) instead of being ignored."""
    text, csv = _layout_input(graph)
    ids = None if order is None else _order_ids(order)
    return _finish(*_native.layout(text, csv, ids, method, plan_method, align, budget_ms,
                                   max_states, capacity, slack))


def report_html(
    graph: GraphLike,
    method: Optional[str] = None,
    *,
    budget_ms: Optional[float] = None,
    title: Optional[str] = None,
) -> str:
    """The self-contained HTML page of ``peakorder report GRAPH -o FILE`` (the web view, its
    scripts and the wasm planner inlined; it works offline), as text. ``title`` defaults to the
    file name for a path, else ``graph``."""
    text, default_title = _graph_text(graph)
    page, interrupted = _native.report_html(
        text, title if title is not None else default_title, method, budget_ms
    )
    return _finish(page, interrupted)


def validate(graph: GraphLike) -> Dict[str, Any]:
    """Parses and validates ``graph``; returns a summary (``ops``, ``tensors``, ``inputs``,
    ``outputs``, ``inputs_bytes``, ``lower_bound_bytes``, ``program_order_peak_bytes``,
    ``in_forest``) or raises the :class:`GraphError` naming the op or tensor."""
    text, _ = _graph_text(graph)
    return _native.validate(text)


_DTYPE_SIZES: Dict[str, int] = _native.dtype_sizes()


def dtype_sizes() -> Dict[str, int]:
    """The graph format's element types and their sizes in bytes, from the core:
    ``{"f64": 8, "f32": 4, ..., "bool": 1}``."""
    return dict(_DTYPE_SIZES)


def parse_bytes(text: Union[int, str]) -> int:
    """Bytes from a size as ``memory_limit_bytes`` reads it: an int, or text with a unit
    (``"64MiB"``, ``"8GiB"``, ``"1.5GB"``); :class:`ArgumentError` (code ``bad_limit``) otherwise."""
    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise _make("bad_limit", f"a size is bytes (an int) or text with a unit (\"8GiB\"), not {text!r}")
    if isinstance(text, int):
        if text < 0:
            raise _make("bad_limit", f"a size is not negative: {text}")
        return text
    return int(_native.parse_bytes(text))


def dtype_bytes(dtype: str) -> int:
    """Bytes per element of a graph-format dtype (``"f32"`` → 4)."""
    try:
        return _DTYPE_SIZES[dtype]
    except (KeyError, TypeError):
        raise _make(
            "invalid_argument", f"unknown dtype {dtype!r}: expected one of {', '.join(_DTYPE_SIZES)}"
        ) from None


def show(
    graph: GraphLike,
    method: Optional[str] = None,
    *,
    budget_ms: Optional[float] = None,
    height: int = 640,
) -> Any:
    """Shows the report of ``graph`` inline in Jupyter and returns the displayed object.

    The report is one self-contained page (made in-process, :func:`report_html`), embedded with
    ``<iframe srcdoc=...>``: it works offline, needs no server, and its scripts stay isolated
    from the notebook's."""
    import html

    try:
        from IPython.display import HTML, display
    except ImportError:
        raise ImportError(
            "peakorder.show needs IPython (run it in Jupyter); use peakorder.report_html(graph) "
            "elsewhere"
        ) from None
    page = report_html(graph, method, budget_ms=budget_ms)
    frame = (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" '
        f'style="width:100%;height:{int(height)}px;border:0" '
        'sandbox="allow-scripts allow-downloads"></iframe>'
    )
    obj = HTML(frame)
    display(obj)
    return obj
