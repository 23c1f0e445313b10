"""Errors through Python: every file of tests/cases/invalid/ gives its `_expected.json` code
through every call, with the CLI's own message; every stable code has its exception family; the
fields name the op or tensor."""

import json
import math
import pickle
import re

import pytest

import peakorder
from peakorder import _errors
from conftest import REPO, case, cli

INVALID = REPO / "tests" / "cases" / "invalid"
EXPECTED = json.loads((INVALID / "_expected.json").read_text())

CALLS = {
    "plan": lambda g: peakorder.plan(g),
    "compare": lambda g: peakorder.compare(g),
    "simulate": lambda g: peakorder.simulate(g, []),
    "fuse": lambda g: peakorder.fuse(g),
    "validate": lambda g: peakorder.validate(g),
    "report_html": lambda g: peakorder.report_html(g),
}


def test_the_corpus_is_complete():
    files = sorted(p.name for p in INVALID.glob("*.json") if p.name != "_expected.json")
    assert files == sorted(EXPECTED) and len(files) >= 29


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_malformed_graph_gives_the_cli_code_and_message(name):
    path = INVALID / name
    want = EXPECTED[name]
    # The CLI's one line: "peakorder: PATH: MESSAGE", exit code 2.
    r = cli("plan", path, check=False)
    assert r.returncode == 2
    cli_line = r.stderr.strip()
    for call_name, call in CALLS.items():
        for graph in (path, path.read_bytes()):
            with pytest.raises(peakorder.PeakorderError) as e:
                call(graph)
            err = e.value
            assert isinstance(err, peakorder.GraphError) and isinstance(err, ValueError)
            assert err.code == want["code"], f"{call_name} {name}: {err}"
            assert want["mentions"] in str(err), f"{call_name} {name}: {err}"
            assert "\n" not in str(err)
            assert cli_line == f"peakorder: {path}: {err}", f"{call_name} {name}"


def test_a_dict_graph_gives_the_same_error_as_its_file():
    # Files that are JSON objects read back as dicts: the same code, through json.dumps.
    for name, want in EXPECTED.items():
        try:
            graph = json.loads((INVALID / name).read_text())
        except (ValueError, RecursionError):
            continue  # not JSON at all (truncated, NaN, ...): only a file or text can hold it
        if not isinstance(graph, dict) or name == "duplicate-key.json":
            continue  # a dict cannot hold a duplicate key
        with pytest.raises(peakorder.PeakorderError) as e:
            peakorder.plan(graph)
        if non_finite_cost(graph):
            # The file's text is bad JSON (1e999, NaN); the dict holds the float itself, and the
            # error names the op and the value instead.
            assert e.value.code == "invalid_op", name
            assert '"mm"' in str(e.value) and "finite" in str(e.value), name
            continue
        assert e.value.code == want["code"], name


def non_finite_cost(graph):
    return any(
        isinstance(op.get("cost"), float) and not math.isfinite(op["cost"])
        for op in graph.get("ops", [])
        if isinstance(op, dict)
    )


def test_errors_name_the_op_tensor_or_cycle():
    def err(name, **kw):
        with pytest.raises(peakorder.PeakorderError) as e:
            peakorder.plan(INVALID / name, **kw)
        return e.value

    e = err("cycle.json")
    assert e.code == "cycle" and e.ops == ["f", "g", "h", "f"] and e.op is None
    e = err("alias-loop.json")
    assert e.code == "alias_cycle" and e.tensors[:2] == ["v1", "v2"]
    e = err("unknown-alias.json")
    assert (e.code, e.tensor, e.alias_of) == ("unknown_tensor", "v", "ghost")
    e = err("unknown-tensor.json")
    assert (e.code, e.tensor) == ("unknown_tensor", "nope") and e.op
    e = err("produced-twice.json")
    assert (e.code, e.tensor, e.op) == ("produced_twice", "y", "p1")
    e = err("duplicate-op.json")
    assert (e.code, e.op) == ("duplicate_id", "op")
    e = err("duplicate-tensor.json")
    assert (e.code, e.tensor) == ("duplicate_id", "x")
    e = err("unknown-output.json")
    assert (e.code, e.tensor) == ("unknown_output", "missing")


def test_an_op_without_an_id_is_invalid_op():
    g = {"tensors": [{"id": "x", "bytes": 1}], "ops": [{"id": "", "inputs": ["x"], "outputs": []}], "outputs": []}
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.plan(g)
    assert (e.value.code, e.value.op) == ("invalid_op", "#0")


def core_codes():
    """The stable codes of core/src/error.rs (Error::code)."""
    text = (REPO / "core" / "src" / "error.rs").read_text()
    body = text[text.index("pub fn code(&self)"):]
    body = body[: body.index("\n    }\n")]
    return set(re.findall(r'=> "([a-z_]+)"', body))


def test_every_stable_code_has_its_family():
    codes = core_codes()
    assert {"cycle", "unknown_tensor", "bad_json", "peak_limit"} <= codes
    # The core's codes and the two this layer adds (the npm package's invalid_argument).
    assert set(_errors.CODES) == codes | {"invalid_argument", "report_unavailable"}
    families = {
        peakorder.GraphError: {"bad_json", "bad_format", "invalid_tensor", "invalid_op", "duplicate_id",
                               "unknown_tensor", "produced_twice", "cycle", "alias_cycle",
                               "size_overflow", "unknown_output", "too_large"},
        peakorder.OrderError: {"unknown_op", "repeated_op", "missing_op", "not_topological",
                               "not_recomputable", "stale_view"},
        peakorder.MethodError: {"unknown_method", "not_applicable"},
        peakorder.FusionError: {"bad_region", "region_cycle", "peak_limit"},
        peakorder.LayoutError: {"bad_csv", "bad_layout"},
        peakorder.InfeasibleError: {"infeasible"},
        peakorder.ArgumentError: {"invalid_argument", "bad_limit"},
        peakorder.ReportError: {"report_unavailable"},
    }
    assert set().union(*families.values()) == set(_errors.CODES)
    for cls, members in families.items():
        for code in members:
            e = _errors._make(code, "message", {"op": "a"})
            assert type(e) is cls and isinstance(e, peakorder.PeakorderError) and isinstance(e, ValueError)
            assert (e.code, e.op, e.tensor, str(e)) == (code, "a", None, "message")
    # A code added later is still a PeakorderError.
    assert type(_errors._make("something_new", "m")) is peakorder.PeakorderError


def test_errors_pickle_with_their_fields():
    with pytest.raises(peakorder.PeakorderError) as e:
        peakorder.plan(INVALID / "unknown-alias.json")
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is peakorder.GraphError
    assert (back.code, back.tensor, back.alias_of, str(back)) == (e.value.code, "v", "ghost", str(e.value))


def test_peakorder_error_can_be_raised_by_users():
    e = peakorder.PeakorderError("mine")
    assert e.code == "error" and e.op is None
    with pytest.raises(TypeError):
        peakorder.PeakorderError("mine", "x", colour="red")


def test_order_errors_name_the_op():
    with pytest.raises(peakorder.OrderError) as e:
        peakorder.simulate(case("fork-join.json"), ["j", "p1", "q1", "p2", "q2"])
    assert (e.value.code, e.value.op) == ("not_topological", "j")
    assert e.value.tensor in ("s1", "s2")
