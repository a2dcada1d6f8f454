r"""Facets and closure proofs of one region from a float convex hull, every claim checked exactly.

The region is ``{ℓ_t(x) = K_t · (x, 1) > 0}`` over its classes t (primitive integer rows K,
:class:`~semialgebraic.regions.integer.ClassInts`) and *y* is an exact interior point.  With
``v_t = ℓ_t(y) > 0`` and ``p_t = -K_t[:d] / v_t``, the translated closed region is
``P = {z : p_t · z <= 1 for every t}`` and its polar is ``Q = conv({0} ∪ {p_t})``.  Then (for a
full-dimensional Q): t is a facet of the region iff p_t is a vertex of Q; every facet of Q not
through the origin, ``n · p <= h`` (h > 0), is a vertex ``z = n / h`` of P whose tight classes
form a basis; every facet of Q through the origin is a ray of P; and for a class u that is not
a facet, the facet of Q where the ray from 0 through p_u leaves Q is a vertex of P minimising
``ℓ_u`` — the basis of a closure proof ``ℓ_u = Σ λ_f ℓ_f + λ_0`` (λ >= 0, λ_0 > 0) when
``ℓ_u > 0`` on the closed region.

One float hull (scipy's Qhull, an optional dependency) per region therefore guesses every facet,
a point inside each (the mean of its vertices plus its rays, rounded to a dyadic grid and
projected exactly onto the hyperplane) and the basis of every closure proof, with no LP.  Floats
only choose what to check: each facet point is checked exactly (``ℓ_t = 0``, every other class
> 0, one integer product for all of them) and each closure proof is solved and checked exactly
(:func:`~semialgebraic.regions.facets.certify_with_basis`).  Whatever does not check is left to
the walk's other exact paths (:mod:`semialgebraic.regions.facets`), and so is a region whose hull
is not full-dimensional, d = 1, d > 12 (:data:`_MAX_D`), or a run without scipy.

>>> from algebra.rationals import Q
>>> from semialgebraic.regions.integer import ClassInts
>>> C = ClassInts([(1, 0, 0), (0, 1, 0), (-1, -1, 2), (-1, -1, 5)])   # x + y < 5 is redundant
>>> wit, cert = {}, {}
>>> hull_pass((Q(1, 2), Q(1, 2)), C, [Q(1)] * 4, wit, cert)
True
>>> sorted(wit), sorted(cert)
([0, 1, 2], [3])
"""

from __future__ import annotations

from math import sqrt

import numpy as np

from algebra.rationals import Q

from .facets import certify_with_basis
from .integer import int_point

__all__ = ["hull_pass", "have_hull", "preload"]

_KEPT = 6             # proofs kept per class (the bases of its latest proofs)
# Qhull's output grows like m^(d/2) and one Qhull call never sees the budget: above this input
# dimension no hull is asked (``regions`` of the digits 64-32-10 net on [0, 16]^64, --timeout 10:
# one call ran 9 min and took 6 GB; 2026-12-03 audit); the walk's other exact paths decide.
_MAX_D = 12


def _qhull():
    try:
        from scipy.spatial import ConvexHull
    except ImportError:          # optional: the walk's other exact paths decide instead
        return None
    return ConvexHull


def preload() -> None:
    """Import scipy's Qhull now: a one-time import (1.1 s, 0.6 CPU s at load 7) that the walk
    would otherwise do inside its budgeted work (``equiv`` of ACAS Xu and a copy with a dead
    neuron, ``--timeout 3``: returned at 5.9 s).  Commands with a ``--timeout`` call it before
    their budget's clock starts."""
    _qhull()


def have_hull() -> bool:
    """True when scipy's Qhull is importable (the fast path of :func:`hull_pass`)."""
    return _qhull() is not None


def _floats(arr):
    """Float copy of an integer array (object or int64); None when an entry overflows."""
    try:
        out = arr.astype(float) if arr.dtype != object else \
            np.array([float(v) for v in arr.flat], dtype=float).reshape(arr.shape)
    except OverflowError:
        return None
    return out if np.all(np.isfinite(out)) else None


def _incidence(S, m):
    """0/1 matrix (m x len(S)): class t is a vertex of simplex s."""
    inc = np.zeros((m, len(S)))
    if len(S):
        inc[S, np.arange(len(S))[:, None]] = 1.0
    return inc


