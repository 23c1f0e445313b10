"""Checks behind docs/pytorch.md, "Gradients of a step that draws random numbers".

    python python/bench/torch_budget_rng.py masks CONFIG 0|1   # small step: compiled vs eager, fallback_random off|on
    python python/bench/torch_budget_rng.py drift MODEL        # eager vs eager: channels-last, float64, 1 thread

``masks`` prints the worst gradient error in units of the tolerance (<= 1: allclose at rtol 1e-4,
atol 1e-5) and the random ops in PyTorch's forward and backward graphs (``pytorch:B`` configs).
``drift`` prints, per change, (worst error, parameter), the classifier's errors, how many
parameters fail allclose, and how many there are."""
import copy
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_budget as tb  # noqa: E402


def masks(config: str, fallback: bool) -> None:
    import torchvision.ops as tvo
    from torch._functorch import partitioners as P

    seen = []
    orig = P.min_cut_rematerialization_partition
    seeded = lambda gm: [str(n.target) for n in gm.graph.nodes
                         if hasattr(n.target, "tags") and torch.Tag.nondeterministic_seeded in n.target.tags]

    def spy(gm, ji, **kw):
        fw, bw = orig(gm, ji, **kw)
        seen.append((seeded(fw), seeded(bw)))
        return fw, bw

    P.min_cut_rematerialization_partition = spy  # torch_budget imports it at call time

    class M(nn.Module):
        def __init__(s):
            super().__init__()
            s.c, s.bn, s.sd = nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), tvo.StochasticDepth(0.3, "row")
            s.c2, s.d, s.fc = nn.Conv2d(8, 8, 3, padding=1), nn.Dropout(0.2), nn.Linear(8, 10)

        def forward(s, x):
            h = F.relu(s.bn(s.c(x)))
            h = h + s.sd(s.c2(h))
            return s.fc(s.d(h.mean((2, 3))))

    torch.manual_seed(0)
    m = M()
    ref = copy.deepcopy(m)
    x, y = torch.randn(16, 3, 16, 16), torch.randint(0, 10, (16,))
    fn, _ = tb.compiled(config, m, random=fallback)
    fn(x, y).backward()  # compiles
    tb.same_draws_step(fn, m, ref, x, y)
    print(config, "fallback_random", fallback, "random ops fw/bw:", seen,
          "tol_x:", max(tb._tol_units(p.grad, q.grad) for p, q in zip(m.parameters(), ref.parameters())))


def drift(name: str) -> None:
    model, (x, y) = tb.build(name)

    def grads(m, x, threads=None, cl=False):
        if threads:
            torch.set_num_threads(threads)
        m = copy.deepcopy(m)
        if cl:
            m, x = m.to(memory_format=torch.channels_last), x.contiguous(memory_format=torch.channels_last)
        torch.manual_seed(123)
        F.cross_entropy(m(x), y).backward()
        torch.set_num_threads(2)
        return [(n, p.grad.double()) for n, p in m.named_parameters()]

    def worst(a, b):
        r = sorted(((tb._tol_units(p, q), n) for (n, p), (_, q) in zip(a, b)), reverse=True)
        return r[0], [t for t in r if t[1].startswith("classifier")], sum(v > 1 for v, _ in r), len(r)

    g = grads(model, x)
    print("f32 vs f64:", worst(g, grads(copy.deepcopy(model).double(), x.double())))
    print("f32 1 thread vs 2:", worst(grads(model, x, threads=1), g))
    print("f32 channels_last vs contiguous:", worst(grads(model, x, cl=True), g))


if __name__ == "__main__":
    if sys.argv[1] == "masks":
        masks(sys.argv[2], sys.argv[3] == "1")
    else:
        drift(sys.argv[2])
