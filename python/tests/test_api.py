"""The in-process calls (plan, simulate, compare, fuse, validate, dtype sizes), each option, and
every form a graph or an order may take, checked against the CLI (`--json`) on the same input."""

import json
import math
import pathlib
import re
import sys

import pytest

import peakorder
from conftest import REPO, case, cli

SEED = case("nvfuser-seed-breadth.json")
FORK = case("fork-join.json")
WIDE = REPO / "tests" / "hard" / "wide-dag-100.json"

# Methods whose result is the same on every run (no clock involved on these small graphs).
DETERMINISTIC = ["program", "greedy", "sp", "spize", "inductor", "xla", "liu"]
ALL_METHODS = ["program", "greedy", "sp", "spize", "local", "inductor", "xla", "liu", "exact", "auto"]


def without_time(d):
    """A result without its timings (they differ from run to run)."""
    if isinstance(d, dict):
        return {k: without_time(v) for k, v in d.items() if k != "elapsed_ms"}
    if isinstance(d, list):
        return [without_time(v) for v in d]
    return d


def cli_json(*args):
    return json.loads(cli(*args, "--json").stdout)


# --- graphs in every form -------------------------------------------------------------------


def graph_forms(path):
    text = path.read_text()
    return {
        "dict": json.loads(text),
        "json text": text,
        "json text after spaces": "\n  " + text,
        "bytes": text.encode(),
        "bytearray": bytearray(text.encode()),
        "str path": str(path),
        "pathlib path": pathlib.Path(path),
    }


@pytest.mark.parametrize("form", list(graph_forms(FORK)))
def test_every_graph_form_gives_the_same_plan(form):
    p = peakorder.plan(graph_forms(FORK)[form], method="greedy")
    assert without_time(p) == without_time(cli_json("plan", FORK, "--method", "greedy"))


def test_the_seed_is_planned_optimally():
    p = peakorder.plan(SEED)
    assert p["peak_bytes"] == 3_670_016 and p["optimal"] is True
    assert p["inputs_bytes"] == 2_883_584 and p["program_order_peak_bytes"] == 5_767_168
    assert list(p) == ["order", "peak_bytes", "inputs_bytes", "lower_bound_bytes", "optimal",
                       "proof", "lower_bound_by", "method", "program_order_peak_bytes",
                       "elapsed_ms"]
    assert p.keys() == cli_json("plan", SEED).keys()
    assert isinstance(p["elapsed_ms"], float) and p["elapsed_ms"] >= 0


def test_dict_graphs_accept_numpy_like_integers_and_tuples():
    class Index:  # what numpy and torch integers offer
        def __init__(self, v):
            self.v = v

        def __index__(self):
            return self.v

    g = {"tensors": [{"id": "x", "shape": (Index(4), 4), "dtype": "f32"}, {"id": "y", "bytes": Index(8)}],
         "ops": [{"id": "a", "inputs": ("x",), "outputs": ["y"]}], "outputs": ["y"]}
    assert peakorder.plan(g)["peak_bytes"] == 64 + 8


def test_a_graph_that_is_not_json_is_bad_json():
    for g, why in [({"tensors": [{"id": "x", "bytes": 1.5e400}]}, "cannot be converted to JSON"),
                   ({"tensors": [{"id": "x", "bytes": math.nan}]}, "cannot be converted to JSON"),
                   ({"tensors": [object()]}, "object"),
                   (b"\xff{}", "UTF-8")]:
        with pytest.raises(peakorder.GraphError) as e:
            peakorder.plan(g)
        assert e.value.code == "bad_json" and why in str(e.value), str(e.value)
    cyclic = {"ops": []}
    cyclic["ops"].append(cyclic)
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.plan(cyclic)
    assert e.value.code == "bad_json"


def test_a_graph_of_another_type_is_an_argument_error():
    for g in (42, None, ["not", "a", "graph"]):
        with pytest.raises(peakorder.ArgumentError) as e:
            peakorder.plan(g)
        assert e.value.code == "invalid_argument" and isinstance(e.value, TypeError)


def test_a_missing_file_is_the_os_error():
    with pytest.raises(FileNotFoundError):
        peakorder.plan(REPO / "tests" / "cases" / "no-such-graph.json")
    with pytest.raises(FileNotFoundError):
        peakorder.plan("no-such-graph.json")


def test_a_non_utf8_file_is_bad_json(tmp_path):
    f = tmp_path / "latin1.json"
    f.write_bytes(b'{"tensors": [{"id": "\xe9", "bytes": 1}], "ops": [], "outputs": []}')
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.plan(f)
    assert e.value.code == "bad_json" and "UTF-8" in str(e.value) and "latin1.json" in str(e.value)


# --- plan and its options -------------------------------------------------------------------


