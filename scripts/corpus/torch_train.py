"""PyTorch training steps of torchvision models as peakorder graphs.

Each graph is one SGD step traced with ``make_fx`` (fake tensors, nothing computed): forward,
cross-entropy loss, backward (``torch.autograd.grad``) and the update ``p - lr * g``. The
parameters are donated (the step returns their new values, as an optimizer updating in place
would free the old ones); batch-norm buffers are updated in place (views of the inputs).

    python scripts/corpus/torch_train.py OUT_DIR [--models resnet18,...] [--batch 4] [--size 64]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

# peakorder is the installed package (its native extension is built into the wheel, not the
# source tree): the .venv of scripts/test.sh has it.

# The default list: the five at batch 4, 64x64, then other torchvision families.
MODELS = [
    "resnet18",
    "resnet50",
    "mobilenet_v2",
    "efficientnet_b0",
    "densenet121",
    "mobilenet_v3_small",
    "shufflenet_v2_x1_0",
    "squeezenet1_1",
    "mnasnet1_0",
    "regnet_y_400mf",
    "googlenet",
    "resnext50_32x4d",
    "vgg11",
    "convnext_tiny",
    "vit_b_16",
    "swin_t",
]


def fill_getitem_vals(gm) -> None:
    """make_fx (torch 2.15) leaves `getitem` nodes on multi-output ops (native_batch_norm)
    without `meta['val']`; the exporter needs it on every node, so take it from the source."""
    import operator

    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is operator.getitem and "val" not in n.meta:
            src = n.args[0].meta.get("val")
            if isinstance(src, (list, tuple)) and isinstance(n.args[1], int):
                n.meta["val"] = src[n.args[1]]


def export(name: str, batch: int, size: int) -> dict:
    import torch
    import torch.nn.functional as F
    import torchvision
    from torch.fx.experimental.proxy_tensor import make_fx

    import peakorder

    kwargs = {"weights": None, "num_classes": 10}
    if name == "googlenet":
        kwargs.update(aux_logits=False, init_weights=False)
    if name in ("vit_b_16",):
        kwargs["image_size"] = size
    model = torchvision.models.get_model(name, **kwargs)
    model.train()
    names = [n for n, _ in model.named_parameters()]
    bnames = [n for n, _ in model.named_buffers()]

    def step(params, buffers, x, y):
        p = {n: t for n, t in zip(names, params)}
        p.update({n: t for n, t in zip(bnames, buffers)})
        out = torch.func.functional_call(model, p, (x,))
        loss = F.cross_entropy(out, y)
        grads = torch.autograd.grad(loss, params)
        return [w - 0.01 * g for w, g in zip(params, grads)], loss.detach()

    params = [t.detach().clone().requires_grad_(True) for t in model.parameters()]
    buffers = [t.detach().clone() for t in model.buffers()]
    x = torch.randn(batch, 3, size, size)
    y = torch.randint(0, 10, (batch,))
    gm = make_fx(step, tracing_mode="fake")(params, buffers, x, y)
    fill_getitem_vals(gm)
    placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    donate = placeholders[: len(params)]
    g = peakorder.export.from_fx(gm, donate=donate)
    g.setdefault("meta", {}).update(
        {"family": "torch-train", "model": name, "batch": batch, "image": size,
         "note": "make_fx SGD step: forward, cross-entropy, autograd.grad, p - 0.01 g; parameters donated"}
    )
    return g


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--size", type=int, default=64)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name in a.models.split(","):
        path = os.path.join(a.out, f"torch-train-{name}.json")
        if os.path.exists(path):
            print(f"{path}: exists", flush=True)
            continue
        t0 = time.time()
        try:
            g = export(name, a.batch, a.size)
        except Exception as e:  # one model failing must not lose the others
            print(f"{name}: FAILED {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            continue
        with open(path + ".tmp", "w") as f:
            json.dump(g, f, separators=(",", ":"))
        os.replace(path + ".tmp", path)
        print(f"{path}: {len(g['ops'])} ops, {len(g['tensors'])} tensors, {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
