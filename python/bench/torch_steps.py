"""The PyTorch measurements of docs/pytorch.md, measured by PyTorch's allocator
(peakorder.torch.measure_peak: the CPU profiler's memory events).

    python python/bench/torch_steps.py seed
    python python/bench/torch_steps.py reorder resnet18 mobilenet_v2 ...   # make_fx steps
    python python/bench/torch_steps.py compile resnet18 ... [--modes eager,default,ours]

Each prints a Markdown table. The same builders serve python/tests/test_torch_*.py."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Callable, Dict, List, Sequence, Tuple

import torch

import peakorder.torch as pt

MiB = 2**20
MODELS = ("resnet18", "resnet50", "mobilenet_v2", "efficientnet_b0", "densenet121")
BATCH, SIZE, CLASSES, LR = 4, 64, 10, 0.01
N_PATHS = 10


# --- the seed (../shared/seeds/): ten relu -> matmul -> relu -> matmul paths ---------------------


def seed_inputs(device: str = "cpu") -> Tuple[List[torch.Tensor], torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    t0s = [torch.randn(256, 256, generator=g).to(device) for _ in range(N_PATHS)]
    return t0s, torch.randn(256, 256, generator=g).to(device)


def memory_peak_efficient_func(t0s, a):
    """The seed report's memory-efficient eager function: path by path, with dels."""
    for t0 in t0s:
        t1 = torch.nn.functional.relu(t0)
        del t0
        t2 = torch.matmul(t1, t1)
        del t1
        t3 = torch.nn.functional.relu(t2)
        del t2
        a = torch.matmul(t3, a)
        del t3
    return a


def memory_peak_inefficient_func(t0s, a):
    """The seed written breadth-first (the report's memory_peak_inefficient_func)."""
    t1s = []
    for t0 in t0s:
        t1 = torch.nn.functional.relu(t0)
        del t0
        t1s.append(t1)
    t2s = []
    while t1s:
        t1 = t1s.pop()
        t2 = torch.matmul(t1, t1)
        del t1
        t2s.append(t2)
    t3s = []
    while t2s:
        t2 = t2s.pop()
        t3 = torch.nn.functional.relu(t2)
        del t2
        t3s.append(t3)
    while t3s:
        t3 = t3s.pop()
        a = torch.matmul(t3, a)
        del t3
    return a


SEED_FUNCTIONS = {"breadth-first": memory_peak_inefficient_func, "efficient": memory_peak_efficient_func}


def seed_compiled(fn: Callable, mode: str) -> Callable:
    torch._dynamo.reset()
    if mode == "eager":
        return fn
    if mode == "default":
        return torch.compile(fn)
    if mode == "ours":
        return torch.compile(fn, options=pt.inductor_options())
    if mode == "backend":
        return torch.compile(fn, backend=pt.backend())
    raise ValueError(mode)


# --- torchvision training steps -------------------------------------------------------------------


def model(name: str) -> torch.nn.Module:
    import torchvision

    torch.manual_seed(0)
    return getattr(torchvision.models, name)(num_classes=CLASSES)


def batch() -> Tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    return torch.randn(BATCH, 3, SIZE, SIZE, generator=g), torch.randint(0, CLASSES, (BATCH,), generator=g)


class FxStep:
    """make_fx of forward + cross-entropy + backward (torch.autograd.grad) + SGD update of one
    torchvision model: ``gm(params, buffers, x, y) -> (loss, new_params)``; BatchNorm updates its
    running statistics (buffers) in place, dropout and stochastic depth draw random numbers."""

    def __init__(self, name: str) -> None:
        from torch.fx.experimental.proxy_tensor import make_fx
        from torch.func import functional_call

        m = model(name)
        pnames = [n for n, _ in m.named_parameters()]
        bnames = [n for n, _ in m.named_buffers()]

        def step(params, buffers, x, y):
            state = dict(zip(pnames, params))
            state.update(zip(bnames, buffers))
            loss = torch.nn.functional.cross_entropy(functional_call(m, state, (x,)), y)
            grads = torch.autograd.grad(loss, params)
            return loss, [p - LR * g for p, g in zip(params, grads)]

        self.name = name
        params = [p.detach().requires_grad_() for p in m.parameters()]
        self.buffers0 = [b.detach().clone() for b in m.buffers()]
        self.x, self.y = batch()
        self.gm = make_fx(step)(params, [b.clone() for b in self.buffers0], self.x, self.y)
        # Run with plain tensors: the graph holds its own backward.
        self.params = [p.detach() for p in params]
        self.buffers = [b.clone() for b in self.buffers0]

    def flat_inputs(self) -> List[torch.Tensor]:
        return [*self.params, *self.buffers, self.x, self.y]

    def reset(self) -> None:
        for b, b0 in zip(self.buffers, self.buffers0):
            b.copy_(b0)

    def __call__(self) -> Any:
        return self.gm(self.params, self.buffers, self.x, self.y)

    def run_fresh(self, seed: int = 2) -> List[torch.Tensor]:
        """Outputs and updated buffers of one step from the initial state (same random draws)."""
        self.reset()
        torch.manual_seed(seed)
        loss, new = self()
        return [loss, *new, *[b.clone() for b in self.buffers]]

    def measure(self) -> int:
        self.reset()
        return pt.measure_peak(self)