@pytest.mark.parametrize("method", ALL_METHODS)
def test_every_method_matches_the_cli(method):
    graph = case("series-parallel-150.json") if method != "liu" else SEED  # an in-forest
    p = peakorder.plan(graph, method)
    c = cli_json("plan", graph, "--method", method)
    assert p["method"] == method
    if method in DETERMINISTIC:
        assert without_time(p) == without_time(c)
    else:
        # Searches read the clock; both must prove the same optimum on this easy graph.
        assert p["peak_bytes"] == c["peak_bytes"] and p["optimal"] == c["optimal"]
    assert peakorder.simulate(graph, p["order"])["peak_bytes"] == p["peak_bytes"]


def test_method_may_be_given_by_keyword_and_budget_positionally():
    assert peakorder.plan(FORK, "program", 5)["peak_bytes"] == 209
    assert peakorder.plan(FORK, method="program", budget_ms=5.5)["peak_bytes"] == 209


def test_max_states_caps_the_search_like_the_cli():
    # With a state cap and a budget too large to matter, the exact search is deterministic.
    args = dict(method="exact", budget_ms=600_000, max_states=2_000)
    p = peakorder.plan(WIDE, **args)
    c = cli_json("plan", WIDE, "--method", "exact", "--budget-ms", "600000", "--max-states", "2000")
    assert without_time(p) == without_time(c)
    assert p["optimal"] is False and p["lower_bound_bytes"] < p["peak_bytes"]


def test_max_memory_mb_caps_the_state_table_like_the_cli():
    args = ["--method", "exact", "--budget-ms", "600000", "--max-states", "100000000", "--max-memory-mb", "0"]
    p = peakorder.plan(WIDE, method="exact", budget_ms=600_000, max_states=100_000_000, max_memory_mb=0)
    assert without_time(p) == without_time(cli_json("plan", WIDE, *args))
    assert p["optimal"] is False and p["elapsed_ms"] < 10_000


def test_budget_ms_bounds_the_search():
    p = peakorder.plan(WIDE, method="exact", budget_ms=50, max_states=10**12)
    assert p["optimal"] is False and p["elapsed_ms"] < 2_000
    assert peakorder.plan(WIDE, method="exact", budget_ms=0)["optimal"] is False


@pytest.mark.parametrize("name,value", [
    ("budget_ms", -1), ("budget_ms", math.nan), ("budget_ms", math.inf), ("budget_ms", "100"),
    ("budget_ms", True), ("max_states", -1), ("max_states", 1.5), ("max_states", 2**64),
    ("max_states", "10"), ("max_states", False), ("max_memory_mb", -5), ("max_memory_mb", 2.0),
])
def test_bad_option_values_are_argument_errors_naming_the_option(name, value):
    with pytest.raises(peakorder.ArgumentError) as e:
        peakorder.plan(FORK, **{name: value})
    assert e.value.code == "invalid_argument" and name in str(e.value)


def test_whole_options_accept_index_types():
    class Index:
        def __index__(self):
            return 1000

    assert peakorder.plan(FORK, method="exact", max_states=Index(), max_memory_mb=Index())["peak_bytes"] == 110


def test_an_unknown_method_names_it_and_the_known_ones():
    with pytest.raises(peakorder.MethodError) as e:
        peakorder.plan(FORK, "magic")
    assert e.value.code == "unknown_method" and '"magic"' in str(e.value) and "greedy" in str(e.value)
    with pytest.raises(peakorder.ArgumentError) as e:
        peakorder.plan(FORK, 7)
    assert "method must be a string" in str(e.value)


def test_a_bad_graph_is_reported_before_a_bad_method_as_by_the_cli():
    with pytest.raises(peakorder.GraphError):
        peakorder.plan(case("invalid/cycle.json"), "magic")


def test_a_method_that_does_not_apply_says_why():
    diamond = case("diamond.json")
    with pytest.raises(peakorder.MethodError) as e:
        peakorder.plan(diamond, "liu")
    assert e.value.code == "not_applicable" and "in-forest" in str(e.value)
    assert str(e.value) in cli("plan", diamond, "--method", "liu", check=False).stderr


# --- simulate ---------------------------------------------------------------------------------

ORDER = ["p1", "q1", "p2", "q2", "j"]


def order_forms(tmp_path):
    plan = {"order": ORDER, "peak_bytes": 110}
    f = tmp_path / "order.json"
    f.write_text(json.dumps(ORDER))
    pf = tmp_path / "plan.json"
    pf.write_text(json.dumps(plan))
    return [ORDER, tuple(ORDER), plan, json.dumps(ORDER), " " + json.dumps(plan),
            json.dumps(ORDER).encode(), str(f), pf]


