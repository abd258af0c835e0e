#!/usr/bin/env python3
"""Writes testdata/jax/: HLO modules lowered from JAX functions, their inputs and XLA's outputs.

Two sets of cases, each written by its own jax:
    pinned   testdata/jax/         jax of scripts/xla-requirements.txt (make xla-env)
    latest   testdata/jax/latest/  jax of scripts/xla-latest-requirements.txt
                                   (make xla-env-latest), the newest release
    models   testdata/jax/models/  the pinned jax: small models at realistic
                                   batch sizes, which make bench-xla times
Run it with the Python of the matching environment:
    build/xla-venv/bin/python scripts/make_jax_testdata.py
    build/xla-venv-latest/bin/python scripts/make_jax_testdata.py
Without options it writes the set whose pin the running jax matches, into
that set's folder; writing a set's folder with any other jax is refused, so
that the checked-in files stay reproducible. Options:
    --set=pinned|latest|models  write that set (any case can be written with any jax)
    --only=NAME[,NAME]    only those cases of the set
    --opt                 write NAME.opt.hlo for the pinned set too
    OUT_DIR               write there instead of the set's folder (any jax)
For each function NAME of a set it writes
    NAME.hlo       jax.jit(f).lower(*args).as_text(dialect="hlo"): before
                   XLA's passes
    NAME.opt.hlo   (the latest set, or --opt) the module after XLA:CPU's
                   passes, as jax.jit(f).lower(*args).compile().as_text()
                   prints it but without the per-instruction metadata (and so
                   without the stack-frame tables of the header): that holds
                   the script's own line numbers and jax's op names, half of
                   the text or more, and means nothing to the computation
    NAME.in.npz    the arguments, one array per ENTRY parameter, in order
    NAME.out.npz   the result of NAME.hlo on XLA:CPU, computed by
                   conformance/xla_oracle.py exactly as the conformance run
                   does, named as `hlo-run --output` names them; the same
                   outputs serve NAME.opt.hlo
and checks that result against calling the jitted function itself, which runs
the executable NAME.opt.hlo prints: so the outputs are those of both modules.
A case named gpu_* is lowered for CUDA instead (jax.export, which needs no
GPU), so that it holds the calls of jax's GPU dumps; XLA:CPU cannot run it,
and its outputs are those of the same function jitted on the CPU.
XLA cannot check NAME.opt.hlo by compiling it again: its passes assume a
module before layout assignment, and refuse the bitcasts that the first
compile left in sort comparators, or abort on a missing layout. The lit
tests in testdata/lit/jax/ (latest/ for the latest set) run each module
through hlo-run and compare with hlo-compare. Arguments come from fixed NumPy
seeds (the pinned set draws from one generator in case order, each latest
case from its own), so a rerun with the same jax writes the same files.
"""

import os
import re
import sys
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "conformance"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jaxlib import _hlo  # noqa: E402

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


# ---- the latest set, written by the newest jax -------------------------------
# Each case draws from its own generator, seeded by its name, so that adding
# or removing a case leaves the others' arguments as they are.

NAN = np.float32(np.nan)
NEG_NAN = np.uint32(0xFFC00000).view(np.float32)  # NaN with the sign bit set
INF = np.float32(np.inf)


def sort_floats(x, h, m):
    """jnp.sort of floats with NaNs (both signs), -0 and infinities: ascending,
    descending, f16, and a 2-D one along the leading axis. jnp.sort compares
    with -0 == 0 and every NaN after +inf, and is stable."""
    return (jnp.sort(x), jnp.sort(x, descending=True), jnp.sort(h),
            jnp.sort(m, axis=0))


def argsort(x, n):
    """Stable jnp.argsort with ties (-0 and 0 are equal, NaNs tie last), and
    a descending stable one of integers along the last axis."""
    return (jnp.argsort(x, stable=True), jnp.argsort(x, stable=True, descending=True),
            jnp.argsort(n, axis=-1, stable=True), jnp.argsort(n, axis=-1, stable=True, descending=True))


def median(x, y):
    """jnp.median over everything, each axis, an even count, and a NaN (which makes it NaN)."""
    return jnp.median(x), jnp.median(x, axis=-1), jnp.median(x, axis=0, keepdims=True), jnp.median(y)


def searchsorted(method):
    """jnp.searchsorted with one `method` ('scan' is a lax.fori_loop of
    halvings, 'scan_unrolled' the same unrolled, 'sort' a sort of both arrays
    together, 'compare_all' a [len(v), len(a)] comparison summed), both sides."""
    def f(a, v):
        return (jnp.searchsorted(a, v, side="left", method=method),
                jnp.searchsorted(a, v, side="right", method=method))
    f.__name__ = "searchsorted_" + method
    return f


