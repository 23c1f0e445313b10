"""`peakorder import onnx`: models built here with onnx's helper API, the models the onnx wheel
ships and its 1,884 node test cases, imported by the Rust CLI and checked against what onnx
itself says about every tensor (its strict shape inference, or the test cases' expected outputs).
Models exported from PyTorch are in test_onnx_torch.py."""

import glob
import json
import os
import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from conftest import cli, plan_json, simulate_peak  # noqa: E402

DESIGN = {
    TensorProto.FLOAT: "f32", TensorProto.DOUBLE: "f64", TensorProto.FLOAT16: "f16",
    TensorProto.BFLOAT16: "bf16", TensorProto.INT64: "i64", TensorProto.INT32: "i32",
    TensorProto.INT16: "i16", TensorProto.INT8: "i8", TensorProto.UINT8: "u8", TensorProto.BOOL: "bool",
}


def save(model, tmp_path, name="model.onnx"):
    p = tmp_path / name
    onnx.save(model, str(p))
    return p


def import_onnx(path, *extra):
    out = path.with_suffix(".json")
    cli("import", "onnx", path, "-o", out, *extra)
    return out, json.loads(out.read_text())


def mlp(batch=8):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 4])
    w1 = numpy_helper.from_array(np.ones((16, 32), np.float32), "w1")
    w2 = numpy_helper.from_array(np.ones((32, 4), np.float32), "w2")
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm1"),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("MatMul", ["r", "w2"], ["y"], name="mm2"),
    ]
    m = helper.make_model(helper.make_graph(nodes, "mlp", [x], [y], [w1, w2]))
    return onnx.shape_inference.infer_shapes(m, strict_mode=True)


def onnx_sizes(model):
    """Every value's (elem_type, dims) as onnx reports it (after shape inference), for values
    whose every dimension onnx knows."""
    g = model.graph
    out = {}
    for v in list(g.input) + list(g.output) + list(g.value_info):
        tt = v.type.tensor_type
        if (v.type.HasField("tensor_type") and tt.HasField("shape") and tt.elem_type
                and all(d.HasField("dim_value") for d in tt.shape.dim)):
            out[v.name] = (tt.elem_type, [d.dim_value for d in tt.shape.dim])
    for t in g.initializer:
        out[t.name] = (t.data_type, list(t.dims))
    return out


def nbytes(elem_type, dims):
    return int(np.prod(dims, dtype=np.int64)) * helper.tensor_dtype_to_np_dtype(elem_type).itemsize


def check_against_onnx(model, graph):
    """Sizes match onnx's; initializers are pinned graph inputs; every op input is declared."""
    sizes = onnx_sizes(model)
    declared = {t["id"]: t for t in graph["tensors"]}
    assert len(declared) == len(graph["tensors"]), "tensor ids must be unique"
    assert len({o["id"] for o in graph["ops"]}) == len(graph["ops"]), "op ids must be unique"
    produced = {t for o in graph["ops"] for t in o["outputs"]}
    for o in graph["ops"]:
        for t in o["inputs"] + o["outputs"]:
            assert t in declared, f"{t} not declared"
    checked = 0
    for tid, t in declared.items():
        if tid not in sizes or "alias_of" in t:
            continue
        et, dims = sizes[tid]
        if "dtype" in t:
            assert t["dtype"] == DESIGN[et], tid
            assert t["shape"] == dims, tid
        else:
            assert t["bytes"] == nbytes(et, dims), tid
        checked += 1
    for init in model.graph.initializer:
        t = declared[init.name]
        assert init.name not in produced and not t.get("donated"), init.name
    return checked


def test_mlp_sizes_pinned_initializers_and_peak(tmp_path):
    m = mlp()
    path, g = import_onnx(save(m, tmp_path))
    assert check_against_onnx(m, g) == 6
    assert [o["id"] for o in g["ops"]] == ["mm1", "relu", "mm2"]
    p = plan_json(path)
    # Inputs x (8x16) + w1 (16x32) + w2 (32x4) in f32 = 3072 bytes, all pinned. mm1 makes h
    # (1 KiB); relu makes r (1 KiB) while h is live: peak 3072 + 2048; then h is freed; mm2 makes
    # y (128 B) beside r: 3072 + 1152.
    assert p["inputs_bytes"] == 3072
    assert p["peak_bytes"] == 3072 + 2048 == simulate_peak(g)


