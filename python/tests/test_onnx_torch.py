"""Issue 21: models exported here with `torch.onnx.export` (both exporters: TorchScript with
`dynamo=False`, and dynamo) from torchvision's resnet18 and mobilenet_v2 (random weights) and from
a `torch.nn.TransformerEncoder` import and plan, as exported and with every intermediate shape
removed; sizes equal onnx's shape inference's, and, for the encoder, the shapes of a run of the
model in onnx's reference evaluator (onnx cannot infer 20 of the TorchScript export's tensors).
Runs where torch is installed (scripts/setup.d/55-torch.sh; the dynamo exporter's onnxscript
comes from 57-onnx.sh)."""

import json
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
import onnx  # noqa: E402
import torchvision  # noqa: E402
from onnx import helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from conftest import cli, plan_json  # noqa: E402
from test_onnx import check_against_onnx  # noqa: E402


def encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), (1, 3, 64, 64)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), (1, 3, 64, 64)),
    "encoder": (encoder, (2, 10, 64)),
}


@pytest.fixture(scope="module", params=[(m, d) for m in MODELS for d in (False, True)],
                ids=lambda p: f"{p[0]}-{'dynamo' if p[1] else 'torchscript'}")
def exported(request, tmp_path_factory):
    name, dynamo = request.param
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    x = torch.randn(*shape)
    path = tmp_path_factory.mktemp("export") / f"{name}.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), str(path), dynamo=dynamo)
    return name, dynamo, path, x.numpy()


def stripped(path, tmp_path):
    """The model with value_info and the outputs' shapes removed: inference must do it all."""
    m = onnx.load(str(path), load_external_data=False)
    del m.graph.value_info[:]
    for o in m.graph.output:
        o.type.tensor_type.ClearField("shape")
    p = tmp_path / "stripped.onnx"
    onnx.save(m, str(p))
    return p


def test_exported_models_import_and_plan(exported, tmp_path):
    name, dynamo, path, x = exported
    m = onnx.load(str(path), load_external_data=False)
    ref = onnx.shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)
    for variant in (path, stripped(path, tmp_path)):
        out = tmp_path / "g.json"
        cli("import", "onnx", variant, "-o", out)
        g = json.loads(out.read_text())
        produced = {o for op in g["ops"] for o in op["outputs"]}
        checked = check_against_onnx(ref, g)
        assert checked >= len(produced) * 0.85, (name, checked, len(produced))
        p = plan_json(out, method="greedy")
        assert p["peak_bytes"] >= p["inputs_bytes"] > 0
    if name == "encoder":
        # Ground truth for every intermediate, including those onnx's inference cannot size.
        full = onnx.load(str(path))
        names = [o for n in full.graph.node for o in n.output if o]
        del full.graph.output[:]
        full.graph.output.extend(helper.make_empty_tensor_value_info(n) for n in names)
        values = ReferenceEvaluator(full).run(None, {full.graph.input[0].name: x})
        tensors = {t["id"]: t for t in g["tensors"]}
        for n, v in zip(names, values):
            assert tensors[n]["shape"] == list(np.asarray(v).shape), n


def test_export_scopes(exported, tmp_path):
    """`meta.scope` from the TorchScript exporter's node names and the dynamo exporter's
    `pkg.torch.onnx.name_scopes` metadata."""
    name, dynamo, path, _ = exported
    out = tmp_path / "g.json"
    cli("import", "onnx", path, "-o", out)
    ops = json.loads(out.read_text())["ops"]
    scopes = [op["meta"]["scope"] for op in ops if "scope" in (op.get("meta") or {})]
    assert len(scopes) >= len(ops) // 2, (name, len(scopes), len(ops))
    want = {"resnet18": "layer1", "mobilenet_v2": "features", "encoder": "layers.0"}[name]
    assert any(s.split("/")[0] == want for s in scopes), scopes[:10]


def test_surfaces_agree_and_reorder_runs(exported, tmp_path):
    """Issue #31: the CLI, Python and Node give the same graph JSON text for the export as it is
    and with its shapes removed; the planned order written back passes onnx's checker and, where
    onnxruntime is installed, computes the same output."""
    from onnx_surfaces import assert_surfaces_agree

    import peakorder

    name, dynamo, path, x = exported
    assert assert_surfaces_agree([path, stripped(path, tmp_path)]) == 2
    graph = peakorder.import_onnx(path)
    plan = peakorder.plan(graph, method="greedy")
    # Beside the original: the dynamo exporter keeps the weights in an external data file
    # (`resnet18.onnx.data`), which the reordered model still names.
    planned = path.with_name(f"{path.stem}-planned.onnx")
    peakorder.reorder_onnx(path, plan, output=planned)
    onnx.checker.check_model(str(planned))
    try:
        import onnxruntime as ort
    except ImportError:
        return
    def run(model_path):
        sess = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
        return sess.run(None, {sess.get_inputs()[0].name: x})

    for a, b in zip(run(path), run(planned)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
