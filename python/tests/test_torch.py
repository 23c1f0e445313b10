"""PyTorch export: torch.fx symbolic_trace, torch.export and a make_fx joint forward+backward
graph. CI installs torch (scripts/setup.d/55-torch.sh)."""

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402

import peakorder  # noqa: E402


def validate(g, tmp_path=None, name="g"):
    return peakorder.plan(g)


def by_id(g):
    return {t["id"]: t for t in g["tensors"]}


def nbytes_of(t):
    if "bytes" in t:
        return t["bytes"]
    if "alias_of" in t:
        return 0
    n = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2}.get(t["dtype"], 1)
    for d in t["shape"]:
        n *= d
    return n


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(h.view(x.shape[0], 32)).t()


def test_symbolic_trace_with_example_inputs(tmp_path):
    gm = torch.fx.symbolic_trace(MLP())
    x = torch.randn(8, 16)
    g = peakorder.export.from_fx(gm, (x,))
    t = by_id(g)
    assert t["x"]["shape"] == [8, 16] and t["x"]["dtype"] == "f32"
    # Submodule parameters are pinned graph inputs read by their op.
    assert t["fc1.weight"]["shape"] == [32, 16]
    fc1 = next(o for o in g["ops"] if o["kind"] == "Linear" and "fc1.weight" in o["inputs"])
    assert "fc1.bias" in fc1["inputs"]
    # .view and .t are views of the tensors they come from: 0 bytes, alias_of.
    views = [x for x in g["tensors"] if "alias_of" in x]
    assert len(views) == 2, views
    plan = validate(g, tmp_path)
    params = (32 * 16 + 32 + 4 * 32 + 4) * 4
    assert plan["inputs_bytes"] == params + 8 * 16 * 4


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 16 * 16, 10)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y.add_(1.0)
        return self.fc(y.flatten(1))


def test_torch_export_cnn_sizes_match_the_framework(tmp_path):
    model = CNN()
    x = torch.randn(2, 3, 16, 16)
    ep = torch.export.export(model, (x,))
    g = peakorder.export.from_fx(ep)
    t = by_id(g)
    # Every tensor the graph names is sized from fake-tensor metadata: compare with real tensors.
    real = {n: p for n, p in model.named_parameters()}
    roles = {x["id"]: x.get("meta", {}).get("role") for x in g["tensors"]}
    assert "parameter" in roles.values() and "user_input" in roles.values()
    for node in ep.graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and node.name in t and "alias_of" not in t[node.name]:
            assert nbytes_of(t[node.name]) == val.untyped_storage().nbytes(), node.name
    total_params = sum(p.numel() * 4 for p in real.values())
    plan = validate(g, tmp_path)
    assert plan["inputs_bytes"] >= total_params + x.numel() * 4
    assert all(len(o["outputs"]) >= 0 for o in g["ops"])


def test_joint_forward_backward_with_inplace_and_views(tmp_path):
    from torch.fx.experimental.proxy_tensor import make_fx

    def train_step(w1, w2, x):
        h = x @ w1
        h = h.relu_()  # in place: an alias of h, not new memory
        out = (h.t().t() @ w2).sum()
        g1, g2 = torch.autograd.grad(out, (w1, w2))
        return w1 - 0.1 * g1, w2 - 0.1 * g2

    w1 = torch.randn(16, 32, requires_grad=True)
    w2 = torch.randn(32, 4, requires_grad=True)
    x = torch.randn(8, 16)
    gm = make_fx(train_step, tracing_mode="fake")(w1, w2, x)
    g = peakorder.export.from_fx(gm)
    t = by_id(g)
    relu_ = [o for o in g["ops"] if "relu_" in o["kind"]]
    assert relu_, [o["kind"] for o in g["ops"]]
    out = t[relu_[0]["outputs"][0]]
    assert "alias_of" in out, out
    kinds = [o["kind"] for o in g["ops"]]
    assert any("mm" in k for k in kinds) and any("threshold_backward" in k or "le" in k or "where" in k for k in kinds)
    plan = validate(g, tmp_path)
    assert plan["inputs_bytes"] == (16 * 32 + 32 * 4 + 8 * 16) * 4
    assert plan["peak_bytes"] >= plan["inputs_bytes"] + 8 * 32 * 4


def test_aot_autograd_graphs(tmp_path):
    from functorch.compile import aot_function

    graphs = []

    def capture(gm, example_inputs):
        graphs.append(peakorder.export.from_fx(gm, example_inputs))
        return gm.forward

    def f(w, x):
        return torch.tanh(x @ w).sum()

    w = torch.randn(16, 16, requires_grad=True)
    x = torch.randn(8, 16)
    fn = aot_function(f, fw_compiler=capture, bw_compiler=capture)
    fn(w, x).backward()
    assert len(graphs) == 2
    for i, g in enumerate(graphs):
        validate(g, tmp_path, f"aot{i}")


def test_scope_is_the_module_path():
    from peakorder._fx import module_scope

    assert module_scope("L['self'].layer1[0].conv1") == "layer1/0/conv1"
    assert module_scope("layer1.0.conv1") == "layer1/0/conv1"
    assert module_scope("L['self']._modules['features'][3]") == "features/3"
    assert module_scope("") == ""


def test_torch_export_ops_carry_their_module_scope():
    model = CNN()
    ep = torch.export.export(model, (torch.randn(2, 3, 16, 16),))
    g = peakorder.export.from_fx(ep)
    scopes = {o["id"]: o.get("meta", {}).get("scope") for o in g["ops"]}
    conv = next(o["id"] for o in g["ops"] if "conv" in o["kind"])
    assert scopes[conv] == "conv"
    assert "bn" in scopes.values() and "fc" in scopes.values()


def test_calibrated_workspace_is_measured_scratch():
    """calibrate=True records, per op, what it allocated and freed before returning."""
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(x, w):
        return (x @ w).relu().sum(0)

    x, w = torch.randn(64, 32), torch.randn(32, 16)
    gm = make_fx(f)(x, w)
    plain = peakorder.export.from_fx(gm, (x, w))
    cal = peakorder.export.from_fx(gm, (x, w), calibrate=True)
    assert [o["id"] for o in plain["ops"]] == [o["id"] for o in cal["ops"]]
    assert all(o.get("workspace", 0) >= 0 for o in cal["ops"])
    import peakorder.torch as pt

    measured = pt.measure_peak(gm, x, w)
    sim = peakorder.simulate(cal, [o["id"] for o in cal["ops"]])
    assert measured == sim["peak_bytes"] - sim["inputs_bytes"]