def test_symbolic_dimension_fails_naming_it(tmp_path):
    path = save(mlp(batch="batch_size"), tmp_path)
    r = cli("import", "onnx", path, check=False)
    assert r.returncode == 2
    assert "batch_size" in r.stderr
    assert "--assume-dim batch_size=VALUE" in r.stderr
    assert "infer_shapes" in r.stderr
    assert '"x"' in r.stderr  # the first tensor carrying it
    out, g = import_onnx(path, "--assume-dim", "batch_size=5")
    x = next(t for t in g["tensors"] if t["id"] == "x")
    assert x["shape"] == [5, 16]
    assert g["meta"]["assumed_dims"] == {"batch_size": 5}
    plan_json(out)


def test_shapes_are_inferred_without_value_info(tmp_path):
    m = mlp()
    del m.graph.value_info[:]
    m.graph.output[0].type.tensor_type.ClearField("shape")
    path, g = import_onnx(save(m, tmp_path))
    assert check_against_onnx(mlp(), g) == 6


def test_op_without_a_rule_names_node_op_and_fallback(tmp_path):
    m = mlp()
    del m.graph.value_info[:]
    m.graph.node[1].op_type = "MyRelu"
    r = cli("import", "onnx", save(m, tmp_path), check=False)
    assert r.returncode == 2
    assert 'tensor "r" (output of node "relu") has no known shape' in r.stderr
    assert 'cannot infer the output shapes of node "relu" (op "MyRelu")' in r.stderr
    assert "onnx.shape_inference.infer_shapes(m, strict_mode=True)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_bad_input_exits_2(tmp_path):
    p = tmp_path / "junk.onnx"
    p.write_bytes(b"\xff\xfe not protobuf at all")
    assert cli("import", "onnx", p, check=False).returncode == 2
    assert cli("import", "onnx", tmp_path / "missing.onnx", check=False).returncode == 2
    good = save(mlp(), tmp_path)
    assert cli("import", "onnx", good, "--assume-dim", "nonsense", check=False).returncode == 2


def test_dtypes(tmp_path):
    types = [TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.INT64, TensorProto.BOOL,
             TensorProto.UINT16, TensorProto.DOUBLE, TensorProto.INT8]
    nodes, ins, outs = [], [], []
    for i, et in enumerate(types):
        ins.append(helper.make_tensor_value_info(f"a{i}", et, [3, 5]))
        outs.append(helper.make_tensor_value_info(f"b{i}", et, [3, 5]))
        nodes.append(helper.make_node("Identity", [f"a{i}"], [f"b{i}"]))
    m = helper.make_model(helper.make_graph(nodes, "types", ins, outs))
    _, g = import_onnx(save(m, tmp_path))
    assert check_against_onnx(m, g) == 2 * len(types)
    u16 = next(t for t in g["tensors"] if t["id"] == "a4")
    assert u16 == {"id": "a4", "bytes": 30, "meta": {"shape": [3, 5], "onnx_dtype": "uint16"}}


def test_string_tensor_is_refused_by_name(tmp_path):
    x = helper.make_tensor_value_info("words", TensorProto.STRING, [3])
    m = helper.make_model(helper.make_graph([helper.make_node("Identity", ["words"], ["o"])], "s", [x],
                                            [helper.make_tensor_value_info("o", TensorProto.STRING, [3])]))
    r = cli("import", "onnx", save(m, tmp_path), check=False)
    assert r.returncode == 2 and '"words"' in r.stderr and "STRING" in r.stderr


def test_if_is_one_op_reading_outer_values(tmp_path):
    big = helper.make_tensor_value_info("big", TensorProto.FLOAT, [1000])
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1000])

    def branch(name, op):
        return helper.make_graph(
            [helper.make_node(op, ["big"], [f"{name}_o"])], name, [],
            [helper.make_tensor_value_info(f"{name}_o", TensorProto.FLOAT, [1000])])

    nodes = [
        helper.make_node("Relu", ["x"], ["big"], name="mk"),
        helper.make_node("If", ["c"], ["y"], name="if", then_branch=branch("then", "Neg"),
                         else_branch=branch("else", "Abs")),
    ]
    m = helper.make_model(helper.make_graph(
        nodes, "cond",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1000]),
         helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [out], value_info=[big]))
    onnx.checker.check_model(m)
    path, g = import_onnx(save(m, tmp_path))
    op = g["ops"][1]
    assert op["id"] == "if" and op["inputs"] == ["c", "big"]
    assert "one op" in op["meta"]["note"] and op["meta"]["subgraph_nodes"] == 2
    # `big` stays alive while `if` runs: x (4000) + c (1) + big (4000) + y (4000).
    assert plan_json(path)["peak_bytes"] == 12001


