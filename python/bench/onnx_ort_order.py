"""Which of onnxruntime's execution orders runs an ONNX file's nodes in the file's order, and what
peak memory onnxruntime itself measures for the original model and for the model that
``peakorder.reorder_onnx`` writes in the planned order (issue #31, docs/import.md "onnxruntime").

    python python/bench/onnx_ort_order.py                       # the light models and torchvision exports
    python python/bench/onnx_ort_order.py --models light --json out.json
    python python/bench/onnx_ort_order.py --models torch --dynamo   # the dynamo exporter too

Everything onnxruntime says comes from its own profiler (``SessionOptions.enable_profiling``), on
CPU, one intra-op thread, graph optimizations off (``ORT_DISABLE_ALL``: the nodes run are the
file's nodes, less ``Constant``s, which onnxruntime turns into initializers when it loads the
model). Each ``*_kernel_time`` event names the node and carries the CPU arena's statistics as
they stand after the node's kernel ran, before the values it was the last reader of are freed:

- the events' order in a run is the executed order, compared with the file's node order;
- ``mem_bytes_requested_in_use``: bytes the live values asked the arena for (no rounding); its
  largest value in the first run is the live peak as peakorder models it (the inputs and
  outputs of the node and everything else live), less what a kernel allocates and frees inside;
- ``mem_in_use_peak``: the arena's high-water mark of chunk bytes in use since the session
  started (each chunk rounded up to 256 bytes, a chunk the arena did not split counted whole,
  kernels' scratch included); its value after the first run;
- the second run uses the memory pattern onnxruntime records in the first (``enable_mem_pattern``,
  on by default): one block of the pattern's size is taken before the first node; its size is
  the growth of the bytes requested before the first node from the first run to the second.

Graph inputs fed from numpy stay in numpy's memory, outside the arena; peakorder counts them
(its peaks include every graph input and initializer, never freed), so the peakorder columns
subtract the fed inputs' bytes. Nodes without a name are named ``{op_type}_{position}`` before
anything else, so that the profile's events name them; nothing else in the model changes.
``MEMORY_EFFICIENT`` is refused by onnxruntime builds without training support (the PyPI wheel):
the refusal's message is reported."""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
import tempfile
import time
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import onnx
import onnxruntime as ort

import peakorder

ORDERS = ("DEFAULT", "PRIORITY_BASED", "MEMORY_EFFICIENT")
MiB = 2**20


# --- the models ---------------------------------------------------------------------------------


def light_paths() -> List[str]:
    """The nine light models the onnx wheel ships (scripts/corpus/onnx_models.py's)."""
    light = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
    paths = sorted(glob.glob(os.path.join(light, "light_*.onnx")))
    if not paths:
        sys.exit(f"no models under {light}")
    return paths


def light_models() -> List[Tuple[str, bytes]]:
    return [(os.path.basename(p)[len("light_"):-len(".onnx")], open(p, "rb").read()) for p in light_paths()]


def torch_models(dynamo: bool) -> List[Tuple[str, bytes]]:
    """torchvision resnet18 and mobilenet_v2 (random weights) at 1x3x64x64 and a 2-layer
    TransformerEncoder at 2x10x64, exported as python/tests/test_onnx_torch.py does (TorchScript
    exporter; with ``dynamo`` also the dynamo exporter)."""
    import torch
    import torchvision

    def encoder():
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
        return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    makers = {
        "resnet18": (lambda: torchvision.models.resnet18(weights=None), (1, 3, 64, 64)),
        "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), (1, 3, 64, 64)),
        "encoder": (encoder, (2, 10, 64)),
    }
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (make, shape) in makers.items():
            for dyn in (False, True) if dynamo else (False,):
                torch.manual_seed(0)
                path = os.path.join(tmp, f"{name}-{int(dyn)}.onnx")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.onnx.export(make().eval(), (torch.randn(*shape),), path, dynamo=dyn)
                # The dynamo exporter writes the weights to a data file: bring them inline.
                data = onnx.load(path).SerializeToString()
                out.append((f"{name} ({'dynamo' if dyn else 'torchscript'})", data))
    return out


