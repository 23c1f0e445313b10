"""Plans with a memory limit and schedules with repeats (docs/design.md §1 "Recomputation", §3
"Plans with a memory limit"), in-process: ``memory_limit_bytes`` as an int or text, the plan's
added fields, ``simulate`` of schedules, and the coded errors for bad input (costs, recompute
flags, malformed limits, limits below the least limit), never a panic; and the same results as
the CLI where it has the flags. The planner is the core's: these tests hold for any schedule it
returns, checking it with the simulator, and pin numbers only where every valid answer has them."""

import json
import math
import pickle

import pytest

import peakorder
from conftest import case, cli

FORK = case("fork-join.json")

PLAN_FIELDS = ["order", "peak_bytes", "inputs_bytes", "lower_bound_bytes", "optimal", "proof",
               "lower_bound_by", "method", "program_order_peak_bytes", "elapsed_ms"]
# docs/design.md §3, in the order the CLI prints them.
LIMIT_FIELDS = ["memory_limit_bytes", "recompute_method", "added_cost", "added_cost_lower_bound",
                "runs", "least_limit_bytes", "least_limit_lower_bound_bytes", "least_limit_op"]


def keep_or_redo(**costs):
    """core/src/recompute/schedule.rs's example: keeping ``a`` over C (100 bytes of workspace)
    peaks at 221; running A again for D peaks at 121, the least any schedule reaches."""
    def op(i, inputs, outputs, **extra):
        o = {"id": i, "inputs": inputs, "outputs": outputs, **extra}
        if i in costs:
            o["cost"] = costs[i]
        return o
    return {
        "tensors": [{"id": "x", "bytes": 1}, {"id": "a", "bytes": 100}, {"id": "b", "bytes": 10},
                    {"id": "c", "bytes": 10}, {"id": "d", "bytes": 1}],
        "ops": [op("A", ["x"], ["a"]), op("B", ["a"], ["b"]), op("C", ["b"], ["c"], workspace=100),
                op("D", ["a", "c"], ["d"])],
        "outputs": ["d"],
    }


def check_limited_plan(g, p, limit):
    """Everything a plan with a limit must satisfy, whichever schedule the planner chose."""
    assert list(p) == PLAN_FIELDS + LIMIT_FIELDS
    assert p["memory_limit_bytes"] == limit
    assert p["peak_bytes"] <= limit
    assert peakorder.simulate(g, p)["peak_bytes"] == p["peak_bytes"]
    counts = {}
    for i in p["order"]:
        counts[i] = counts.get(i, 0) + 1
    assert p["runs"] == {i: k for i, k in counts.items() if k > 1}
    cost = {o["id"]: o.get("cost", 1) for o in g["ops"]}
    added = sum((k - 1) * cost[i] for i, k in p["runs"].items())
    assert math.isclose(p["added_cost"], added, rel_tol=1e-9, abs_tol=1e-12)
    assert p["added_cost_lower_bound"] <= p["added_cost"]
    if p["optimal"]:
        assert p["added_cost"] == p["added_cost_lower_bound"]
    assert p["least_limit_lower_bound_bytes"] <= p["least_limit_bytes"] <= p["peak_bytes"]
    assert p["lower_bound_bytes"] <= p["peak_bytes"] and p["lower_bound_by"] == "recompute"
    assert p["recompute_method"] in ("order", "exact", "revolve", "evict", "repair")
    if p["recompute_method"] == "order":
        assert p["added_cost"] == 0 and p["runs"] == {}
    assert p["least_limit_op"] is None or p["least_limit_op"] in cost


# --- plans ------------------------------------------------------------------------------------


def test_without_a_limit_nothing_changes():
    p = peakorder.plan(keep_or_redo())
    assert list(p) == PLAN_FIELDS and p["peak_bytes"] == 221


@pytest.mark.parametrize("limit", [221, 1000, 2**40])
def test_a_limit_an_order_meets_recomputes_nothing(limit):
    g = keep_or_redo()
    p = peakorder.plan(g, memory_limit_bytes=limit)
    check_limited_plan(g, p, limit)
    assert (p["recompute_method"], p["proof"], p["optimal"]) == ("order", "order", True)
    assert p["order"] == ["A", "B", "C", "D"]
    assert (p["least_limit_lower_bound_bytes"], p["least_limit_op"]) == (121, "C")


@pytest.mark.parametrize("limit", [121, 150, 220])
def test_a_limit_below_every_order_runs_a_again(limit):
    g = keep_or_redo(A=5)
    p = peakorder.plan(g, memory_limit_bytes=limit, budget_ms=1e9, max_states=200_000)
    check_limited_plan(g, p, limit)
    # Only one thing helps: A again before D (5 per run); on 4 ops the exact search proves it.
    assert p["order"] == ["A", "B", "C", "A", "D"] and p["runs"] == {"A": 2}
    assert (p["added_cost"], p["added_cost_lower_bound"], p["optimal"]) == (5, 5, True)
    assert (p["recompute_method"], p["proof"]) == ("exact", "exact")
    assert p["least_limit_bytes"] == 121


