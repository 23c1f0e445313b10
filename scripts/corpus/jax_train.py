"""JAX training steps as peakorder graphs (pure JAX, no Flax): ResNet-50, BERT (4 layers), GPT-2
small, and smaller variants. Each step is ``loss -> jax.grad -> p - lr * g`` traced with
``jax.make_jaxpr`` through ``peakorder.export.from_jaxpr``, parameters donated (as
``jax.jit(step, donate_argnums=0)`` would).

    python scripts/corpus/jax_train.py OUT_DIR [--models resnet50,bert4,gpt2]
"""

from __future__ import annotations

import argparse
import json
import os
import time

# peakorder is the installed package (its native extension is built into the wheel, not the
# source tree): the .venv of scripts/test.sh has it.

import jax
import numpy as np
import jax.numpy as jnp
from jax import lax

LR = 0.01


def _zeros(*shape, dtype=np.float32):
    # Values are never computed (only traced), so numpy zeros avoid one JAX dispatch per array.
    return np.zeros(shape, dtype)


# ---------------------------------------------------------------- ResNet (bottleneck, NHWC)

def conv(x, w, stride=1):
    return lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def batchnorm(x, p):
    mean = jnp.mean(x, axis=(0, 1, 2))
    var = jnp.var(x, axis=(0, 1, 2))
    return (x - mean) * lax.rsqrt(var + 1e-5) * p["g"] + p["b"]


def resnet_params(blocks, width=64, classes=10):
    w = _zeros

    def bn(c):
        return {"g": _zeros(c), "b": _zeros(c)}

    p = {"stem": {"w": w(7, 7, 3, width), "bn": bn(width)}, "stages": []}
    cin = width
    for s, n in enumerate(blocks):
        mid = width * 2**s
        out = mid * 4
        stage = []
        for i in range(n):
            blk = {
                "w1": w(1, 1, cin, mid), "bn1": bn(mid),
                "w2": w(3, 3, mid, mid), "bn2": bn(mid),
                "w3": w(1, 1, mid, out), "bn3": bn(out),
            }
            if i == 0:
                blk["wd"] = w(1, 1, cin, out)
                blk["bnd"] = bn(out)
            stage.append(blk)
            cin = out
        p["stages"].append(stage)
    p["fc"] = {"w": w(cin, classes), "b": _zeros(classes)}
    return p


def resnet_loss(p, x, y):
    h = jax.nn.relu(batchnorm(conv(x, p["stem"]["w"], 2), p["stem"]["bn"]))
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    for s, stage in enumerate(p["stages"]):
        for i, blk in enumerate(stage):
            stride = 2 if (i == 0 and s > 0) else 1
            r = jax.nn.relu(batchnorm(conv(h, blk["w1"]), blk["bn1"]))
            r = jax.nn.relu(batchnorm(conv(r, blk["w2"], stride), blk["bn2"]))
            r = batchnorm(conv(r, blk["w3"]), blk["bn3"])
            sc = batchnorm(conv(h, blk["wd"], stride), blk["bnd"]) if "wd" in blk else h
            h = jax.nn.relu(r + sc)
    h = jnp.mean(h, axis=(1, 2))
    logits = h @ p["fc"]["w"] + p["fc"]["b"]
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, logits.shape[-1]), -1))


# ---------------------------------------------------------------- transformers