def unique(n, x):
    """jnp.unique with a static size: padded with fill_value when there are fewer
    distinct values, with first indices, inverse and counts; and floats, whose
    -0 and 0 are one value and NaNs one more."""
    values, index, inverse, counts = jnp.unique(n, size=8, fill_value=-1, return_index=True,
                                                return_inverse=True, return_counts=True)
    return values, index, inverse, counts, jnp.unique(x, size=6, equal_nan=True)


def histogram(x, w):
    """jnp.histogram with 8 equal bins over a fixed range (values outside are
    not counted, the last edge is in the last bin), and over fixed uneven
    edges with weights and density."""
    counts, edges = jnp.histogram(x, bins=8, range=(-2.0, 2.0))
    density, _ = jnp.histogram(x, bins=jnp.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0], jnp.float32),
                               weights=w, density=True)
    return counts, edges, density


def random(impl):
    """jax.random with one PRNG implementation, its key data the input: split,
    normal, uniform, raw bits, and a choice without replacement (a permutation
    cut short). threefry2x32 hashes in HLO ops; rbg and unsafe_rbg draw from
    rng-bit-generator (rbg still splits with threefry)."""
    def f(key_data):
        key = jax.random.wrap_key_data(key_data, impl=impl)
        k = jax.random.split(key, 4)
        return (jax.random.normal(k[0], (8,)), jax.random.uniform(k[1], (8,)),
                jax.random.bits(k[2], (8,)), jax.random.choice(k[3], 20, (5,), replace=False))
    f.__name__ = "random_" + impl
    return f


def spd(rng, *shape):
    """Random symmetric positive definite matrices (b b^t + n I), f32."""
    b = rng.standard_normal(shape)
    n = shape[-1]
    return (b @ np.swapaxes(b, -1, -2) + n * np.eye(n)).astype(np.float32)


