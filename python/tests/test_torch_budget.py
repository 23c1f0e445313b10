"""torch.compile within a byte limit (issue #30): peakorder as AOTAutograd's and Inductor's
partitioner. A 2-block GPT-style training step (python/bench/torch_budget.py's ``gpt-small``)
at three limits, each compiled in a process of its own and measured by PyTorch's CPU allocator;
the refusals leave the joint graph as it was. The sweeps are benchmarks (docs/pytorch.md)."""

import os
import sys
import warnings

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import torch_budget as tb  # noqa: E402

import peakorder  # noqa: E402
import peakorder.torch as pt  # noqa: E402
from peakorder.torch import _joint, _partition  # noqa: E402
from peakorder.torch._versions import torch_version  # noqa: E402

MiB = 2**20
needs_partitioner = pytest.mark.skipif(torch_version() < (2, 9), reason="custom_partitioner_fn: torch >= 2.9")

# What Inductor's lowering may add above the plan on this step (fused kernels and extern-kernel
# buffers the fx-level plan does not see; docs/pytorch.md): with Inductor's buffer reuse on, the
# least limit measured 0.94 of its limit on torch 2.15 and 1.154 on 2.9.1; with it off (as
# memory_limit sets it) 0.936 and 0.980. These bounds are older than that and wider than the
# issue's 2%.
INDUCTOR_SLACK = 1.08 if torch_version() >= (2, 15) else 1.17
# The 4-block GPT at its least limit, where Inductor's buffer reuse held two 2 MiB buffers past
# their last use: 1.139 of the limit with it, 0.897 without (torch 2.15; 0.889 on 2.9.1). The
# acceptance's 2%.
LEAST_SLACK = 1.02


def joint_of(fn, *args):
    """The joint graph AOTAutograd gives a partitioner, and its num_fwd_outputs."""
    got = {}

    def grab(gm, joint_inputs, *, num_fwd_outputs, **kw):
        import copy

        from torch._functorch.partitioners import default_partition

        got["joint"] = copy.deepcopy(gm)
        got["n"] = num_fwd_outputs
        return default_partition(gm, joint_inputs, num_fwd_outputs=num_fwd_outputs)

    from torch._dynamo.backends.common import aot_autograd

    torch._dynamo.reset()
    compiled = torch.compile(fn, backend=aot_autograd(fw_compiler=lambda g, _: g, partition_fn=grab))
    compiled(*args).sum().backward()
    return got["joint"], got["n"]


def mlp_loss(x, w1, w2):
    return torch.tanh(torch.relu(x @ w1) @ w2).sum()


def mlp_args():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(64, 256, generator=g), torch.randn(256, 256, generator=g, requires_grad=True),
            torch.randn(256, 256, generator=g, requires_grad=True))


def test_a_limit_is_bytes_text_or_min():
    assert _partition._parse_limit("min") == "min"
    assert _partition._parse_limit("1MiB") == MiB
    assert _partition._parse_limit(4096) == 4096
    for bad in ("12 parsecs", -1, 1.5, True, None):
        with pytest.raises(peakorder.PeakorderError) as e:
            _partition._parse_limit(bad)
        assert e.value.code == "bad_limit"


@needs_partitioner
def test_bad_limit_fails_where_the_options_are_made():
    with pytest.raises(peakorder.PeakorderError) as e:
        pt.inductor_options(memory_limit="lots")
    assert e.value.code == "bad_limit"


def test_memory_preset_turns_layout_optimization_off_and_says_why():
    opts = pt.inductor_options()
    assert opts["layout_optimization"] is False
    assert any("channels-last" in line for line in opts.explain)
    assert pt.inductor_options(layout_optimization=True)["layout_optimization"] is True


@needs_partitioner
def test_memory_limit_turns_buffer_reuse_off_and_says_why():
    opts = pt.inductor_options(memory_limit="min")
    assert opts["allow_buffer_reuse"] is False
    assert any(line.startswith("allow_buffer_reuse=False") for line in opts.explain)
    assert "allow_buffer_reuse" not in pt.inductor_options()  # no limit: Inductor's own reuse


def test_memory_limit_needs_torch_2_9(monkeypatch):
    from peakorder.torch import _versions

    monkeypatch.setattr(_versions, "torch_version", lambda: (2, 8))
    with pytest.raises(peakorder.PeakorderError) as e:
        pt.inductor_options(memory_limit="min")
    assert e.value.code == "unsupported_torch" and "2.9" in str(e.value)


