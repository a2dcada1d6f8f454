r"""The exact LP of a branch-and-bound leaf without unstable neurons (issue 15).

At such a leaf every ReLU is fixed (``h = z`` when ``lo >= 0``, ``h = 0`` when ``hi <= 0``), so
its triangle LP (:mod:`.relaxation`) is the LP of ``c · D`` over the leaf's linear region, the
split sides and intervals being the bounds of the ``z`` columns.  HiGHS's float optimum ``x`` is
only a guess of the active set: the ``z`` bounds and box sides tight at ``x`` (relative
tolerance ``1e-9``).  When there are as many tight ``z`` bounds as free coordinates, two exact
square solves give

* the vertex ``x*`` where those bounds hold with equality (the primal point; the caller
  evaluates ``c · D(x*)`` exactly, and only a point of the box counts), and
* the multipliers ``ν`` of the tight bounds with ``∇(c·D) = Σ_t ν_t ∇z_t`` on the free
  coordinates,

and the leaf's multipliers are ``mu_{L−1} = c − ν_{L−1}``, ``mu_l = [active]·(W_{l+1}ᵀ
mu_{l+1}) − ν_l``, ``alpha_l = −W_{l+1}ᵀ mu_{l+1}`` on active neurons (``h``'s coefficient
0), ``alpha = 0`` on inactive ones, ``beta = 0``.  ``mu`` is free and ``alpha`` is free on a
stable active neuron, so the Neumaier–Shcherbina bound of *any* such multipliers is valid
whatever the guess (:func:`.relaxation.exact_bound_int` computes it; the checker recomputes
it); when the guess is the optimal vertex it equals ``c · D(x*)``, and the leaf closes with
lower = upper.  The rounded duals of HiGHS leave a gap of about ``10^-15`` there instead.
"""

from __future__ import annotations

import numpy as np

from algebra.exceptions import SingularMatrixError
from algebra.linalg import QMatrix
from algebra.rationals import Q

__all__ = ["exact_leaf"]

_ZERO = Q(0)
_TOL = 1e-9


def _tight(v: float, lo, hi):
    """-1 (at ``lo``), 1 (at ``hi``) or 0 for the float *v* in ``[lo, hi]``."""
    flo, fhi = float(lo), float(hi)
    if abs(v - flo) <= _TOL * (1.0 + abs(flo)):
        return -1
    if abs(v - fhi) <= _TOL * (1.0 + abs(fhi)):
        return 1
    return 0


def exact_leaf(Ws, bs, box, ivs, c, x):
    """``(mu, alpha, beta, point)`` of a leaf without unstable neurons from HiGHS's float
    optimum *x* (the module docstring), or None (an unstable neuron, a non-square or singular
    active set).  *Ws*, *bs* exact rows and biases of ``D``, *box* and *ivs* the leaf's, *c*
    the objective on the outputs."""
    L = len(Ws)
    if any(lo < 0 < hi for layer in ivs[:-1] for lo, hi in layer):
        return None
    d = len(box)
    act = [[lo >= 0 for lo, _ in layer] for layer in ivs[:-1]]
    # floats: the pre-activations at x, and the tight z bounds and box sides
    h = np.array(x, dtype=float)
    tight = []
    for l in range(L):
        z = np.array([[float(w) for w in row] for row in Ws[l]]).reshape(len(Ws[l]), len(h)) @ h \
            + np.array([float(v) for v in bs[l]])
        for j, (lo, hi) in enumerate(ivs[l]):
            side = _tight(float(z[j]), lo, hi)
            if side:
                tight.append((l, j, hi if side > 0 else lo))
        if l < L - 1:
            h = np.where(act[l], z, 0.0)
    fixed = {k: (box[k][1] if s > 0 else box[k][0]) for k in range(d)
             for s in [_tight(float(x[k]), *box[k])] if s}
    free = [k for k in range(d) if k not in fixed]
    if len(tight) != len(free):
        return None
    # exact: z_l = G_l x + g_l on the region
    G, g = [], []
    Gl, gl = QMatrix.identity(d), [_ZERO] * d
    for l in range(L):
        W = QMatrix.from_rows(Ws[l], d if l == 0 else None) if Ws[l] else QMatrix.zeros(0, Gl.nrows)
        Gl = W @ Gl
        gl = [u + v for u, v in zip(W.apply(gl), bs[l])]
        G.append(Gl)
        g.append(gl)
        if l < L - 1:
            Gl = Gl.scale_rows([1 if a else 0 for a in act[l]])
            gl = [v if a else _ZERO for v, a in zip(gl, act[l])]
    grad = G[L - 1].transpose().apply(c)                # ∇(c · D)
    rows = [G[l].row_at(j) for l, j, _ in tight]
    if free:
        A = QMatrix.from_rows([[r[k] for k in free] for r in rows])      # tight × free
        try:
            nu = A.transpose().solve(QMatrix.column([grad[k] for k in free])).col_at(0)
            rhs = [v - g[l][j] - sum((r[k] * fixed[k] for k in fixed), _ZERO)
                   for (l, j, v), r in zip(tight, rows)]
            xf = A.solve(QMatrix.column(rhs)).col_at(0)
        except SingularMatrixError:
            return None
    else:
        nu, xf = (), ()
    point = [None] * d
    for k, v in fixed.items():
        point[k] = v
    for k, v in zip(free, xf):
        point[k] = v
    # multipliers, top down
    nus = [[_ZERO] * len(layer) for layer in ivs]
    for (l, j, _), v in zip(tight, nu):
        nus[l][j] = v
    mu = [None] * L
    alpha = [[_ZERO] * len(layer) for layer in ivs[:-1]]
    mu[L - 1] = [cj - v for cj, v in zip(c, nus[L - 1])]
    for l in range(L - 2, -1, -1):
        up = QMatrix.from_rows(Ws[l + 1], len(ivs[l])).transpose().apply(mu[l + 1])
        mu[l] = [(u if a else _ZERO) - v for u, a, v in zip(up, act[l], nus[l])]
        alpha[l] = [-u if a else _ZERO for u, a in zip(up, act[l])]
    beta = [[_ZERO] * len(layer) for layer in ivs[:-1]]
    return mu, alpha, beta, tuple(point)