def complex64(rng, *shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def cholesky_solve(a, batch, b):
    """jnp.linalg.cholesky of one matrix and of a batch (lapack_spotrf_ffi),
    and cho_solve with it (lapack_strsm_ffi twice)."""
    c = jax.scipy.linalg.cho_factor(a, lower=True)
    return jnp.linalg.cholesky(a), jnp.linalg.cholesky(batch), jax.scipy.linalg.cho_solve(c, b)


def lu_solve(a, b, c):
    """jax.scipy.linalg.lu, jnp.linalg.solve, det and inv (lapack_sgetrf_ffi,
    lapack_strsm_ffi), and a complex solve (lapack_cgetrf_ffi, lapack_ctrsm_ffi)."""
    p, l, u = jax.scipy.linalg.lu(a)
    return p, l, u, jnp.linalg.solve(a, b), jnp.linalg.det(a), jnp.linalg.inv(a), jnp.linalg.solve(c, c[:, :2])


def triangular(a, b, c):
    """jax.scipy.linalg.solve_triangular: lower, upper transposed with a unit
    diagonal, and complex with the conjugate transpose (lapack_?trsm_ffi)."""
    return (jax.scipy.linalg.solve_triangular(a, b, lower=True),
            jax.scipy.linalg.solve_triangular(a, b, lower=False, trans=1, unit_diagonal=True),
            jax.scipy.linalg.solve_triangular(c, c, lower=False, trans=2))


def qr(a, c):
    """jnp.linalg.qr, reduced and complete, real and complex (geqrf, then
    orgqr/ungqr): unique once the reflectors' signs are LAPACK's."""
    q, r = jnp.linalg.qr(a)
    qc, rc = jnp.linalg.qr(c, mode="complete")
    return q, r, qc, rc


def eigh(a, c):
    """jnp.linalg.eigh (lapack_ssyevd_ffi, lapack_cheevd_ffi): eigenvalues,
    and |eigenvectors|, which do not depend on the sign or phase LAPACK
    picks; jnp.linalg.eigvalsh (mode N)."""
    w, v = jnp.linalg.eigh(a)
    wc, vc = jnp.linalg.eigh(c)
    return w, jnp.abs(v), wc, jnp.abs(vc), jnp.linalg.eigvalsh(a)


def svd(a, c):
    """jnp.linalg.svd (lapack_sgesdd_ffi, lapack_cgesdd_ffi): singular values
    and |U|, |V^H| (sign- and phase-free); values only (mode N); pinv and the
    2-norm, which use it."""
    u, s, vt = jnp.linalg.svd(a, full_matrices=False)
    return (s, jnp.abs(u), jnp.abs(vt), jnp.linalg.svd(c, compute_uv=False), jnp.linalg.pinv(a),
            jnp.linalg.norm(a, 2))


def qr_pivoted_hessenberg(a, h, c, dl, d, du, b):
    """The rest of the QR family and the reductions: jax.scipy.linalg.qr with
    pivoting (lapack_sgeqp3_ffi), lax.linalg.ormqr (lapack_sormqr_ffi),
    jax.scipy.linalg.hessenberg (lapack_sgehrd_ffi), lax.linalg.tridiagonal
    (lapack_ssytrd_ffi) and lax.linalg.tridiagonal_solve (lapack_sgtsv_ffi).
    Householder reductions are unique once the reflectors' signs are
    LAPACK's; each is also checked by reconstruction."""
    q, r, p = jax.scipy.linalg.qr(a, mode="economic", pivoting=True)
    qa, taus = jax._src.lax.linalg.geqrf(a)  # no public name; jnp.linalg.qr lowers to it
    qtc = lax.linalg.ormqr(qa, taus, c, left=True, transpose=True)
    hh, hq = jax.scipy.linalg.hessenberg(h, calc_q=True)
    sym = h + h.T
    _, dd, ee, _ = lax.linalg.tridiagonal(sym, lower=True)
    x = lax.linalg.tridiagonal_solve(dl, d, du, b)
    return q, r, p, qtc, hh, hq @ hh @ hq.T, dd, ee, x


def eig_schur(a, c):
    """jnp.linalg.eig and eigvals (lapack_sgeev_ffi, lapack_cgeev_ffi) and
    jax.scipy.linalg.schur (lapack_sgees_ffi, lapack_cgees_ffi). The order
    of eigenvalues and the scale of eigenvectors are LAPACK's choice, and a
    Schur form is not unique: the module gives the eigenvalues sorted and
    what defines the rest, V diag(w) V^-1 = a (left vectors too), Z T Z^H = a,
    Z^H Z = I and T's zeros."""
    w, v = jnp.linalg.eig(a)
    wl, vl, vr = lax.linalg.eig(c, compute_left_eigenvectors=True, compute_right_eigenvectors=True)
    t, z = jax.scipy.linalg.schur(a)
    tc, zc = jax.scipy.linalg.schur(c)
    right = v @ jnp.diag(w) @ jnp.linalg.inv(v)
    left = jnp.linalg.inv(vl.conj().T) @ jnp.diag(wl) @ vl.conj().T
    return (jnp.sort(w), right, jnp.sort(jnp.linalg.eigvals(c)), left, vr @ jnp.diag(wl) @ jnp.linalg.inv(vr),
            z @ t @ z.T, z.T @ z, jnp.tril(t, -2), zc @ tc @ zc.conj().T, zc.conj().T @ zc, jnp.tril(tc, -1),
            jnp.sort(jnp.diag(tc)))


def sorted_queries(rng):
    a = np.array([-INF, -2, -1, -1, -0.0, 0, 0.5, 1, 1, 1, 3, 3.5, 7, INF, NAN], np.float32)
    v = np.array([-INF, -3, -1, -0.0, 0, 0.25, 1, 2, 3.5, 8, INF, NAN], np.float32)
    v = np.concatenate([v, rng.uniform(-3, 8, 4).astype(np.float32)])
    return a, v


LATEST_CASES = [
    ("sort_floats", sort_floats, lambda rng: (
        np.array([3, NAN, -0.0, 0, -1, INF, -INF, 2, NEG_NAN, -0.0, 1.5, -2, 0, NAN, 2, -0.0], np.float32),
        np.array([1, np.nan, -0.0, 0, -np.inf, np.inf, -1, 0.5, np.nan, -0.0], np.float16),
        np.concatenate([rng.standard_normal((4, 5)), [[np.nan, -0.0, 0, np.inf, -np.inf]]]).astype(np.float32))),
    ("argsort", argsort, lambda rng: (
        np.array([1, -0.0, NAN, 0, 2, 1, -INF, 0, NAN, -0.0, 2, -1, 1, INF], np.float32),
        rng.integers(0, 3, (3, 8)).astype(np.int32))),
    ("median", median, lambda rng: (
        rng.standard_normal((5, 6)).astype(np.float32),
        np.array([4, 1, NAN, 3, 2, 0], np.float32))),
] + [
    ("searchsorted_" + method, searchsorted(method), sorted_queries)
    for method in ("scan", "scan_unrolled", "sort", "compare_all")
] + [
    ("unique", unique, lambda rng: (
        rng.choice(np.array([-4, 0, 2, 3, 7, 11], np.int32), 16),
        np.array([1, NAN, -0.0, 0, 2, 1, NAN, -1, 0, 2], np.float32))),
    ("histogram", histogram, lambda rng: (
        np.concatenate([rng.standard_normal(20) * 1.5, [-2, 2, 0.5, -3.5]]).astype(np.float32),
        rng.uniform(0.5, 2, 24).astype(np.float32))),
] + [
    ("random_" + impl, random(impl), lambda rng, n=n: (np.array(rng.integers(0, 2**32, n), np.uint32),))
    for impl, n in (("threefry2x32", 2), ("rbg", 4), ("unsafe_rbg", 4))
]
LATEST_CASES += [
    ("linalg_cholesky", cholesky_solve, lambda rng: (spd(rng, 5, 5), spd(rng, 3, 4, 4),
                                                     rng.standard_normal((5, 2)).astype(np.float32))),
    ("linalg_lu", lu_solve, lambda rng: (rng.standard_normal((5, 5)).astype(np.float32),
                                         rng.standard_normal((5, 3)).astype(np.float32), complex64(rng, 4, 4))),
    ("linalg_triangular", triangular, lambda rng: (
        (rng.standard_normal((4, 4)) + 4 * np.eye(4)).astype(np.float32),
        rng.standard_normal((4, 3)).astype(np.float32), complex64(rng, 3, 3) + 4 * np.eye(3, dtype=np.complex64))),
    ("linalg_qr", qr, lambda rng: (rng.standard_normal((6, 4)).astype(np.float32), complex64(rng, 4, 3))),
    ("linalg_eigh", eigh, lambda rng: (spd(rng, 5, 5) - 5 * np.eye(5, dtype=np.float32),
                                       (lambda m: (m + m.conj().T).astype(np.complex64))(complex64(rng, 4, 4)))),
    ("linalg_svd", svd, lambda rng: (rng.standard_normal((6, 4)).astype(np.float32), complex64(rng, 3, 5))),
    ("linalg_reductions", qr_pivoted_hessenberg, lambda rng: (
        rng.standard_normal((6, 4)).astype(np.float32), rng.standard_normal((5, 5)).astype(np.float32),
        rng.standard_normal((6, 2)).astype(np.float32),
        np.concatenate([[0], rng.standard_normal(5)]).astype(np.float32), (rng.standard_normal(6) + 4).astype(np.float32),
        np.concatenate([rng.standard_normal(5), [0]]).astype(np.float32), rng.standard_normal((6, 3)).astype(np.float32))),
    ("linalg_eig", eig_schur, lambda rng: (rng.standard_normal((5, 5)).astype(np.float32), complex64(rng, 4, 4))),
]


def gpu_reductions(a, c, sym, dl, d, du, b):
    """On the GPU: lax.linalg.ormqr (cusolver_ormqr_ffi), tridiagonal
    (cusolver_sytrd_ffi), tridiagonal_solve (cusparse_gtsv2_ffi) and
    symmetric_product (cusolver_syrk_ffi, which fills one triangle; made
    whole by symmetrize_output)."""
    qa, taus = jax._src.lax.linalg.geqrf(a)
    _, dd, ee, _ = lax.linalg.tridiagonal(sym + sym.T, lower=True)
    product = lax.linalg.symmetric_product(sym[:, :3], sym + sym.T, alpha=2.0, beta=0.5, symmetrize_output=True)
    return (lax.linalg.ormqr(qa, taus, c, left=True, transpose=True), dd, ee, lax.linalg.tridiagonal_solve(dl, d, du, b),
            product)


def x64_linalg(spd64, z, a64, h):
    """Double precision (run with x64 on): cholesky (lapack_dpotrf_ffi), a
    complex solve (lapack_zgetrf_ffi, lapack_ztrsm_ffi), qr
    (lapack_dgeqrf_ffi, lapack_dorgqr_ffi), eigh of a Hermitian matrix
    (lapack_zheevd_ffi; |v|), svd (lapack_dgesdd_ffi; |U|, |V^H|), eig
    (lapack_dgeev_ffi; sorted, and V diag(w) V^-1) and a complex Schur form
    (lapack_zgees_ffi; Z T Z^H and T's zeros)."""
    q, r = jnp.linalg.qr(a64)
    w, v = jnp.linalg.eigh(h)
    u, s, vt = jnp.linalg.svd(a64, full_matrices=False)
    we, ve = jnp.linalg.eig(spd64 - 3 * jnp.eye(spd64.shape[0]))
    t, zz = jax.scipy.linalg.schur(z)
    return (jnp.linalg.cholesky(spd64), jnp.linalg.solve(z, z[:, :2]), q, r, w, jnp.abs(v), s, jnp.abs(u),
            jnp.abs(vt), jnp.sort(we), ve @ jnp.diag(we) @ jnp.linalg.inv(ve), zz @ t @ zz.conj().T,
            jnp.tril(t, -1))


def svd_qr(a, c):
    """lax.linalg.svd by the QR algorithm of wide matrices, which on the GPU
    is cusolver_gesvd_ffi with transposed = true: s, |U|, |V^H|, and U S V^H
    for the full and the complex one."""
    u, s, vt = lax.linalg.svd(a, full_matrices=False, algorithm=lax.linalg.SvdAlgorithm.QR)
    uf, sf, vtf = lax.linalg.svd(a, full_matrices=True, algorithm=lax.linalg.SvdAlgorithm.QR)
    uc, sc, vtc = lax.linalg.svd(c, full_matrices=False, algorithm=lax.linalg.SvdAlgorithm.QR)
    return (s, jnp.abs(u), jnp.abs(vt), (uf * sf) @ vtf[:3], vtf @ vtf.T, sc, (uc * sc) @ vtc)


def spsolve(data, indices, indptr, b):
    """jax.experimental.sparse.linalg.spsolve: on the GPU
    cusolver_csrlsvqr_ffi, on the CPU scipy through a host callback."""
    from jax.experimental.sparse.linalg import spsolve as solve
    return solve(data, indices, indptr, b)


def sparse_system(rng, n=6):
    """A random diagonally dominant matrix in compressed rows, and b."""
    dense = np.where(rng.random((n, n)) < 0.4, rng.standard_normal((n, n)), 0) + 4 * np.eye(n)
    indptr, indices, data = [0], [], []
    for row in dense:
        columns = np.nonzero(row)[0]
        indices += list(columns)
        data += list(row[columns])
        indptr.append(len(indices))
    return (np.array(data, np.float32), np.array(indices, np.int32), np.array(indptr, np.int32),
            rng.standard_normal(n).astype(np.float32))


def args_of(name):
    """The argument maker of a case of the latest set."""
    return next(make for case, _, make in LATEST_CASES if case == name)


# Run with x64 on (main() turns it on for a name holding "x64"), so that
# f64 and c128 stay as they are.
LATEST_CASES += [
    ("linalg_x64", x64_linalg, lambda rng: (
        spd(rng, 4, 4).astype(np.float64),
        (rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4)) + 3 * np.eye(4)).astype(np.complex128),
        rng.standard_normal((5, 3)),
        (lambda m: m + m.conj().T)(rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))))),
]


