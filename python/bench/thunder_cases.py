"""The programs docs/thunder.md measures, and the measurement itself; shared by
python/bench/thunder_figures.py and python/tests/test_thunder.py.

- the seed report's two functions (shared/seeds/thunder-horizontal-fusion-memory.md), 10 paths of
  256x256 f32;
- a training step with activation checkpointing: 4 checkpointed MLP blocks, and 4 checkpointed
  transformer blocks;
- `measure_peak`: PyTorch's allocator as the profiler records it (docs/design.md's rule): the
  running sum of the "[memory]" events' bytes in start order; its maximum is the peak above what
  was allocated before (the inputs).
"""

from __future__ import annotations

import gc
from typing import Any, Callable, Optional, Tuple

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from peakorder.torch import peak_of_events

MiB = 1024 * 1024


def measure_peak(fn: Callable, *args: Any, setup: Optional[Callable] = None) -> Tuple[int, Any]:
    """(peak bytes above the start while fn(*args) runs, fn's result); `setup` runs before the
    profiler starts. Python's cyclic GC is off meanwhile: a collection inside would free memory
    at an arbitrary point."""
    from torch.profiler import ProfilerActivity, profile

    if setup is not None:
        setup()
    gc.collect()
    gc.disable()
    try:
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            out = fn(*args)
    finally:
        gc.enable()
    return peak_of_events(prof.profiler.kineto_results.events()), out


def memory_peak_efficient_func(t0s, a):
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
    t1s = []
    for t0 in t0s:
        t1 = torch.nn.functional.relu(t0)
        del t0
        t1s.append(t1)
    del t0s
    t2s = []
    while t1s:
        t1 = t1s.pop()
        t2 = torch.matmul(t1, t1)
        del t1
        t2s.append(t2)
    del t1s
    t3s = []
    while t2s:
        t2 = t2s.pop()
        t3 = torch.nn.functional.relu(t2)
        del t2
        t3s.append(t3)
    del t2s
    while t3s:
        t3 = t3s.pop()
        a = torch.matmul(t3, a)
        del t3
    del t3s
    return a


SEEDS = (memory_peak_efficient_func, memory_peak_inefficient_func)


def seed_inputs(device: str = "cpu", paths: int = 10):
    g = torch.Generator().manual_seed(0)
    t0s = [torch.randn(256, 256, generator=g).to(device) for _ in range(paths)]
    a = torch.randn(256, 256, generator=g).to(device)
    return t0s, a


class MLPBlock(torch.nn.Module):
    def __init__(self, d: int, h: int) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(d, h)
        self.fc2 = torch.nn.Linear(h, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(x)))


class TransformerBlock(torch.nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)
        self.heads = heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Checkpointed(torch.nn.Module):
    """Blocks run under torch.utils.checkpoint: only each block's input is saved for backward."""

    def __init__(self, blocks) -> None:
        super().__init__()
        self.blocks = torch.nn.ModuleList(blocks)

    def forward(self, x):
        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=False)
        return x


def checkpointed_mlp(seed: int = 0):
    """4 checkpointed MLP blocks (128 -> 512 -> 128) and a batch of 1024 rows."""
    torch.manual_seed(seed)
    return Checkpointed([MLPBlock(128, 512) for _ in range(4)]), torch.randn(1024, 128)


def checkpointed_transformer(seed: int = 0):
    """4 checkpointed transformer blocks (width 128, 4 heads) and a batch of 8 x 128 tokens."""
    torch.manual_seed(seed)
    return Checkpointed([TransformerBlock(128, 4) for _ in range(4)]), torch.randn(8, 128, 128)


def loss_of(model, x):
    return model(x).square().mean()


def training_step(model):
    """forward + loss + backward of `model` (a module or its jitted version)."""

    def step(x):
        loss = loss_of(model, x)
        loss.backward()
        return loss

    return step


def clear_grads(net) -> Callable[[], None]:
    def clear() -> None:
        for p in net.parameters():
            p.grad = None

    return clear

