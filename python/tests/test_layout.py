"""peakorder.layout (docs/layout.md): the `peakorder layout --json` dict in-process, for graphs
(planned or a given order) and MiniMalloc CSV; every layout checked here by an independent
pairwise test (no two buffers live at one step share a byte), and coded errors."""

import json

import pytest

import peakorder
from conftest import REPO, CASES, case, cli

SEED = case("nvfuser-seed-breadth.json")
KEYS = {"arena_bytes", "lower_bound_bytes", "optimal", "method", "align", "order", "peak_bytes",
        "inputs_bytes", "offsets", "workspace_offsets", "buffers", "search_nodes", "elapsed_ms"}


def check(l):
    """The layout is whole and valid, written apart from the core's checker."""
    assert KEYS <= set(l)
    assert l["arena_bytes"] >= l["lower_bound_bytes"]
    assert l["optimal"] == (l["arena_bytes"] == l["lower_bound_bytes"])
    b = l["buffers"]
    for r in b:
        assert r["offset"] % l["align"] == 0 and r["offset"] + r["bytes"] <= l["arena_bytes"]
        assert 0 <= r["first_step"] <= r["last_step"] <= len(l["order"])
        where = l["offsets"] if r["kind"] == "tensor" else l["workspace_offsets"]
        assert where[r["id"]] == r["offset"]
    for i, p in enumerate(b):
        for q in b[i + 1:]:
            time = p["first_step"] <= q["last_step"] and q["first_step"] <= p["last_step"]
            space = p["offset"] < q["offset"] + q["bytes"] and q["offset"] < p["offset"] + p["bytes"]
            assert not (time and space), f"{p['id']} and {q['id']} overlap"


def test_the_seed_fits_one_arena_of_its_planned_peak():
    l = peakorder.layout(SEED)
    check(l)
    assert l["arena_bytes"] == l["peak_bytes"] == 3670016 and l["optimal"]
    assert l["order_search"]["changed"] is False
    graph = json.loads(SEED.read_text())
    assert set(l["offsets"]) == {t["id"] for t in graph["tensors"]}
    # A dict, JSON text and a path give the same layout.
    assert peakorder.layout(graph)["offsets"] == l["offsets"]
    assert peakorder.layout(SEED.read_text())["offsets"] == l["offsets"]


@pytest.mark.parametrize("name", sorted(p.name for p in CASES.glob("*.json")))
def test_every_fixture_matches_the_cli_for_its_program_order(name, tmp_path):
    graph = json.loads(case(name).read_text())
    order = [op["id"] for op in graph["ops"]]
    try:
        l = peakorder.layout(graph, order, "size", align=8)
    except peakorder.OrderError as e:
        assert e.code == "not_topological"
        return
    check(l)
    assert l["order"] == order and "order_search" not in l
    f = tmp_path / "order.json"
    f.write_text(json.dumps(order))
    c = json.loads(cli("layout", case(name), "--order", f, "--method", "size", "--align", "8",
                       "--json").stdout)
    assert (l["offsets"], l["buffers"], l["arena_bytes"]) == (c["offsets"], c["buffers"], c["arena_bytes"])
    # A plan from plan() is an order too.
    p = peakorder.plan(graph, "program")
    assert peakorder.layout(graph, p, "size", align=8)["offsets"] == l["offsets"]


def test_a_minimalloc_instance_fits_its_capacity_from_a_path_and_from_text():
    path = REPO / "tests" / "minimalloc" / "K.1048576.csv"
    l = peakorder.layout(path, capacity=1048576, budget_ms=60000)
    assert l["within_capacity"] and l["arena_bytes"] <= 1048576 and len(l["buffers"]) == 454
    small = peakorder.layout("id,lower,upper,size\na,0,2,4\nb,1,3,4\nc,2,4,4\n")
    assert (small["arena_bytes"], small["optimal"]) == (8, True)
    assert set(small["offsets"]) == {"a", "b", "c"}


def test_alignment_rounds_every_size_and_offset():
    l = peakorder.layout(case("workspace.json"), align=64)
    check(l)
    assert l["align"] == 64 and all(r["bytes"] % 64 == 0 for r in l["buffers"])


@pytest.mark.parametrize("text, line, words", [
    ("id,lower,upper,size\na,0,1,1\na,1,2,1\n", 3, "twice"),
    ("id,lower,upper,size\na,4,4,1\n", 2, "below upper"),
    ("id,lower,upper,size\na,0,4,-1\n", 2, "negative"),
    ("id,lower,upper,size\na,0,4,99999999999999999999999\n", 2, ""),
])
def test_a_bad_csv_line_is_a_layout_error_naming_it(text, line, words):
    with pytest.raises(peakorder.LayoutError) as e:
        peakorder.layout(text)
    assert e.value.code == "bad_csv" and e.value.line == line
    assert f"line {line}" in str(e.value) and words in str(e.value)


def test_bad_options_and_graphs_are_coded_errors():
    with pytest.raises(peakorder.ArgumentError, match="align"):
        peakorder.layout(SEED, align=0)
    with pytest.raises(peakorder.ArgumentError, match="slack"):
        peakorder.layout(SEED, slack=-1)
    with pytest.raises(peakorder.MethodError):
        peakorder.layout(SEED, method="nope")
    with pytest.raises(peakorder.OrderError):
        peakorder.layout(SEED, ["nope"])
    with pytest.raises(peakorder.ArgumentError, match="order"):
        peakorder.layout("id,lower,upper,size\na,0,1,1\n", [])
    # slack and plan_method act on a planned order: refused with a given order or a CSV.
    for kw in ({"slack": 0.05}, {"plan_method": "greedy"}):
        with pytest.raises(peakorder.ArgumentError, match="planned order"):
            peakorder.layout(SEED, ["x"], **kw)
        with pytest.raises(peakorder.ArgumentError, match="CSV"):
            peakorder.layout("id,lower,upper,size\na,0,1,1\n", **kw)
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.layout(case("invalid/cycle.json"))
    assert e.value.code == "cycle"
    # Still usable after errors.
    assert peakorder.layout(SEED)["arena_bytes"] == 3670016