def test_saved_values_are_what_the_backward_reads_from_before_the_boundary():
    joint, n = joint_of(mlp_loss, *mlp_args())
    plain = _partition.partition(joint, None, num_fwd_outputs=n, memory_limit="1TiB", record=(rec := {}))
    assert rec["recomputed"] == {} and rec["recomputed_flops"] == 0
    assert plain[0].graph is not None
    least = {}
    _partition.partition(joint_of(mlp_loss, *mlp_args())[0], None, num_fwd_outputs=n, memory_limit="min",
                         record=least)
    p = least["plan"]
    assert p["peak_bytes"] - p["inputs_bytes"] <= rec["plan"]["peak_bytes"] - rec["plan"]["inputs_bytes"]
    split = _joint.saved_and_recomputed(_joint.export_joint(
        joint, _partition._Info(_partition._required_bw(joint, [])), []), least["schedule"])
    assert set(split["saved"]) >= set()  # a well-formed split of the least plan's schedule
    assert split["pre"] and split["post"]


def test_the_partition_plans_with_a_budget_that_grows_with_the_step(monkeypatch):
    """Without the caller's ``budget_ms``, 1 ms per op of the joint problem, from 100 ms to 2 s
    (a schedule's FLOPs depend on the time: mobilenet_v2 at 40,000,000 bytes recomputed 2.906
    GFLOPs at 100 ms on a busy machine, 0.099 at 2 s); the caller's budget is kept."""
    assert _partition.default_budget_ms(20) == 100.0
    assert _partition.default_budget_ms(466) == 466.0
    assert _partition.default_budget_ms(3_000) == 2000.0
    seen = []
    real = _partition.plan_joint
    monkeypatch.setattr(_partition, "plan_joint",
                        lambda problem, limit, opts: seen.append((len(problem.graph["ops"]), dict(opts)))
                        or real(problem, limit, opts))
    joint, n = joint_of(mlp_loss, *mlp_args())
    _partition.partition(joint, None, num_fwd_outputs=n, memory_limit="min")
    ops, opts = seen[-1]
    assert opts["budget_ms"] == _partition.default_budget_ms(ops)
    joint, n = joint_of(mlp_loss, *mlp_args())
    _partition.partition(joint, None, num_fwd_outputs=n, memory_limit="min", plan_options={"budget_ms": 30})
    assert seen[-1][1]["budget_ms"] == 30


def conv_loss(x, w):
    return torch.nn.functional.conv2d(x, w).relu().sum()


