"""Keras 3 application models, run on the JAX backend, as peakorder graphs: ResNet-50 training
steps (batch 8, 224x224, 1,000 classes) with the whole loss under ``jax.checkpoint`` with policy
``dots_saveable`` or ``nothing_saveable``, or without remat, and NASNet-Large inference (batch 1,
331x331), traced (JAX primitives) and as its Keras layer graph (one op per layer, 1,040 ops).
Models are built with ``weights=None``: only shapes matter, nothing is downloaded.

A training step is what a user of ``model.stateless_call`` writes: forward in training mode
(batch norm updates its moving statistics, returned as the non-trainable variables), sparse
categorical cross-entropy, ``jax.grad`` over the trainable variables, ``w - 0.01 g``. It is traced
with ``jax.make_jaxpr`` through ``peakorder.export.from_jaxpr``, the trainable and non-trainable
variables donated (as ``jax.jit(step, donate_argnums=(0, 1))`` would). Inference takes the
variables as inputs, not donated (they outlive the call).

    KERAS_BACKEND=jax python scripts/corpus/keras_jax.py OUT_DIR [--models resnet50-train,...]
"""

from __future__ import annotations

import argparse
import json
import os
import time

# Keras picks its backend at import: this script traces JAX programs only.
os.environ.setdefault("KERAS_BACKEND", "jax")

LR = 0.01
MODELS = ("resnet50-train", "resnet50-train-dots", "resnet50-train-nothing", "nasnetlarge-infer",
          "nasnetlarge-infer-layers")


def _variables(vs):
    """{keras path: zeros of the variable's shape} and the paths in the model's order.

    Values are never computed (only traced), so numpy zeros stand in for the initialised
    variables. Keyed by path, the graph's input names say which layer a tensor belongs to.
    """
    import numpy as np

    names = [v.path for v in vs]
    if len(set(names)) != len(names):
        # Paths are unique in Keras 3's functional models; index them if a model breaks that.
        names = [f"{i}:{n}" for i, n in enumerate(names)]
    return {n: np.zeros(v.shape, v.dtype) for n, v in zip(names, vs)}, names


def _policy(remat):
    import jax

    if remat is None:
        return None
    return {"dots": jax.checkpoint_policies.dots_saveable,
            "nothing": jax.checkpoint_policies.nothing_saveable}[remat]


def train_step(model, remat):
    import jax
    import keras

    _, t_names = _variables(model.trainable_variables)
    _, n_names = _variables(model.non_trainable_variables)

    def loss(trainable, non_trainable, x, y):
        tv = [trainable[n] for n in t_names]
        nv = [non_trainable[n] for n in n_names]
        probs, nv = model.stateless_call(tv, nv, x, training=True)
        l = keras.ops.mean(keras.losses.sparse_categorical_crossentropy(y, probs))
        return l, dict(zip(n_names, nv))

    policy = _policy(remat)
    if policy is not None:
        loss = jax.checkpoint(loss, policy=policy)

    def step(trainable, non_trainable, x, y):
        g, new_nt = jax.grad(loss, has_aux=True)(trainable, non_trainable, x, y)
        return jax.tree_util.tree_map(lambda w, d: w - LR * d, trainable, g), new_nt

    return step


def infer(model):
    _, t_names = _variables(model.trainable_variables)
    _, n_names = _variables(model.non_trainable_variables)

    def forward(trainable, non_trainable, x):
        tv = [trainable[n] for n in t_names]
        nv = [non_trainable[n] for n in n_names]
        out, _ = model.stateless_call(tv, nv, x, training=False)
        return out

    return forward