def chain_train(n, size=8):
    """core/src/generators/chain_train.rs: forward f1..fn, a loss against a donated target,
    backward bn..b1, every tensor ``size`` bytes; ``size * (s + 3)`` gives s activation slots."""
    tensors = [{"id": "a0", "bytes": size}, {"id": "y", "bytes": size, "donated": True}]
    ops = []
    for i in range(1, n + 1):
        tensors.append({"id": f"a{i}", "bytes": size})
        ops.append({"id": f"f{i}", "inputs": [f"a{i - 1}"], "outputs": [f"a{i}"]})
    tensors.append({"id": f"g{n}", "bytes": size})
    ops.append({"id": "loss", "inputs": [f"a{n}", "y"], "outputs": [f"g{n}"]})
    for i in range(n, 0, -1):
        tensors.append({"id": f"g{i - 1}", "bytes": size})
        ops.append({"id": f"b{i}", "inputs": [f"a{i - 1}", f"g{i}"], "outputs": [f"g{i - 1}"]})
    return {"tensors": tensors, "ops": ops, "outputs": ["g0"]}


def test_a_training_chain_gets_revolves_optimum_falling_with_the_limit():
    n = 12
    g = chain_train(n)
    costs = []
    for slots in range(1, n + 1):
        p = peakorder.plan(g, memory_limit_bytes=8 * (slots + 3))
        check_limited_plan(g, p, 8 * (slots + 3))
        assert p["optimal"], slots
        if p["added_cost"] > 0:
            assert p["recompute_method"] == "revolve"
        costs.append(p["added_cost"])
    assert costs == sorted(costs, reverse=True) and costs[0] > 0 and costs[-1] == 0
    with pytest.raises(peakorder.InfeasibleError):
        peakorder.plan(g, memory_limit_bytes=8 * 4 - 1)
    with pytest.raises(peakorder.MethodError) as e:
        peakorder.plan(keep_or_redo(), memory_limit_bytes=150, recompute_method="revolve")
    assert e.value.code == "not_applicable"


class Index:
    """An integer type that is not an int (numpy's, torch's): it has __index__."""

    def __init__(self, n):
        self.n = n

    def __index__(self):
        return self.n


def test_the_limit_is_an_int_or_text_with_a_unit():
    g = json.loads(FORK.read_text())
    base = peakorder.plan(g, memory_limit_bytes=64 << 20)
    for limit in ["64MiB", " 64 MiB ", str(64 << 20), Index(64 << 20)]:
        p = peakorder.plan(g, memory_limit_bytes=limit)
        check_limited_plan(g, p, 64 << 20)
        assert p["order"] == base["order"]
    assert peakorder.plan(g, memory_limit_bytes="0.5GiB")["memory_limit_bytes"] == 1 << 29
    assert peakorder.plan(g, memory_limit_bytes="8GB")["memory_limit_bytes"] == 8_000_000_000
    # Beyond 2^53 and up to 2^64 - 1: Python ints hold it exactly.
    assert peakorder.plan(g, memory_limit_bytes=2**64 - 1)["memory_limit_bytes"] == 2**64 - 1
    assert peakorder.plan(g, memory_limit_bytes="16TiB")["memory_limit_bytes"] == 16 << 40
    # Every graph form, and the limit at the order's own peak.
    free = peakorder.plan(FORK)
    at = peakorder.plan(str(FORK), memory_limit_bytes=free["peak_bytes"])
    assert at["order"] == free["order"] and at["recompute_method"] == "order"


@pytest.mark.parametrize("bad", ["12 parsecs", "", "MiB", "-1MiB", "1.2.3", "nan", "1e3",
                                 "99999999999999999999"])
def test_malformed_limit_text_is_bad_limit_naming_it(bad):
    with pytest.raises(peakorder.ArgumentError) as e:
        peakorder.plan(keep_or_redo(), memory_limit_bytes=bad)
    assert (e.value.code, e.value.value) == ("bad_limit", bad)
    assert json.dumps(bad) in str(e.value)
    assert isinstance(e.value, TypeError)


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, 1e9, float("nan"), float("inf"), True, [1], {}, b"64MiB"])
def test_a_limit_of_another_kind_is_bad_limit_naming_it(bad):
    with pytest.raises(peakorder.ArgumentError) as e:
        peakorder.plan(keep_or_redo(), memory_limit_bytes=bad)
    assert e.value.code == "bad_limit"
    assert e.value.value == repr(bad) and repr(bad) in str(e.value)