def test_the_joint_graph_is_calibrated_outside_the_partitioners_fake_mode():
    """AOTAutograd calls the partitioner inside its FakeTensorMode: the calibration run made fake
    inputs there and measured no scratch at all (mobilenet_v2's convolutions: 6 MiB of mkldnn
    scratch each, calibrated as none; its step at the least limit 1.19 of the plan). The run
    leaves the mode, and restores the global generator it draws from."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    g = torch.Generator().manual_seed(0)
    x = torch.randn(16, 16, 32, 32, generator=g)
    w = torch.randn(96, 16, 1, 1, generator=g, requires_grad=True)
    joint, _ = joint_of(conv_loss, x, w)
    real = _joint.calibrate_joint(joint)
    conv = [n.name for n in joint.graph.nodes if n.target is torch.ops.aten.convolution.default]
    assert conv and real.get(conv[0], 0) >= 2**20, real  # mkldnn's reordered output, 6 MiB here
    state = torch.get_rng_state()
    with FakeTensorMode():
        inside = _joint.calibrate_joint(joint)
    assert inside.get(conv[0]) == real[conv[0]], inside
    assert torch.equal(torch.get_rng_state(), state)
    # A graph off the CPU (CUDA; here the meta device) is not run: the CPU profiler cannot see it.
    ph = next(n for n in joint.graph.nodes if n.op == "placeholder")
    ph.meta["val"] = ph.meta["val"].to("meta")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _joint.calibrate_joint(joint) == {}


def test_each_run_reads_the_run_of_its_input_made_last_before_it():
    """_schedule.duplicate: the first run of ``neg`` follows a second run of ``relu`` and reads it;
    its own second run must read the third run of ``relu``, not the second again (mobilenet_v2 at
    its least limit: hardtanh masks recomputed in the backward read the forward's second run of
    their input, which the forward then saved: 8.6 MB the plan did not save)."""
    from peakorder.torch import _schedule

    def f(x):
        return torch.neg(torch.relu(x)) + 1

    gm = torch.fx.symbolic_trace(f)
    steps = ["relu", "relu", "neg", "relu", "neg", "add"]
    inst = _schedule.duplicate(gm, steps, num_fwd_outputs=1)
    nodes = {n.name: n for n in gm.graph.nodes}
    relu = [inst[0], inst[1], inst[3]]
    neg = [inst[2], inst[4]]
    assert len(set(relu)) == 3 and len(set(neg)) == 2, inst
    assert nodes[neg[0]].args[0].name == relu[1]
    assert nodes[neg[1]].args[0].name == relu[2]
    assert nodes[inst[5]].args[0].name == neg[1]


def test_values_read_far_from_where_they_are_made_get_a_buffer_in_recompute_graphs():
    """_inductor._realize_distant: Inductor inlines a pointwise value into its readers, so a value
    the plan keeps while a recomputation frees its input would keep the input instead
    (mobilenet_v2's step at its least limit: 45.6 MB against 27.8 planned; 33.1 MB with
    buffers). A value read within DISTANCE nodes stays Inductor's to inline."""
    from peakorder.torch import _fusion, _inductor

    def f(x):
        kept = torch.sin(x)  # read again at the end
        near = torch.cos(x)
        y = near + 1
        for _ in range(_fusion.DISTANCE + 1):
            y = torch.tanh(y)
        return y * kept

    gm = torch.fx.symbolic_trace(f)
    for n in gm.graph.nodes:
        if n.op == "call_function":
            n.meta["val"] = torch.empty(4)  # as Inductor's post-grad graphs carry
    _inductor._realize_distant(gm.graph)
    marked = {n.name for n in gm.graph.nodes if n.meta.get("inductor_realize_to_strides")}
    assert marked == {"sin"}, marked


def test_no_fusion_across_an_extern_kernel():
    """_fusion.extern_between: a node after a convolution's backward fused into a kernel before
    it makes its output before the convolution's scratch is freed (mobilenet_v2 at its least
    limit: 32.89 MB against 30.95 planned; 31.07 without such fusions)."""
    from types import SimpleNamespace as NS

    from torch._inductor.scheduler import ExternKernelSchedulerNode

    from peakorder.torch import _fusion

    ext = object.__new__(ExternKernelSchedulerNode)
    ext.min_order = ext.max_order = 5
    sched = NS(nodes=[NS(min_order=i, max_order=i) for i in range(5)] + [ext])
    at = lambda lo, hi: NS(min_order=lo, max_order=hi)  # noqa: E731
    assert _fusion.extern_between(sched, at(4, 4), at(6, 6))
    assert _fusion.extern_between(sched, at(7, 9), at(2, 3))
    assert not _fusion.extern_between(sched, at(3, 3), at(4, 4))
    assert not _fusion.extern_between(sched, at(6, 6), at(8, 8))
    assert not _fusion.extern_between(sched, at(2, 7), at(4, 4))  # already fused across it


