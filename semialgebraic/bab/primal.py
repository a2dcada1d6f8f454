r"""The primal side's float local search: candidate points where ``|a_o − b_o|`` is large.

Floats only *propose* points (random samples of the box, then projected gradient ascent on
``± (a_o − b_o)`` in float64, then a walk over linear regions: :func:`region_search`); every
proposal is evaluated exactly by the caller before it counts, so nothing here decides
anything.  Deterministic given the seed.
"""

from __future__ import annotations

import numpy as np

from algebra.rationals import from_float

from ..budget import checkpoint
from ..lp.floatlp import dense_max

__all__ = ["float_candidates", "many_candidates", "region_search", "sampled_candidates"]


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


def float_candidates(Ws_q, bs_q, box, o, s, *, samples=256, steps=40, keep=3, seed=0, work=_WORK):
    """Up to *keep* exact points of the box (rationals) where the float ``s·D_o`` is largest.

    The number of samples is at most *work* (default ``_WORK``) divided by the number of
    weights (at least 16): on a 5-50×6-5 pair the full 256 samples cost more than the exact
    search (measured: 24 of 40 s, einsum's plain loop).  A larger *work* is the primal rounds
    of :func:`semialgebraic.bab.diff.bounded_diff` (``_MORE_WORK``)."""
    Ws = [np.array([[float(v) for v in row] for row in W]) for W in Ws_q]
    samples = min(samples, max(16, work // max(1, sum(W.size for W in Ws))))
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


def many_candidates(Ws_q, bs_q, box, o, s, *, chunk=128, chunks=16, steps=60, keep=8, seed=0,
                    more=lambda: True):
    """Up to *keep* exact points of the box where the float ``s·D_o`` is largest after
    sign-gradient ascents from *chunk* random points at a time (steps ``(hi − lo)/8`` shrinking
    by 0.85), at most *chunks* chunks, a next one only while ``more()`` (the caller's share of
    its time; the first always runs).  Returns ``(points, chunks done)``.  Floats only propose
    (the caller evaluates exactly); the seed and the chunks done fix the points."""
    Ws = [np.array([[float(v) for v in row] for row in W]) for W in Ws_q]
    bs = [np.array([float(v) for v in b]) for b in bs_q]
    lo = np.array([float(a) for a, _ in box])
    hi = np.array([float(b) for _, b in box])
    rng = np.random.default_rng(seed)
    best_x, best_v = np.zeros((0, len(box))), np.zeros(0)
    done = 0
    while done < chunks and (done == 0 or more()):
        X = lo + (hi - lo) * rng.random((chunk, len(box)))
        step = (hi - lo) / 8
        for _ in range(steps):
            checkpoint()
            out, acts = _forward(Ws, bs, X)
            g = np.zeros_like(out)
            g[:, o] = s
            X = np.clip(X + step * np.sign(_grad(Ws, acts, g)), lo, hi)
            step = step * 0.85
        out, _ = _forward(Ws, bs, X)
        best_x = np.vstack([best_x, X])
        best_v = np.concatenate([best_v, s * out[:, o]])
        order = np.argsort(-best_v)[:keep]
        best_x, best_v = best_x[order], best_v[order]
        done += 1
    return [_exact_point(x, box) for x in best_x], done


def _exact_point(x, box):
    """The float point *x* as exact rationals clipped into *box*."""
    return tuple(min(max(from_float(float(v)), a), b) for v, (a, b) in zip(x, box))


def _region_lp(Ws, bs, x, o, s, lo, hi, halfspaces):
    """HiGHS on ``max s·D_o`` over the linear region of *x* (its activation pattern) in the box
    ∩ *halfspaces*: the optimal vertex (floats) and its float value, or None."""
    d = len(x)
    M, v, h = np.eye(d), np.zeros(d), x
    rows, rhs = [], []
    for l, (W, b) in enumerate(zip(Ws, bs)):
        G, g = _mm(W, M), W @ v + b
        if l == len(Ws) - 1:
            break
        z = W @ h + b
        act = z > 0
        sg = np.where(act, -1.0, 1.0)            # active: −(Gx + g) <= 0; inactive: Gx + g <= 0
        rows.append(sg[:, None] * G)
        rhs.append(-sg * g)
        h = np.maximum(z, 0.0)
        M, v = G * act[:, None], g * act
    for a, b in halfspaces:
        rows.append(np.array([[float(t) for t in a]]))
        rhs.append(np.array([float(b)]))
    R = np.vstack(rows) if rows else np.zeros((0, d))
    r = np.concatenate(rhs) if rhs else np.zeros(0)
    got = dense_max(R, r, s * G[o], lo, hi)
    return None if got is None else (got[0], got[1] + s * g[o])


_LPS = 120             # region LPs per call of region_search (counted, not clocked)


def region_search(Ws_q, bs_q, box, o, s, starts, *, halfspaces=(), lps=_LPS, keep=3, _floats=None, _used=None):
    """Up to *keep* exact points of the box where ``s·D_o`` is largest after a float walk over
    linear regions from each of *starts* (exact points): maximise ``s·D_o`` over the region of
    the current point by an LP (HiGHS, floats), step a little beyond the optimal vertex away
    from where the step started (into the next region) and repeat while the value grows; at
    most *lps* LPs in all.  On the digits 64-32-10 pair vs its float16 copy this found ``|a −
    b|`` 3–14 % above the gradient ascent's best (floats, 2026-12-02).  The caller evaluates
    every point exactly (a point outside the *halfspaces* is worth nothing there).  (*_floats*:
    the float weights and biases, when the caller has them.)"""
    Ws, bs = _floats if _floats is not None else (
        [np.array([[float(v) for v in row] for row in W]) for W in Ws_q],
        [np.array([float(v) for v in b]) for b in bs_q])
    lo = np.array([float(a) for a, _ in box])
    hi = np.array([float(b) for _, b in box])
    width = float(np.max(hi - lo)) if len(box) else 0.0
    found = []
    budget = lps
    for p in starts:
        x = np.array([float(v) for v in p])
        best = None
        while budget > 0:
            checkpoint()
            budget -= 1
            got = _region_lp(Ws, bs, x, o, s, lo, hi, halfspaces)
            if got is None:
                break
            xs, val = got
            if best is not None and val <= best[0]:
                break
            best = (val, xs)
            step = xs - x
            norm = float(np.linalg.norm(step))
            if norm == 0.0:
                break
            x = np.clip(xs + 1e-6 * width * step / norm, lo, hi)
        if best is not None:
            found.append(best)
        if budget <= 0:
            break
    if _used is not None:
        _used[0] = lps - budget
    found.sort(key=lambda t: -t[0])
    return [_exact_point(xs, box) for _, xs in found[:keep]]


_SAMPLES = 32768            # points of a sampling stage (at most; fewer on a large net)
_SAMPLE_WORK = 2_000_000_000    # samples · weights of one stage: ~0.7 CPU s on a 5-50x6-5 pair's a − b
_SAMPLE_TOP = 16            # a stage's walks start at its best samples of max_o |D_o| ...
_SAMPLE_PER = 2             # ... and at each objective's best samples
_SAMPLE_LPS = 400           # region LPs of a stage's walks, all objectives together
_WALK_CAP = 60              # region LPs of one of its walks (at most)
_FACES = 0.5                # share of the samples in the layer of depth _FACE_DEPTH along a face
_FACE_DEPTH = 1 / 32


def sampled_candidates(Ws_q, bs_q, box, seed, *, samples=_SAMPLES, work=_SAMPLE_WORK, top=_SAMPLE_TOP,
                       per=_SAMPLE_PER, lps=_SAMPLE_LPS, halfspaces=(), faces=_FACES):
    """One sampling stage of the primal side: ``(o, s, point)`` proposals (exact points of the
    box) where ``s·D_o`` may be largest, for every objective ``± D_o`` at once.

    Samples of the box (seed *seed*; at most *work* / weights of them; a share *faces* of them
    in the layer of depth ``_FACE_DEPTH`` of the box's width along a random face, the others
    uniform), evaluated in floats; the *top* samples of ``max_o |D_o|`` (with the objective attaining it) and the *per*
    best samples of each objective ``s·D_o`` start a walk over linear regions
    (:func:`region_search`, *lps* LPs in all, in that order).  Returns the starts and the
    walks' ends.  A maximum on a small spot (ACAS Xu vs its float16 copy: a slab 1 % wide near
    a face of the box, measured 2026-12-03) is hit by samples, not by sign-gradient ascents from
    random points, which slide off it; the walk then climbs it.  (Stages of seeds 0–5 there:
    uniform samples reach 3.6e-3, 4.2e-3, 2.02e-2, 5.4e-3, 2.30e-2, 5.4e-3; half of them in the
    faces' layer 2.19e-2, 1.02e-2, 1.45e-2, 4.2e-3, 2.31e-2, 7.4e-3; the 5-50x6-5 pair's full
    box 1.66e-3 → 1.71e-3.)  Deterministic given the seed;
    the work of a stage is fixed (counted, never clocked): stages of seeds 0, 1, 2, … make the
    best exact value found a function of the number of stages run."""
    Ws = [np.array([[float(v) for v in row] for row in W]) for W in Ws_q]
    bs = [np.array([float(v) for v in b]) for b in bs_q]
    lo = np.array([float(a) for a, _ in box])
    hi = np.array([float(b) for _, b in box])
    n = int(min(samples, max(256, work // max(1, sum(W.size for W in Ws)))))
    rng = np.random.default_rng(seed)
    X = lo + (hi - lo) * rng.random((n, len(box)))
    if faces and len(box):               # a share of the samples in a thin layer along a face
        f = int(n * faces)
        k = rng.integers(0, len(box), f)
        t = rng.random(f) * _FACE_DEPTH
        side = rng.random(f) < 0.5
        X[np.arange(f), k] = np.where(side, lo[k] + t * (hi - lo)[k], hi[k] - t * (hi - lo)[k])
    outs = []
    for i in range(0, n, 4096):
        checkpoint()
        outs.append(_forward(Ws, bs, X[i:i + 4096])[0])
    out = np.vstack(outs)
    m = out.shape[1]
    V = np.hstack([out, -out])               # column o: + D_o, column m + o: − D_o
    picks: list = []
    seen: set = set()
    best = np.max(V, axis=1)
    for i in np.argsort(-best, kind="stable")[:top]:
        col = int(np.argmax(V[i]))
        picks.append((col, int(i)))
        seen.add((col, int(i)))
    for col in range(2 * m):
        for i in np.argsort(-V[:, col], kind="stable")[:per]:
            if (col, int(i)) not in seen:
                picks.append((col, int(i)))
                seen.add((col, int(i)))
    out_pts = []
    left = lps
    for col, i in picks:
        o, s = (col, 1) if col < m else (col - m, -1)
        p = _exact_point(X[i], box)
        out_pts.append((o, s, p))
        if left > 0:                         # (a walk ends where its value stops growing)
            used = [0]
            walk = region_search(Ws_q, bs_q, box, o, s, [p], halfspaces=halfspaces,
                                 lps=min(left, _WALK_CAP), keep=1, _floats=(Ws, bs), _used=used)
            left -= used[0]
            out_pts += [(o, s, q) for q in walk]
    return out_pts
