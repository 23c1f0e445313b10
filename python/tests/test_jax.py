"""JAX export on CPU: a small MLP training step with and without jax.checkpoint."""

import json

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import peakorder  # noqa: E402
from conftest import cli, simulate_peak  # noqa: E402

B, D = 64, 16  # batch, width
A = B * D * 4  # one activation, f32: 4096 bytes
W = D * D * 4  # one weight matrix, f32: 1024 bytes


def layer(w, x):
    return jnp.tanh(x @ w)


def loss(ws, x, remat):
    f = jax.checkpoint(layer) if remat else layer
    for w in ws:
        x = f(w, x)
    return jnp.sum(x)


def train_step(ws, x, remat):
    grads = jax.grad(loss)(ws, x, remat)
    return [w - 0.1 * g for w, g in zip(ws, grads)]


def export(remat):
    ws = [jnp.ones((D, D), jnp.float32) for _ in range(2)]
    x = jnp.ones((B, D), jnp.float32)
    return peakorder.export.from_jaxpr(train_step, ws, x, remat, static_argnums=(2,))


def kinds(g):
    return [o["kind"] for o in g["ops"]]


def validate(g, tmp_path, name):
    """The core accepts the graph and simulates its program order."""
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(g))
    order = tmp_path / f"{name}-order.json"
    order.write_text(json.dumps([o["id"] for o in g["ops"]]))
    cli("simulate", p, order, "--json")


def test_inputs_named_after_parameters_and_sized():
    g = export(False)
    ins = g["tensors"][:3]
    assert [t["id"] for t in ins] == ["ws[0]", "ws[1]", "x"]
    assert [t["shape"] for t in ins] == [[D, D], [D, D], [B, D]]
    assert all(t["dtype"] == "f32" for t in ins)
    assert len(g["outputs"]) == 2
    ids = [t["id"] for t in g["tensors"]]
    assert len(ids) == len(set(ids))


def test_checkpoint_recomputation_appears_as_ops(tmp_path):
    plain, remat = export(False), export(True)
    # Two layers: the forward pass has 2 matmuls and 2 tanh; with jax.checkpoint the backward
    # pass recomputes both layers' forward (2 more tanh, 2 more matmuls) inside the remat bodies.
    assert kinds(plain).count("tanh") == 2
    assert kinds(remat).count("tanh") == 4
    assert kinds(remat).count("dot_general") == kinds(plain).count("dot_general") + 2
    recomputed = [o for o in remat["ops"] if o.get("meta", {}).get("remat")]
    assert [o["kind"] for o in recomputed].count("tanh") == 2
    assert all(o["meta"]["calls"][0].startswith("remat") for o in recomputed)
    assert "remat2" not in kinds(remat) and "checkpoint" not in kinds(remat)
    for name, g in (("plain", plain), ("remat", remat)):
        validate(g, tmp_path, name)


def test_exported_peak_matches_hand_calculation(tmp_path):
    """Program-order peak, by hand, for the jaxpr JAX emits for this step (A = one [64,16]
    activation, W = one [16,16] weight; inputs w1, w2, x = 2W + A are never freed).

    Without checkpoint, the forward keeps e = tanh(x@w1), 1-e, h = tanh(e@w2) and 1-h for the
    backward; the peak is while `k = ones * (1-h)` runs: live x, e, 1-e, h, 1-h, ones, + k
    = 2W + 7A.

    With checkpoint, the forward keeps only e (the second layer's input); h and its derivative are
    recomputed in the backward. The peak is in the first remat body, while `q = ones * (1-o)`
    runs: live x, e, ones, o (recomputed tanh), 1-o, + q = 2W + 6A. The second body (peak 3W + 5A,
    with the first gradient live) stays below it since W < A.
    """
    results = {}
    for remat in (False, True):
        g = export(remat)
        p = tmp_path / f"step-{remat}.json"
        p.write_text(json.dumps(g))
        plan = peakorder.plan(str(p), method="program")
        assert plan["inputs_bytes"] == 2 * W + A
        assert plan["peak_bytes"] == simulate_peak(g)
        results[remat] = plan["peak_bytes"]
    assert results[False] == 2 * W + 7 * A == 30720
    assert results[True] == 2 * W + 6 * A == 26624


def test_nested_jit_is_inlined_and_control_flow_is_one_op():
    @jax.jit
    def inner(x):
        return jnp.sin(x) * 2.0

    def f(x):
        y = inner(x)
        return jax.lax.cond(y.sum() > 0, lambda v: v + 1.0, lambda v: v - 1.0, y)

    g = peakorder.export.from_jaxpr(f, jnp.ones((8,), jnp.float32))
    ks = kinds(g)
    assert "sin" in ks and "jit" not in ks and "pjit" not in ks
    cond = next(o for o in g["ops"] if o["kind"] == "cond")
    assert "one op" in cond["meta"]["note"]
    assert peakorder.plan(g)["peak_bytes"] > 0


def test_dtypes_outside_design_and_literal_outputs():
    def f(x):
        return x.astype(jnp.uint32), 3.0, x

    g = peakorder.export.from_jaxpr(f, jnp.ones((5,), jnp.int8))
    t = {t["id"]: t for t in g["tensors"]}
    u = t[g["outputs"][0]]
    assert u["bytes"] == 20 and u["meta"] == {"shape": [5], "framework_dtype": "uint32"}
    assert g["outputs"][2] == "x"
    assert any(o["kind"] == "literal" for o in g["ops"])
    peakorder.plan(g)


def test_ops_carry_the_jax_name_stack_as_scope():
    """meta.scope is the op's JAX name stack joined with "/" (the web view groups the DAG by it),
    the scopes of inlined jit calls included."""

    def f(w, x):
        with jax.named_scope("model"):
            with jax.named_scope("layer_0"):
                h = jnp.tanh(x @ w)
            return jnp.sum(jax.jit(lambda h: h * 2)(h))

    g = peakorder.export.from_jaxpr(jax.grad(f), jnp.ones((4, 4)), jnp.ones((2, 4)))
    scope = {o["kind"]: o["meta"]["scope"] for o in g["ops"] if o["kind"] in ("tanh", "reduce_sum")}
    assert scope == {"tanh": "jvp(model)/layer_0", "reduce_sum": "jvp(model)"}
    jitted = [o["meta"]["scope"] for o in g["ops"] if o.get("meta", {}).get("calls")]
    assert jitted and all(s.endswith("/jit(<lambda>)") for s in jitted)
    backward = [o for o in g["ops"] if o["meta"]["scope"].startswith("transpose(jvp(model))/layer_0")]
    assert {o["kind"] for o in backward} >= {"dot_general", "mul"}
