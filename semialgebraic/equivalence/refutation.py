r"""Cheap refutation of equivalence: exact evaluation at well-chosen rational points.

A pair of networks that differs usually differs on a large set: small batches of random
rational points with one short common denominator (cheap exact batch products) refute it.  A
difference confined to a thin slab is found next to the first-layer hyperplanes: first those of
one network without a positively parallel one in the other (the suspects), then all of them
(:func:`refutation_points`).  A point found here is exact; finding none proves nothing.

>>> from algebra.network import Network
>>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
>>> x = refute(a, a.with_parameter("b2[0]", 1), None, 4, 0)
>>> a(x) != a.with_parameter("b2[0]", 1)(x)
True
"""

from __future__ import annotations

import random
import time
from typing import Any, Sequence

from algebra.kernel.domains import Domain
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

from ..budget import checkpoint
from ..sets import in_domain, normalize_domain, random_batch, random_point

__all__ = ["refutation_points", "refute", "refute_random", "refute_hyperplanes"]

_FIRST_POINTS = (4, 32)    # sizes of the cheap batches of short-denominator points


def refutation_points(nets: Sequence[Network], domain: Any = None, *, samples: int = 32,
                      seed: int = 0) -> list[tuple[Q, ...]]:
    """Rational points for cheap refutation: random points of the domain, and for each
    first-layer hyperplane ``w·x + b = 0`` of each network, points where ``w·x + b`` is exactly
    ±1/10 and ±10^-9: from a random point, move along the coordinate axis j of the largest
    ``|w_j|`` onto the hyperplane, then off it (short denominators: the exact batch evaluation
    stays cheap).

    Parameters
    ----------
    nets : sequence of Network
        Same input dimension.
    domain : None, "orthant", (lo, hi), {"box": [lo, hi]} or {"orthant": True}
        R^d (default), the closed orthant, or the box [lo, hi]^d.
    samples : int
        Number of random points.
    seed : int
        Seed of the random points.

    Returns
    -------
    list of tuple of Q
        The points that lie in the domain.

    Raises
    ------
    InputError
        If the domain is unknown.

    Examples
    --------
    >>> from algebra.network import Network
    >>> len(refutation_points([Network.from_rows([[[1]], [[1]]], [[0], [0]])], samples=4))
    8
    """
    d = nets[0].n_inputs
    dom = normalize_domain(domain, d, polyhedral=True)
    rng = random.Random(seed)
    pts = [random_point(rng, d, dom) for _ in range(samples)]
    for net in nets:
        W, b = net.layer(0)
        pts += _hyperplane_points(W.to_rows(), b, d, dom, rng)
    return [p for p in pts if in_domain(p, dom)]



def refute(a, b, dom, samples, seed):
    """A point of the normalised domain *dom* where *a* and *b* differ (exact evaluation), or
    None (inconclusive).

    Cheapest first: small batches of random points with short denominators (a perturbed pair
    differs on a large set; one common short denominator keeps the exact batch products
    small), then the points of :func:`refutation_points` next to every first-layer hyperplane
    (for differences confined to a thin slab) in one batch."""
    x = refute_random(a, b, dom, samples, seed)
    return x if x is not None else _refute_targeted(a, b, dom, seed)


def refute_random(a, b, dom, samples, seed, suspects=False):
    """A point where *a* and *b* differ among small batches of random points with short
    denominators (at most *samples*; with *suspects*: the points of :func:`_refute_suspects`
    between the first and the second batch), or None."""
    rng = random.Random(seed + 7919)
    d = a.n_inputs
    x = _first_difference(a, b, special_points(d, dom))
    if x is not None:
        return x
    for k, size in enumerate(_FIRST_POINTS):
        checkpoint()
        x = _first_difference(a, b, random_batch(rng, min(size, samples), d, dom))
        if x is None and suspects and k == 0:
            x = _refute_suspects(a, b, dom, seed)
        if x is not None:
            return x
    return None


def special_points(d: int, dom) -> list:
    """The points a user's near-miss often sits at, first: the origin, and on a box its corners
    (all 2^d up to d = 8, else the two extreme ones) and its centre; those in the domain only.
    (Two deep nets differing only near x = 0 on the orthant and on [0, 1]^d were left undecided:
    random points with short denominators missed the corner; session 40 equivbig audit.)

    >>> special_points(2, (Q(0), Q(1)))
    [(0, 0), (0, 1), (1, 0), (1, 1), (1/2, 1/2)]
    """
    from itertools import product
    pts = [tuple(Q(0) for _ in range(d))]
    lo = hi = None
    if isinstance(dom, tuple):
        lo, hi = [Q(dom[0])] * d, [Q(dom[1])] * d
    elif isinstance(dom, Domain) and all(v is not None for v in dom.lo + dom.hi):
        lo, hi = list(dom.lo), list(dom.hi)
    if lo is not None:
        corners = product(*zip(lo, hi)) if d <= 8 else [tuple(lo), tuple(hi)]
        pts += [tuple(c) for c in corners]
        pts.append(tuple((u + v) / 2 for u, v in zip(lo, hi)))
    out = []
    for p in pts:
        if p not in out and in_domain(p, dom):
            out.append(p)
    return out


def _refute_targeted(a, b, dom, seed):
    """Points next to first-layer hyperplanes: first those of one network without a
    positively parallel one in the other, then all."""
    x = _refute_suspects(a, b, dom, seed)
    return x if x is not None else refute_hyperplanes(a, b, dom, seed)


