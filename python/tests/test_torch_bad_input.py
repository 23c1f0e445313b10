"""peakorder.torch on input it cannot plan: a clear PeakorderError naming the node and an
unchanged module (reorder), or a warning and Inductor's own order (inductor_options, backend);
never a corrupted graph. And input it can plan although it looks risky: in-place updates of
the inputs."""

import warnings

import pytest

torch = pytest.importorskip("torch")
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import peakorder  # noqa: E402
import peakorder.torch as pt  # noqa: E402


def code_of(gm):
    return gm.code, [n.name for n in gm.graph.nodes]


def refused(gm, *args, **kwargs):
    before = code_of(gm)
    with pytest.raises(peakorder.PeakorderError) as info:
        pt.reorder(gm, *args, **kwargs)
    assert code_of(gm) == before, "a refused graph must be left as it was"
    return info.value


def test_symbolic_shapes_are_refused_naming_the_node():
    def f(x, y):
        return torch.relu(x) @ y

    gm = make_fx(f, tracing_mode="symbolic")(torch.randn(4, 8), torch.randn(8, 3))
    e = refused(gm)
    assert e.code == "symbolic_shape"
    assert e.op in {n.name for n in gm.graph.nodes}
    assert e.op in str(e) and "symbolic" in str(e)


def test_a_tensor_without_a_dense_size_is_refused_naming_the_node():
    def f(x):
        return torch.relu(x.to_sparse() * 2.0).to_dense()

    gm = make_fx(f, tracing_mode="fake")(torch.randn(4, 4))
    e = refused(gm)
    assert e.code == "unsized_op"
    assert e.op is not None and e.op in str(e)


def test_an_op_without_a_fake_kernel_is_refused_naming_the_node():
    @torch.library.custom_op("peakorder_test::opaque", mutates_args=())
    def opaque(x: torch.Tensor) -> torch.Tensor:  # no register_fake: cannot be sized
        return x.clone()

    class M(torch.nn.Module):
        def forward(self, x):
            return torch.ops.peakorder_test.opaque(torch.relu(x)) + 1

    gm = torch.fx.symbolic_trace(M())
    e = refused(gm, (torch.randn(3, 3),))
    assert e.code == "unsized_op"
    assert "opaque" in e.op and e.op in str(e)


def test_no_metadata_and_no_inputs_is_refused():
    gm = torch.fx.symbolic_trace(torch.nn.Linear(3, 3))
    e = refused(gm)
    assert e.code == "unsized_op" and "example_inputs" in str(e)


def test_not_a_graph_module_is_refused():
    with pytest.raises(peakorder.PeakorderError) as info:
        pt.reorder(torch.nn.Linear(3, 3))
    assert info.value.code == "invalid_argument"


def test_too_old_a_torch_is_refused_by_name(monkeypatch):
    gm = make_fx(lambda x: x + 1)(torch.randn(2))
    monkeypatch.setattr(torch, "__version__", "2.5.1")
    e = refused(gm)
    assert e.code == "unsupported_torch" and "2.6" in str(e) and "2.5.1" in str(e)
    monkeypatch.setattr(torch, "__version__", "2.7.0+cpu")
    with pytest.raises(peakorder.PeakorderError) as info:
        pt.inductor_options(scheduler=True)
    assert info.value.code == "unsupported_torch" and "2.8" in str(info.value)


def mutates_its_inputs(x, y, stats):
    h = torch.tanh(x) @ y
    seen = stats.clone()          # reads stats before the update below
    stats.mul_(0.9).add_(h.mean(0), alpha=0.1)   # an in-place update of an input
    y.t().mul_(0.5)               # through a view of another input
    return h.relu() + seen, h.sum()


def inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(6, 5, generator=g), torch.randn(5, 5, generator=g), torch.randn(5, generator=g)]


def test_mutation_of_inputs_keeps_its_place_and_its_result():
    gm = make_fx(mutates_its_inputs)(*inputs())
    xs = inputs()
    want = [*gm(*xs), *xs]
    # Plans that would gain by moving the reads of `stats` and `y` after their updates exist
    # (the clone is only needed at the end); the order keeps them before.
    plan = pt.reorder(gm, inputs())
    xs = inputs()
    got = [*gm(*xs), *xs]
    assert all(torch.equal(a, b) for a, b in zip(want, got))
    names = [n.name for n in gm.graph.nodes]
    assert names.index("clone") < names.index("mul_")
    assert plan["applied_peak_bytes"] <= plan["program_order_peak_bytes"]


def test_mutation_of_inputs_through_torch_compile():
    xs = inputs()
    want = [*mutates_its_inputs(*xs), *xs]
    for kw in (dict(options=pt.inductor_options()), dict(backend=pt.backend())):
        torch._dynamo.reset()
        fn = torch.compile(mutates_its_inputs, **kw)
        xs = inputs()
        got = [*fn(*xs), *xs]
        assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(want, got)), kw


def test_symbolic_shapes_in_torch_compile_warn_and_keep_inductors_order(tmp_path, monkeypatch):
    # A fresh cache: a graph served by the FX graph (or AOTAutograd) cache never reaches the pass.
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))

    def f(x, y):
        return torch.relu(x) @ y + 1

    x, y = torch.randn(4, 8), torch.randn(8, 3)
    for kw in (dict(options=pt.inductor_options()), dict(backend=pt.backend())):
        torch._dynamo.reset()
        fn = torch.compile(f, dynamic=True, **kw)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn(x, y)
        assert torch.allclose(out, f(x, y))
        msgs = [str(w.message) for w in caught if "peakorder" in str(w.message)]
        assert any("symbolic" in m for m in msgs), (kw, msgs)
