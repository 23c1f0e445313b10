"""torch.compile within a byte limit (docs/pytorch.md, "Within a byte limit"): peakorder's
partitioner (``inductor_options(memory_limit=...)``) against PyTorch's
``activation_memory_budget``, measured by PyTorch's CPU allocator (profiler memory events).

    python python/bench/torch_budget.py one gpt ours:min           # one configuration, JSON
    python python/bench/torch_budget.py sweep gpt [--points 6]     # the table and the plot
    python python/bench/torch_budget.py grads mobilenet_v2 ours:/eagerbn   # which gradients miss
    python python/bench/torch_budget.py one efficientnet_b0@f64 ours:min   # the step in float64

Each configuration runs in a process of its own (a second torch.compile in one process
measures differently). A configuration is ``eager``, ``default`` (torch.compile as is),
``pytorch:B`` (``activation_memory_budget=B``), ``ours`` (peakorder's options, no limit),
``ours:L`` (``memory_limit=L``: bytes, ``64MiB`` or ``min``; flags after it, as
``ours:min/budget=80/plan=PATH``, are listed in ``compiled``) or ``backend:L`` (flags as ``backend:min/eagerbn/budget=MS``). The step is
forward + cross-entropy (compiled together, so the backward starts from a scalar), backward,
in-place SGD, gradients dropped. Peaks are MiB above what was live before the step.
``recomputed GFLOPs`` counts, for both partitioners alike, the FLOPs (``_flops.node_flops``:
torch.utils.flop_counter's formulas, at least 1 per node) of the forward nodes the backward
computes again. ``grads equal eager's``: the gradients of one compiled step against an eager
copy's, run from the same generator state; where the step draws random numbers, every compiled
configuration gets ``fallback_random`` (Dropout and StochasticDepth then draw eager's masks)."""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

import peakorder.torch as pt

MiB = 2**20
LR = 0.01
HERE = os.path.dirname(os.path.abspath(__file__))


# --- the models -----------------------------------------------------------------------------------


class Block(nn.Module):
    """A GPT block: LayerNorm, causal self-attention, LayerNorm, a 4x MLP with GELU."""

    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(a)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab: int = 512, d: int = 128, heads: int = 4, blocks: int = 4, tokens: int = 128) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(tokens, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(blocks))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x)).flatten(0, 1)


#: name -> (builder, batch builder); GPT as the issue's measurement: 4 blocks, width 128, 4 heads,
#: 128 tokens, batch 8, vocabulary 512. ``gpt-small`` (2 blocks, batch 4) is CI's.
def build(name: str) -> Tuple[nn.Module, Tuple[torch.Tensor, torch.Tensor]]:
    """The model and its batch. ``NAME@f64``: the same step in float64 (parameters and input), to
    check that a configuration computes eager's gradients where float32 rounding alone moves them
    by more than the tolerance (efficientnet_b0, docs/pytorch.md)."""
    name, _, dtype = name.partition("@")
    if dtype not in ("", "f64"):
        raise SystemExit(f"unknown precision {dtype!r} (only @f64)")
    model, (x, y) = _build(name)
    if dtype == "f64":
        model = model.double()
        x = x.double() if x.is_floating_point() else x
    return model, (x, y)


def _build(name: str) -> Tuple[nn.Module, Tuple[torch.Tensor, torch.Tensor]]:
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    if name in ("gpt", "gpt-small"):
        blocks, batch = (4, 8) if name == "gpt" else (2, 4)
        m = GPT(blocks=blocks)
        idx = torch.randint(0, 512, (batch, 128), generator=g)
        return m, (idx, torch.randint(0, 512, (batch * 128,), generator=g))
    import torchvision

    m = getattr(torchvision.models, name)(num_classes=10)
    return m, (torch.randn(16, 3, 64, 64, generator=g), torch.randint(0, 10, (16,), generator=g))


# --- one configuration ----------------------------------------------------------------------------