def _refute_suspects(a, b, dom, seed):
    """Points next to the first-layer hyperplanes of one network without a positively parallel
    one in the other: the suspects of a difference confined to a thin slab."""
    rng = random.Random(seed + 104729)
    keyed = [_first_layer_keys(net) for net in (a, b)]
    sets = [set(keys) for keys, _ in keyed]
    suspects = [row(i) for k, (keys, row) in enumerate(keyed)
                for i, key in enumerate(keys) if key not in sets[1 - k]]
    if not suspects:
        return None
    pts = [p for p in _hyperplane_points([r for r, _ in suspects], [c for _, c in suspects],
                                         a.n_inputs, dom, rng) if in_domain(p, dom)]
    return _first_difference(a, b, pts)


def refute_hyperplanes(a, b, dom, seed):
    """A point where *a* and *b* differ among the points next to every first-layer hyperplane
    of both networks (:func:`refutation_points`), or None."""
    return _first_difference(a, b, refutation_points([a, b], dom, samples=0, seed=seed))


def _hyperplane_points(rows, bias, d, dom, rng) -> list:
    """Four points per hyperplane ``w·x + b = 0`` (see :func:`refutation_points`)."""
    pts = []
    for w, c in zip(rows, bias):
        checkpoint()
        j = max(range(d), key=lambda t: abs(w[t]))
        if w[j] == 0:
            continue
        x = list(random_point(rng, d, dom, small=True))
        val = sum((wi * xi for wi, xi in zip(w, x)), Q(0)) + c
        x[j] -= val / w[j]                                # now w·x + c = 0
        for eps in (Q(1, 10), Q(1, 10**9)):
            for s in (1, -1):
                y = list(x)
                y[j] += s * eps / w[j]
                pts.append(tuple(y))
    return pts


_FLOAT_KEYS = 1 << 16
"""First layers of at least this many weights kept as a reader's arrays get float keys
(:func:`_first_layer_keys`)."""


def _first_layer_keys(net: Network):
    """``(keys, row)``: a key per first-layer neuron, equal for rows (w, c) positively parallel,
    and ``row(i)`` its exact ``(w, c)``.  The keys only choose the suspects of
    :func:`_refute_suspects` (every point is then evaluated exactly), so on a reader's large
    arrays they are the rows over their first non-zero entry's absolute value in float64,
    rounded: the exact keys of a 3072 x 768 layer (its QMatrix, its rows, 2.4 M divisions) took
    5 s in one stretch no budget saw (``equiv --timeout 2`` of a 768-3072-768 block and its
    permuted copy: 6 s; s43 budgets audit F9).  Elsewhere the exact :func:`_ray_key`, with a
    budget check per row."""
    rows, cols = net.widths[1], net.n_inputs
    hint = net.integer_weights(0) if rows * cols >= _FLOAT_KEYS else None
    if hint is None:
        W, bias = net.weights[0], net.biases[0]
        keys = []
        for i, c in enumerate(bias):
            checkpoint()
            keys.append(_ray_key(W.row_at(i), c))
        return keys, lambda i: (list(W.row_at(i)), bias[i])
    import numpy as np
    N, D = hint
    bias = net.biases[0]
    M = np.empty((rows, cols + 1))
    M[:, :cols] = N / float(D)
    M[:, cols] = [float(c) for c in bias]
    nz = M != 0
    first = np.where(nz.any(axis=1), nz.argmax(axis=1), 0)
    scale = np.abs(M[np.arange(rows), first])
    scale[scale == 0] = 1.0
    U = np.round(M / scale[:, None], 12) + 0.0          # (+ 0.0: no -0.0 beside 0.0)
    keys = [None if not nz[i].any() else U[i].tobytes() for i in range(rows)]
    return keys, lambda i: ([Q(int(v), int(D)) for v in N[i].tolist()], bias[i])


def _ray_key(row, c):
    """The row (w, c) up to a positive factor, hashable (None for a zero row)."""
    full = list(row) + [c]
    sc = next((abs(v) for v in full if v != 0), None)
    return None if sc is None else tuple((int(u.p), int(u.q)) for u in (v / sc for v in full))


_CHUNK = 32                            # points per exact batch between budget checks


def _first_difference(a, b, pts):
    """The first of the points *pts* (a list of points or the rows of a QMatrix) where a and b
    differ, or None.  Evaluated in batches of ``_CHUNK`` points with :func:`checkpoint` between
    them (the 400 points next to the hyperplanes of two ACAS Xu networks: 3 s of exact products
    in one call, which no budget would stop)."""
    rows = [tuple(pts.row_at(k)) for k in range(pts.nrows)] if isinstance(pts, QMatrix) else list(pts)
    m = a.n_outputs
    start, size = 0, 1            # batches grow from one point while each takes < 0.25 s: a net
    while start < len(rows):      # of 1 800 rows over distinct primes took 25 s for one batch,
        checkpoint()              # past --timeout 10 (s40 forge audit F6)
        X = QMatrix.from_rows(rows[start:start + size], ncols=a.n_inputs)
        t0 = time.monotonic()
        diff = (a.evaluate_batch(X) - b.evaluate_batch(X)).entries()
        k = next((k for k, v in enumerate(diff) if v), None)
        if k is not None:
            return X.row_at(k // m)
        start += size
        if time.monotonic() - t0 < 0.25:
            size = min(2 * size, _CHUNK)
    return None