def test_simulate_matches_the_cli_for_every_order_form(tmp_path):
    f = tmp_path / "order.json"
    f.write_text(json.dumps(ORDER))
    want = cli_json("simulate", FORK, f)
    assert list(want) == ["peak_bytes", "inputs_bytes", "peak_step", "live_at_peak", "steps"]
    for order in order_forms(tmp_path):
        got = peakorder.simulate(FORK, order)
        assert got == want, order
    assert got["peak_bytes"] == 110 and got["peak_step"] == 3 and got["steps"][3]["op"] == "q2"


def test_simulate_takes_a_plan_from_plan():
    p = peakorder.plan(SEED)
    s = peakorder.simulate(SEED, p)
    assert s["peak_bytes"] == p["peak_bytes"] == 3_670_016


def test_simulate_refuses_orders_that_do_not_fit_the_graph():
    cases = [
        (["p1", "q1", "p2", "q2", "nope"], "unknown_op", "nope", None),
        (["p1", "q1", "p2", "q2"], "missing_op", "j", None),
        (["q1", "p1", "p2", "q2", "j"], "not_topological", "q1", "h1"),
    ]
    for order, code, op, tensor in cases:
        with pytest.raises(peakorder.OrderError) as e:
            peakorder.simulate(FORK, order)
        assert (e.value.code, e.value.op, e.value.tensor) == (code, op, tensor), str(e.value)


def test_simulate_takes_a_schedule_that_runs_an_op_again():
    # A repeat is a schedule (docs/design.md §1 "Recomputation"): p1's first h1 is read by
    # nothing before p1 runs again, so it is freed at once; the second is q1's.
    s = peakorder.simulate(FORK, ["p1", "p1", "q1", "p2", "q2", "j"])
    assert [(x["op"], x["during_bytes"], x["after_bytes"]) for x in s["steps"]] == [
        ("p1", 108, 8), ("p1", 108, 108), ("q1", 109, 9), ("p2", 109, 109), ("q2", 110, 10),
        ("j", 11, 9),
    ]
    assert (s["peak_bytes"], s["peak_step"]) == (110, 4)
    # An op that must run once may not run again.
    g = json.loads(FORK.read_text())
    g["ops"][0]["recompute"] = False
    with pytest.raises(peakorder.OrderError) as e:
        peakorder.simulate(g, ["p1", "p1", "q1", "p2", "q2", "j"])
    assert (e.value.code, e.value.op, e.value.runs) == ("not_recomputable", "p1", 2), str(e.value)
    assert peakorder.simulate(g, ORDER)["peak_bytes"] == 110


@pytest.mark.parametrize("order", [[1, 2], {"steps": []}, 5, ["p1", None], "[1, 2]", '{"order": "p1"}'])
def test_simulate_refuses_orders_of_the_wrong_shape(order):
    with pytest.raises(peakorder.ArgumentError) as e:
        peakorder.simulate(FORK, order)
    assert e.value.code == "invalid_argument" and "order" in str(e.value)


def test_simulate_refuses_bad_json_orders():
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.simulate(FORK, "[\"p1\",")
    assert e.value.code == "bad_json" and "order" in str(e.value)


# --- compare ----------------------------------------------------------------------------------


def test_compare_matches_the_cli():
    got = peakorder.compare(SEED)
    want = cli_json("compare", SEED)
    assert list(got) == ["lower_bound_bytes", "lower_bound_by", "inputs_bytes", "methods"]
    assert [m["method"] for m in got["methods"]] == ALL_METHODS
    assert got["lower_bound_bytes"] == want["lower_bound_bytes"] == 3_670_016
    for g, w in zip(got["methods"], want["methods"]):
        assert (g["method"], g["peak_bytes"], g["optimal"], g.get("error")) == \
            (w["method"], w["peak_bytes"], w["optimal"], w.get("error"))
    liu = peakorder.compare(case("diamond.json"))["methods"][ALL_METHODS.index("liu")]
    assert liu["peak_bytes"] is None and "in-forest" in liu["error"]


def test_compare_options_apply_to_every_method():
    got = peakorder.compare(WIDE, budget_ms=600_000, max_states=500, max_memory_mb=64)
    want = cli_json("compare", WIDE, "--budget-ms", "600000", "--max-states", "500", "--max-memory-mb", "64")
    assert without_time(got) == without_time(want)
    with pytest.raises(peakorder.ArgumentError):
        peakorder.compare(FORK, budget_ms=-1)
    with pytest.raises(TypeError):
        peakorder.compare(FORK, method="greedy")  # compare runs every method


# --- fuse -------------------------------------------------------------------------------------


