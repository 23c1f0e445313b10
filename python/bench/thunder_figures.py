"""The figures of docs/thunder.md: the seed functions and checkpointed training steps through
Thunder, with and without peakorder, with and without torch.compile regions.

    .venv-thunder/bin/python python/bench/thunder_figures.py [--device cuda]

Every peak is measured by PyTorch's allocator: on the CPU the profiler's memory events
(thunder_cases.measure_peak), on CUDA torch.cuda.max_memory_allocated. Beside it: Thunder's own
static estimate of the final trace (thunder.examine.memory_calculation.get_alloc_memory) and
peakorder's planned peak of it, both above the trace's inputs. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import thunder_cases as cases  # noqa: E402
import torch  # noqa: E402

MiB = cases.MiB


def thunder_estimate(trace) -> int:
    """get_alloc_memory's peak minus the trace's inputs (it counts them as allocated first)."""
    from thunder.core.proxies import TensorProxy
    from thunder.core.pytree import tree_iter
    from thunder.examine.memory_calculation import get_alloc_memory

    peak, _ = get_alloc_memory(trace)
    inputs = sum(a.numel * a.dtype.bytes for a in tree_iter((trace.args, trace.kwargs)) if isinstance(a, TensorProxy))
    return peak - inputs


def planned(trace, forward=None) -> int:
    """peakorder's model of a final trace as it runs (its own order), above its inputs; for a
    backward trace, `forward` tells which inputs are the forward's (kept by their owner)."""
    import peakorder
    import peakorder.thunder as pt
    from peakorder.thunder.order import backward_donated, prologue_tensors

    donated = backward_donated(trace, prologue_tensors(forward)) if forward is not None else ()
    p = peakorder.plan(pt.from_trace(trace, donated=donated).graph, method="program")
    return p["peak_bytes"] - p["inputs_bytes"]


def cuda_peak(fn, *args, setup=None):
    import gc

    if setup is not None:
        setup()
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = fn(*args)
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - base, out


def configs(device: str):
    import thunder
    import peakorder.thunder as pt

    if device == "cuda":
        from thunder.executors.nvfuserex import nvfuserex

        fusion, fname = [nvfuserex], "nvFuser"
    else:
        from thunder.executors.torch_compile import torch_compile_ex

        fusion, fname = [torch_compile_ex], "torch_compile_ex"
    out = [
        ("Thunder, no fusion executor", "thunder.jit(fn)", lambda f: thunder.jit(f)),
        ("peakorder, no fusion executor", "peakorder.thunder.jit(fn)", lambda f: pt.jit(f)),
        (f"Thunder + {fname}", f"thunder.jit(fn, executors=[{fname}])", lambda f: thunder.jit(f, executors=fusion)),
        (
            f"Thunder + {fname}, dataflow",
            f'thunder.jit(fn, executors=[{fname}], fusion_type="dataflow")',
            lambda f: thunder.jit(f, executors=fusion, fusion_type="dataflow"),
        ),
        (f"peakorder + {fname}", f"peakorder.thunder.jit(fn, executors=[{fname}])", lambda f: pt.jit(f, executors=fusion)),
    ]
    if device == "cpu":
        # Ablation: Thunder's own regions with only Inductor's reordering switched off, to show
        # what the region choice and order add beyond that switch.
        out.insert(
            4,
            (
                f"Thunder + {fname}, {ABLATION}",
                f"thunder.jit(fn, executors=[{fname}]) under torch._inductor.config.patch({KEEP})",
                lambda f: thunder.jit(f, executors=fusion),
            ),
        )
    return out


KEEP = "reorder_for_locality=False, reorder_for_peak_memory=False"
ABLATION = "Inductor reordering off"


def keep_order_if(label: str):
    """The ablation row runs (compiles and measures, forward and backward) under the patch."""
    import contextlib

    if ABLATION not in label:
        return contextlib.nullcontext()
    import torch._inductor.config as inductor_config
    from peakorder.thunder.fusion import INDUCTOR_KEEP_ORDER

    return inductor_config.patch(INDUCTOR_KEEP_ORDER)