def test_forward_ops_nothing_reads_run_before_the_boundary():
    """BatchNorm's copy_ of its new running statistics into the buffer is read by nothing and
    is no forward output, yet torch's extraction puts it in the forward graph with what it reads.
    Planned after the boundary, it read the backward's recomputations and the forward made them
    too (mobilenet_v2 at its least limit: a 6 MiB convolution made three times in the forward,
    one run saved). The boundary reads it, so no schedule can place it after."""
    import copy

    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.partitioners import default_partition

    m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                            torch.nn.Conv2d(8, 4, 3), torch.nn.BatchNorm2d(4))
    got = {}

    def grab(gm, joint_inputs, *, num_fwd_outputs, **kw):
        got["joint"], got["n"] = copy.deepcopy(gm), num_fwd_outputs
        return default_partition(gm, joint_inputs, num_fwd_outputs=num_fwd_outputs)

    torch._dynamo.reset()
    # keep_inference_input_mutations: the copy_ stays in the joint graph, as Inductor keeps it
    f = torch.compile(lambda x: m(x), backend=aot_autograd(fw_compiler=lambda g, _: g, partition_fn=grab,
                                                           keep_inference_input_mutations=True))
    f(torch.randn(2, 3, 8, 8)).sum().backward()
    joint = got["joint"]
    from torch._functorch import partitioners as P

    fwd_outputs, bwd_outputs = P._extract_fwd_bwd_outputs(joint, num_fwd_outputs=got["n"])[:2]
    info = _partition._Info(_partition._required_bw(joint, bwd_outputs))
    problem = _joint.export_joint(joint, info, fwd_outputs)
    ops = {o["id"]: o for o in problem.graph["ops"]}
    copies = [o for o in ops.values() if o["kind"] == "aten.copy_.default"]
    assert len(copies) == 6, [o["kind"] for o in ops.values()]
    boundary = ops[_joint.BOUNDARY]
    assert all(set(o["outputs"]) <= set(boundary["inputs"]) for o in copies)
    # The program order with one copy_ moved after the boundary is refused.
    order = [o["id"] for o in problem.graph["ops"] if o["id"] != _joint.BOUNDARY]
    fwd = [i for i in order if not info.is_required_bw(problem.op_node[i])]
    bwd = [i for i in order if info.is_required_bw(problem.op_node[i])]
    last = copies[-1]["id"]
    fwd.remove(last)
    with pytest.raises(peakorder.PeakorderError):
        peakorder.simulate(problem.graph, fwd + [_joint.BOUNDARY, last] + bwd)
    peakorder.simulate(problem.graph, fwd + [last, _joint.BOUNDARY] + bwd)


def _gelu(h):
    return h * 0.5 * (1 + torch.erf(h * 0.7071067811865476))


def gelu_mlp_loss(x, w1, w2, w3):
    return (_gelu(_gelu(x @ w1) @ w2) @ w3).sum()


def gelu_mlp_args():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(2048, 64, generator=g), torch.randn(64, 256, generator=g, requires_grad=True),
            torch.randn(256, 256, generator=g, requires_grad=True), torch.randn(256, 16, generator=g, requires_grad=True))


def test_pointwise_chains_are_planned_as_one_op():
    """Inductor runs a pointwise chain as one kernel. Planned link by link, each link a buffer of
    its own, GELU's recomputation looked no cheaper in bytes than keeping its output, and the
    plan recomputed a matmul (this step 13.5 MB above its inputs: 67 MFLOPs, where the chains
    recomputed as one op each need 10 FLOPs; the GPT-style step at 28 MB: 0.134 GFLOPs, 98 FLOPs
    with chains, and 0.81 MiB below PyTorch's peak at activation_memory_budget=0.8, 122 FLOPs)."""
    import copy

    from peakorder.torch import _fusion, _pointwise

    joint, n = joint_of(gelu_mlp_loss, *gelu_mlp_args())
    problem = _joint.export_joint(joint, _partition._Info(_partition._required_bw(joint, [])), [])
    before = copy.deepcopy(problem.graph)
    planned, chains = _pointwise.collapse(problem)
    assert problem.graph == before  # the joint problem itself is left as it was
    assert chains and len(planned.graph["ops"]) == len(problem.graph["ops"]) - sum(len(c) - 1 for c in chains.values())
    fused = {o["id"]: o for o in planned.graph["ops"] if o["id"] in chains}
    for root, links in chains.items():
        assert links[-1] == root and all(problem.op_node[m].target.is_view is False for m in links)
        assert fused[root]["cost"] == sum(problem.cost[m] for m in links)
    # The erf and the add of the forward's first GELU are one op; the multiply reading them both
    # reads h too, which the backward also reads, so the chain ends there.
    assert any(set(links) >= {"erf", "add"} for links in chains.values()), chains
    rec = {}
    fw, bw = _partition.partition(joint, None, num_fwd_outputs=n, memory_limit=13_500_000, record=rec)
    assert 0 < rec["recomputed_flops"] < 1000, rec["recomputed"]  # pointwise recomputation only
    run = peakorder.simulate(problem.graph, rec["schedule"])  # a schedule of the joint problem
    assert run["peak_bytes"] - run["inputs_bytes"] <= 13_500_000
    # The graphs are marked for the post-grad pass to order by chains where the schedule
    # recomputes a chain or peaks higher link by link than planned; here it recomputes chains.
    links = {m for c in chains.values() for m in c}
    assert links & set(rec["recomputed"]), rec["recomputed"]
    assert fw.meta.get(_fusion.CHAINS) and bw.meta.get(_fusion.CHAINS)
    # Nothing recomputed: no mark, and the post-grad order is planned link by link.
    fw, _ = _partition.partition(joint, None, num_fwd_outputs=n, memory_limit="1TiB")
    assert not fw.meta.get(_fusion.CHAINS)


