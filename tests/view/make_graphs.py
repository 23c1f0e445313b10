"""Big training-step graphs for the web view's tests and screenshots (docs/web.md), exported
from pure-JAX models with `peakorder.export.from_jaxpr` (no flax; parameters are abstract
ShapeDtypeStructs, so nothing is computed or allocated):

  bert4-train.json       a 4-layer BERT (hidden 256, batch 8 x 128 tokens) masked-LM training
                         step with SGD + momentum
  resnet50-train.json    a ResNet-50 (batch 8, 224x224) training step with Adam and batch-norm
                         running statistics
  resnet50-accum2.json   a ResNet-50 step over two micro-batches of 4 (gradients accumulated),
                         SGD + momentum: the ~7k-op graph of the speed measurement

Every op carries `meta.scope` (the JAX name stack: `jvp(bert)/encoder/layer_0/attention/...` for
the forward pass, `transpose(jvp(...))/...` for the backward pass), which the view groups by.
Attributes are dropped to keep each file under ~3 MB (the view and the planners do not read them).

    /work/venvs/torch/bin/python tests/view/make_graphs.py        # writes tests/view/*.json
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
from jax import lax

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))
import peakorder  # noqa: E402

F32 = jnp.float32
scope = jax.named_scope


def spec(*shape, dtype=F32):
    return jax.ShapeDtypeStruct(shape, dtype)


# ---- BERT ------------------------------------------------------------------------------------

BERT = dict(vocab=30522, hidden=256, heads=4, ffn=1024, layers=4, seq=128, batch=8, max_pos=512)


def bert_params(c=BERT):
    h, f = c["hidden"], c["ffn"]
    dense = lambda i, o: {"w": spec(i, o), "b": spec(o)}  # noqa: E731
    ln = lambda: {"g": spec(h), "b": spec(h)}  # noqa: E731
    layer = lambda: {  # noqa: E731
        "attention": {"q": dense(h, h), "k": dense(h, h), "v": dense(h, h), "out": dense(h, h), "ln": ln()},
        "ffn": {"in": dense(h, f), "out": dense(f, h), "ln": ln()},
    }
    return {
        "embeddings": {"word": spec(c["vocab"], h), "position": spec(c["max_pos"], h),
                       "token_type": spec(2, h), "ln": ln()},
        "layers": [layer() for _ in range(c["layers"])],
        "mlm": {"dense": dense(h, h), "ln": ln(), "bias": spec(c["vocab"])},
    }


def layer_norm(p, x):
    with scope("layer_norm"):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mu), axis=-1, keepdims=True)
        return (x - mu) * lax.rsqrt(var + 1e-12) * p["g"] + p["b"]


def linear(p, x):
    return x @ p["w"] + p["b"]


def gelu(x):
    return 0.5 * x * (1.0 + jnp.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def bert_loss(params, tokens, segments, labels, c=BERT):
    b, s, h, nh = c["batch"], c["seq"], c["hidden"], c["heads"]
    with scope("bert"):
        with scope("embeddings"):
            e = params["embeddings"]
            x = jnp.take(e["word"], tokens, axis=0) + e["position"][:s][None] + jnp.take(e["token_type"], segments, axis=0)
            x = layer_norm(e["ln"], x)
        with scope("encoder"):
            for i, p in enumerate(params["layers"]):
                with scope(f"layer_{i}"):
                    with scope("attention"):
                        a = p["attention"]
                        split = lambda t: t.reshape(b, s, nh, h // nh).transpose(0, 2, 1, 3)  # noqa: E731
                        with scope("self"):
                            q, k, v = (split(linear(a[n], x)) for n in ("q", "k", "v"))
                            att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(h // nh), axis=-1)
                            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(b, s, h)
                        with scope("output"):
                            x = layer_norm(a["ln"], x + linear(a["out"], ctx))
                    with scope("ffn"):
                        f = p["ffn"]
                        with scope("intermediate"):
                            y = gelu(linear(f["in"], x))
                        with scope("output"):
                            x = layer_norm(f["ln"], x + linear(f["out"], y))
        with scope("mlm_head"):
            m = params["mlm"]
            y = layer_norm(m["ln"], gelu(linear(m["dense"], x)))
            logits = y @ params["embeddings"]["word"].T + m["bias"]
    with scope("loss"):
        logp = jax.nn.log_softmax(logits, axis=-1)
        nll = -jnp.take_along_axis(logp, labels[..., None], axis=-1)
        return jnp.mean(nll)


def adam(params, grads, m, v, lr=1e-4, b1=0.9, b2=0.999, eps=1e-8):
    with scope("adam"):
        leaves = lambda t: jax.tree_util.tree_leaves(t)  # noqa: E731
        new_p, new_m, new_v = [], [], []
        for p, g, mm, vv in zip(leaves(params), leaves(grads), leaves(m), leaves(v)):
            mm = b1 * mm + (1 - b1) * g
            vv = b2 * vv + (1 - b2) * g * g
            new_p.append(p - lr * mm / (jnp.sqrt(vv) + eps))
            new_m.append(mm)
            new_v.append(vv)
        tree = jax.tree_util.tree_structure(params)
        unflat = lambda xs: jax.tree_util.tree_unflatten(tree, xs)  # noqa: E731
        return unflat(new_p), unflat(new_m), unflat(new_v)


def bert_step(params, mom, tokens, segments, labels):
    loss, grads = jax.value_and_grad(bert_loss)(params, tokens, segments, labels)
    params, mom = sgd_momentum(params, grads, mom, lr=1e-3)
    return loss, params, mom


def bert_graph():
    c = BERT
    p = bert_params()
    tok = spec(c["batch"], c["seq"], dtype=jnp.int32)
    return peakorder.export.from_jaxpr(bert_step, p, p, tok, tok, tok, donate_argnums=(0, 1))


# ---- ResNet-50 --------------------------------------------------------------------------------

RESNET = dict(batch=8, size=224, classes=1000, blocks=(3, 4, 6, 3))


def resnet_params(c=RESNET):
    conv = lambda k, i, o: spec(k, k, i, o)  # noqa: E731  (HWIO)
    bn = lambda ch: {"g": spec(ch), "b": spec(ch)}  # noqa: E731
    p = {"stem": {"conv": conv(7, 3, 64), "bn": bn(64)}}
    cin = 64
    for li, (n, width) in enumerate(zip(c["blocks"], (64, 128, 256, 512))):
        blocks = []
        for bi in range(n):
            cout = width * 4
            blk = {"conv1": conv(1, cin, width), "bn1": bn(width),
                   "conv2": conv(3, width, width), "bn2": bn(width),
                   "conv3": conv(1, width, cout), "bn3": bn(cout)}
            if bi == 0:
                blk["down"] = {"conv": conv(1, cin, cout), "bn": bn(cout)}
            blocks.append(blk)
            cin = cout
        p[f"layer{li + 1}"] = blocks
    p["fc"] = {"w": spec(2048, c["classes"]), "b": spec(c["classes"])}
    return p


def resnet_stats(params):
    """Batch-norm running means and variances, one pair per batch norm."""
    return jax.tree_util.tree_map(lambda s: s, {k: v for k, v in _bn_only(params).items()})


def _bn_only(params, prefix=""):
    out = {}
    if isinstance(params, dict):
        if set(params) == {"g", "b"}:
            return {prefix: {"mean": params["g"], "var": params["g"]}}
        for k, v in params.items():
            out.update(_bn_only(v, f"{prefix}/{k}" if prefix else k))
    elif isinstance(params, list):
        for i, v in enumerate(params):
            out.update(_bn_only(v, f"{prefix}/{i}"))
    return out


def conv2d(x, w, stride=1):
    k = w.shape[0]
    pad = [(k // 2, k // 2)] * 2
    return lax.conv_general_dilated(x, w, (stride, stride), pad, dimension_numbers=("NHWC", "HWIO", "NHWC"))


def batch_norm(p, x, name, stats, new_stats):
    with scope("bn"):
        mu = jnp.mean(x, axis=(0, 1, 2))
        var = jnp.mean(jnp.square(x - mu), axis=(0, 1, 2))
        if stats is not None:
            s = stats[name]
            new_stats[name] = {"mean": 0.9 * s["mean"] + 0.1 * mu, "var": 0.9 * s["var"] + 0.1 * var}
        return (x - mu) * lax.rsqrt(var + 1e-5) * p["g"] + p["b"]


def resnet_loss(params, images, labels, stats=None):
    new_stats = {}
    with scope("resnet50"):
        with scope("stem"):
            x = conv2d(images, params["stem"]["conv"], 2)
            x = jax.nn.relu(batch_norm(params["stem"]["bn"], x, "stem/bn", stats, new_stats))
            x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        for li in range(4):
            with scope(f"layer{li + 1}"):
                for bi, p in enumerate(params[f"layer{li + 1}"]):
                    with scope(str(bi)):
                        name = f"layer{li + 1}/{bi}"
                        stride = 2 if (bi == 0 and li > 0) else 1
                        with scope("conv1"):
                            y = jax.nn.relu(batch_norm(p["bn1"], conv2d(x, p["conv1"]), f"{name}/bn1", stats, new_stats))
                        with scope("conv2"):
                            y = jax.nn.relu(batch_norm(p["bn2"], conv2d(y, p["conv2"], stride), f"{name}/bn2", stats, new_stats))
                        with scope("conv3"):
                            y = batch_norm(p["bn3"], conv2d(y, p["conv3"]), f"{name}/bn3", stats, new_stats)
                        if "down" in p:
                            with scope("downsample"):
                                x = batch_norm(p["down"]["bn"], conv2d(x, p["down"]["conv"], stride), f"{name}/down/bn", stats, new_stats)
                        x = jax.nn.relu(x + y)
        with scope("head"):
            x = jnp.mean(x, axis=(1, 2))
            logits = x @ params["fc"]["w"] + params["fc"]["b"]
    with scope("loss"):
        logp = jax.nn.log_softmax(logits)
        loss = -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))
    return loss, new_stats


def sgd_momentum(params, grads, mom, lr=0.1, beta=0.9, wd=1e-4):
    with scope("sgd"):
        def upd(p, g, m):
            m = beta * m + g + wd * p
            return p - lr * m, m
        out = jax.tree_util.tree_map(upd, params, grads, mom)
        is_pair = lambda t: isinstance(t, tuple)  # noqa: E731
        return (jax.tree_util.tree_map(lambda t: t[0], out, is_leaf=is_pair),
                jax.tree_util.tree_map(lambda t: t[1], out, is_leaf=is_pair))


def resnet_accum_step(params, mom, images, labels, micro=2):
    """Gradients of `micro` micro-batches summed, then one SGD + momentum update."""
    n = images.shape[0] // micro
    total, grads = 0.0, None
    for k in range(micro):
        with scope(f"micro_{k}"):
            (loss, _), g = jax.value_and_grad(resnet_loss, has_aux=True)(
                params, images[k * n:(k + 1) * n], labels[k * n:(k + 1) * n])
        with scope("accumulate"):
            total = total + loss
            grads = g if grads is None else jax.tree_util.tree_map(jnp.add, grads, g)
    params, mom = sgd_momentum(params, grads, mom)
    return total / micro, params, mom


def resnet_adam_step(params, m, v, stats, images, labels):
    (loss, new_stats), grads = jax.value_and_grad(resnet_loss, has_aux=True)(params, images, labels, stats)
    params, m, v = adam(params, grads, m, v)
    return loss, params, m, v, new_stats


def resnet_graphs():
    c = RESNET
    p = resnet_params()
    images = spec(c["batch"], c["size"], c["size"], 3)
    labels = spec(c["batch"], dtype=jnp.int32)
    stats = resnet_stats(p)
    adam_g = peakorder.export.from_jaxpr(resnet_adam_step, p, p, p, stats, images, labels, donate_argnums=(0, 1, 2, 3))
    accum = peakorder.export.from_jaxpr(resnet_accum_step, p, p, images, labels, donate_argnums=(0, 1))
    return adam_g, accum


# ---- writing ----------------------------------------------------------------------------------

def slim(g, name):
    """Drops op attributes (executors' data, not the view's) and names the graph."""
    for o in g["ops"]:
        o.pop("attrs", None)
    g.setdefault("meta", {})["name"] = name
    return g


def write(g, name):
    path = HERE / f"{name}.json"
    text = json.dumps(slim(g, name), separators=(",", ":"))
    path.write_text(text + "\n")
    print(f"{path.relative_to(HERE.parents[1])}: {len(g['ops'])} ops, {len(g['tensors'])} tensors, "
          f"{len(text) / 1e6:.2f} MB")


def main():
    write(bert_graph(), "bert4-train")
    adam_g, accum = resnet_graphs()
    write(adam_g, "resnet50-train")
    write(accum, "resnet50-accum2")


if __name__ == "__main__":
    main()
