"""inductor_options(): what Inductor is given, and its FX graph cache: the pass's uuid hashes the
package version, the options and peakorder's sources, so a cached graph is reused only for the
same plan and never serves a stale order."""

import pytest

torch = pytest.importorskip("torch")

import peakorder.torch as pt  # noqa: E402
from peakorder.torch import _uuid  # noqa: E402


def test_options_name_inductors_hooks():
    opts = pt.inductor_options()
    from torch._inductor.custom_graph_pass import CustomGraphPass

    assert isinstance(opts["post_grad_custom_post_pass"], CustomGraphPass)
    assert "reorder_for_peak_memory" not in opts  # Inductor's own pass stays on by default
    assert pt.inductor_options(inductor_reorder=False)["reorder_for_peak_memory"] is False
    sched = pt.inductor_options(scheduler=True)["_post_fusion_custom_pass"]
    assert callable(sched)
    for key in pt.inductor_options(scheduler=True, inductor_reorder=False):
        assert hasattr(torch._inductor.config, key), key


def test_uuid_follows_version_options_and_sources(monkeypatch):
    a = pt.inductor_options()["post_grad_custom_post_pass"].uuid()
    assert a == pt.inductor_options()["post_grad_custom_post_pass"].uuid()
    assert a != pt.inductor_options(method="greedy")["post_grad_custom_post_pass"].uuid()
    assert a != pt.inductor_options(budget_ms=5)["post_grad_custom_post_pass"].uuid()
    monkeypatch.setattr(_uuid, "version", lambda: "999.0.0")
    assert a != pt.inductor_options()["post_grad_custom_post_pass"].uuid()
    monkeypatch.undo()
    monkeypatch.setattr(_uuid, "_source_hash", lambda: "changed")
    assert a != pt.inductor_options()["post_grad_custom_post_pass"].uuid()


def test_fx_graph_cache_serves_the_planned_graph_and_only_that(tmp_path, monkeypatch):
    from torch._dynamo.utils import counters

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    from torch._inductor.codecache import FxGraphCache

    FxGraphCache.clear() if hasattr(FxGraphCache, "clear") else None

    def f(xs, a):
        for x in xs:
            a = torch.relu(torch.relu(x) @ x) @ a
        return a

    xs, a = [torch.randn(64, 64) for _ in range(4)], torch.randn(64, 64)

    def compile_once(**opts):
        torch._dynamo.reset()
        counters.clear()
        out = torch.compile(f, options=pt.inductor_options(**opts))(xs, a)
        assert torch.allclose(out, f(xs, a), rtol=1e-4, atol=1e-4)
        return counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"]

    # config.patch, not monkeypatch: undoing a monkeypatch deletes the config entry, and every
    # later torch.compile in the process fails ("fx_graph_cache does not exist").
    with torch._inductor.config.patch(fx_graph_cache=True):
        assert compile_once() == (0, 1)
        assert compile_once() == (1, 0)  # same plan options: served from the cache
        assert compile_once(method="greedy") == (0, 1)  # other options: compiled (and planned) anew


def test_post_grad_pass_marks_its_graphs_for_the_fusion_veto():
    """Without a memory limit too, a graph peakorder ordered is one whose distant vertical fusions
    are vetoed (peakorder/torch/_fusion.py; densenet121's step: 54.58 MiB with them, 51.32 without),
    and the veto is installed in the thread that compiles; a graph it leaves alone is not marked."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch._inductor.virtualized import V

    from peakorder.torch._fusion import ORDERED

    def f(x):
        a = torch.relu(x)
        b = torch.sin(x)
        return (a * 2).sum() + (b * 3).sum()

    opts = pt.inductor_options()
    assert any(line.startswith("fusion:") for line in opts.explain)
    gm = make_fx(f, tracing_mode="fake")(torch.randn(64, 64))
    opts["post_grad_custom_post_pass"](gm.graph)
    assert gm.meta.get(ORDERED) is True
    assert getattr(V.choices, "_peakorder_fusion", False)
    sym = make_fx(f, tracing_mode="symbolic")(torch.randn(64, 64))  # symbolic shapes: left alone
    with pytest.warns(UserWarning, match="left in Inductor's order"):
        opts["post_grad_custom_post_pass"](sym.graph)
    assert ORDERED not in sym.meta