def layer_graph(model, batch):
    """The model's functional graph with one op per Keras layer (a layer as one fused kernel):
    each layer reads its input tensors and its variables (pinned graph inputs) and writes its
    outputs, sized from the KerasTensors' shapes with the batch dimension set. What a layer
    holds inside (a batch norm's temporaries) is not modelled, as in a compiler that fuses it.
    """
    # The builder of peakorder's exporters: unique ids and sizes from shapes and dtypes.
    from peakorder._graph import GraphBuilder

    b = GraphBuilder()
    b.meta = {"source": "keras-layers"}
    made = {}

    def shape(kt):
        return [batch if d is None else int(d) for d in kt.shape]

    for kt in model.inputs:
        made[id(kt)] = b.tensor(kt.name, shape(kt), kt.dtype)
    for layer in model.operations:
        if type(layer).__name__ == "InputLayer":
            continue
        if len(layer._inbound_nodes) != 1:
            raise SystemExit(f"layer {layer.name} is called {len(layer._inbound_nodes)} times: "
                             "one op per layer needs one call")
        node = layer._inbound_nodes[0]
        ins = []
        for kt in node.arguments.keras_tensors:
            t = made[id(kt)]
            if t not in ins:
                ins.append(t)
        ins += [b.tensor(v.path, v.shape, v.dtype, meta={"variable": True}) for v in layer.weights]
        outs = []
        for kt in node.outputs:
            made[id(kt)] = b.tensor(f"{layer.name}:{len(outs)}", shape(kt), kt.dtype)
            outs.append(made[id(kt)])
        b.op(layer.name, type(layer).__name__, ins, outs)
    b.outputs = [made[id(kt)] for kt in model.outputs]
    return b.build()


def build(name):
    import keras
    import numpy as np

    if name.startswith("resnet50-train"):
        batch, size = 8, 224
        remat = name[len("resnet50-train-"):] or None
        model = keras.applications.ResNet50(weights=None)
        tv, _ = _variables(model.trainable_variables)
        nv, _ = _variables(model.non_trainable_variables)
        x = np.zeros((batch, size, size, 3), np.float32)
        y = np.zeros((batch,), np.int32)
        info = {"batch": batch, "image": size, "remat": remat or "none",
                "note": "Keras stateless_call training step, jax.grad SGD, variables donated"}
        return train_step(model, remat), (tv, nv, x, y), (0, 1), info
    if name == "nasnetlarge-infer":
        batch, size = 1, 331
        model = keras.applications.NASNetLarge(weights=None)
        tv, _ = _variables(model.trainable_variables)
        nv, _ = _variables(model.non_trainable_variables)
        x = np.zeros((batch, size, size, 3), np.float32)
        info = {"batch": batch, "image": size, "note": "Keras stateless_call inference, variables pinned"}
        return infer(model), (tv, nv, x), (), info
    if name == "nasnetlarge-infer-layers":
        model = keras.applications.NASNetLarge(weights=None)
        g = layer_graph(model, 1)
        info = {"batch": 1, "image": 331, "note": "Keras functional graph, one op per layer"}
        return g, None, None, info
    raise SystemExit(f"unknown model {name!r} (known: {', '.join(MODELS)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--models", default=",".join(MODELS))
    a = ap.parse_args()

    import keras
    import peakorder

    if keras.backend.backend() != "jax":
        raise SystemExit(f"Keras runs on {keras.backend.backend()!r}: set KERAS_BACKEND=jax")
    os.makedirs(a.out, exist_ok=True)
    for name in a.models.split(","):
        path = os.path.join(a.out, f"keras-{name}.json")
        if os.path.exists(path):
            print(f"{path}: exists", flush=True)
            continue
        t0 = time.time()
        fn, args, donate, info = build(name)
        # A layer graph comes built; the others are traced.
        g = fn if args is None else peakorder.export.from_jaxpr(fn, *args, donate_argnums=donate)
        g.setdefault("meta", {}).update({"family": "keras-jax", "model": name,
                                         "keras_version": keras.__version__, **info})
        with open(path + ".tmp", "w") as f:
            json.dump(g, f, separators=(",", ":"))
        os.replace(path + ".tmp", path)
        print(f"{path}: {len(g['ops'])} ops, {len(g['tensors'])} tensors, {time.time() - t0:.1f} s", flush=True)
        keras.backend.clear_session()


if __name__ == "__main__":
    main()
