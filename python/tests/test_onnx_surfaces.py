"""ONNX through every surface (issue #31): `peakorder.import_onnx` (Python), `importOnnx` (npm,
in Node) and `peakorder import onnx` (the CLI) give the same graph JSON text for every model the
onnx wheel ships, or the same error; `peakorder.reorder_onnx` writes a plan's order into the
model: onnx's checker accepts it, its nodes are in the plan's order, onnxruntime computes the same
outputs as for the original (where onnxruntime is installed), and bad orders are coded errors."""

import glob
import os

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
import peakorder  # noqa: E402

from onnx_surfaces import HAVE_NODE, assert_surfaces_agree  # noqa: E402

DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
MODELS = sorted(glob.glob(os.path.join(DATA, "**", "*.onnx"), recursive=True))
LIGHT = [p for p in MODELS if os.path.basename(p).startswith("light_")]


def test_light_models_are_byte_identical_on_every_surface():
    assert len(LIGHT) == 9
    assert assert_surfaces_agree(LIGHT) == 9
    if not HAVE_NODE:
        pytest.skip("Node or pkg/node/peakorder_onnx.js missing: CLI and Python only")


def test_every_wheel_model_agrees_or_fails_the_same_way():
    imported = assert_surfaces_agree(MODELS)
    assert imported >= 135, imported


def test_bad_files_are_coded(tmp_path):
    for data, code in [(b"not a model", "bad_onnx"), (b"\x08\x07", "no_graph"), (b"\x3a\x00", "empty_graph")]:
        p = tmp_path / f"{code}.onnx"
        p.write_bytes(data)
        with pytest.raises(peakorder.PeakorderError) as e:
            peakorder.import_onnx(data)
        assert e.value.code == code
        assert_surfaces_agree([p])
    with pytest.raises(peakorder.PeakorderError) as e:
        peakorder.import_onnx(12)
    assert e.value.code == "invalid_argument"
    with pytest.raises(peakorder.PeakorderError) as e:
        peakorder.import_onnx(open(LIGHT[0], "rb").read(), assume_dims={"N": -1})
    assert e.value.code == "invalid_argument"


def node_signature(n):
    return (n.op_type, tuple(n.input), tuple(n.output))


def random_inputs(model, rng):
    inits = {t.name for t in model.graph.initializer}
    feeds = {}
    for v in model.graph.input:
        if v.name in inits:
            continue
        tt = v.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        feeds[v.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


@pytest.mark.parametrize("path", LIGHT, ids=lambda p: os.path.basename(p)[6:-5])
def test_reorder_onnx_checks_runs_and_follows_the_plan(path, tmp_path):
    original = open(path, "rb").read()
    graph = peakorder.import_onnx(path)
    plan = peakorder.plan(graph, method="greedy")
    out = peakorder.reorder_onnx(path, plan, output=tmp_path / "planned.onnx")
    assert (tmp_path / "planned.onnx").read_bytes() == out
    assert len(out) == len(original)
    m0, m1 = onnx.load_from_string(original), onnx.load_from_string(out)
    onnx.checker.check_model(m1, full_check=True)
    # The plan's order: op i of the plan is the node the import named so.
    by_id = {op["id"]: i for i, op in enumerate(graph["ops"])}
    assert [node_signature(n) for n in m1.graph.node] == [
        node_signature(m0.graph.node[by_id[op]]) for op in plan["order"]]
    # Nothing else changed: clearing the nodes leaves equal models.
    del m0.graph.node[:]
    del m1.graph.node[:]
    assert m0.SerializeToString() == m1.SerializeToString()
    # The identity order gives the same bytes.
    assert peakorder.reorder_onnx(original, [op["id"] for op in graph["ops"]]) == original

    ort = pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(0)
    feeds = random_inputs(onnx.load_from_string(original), rng)
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    run = lambda b: ort.InferenceSession(b, opts, providers=["CPUExecutionProvider"]).run(None, feeds)  # noqa: E731
    for a, b in zip(run(original), run(out)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_reorder_onnx_bad_orders_name_the_node():
    data = open(LIGHT[0], "rb").read()
    ids = [op["id"] for op in peakorder.import_onnx(data)["ops"]]
    cases = [
        (list(reversed(ids)), "not_topological", ids[-1]),
        (ids[1:], "missing_op", ids[0]),
        (ids + ids[:1], "repeated_op", ids[0]),
        (["nope"] + ids[1:], "unknown_op", "nope"),
    ]
    for order, code, op in cases:
        with pytest.raises(peakorder.PeakorderError) as e:
            peakorder.reorder_onnx(data, order)
        assert (e.value.code, e.value.op) == (code, op), str(e.value)
        assert op in str(e.value)
    with pytest.raises(peakorder.PeakorderError) as e:
        peakorder.reorder_onnx(data, {"steps": []})
    assert e.value.code == "invalid_argument"
