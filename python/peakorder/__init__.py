"""peakorder for Python: export JAX and PyTorch programs as peakorder graphs, plan them with the
`peakorder` command-line tool, and show the report in Jupyter.

    import peakorder
    graph = peakorder.export.from_jaxpr(train_step, params, batch)
    plan = peakorder.plan(graph)          # dict: order, peak_bytes, ...
    peakorder.show(graph)                 # the report, inline in a notebook

Pure Python: JAX and PyTorch are imported only by the exporter that needs them.
"""

from . import export
from ._cli import PeakorderError, find_binary, plan, report_html, show
from ._graph import ExportError

__all__ = [
    "export",
    "plan",
    "show",
    "report_html",
    "find_binary",
    "PeakorderError",
    "ExportError",
    "save",
]
__version__ = "0.1.0"


def save(graph: dict, path: str) -> None:
    """Writes a graph dict as JSON (what `peakorder plan` reads)."""
    import json

    with open(path, "w", encoding="utf-8") as f:
        json.dump(graph, f, indent=1)
        f.write("\n")
