"""Calling the ``peakorder`` command-line tool: plan a graph, render its report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

GraphLike = Union[Dict[str, Any], str, os.PathLike]


class PeakorderError(RuntimeError):
    """The CLI refused the graph or failed; the message is its stderr."""

    def __init__(self, message: str, returncode: int = 1) -> None:
        super().__init__(message)
        self.returncode = returncode


def find_binary() -> str:
    """The `peakorder` binary: $PEAKORDER_BIN, then PATH, then this repository's target/release
    and target/debug (looked for above this package and above the working directory)."""
    env = os.environ.get("PEAKORDER_BIN")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise PeakorderError(f"PEAKORDER_BIN={env!r} is not an executable file")
        return env
    on_path = shutil.which("peakorder")
    if on_path:
        return on_path
    exe = "peakorder.exe" if os.name == "nt" else "peakorder"
    tried: List[str] = []
    for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):
        for d in (start, *start.parents):
            if not (d / "Cargo.toml").is_file():
                continue
            for profile in ("release", "debug"):
                p = d / "target" / profile / exe
                tried.append(str(p))
                if p.is_file() and os.access(p, os.X_OK):
                    return str(p)
    raise PeakorderError(
        "cannot find the `peakorder` binary: put it on PATH, set PEAKORDER_BIN, or build it in "
        "the repository with `cargo build --release`"
        + (f" (looked in {', '.join(dict.fromkeys(tried))})" if tried else "")
    )


def _run(args: List[str], timeout: Optional[float] = None) -> subprocess.CompletedProcess:
    r = subprocess.run(
        [find_binary(), *args], capture_output=True, text=True, timeout=timeout
    )
    if r.returncode != 0:
        raise PeakorderError(
            (r.stderr or r.stdout).strip() or f"peakorder exited with {r.returncode}", r.returncode
        )
    return r


class _GraphFile:
    """A path to the graph: the given file, or a temporary one for a dict."""

    def __init__(self, graph: GraphLike) -> None:
        self.graph = graph
        self.tmp: Optional[str] = None

    def __enter__(self) -> str:
        if isinstance(self.graph, dict):
            fd, self.tmp = tempfile.mkstemp(prefix="peakorder-", suffix=".json")
            with os.fdopen(fd, "w") as f:
                json.dump(self.graph, f)
            return self.tmp
        return os.fspath(self.graph)

    def __exit__(self, *exc: Any) -> None:
        if self.tmp:
            os.unlink(self.tmp)


def plan(
    graph: GraphLike,
    method: Optional[str] = None,
    budget_ms: Optional[float] = None,
    timeout: Optional[float] = None,
) -> Dict[str, Any]:
    """Plans ``graph`` (a dict in docs/design.md's JSON format, or a path to one) with
    ``peakorder plan --json`` and returns the plan: ``order``, ``peak_bytes``, ``inputs_bytes``,
    ``lower_bound_bytes``, ``optimal``, ``method``, ``program_order_peak_bytes``, ``elapsed_ms``.
    Raises PeakorderError with the CLI's message when the graph is refused."""
    args = ["plan"]
    if method is not None:
        args += ["--method", str(method)]
    if budget_ms is not None:
        args += ["--budget-ms", str(budget_ms)]
    with _GraphFile(graph) as path:
        r = _run(args + [path, "--json"], timeout=timeout)
    return json.loads(r.stdout)


def has_subcommand(name: str) -> bool:
    """Whether the binary found by find_binary() knows `peakorder NAME`."""
    try:
        r = subprocess.run([find_binary(), name, "--help"], capture_output=True, text=True)
    except PeakorderError:
        return False
    return r.returncode == 0


def report_html(graph: GraphLike, method: Optional[str] = None) -> str:
    """The self-contained HTML report of ``peakorder report GRAPH -o FILE``, as text."""
    fd, out = tempfile.mkstemp(prefix="peakorder-report-", suffix=".html")
    os.close(fd)
    try:
        args = ["report"]
        if method is not None:
            args += ["--method", str(method)]
        with _GraphFile(graph) as path:
            try:
                _run(args + [path, "-o", out])
            except PeakorderError:
                if not has_subcommand("report"):
                    raise PeakorderError(
                        f"{find_binary()} has no `report` subcommand; build a newer peakorder "
                        "(`cargo build --release` in the repository)",
                        2,
                    ) from None
                raise
        return Path(out).read_text(encoding="utf-8")
    finally:
        os.unlink(out)


def show(graph: GraphLike, method: Optional[str] = None, height: int = 640) -> Any:
    """Shows the report of ``graph`` inline in Jupyter and returns the displayed object.

    The report is one self-contained page (scripts and wasm inlined), so it is embedded with
    ``<iframe srcdoc=...>``: it works offline, needs no server, and its scripts stay isolated from
    the notebook's."""
    import html

    page = report_html(graph, method)
    frame = (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" '
        f'style="width:100%;height:{int(height)}px;border:0" '
        'sandbox="allow-scripts allow-downloads"></iframe>'
    )
    try:
        from IPython.display import HTML, display
    except ImportError:
        raise PeakorderError(
            "peakorder.show needs IPython (run it in Jupyter); use peakorder.report_html(graph) "
            "or `peakorder report GRAPH -o report.html` elsewhere"
        ) from None
    obj = HTML(frame)
    display(obj)
    return obj
