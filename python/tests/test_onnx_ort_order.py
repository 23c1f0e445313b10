"""Issue #31: which of onnxruntime's execution orders runs an ONNX file's nodes in the file's
order, read from onnxruntime's own profiler by python/bench/onnx_ort_order.py (docs/import.md
"onnxruntime's execution order"). These facts hold for onnxruntime 1.32's PyPI wheel; a change
in onnxruntime that breaks one fails here, and the docs' table needs measuring again."""

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

import peakorder  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("onnx_ort_order", ROOT / "python" / "bench" / "onnx_ort_order.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

N = 1 << 18  # 1 MiB of f32


def fork(order=("r1", "n1", "n2", "add"), shape_node=False):
    """x -> r1 = Relu(x) -> n2 = Neg(r1); n1 = Neg(x); add = n1 + n2: two branches, in ``order``.
    With ``shape_node``, a Shape of x is computed last (an extra output)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [N])
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [N])]
    nodes = {
        "r1": helper.make_node("Relu", ["x"], ["a"], name="r1"),
        "n1": helper.make_node("Neg", ["x"], ["b"], name="n1"),
        "n2": helper.make_node("Neg", ["a"], ["c"], name="n2"),
        "add": helper.make_node("Add", ["b", "c"], ["y"], name="add"),
    }
    order = list(order)
    if shape_node:
        nodes["shape"] = helper.make_node("Shape", ["y"], ["s"], name="shape")
        outs.append(helper.make_tensor_value_info("s", TensorProto.INT64, [1]))
        order.append("shape")
    g = helper.make_graph([nodes[k] for k in order], "fork", [x], outs)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


FEEDS = {"x": np.ones(N, np.float32)}


def test_priority_based_runs_the_file_order_default_does_not():
    # PRIORITY_BASED is Kahn's sort taking the ready node first in the file; on a file already
    # in topological order that is the file's order.
    for order in (("r1", "n1", "n2", "add"), ("n1", "r1", "n2", "add"), ("r1", "n2", "n1", "add")):
        assert bench.ort_run(fork(order), "PRIORITY_BASED", FEEDS, runs=1)["order"] == list(order)
    # DEFAULT is a depth-first walk back from the outputs that visits, of a node's inputs, the
    # one made by the node latest in the file first: the file's order survives only where it is
    # already that walk's.
    assert bench.ort_run(fork(), "DEFAULT", FEEDS, runs=1)["order"] == ["r1", "n2", "n1", "add"]
    assert bench.ort_run(fork(("n1", "r1", "n2", "add")), "DEFAULT", FEEDS, runs=1)["order"] == ["r1", "n2", "n1", "add"]


def test_priority_based_runs_shape_nodes_first():
    # The one exception: Shape and Size nodes go as soon as they are ready.
    data = fork(("n1", "r1", "n2", "add"), shape_node=True)
    assert bench.ort_run(data, "PRIORITY_BASED", FEEDS, runs=1)["order"] == ["n1", "r1", "n2", "add", "shape"]
    m = onnx.load_from_string(data)
    # A Shape of the input, written last, runs first.
    m.graph.node[-1].input[0] = "x"
    r = bench.ort_run(m.SerializeToString(), "PRIORITY_BASED", FEEDS, runs=1)
    assert r["order"] == ["shape", "n1", "r1", "n2", "add"]


def test_memory_efficient_is_refused_without_training_support():
    r = bench.ort_run(fork(), "MEMORY_EFFICIENT", FEEDS, runs=1)
    assert r["refused"] == "Memory efficient topological order is not enabled for non-training build."


def test_requested_peak_is_peakorders_model_less_the_fed_input():
    """onnxruntime's bytes requested after each node, before its last-read inputs are freed,
    peak where peakorder's memory model does, less the input x fed from numpy."""
    data = fork()
    graph = peakorder.import_onnx(data)
    for order in ("PRIORITY_BASED", "DEFAULT"):
        r = bench.ort_run(data, order, FEEDS, runs=1)
        modelled = peakorder.simulate(graph, r["order"])["peak_bytes"]
        assert r["runs"][0]["requested_peak"] == modelled - 4 * N == 3 * 4 * N


def test_light_model_reordered_runs_the_plan_with_a_lower_peak():
    path = next(p for p in bench.light_paths() if os.path.basename(p) == "light_squeezenet.onnx")
    row = bench.measure("squeezenet", open(path, "rb").read(), budget_ms=100)
    o = row["ort"]
    assert o["original/PRIORITY_BASED"]["follows_file_order"]
    assert not o["original/DEFAULT"]["follows_file_order"]
    assert o["reordered/PRIORITY_BASED"]["follows_file_order"]  # the plan's order
    assert "refused" in o["original/MEMORY_EFFICIENT"]
    before = o["original/PRIORITY_BASED"]["runs"][0]["requested_peak"]
    after = o["reordered/PRIORITY_BASED"]["runs"][0]["requested_peak"]
    assert after < 0.75 * before, (after, before)