def _guess(point, kints):
    """Float guesses ``(points, bases)`` or None: for each candidate facet class a float point
    inside its facet (the mean of its vertices plus its rays), and the classes of every other
    class grouped by the basis of a vertex minimising it."""
    hull_cls = _qhull()
    d, m = kints.d, kints._m
    if hull_cls is None or d < 2 or m < d or d > _MAX_D:
        return None
    Ka, Kc = kints.Kf[:, :d], kints.Kf[:, d]
    yf = np.array([float(u) for u in point])
    v = Ka @ yf + Kc                               # ℓ_t(y) in floats, when clearly > 0
    if not (np.all(np.isfinite(v)) and np.all(v > 1e-9 * (np.abs(Ka) @ np.abs(yf) + np.abs(Kc)))):
        V = kints.values(point)                    # D ℓ_t(y), integers, all > 0
        v = _floats(V)
        if v is None or not np.all(v > 0):
            return None
        v = v / float(int_point(point)[-1])
    if not np.all(np.isfinite(Ka)):
        return None
    pts = np.vstack([Ka * (-1.0 / v)[:, None], np.zeros((1, d))])
    if not np.all(np.isfinite(pts)):
        return None
    try:
        hull = hull_cls(pts, qhull_options="Qt")
    except Exception:            # noqa: BLE001 - Qhull refuses flat / degenerate input
        return None
    eqs, simp = hull.equations, hull.simplices
    off = eqs[:, d]
    vert = (off < -1e-12 * float(np.abs(pts).max())) & ~np.any(simp == m, axis=1)
    if not vert.any():
        return None
    Z = eqs[vert, :d] / (-off[vert])[:, None]      # vertices of P (translated by y)
    Sv = simp[vert]
    facets = np.array([t for t in hull.vertices if t != m], dtype=int)
    inc = _incidence(Sv, m + 1)[facets]            # facet x vertex
    cnt = inc.sum(axis=1)
    keep = cnt > 0
    X = (inc @ Z)[keep] / cnt[keep][:, None]
    if (~vert).any():                              # rays of the facets
        incr = _incidence(simp[~vert], m + 1)[facets][keep]
        X = X + (1.0 + float(np.abs(Z).max())) * (incr @ eqs[~vert, :d])
    points = dict(zip((int(t) for t in facets[keep]), X + yf))
    isf = np.zeros(m + 1, dtype=bool)
    isf[facets] = True
    isf[m] = True
    others = np.nonzero(~isf)[0]
    bases: dict = {}
    if len(others):
        best = np.argmax(pts[others] @ Z.T, axis=1)     # exit facet of the ray 0 -> p_u
        for u, s in zip(others.tolist(), best.tolist()):
            bases.setdefault(tuple(Sv[s].tolist()), []).append(u)
    return points, bases


def _dyadic(points, kints):
    """``{t: (X, D)}``: each float facet point rounded to a grid 1/D (D a power of two) fine
    enough for its float distances to the other hyperplanes (points not inside are dropped)."""
    ts = list(points)
    if not ts:
        return {}
    P = np.array([points[t] for t in ts])
    K = kints.Kf
    S = (P @ K[:, :-1].T + K[:, -1]) / kints.norms_f        # point x class distances
    S[np.arange(len(ts)), ts] = np.inf
    delta = S.min(axis=1)
    ok = (delta > 0) & np.all(np.abs(P) < 2.0 ** 800, axis=1)             # (u D < 2^1000)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        E = np.ceil(np.log2(16 * sqrt(kints.d) / np.where(ok, delta, 1.0)))
    ok &= E <= 200
    out = {}
    for row, t, e, good, prow in zip(range(len(ts)), ts, E.tolist(), ok.tolist(), P.tolist()):
        if not good:
            continue
        D = 1 << max(0, int(e))
        out[t] = ([int(round(u * D)) for u in prow], D)
    return out


def hull_pass(point, kints, scales, witnesses, certified, want_values=False, cache=None,
              proofs=None) -> bool:
    """Decide what one float hull of the region lets us prove exactly.

    *point*: an exact interior point; *kints*: the region's classes
    (:class:`~semialgebraic.regions.integer.ClassInts`); *scales*, *want_values*, *cache*: as for
    :func:`~semialgebraic.regions.facets.certify_with_basis`.  Proved facets go into
    *witnesses* (class -> exact point of the hyperplane with every other class > 0), closure
    proofs of non-facets into *certified*.  False when no hull was computed (nothing added).

    *proofs*: ``(proved_by, ids)``, an integer id of the key of every class (*ids*, ids given
    by the caller, the same for a key in every region) and a dict shared between regions, class
    id -> ids of the bases of its latest proofs.  A closure proof ``K_u = Σ μ_f K_f + μ_0``
    (μ >= 0, μ_0 > 0) is an identity between the classes' keys, so it proves ``ℓ_u > 0`` on
    the closure of every region that has all those classes: such a class is certified with no
    arithmetic (without *want_values*, which needs μ itself), and every new proof is noted in *proved_by*."""
    try:                         # floats only guess; one that overflows guesses nothing
        got = _guess(point, kints)
        grid = _dyadic(got[0], kints) if got is not None else {}
    except (OverflowError, ValueError, FloatingPointError):
        got = None
    if got is None:
        return False
    bases = got[1]
    d = kints.d
    cols, who = [], []
    kl = kints._rows()
    for t, (X, D) in grid.items():
        Kt = kl[t]
        N = kints.norm(t)
        val = sum(a * b for a, b in zip(Kt, X)) + Kt[d] * D
        cols.append([xi * N - val * a for xi, a in zip(X, Kt[:d])] + [D * N])   # exact foot
        who.append(t)
    if cols:
        sg = kints.col_signs(cols)                 # exact signs of every class at every point
        for col, t in enumerate(who):
            ok = sg[:, col] > 0
            ok[t] = True
            if ok.all():
                den = cols[col][d]
                witnesses[t] = tuple(Q(int(u), den) for u in cols[col][:d])
    if proofs is None or want_values:
        for basis, todo in bases.items():
            certify_with_basis(list(basis), kints, scales, todo, certified, want_values, cache)
        return True
    proved_by, ids = proofs
    where = {k: t for t, k in enumerate(ids)}
    for basis, todo in bases.items():
        rest = []
        for u in todo:
            for keys in proved_by.get(ids[u], ()):
                idx = [where.get(k) for k in keys]
                if None not in idx:                # the same identity holds here
                    certified[u] = (idx, None, None)
                    break
            else:
                rest.append(u)
        if rest and certify_with_basis(list(basis), kints, scales, rest, certified, False, cache):
            bk = tuple([ids[f] for f in basis])
            for u in rest:
                if u in certified:
                    old = proved_by.get(ids[u], ())
                    proved_by[ids[u]] = (bk,) + old[:_KEPT - 1]
    return True