# Modules lowered for the GPU (jax.export for platform cuda, which needs no
# GPU), so that they hold the calls of jax's GPU dumps: cuSOLVER, cuSPARSE,
# cu_lu_pivots_to_permutation. XLA:CPU cannot run them; their expected
# outputs are the same functions jitted on the CPU (the calls mean the same
# on either device). No .opt.hlo: that would need XLA:GPU.
LATEST_CASES += [
    ("gpu_linalg_cholesky", cholesky_solve, args_of("linalg_cholesky")),
    ("gpu_linalg_lu", lu_solve, args_of("linalg_lu")),
    ("gpu_linalg_qr", qr, args_of("linalg_qr")),
    ("gpu_linalg_eigh", eigh, args_of("linalg_eigh")),
    ("gpu_linalg_svd", svd, args_of("linalg_svd")),
    ("gpu_linalg_spsolve", spsolve, sparse_system),
    ("gpu_linalg_svd_qr", svd_qr, lambda rng: (rng.standard_normal((3, 5)).astype(np.float32),
                                              complex64(rng, 2, 4))),
    ("gpu_linalg_reductions", gpu_reductions, lambda rng: (
        rng.standard_normal((6, 4)).astype(np.float32), rng.standard_normal((6, 2)).astype(np.float32),
        rng.standard_normal((5, 5)).astype(np.float32),
        np.concatenate([[0], rng.standard_normal(5)]).astype(np.float32), (rng.standard_normal(6) + 4).astype(np.float32),
        np.concatenate([rng.standard_normal(5), [0]]).astype(np.float32), rng.standard_normal((6, 3)).astype(np.float32))),
]


