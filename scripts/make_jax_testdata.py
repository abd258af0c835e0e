#!/usr/bin/env python3
"""Writes testdata/jax/: HLO modules lowered from JAX functions, their inputs and XLA's outputs.

Run by hand with the Python of `make xla-env` (it has jax and jaxlib):
    build/xla-venv/bin/python scripts/make_jax_testdata.py [OUT_DIR]
For each function NAME below it writes
    NAME.hlo       jax.jit(f).lower(*args).as_text(dialect="hlo")
    NAME.in.npz    the arguments, one array per ENTRY parameter, in order
    NAME.out.npz   the result of that HLO text on XLA:CPU, computed by
                   conformance/xla_oracle.py exactly as the conformance run
                   does, named as `hlo-run --output` names them
and checks that result against calling the jitted function itself. The lit
tests in testdata/lit/jax/ run each module through hlo-run and compare with
hlo-compare. Arguments come from a fixed NumPy seed, so a rerun with the same
pinned jax (scripts/xla-requirements.txt) writes the same files.
"""

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "conformance"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import xla_oracle  # noqa: E402

rng = np.random.default_rng(2024)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# ---- the functions -----------------------------------------------------------

def mlp_step(w1, b1, w2, b2, x, y):
    """One SGD step of a two-layer MLP with a squared loss: the loss and new weights."""
    def loss(params):
        w1, b1, w2, b2 = params
        h = jax.nn.relu(x @ w1 + b1)
        return jnp.mean((h @ w2 + b2 - y) ** 2)
    params = (w1, b1, w2, b2)
    value, grads = jax.value_and_grad(loss)(params)
    return (value,) + tuple(p - 0.1 * g for p, g in zip(params, grads))


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def layer_norm(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta


def attention(q, k, v):
    """Causal single-head attention over [batch, seq, dim]."""
    scores = jnp.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
    seq = q.shape[1]
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    scores = jnp.where(mask, scores, -1e9)
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(scores, axis=-1), v)


def conv_layer(x, w, b):
    """3x3 convolution (NHWC, HWIO), padding SAME, stride 1, bias, ReLU, then 2x2 max pool."""
    y = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = jax.nn.relu(y + b)
    return lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def rnn_scan(h0, xs, w, u):
    """A tanh RNN over the leading axis with lax.scan: final state and all states."""
    def step(h, x):
        h = jnp.tanh(x @ w + h @ u)
        return h, h
    return lax.scan(step, h0, xs)


def newton_sqrt(a):
    """Newton's method for sqrt with lax.while_loop, until the update is tiny (or 50 steps)."""
    def cond(state):
        i, x, dx = state
        return jnp.logical_and(i < 50, jnp.max(jnp.abs(dx)) > 1e-6)

    def body(state):
        i, x, _ = state
        new = 0.5 * (x + a / x)
        return i + 1, new, new - x
    return lax.while_loop(cond, body, (0, jnp.ones_like(a), jnp.ones_like(a)))


def sort_rows(x, keys):
    """Sort along the last axis, argsort, and a two-operand sort of keys carrying values."""
    order = jnp.argsort(x, axis=-1)
    sorted_keys, carried = lax.sort((keys, x), dimension=-1, num_keys=1)
    return jnp.sort(x, axis=-1), order, sorted_keys, carried


def gather_scatter(table, idx, updates):
    """Embedding-style gather, and scatter-add / set through .at[]."""
    rows = table[idx]
    added = table.at[idx].add(updates)
    replaced = table.at[:, 1].set(-1.0)
    return rows, added, replaced


def cumsum(x, n):
    return jnp.cumsum(x, axis=0), jnp.cumsum(n, axis=1), lax.cummax(x, axis=1)


def argmax(x, n):
    return jnp.argmax(x, axis=-1), jnp.argmin(x, axis=0), jnp.argmax(n)


def threefry_random(key_data):
    """Normal and uniform samples and a permutation from a threefry key given as uint32[2]."""
    key = jax.random.wrap_key_data(key_data, impl="threefry2x32")
    k1, k2, k3 = jax.random.split(key, 3)
    return (jax.random.normal(k1, (4, 8)), jax.random.uniform(k2, (16,)),
            jax.random.permutation(k3, 10))


CASES = [
    ("mlp", mlp_step, lambda: (normal(16, 32) * 0.3, normal(32), normal(32, 4) * 0.3, normal(4),
                               normal(8, 16), normal(8, 4))),
    ("softmax", softmax, lambda: (normal(4, 10) * 3,)),
    ("layer_norm", layer_norm, lambda: (normal(6, 32), normal(32), normal(32))),
    ("attention", attention, lambda: (normal(2, 8, 16), normal(2, 8, 16), normal(2, 8, 16))),
    ("conv", conv_layer, lambda: (normal(2, 8, 8, 3), normal(3, 3, 3, 4) * 0.5, normal(4))),
    ("scan", rnn_scan, lambda: (normal(4), normal(12, 3), normal(3, 4) * 0.5, normal(4, 4) * 0.5)),
    ("while", newton_sqrt, lambda: (rng.uniform(0.5, 50.0, 12).astype(np.float32),)),
    ("sort", sort_rows, lambda: (normal(5, 9), rng.integers(-3, 4, (5, 9)).astype(np.int32))),
    ("gather_scatter", gather_scatter, lambda: (normal(10, 4), np.array([3, 0, 7, 3, 9], np.int32),
                                               normal(5, 4))),
    ("cumsum", cumsum, lambda: (normal(6, 5), rng.integers(-5, 6, (3, 7)).astype(np.int32))),
    ("argmax", argmax, lambda: (normal(7, 11), rng.integers(-50, 50, (20,)).astype(np.int32))),
    ("threefry", threefry_random, lambda: (np.array([0, 42], np.uint32),)),
]


def main(argv):
    out_dir = argv[0] if argv else os.path.join(ROOT, "testdata", "jax")
    os.makedirs(out_dir, exist_ok=True)
    oracle = xla_oracle.Oracle()
    failed = False
    for name, fn, make_args in CASES:
        args = make_args()
        jitted = jax.jit(fn, keep_unused=True)
        text = jitted.lower(*args).as_text(dialect="hlo")
        base = os.path.join(out_dir, name)
        with open(base + ".hlo", "w") as f:
            f.write(text)
        np.savez(base + ".in.npz", **{"arg%d" % i: a for i, a in enumerate(args)})
        outcome, detail = oracle.run(base + ".hlo", base + ".in.npz", base + ".out.npz")
        if outcome != "ok":
            print("%s: XLA %s: %s" % (name, outcome, detail))
            failed = True
            continue
        # The saved module on XLA must give what the jitted function gives.
        with np.load(base + ".out.npz") as saved:
            got = [saved[k] for k in saved.files]
        want = [np.asarray(v) for v in jax.tree_util.tree_leaves(jitted(*args))]
        same = len(got) == len(want) and all(
            g.shape == w.shape and np.allclose(g, w, rtol=1e-6, atol=1e-6, equal_nan=True)
            for g, w in zip(got, want))
        size = sum(os.path.getsize(base + s) for s in (".hlo", ".in.npz", ".out.npz"))
        print("%-15s %3d arrays out, %6d bytes%s" % (
            name, len(got), size, "" if same else "  MISMATCH with the jitted function"))
        failed |= not same
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
