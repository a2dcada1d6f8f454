r"""A float walk over linear regions towards a point with every target sign: the witness side of
:func:`semialgebraic.bab.emptiness.decide_empty`.

A *target* set ``{(t, j): s}`` (as in :mod:`semialgebraic.bab.emptiness`) asks for an input with
``s·z_t[j](x) > 0`` for every target.  On one linear region (the signs of every neuron below the
deepest target fixed) each ``z_t[j]`` is affine, so ``max min_targets s·z_t[j]`` over the region
is one LP (HiGHS, floats).  The walk is best-first over regions: from the regions of the start
points, each region's LP optimum is pushed a little across each facet it touches, and the region
found there is queued with its parent's value; at most *lps* LPs (a count of work, never the
clock; deterministic).  A region whose value is positive gives a second LP, the point of largest
margin inside it (every sign and every target held by at least that margin, scaled by the row
norms), which is rounded to exact rationals; the caller checks every sign exactly, so floats only
propose.

On R^d (and the orthant) the walk stays on ``τ = 1``, the inputs themselves, in the cube
``[-RADIUS, RADIUS]^d`` (:data:`RADIUS`): on the homogenised box every region is a cone through
the origin, where every form is 0, so the LP value would not guide the walk.  8-32-32-32-1 ``normal_net`` seed 3 of
``benchmarks/bench_general.py``: (2, 25) and (3, 21) are active together where ``min(z_a, z_c)``
reaches 0.0035 (found after 200-250 LPs); 4 million float samples never saw it (best -0.06).
"""

from __future__ import annotations

import heapq

import numpy as np

from algebra.rationals import Q, from_float

from ..budget import checkpoint
from ..lp.floatlp import dense_max

__all__ = ["sign_walk", "WALK_LPS", "RADIUS"]

WALK_LPS = 400
"""Region LPs of one :func:`sign_walk` (a count of work)."""

RADIUS = 1024.0
"""On R^d / the orthant the walk's inputs lie in ``[-RADIUS, RADIUS]^d`` (``[0, RADIUS]^d``)."""

_FACETS = 12
"""Facets crossed from one region's optimum (the tightest first)."""


def sign_walk(net, dom, targets: dict, starts=(), *, lps: int = WALK_LPS, seed: int = 0,
              stats: dict | None = None) -> list:
    """Float proposals (exact rational inputs of *dom*, at most a few) where every target sign
    *may* hold, from a best-first walk over linear regions started at the inputs *starts* and at
    the best of seeded float samples (``_Walk.sampled_starts``; module docstring).  The caller
    checks them exactly; [] when the walk found no region of positive value within *lps* LPs.
    *stats*, when given, receives ``"lps"``: the region LPs used."""
    stats = {} if stats is None else stats
    stats["lps"] = 0
    tg = sorted((t, j, s) for (t, j), s in targets.items())
    top = tg[-1][0]
    Ws = [np.array([[float(v) for v in r] for r in net.layer(t)[0].to_rows()]) for t in range(top + 1)]
    bs = [np.array([float(v) for v in net.layer(t)[1]]) for t in range(top + 1)]
    d = net.n_inputs
    if isinstance(dom, tuple):
        lo, hi = np.full(d, float(dom[0])), np.full(d, float(dom[1]))
    else:
        lo = np.full(d, 0.0 if dom == "orthant" else -RADIUS)
        hi = np.full(d, RADIUS)
    qlo = [Q(dom[0]) if isinstance(dom, tuple) else from_float(float(v)) for v in lo]
    qhi = [Q(dom[1]) if isinstance(dom, tuple) else from_float(float(v)) for v in hi]
    walk = _Walk(Ws, bs, tg, lo, hi)
    heap, seen, used, order = [], set(), 0, 0
    for x in list(starts) + walk.sampled_starts(seed):
        x = np.clip(np.array([float(v) for v in x[:d]]), lo, hi)
        heap.append((0.0, order, walk.pattern(x)))
        order += 1
    heapq.heapify(heap)
    while heap and used < lps:
        checkpoint()
        _, _, pat = heapq.heappop(heap)
        if pat in seen:
            continue
        seen.add(pat)
        used += 1
        stats["lps"] = used
        got = walk.region_lp(pat)
        if got is None:
            continue
        y, val, rows, rhs, forms = got
        if val > 1e-9:
            inner = walk.interior(rows, rhs, forms)
            if inner is not None:
                return [tuple(min(max(from_float(float(v)), a), b) for v, a, b in zip(inner, qlo, qhi))]
        for nxt in walk.neighbours(y, rows, rhs):
            if nxt not in seen:
                heapq.heappush(heap, (-val, order, nxt))
                order += 1
    return []