class Recorder:
    """Wraps a partitioner (PyTorch's min-cut, or peakorder's) to count what the backward
    recomputes: call_function nodes computed in both graphs (and peakorder's extra copies)."""

    def __init__(self, inner: Any = None) -> None:
        self.inner = inner
        self.flops = 0
        self.nodes = 0

    def count(self, joint: Any, fw: Any, bw: Any) -> None:
        from peakorder.torch._flops import node_flops

        computed = lambda gm: {n.name for n in gm.graph.nodes if n.op == "call_function"}
        joint_nodes = {n.name: n for n in joint.graph.nodes}
        fw_names = computed(fw)
        for name in computed(bw) & fw_names:
            if name in joint_nodes:
                self.flops += node_flops(joint_nodes[name])
                self.nodes += 1


def pytorch_partitioner(rec: Recorder) -> Any:
    from torch._functorch.partitioners import min_cut_rematerialization_partition
    from torch._inductor.custom_graph_pass import CustomPartitionerFn

    class Counting(CustomPartitionerFn):  # type: ignore[misc]
        def __call__(self, gm: Any, joint_inputs: Any, **kwargs: Any) -> Any:
            joint = copy.deepcopy(gm)
            fw, bw = min_cut_rematerialization_partition(gm, joint_inputs, **kwargs)
            rec.count(joint, fw, bw)
            return fw, bw

        def uuid(self) -> str:
            return "peakorder-bench-min-cut-counting"

    return Counting()


def _limit(text: str) -> Any:
    return int(text) if text.isdigit() else text


def draws_random(model: nn.Module, x: torch.Tensor) -> bool:
    """Whether the model's forward draws random numbers (Dropout, StochasticDepth in training
    mode): an eager forward of a copy moves torch's generator. The generator is put back."""
    state = torch.get_rng_state()
    with torch.no_grad():
        copy.deepcopy(model)(x)
    moved = not torch.equal(state, torch.get_rng_state())
    torch.set_rng_state(state)
    return moved