def test_fuse_matches_the_cli_and_writes_the_fused_graph(tmp_path):
    out = tmp_path / "fused.json"
    got = peakorder.fuse(SEED, output=out)
    want = cli_json("fuse", SEED)
    assert got == want
    assert (got["ops_before"], got["ops_after"], got["peak_after_bytes"]) == (40, 39, 3_670_016)
    assert (got["baseline"]["ops_after"], got["baseline"]["peak_after_bytes"]) == (22, 8_126_464)
    fused = json.loads(out.read_text())
    cli_out = tmp_path / "cli-fused.json"
    cli("fuse", SEED, "-o", cli_out)
    assert fused == json.loads(cli_out.read_text())
    assert peakorder.plan(fused)["peak_bytes"] == got["peak_after_bytes"]


def test_fuse_peak_limit_trades_memory_for_kernels():
    limit = 8_126_464
    got = peakorder.fuse(SEED, peak_limit=limit, budget_ms=5_000, max_states=10**8)
    assert got == cli_json("fuse", SEED, "--peak-limit", limit, "--budget-ms", "5000")
    assert got["limit_bytes"] == limit and got["ops_after"] <= 22 and got["within_limit"]


def test_a_peak_limit_no_fusion_meets_is_a_fusion_error():
    with pytest.raises(peakorder.FusionError) as e:
        peakorder.fuse(SEED, peak_limit=1000)
    assert e.value.code == "peak_limit" and e.value.limit_bytes == 1000
    assert e.value.best_bytes == 3_670_016 and "1000 bytes" in str(e.value)


def test_fuse_checks_its_options():
    for kw in ({"peak_limit": -1}, {"peak_limit": 1.5}, {"budget_ms": math.nan}, {"max_states": -2}):
        with pytest.raises(peakorder.ArgumentError):
            peakorder.fuse(FORK, **kw)


# --- validate, dtypes, version, typing --------------------------------------------------------


def test_validate_summarises_a_graph():
    s = peakorder.validate(SEED)
    g = json.loads(SEED.read_text())
    produced = {t for op in g["ops"] for t in op["outputs"]}
    assert s == {"format": "peakorder/1", "ops": len(g["ops"]), "tensors": len(g["tensors"]),
                 "inputs": len([t for t in g["tensors"] if t["id"] not in produced]),
                 "outputs": len(g["outputs"]), "inputs_bytes": 2_883_584,
                 "lower_bound_bytes": peakorder.plan(SEED, "program")["lower_bound_bytes"],
                 "program_order_peak_bytes": 5_767_168, "in_forest": True}
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.validate(case("invalid/unknown-tensor.json"))
    assert (e.value.code, e.value.tensor) == ("unknown_tensor", "nope")


def test_dtype_sizes_come_from_the_core():
    sizes = peakorder.dtype_sizes()
    # The README's list of the graph format's dtypes.
    readme = (REPO / "README.md").read_text()
    listed = re.search(r"`shape` \+ `dtype` \(`([^)]*)`\)", readme.replace("\n  ", " ")).group(1)
    assert list(sizes) == listed.replace("`", "").split()
    assert sizes["f64"] == 8 and sizes["bf16"] == 2 and sizes["bool"] == 1
    assert peakorder.dtype_bytes("f32") == 4
    with pytest.raises(peakorder.ArgumentError) as e:
        peakorder.dtype_bytes("float32")
    assert "f32" in str(e.value)
    sizes["f32"] = 99  # a copy
    assert peakorder.dtype_bytes("f32") == 4


def test_the_exporters_dtypes_are_the_cores():
    from peakorder import _graph

    assert set(_graph.DESIGN_DTYPES.values()) == set(peakorder.dtype_sizes())
    fields = _graph.size_fields("t", (2, 3), "bfloat16")
    assert fields == {"shape": [2, 3], "dtype": "bf16"} and _graph.size_bytes(fields) == 12
    assert _graph.size_bytes(_graph.size_fields("t", (3,), "int4")) == 2


def test_the_version_is_the_workspace_version():
    cargo = (REPO / "Cargo.toml").read_text()
    version = re.search(r'\[workspace\.package\][^\[]*?version = "([^"]+)"', cargo).group(1)
    from importlib.metadata import version as dist_version

    assert peakorder.__version__ == version == dist_version("peakorder")


def test_the_package_is_typed_and_native():
    pkg = pathlib.Path(peakorder.__file__).parent
    assert (pkg / "py.typed").is_file() and (pkg / "_native.pyi").is_file()
    assert pathlib.Path(peakorder._native.__file__).name.startswith("_native.")
    for name in peakorder.__all__:
        assert hasattr(peakorder, name), name
    # Every native function has its stub.
    stub = (pkg / "_native.pyi").read_text()
    for name in dir(peakorder._native):
        if not name.startswith("_"):
            assert f"def {name}(" in stub, name


def test_no_subprocess_anywhere_in_the_package():
    import ast

    pkg = pathlib.Path(peakorder.__file__).parent
    for f in sorted(pkg.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0] in ("subprocess", "multiprocessing") for n in names), f
    assert "peakorder" in sys.modules
