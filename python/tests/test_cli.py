"""peakorder.plan / peakorder.show / binary discovery, against the real CLI."""

import html
import json
import os
import sys
import types

import pytest

import peakorder
from peakorder import _cli
from conftest import has_report

SEED = {
    "tensors": [
        {"id": "x", "shape": [256, 256], "dtype": "f32"},
        {"id": "y", "shape": [256, 256], "dtype": "f32"},
        {"id": "z", "bytes": 262144},
    ],
    "ops": [
        {"id": "relu", "kind": "relu", "inputs": ["x"], "outputs": ["y"]},
        {"id": "neg", "kind": "neg", "inputs": ["y"], "outputs": ["z"]},
    ],
    "outputs": ["z"],
}


def test_plan_dict_and_path(tmp_path):
    p = peakorder.plan(SEED)
    assert p["order"] == ["relu", "neg"]
    assert p["peak_bytes"] == 3 * 262144 and p["inputs_bytes"] == 262144
    f = tmp_path / "g.json"
    f.write_text(json.dumps(SEED))
    assert peakorder.plan(f, method="program")["peak_bytes"] == p["peak_bytes"]


def test_plan_refusal_raises_with_cli_message():
    bad = {"tensors": [], "ops": [{"id": "a", "inputs": ["nope"], "outputs": []}], "outputs": []}
    with pytest.raises(peakorder.PeakorderError) as e:
        peakorder.plan(bad)
    assert e.value.returncode == 2 and "nope" in str(e.value)


def test_find_binary_prefers_env_then_path_then_repo(tmp_path, monkeypatch):
    repo_bin = os.environ["PEAKORDER_BIN"]
    assert _cli.find_binary() == repo_bin
    monkeypatch.delenv("PEAKORDER_BIN")
    fake = tmp_path / "peakorder"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert _cli.find_binary() == str(fake)
    # Without PATH, the repository's target directory (found above the package) is used.
    monkeypatch.setenv("PATH", "/nonexistent")
    found = _cli.find_binary()
    assert found.endswith(os.path.join("target", "release", "peakorder")) or found.endswith(
        os.path.join("target", "debug", "peakorder"))
    monkeypatch.setenv("PEAKORDER_BIN", str(tmp_path / "missing"))
    with pytest.raises(peakorder.PeakorderError):
        _cli.find_binary()


@pytest.mark.skipif(not has_report(), reason="this peakorder binary has no `report` subcommand yet "
                    "(docs/design.md §5; built by another issue)")
def test_show_embeds_the_report(monkeypatch):
    # A stand-in for IPython.display records what show() displays (IPython is not a test dependency).
    shown = []

    class HTML:
        def __init__(self, data):
            self.data = data

    fake = types.ModuleType("IPython.display")
    fake.HTML, fake.display = HTML, shown.append
    monkeypatch.setitem(sys.modules, "IPython", types.ModuleType("IPython"))
    monkeypatch.setitem(sys.modules, "IPython.display", fake)
    obj = peakorder.show(SEED)
    assert shown == [obj]
    assert obj.data.startswith("<iframe srcdoc=")
    # The iframe carries the whole report page (each run's timings differ, so compare content).
    srcdoc = html.unescape(obj.data[len('<iframe srcdoc="'):obj.data.index('" style=')])
    page = peakorder.report_html(SEED)
    for doc in (srcdoc, page):
        assert "<html" in doc.lower() and "<script" in doc.lower()
        assert "relu1_0" in doc and "3670016" in doc


def test_report_html_without_report_subcommand_is_a_clear_error():
    if _cli.has_subcommand("report"):
        pytest.skip("this binary has a `report` subcommand; the error path does not apply")
    with pytest.raises(peakorder.PeakorderError) as e:
        peakorder.report_html(SEED)
    assert "has no `report` subcommand" in str(e.value)


def test_show_follows_the_report_cli_contract(tmp_path, monkeypatch):
    """show() against a stand-in binary that implements only docs/design.md §5's
    `peakorder report GRAPH [--method M] -o FILE`, so show() is tested before `report` exists."""
    log = tmp_path / "args"
    stub = tmp_path / "peakorder"
    stub.write_text(
        "#!/bin/sh\n"
        f'echo "$@" > "{log}"\n'
        'out=""; while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done\n'
        'printf \'<!doctype html><html><script>let a = "x" < 1 && 2;</script></html>\' > "$out"\n'
    )
    stub.chmod(0o755)
    monkeypatch.setenv("PEAKORDER_BIN", str(stub))
    shown = []

    class HTML:
        def __init__(self, data):
            self.data = data

    fake = types.ModuleType("IPython.display")
    fake.HTML, fake.display = HTML, shown.append
    monkeypatch.setitem(sys.modules, "IPython", types.ModuleType("IPython"))
    monkeypatch.setitem(sys.modules, "IPython.display", fake)
    obj = peakorder.show(SEED, method="exact", height=300)
    args = log.read_text().split()
    assert args[:3] == ["report", "--method", "exact"] and args[4] == "-o" and args[3].endswith(".json")
    assert shown == [obj]
    assert 'srcdoc="&lt;!doctype html&gt;&lt;html&gt;&lt;script&gt;let a = &quot;x&quot; &lt; 1 &amp;&amp; 2;' in obj.data
    assert "height:300px" in obj.data
