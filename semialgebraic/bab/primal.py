r"""The primal side's float local search: candidate points where ``|a_o − b_o|`` is large.

Floats only *propose* points (random samples of the box, then projected gradient ascent on
``± (a_o − b_o)`` in float64); every proposal is evaluated exactly by the caller before it
counts, so nothing here decides anything.  Deterministic given the seed.
"""

from __future__ import annotations

import numpy as np

from algebra.rationals import from_float

from ..budget import checkpoint

__all__ = ["float_candidates"]


def _mm(A, B):
    """``A @ B`` without BLAS: on a shared machine a multi-threaded BLAS oversubscribed by
    other processes made these small products 25x slower (measured), and einsum's plain loop
    is fast at these sizes."""
    return np.einsum("ij,jk->ik", A, B, optimize=False)


def _forward(Ws, bs, X):
    acts = [X]
    h = X
    for l, (W, b) in enumerate(zip(Ws, bs)):
        z = _mm(h, W.T) + b
        if l < len(Ws) - 1:
            acts.append(z)
            h = np.maximum(z, 0.0)
        else:
            return z, acts
    return h, acts


def _grad(Ws, acts, g):
    """Gradient of ``g · D(x)`` per row (g: one row of output weights per point)."""
    for l in range(len(Ws) - 1, -1, -1):
        g = _mm(g, Ws[l])
        if l > 0:
            g = g * (acts[l] > 0)
    return g


_WORK = 3_000_000      # samples · weights per step: ~2.4e8 flops over 40 steps (counted, not clocked)


def float_candidates(Ws_q, bs_q, box, o, s, *, samples=256, steps=40, keep=3, seed=0):
    """Up to *keep* exact points of the box (rationals) where the float ``s·D_o`` is largest.

    The number of samples is at most ``_WORK`` divided by the number of weights (at least 16):
    on a 5-50×6-5 pair the full 256 samples cost more than the exact search (measured: 24 of
    40 s, einsum's plain loop)."""
    Ws = [np.array([[float(v) for v in row] for row in W]) for W in Ws_q]
    samples = min(samples, max(16, _WORK // max(1, sum(W.size for W in Ws))))
    bs = [np.array([float(v) for v in b]) for b in bs_q]
    lo = np.array([float(a) for a, _ in box])
    hi = np.array([float(b) for _, b in box])
    rng = np.random.default_rng(seed)
    X = lo + (hi - lo) * rng.random((samples, len(box)))
    X = np.vstack([X, (lo + hi) / 2])
    step = (hi - lo) / 8
    for _ in range(steps):
        checkpoint()                 # an active exhausted budget stops the search here
        out, acts = _forward(Ws, bs, X)
        g = np.zeros_like(out)
        g[:, o] = s
        grad = _grad(Ws, acts, g)
        X = np.clip(X + step * np.sign(grad), lo, hi)
        step = step * 0.85
    out, _ = _forward(Ws, bs, X)
    order = np.argsort(-s * out[:, o])[:keep]
    pts = []
    for i in order:
        p = []
        for v, (a, b) in zip(X[i], box):
            q = from_float(float(v))
            p.append(min(max(q, a), b))
        pts.append(tuple(p))
    return pts