class _Walk:
    """The float network up to the deepest target, its targets and the walk's box."""

    def __init__(self, Ws, bs, tg, lo, hi):
        self.Ws, self.bs, self.tg, self.lo, self.hi = Ws, bs, tg, lo, hi
        self.width = float(np.max(hi - lo))

    def sampled_starts(self, seed, per_scale=2048, keep=8) -> list:
        """The *keep* best of seeded normal samples at scales 10^-2 .. 10^2 (clipped to the box)
        by ``min_targets s·z / (1 + |x|_inf)``."""
        rng = np.random.default_rng(seed)
        d = len(self.lo)
        X = np.vstack([np.clip(rng.standard_normal((per_scale, d)) * sc, self.lo, self.hi)
                       for sc in (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0)])
        h, score = X, np.full(len(X), np.inf)
        for t, (W, b) in enumerate(zip(self.Ws, self.bs)):
            z = h @ W.T + b
            for tt, j, s in self.tg:
                if tt == t:
                    score = np.minimum(score, s * z[:, j])
            h = np.maximum(z, 0.0)
        score = score / (1.0 + np.max(np.abs(X), axis=1))
        return [X[i] for i in np.argsort(-score, kind="stable")[:keep]]

    def pattern(self, x) -> tuple:
        """The signs (bool per neuron) of every layer below the deepest target at *x*."""
        h, out = x, []
        for W, b in zip(self.Ws[:-1], self.bs[:-1]):
            z = W @ h + b
            out.extend(bool(v) for v in z > 0)
            h = np.maximum(z, 0.0)
        return tuple(out)

    def affine(self, pat):
        """``(rows, rhs, forms)``: the region's constraints ``rows·x <= rhs`` (one per neuron
        below the deepest target) and each target's form ``(a, c)``, ``s·z = a·x + c``."""
        d = len(self.lo)
        M, v, k = np.eye(d), np.zeros(d), 0
        rows, rhs, forms = [], [], []
        for t, (W, b) in enumerate(zip(self.Ws, self.bs)):
            G, g = W @ M, W @ v + b
            for tt, j, s in self.tg:
                if tt == t:
                    forms.append((s * G[j], s * g[j]))
            if t == len(self.Ws) - 1:
                break
            act = np.array(pat[k:k + len(g)])
            k += len(g)
            sg = np.where(act, -1.0, 1.0)         # active: −(Gx + g) <= 0; inactive: Gx + g <= 0
            rows.append(sg[:, None] * G)
            rhs.append(-sg * g)
            M, v = G * act[:, None], g * act
        return np.vstack(rows) if rows else np.zeros((0, d)), np.concatenate(rhs) if rhs else np.zeros(0), forms

    def region_lp(self, pat):
        """max s subject to ``s <= form(x)`` for every target on the region of *pat*:
        ``(x, value, rows, rhs, forms)``, or None (empty region, or HiGHS gave no optimum)."""
        rows, rhs, forms = self.affine(pat)
        d = len(self.lo)
        A = np.vstack([np.hstack([rows, np.zeros((len(rows), 1))])]
                      + [np.hstack([-a, [1.0]])[None] for a, _ in forms])
        r = np.concatenate([rhs, [c for _, c in forms]])
        cost = np.zeros(d + 1)
        cost[-1] = 1.0
        big = 2.0 * sum(abs(c) + float(np.abs(a) @ np.maximum(np.abs(self.lo), np.abs(self.hi)))
                        for a, c in forms) + 1.0
        sol = _lp(A, r, cost, np.append(self.lo, -big), np.append(self.hi, big))
        if sol is None:
            return None
        return sol[:d], float(sol[-1]), rows, rhs, forms

    def interior(self, rows, rhs, forms):
        """The point of largest margin m in the region (every row ``rows·x <= rhs − m·|row|``,
        every target form ``>= m·|a|``, ``m <= width``), or None when m is not positive."""
        d = len(self.lo)
        na = [np.linalg.norm(a) + 1e-300 for a, _ in forms]
        nr = np.linalg.norm(rows, axis=1) + 1e-300 if len(rows) else np.zeros(0)
        A = np.vstack([np.hstack([rows, nr[:, None]])] + [np.hstack([-a, [n]])[None] for (a, _), n in zip(forms, na)])
        r = np.concatenate([rhs, [c for _, c in forms]])
        cost = np.zeros(d + 1)
        cost[-1] = 1.0
        sol = _lp(A, r, cost, np.append(self.lo, 0.0), np.append(self.hi, self.width))
        if sol is None or sol[-1] <= 1e-12:
            return None
        return sol[:d]

    def neighbours(self, y, rows, rhs) -> list:
        """The regions just across the (at most :data:`_FACETS` tightest) facets through *y*."""
        if not len(rows):
            return []
        norms = np.linalg.norm(rows, axis=1) + 1e-300
        slack = (rhs - rows @ y) / norms
        eps = 1e-7 * max(1.0, float(np.max(np.abs(y))))
        out = []
        for i in np.argsort(slack, kind="stable")[:_FACETS]:
            if slack[i] > 1e-6 * max(1.0, float(np.max(np.abs(y)))):
                break
            x = np.clip(y + (slack[i] + eps) * rows[i] / norms[i], self.lo, self.hi)
            out.append(self.pattern(x))
        return out


def _lp(A, r, cost, lo, hi):
    """HiGHS: max cost·x subject to ``A x <= r``, ``lo <= x <= hi``; the optimum or None."""
    got = dense_max(A, r, cost, lo, hi)
    return None if got is None else got[0]
