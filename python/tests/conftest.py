"""Shared helpers: the repository's fixtures, and the freshly built `peakorder` CLI (scripts/test.sh
builds it in release first) for the tests that compare with it or use `peakorder import onnx`.
The package itself (peakorder, with its native extension) is the one installed in the venv
(scripts/build.d/60-python.sh); it never runs the CLI."""

import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "cases"


def case(name):
    """The path of a shared fixture, e.g. case("fork-join.json") or case("invalid/cycle.json")."""
    return CASES / name


def _binary() -> Path:
    for profile in ("release", "debug"):
        p = REPO / "target" / profile / "peakorder"
        if p.is_file():
            return p
    raise RuntimeError(
        "no peakorder binary in target/release or target/debug: run `cargo build --release` first"
    )


def cli(*args, check=True):
    """Runs the peakorder CLI; returns the CompletedProcess."""
    r = subprocess.run([str(_binary()), *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"peakorder {' '.join(map(str, args))} failed ({r.returncode}): {r.stderr}")
    return r


def plan_json(graph_path, method="program"):
    return json.loads(cli("plan", graph_path, "--method", method, "--json").stdout)


def simulate_peak(graph):
    """docs/design.md §1 on graph JSON in file order, written independently of the Rust simulator
    (for graphs without views): the peak of the program order."""
    size = {}
    for t in graph["tensors"]:
        assert "alias_of" not in t, "simulate_peak handles no views"
        if "bytes" in t:
            size[t["id"]] = t["bytes"]
        else:
            n = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2}.get(t["dtype"], 1)
            for d in t["shape"]:
                n *= d
            size[t["id"]] = n
    produced = {o for op in graph["ops"] for o in op["outputs"]}
    inputs = [t for t in size if t not in produced]
    outputs = set(graph["outputs"])
    pinned = {t["id"] for t in graph["tensors"] if t["id"] not in produced and not t.get("donated")} | outputs
    remaining = {t: 0 for t in size}
    for op in graph["ops"]:
        for t in set(op["inputs"]):
            remaining[t] += 1
    live = set(inputs)
    mem = sum(size[t] for t in live)
    peak = mem
    for op in graph["ops"]:
        during = mem + sum(size[t] for t in op["outputs"])
        peak = max(peak, during)
        live |= set(op["outputs"])
        mem = during
        for t in set(op["inputs"]):
            remaining[t] -= 1
        for t in set(op["inputs"]) | set(op["outputs"]):
            if t in live and remaining[t] == 0 and t not in pinned:
                live.remove(t)
                mem -= size[t]
    return peak