def layernorm(x, p):
    m = jnp.mean(x, -1, keepdims=True)
    v = jnp.var(x, -1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * p["g"] + p["b"]


def transformer_params(layers, d, heads, vocab, seq, ff=4):
    w = _zeros

    def ln():
        return {"g": _zeros(d), "b": _zeros(d)}

    p = {"tok": w(vocab, d), "pos": w(seq, d), "ln_f": ln(), "layers": []}
    for _ in range(layers):
        p["layers"].append({
            "ln1": ln(), "qkv": w(d, 3 * d), "qkv_b": _zeros(3 * d), "o": w(d, d), "o_b": _zeros(d),
            "ln2": ln(), "f1": w(d, ff * d), "f1_b": _zeros(ff * d), "f2": w(ff * d, d), "f2_b": _zeros(d),
        })
    return p


def transformer_loss(p, tokens, targets, heads, causal, pre_ln):
    b, t = tokens.shape
    d = p["tok"].shape[1]
    h = p["tok"][tokens] + p["pos"][:t]
    mask = jnp.tril(jnp.ones((t, t), bool)) if causal else None
    for lp in p["layers"]:
        a_in = layernorm(h, lp["ln1"]) if pre_ln else h
        qkv = a_in @ lp["qkv"] + lp["qkv_b"]
        q, k, v = jnp.split(qkv, 3, -1)
        q, k, v = (z.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3) for z in (q, k, v))
        s = (q @ k.transpose(0, 1, 3, 2)) / jnp.sqrt(d // heads)
        if mask is not None:
            s = jnp.where(mask, s, -1e9)
        a = jax.nn.softmax(s, -1) @ v
        a = a.transpose(0, 2, 1, 3).reshape(b, t, d) @ lp["o"] + lp["o_b"]
        h = h + a
        if not pre_ln:
            h = layernorm(h, lp["ln1"])
        f_in = layernorm(h, lp["ln2"]) if pre_ln else h
        f = jax.nn.gelu(f_in @ lp["f1"] + lp["f1_b"]) @ lp["f2"] + lp["f2_b"]
        h = h + f
        if not pre_ln:
            h = layernorm(h, lp["ln2"])
    if pre_ln:
        h = layernorm(h, p["ln_f"])
    logits = h @ p["tok"].T
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], -1))


def sgd(loss):
    def step(params, *batch):
        g = jax.grad(loss)(params, *batch)
        return jax.tree_util.tree_map(lambda w, d: w - LR * d, params, g)

    return step


def build(name):
    if name.startswith("resnet"):
        blocks = {"resnet50": (3, 4, 6, 3), "resnet26": (2, 2, 2, 2), "resnet14": (1, 1, 1, 1)}[name]
        batch, size = 4, 64
        p = resnet_params(blocks)
        x = _zeros(batch, size, size, 3)
        y = _zeros(batch, dtype=np.int32)
        return sgd(resnet_loss), (p, x, y), {"batch": batch, "image": size, "blocks": list(blocks)}
    cfg = {
        # name: layers, d, heads, vocab, seq, batch, causal+pre-LN
        "bert4": (4, 768, 12, 30522, 128, 4, False),
        "bert2-small": (2, 256, 4, 8000, 64, 4, False),
        "gpt2": (12, 768, 12, 50257, 128, 2, True),
        "gpt2-4l": (4, 512, 8, 16000, 128, 2, True),
    }[name]
    layers, d, heads, vocab, seq, batch, causal = cfg
    p = transformer_params(layers, d, heads, vocab, seq)
    tok = _zeros(batch, seq, dtype=np.int32)

    def loss(params, tokens, targets):
        return transformer_loss(params, tokens, targets, heads, causal, causal)

    return sgd(loss), (p, tok, tok), {"layers": layers, "d_model": d, "heads": heads, "vocab": vocab,
                                      "seq": seq, "batch": batch}


def main() -> None:
    import peakorder

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--models", default="resnet50,resnet26,resnet14,bert4,bert2-small,gpt2,gpt2-4l")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name in a.models.split(","):
        path = os.path.join(a.out, f"jax-train-{name}.json")
        if os.path.exists(path):
            print(f"{path}: exists", flush=True)
            continue
        t0 = time.time()
        step, args, info = build(name)
        g = peakorder.export.from_jaxpr(step, *args, donate_argnums=(0,))
        g.setdefault("meta", {}).update({"family": "jax-train", "model": name, **info,
                                         "note": "jax.grad SGD step, parameters donated"})
        with open(path + ".tmp", "w") as f:
            json.dump(g, f, separators=(",", ":"))
        os.replace(path + ".tmp", path)
        print(f"{path}: {len(g['ops'])} ops, {len(g['tensors'])} tensors, {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