@pytest.mark.parametrize("limit", [120, 50, 0, "100B"])
def test_a_limit_below_the_least_limit_is_infeasible_with_its_numbers(limit):
    with pytest.raises(peakorder.InfeasibleError) as e:
        peakorder.plan(keep_or_redo(), memory_limit_bytes=limit)
    err = e.value
    assert isinstance(err, peakorder.PeakorderError) and err.code == "infeasible"
    assert err.limit_bytes == (100 if limit == "100B" else limit)
    assert (err.least_limit_bytes, err.least_limit_lower_bound_bytes, err.op) == (121, 121, "C")
    assert '"C"' in str(err) and "121 bytes" in str(err)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is peakorder.InfeasibleError
    assert (back.limit_bytes, back.least_limit_bytes, back.op, str(back)) == (err.limit_bytes, 121, "C", str(err))


@pytest.mark.parametrize("method", ["auto", "exact", "revolve", "evict", "repair"])
def test_every_recompute_method_of_the_core(method):
    g = keep_or_redo()
    p = peakorder.plan(g, memory_limit_bytes=1000, recompute_method=method)
    assert p["recompute_method"] == "order", "an order that fits comes first"
    try:
        check_limited_plan(g, peakorder.plan(g, memory_limit_bytes=150, recompute_method=method), 150)
    except peakorder.PeakorderError as e:
        assert e.code in ("infeasible", "not_applicable"), str(e)


def test_recompute_method_is_checked():
    g = keep_or_redo()
    with pytest.raises(peakorder.MethodError) as e:
        peakorder.plan(g, memory_limit_bytes=150, recompute_method="magic")
    assert e.value.code == "unknown_method" and "magic" in str(e.value) and "evict" in str(e.value)
    with pytest.raises(peakorder.ArgumentError) as e:
        peakorder.plan(g, memory_limit_bytes=150, recompute_method=1)
    assert e.value.code == "invalid_argument" and "recompute_method" in str(e.value)
    with pytest.raises(peakorder.ArgumentError) as e:
        peakorder.plan(g, recompute_method="evict")
    assert e.value.code == "invalid_argument" and "memory_limit_bytes" in str(e.value)


def test_recompute_false_ops_are_never_run_again():
    g = keep_or_redo()
    g["ops"][0]["recompute"] = False
    with pytest.raises(peakorder.InfeasibleError) as e:
        peakorder.plan(g, memory_limit_bytes=150)
    assert e.value.least_limit_bytes > 150
    check_limited_plan(g, peakorder.plan(g, memory_limit_bytes=221), 221)


# --- bad graphs -------------------------------------------------------------------------------


@pytest.mark.parametrize("extra, code", [
    ({"cost": -1}, "invalid_op"),
    ({"cost": -1e-9}, "invalid_op"),
    ({"cost": float("nan")}, "invalid_op"),
    ({"cost": float("inf")}, "invalid_op"),
    ({"cost": float("-inf")}, "invalid_op"),
    ({"cost": "cheap"}, "bad_json"),
    ({"cost": [1]}, "bad_json"),
    ({"recompute": "no"}, "bad_json"),
    ({"recompute": 0}, "bad_json"),
])
def test_bad_costs_and_recompute_flags_are_coded_errors_naming_the_op(extra, code):
    g = keep_or_redo()
    g["ops"][1].update(extra)
    calls = [
        lambda: peakorder.validate(g),
        lambda: peakorder.plan(g),
        lambda: peakorder.plan(g, memory_limit_bytes=150),
        lambda: peakorder.simulate(g, ["A", "B", "C", "D"]),
        lambda: peakorder.compare(g),
    ]
    for call in calls:
        with pytest.raises(peakorder.GraphError) as e:
            call()
        assert e.value.code == code and '"B"' in str(e.value), str(e.value)
        if code == "invalid_op":
            assert e.value.op == "B" and "cost" in str(e.value)


def test_a_non_finite_cost_reads_as_the_cores_message():
    g = keep_or_redo()
    g["ops"][1]["cost"] = float("nan")
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.plan(g)
    assert str(e.value) == 'op "B": `cost` must be a finite non-negative number, got NaN'
    # What the CLI says for a negative one, the same words.
    g["ops"][1]["cost"] = -2.5
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.plan(g)
    assert str(e.value) == 'op "B": `cost` must be a finite non-negative number, got -2.5'
    # A NaN elsewhere is still bad JSON.
    g = keep_or_redo()
    g["tensors"][0]["bytes"] = float("nan")
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.plan(g)
    assert e.value.code == "bad_json"


def test_good_costs_and_flags_plan():
    g = keep_or_redo(A=0, B=1e30)
    g["ops"][2]["recompute"] = False
    assert peakorder.plan(g)["peak_bytes"] == 221
    check_limited_plan(g, peakorder.plan(g, memory_limit_bytes=1000), 1000)