def test_the_post_grad_order_keeps_each_pointwise_chain_together(monkeypatch):
    """The post-grad pass orders a graph cut with recomputations with its chains as one op each,
    as the partition planned it. Ordered link by link, the planner put links apart, Inductor gave
    the distant ones buffers of their own, and mobilenet_v2's least limit measured 35.2-39.9 MB
    against 30.96 planned (30.95 MB with this). And in the partition's order (``program``):
    re-planned alone, the 4-block GPT's backward at 29,046,583 bytes ran its LayerNorm
    recomputations first, fused into one kernel, and measured 29.83 MB (28.25 MB kept)."""
    from peakorder.torch import _fusion, _inductor, _pointwise, _reorder

    joint, _ = joint_of(gelu_mlp_loss, *gelu_mlp_args())
    graph = joint.graph
    exported, _env = peakorder._fx.export_fx(graph)
    _, chains = _pointwise.collapse_graph(exported, {n.name: n for n in graph.nodes}, {})
    assert chains
    planned, methods = [], []
    real_plan = _reorder.plan
    monkeypatch.setattr(_reorder, "plan",
                        lambda g, opts: planned.append(g) or methods.append(opts.get("method")) or real_plan(g, opts))
    # As the partitioner marks a graph it cut with recomputations whose plan needs its chains fused.
    joint.meta[_fusion.MARK] = joint.meta[_fusion.CHAINS] = True
    _inductor._graph_pass_class()({})(graph)
    # The planner saw each chain as one op; the graph runs each chain's links one after another.
    assert {o["id"] for o in planned[0]["ops"] if o.get("kind") == "pointwise chain"} == set(chains)
    assert methods == ["program"]
    pos = {n.name: i for i, n in enumerate(graph.nodes)}
    for links in chains.values():
        at = sorted(pos[m] for m in links)
        assert at == list(range(at[0], at[0] + len(links))), (links, at)


def test_backend_at_three_limits_gives_eager_gradients_within_the_limit():
    """backend(memory_limit=...): AOTAutograd + fx, no fusion: the allocator measures the plan."""
    rows = [tb.one("gpt-small", c) for c in ("backend:1TiB", "backend:min")]
    top, low = rows
    assert low["peak_bytes"] < 0.8 * top["peak_bytes"]
    mid = tb.one("gpt-small", "backend:" + str(int((top["peak_bytes"] + low["peak_bytes"]) / 2)))
    for r in (top, mid, low):
        assert r["grads_ok"], r
    assert mid["peak_bytes"] <= 1.02 * int((top["peak_bytes"] + low["peak_bytes"]) / 2)
    assert low["peak_bytes"] <= mid["peak_bytes"] <= top["peak_bytes"]


@needs_partitioner
def test_inductor_at_three_limits_monotone_eager_gradients():
    top = tb.one("gpt-small", "ours:1TiB")
    low = tb.one("gpt-small", "ours:min")
    mid_limit = (top["limit_bytes"] if top["limit_bytes"] < 2**40 else top["planned_bytes"])
    mid_limit = int((mid_limit + low["limit_bytes"]) / 2)
    mid = tb.one("gpt-small", f"ours:{mid_limit}")
    for r in (top, mid, low):
        assert r["grads_ok"], r
        assert r["planned_bytes"] <= r["limit_bytes"], r
    assert mid["peak_bytes"] <= INDUCTOR_SLACK * mid_limit, mid
    assert low["peak_bytes"] <= INDUCTOR_SLACK * low["limit_bytes"], low
    assert low["peak_bytes"] <= mid["peak_bytes"] <= top["peak_bytes"]
    assert low["recomputed_flops"] >= mid["recomputed_flops"] >= top["recomputed_flops"] == 0