def mib(b) -> str:
    return "" if b is None else f"{b / MiB:.2f}"


def seed_table(device: str) -> None:
    import thunder
    import peakorder.thunder as pt

    peak_of = cuda_peak if device == "cuda" else cases.measure_peak
    args = cases.seed_inputs(device)
    print("| function | configuration | measured (MiB above inputs) | Thunder's estimate | peakorder's model | kernels | output = eager |")
    print("|---|---|---|---|---|---|---|")
    for fn in cases.SEEDS:
        expect = fn(*args)
        fn(*args)
        eager, _ = peak_of(fn, *args)
        print(f"| `{fn.__name__}` | eager PyTorch | {mib(eager)} | | | 40 | yes |")
        for label, _, make in configs(device):
            with keep_order_if(label):
                jfn = make(fn)
                jfn(*args)
                peak, out = peak_of(jfn, *args)
            tr = thunder.last_traces(jfn)[-1]
            same = "yes" if torch.equal(out, expect) else ("close" if torch.allclose(out, expect) else "NO")
            print(
                f"| `{fn.__name__}` | {label} | {mib(peak)} | {mib(thunder_estimate(tr))} | {mib(planned(tr))} "
                f"| {pt.kernel_count(tr)} | {same} |"
            )


def training_table(device: str) -> None:
    import thunder
    import peakorder.thunder as pt

    peak_of = cuda_peak if device == "cuda" else cases.measure_peak
    print(
        "| model | configuration | step measured (MiB) | forward measured | backward measured "
        "| Thunder's estimate fwd / bwd | peakorder's model fwd / bwd | kernels fwd / bwd | gradients = eager |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, make_model in (("4 checkpointed MLP blocks", cases.checkpointed_mlp), ("4 checkpointed transformer blocks", cases.checkpointed_transformer)):
        net, x = make_model()
        net, x = net.to(device), x.to(device)
        clear = cases.clear_grads(net)
        clear()
        cases.training_step(net)(x)
        expect = [p.grad.clone() for p in net.parameters()]
        step_peak, _ = peak_of(cases.training_step(net), x, setup=clear)
        fw_peak, _ = peak_of(lambda x: cases.loss_of(net, x), x, setup=clear)
        loss = cases.loss_of(net, x)
        bw_peak, _ = peak_of(loss.backward)
        del loss
        print(f"| {name} | eager PyTorch | {mib(step_peak)} | {mib(fw_peak)} | {mib(bw_peak)} | | | | yes |")
        for label, _, make in configs(device):
            with keep_order_if(label):
                jm = make(net)
                clear()
                cases.training_step(jm)(x)
                same = all(torch.allclose(p.grad, e, rtol=1e-4, atol=1e-5) for p, e in zip(net.parameters(), expect))
                step_peak, _ = peak_of(cases.training_step(jm), x, setup=clear)
                fw_peak, _ = peak_of(lambda x: cases.loss_of(jm, x), x, setup=clear)
                loss = cases.loss_of(jm, x)
                bw_peak, _ = peak_of(loss.backward)
                del loss
            fw = thunder.last_traces(jm)[-1]
            bw = thunder.last_backward_traces(jm)[-1]
            print(
                f"| {name} | {label} | {mib(step_peak)} | {mib(fw_peak)} | {mib(bw_peak)} "
                f"| {mib(thunder_estimate(fw))} / {mib(thunder_estimate(bw))} "
                f"| {mib(planned(fw))} / {mib(planned(bw, fw))} "
                f"| {pt.kernel_count(fw)} / {pt.kernel_count(bw)} | {'yes' if same else 'NO'} |"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--only", choices=["seed", "training"])
    a = ap.parse_args()
    start = time.time()
    print("| configuration | how fn (the function or the module) is compiled |")
    print("|---|---|")
    for label, cmd, _ in configs(a.device):
        print(f"| {label} | `{cmd}` |")
    print()
    if a.only != "training":
        seed_table(a.device)
        print()
    if a.only != "seed":
        training_table(a.device)
    print(f"\n({time.time() - start:.0f} s; torch {torch.__version__})")


if __name__ == "__main__":
    main()