# ---- the models set: small models at the batch sizes of serving and training ----
# Written by the pinned jax into testdata/jax/models/, each case from its own
# generator (as the latest set), and timed against XLA:CPU by make bench-xla
# (bench/jit_bench.cc). Weights are scaled by 1/sqrt(fan-in) so that
# activations stay near one and the results mean something.

def weights(rng, *shape):
    fan_in = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)


def max_pool(y):
    return lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def conv_same(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def cnn_logits(params, x):
    """Two 3x3 convolutions with ReLU, each followed by a 2x2 max pool, then a dense layer."""
    w1, b1, w2, b2, w3, b3 = params
    y = max_pool(jax.nn.relu(conv_same(x, w1) + b1))
    y = max_pool(jax.nn.relu(conv_same(y, w2) + b2))
    return y.reshape(y.shape[0], -1) @ w3 + b3


def cross_entropy(logits, labels):
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, logits.shape[-1]), axis=-1))


def sgd(params, grads, rate=0.05):
    return tuple(p - rate * g for p, g in zip(params, grads))


def cnn_forward(w1, b1, w2, b2, w3, b3, x):
    return cnn_logits((w1, b1, w2, b2, w3, b3), x)


def cnn_train_step(w1, b1, w2, b2, w3, b3, x, labels):
    """Cross-entropy loss and one SGD step (the pools' gradient is select-and-scatter)."""
    params = (w1, b1, w2, b2, w3, b3)
    loss, grads = jax.value_and_grad(lambda p: cross_entropy(cnn_logits(p, x), labels))(params)
    return (loss,) + sgd(params, grads)


def cnn_args(rng, batch=8):
    return (weights(rng, 3, 3, 1, 16), np.zeros(16, np.float32), weights(rng, 3, 3, 16, 32),
            np.zeros(32, np.float32), weights(rng, 7 * 7 * 32, 10), np.zeros(10, np.float32),
            rng.standard_normal((batch, 28, 28, 1)).astype(np.float32))