def compiled(config: str, model: nn.Module, random: bool = False) -> Tuple[Any, Any]:
    """The loss function of ``config`` and what records its partition (or None). ``random``:
    the step draws random numbers (``draws_random``), so Inductor must draw them as eager does."""

    def loss_fn(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(model(x), y)

    torch._dynamo.reset()
    kind, _, arg = config.partition(":")
    if kind == "eager":
        return loss_fn, None
    # Inductor's own random kernels (philox, seeded from the generator) draw other numbers than
    # eager's bernoulli_, so a step with Dropout or StochasticDepth could not be compared with
    # eager's. With fallback_random Inductor calls ATen's random ops on the global generator, in
    # the graph's order (peakorder keeps random ops in order: _effects). Set for every compiled
    # configuration of such a model, PyTorch's and peakorder's alike; its memory cost is one mask
    # buffer per random op, unfused ([16, 1280] floats in mobilenet_v2's classifier). Only there:
    # it changes Inductor's lowering beyond random ops (the 4-block GPT at its least limit
    # measured 18,013,320 bytes with it, 1.27x the limit; docs/pytorch.md).
    torch._inductor.config.fallback_random = random
    if kind == "default":
        return torch.compile(loss_fn), None
    if kind == "pytorch":
        torch._functorch.config.activation_memory_budget = float(arg)
        rec = Recorder()
        return torch.compile(loss_fn, options={"custom_partitioner_fn": pytorch_partitioner(rec)}), rec
    if kind == "ours":
        # ours:LIMIT/noreorder/sched/eagerbn/budget=MS/plan=PATH: extra inductor_options flags
        # (for diagnosis; eagerbn: eager_batch_norm=True), the plan's budget in ms
        # (peakorder.plan's default otherwise), and a plan of the joint graph read from PATH
        # instead of planned (a schedule found within a budget depends on the clock; saved, it
        # is measured again as it was; the last flag, since PATH has slashes)
        arg, _, plan_path = arg.partition("/plan=")
        if plan_path:
            _replay(plan_path)
        arg, flags, extra = _flags(arg)
        extra.update(inductor_reorder="noreorder" not in flags, scheduler="sched" in flags)
        opts = pt.inductor_options(memory_limit=_limit(arg) if arg else None, **extra)
        return torch.compile(loss_fn, options=opts), opts.get("custom_partitioner_fn")
    if kind == "backend":
        # backend:LIMIT/eagerbn/budget=MS: backend(eager_batch_norm=True), the plan's budget
        arg, _, extra = _flags(arg)
        be = pt.backend(memory_limit=_limit(arg) if arg else None, **extra)
        return torch.compile(loss_fn, backend=be), be
    raise SystemExit(f"unknown configuration {config!r}")


def _flags(arg: str) -> Tuple[str, List[str], Dict[str, Any]]:
    """``LIMIT/flag/...``: the limit, the flags, and the options both entry points share
    (``eagerbn``: ``eager_batch_norm=True``; ``budget=MS``: the plan's budget)."""
    arg, *flags = arg.split("/")
    extra: Dict[str, Any] = {"eager_batch_norm": "eagerbn" in flags}
    for f in flags:
        if f.startswith("budget="):
            extra["budget_ms"] = int(f.split("=", 1)[1])
    return arg, flags, extra


def _replay(path: str) -> None:
    """Makes the partitioner use the plan saved in ``path`` (``peakorder.plan``'s dict with
    ``limit_above_inputs_bytes``, as ``_partition.plan_joint`` returns it) for the joint graph,
    after checking that it schedules exactly that graph's ops. A saved plan names the joint
    graph's nodes, so the partition is given the graph with its pointwise chains not collapsed."""
    from peakorder.torch import _partition, _pointwise

    with open(path) as f:
        saved = json.load(f)
    _pointwise.collapse = lambda problem: (problem, {})

    def plan_joint(problem: Any, memory_limit: Any, plan_options: Dict[str, Any]) -> Dict[str, Any]:
        ops = {op["id"] for op in problem.graph["ops"]}
        if set(saved["order"]) != ops:
            raise SystemExit(f"{path}: not a plan of this joint graph (ops differ: "
                             f"{sorted(set(saved['order']) ^ ops)[:5]})")
        return dict(saved)

    _partition.plan_joint = plan_joint


RTOL, ATOL = 1e-4, 1e-5


def _tol_units(a: torch.Tensor, b: torch.Tensor) -> float:
    """max |a - b| / (ATOL + RTOL |b|): torch.allclose(a, b, RTOL, ATOL) holds iff it is <= 1."""
    a, b = a.double(), b.double()
    return float(((a - b).abs() / (ATOL + RTOL * b.abs())).max())


def same_draws_step(fn: Any, model: nn.Module, ref: nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """One compiled step (``fn``, on ``model``, whose gradients it resets first) and one eager
    step of ``ref`` from the same generator state, so that Dropout and StochasticDepth draw the
    same masks in both (with fallback_random, ``compiled``); returns that state. Call it after
    the compiling call: the first call's BatchNorm update does not matter, as training mode
    normalizes by the batch."""
    for p in model.parameters():
        p.grad = None
    rng = torch.get_rng_state()
    fn(x, y).backward()
    torch.set_rng_state(rng)
    F.cross_entropy(ref(x), y).backward()
    return rng


def run_one(name: str, config: str) -> Dict[str, Any]:
    model, (x, y) = build(name)
    ref = copy.deepcopy(model)
    fn, rec = compiled(config, model, random=draws_random(model, x))
    params = list(model.parameters())
    t0 = time.time()
    fn(x, y).backward()  # compiles; Inductor and peakorder's calibration may draw random numbers
    compile_s = time.time() - t0
    rng = same_draws_step(fn, model, ref, x, y)
    grads_ok = all(torch.allclose(p.grad, q.grad, rtol=RTOL, atol=ATOL) for p, q in zip(params, ref.parameters()))
    # How far off, in units of that tolerance (<= 1: allclose), against eager's float32 gradients
    # and against float64 ones from the same masks: where float32 rounding alone exceeds 1e-4
    # (mobilenet_v2: eager against eager in channels-last, docs/pytorch.md), the float64 error
    # of the step beside eager's own says whether the step computes the gradients as well.
    exact = copy.deepcopy(ref).double()
    for q in exact.parameters():
        q.grad = None
    torch.set_rng_state(rng)
    F.cross_entropy(exact(x.double() if x.is_floating_point() else x), y).backward()
    tol_x = lambda a, b: max(_tol_units(p.grad, q.grad) for p, q in zip(a, b))
    grads = {"grads_tol_x": tol_x(params, ref.parameters()), "grads_f64_tol_x": tol_x(params, exact.parameters()),
             "eager_f64_tol_x": tol_x(ref.parameters(), exact.parameters())}
    del exact
    for p in params:
        p.grad = None

    def step() -> torch.Tensor:
        out = fn(x, y)
        out.backward()
        with torch.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-LR)
                p.grad = None
        return out.detach()

    peak = pt.measure_peak(step)
    times = []
    for _ in range(3):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    out: Dict[str, Any] = {"model": name, "config": config, "peak_bytes": peak, "grads_ok": grads_ok, **grads,
                           "step_ms": sorted(times)[1] * 1e3, "compile_s": compile_s}
    if isinstance(rec, Recorder):
        out["recomputed_flops"] = rec.flops
    elif rec is not None and getattr(rec, "records", None):
        plans = [r for r in rec.records if r]
        out["recomputed_flops"] = sum(r["recomputed_flops"] for r in plans)
        out["planned_bytes"] = sum(r["plan"]["peak_bytes"] - r["plan"]["inputs_bytes"] for r in plans)
        out["limit_bytes"] = sum(r["plan"]["limit_above_inputs_bytes"] for r in plans)
    return out


def grads(name: str, config: str) -> List[Tuple[float, str]]:
    """Each parameter's gradient error against eager's (in units of the tolerance, <= 1:
    allclose), worst first: one compiled step and one eager step from the same generator state,
    as ``run_one`` compares them (which parameters miss, not only whether one does)."""
    model, (x, y) = build(name)
    ref = copy.deepcopy(model)
    fn, _ = compiled(config, model, random=draws_random(model, x))
    fn(x, y).backward()  # compiles
    same_draws_step(fn, model, ref, x, y)
    return sorted(((_tol_units(p.grad, q.grad), n) for (n, p), q in zip(model.named_parameters(), ref.parameters())),
                  reverse=True)


def one(name: str, config: str) -> Dict[str, Any]:
    """run_one in a fresh process."""
    cmd = [sys.executable, os.path.abspath(__file__), "one", name, config]
    # Inductor's caches would skip the partitioner, whose record the row reads (the measured
    # peak is the same either way).
    env = dict(os.environ, TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr[-3000:]}")


# --- the sweep ------------------------------------------------------------------------------------

BUDGETS = (1.0, 0.8, 0.5, 0.3, 0.2, 0.1, 0.0)


#: The order a sweep runs its configurations in: the ends of both curves first, so that a sweep
#: stopped early (a torch.compile of a torchvision step takes minutes on a loaded 2-core machine)
#: has already measured what the acceptance compares; the rows are written as they come.
FIRST_BUDGETS = (1.0, 0.5, 0.2, 0.0)


def sweep(name: str, points: int, out_json: Optional[str], budget_ms: Optional[int] = None,
          pytorch: bool = True, eager_batch_norm: bool = False, kind: str = "ours") -> List[Dict[str, Any]]:
    """eager, peakorder at ``points`` limits from its no-recomputation plan down to its least
    limit, PyTorch at every budget (unless ``pytorch`` is false). With ``out_json`` each row is
    saved when measured, and rows already there (same configuration) are kept, not run again: a
    stopped sweep resumes. ``budget_ms``: peakorder's planning budget (``ours:L/budget=MS``);
    ``eager_batch_norm``: peakorder's points with ``inductor_options(eager_batch_norm=True)``
    (``ours:L/eagerbn``); ``kind``: ``ours`` (inductor_options) or ``backend`` (backend())."""
    suffix = ("/eagerbn" if eager_batch_norm else "") + (f"/budget={budget_ms}" if budget_ms else "")
    done: Dict[str, Dict[str, Any]] = {}
    if out_json and os.path.exists(out_json):
        done = {r["config"]: r for r in json.load(open(out_json))}

    def get(config: str) -> Dict[str, Any]:
        if config not in done:
            done[config] = one(name, config)
            print(json.dumps(done[config]), flush=True)
            if out_json:
                with open(out_json, "w") as f:
                    json.dump(list(done.values()), f, indent=1)
        return done[config]

    get("eager")
    top = get(f"{kind}:1TiB" + suffix)  # peakorder's partition with nothing recomputed
    low = get(f"{kind}:min" + suffix)
    hi, lo = top["planned_bytes"], low["limit_bytes"]
    limits = [f"{kind}:{int(hi - (hi - lo) * k / (points - 1))}{suffix}" for k in range(1, points - 1)]
    budgets = [f"pytorch:{b}" for b in BUDGETS] if pytorch else []
    first = [f"pytorch:{b}" for b in FIRST_BUDGETS if pytorch] + limits[1::2]
    for config in first + [c for c in limits + budgets if c not in first]:
        get(config)
    order = ["eager", f"{kind}:1TiB" + suffix, f"{kind}:min" + suffix] + limits + budgets
    rows = [done[c] for c in order] + [r for c, r in done.items() if c not in order]
    if out_json:
        with open(out_json, "w") as f:
            json.dump(rows, f, indent=1)
    return rows


def table(rows: List[Dict[str, Any]]) -> str:
    # The last column when the rows have it: the gradients' error in units of the tolerance
    # (<= 1: allclose) against eager's float32 ones / against float64 ones (eager's own error).
    errs = any("grads_tol_x" in r for r in rows)
    lines = ["| configuration | limit MiB | planned MiB | measured MiB | measured / limit | recomputed GFLOPs | step ms | grads equal eager's |"
             + (" error ×tol: vs eager / vs f64 (eager's) |" if errs else ""),
             "| --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if errs else "")]
    for r in rows:
        lim = r.get("limit_bytes")
        lim = lim if lim and lim < 2**40 else None  # "ours:1TiB": nothing binds
        cells = [r["config"], f"{lim / MiB:.2f}" if lim else "—",
                 f"{r['planned_bytes'] / MiB:.2f}" if "planned_bytes" in r else "—",
                 f"{r['peak_bytes'] / MiB:.2f}", f"{r['peak_bytes'] / lim:.3f}" if lim else "—",
                 f"{r['recomputed_flops'] / 1e9:.3f}" if "recomputed_flops" in r else "—",
                 f"{r['step_ms']:.0f}", "yes" if r["grads_ok"] else "NO"]
        if errs:
            cells.append(f"{r['grads_tol_x']:.3g} / {r['grads_f64_tol_x']:.3g} ({r['eager_f64_tol_x']:.3g})"
                         if "grads_tol_x" in r else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def svg(rows: List[Dict[str, Any]], title: str) -> str:
    """Peak (MiB) against recomputed GFLOPs, both partitioners: an SVG a user reads at a glance."""
    pts = {"peakorder": [], "activation_memory_budget": []}
    for r in rows:
        if "recomputed_flops" not in r:
            continue
        key = "peakorder" if r["config"].startswith(("ours", "backend")) else "activation_memory_budget"
        pts[key].append((r["recomputed_flops"] / 1e9, r["peak_bytes"] / MiB, r["config"].split(":")[-1]))
    allp = [p for v in pts.values() for p in v]
    if not allp:
        return ""
    xmax = max(p[0] for p in allp) * 1.1 or 1
    ymax = max(p[1] for p in allp) * 1.1
    W, H, L, B = 640, 400, 60, 50
    X = lambda x: L + (W - L - 20) * x / xmax
    Y = lambda y: H - B - (H - B - 30) * y / ymax
    colors = {"peakorder": "#1f77b4", "activation_memory_budget": "#d62728"}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
             f'<text x="{W / 2}" y="16" text-anchor="middle" font-size="13">{title}</text>',
             f'<line x1="{L}" y1="{H - B}" x2="{W - 20}" y2="{H - B}" stroke="black"/>',
             f'<line x1="{L}" y1="{H - B}" x2="{L}" y2="30" stroke="black"/>',
             f'<text x="{W / 2}" y="{H - 10}" text-anchor="middle">recomputed GFLOPs</text>',
             f'<text x="14" y="{H / 2}" transform="rotate(-90 14 {H / 2})" text-anchor="middle">measured peak (MiB)</text>']
    for i in range(5):
        xv, yv = xmax * i / 4, ymax * i / 4
        parts.append(f'<text x="{X(xv)}" y="{H - B + 14}" text-anchor="middle">{xv:.2f}</text>')
        parts.append(f'<text x="{L - 4}" y="{Y(yv) + 4}" text-anchor="end">{yv:.0f}</text>')
    for j, (key, ps) in enumerate(pts.items()):
        ps = sorted(ps)
        c = colors[key]
        if ps:
            parts.append('<polyline fill="none" stroke="%s" points="%s"/>' % (c, " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y, _ in ps)))
        for x, y, lab in ps:
            parts.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3" fill="{c}"/>')
            if key == "activation_memory_budget":
                parts.append(f'<text x="{X(x) + 4:.1f}" y="{Y(y) - 4:.1f}" fill="{c}">{lab}</text>')
        parts.append(f'<text x="{W - 200}" y="{40 + 14 * j}" fill="{c}">● {key}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("one")
    a.add_argument("model")
    a.add_argument("config")
    s = sub.add_parser("sweep")
    s.add_argument("model")
    s.add_argument("--points", type=int, default=6)
    s.add_argument("--json")
    s.add_argument("--svg")
    s.add_argument("--budget-ms", type=int, help="peakorder's planning budget (default: the partition's, 1 ms per op, 100 ms to 2 s)")
    s.add_argument("--no-pytorch", action="store_true", help="peakorder's curve only")
    s.add_argument("--eager-batch-norm", action="store_true",
                   help="peakorder's points with eager_batch_norm=True")
    s.add_argument("--backend", action="store_true",
                   help="peakorder's points through backend() (AOTAutograd + fx, every op ATen's) instead of Inductor")
    g = sub.add_parser("grads", help="each parameter's gradient error against eager's, worst first")
    g.add_argument("model")
    g.add_argument("config")
    g.add_argument("--top", type=int, default=12)
    t = sub.add_parser("table")
    t.add_argument("json")
    t.add_argument("--svg")
    args = ap.parse_args(argv)
    if args.cmd == "one":
        print(json.dumps(run_one(args.model, args.config)), flush=True)
        return
    if args.cmd == "grads":
        errs = grads(args.model, args.config)
        for e, n in errs[:args.top]:
            print(f"{e:10.3f}  {n}")
        print(f"{sum(e > 1 for e, _ in errs)} of {len(errs)} parameters over the tolerance")
        return
    rows = (sweep(args.model, args.points, args.json, args.budget_ms, not args.no_pytorch, args.eager_batch_norm,
                  "backend" if args.backend else "ours")
            if args.cmd == "sweep"
            else json.load(open(args.json)))
    print(table(rows))
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(svg(rows, f"{rows[0]['model']}: one training step, torch.compile, CPU"))


if __name__ == "__main__":
    main()
