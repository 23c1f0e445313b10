"""report_html and show: the same self-contained page as `peakorder report`, made in-process."""

import html
import json
import re
import sys
import types

import pytest

import peakorder
from conftest import case, cli

SEED = case("nvfuser-seed-breadth.json")

# The placeholders of www/report.html (what `peakorder report` fills).
TEMPLATE = ("<title>__PEAKORDER_TITLE__</title>"
            '<script type="application/json" id="peakorder-graph">__PEAKORDER_GRAPH__</script>'
            '<script type="application/json" id="peakorder-options">__PEAKORDER_OPTIONS__</script>'
            "<noscript><pre>__PEAKORDER_NOSCRIPT__</pre></noscript>")


def untimed(page):
    """The page without the planning time (it differs from run to run)."""
    return re.sub(r"planning time +[0-9.]+ ms", "planning time", page)


def cli_report(tmp_path, graph, *args):
    out = tmp_path / "cli-report.html"
    cli("report", graph, *args, "-o", out)
    return out.read_text(encoding="utf-8")


def slot(page, name):
    return page.split(f'id="peakorder-{name}">')[1].split("</script>")[0]


@pytest.fixture
def stand_in_template(tmp_path, monkeypatch):
    t = tmp_path / "template.html"
    t.write_text(TEMPLATE)
    monkeypatch.setenv("PEAKORDER_REPORT_TEMPLATE", str(t))
    return t


def test_the_embedded_page_is_the_clis(tmp_path, monkeypatch):
    monkeypatch.delenv("PEAKORDER_REPORT_TEMPLATE", raising=False)
    page = peakorder.report_html(SEED)
    assert page.lstrip().lower().startswith("<!doctype html") and "<script" in page
    # The wasm planner and the view are inlined: nothing is fetched when it opens.
    assert len(page) > 200_000
    assert untimed(page) == untimed(cli_report(tmp_path, SEED))
    assert json.loads(slot(page, "graph")) == json.loads(SEED.read_text())


def test_the_page_is_filled_like_the_clis(tmp_path, stand_in_template):
    page = peakorder.report_html(SEED, "program", budget_ms=250)
    assert untimed(page) == untimed(cli_report(tmp_path, SEED, "--method", "program", "--budget-ms", "250"))
    assert "<title>nvfuser-seed-breadth.json</title>" in page
    opts = json.loads(slot(page, "options"))
    assert opts == {"method": "program", "budget_ms": 250.0, "controls": False,
                    "exampleLabel": "nvfuser-seed-breadth.json"}
    assert "5.50 MiB" in page  # the program order's peak, as text for readers without scripts


def test_a_dict_graph_gets_a_title_and_the_default_method(stand_in_template):
    g = json.loads(SEED.read_text())
    page = peakorder.report_html(g)
    assert "<title>graph</title>" in page
    assert json.loads(slot(page, "options"))["method"] == "auto"
    assert json.loads(slot(page, "graph")) == g
    page = peakorder.report_html(g, title="a <b>&</b> title")
    assert "<title>a &lt;b&gt;&amp;&lt;/b&gt; title</title>" in page


def test_graph_text_cannot_close_the_script(stand_in_template):
    g = {"tensors": [{"id": "</script><!--x", "bytes": 4}], "ops": [], "outputs": ["</script><!--x"]}
    page = peakorder.report_html(g)
    assert page.count("</script>") == 2 and "<!--" not in page
    assert json.loads(slot(page, "graph")) == g


def test_report_errors(tmp_path, monkeypatch, stand_in_template):
    with pytest.raises(peakorder.MethodError) as e:
        peakorder.report_html(SEED, "magic")
    assert e.value.code == "unknown_method"
    with pytest.raises(peakorder.ArgumentError):
        peakorder.report_html(SEED, budget_ms=-3)
    with pytest.raises(peakorder.GraphError) as e:
        peakorder.report_html(case("invalid/cycle.json"))
    assert e.value.code == "cycle"
    empty = tmp_path / "empty.html"
    empty.write_text("")
    for template, says in [(empty, "built without the web view"), (tmp_path / "missing.html", "cannot read")]:
        monkeypatch.setenv("PEAKORDER_REPORT_TEMPLATE", str(template))
        with pytest.raises(peakorder.ReportError) as e:
            peakorder.report_html(SEED)
        assert e.value.code == "report_unavailable" and says in str(e.value)
    no_slot = tmp_path / "no-slot.html"
    no_slot.write_text("<html>__PEAKORDER_TITLE__</html>")
    monkeypatch.setenv("PEAKORDER_REPORT_TEMPLATE", str(no_slot))
    with pytest.raises(peakorder.ReportError) as e:
        peakorder.report_html(SEED)
    assert "graph slot" in str(e.value)


def fake_ipython(monkeypatch):
    """A stand-in for IPython.display that records what is displayed (IPython is not a test
    dependency)."""
    shown = []

    class HTML:
        def __init__(self, data):
            self.data = data

    fake = types.ModuleType("IPython.display")
    fake.HTML, fake.display = HTML, shown.append
    monkeypatch.setitem(sys.modules, "IPython", types.ModuleType("IPython"))
    monkeypatch.setitem(sys.modules, "IPython.display", fake)
    return shown


def test_show_embeds_the_in_process_report(monkeypatch):
    monkeypatch.delenv("PEAKORDER_REPORT_TEMPLATE", raising=False)
    shown = fake_ipython(monkeypatch)
    obj = peakorder.show(SEED, "program", height=300)
    assert shown == [obj]
    assert obj.data.startswith('<iframe srcdoc="') and "height:300px" in obj.data
    assert 'sandbox="allow-scripts allow-downloads"' in obj.data
    srcdoc = html.unescape(obj.data[len('<iframe srcdoc="'):obj.data.index('" style=')])
    assert untimed(srcdoc) == untimed(peakorder.report_html(SEED, "program"))


def test_show_escapes_the_page_for_srcdoc(monkeypatch, tmp_path):
    t = tmp_path / "t.html"
    t.write_text('<!doctype html><script>let a = "x" < 1 && 2;</script>'
                 '<script id="peakorder-graph">__PEAKORDER_GRAPH__</script>')
    monkeypatch.setenv("PEAKORDER_REPORT_TEMPLATE", str(t))
    shown = fake_ipython(monkeypatch)
    obj = peakorder.show(case("fork-join.json"))
    assert shown == [obj]
    assert 'srcdoc="&lt;!doctype html&gt;&lt;script&gt;let a = &quot;x&quot; &lt; 1 &amp;&amp; 2;' in obj.data


def test_show_without_ipython_says_what_to_use(monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython", None)
    monkeypatch.setitem(sys.modules, "IPython.display", None)
    with pytest.raises(ImportError) as e:
        peakorder.show(SEED)
    assert "report_html" in str(e.value)