def compile_options(mode: str) -> Dict[str, Any]:
    """torch.compile options of a mode: ``default``, ``ours`` (inductor_options()), ``ours+sched``
    (with the scheduler pass); ``-nolayout`` also turns off Inductor's conv layout optimization,
    ``-noreuse`` its wrapper's buffer reuse (``allow_buffer_reuse=False``), ``-nolimit`` uses
    peakorder's partition at a limit nothing reaches (``ours-nolimit``)."""
    base, _, extra = mode.partition("-")
    opts: Dict[str, Any] = {
        "default": {},
        "ours": pt.inductor_options(),
        "ours+sched": pt.inductor_options(scheduler=True),
    }[base]
    if extra == "nolayout":
        opts = {**opts, "layout_optimization": False}
    elif extra == "noreuse":
        opts = {**opts, "allow_buffer_reuse": False}
    elif extra == "nolimit":
        # peakorder's partition with a limit no step reaches: what the forward saves is the
        # plan's, nothing recomputed (against Inductor's min-cut partition in ``ours``).
        opts = pt.inductor_options(memory_limit=1 << 50)
    elif extra:
        raise ValueError(f"unknown mode {mode!r}")
    return opts


class CompiledStep:
    """One training step of a torch.compile'd (or eager) model: forward, cross-entropy,
    ``loss.backward()``, in-place SGD update, gradients dropped."""

    def __init__(self, name: str, mode: str) -> None:
        torch._dynamo.reset()
        self.model = model(name)
        self.x, self.y = batch()
        if mode == "eager":
            self.fn = self.model
        elif mode == "backend":
            self.fn = torch.compile(self.model, backend=pt.backend())
        else:
            self.fn = torch.compile(self.model, options=compile_options(mode))
        self.params = list(self.model.parameters())

    def __call__(self) -> torch.Tensor:
        loss = torch.nn.functional.cross_entropy(self.fn(self.x), self.y)
        loss.backward()
        with torch.no_grad():
            for p in self.params:
                p.add_(p.grad, alpha=-LR)
                p.grad = None
        return loss.detach()


# --- the tables -----------------------------------------------------------------------------------


def _mib(b: float) -> str:
    return f"{b / MiB:.2f}"


def run_seed(device: str = "cpu", check: bool = False) -> None:
    """The seed table; ``check``: fail unless peakorder's three ways measure 0.75 MiB with
    eager's output bits (what scripts/gpu.d/50-torch.sh asks on CUDA)."""
    t0s, a = seed_inputs(device)
    print("| function | eager | torch.compile | inductor_options() | backend() | outputs equal eager's |")
    print("| --- | --- | --- | --- | --- | --- |")
    failed = []
    for label, fn in SEED_FUNCTIONS.items():
        ref = fn(t0s, a)
        cells, same = [], True
        for mode in ("eager", "default", "ours", "backend"):
            f = seed_compiled(fn, mode)
            out = f(t0s, a)
            same = same and torch.equal(out, ref)
            peak = pt.measure_peak(f, t0s, a)
            cells.append(_mib(peak))
            if mode in ("ours", "backend") and peak != 3 * 256 * 256 * 4:
                failed.append(f"{label} {mode}: {_mib(peak)} MiB")
        if not same:
            failed.append(f"{label}: outputs differ from eager's")
        print(f"| {label} | " + " | ".join(cells) + f" | {'yes' if same else 'NO'} |")
    if check and failed:
        raise SystemExit("seed check failed: " + "; ".join(failed))


def run_reorder(names: Sequence[str]) -> None:
    print("| model | fx nodes | measured before | measured after | predicted before | predicted after | identical | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in names:
        t = time.time()
        s = FxStep(name)
        ref = s.run_fresh()
        before = s.measure()
        plan = pt.reorder(s.gm, s.flat_inputs(), calibrate=True)
        new = s.run_fresh()
        after = s.measure()
        same = all(torch.equal(p, q) for p, q in zip(ref, new))
        ib = plan["inputs_bytes"]
        print(
            f"| {name} | {len(s.gm.graph.nodes)} | {_mib(before)} | {_mib(after)} | "
            f"{_mib(plan['program_order_peak_bytes'] - ib)} | {_mib(plan['applied_peak_bytes'] - ib)} | "
            f"{'yes' if same else 'NO'} | {time.time() - t:.0f} |",
            flush=True,
        )


def run_compile(names: Sequence[str], modes: Sequence[str]) -> None:
    print("| model | " + " | ".join(modes) + " |")
    print("| --- | " + " | ".join("---" for _ in modes) + " |")
    for name in names:
        cells = []
        for mode in modes:
            t = time.time()
            step = CompiledStep(name, mode)
            cells.append(f"{_mib(pt.measure_peak(step))} ({time.time() - t:.0f} s)")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def main(argv: Sequence[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("seed", "reorder", "compile"))
    ap.add_argument("models", nargs="*", default=list(MODELS))
    ap.add_argument("--modes", default="eager,default,ours")
    ap.add_argument("--device", default="cpu", help="seed: cpu or cuda")
    ap.add_argument("--check", action="store_true", help="seed: fail unless peakorder's ways measure 0.75 MiB")
    args = ap.parse_args(argv)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; MiB above what was live before one call")
    if args.what == "seed":
        run_seed(args.device, args.check)
    elif args.what == "reorder":
        run_reorder(args.models)
    else:
        run_compile(args.models, args.modes.split(","))


if __name__ == "__main__":
    main(sys.argv[1:])
