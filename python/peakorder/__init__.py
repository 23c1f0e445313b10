"""peakorder for Python: plan the order of a tensor program's operations for the lowest peak
memory, in-process (a native extension over the Rust core), and export JAX and PyTorch programs
as peakorder graphs.

    import peakorder
    graph = peakorder.export.from_jaxpr(train_step, params, batch)
    plan = peakorder.plan(graph)          # dict: order, peak_bytes, optimal, ...
    peakorder.show(graph)                 # the report, inline in a notebook

Graphs are dicts in the graph format (docs/design.md §2), JSON text, or paths. JAX and PyTorch
are imported only by the exporter that needs them.
"""

from . import _native, export
from ._api import (
    GraphLike,
    OrderLike,
    compare,
    dtype_bytes,
    dtype_sizes,
    fuse,
    layout,
    parse_bytes,
    plan,
    report_html,
    show,
    simulate,
    validate,
)
from ._errors import (
    ArgumentError,
    FusionError,
    GraphError,
    InfeasibleError,
    InterruptedWarning,
    LayoutError,
    MethodError,
    OrderError,
    PeakorderError,
    ReportError,
)
from ._graph import ExportError
from ._onnx import ModelLike, import_onnx, reorder_onnx

__all__ = [
    "plan",
    "simulate",
    "compare",
    "fuse",
    "layout",
    "report_html",
    "show",
    "validate",
    "import_onnx",
    "reorder_onnx",
    "ModelLike",
    "dtype_bytes",
    "parse_bytes",
    "dtype_sizes",
    "save",
    "export",
    "GraphLike",
    "OrderLike",
    "PeakorderError",
    "GraphError",
    "OrderError",
    "MethodError",
    "FusionError",
    "InfeasibleError",
    "LayoutError",
    "ArgumentError",
    "ReportError",
    "InterruptedWarning",
    "ExportError",
]
# One place: the workspace version in Cargo.toml, compiled into the extension (pyproject.toml
# takes it from there too).
__version__: str = _native.__version__


def save(graph: dict, path: str) -> None:
    """Writes a graph dict as JSON (what ``peakorder plan`` reads)."""
    import json

    with open(path, "w", encoding="utf-8") as f:
        json.dump(graph, f, indent=1)
        f.write("\n")