def lstm(wx, wh, b, h0, c0, xs):
    """An LSTM over the leading (time) axis with lax.scan: the last state and every output."""
    def step(carry, x):
        h, c = carry
        i, f, g, o = jnp.split(x @ wx + h @ wh + b, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h
    (h, c), hs = lax.scan(step, (h0, c0), xs)
    return h, c, hs


def gru_outputs(params, h0, xs):
    wx, wh, b = params[:3]
    def step(h, x):
        zx, rx, nx = jnp.split(x @ wx + b, 3, axis=-1)
        zh, rh, nh = jnp.split(h @ wh, 3, axis=-1)
        z = jax.nn.sigmoid(zx + zh)
        r = jax.nn.sigmoid(rx + rh)
        n = jnp.tanh(nx + r * nh)
        h = (1 - z) * n + z * h
        return h, h
    return lax.scan(step, h0, xs)[1]


def gru_bptt(wx, wh, b, wout, h0, xs, ys):
    """A GRU's squared loss over every step and its gradient (backpropagation through time)."""
    def loss(params):
        return jnp.mean((gru_outputs(params, h0, xs) @ params[3] - ys) ** 2)
    params = (wx, wh, b, wout)
    value, grads = jax.value_and_grad(loss)(params)
    return (value,) + grads


def layer_norm_of(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta


def transformer_block(x, g1, b1, wqkv, wo, g2, b2, w1, w2, heads=4):
    """A pre-LN transformer block: causal multi-head self-attention, then a GELU MLP, both residual."""
    batch, seq, dim = x.shape
    h = layer_norm_of(x, g1, b1)
    q, k, v = jnp.split(h @ wqkv, 3, axis=-1)
    split = lambda t: t.reshape(batch, seq, heads, dim // heads)
    q, k, v = split(q), split(k), split(v)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(dim // heads).astype(x.dtype)
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    scores = jnp.where(mask, scores, jnp.asarray(-1e9, scores.dtype))
    attended = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), v).reshape(batch, seq, dim)
    x = x + attended @ wo
    return x + jax.nn.gelu(layer_norm_of(x, g2, b2) @ w1) @ w2


def transformer_args(rng, dtype, batch=2, seq=64, dim=128):
    cast = lambda a: a.astype(dtype)
    return tuple(cast(a) for a in (
        rng.standard_normal((batch, seq, dim)), np.ones(dim), np.zeros(dim), weights(rng, dim, 3 * dim),
        weights(rng, dim, dim), np.ones(dim), np.zeros(dim), weights(rng, dim, 4 * dim), weights(rng, 4 * dim, dim)))


def mlp_train_step(w1, b1, w2, b2, x, labels):
    """Cross-entropy loss of a 784-256-10 MLP and one SGD step."""
    params = (w1, b1, w2, b2)
    def loss(p):
        return cross_entropy(jax.nn.relu(x @ p[0] + p[1]) @ p[2] + p[3], labels)
    value, grads = jax.value_and_grad(loss)(params)
    return (value,) + sgd(params, grads)


def decode_step(x, wq, wk, wv, wo, k_cache, v_cache, position, heads=4):
    """One token of autoregressive decoding: the new key and value written into
    the caches at `position`, attention over the positions up to it."""
    batch, dim = x.shape
    length = k_cache.shape[1]
    head = dim // heads
    q = (x @ wq).reshape(batch, heads, head)
    k_cache = lax.dynamic_update_slice(k_cache, (x @ wk).reshape(batch, 1, heads, head), (0, position, 0, 0))
    v_cache = lax.dynamic_update_slice(v_cache, (x @ wv).reshape(batch, 1, heads, head), (0, position, 0, 0))
    scores = jnp.einsum("bhd,blhd->bhl", q, k_cache) / np.sqrt(head).astype(np.float32)
    scores = jnp.where(jnp.arange(length) <= position, scores, -1e9)
    out = jnp.einsum("bhl,blhd->bhd", jax.nn.softmax(scores, axis=-1), v_cache).reshape(batch, dim)
    return out @ wo, k_cache, v_cache


def per_example_grads(w1, b1, w2, b2, x, y):
    """The gradient of a small MLP's squared loss for each example of the batch (vmap of grad)."""
    def loss(params, xi, yi):
        h = jnp.tanh(xi @ params[0] + params[1])
        return jnp.sum((h @ params[2] + params[3] - yi) ** 2)
    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))((w1, b1, w2, b2), x, y)


