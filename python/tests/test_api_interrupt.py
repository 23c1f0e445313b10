"""Long searches from Python: the GIL is released while planning, and Ctrl-C (SIGINT, a
KeyboardInterrupt) stops a search and returns the best order found so far, as the CLI does."""

import json
import os
import signal
import threading
import time

import pytest

import peakorder
from conftest import REPO

WIDE = REPO / "tests" / "hard" / "wide-dag-100.json"
# A search that would run for 20 s: only an interruption ends it early.
LONG = dict(method="exact", budget_ms=20_000, max_states=10**12)

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="POSIX signals")


@pytest.fixture
def sigint_raises():
    """Python's own SIGINT handler (KeyboardInterrupt) for the test, the previous one after it.

    Python installs that handler at start only where SIGINT is not ignored; a process started with
    SIGINT ignored (a background job of a shell: `(scripts/test.sh &)`) keeps ignoring it, and the
    tests' own SIGINT would then do nothing."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


class send_later:
    """Sends `sig` to this process after `after_s` seconds, unless the block ended first (so a
    signal never outlives its test)."""

    def __init__(self, sig, after_s):
        self.timer = threading.Timer(after_s, os.kill, (os.getpid(), sig))

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        self.timer.join()


def seed_like(n):
    """The fusion seed (tests/cases/fusion-seed-breadth-first.json) with `n` paths: fusion plans
    thousands of fused graphs, most of which break the limit (n = 30 takes about 25 s)."""
    t = [{"id": "a0", "shape": [256, 256], "dtype": "f32"}]
    for i in range(n):
        t += [{"id": f"t{k}_{i}", "shape": [256, 256], "dtype": "f32"} for k in range(4)]
        t.append({"id": f"a{i + 1}", "shape": [256, 256], "dtype": "f32"})
    ops = [{"id": f"relu1_{i}", "inputs": [f"t0_{i}"], "outputs": [f"t1_{i}"], "fusible": "nv"} for i in range(n)]
    ops += [{"id": f"mm1_{i}", "inputs": [f"t1_{i}"], "outputs": [f"t2_{i}"]} for i in range(n)]
    ops += [{"id": f"relu2_{i}", "inputs": [f"t2_{i}"], "outputs": [f"t3_{i}"], "fusible": "nv"} for i in range(n)]
    ops += [{"id": f"mm2_{i}", "inputs": [f"t3_{i}", f"a{i}"], "outputs": [f"a{i + 1}"]} for i in range(n)]
    return {"tensors": t, "ops": ops, "outputs": [f"a{n}"]}


def check_best_so_far(p):
    assert len(p["order"]) == 100 and p["optimal"] is False
    assert p["lower_bound_bytes"] <= p["peak_bytes"]
    # A valid order whose reported peak is the simulator's.
    assert peakorder.simulate(WIDE, p["order"])["peak_bytes"] == p["peak_bytes"]


@pytest.mark.parametrize("call", ["plan", "compare", "report_html"])
def test_ctrl_c_returns_the_best_so_far(call, monkeypatch, tmp_path, sigint_raises):
    template = tmp_path / "t.html"
    template.write_text('<script id="peakorder-graph">__PEAKORDER_GRAPH__</script>')
    monkeypatch.setenv("PEAKORDER_REPORT_TEMPLATE", str(template))
    start = time.monotonic()
    with send_later(signal.SIGINT, 0.5), pytest.warns(peakorder.InterruptedWarning, match="interrupted"):
        if call == "plan":
            result = peakorder.plan(WIDE, **LONG)
        elif call == "compare":
            result = peakorder.compare(WIDE, **{k: v for k, v in LONG.items() if k != "method"})
        else:
            result = peakorder.report_html(WIDE, "exact", budget_ms=20_000)
    took = time.monotonic() - start
    assert 0.4 < took < 5, took
    if call == "plan":
        check_best_so_far(result)
        assert 400 < result["elapsed_ms"] < 5_000
    elif call == "compare":
        exact = next(m for m in result["methods"] if m["method"] == "exact")
        assert exact["peak_bytes"] >= result["lower_bound_bytes"] and exact["optimal"] is False
    else:
        assert "peakorder-graph" in result


def test_ctrl_c_stops_fusion(sigint_raises):
    start = time.monotonic()
    with send_later(signal.SIGINT, 0.5), pytest.warns(peakorder.InterruptedWarning):
        f = peakorder.fuse(seed_like(40), budget_ms=20_000, max_states=10**12)
    took = time.monotonic() - start
    # Fusion stops between the plans it makes (each at most 50 ms).
    assert 0.4 < took < 5, took
    assert f["ops_after"] < f["ops_before"] == 160 and f["exhaustive"] is False
    assert f["peak_after_bytes"] <= f["limit_bytes"]


def test_an_exception_from_another_signal_handler_propagates():
    class Stop(Exception):
        pass

    def handler(signum, frame):
        raise Stop()

    old = signal.signal(signal.SIGUSR1, handler)
    try:
        start = time.monotonic()
        with send_later(signal.SIGUSR1, 0.3), pytest.raises(Stop):
            peakorder.plan(WIDE, **LONG)
        assert time.monotonic() - start < 5
    finally:
        signal.signal(signal.SIGUSR1, old)


def test_a_handler_that_does_not_raise_lets_the_search_run():
    seen = []
    old = signal.signal(signal.SIGUSR1, lambda s, f: seen.append(s))
    try:
        with send_later(signal.SIGUSR1, 0.1):
            p = peakorder.plan(WIDE, method="exact", budget_ms=600, max_states=10**12)
    finally:
        signal.signal(signal.SIGUSR1, old)
    assert seen == [signal.SIGUSR1]
    # It ran to its budget: the handler ran during the search and did not stop it.
    assert p["elapsed_ms"] >= 550


def test_the_gil_is_released_while_planning():
    # Another Python thread notes the time every millisecond; it can only run while the
    # planning thread does not hold the GIL.
    samples = []
    stop = threading.Event()

    def note():
        while not stop.is_set():
            samples.append(time.monotonic())
            time.sleep(0.001)

    t = threading.Thread(target=note)
    t.start()
    try:
        start = time.monotonic()
        p = peakorder.plan(WIDE, method="exact", budget_ms=400, max_states=10**12)
        end = time.monotonic()
    finally:
        stop.set()
        t.join()
    assert p["elapsed_ms"] >= 350
    # Held, the other thread would run only at the ends (at most one switch interval each).
    middle = [x for x in samples if start + 0.05 < x < end - 0.05]
    assert len(middle) > 30, len(middle)


def test_plans_run_in_parallel_threads():
    results = []

    def one():
        results.append(peakorder.plan(WIDE, method="exact", budget_ms=300, max_states=10**12))

    threads = [threading.Thread(target=one) for _ in range(2)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - start
    assert len(results) == 2 and all(len(r["order"]) == 100 for r in results)
    # Both ran at once (2 x 300 ms of budget would be 600 ms one after the other).
    assert took < 0.58, took