# --- simulate ---------------------------------------------------------------------------------


def test_simulate_frees_a_schedule_as_docs_design_says():
    g = keep_or_redo()
    assert peakorder.simulate(g, ["A", "B", "C", "D"])["peak_bytes"] == 221
    s = peakorder.simulate(g, ["A", "B", "C", "A", "D"])
    assert [(x["op"], x["during_bytes"], x["after_bytes"]) for x in s["steps"]] == [
        ("A", 101, 101), ("B", 111, 11), ("C", 121, 11), ("A", 111, 111), ("D", 112, 2),
    ]
    assert (s["peak_bytes"], s["peak_step"], s["live_at_peak"]) == (121, 2, ["x", "b", "c"])
    # A plan with a limit is a schedule: it simulates as given, in every order form.
    p = peakorder.plan(g, memory_limit_bytes=1000)
    assert peakorder.simulate(json.dumps(g), json.dumps(p))["peak_bytes"] == p["peak_bytes"]


def test_simulate_refuses_stale_views_and_single_run_ops_again():
    g = {
        "tensors": [{"id": "x", "bytes": 1}, {"id": "a", "bytes": 8}, {"id": "v", "alias_of": "a"},
                    {"id": "y", "bytes": 1}],
        "ops": [{"id": "A", "inputs": ["x"], "outputs": ["a"]},
                {"id": "V", "inputs": ["a"], "outputs": ["v"]},
                {"id": "Y", "inputs": ["v"], "outputs": ["y"]}],
        "outputs": ["y"],
    }
    with pytest.raises(peakorder.OrderError) as e:
        peakorder.simulate(g, ["A", "V", "A", "Y"])
    assert (e.value.code, e.value.op, e.value.tensor, e.value.alias_of) == ("stale_view", "Y", "v", "a")
    assert peakorder.simulate(g, ["A", "V", "A", "V", "Y"])["peak_bytes"] == 10
    g["ops"][0]["recompute"] = False
    with pytest.raises(peakorder.OrderError) as e:
        peakorder.simulate(g, ["A", "V", "A", "V", "Y"])
    assert (e.value.code, e.value.op, e.value.runs) == ("not_recomputable", "A", 2)


# --- the CLI ----------------------------------------------------------------------------------


def _cli_takes(*args):
    """Whether the CLI runs ``args`` (builds without the recompute surfaces refuse them)."""
    return cli(*args, check=False).returncode == 0


@pytest.fixture
def doc_graph(tmp_path):
    path = tmp_path / "keep-or-redo.json"
    path.write_text(json.dumps(keep_or_redo(A=3, B=0.5)))
    return path


def without_time(d):
    return {k: v for k, v in d.items() if k != "elapsed_ms"}


def test_limited_plans_are_the_clis(doc_graph):
    if not _cli_takes("plan", doc_graph, "--memory-limit", "1000", "--json"):
        pytest.skip("this peakorder CLI has no --memory-limit")
    for limit in ["121", "150", "221", "64KiB"]:
        args = ["--json", "--memory-limit", limit, "--budget-ms", "1000000000", "--max-states", "200000"]
        native = json.loads(cli("plan", doc_graph, *args).stdout)
        p = peakorder.plan(doc_graph, memory_limit_bytes=limit, budget_ms=1e9, max_states=200_000)
        assert without_time(p) == without_time(native), limit
    # The same refusal, in the same words.
    r = cli("plan", doc_graph, "--memory-limit", "120", check=False)
    assert r.returncode == 2
    with pytest.raises(peakorder.InfeasibleError) as e:
        peakorder.plan(doc_graph, memory_limit_bytes=120)
    assert str(e.value) in r.stderr


def test_schedules_simulate_as_the_cli_simulates_them(doc_graph, tmp_path):
    sched = tmp_path / "schedule.json"
    sched.write_text(json.dumps(["A", "B", "C", "A", "D"]))
    if not _cli_takes("simulate", doc_graph, sched, "--json"):
        pytest.skip("this peakorder CLI refuses schedules")
    for s in (["A", "B", "C", "A", "D"], ["A", "A", "B", "C", "D"], ["A", "B", "C", "D"]):
        sched.write_text(json.dumps(s))
        assert peakorder.simulate(doc_graph, s) == json.loads(cli("simulate", doc_graph, sched, "--json").stdout)


def test_parse_bytes_reads_limits_as_plan_does():
    assert peakorder.parse_bytes("64MiB") == 64 * 2**20
    assert peakorder.parse_bytes("1.5GB") == 1_500_000_000
    assert peakorder.parse_bytes(4096) == 4096
    for bad in ("lots", -1, 2.5, True):
        with pytest.raises(peakorder.PeakorderError) as e:
            peakorder.parse_bytes(bad)
        assert e.value.code == "bad_limit"
