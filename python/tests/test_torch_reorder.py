"""peakorder.torch.reorder on random programs (hypothesis, shrinking): whatever order a plan
gives that respects the exported graph, the reordered module computes the same bits, updates its
inputs the same way, draws the same random numbers, and keeps fx's rules (placeholders first,
getitem next to its producer, output last); the simulator's peak of the order that runs is the
plan's, and, calibrated, the peak PyTorch's allocator measures."""

import random
from unittest import mock

import pytest

torch = pytest.importorskip("torch")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import peakorder  # noqa: E402
import peakorder.torch as pt  # noqa: E402
from peakorder.torch import _order, _reorder  # noqa: E402

N = 4  # every value is a 4x4 float32 tensor
OPS = (
    "relu", "add", "mm", "tanh", "t", "view", "add_", "relu_", "t_mul_", "rand", "dropout",
    "var_mean", "max", "clone", "copy_",
)


def _shares_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def run_step(op, a, b):
    if op in ("add_", "copy_") and _shares_storage(a, b):
        b = torch.tanh(b)  # an in-place op may not read the memory it writes
    if op == "relu":
        return torch.relu(a)
    if op == "add":
        return a + b
    if op == "mm":
        return torch.tanh(a @ b)  # tanh keeps chained products finite
    if op == "tanh":
        return torch.tanh(a)
    if op == "t":
        return a.t()
    if op == "view":
        return a.reshape(N * N).view(N, N)  # a view, or a copy when a is transposed
    if op == "add_":
        return a.add_(b)
    if op == "relu_":
        return a.relu_()
    if op == "t_mul_":
        return a.t().mul_(0.5)  # writes a's storage through a view
    if op == "rand":
        return torch.rand_like(a) + a
    if op == "dropout":
        return torch.nn.functional.dropout(a, 0.5, training=True)
    if op == "var_mean":
        v, m = torch.var_mean(a, dim=0, keepdim=True)
        return (a - m) * v
    if op == "max":
        values, _ = a.max(dim=0, keepdim=True)  # the indices are an output nobody reads
        return a - values
    if op == "clone":
        return a.clone()
    if op == "copy_":
        return a.copy_(b)
    raise AssertionError(op)


def program(steps, outs):
    def f(x, y, z):
        vals = [x, y, z]
        for op, i, j in steps:
            vals.append(run_step(op, vals[i % len(vals)], vals[j % len(vals)]))
        chosen = [v for k, v in enumerate(vals[3:]) if outs >> k & 1]
        return tuple(chosen or vals[-1:])

    return f


def inputs(seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(N, N, generator=g) for _ in range(3)]


def run(gm, seed=7):
    """Outputs and the inputs after the call, from fresh inputs and a fixed random seed."""
    xs = inputs()
    torch.manual_seed(seed)
    outs = gm(*xs)
    return [o.clone() for o in outs] + xs


def bits(ts):
    return [t.contiguous().view(torch.int32).tolist() for t in ts]


programs = st.tuples(
    st.lists(
        st.tuples(st.sampled_from(OPS), st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=14
    ),
    st.integers(1, 2**14 - 1),
)


def traced(steps, outs):
    return make_fx(program(steps, outs))(*inputs())


def random_topological_order(graph, rng):
    """Any order of the ops that puts each after the producers of its inputs."""
    producer = {t: o["id"] for o in graph["ops"] for t in o["outputs"]}
    preds = {o["id"]: {producer[t] for t in o["inputs"] if t in producer} for o in graph["ops"]}
    done, order = set(), []
    while len(order) < len(preds):
        ready = sorted(o for o in preds if o not in done and preds[o] <= done)
        pick = rng.choice(ready)
        done.add(pick)
        order.append(pick)
    return order


def check_fx_rules(gm):
    nodes = list(gm.graph.nodes)
    kinds = [n.op for n in nodes]
    n_ph = kinds.count("placeholder")
    assert kinds[:n_ph] == ["placeholder"] * n_ph
    assert kinds[-1] == "output"
    pos = {n: i for i, n in enumerate(nodes)}
    for n in nodes:
        if n.op == "call_function" and n.target.__name__ == "getitem":
            src = n.args[0]
            between = nodes[pos[src] + 1 : pos[n]]
            assert all(m.op == "call_function" and m.target.__name__ == "getitem" for m in between), (
                f"{n.name} is not next to its producer {src.name}: {[m.name for m in between]}"
            )


settings.register_profile(
    "peakorder", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@settings(settings.get_profile("peakorder"))
@given(programs, st.integers(0, 2**32 - 1))
def test_any_plan_that_respects_the_graph_computes_the_same_bits(prog, order_seed):
    steps, outs = prog
    gm = traced(steps, outs)
    want = run(gm)
    rng = random.Random(order_seed)

    def random_plan(graph, options):
        order = random_topological_order(graph, rng)
        sim = peakorder.torch._api.simulate(graph, order)
        return {"order": order, "peak_bytes": sim["peak_bytes"], "inputs_bytes": sim["inputs_bytes"]}

    with mock.patch.object(_reorder, "plan", random_plan):
        plan = pt.reorder(gm)
    assert bits(run(gm)) == bits(want), gm.code
    check_fx_rules(gm)
    # Views run next to their producer instead of where the plan put them: their storage can only
    # die sooner, never later.
    assert plan["applied_peak_bytes"] <= plan["peak_bytes"]


@settings(settings.get_profile("peakorder"))
@given(programs)
def test_planned_order_is_no_worse_and_calibrated_prediction_is_measured(prog):
    steps, outs = prog
    gm = traced(steps, outs)
    want = run(gm)
    xs = inputs()
    plan = pt.reorder(gm, xs, calibrate=True)
    assert bits(run(gm)) == bits(want), gm.code
    check_fx_rules(gm)
    assert plan["applied_peak_bytes"] <= plan["program_order_peak_bytes"]
    measured = pt.measure_peak(lambda: gm(*inputs()))
    # measure_peak's call also allocates the three fresh inputs (3 x 64 bytes) before the graph.
    assert measured == plan["applied_peak_bytes"] - plan["inputs_bytes"] + 3 * N * N * 4, gm.code


def test_ignoring_the_write_hazards_would_change_the_result(monkeypatch):
    """The edges that keep reads before an in-place write are needed: without them a plan may
    read after the write (checks that the test above can fail)."""

    def f(x):
        y = torch.tanh(x)
        keep = y.clone()          # reads y before the in-place write below
        y.mul_(2.0)               # writes y
        return keep + 1.0, y.sum()

    gm = make_fx(f)(torch.randn(N, N))
    want = bits(gm(torch.ones(N, N)))
    real_constraints = _order.constraints

    def late_clone(graph, options):
        ids = [o["id"] for o in graph["ops"]]
        clone = next(i for i in ids if i.startswith("clone"))
        ids.remove(clone)
        ids.insert(ids.index(next(i for i in ids if i.startswith("add"))), clone)
        return {"order": ids, "peak_bytes": 0, "inputs_bytes": 0}

    monkeypatch.setattr(_reorder, "plan", late_clone)
    monkeypatch.setattr(_order, "constraints", lambda *a: [])
    broken = make_fx(f)(torch.randn(N, N))
    pt.reorder(broken)
    assert bits(broken(torch.ones(N, N))) != want
    monkeypatch.setattr(_order, "constraints", real_constraints)
    kept = make_fx(f)(torch.randn(N, N))
    plan = pt.reorder(kept)  # the fx order keeps the edge the plan broke
    assert bits(kept(torch.ones(N, N))) == want
    assert plan["applied_peak_bytes"] > 0
