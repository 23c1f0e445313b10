"""Benchmark: planning a 10,000-op graph from Python (in-process) against the CLI on the same
graph (python/README.md reports the numbers).

The graph is a real program: a JAX transformer training step (pre-norm attention and MLP blocks,
forward, backward and an SGD update), exported with peakorder.export.from_jaxpr and written to
target/bench-python/ (by a child process) so the CLI reads the very same graph. Each call is
timed end to end, as a user sees it: for Python from the call to the returned dict (the graph
as a dict, which includes writing it as JSON text for the core's parser, or as a path), for the
CLI the whole `peakorder plan GRAPH --json` process (start, read, parse, plan, print). Medians
of --runs, CPU time (all threads) and wall clock. Below the table, that dict-to-text step alone:
the extension's writer (python/src/dumps.rs) against the json.dumps call it replaces.

    .venv/bin/python python/bench/plan_10k.py [--layers 51] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def transformer_step(layers: int, batch: int = 4, seq: int = 256, dim: int = 512, heads: int = 8):
    import jax
    import jax.numpy as jnp

    def layer_norm(x, g):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * g

    def block(p, x):
        h = layer_norm(x, p["ln1"])
        q, k, v = jnp.split(h @ p["qkv"], 3, axis=-1)
        split = lambda t: t.reshape(batch, seq, heads, dim // heads).transpose(0, 2, 1, 3)  # noqa: E731
        q, k, v = split(q), split(k), split(v)
        a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / (dim // heads) ** 0.5, axis=-1)
        o = (a @ v).transpose(0, 2, 1, 3).reshape(batch, seq, dim)
        x = x + o @ p["out"]
        h = layer_norm(x, p["ln2"])
        return x + jax.nn.gelu(h @ p["up"]) @ p["down"]

    def loss(params, x):
        for p in params:
            x = block(p, x)
        return jnp.mean(x**2)

    def step(params, x):
        grads = jax.grad(loss)(params, x)
        return jax.tree_util.tree_map(lambda w, g: w - 1e-3 * g, params, grads)

    f = jnp.float32
    params = [
        {"ln1": jnp.ones((dim,), f), "qkv": jnp.ones((dim, 3 * dim), f), "out": jnp.ones((dim, dim), f),
         "ln2": jnp.ones((dim,), f), "up": jnp.ones((dim, 4 * dim), f), "down": jnp.ones((4 * dim, dim), f)}
        for _ in range(layers)
    ]
    x = jnp.ones((batch, seq, dim), f)
    return step, params, x


def timed(fn, runs, children=False):
    """(result, median wall ms, median CPU ms): CPU time is this process's (all its threads), its
    children's (the CLI), or both; on a shared machine it is the steadier of the two."""
    out, wall, cpu = None, [], []
    for _ in range(runs):
        r0, c0, w0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time(), time.perf_counter()
        out = fn()
        w1, c1, r1 = time.perf_counter(), time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
        wall.append((w1 - w0) * 1000)
        child = (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1000
        own = (c1 - c0) * 1000
        cpu.append({False: own, True: child, "both": own + child}[children])
    return out, statistics.median(wall), statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=51, help="transformer blocks (51: 10,184 ops)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--export-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--methods", default="greedy,program,auto")
    ap.add_argument("--budget-ms", type=float, default=10_000,
                    help="budget for the heuristics (large: the lower bound is always finished, so "
                         "both sides do the same work); auto always gets its default 100 ms")
    args = ap.parse_args()

    out_dir = REPO / "target" / "bench-python"
    path = out_dir / f"transformer-train-{args.layers}.json"
    if args.export_only:
        # In its own process: JAX's thread pools would otherwise count in this process's CPU time.
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import peakorder

        out_dir.mkdir(parents=True, exist_ok=True)
        step, params, x = transformer_step(args.layers)
        peakorder.save(peakorder.export.from_jaxpr(step, params, x), str(path))
        return
    subprocess.run([sys.executable, __file__, "--export-only", "--layers", str(args.layers)], check=True)
    import peakorder

    graph = json.loads(path.read_text())
    cli = os.environ.get("PEAKORDER_BIN", str(REPO / "target" / "release" / "peakorder"))
    n = len(graph["ops"])
    print(f"graph: JAX transformer training step, {args.layers} blocks: {n} ops, "
          f"{len(graph['tensors'])} tensors, {path.stat().st_size / 1e6:.1f} MB of JSON; "
          f"peakorder {peakorder.__version__}, Python {sys.version.split()[0]}, {args.runs} runs")
    print()
    print("| method | Python, graph as path | CLI, same file | Python, graph as dict | CLI, dict written to a file first | peak |")
    print("|---|---:|---:|---:|---:|---:|")
    for method in args.methods.split(","):
        budget = 100.0 if method == "auto" else args.budget_ms
        cmd = [cli, "plan", str(path), "--method", method, "--budget-ms", str(budget), "--json"]
        dumped = out_dir / "from-dict.json"

        def run_cli(write_first=False):
            if write_first:  # what the pure-Python wrapper before the extension did
                with open(dumped, "w") as f:
                    json.dump(graph, f)
            argv = cmd if not write_first else [*cmd[:2], str(dumped), *cmd[3:]]
            r = subprocess.run(argv, capture_output=True, text=True, check=True)
            return json.loads(r.stdout)

        runs = [
            timed(lambda: peakorder.plan(path, method, budget), args.runs),
            timed(run_cli, args.runs, children=True),
            timed(lambda: peakorder.plan(graph, method, budget), args.runs),
            # json.dump's time is this process's, the CLI's its child's: both are counted.
            timed(lambda: run_cli(True), args.runs, children="both"),
        ]
        peaks = {r[0]["peak_bytes"] for r in runs}
        peak = f"{runs[0][0]['peak_bytes']:,} B" if len(peaks) == 1 else f"DIFFER: {sorted(peaks)}"
        cells = " | ".join(f"{c:.1f} ms CPU, {w:.1f} ms wall" for _, w, c in runs)
        print(f"| {method}, budget {budget:g} ms | {cells} | {peak} |")

    from peakorder import _native
    from peakorder._api import _json_default

    def json_dumps():
        return json.dumps(graph, allow_nan=False, separators=(",", ":"), default=_json_default,
                          check_circular=False)

    text, _, dumps_cpu = timed(json_dumps, args.runs)
    same, _, native_cpu = timed(lambda: _native.json_dumps(graph, _json_default) == text, args.runs)
    print()
    print(f"dict to JSON text ({len(text) / 1e6:.1f} MB): json.dumps {dumps_cpu:.1f} ms CPU, "
          f"the extension {native_cpu:.1f} ms CPU ({dumps_cpu / native_cpu:.1f}x), "
          f"{'the same text' if same else 'TEXT DIFFERS'}")

if __name__ == "__main__":
    main()