@needs_partitioner
def test_inductor_least_limit_where_distant_vertical_fusion_undid_the_plan():
    """The 2-block GPT at its least limit planned with a 1 s budget: destroy and repair's schedule
    places recomputations early in the backward, and Inductor fused them into readers 40-70
    nodes later, keeping their inputs live across the other block's backward (torch 2.9.1: 1.476
    of the limit; peakorder/torch/_fusion.py now vetoes distant vertical fusions)."""
    r = tb.one("gpt-small", "ours:min/budget=1000")
    assert r["grads_ok"], r
    assert r["planned_bytes"] <= r["limit_bytes"], r
    assert r["peak_bytes"] <= LEAST_SLACK * r["limit_bytes"], r


@needs_partitioner
def test_inductor_saved_least_limit_schedule_where_a_reduction_fusion_undid_the_plan():
    """A least-limit schedule of the 2-block GPT that destroy and repair found at a budget of
    80 ms on torch 2.9.1 (the clock decides which; saved in data/, so that it is measured every
    time): a LayerNorm output recomputed for a weight gradient fused with a LayerNorm backward
    100 nodes later when horizontal fusions with a reduction were exempt from the veto
    (peakorder/torch/_fusion.py), and the weight gradient ran after the other block's
    recomputation: 7,188,104 bytes against 6,055,436 planned (1.187); 5,674,120 without it."""
    # The joint graph is torch's decomposition, which differs between versions: a plan is for one.
    major, minor = torch_version()[:2]
    plan = os.path.join(os.path.dirname(__file__), "data", f"gpt-small-least-limit-plan-torch-{major}.{minor}.json")
    if not os.path.exists(plan):
        pytest.skip(f"no saved plan for torch {major}.{minor}")
    r = tb.one("gpt-small", f"ours:min/plan={plan}")
    assert r["grads_ok"], r
    assert r["planned_bytes"] == 6055436 == r["limit_bytes"], r
    assert r["peak_bytes"] <= LEAST_SLACK * r["limit_bytes"], r


@needs_partitioner
def test_inductor_gpt_gradients_where_unfused_reductions_went_wrong():
    """The 4-block GPT at the limit where vetoing a reduction's horizontal fusion gave wrong
    LayerNorm gradients (peakorder/torch/_fusion.py)."""
    r = tb.one("gpt", "ours:30290948")
    assert r["grads_ok"], r
    assert r["peak_bytes"] <= INDUCTOR_SLACK * 30290948, r


@needs_partitioner
def test_inductor_gpt_least_limit_within_two_percent():
    """The 4-block GPT at its least limit: with Inductor's buffer reuse a backward buffer waited
    for a same-sized allocation past its last use, and the step measured 1.139 of the limit
    (peakorder/torch/_inductor.py, allow_buffer_reuse)."""
    r = tb.one("gpt", "ours:min")
    assert r["grads_ok"], r
    assert r["planned_bytes"] <= r["limit_bytes"], r
    assert r["peak_bytes"] <= LEAST_SLACK * r["limit_bytes"], r


def test_infeasible_limit_names_the_least_and_leaves_the_graph():
    joint, n = joint_of(mlp_loss, *mlp_args())
    before = str(joint.graph)
    with pytest.raises(peakorder.PeakorderError) as e:
        _partition.partition(joint, None, num_fwd_outputs=n, memory_limit=1)
    assert e.value.code == "infeasible"
    assert "least limit" in str(e.value)
    assert str(joint.graph) == before


@needs_partitioner
def test_infeasible_limit_is_raised_at_compile_time():
    fn = torch.compile(mlp_loss, options=pt.inductor_options(memory_limit=1))
    torch._dynamo.reset()
    with pytest.raises(Exception) as e:
        fn(*mlp_args())
    chain, err = [], e.value
    while err is not None:
        chain.append(err)
        err = err.__cause__ or err.__context__
    coded = [x for x in chain if isinstance(x, peakorder.PeakorderError)]
    assert coded and coded[0].code == "infeasible", chain


def test_symbolic_graph_warns_and_keeps_pytorchs_partition():
    args = mlp_args()
    torch._dynamo.reset()
    fn = torch.compile(mlp_loss, backend=pt.backend(memory_limit="min"), dynamic=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn(*args)
        out.backward()
    assert any("keeps PyTorch's partition" in str(x.message) for x in w)
    ref = mlp_loss(*[a.detach().requires_grad_(a.requires_grad) for a in args])
    assert torch.allclose(out, ref)