def named(data: bytes) -> bytes:
    """The model with every node named, uniquely: unnamed (or repeated) names become
    ``{op_type}_{position}``. The profiler names events by node name."""
    m = onnx.load_from_string(data)
    seen = set()
    changed = False
    for i, n in enumerate(m.graph.node):
        if not n.name or n.name in seen:
            n.name = f"{n.op_type}_{i}"
            while n.name in seen:
                n.name += "_"
            changed = True
        seen.add(n.name)
    return m.SerializeToString() if changed else data


def random_feeds(m: onnx.ModelProto, seed: int = 0) -> Dict[str, np.ndarray]:
    """Random values for the graph inputs that are not initializers (symbolic dims as 1)."""
    rng = np.random.default_rng(seed)
    inits = {t.name for t in m.graph.initializer}
    feeds = {}
    for v in m.graph.input:
        if v.name in inits:
            continue
        tt = v.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        feeds[v.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def executed_file_order(m: onnx.ModelProto) -> List[str]:
    """The file's node names in file order, less the Constants onnxruntime makes initializers."""
    return [n.name for n in m.graph.node if n.op_type != "Constant"]


# --- onnxruntime --------------------------------------------------------------------------------


def _stats(events: List[Dict[str, Any]]) -> Dict[str, int]:
    a = [e["args"] for e in events]
    first = a[0]
    return {
        "requested_peak": max(int(x["mem_bytes_requested_in_use"]) for x in a),
        "in_use_high_water": max(int(x["mem_in_use_peak"]) for x in a),
        "arena_held": max(int(x["mem_arena_held"]) for x in a),
        "requested_before_first": int(first["mem_bytes_requested_in_use"]) - int(first["mem_requested_in_use_delta"]),
    }


def ort_run(data: bytes, order: str, feeds: Dict[str, np.ndarray], runs: int = 2,
            mem_reuse: bool = True, opt_level: str = "ORT_DISABLE_ALL") -> Dict[str, Any]:
    """Runs the model ``runs`` times in one session under ``ExecutionOrder.<order>`` with the
    profiler on; returns the first run's executed node names and each run's arena statistics,
    or ``{"refused": message}`` when onnxruntime refuses the order. ``mem_reuse=False`` turns
    off the allocation planner's buffer sharing (``SessionOptions.enable_mem_reuse``);
    ``opt_level`` is a ``GraphOptimizationLevel`` name (with optimizations the nodes run are no
    longer the file's: folded, fused, new ones named by onnxruntime)."""
    o = ort.SessionOptions()
    o.enable_mem_reuse = mem_reuse
    o.graph_optimization_level = getattr(ort.GraphOptimizationLevel, opt_level)
    o.execution_order = getattr(ort.ExecutionOrder, order)
    o.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    o.intra_op_num_threads = 1
    o.inter_op_num_threads = 1
    o.log_severity_level = 4  # quiet: the light models warn of unused initializers, a refusal is raised anyway
    o.enable_profiling = True
    # A session writes its profile when it ends, and a refused one too: all in a folder of its own.
    with tempfile.TemporaryDirectory(prefix="ort-profile-") as tmp:
        o.profile_file_prefix = os.path.join(tmp, "p")
        try:
            sess = ort.InferenceSession(data, o, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime's own Fail type, not importable by a stable name
            # Only a refusal of the order itself is a result; any other failure is the model's.
            # The sentence after the C++ signature: "Memory efficient topological order is ...".
            refusal = re.search(r"[A-Z][a-z][^.:()]*topological order[^.]*\.", str(e))
            if refusal is None:
                raise
            return {"refused": refusal.group(0)}
        for _ in range(runs):
            sess.run(None, feeds)
        with open(sess.end_profiling()) as f:
            events = json.load(f)
    kernels = sorted((e for e in events if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")),
                     key=lambda e: e["ts"])
    if len(kernels) % runs:
        raise RuntimeError(f"{len(kernels)} kernel events for {runs} runs")
    n = len(kernels) // runs
    per_run = [kernels[i * n:(i + 1) * n] for i in range(runs)]
    return {
        "order": [e["name"][:-len("_kernel_time")] for e in per_run[0]],
        "runs": [_stats(r) for r in per_run],
    }


def first_difference(a: List[str], b: List[str]) -> Optional[Dict[str, Any]]:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return {"position": i, "file": x, "executed": y}
    if len(a) != len(b):
        return {"position": min(len(a), len(b)), "file_len": len(a), "executed_len": len(b)}
    return None


# --- one model ----------------------------------------------------------------------------------


def measure(name: str, data: bytes, budget_ms: float, method: Optional[str] = None,
            opt_level: str = "ORT_DISABLE_ALL") -> Dict[str, Any]:
    data = named(data)
    m = onnx.load_from_string(data)
    feeds = random_feeds(m)
    fed = sum(int(v.nbytes) for v in feeds.values())
    graph = peakorder.import_onnx(data)
    ids = [op["id"] for op in graph["ops"]]
    if ids != [n.name for n in m.graph.node]:
        raise RuntimeError(f"{name}: peakorder's op ids are not the node names")
    constants = [n.name for n in m.graph.node if n.op_type == "Constant"]
    t0 = time.perf_counter()
    plan = peakorder.plan(graph, method, budget_ms=budget_ms)
    plan_s = time.perf_counter() - t0
    reordered = peakorder.reorder_onnx(data, plan)
    plan_nonconst = [i for i in plan["order"] if i not in set(constants)]

    def modelled(order: List[str]) -> Optional[int]:
        """peakorder's peak of an order onnxruntime ran: the Constants (initializers there) first."""
        full = constants + order
        if sorted(full) != sorted(ids):
            return None
        return peakorder.simulate(graph, full)["peak_bytes"]

    row: Dict[str, Any] = {
        "model": name,
        "nodes": len(m.graph.node),
        "constants": len(constants),
        "fed_input_bytes": fed,
        "peakorder": {
            "method": plan["method"],
            "optimal": plan["optimal"],
            "plan_seconds": round(plan_s, 3),
            "inputs_bytes": plan["inputs_bytes"],
            "file_order_peak_bytes": plan["program_order_peak_bytes"],
            "plan_peak_bytes": plan["peak_bytes"],
            "lower_bound_bytes": plan["lower_bound_bytes"],
        },
        "ort": {},
    }
    file_order = executed_file_order(m)
    for variant, model_bytes, want in (("original", data, file_order), ("reordered", reordered, plan_nonconst)):
        for order in ORDERS:
            for reuse in (True, False):
                r = ort_run(model_bytes, order, feeds, runs=2 if reuse else 1, mem_reuse=reuse, opt_level=opt_level)
                if "refused" not in r:
                    diff = first_difference(want, r["order"])
                    r["follows_file_order"] = diff is None
                    r["first_difference"] = diff
                    r["peakorder_peak_bytes"] = modelled(r["order"])
                    del r["order"]
                row["ort"][f"{variant}/{order}" + ("" if reuse else "/no-reuse")] = r
                if "refused" in r:
                    break  # the same refusal either way
    return row


# --- the tables ---------------------------------------------------------------------------------


def _mib(b: Optional[int]) -> str:
    return "–" if b is None else f"{b / MiB:.2f}"


def _above(r: Dict[str, Any], run: int = 0) -> int:
    """onnxruntime's live peak of a run above what was requested before its first node."""
    st = r["runs"][run]
    return st["requested_peak"] - st["requested_before_first"]


def markdown(rows: List[Dict[str, Any]]) -> str:
    def follows(r):
        if "refused" in r:
            return "refused"
        return "yes" if r["follows_file_order"] else f"no (from node {r['first_difference']['position']})"

    out = ["Executed order against the file's node order (the reordered model's file order is the plan's):", "",
           "| model | nodes run | DEFAULT | PRIORITY_BASED | MEMORY_EFFICIENT | reordered, DEFAULT | reordered, PRIORITY_BASED |",
           "| --- | ---: | --- | --- | --- | --- | --- |"]
    for row in rows:
        o = row["ort"]
        out.append(f"| {row['model']} | {row['nodes'] - row['constants']} | {follows(o['original/DEFAULT'])} | "
                   f"{follows(o['original/PRIORITY_BASED'])} | {follows(o['original/MEMORY_EFFICIENT'])} | "
                   f"{follows(o['reordered/DEFAULT'])} | {follows(o['reordered/PRIORITY_BASED'])} |")
    refusals = sorted({r["refused"] for row in rows for r in row["ort"].values() if "refused" in r})
    for msg in refusals:
        out += ["", f"MEMORY_EFFICIENT: `{msg}`"]

    out += ["", "Peaks above the inputs and initializers, MiB. peakorder: its memory model's peak less its "
            "`inputs_bytes`. onnxruntime: the CPU arena's bytes requested after a node (largest in the first run) "
            "less those requested before the first node, with the allocation planner's buffer reuse on (the "
            "default) / off (`enable_mem_reuse = False`):", "",
            "| model | peakorder: file order | peakorder: DEFAULT's order | peakorder: plan | "
            "ORT: file order (PRIORITY_BASED) | ORT: DEFAULT | ORT: MEMORY_EFFICIENT | ORT: reordered (PRIORITY_BASED) |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        p, o = row["peakorder"], row["ort"]
        inputs = p["inputs_bytes"]

        def live(key):
            on, off = o[key], o.get(key + "/no-reuse", o[key])
            if "refused" in on:
                return "refused"
            return f"{_mib(_above(on))} / {_mib(_above(off))}"

        d = o["original/DEFAULT"]
        dm = None if "refused" in d or d["peakorder_peak_bytes"] is None else d["peakorder_peak_bytes"] - inputs
        out.append(f"| {row['model']} | {_mib(p['file_order_peak_bytes'] - inputs)} | {_mib(dm)} | "
                   f"{_mib(p['plan_peak_bytes'] - inputs)}{'' if p['optimal'] else ' (not proven)'} | "
                   f"{live('original/PRIORITY_BASED')} | {live('original/DEFAULT')} | "
                   f"{live('original/MEMORY_EFFICIENT')} | {live('reordered/PRIORITY_BASED')} |")

    out += ["", "onnxruntime's other statistics at its default settings, MiB: the arena's high-water mark of chunk "
            "bytes in use after the first run (256-byte rounding, chunks the arena did not split, kernels' scratch; "
            "what was in use before the first node included), and the memory-pattern block the second run takes:", "",
            "| model | high-water: file order (PRIORITY_BASED) | DEFAULT | reordered (PRIORITY_BASED) | "
            "pattern: file order (PRIORITY_BASED) | DEFAULT | reordered (PRIORITY_BASED) |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    keys = ("original/PRIORITY_BASED", "original/DEFAULT", "reordered/PRIORITY_BASED")
    for row in rows:
        o = row["ort"]
        hw = [_mib(o[k]["runs"][0]["in_use_high_water"]) for k in keys]
        pat = [_mib(o[k]["runs"][1]["requested_before_first"] - o[k]["runs"][0]["requested_before_first"]) for k in keys]
        out.append(f"| {row['model']} | " + " | ".join(hw + pat) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="light,torch", help="comma-separated: light, torch (default both)")
    ap.add_argument("--dynamo", action="store_true", help="also export the torch models with the dynamo exporter")
    ap.add_argument("--only", default=None, help="comma-separated model names to keep")
    ap.add_argument("--budget-ms", type=float, default=1000.0, help="peakorder's planning budget (default 1000)")
    ap.add_argument("--method", default=None, help="peakorder's method (default auto)")
    ap.add_argument("--opt-level", default="ORT_DISABLE_ALL", choices=[
        "ORT_DISABLE_ALL", "ORT_ENABLE_BASIC", "ORT_ENABLE_EXTENDED", "ORT_ENABLE_LAYOUT", "ORT_ENABLE_ALL"],
        help="onnxruntime's graph optimizations (default ORT_DISABLE_ALL: the file's nodes run)")
    ap.add_argument("--json", default=None, help="also write the rows as JSON here")
    a = ap.parse_args()
    kinds = set(a.models.split(","))
    models: List[Tuple[str, bytes]] = []
    if "light" in kinds:
        models += light_models()
    if "torch" in kinds:
        models += torch_models(a.dynamo)
    if a.only:
        keep = set(a.only.split(","))
        models = [(n, d) for n, d in models if n in keep or n.split(" ")[0] in keep]
    rows = []
    for name, data in models:
        t = time.perf_counter()
        rows.append(measure(name, data, a.budget_ms, a.method, a.opt_level))
        print(f"{name}: {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
    meta = {"onnxruntime": ort.__version__, "onnx": onnx.__version__, "peakorder": peakorder.__version__,
            "budget_ms": a.budget_ms, "opt_level": a.opt_level}
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
    print(f"onnxruntime {meta['onnxruntime']}, onnx {meta['onnx']}, peakorder {meta['peakorder']}, "
          f"plan budget {a.budget_ms:g} ms, {a.opt_level}\n")
    print(markdown(rows))


if __name__ == "__main__":
    main()