MODEL_CASES = [
    ("cnn_forward", cnn_forward, cnn_args),
    ("cnn_train_step", cnn_train_step, lambda rng: cnn_args(rng) + (rng.integers(0, 10, 8).astype(np.int32),)),
    ("lstm_scan", lstm, lambda rng: (weights(rng, 16, 128), weights(rng, 32, 128), np.zeros(128, np.float32),
                                     np.zeros((4, 32), np.float32), np.zeros((4, 32), np.float32),
                                     rng.standard_normal((16, 4, 16)).astype(np.float32))),
    ("gru_bptt", gru_bptt, lambda rng: (weights(rng, 16, 96), weights(rng, 32, 96), np.zeros(96, np.float32),
                                        weights(rng, 32, 4), np.zeros((4, 32), np.float32),
                                        rng.standard_normal((16, 4, 16)).astype(np.float32),
                                        rng.standard_normal((16, 4, 4)).astype(np.float32))),
    ("transformer_f32", transformer_block, lambda rng: transformer_args(rng, np.float32)),
    ("transformer_bf16", transformer_block, lambda rng: transformer_args(rng, jnp.bfloat16)),
    ("mlp_train_step", mlp_train_step, lambda rng: (weights(rng, 784, 256), np.zeros(256, np.float32),
                                                    weights(rng, 256, 10), np.zeros(10, np.float32),
                                                    rng.standard_normal((32, 784)).astype(np.float32),
                                                    rng.integers(0, 10, 32).astype(np.int32))),
    ("decode_step", decode_step, lambda rng: (
        rng.standard_normal((1, 128)).astype(np.float32), weights(rng, 128, 128), weights(rng, 128, 128),
        weights(rng, 128, 128), weights(rng, 128, 128),
        rng.standard_normal((1, 256, 4, 32)).astype(np.float32), rng.standard_normal((1, 256, 4, 32)).astype(np.float32),
        np.int32(100))),
    ("per_example_grads", per_example_grads, lambda rng: (
        weights(rng, 32, 64), np.zeros(64, np.float32), weights(rng, 64, 4), np.zeros(4, np.float32),
        rng.standard_normal((32, 32)).astype(np.float32), rng.standard_normal((32, 4)).astype(np.float32))),
]


# ---- writing -----------------------------------------------------------------

SETS = {
    # name: (cases, folder, the requirements file pinning its jax, write NAME.opt.hlo)
    "pinned": (CASES, os.path.join("testdata", "jax"), "xla-requirements.txt", False),
    "latest": (LATEST_CASES, os.path.join("testdata", "jax", "latest"), "xla-latest-requirements.txt", True),
    "models": (MODEL_CASES, os.path.join("testdata", "jax", "models"), "xla-requirements.txt", False),
}


def pinned_jax(requirements):
    """The jax version a requirements file of scripts/ pins (jax==X)."""
    with open(os.path.join(ROOT, "scripts", requirements), encoding="utf-8") as f:
        for line in f:
            match = re.match(r"\s*jax==(\S+)", line)
            if match:
                return match.group(1)
    return None


def case_args(set_name):
    """[(name, function, arguments)] of a set. The pinned set's arguments come
    from one generator in case order, so all of them are drawn even when only
    some cases are written."""
    cases, _, _, _ = SETS[set_name]
    if set_name == "pinned":
        return [(name, fn, make_args()) for name, fn, make_args in cases]
    return [(name, fn, make_args(np.random.default_rng(zlib.crc32(name.encode()))))
            for name, fn, make_args in cases]


def optimized_text(lowered):
    """The module after XLA:CPU's passes, printed as Compiled.as_text() prints
    it, less the metadata (see the docstring)."""
    options = _hlo.HloPrintOptions()
    options.print_metadata = False
    return lowered.compile().runtime_executable().hlo_modules()[0].to_string(options)


def write_gpu_case(name, jitted, args, base):
    """A case of the GPU: the module jax lowers for CUDA, and the function's
    outputs on the CPU, named as hlo-run --output names a flat tuple's."""
    from jax import export
    from jax._src.lib import xla_client
    # Calls jax does not promise to keep stable across versions: fine here,
    # where the module is written once and read as text.
    unstable = ["cusolver_ormqr_ffi", "cusolver_sytrd_ffi", "cusparse_gtsv2_ffi", "cusolver_syrk_ffi",
                "cusolver_csrlsvqr_ffi"]
    exported = export.export(jitted, platforms=["cuda"],
                             disabled_checks=[export.DisabledSafetyCheck.custom_call(t) for t in unstable])(*args)
    computation = xla_client._xla.mlir.mlir_module_to_xla_computation(
        exported.mlir_module(), use_tuple_args=False, return_tuple=True)
    with open(base + ".hlo", "w") as f:
        f.write(computation.as_hlo_text())
    np.savez(base + ".in.npz", **{"arg%d" % i: a for i, a in enumerate(args)})
    outputs = [np.asarray(v) for v in jax.tree_util.tree_leaves(jitted(*args))]
    np.savez(base + ".out.npz", **{"result.%d" % i: v for i, v in enumerate(outputs)})
    size = sum(os.path.getsize(base + s) for s in (".hlo", ".in.npz", ".out.npz"))
    print("%-26s %3d arrays out, %7d bytes  (lowered for cuda; outputs from the CPU)" % (name, len(outputs), size))
    return True