SHIPPED = sorted(glob.glob(os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "**", "*.onnx"),
                       recursive=True))


def test_models_shipped_with_onnx(tmp_path):
    """Every model the onnx wheel ships (CNNs such as ResNet-50, DenseNet-121, VGG-19 among them)
    either imports with sizes equal to onnx's own shape inference, or is refused (exit 2) with a
    message naming the tensor, for the kinds of values peakorder cannot size (sequences, strings)."""
    # The onnx pinned by scripts/setup.d/50-python.sh ships them; none found means a broken
    # install, which must fail rather than skip the test.
    assert SHIPPED, f"no test models under {os.path.dirname(onnx.__file__)}/backend/test/data"
    imported = refused = 0
    cnns = []
    for i, f in enumerate(SHIPPED):
        m = onnx.shape_inference.infer_shapes(onnx.load(f, load_external_data=False))
        path = save(m, tmp_path, f"m{i}.onnx")
        r = cli("import", "onnx", path, "-o", tmp_path / f"m{i}.json", check=False)
        if r.returncode == 0:
            g = json.loads((tmp_path / f"m{i}.json").read_text())
            check_against_onnx(m, g)
            imported += 1
            if "/light/" in f:
                cnns.append((os.path.basename(f), len(g["ops"])))
                plan_json(tmp_path / f"m{i}.json", method="greedy")
        else:
            assert r.returncode == 2, (f, r.stderr)
            assert "is a sequence" in r.stderr or "STRING" in r.stderr, (f, r.stderr)
            refused += 1
    print(f"shipped models: {imported} imported, {refused} refused; CNNs: {cnns}")
    assert imported >= len(SHIPPED) - 20 and len(cnns) == 9


LIGHT = sorted(glob.glob(os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light",
                                      "*.onnx")))


def test_light_models_import_without_preprocessing(tmp_path):
    """Issue 21: the onnx wheel's nine light models (AlexNet ... ZFNet-512) carry no value_info and
    make their weights with ConstantOfShape; they import as they are, and every tensor's size
    equals what onnx's strict shape inference gives."""
    assert len(LIGHT) == 9, LIGHT
    for f in LIGHT:
        out = tmp_path / (os.path.basename(f) + ".json")
        cli("import", "onnx", f, "-o", out)
        g = json.loads(out.read_text())
        ref = onnx.shape_inference.infer_shapes(onnx.load(f), strict_mode=True)
        checked = check_against_onnx(ref, g)
        # onnx leaves the masks of opset-9 Dropouts untyped; they are the input's type and shape.
        masks = {n.output[1] for n in ref.graph.node if n.op_type == "Dropout" and len(n.output) > 1}
        unchecked = {t["id"] for t in g["tensors"]} - set(onnx_sizes(ref))
        assert unchecked == masks and checked == len(g["tensors"]) - len(masks), (f, unchecked)
        by_id = {t["id"]: t for t in g["tensors"]}
        for mask in masks:
            x = by_id[next(n.input[0] for n in ref.graph.node if mask in n.output)]
            assert (by_id[mask]["shape"], by_id[mask]["dtype"]) == (x["shape"], x["dtype"])
        plan_json(out, method="greedy")


def test_shipped_models_import_without_preprocessing(tmp_path):
    """All 149 models the wheel ships, as they are: sizes equal onnx's shape inference wherever it
    knows them; the few refused hold sequences or strings or a symbolic dimension, and say so."""
    imported = []
    for i, f in enumerate(SHIPPED):
        m = onnx.load(f, load_external_data=False)
        out = tmp_path / f"raw{i}.json"
        r = cli("import", "onnx", f, "-o", out, check=False)
        if r.returncode == 0:
            ref = onnx.shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)
            check_against_onnx(ref, json.loads(out.read_text()))
            imported.append(f)
        else:
            assert r.returncode == 2, (f, r.stderr)
            assert any(k in r.stderr for k in ("a sequence or an optional", "STRING", "--assume-dim")), \
                (f, r.stderr)
    print(f"shipped models without preprocessing: {len(imported)} of {len(SHIPPED)} imported")
    assert len(imported) >= 135


DTYPES = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
          "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool"}


