"""PyTorch inference graphs of torchvision models, traced with ``torch.export`` (eval mode, batch
1, 224x224 unless given) and converted with ``peakorder.export.from_fx``. Weights are pinned graph
inputs; activations are freed after their last reader.

    python scripts/corpus/torch_infer.py OUT_DIR [--models ...] [--batch 1] [--size 224]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

# peakorder is the installed package (its native extension is built into the wheel, not the
# source tree): the .venv of scripts/test.sh has it.

MODELS = ["resnet50", "mobilenet_v3_large", "efficientnet_b0", "densenet121", "inception_v3",
          "regnet_x_800mf", "convnext_tiny", "vit_b_16", "swin_t", "maxvit_t"]


def main() -> None:
    import torch
    import torchvision

    import peakorder

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--size", type=int, default=224)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name in a.models.split(","):
        path = os.path.join(a.out, f"torch-infer-{name}.json")
        if os.path.exists(path):
            print(f"{path}: exists", flush=True)
            continue
        t0 = time.time()
        try:
            kw = {"weights": None}
            if name == "inception_v3":
                kw.update(aux_logits=False, init_weights=False)
            size = 299 if name == "inception_v3" else a.size
            model = torchvision.models.get_model(name, **kw).eval()
            with torch.no_grad():
                ep = torch.export.export(model, (torch.randn(a.batch, 3, size, size),))
            g = peakorder.export.from_fx(ep)
        except Exception as e:  # one model failing must not lose the others
            print(f"{name}: FAILED {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            continue
        g.setdefault("meta", {}).update({"family": "torch-infer", "model": name, "batch": a.batch, "image": size})
        with open(path + ".tmp", "w") as f:
            json.dump(g, f, separators=(",", ":"))
        os.replace(path + ".tmp", path)
        print(f"{path}: {len(g['ops'])} ops, {len(g['tensors'])} tensors, {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