def load_outputs(path):
    with np.load(path) as saved:
        return [(k, saved[k]) for k in saved.files]


def same_arrays(got, want):
    def same(g, w):
        if w.dtype.kind == "V":  # an ml_dtypes type (bfloat16, float8...), which numpy.save writes as raw bytes
            if g.dtype.itemsize != w.dtype.itemsize or g.shape != w.shape:
                return False
            g, w = g.view(w.dtype).astype(np.float32), w.astype(np.float32)
        return g.shape == w.shape and g.dtype == w.dtype and np.allclose(g, w, rtol=1e-6, atol=1e-6, equal_nan=True)
    return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))


USAGE = "usage: make_jax_testdata.py [--set=pinned|latest|models] [--only=NAME[,NAME...]] [--opt] [OUT_DIR]"


def main(argv):
    set_name, only, opt, out_dir = None, None, False, None
    for arg in argv:
        if arg.startswith("--set=") and arg[6:] in SETS:
            set_name = arg[6:]
        elif arg.startswith("--only="):
            only = set(arg[7:].split(","))
        elif arg == "--opt":
            opt = True
        elif arg in ("-h", "--help"):
            print(USAGE)
            return 0
        elif not arg.startswith("-") and out_dir is None:
            out_dir = arg
        else:
            print(USAGE, file=sys.stderr)
            return 2
    pins = {name: pinned_jax(SETS[name][2]) for name in SETS}
    if set_name is None:
        set_name = next((name for name in SETS if pins[name] == jax.__version__), None)
        if set_name is None:
            print("make_jax_testdata: jax %s is the pin of neither scripts/%s (%s) nor scripts/%s (%s): "
                  "give --set=pinned|latest and an OUT_DIR" % (
                      jax.__version__, SETS["pinned"][2], pins["pinned"], SETS["latest"][2], pins["latest"]),
                  file=sys.stderr)
            return 2
    _, folder, requirements, set_opt = SETS[set_name]
    if out_dir is None:
        # The checked-in files must come from the pinned jax, or a rerun would not reproduce them.
        if pins[set_name] != jax.__version__:
            print("make_jax_testdata: %s is written by jax %s (scripts/%s), this is jax %s; "
                  "give an OUT_DIR to write the cases elsewhere" % (
                      folder, pins[set_name], requirements, jax.__version__), file=sys.stderr)
            return 2
        out_dir = os.path.join(ROOT, folder)
    opt = opt or set_opt
    cases = case_args(set_name)
    if only is not None:
        unknown = only - {name for name, _, _ in cases}
        if unknown:
            print("make_jax_testdata: no case %s in the %s set" % (", ".join(sorted(unknown)), set_name),
                  file=sys.stderr)
            return 2
        cases = [case for case in cases if case[0] in only]
    os.makedirs(out_dir, exist_ok=True)
    print("jax %s, the %s set, into %s" % (jax.__version__, set_name, out_dir))
    oracle = xla_oracle.Oracle()
    failed = False
    for name, fn, args in cases:
        with jax.enable_x64("x64" in name):
            failed |= not write_case(name, fn, args, out_dir, opt, oracle)
    return 1 if failed else 0


def write_case(name, fn, args, out_dir, opt, oracle):
    """Writes one case; False when XLA failed or disagreed with the function."""
    jitted = jax.jit(fn, keep_unused=True)
    base = os.path.join(out_dir, name)
    if name.startswith("gpu_"):
        return write_gpu_case(name, jitted, args, base)
    lowered = jitted.lower(*args)
    with open(base + ".hlo", "w") as f:
        f.write(lowered.as_text(dialect="hlo"))
    suffixes = [".hlo", ".in.npz", ".out.npz"]
    if opt:
        with open(base + ".opt.hlo", "w") as f:
            f.write(optimized_text(lowered))
        suffixes.insert(1, ".opt.hlo")
    np.savez(base + ".in.npz", **{"arg%d" % i: a for i, a in enumerate(args)})
    outcome, detail = oracle.run(base + ".hlo", base + ".in.npz", base + ".out.npz")
    if outcome != "ok":
        print("%s: XLA %s: %s" % (name, outcome, detail))
        return False
    # The saved module on XLA must give what the jitted function gives.
    got = [v for _, v in load_outputs(base + ".out.npz")]
    want = [np.asarray(v) for v in jax.tree_util.tree_leaves(jitted(*args))]
    notes = [] if same_arrays(got, want) else ["MISMATCH with the jitted function"]
    size = sum(os.path.getsize(base + s) for s in suffixes)
    print("%-26s %3d arrays out, %7d bytes%s" % (name, len(got), size, "".join("  " + n for n in notes)))
    return not notes


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