def test_node_test_cases_infer_the_expected_output_shapes(tmp_path):
    """onnx's own node test cases (one op each, with inputs and expected outputs), inputs made
    initializers so that shape computations fold, output types removed: every output peakorder
    sizes has the expected array's shape and dtype; the ops it has no rule for exit 2 naming the
    node and its op type."""
    from onnx.backend.test.case import node as node_cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases(None)
    right = refused = 0
    wrong = []
    for c in cases:
        if not c.data_sets:
            continue
        ins, outs = c.data_sets[0]
        arrays = [a for a in list(ins) + list(outs) if isinstance(a, np.ndarray)]
        if (len(arrays) != len(ins) + len(outs) or len(ins) != len(c.model.graph.input)
                or any(a.dtype == object for a in arrays)):
            continue  # sequences, optionals, strings
        m = onnx.ModelProto()
        m.CopyFrom(c.model)
        g = m.graph
        for vi, arr in zip(g.input, ins):
            g.initializer.append(numpy_helper.from_array(arr, vi.name))
        del g.input[:]
        del g.value_info[:]
        for o in g.output:
            o.type.Clear()
        path = save(m, tmp_path, "case.onnx")
        out = tmp_path / "case.json"
        r = cli("import", "onnx", path, "-o", out, check=False)
        if r.returncode != 0:
            assert r.returncode == 2, (c.name, r.stderr)
            assert "cannot infer the output shapes of node" in r.stderr and "(op " in r.stderr, \
                (c.name, r.stderr)
            refused += 1
            continue
        tensors = {t["id"]: t for t in json.loads(out.read_text())["tensors"]}
        for o, arr in zip(g.output, outs):
            t = tensors[o.name]
            if t.get("bytes") == 0 and "note" in t.get("meta", {}):
                continue  # an unused optional output
            got = (t["shape"], t["dtype"]) if "shape" in t else (t["meta"]["shape"], t["bytes"])
            dt = str(arr.dtype)
            want = (list(arr.shape), DTYPES[dt]) if dt in DTYPES else (list(arr.shape), arr.nbytes)
            if got != want:
                wrong.append((c.name, o.name, got, want))
        right += 1
    print(f"node test cases: {right} inferred, {refused} refused (no rule), {len(wrong)} wrong")
    assert not wrong, wrong[:10]
    assert right >= 1300


def test_bad_input_names_the_node(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    # A Reshape with two -1 dims.
    t = numpy_helper.from_array(np.array([-1, -1], np.int64), "t")
    m = helper.make_model(helper.make_graph([helper.make_node("Reshape", ["x", "t"], ["y"], name="rs")],
                                            "g", [x], [y], [t]))
    r = cli("import", "onnx", save(m, tmp_path, "rs.onnx"), check=False)
    assert r.returncode == 2 and 'node "rs" (op "Reshape") is invalid' in r.stderr and "two -1" in r.stderr
    # A node in a domain the model does not import.
    m = helper.make_model(helper.make_graph([helper.make_node("Gelu", ["x"], ["y"], name="act",
                                                              domain="com.example")], "g", [x], [y]))
    r = cli("import", "onnx", save(m, tmp_path, "dom.onnx"), check=False)
    assert r.returncode == 2 and 'node "act"' in r.stderr and "com.example" in r.stderr
    # Truncated protobuf: a light model cut short.
    data = open(LIGHT[0], "rb").read()
    p = tmp_path / "cut.onnx"
    p.write_bytes(data[: len(data) // 2])
    r = cli("import", "onnx", p, check=False)
    assert r.returncode == 2 and "protobuf decoding failed" in r.stderr
    for err in (r.stderr,):
        assert len(err.strip().splitlines()) == 1


def test_value_info_that_contradicts_inference_names_the_tensor(tmp_path):
    m = mlp()
    m.graph.value_info[0].type.tensor_type.shape.dim[1].dim_value = 31
    r = cli("import", "onnx", save(m, tmp_path), check=False)
    assert r.returncode == 2
    assert 'tensor "h" (output of node "mm1"): the model gives it f32[8, 31], but node "mm1" computes ' \
           'f32[8, 32]' in r.stderr


def test_scope_from_node_names(tmp_path):
    m = mlp()
    m.graph.node[0].name = "/encoder/layer.0/fc1/MatMul"
    _, g = import_onnx(save(m, tmp_path))
    assert g["ops"][0]["meta"]["scope"] == "encoder/layer.0/fc1"
    assert "scope" not in (g["ops"][1].get("meta") or {})
