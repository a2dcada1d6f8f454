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

HiGHS's point is often not a square active set (a degenerate vertex, or a point inside a face:
measured on ACAS Xu's 1/100 boxes, where such leaves kept their rounding gap and the search
stopped before its budget with lower < upper).  The guess is therefore checked exactly (primal
feasibility, the signs of ``ν`` and of the residual on the box sides: together they prove the
point optimal), and when it fails the exact LP of the region in the ``d`` input coordinates
(:func:`semialgebraic.lp.exact.optimize`: HiGHS's basis solved exactly, repaired by exact
pivots) on a working set of its rows gives the vertex and the ``ν``.
"""

from __future__ import annotations

import numpy as np

from algebra.exceptions import SingularMatrixError
from algebra.linalg import QMatrix
from algebra.rationals import Q

from ..budget import checkpoint
from ..lp.exact import optimize

__all__ = ["exact_leaf", "exact_region"]

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
    optimum *x* (the module docstring), or None (an unstable neuron, an empty region, or the
    exact LP stopped).  *Ws*, *bs* exact rows and biases of ``D``, *box* and *ivs* the leaf's,
    *c* the objective on the outputs.  The square solve of HiGHS's active set comes first; when
    it is not an optimal vertex (a degenerate vertex: more tight bounds than free coordinates, a
    singular or wrong guess; checked exactly: primal feasibility and the signs of ``ν`` and of
    the residual on the box sides), the exact LP of the region (:func:`_region_lp`) decides."""
    L = len(Ws)
    if any(lo < 0 < hi for layer in ivs[:-1] for lo, hi in layer):
        return None
    d = len(box)
    act = [[lo >= 0 for lo, _ in layer] for layer in ivs[:-1]]
    G, g = _affine(Ws, bs, act, d)
    grad = G[L - 1].transpose().apply(c)                # ∇(c · D)
    got = _square(G, g, box, ivs, grad, x, L, d)
    if got is None or not _optimal(G, g, box, ivs, grad, *got):
        got = _region_lp(G, g, box, ivs, grad, x)
        if got is None:
            return None
    nus, point = got
    mu, alpha, beta = _multipliers(Ws, ivs, act, c, nus)
    return mu, alpha, beta, tuple(point)


def _affine(Ws, bs, act, d):
    """Exact ``z_l = G_l x + g_l`` on the leaf's region (activation pattern *act*)."""
    L = len(Ws)
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
    return G, g


def _square(G, g, box, ivs, grad, x, L, d):
    """``(ν per layer and neuron, point)`` from the active set of the float point *x* when it
    is square and regular (two exact solves), else None."""
    h = np.array(x, dtype=float)
    tight = []
    for l in range(L):
        z = np.array([[float(v) for v in G[l].row_at(j)] for j in range(G[l].nrows)]).reshape(-1, d) @ h \
            + np.array([float(v) for v in g[l]])
        for j, (lo, hi) in enumerate(ivs[l]):
            side = _tight(float(z[j]), lo, hi)
            if side:
                tight.append((l, j, hi if side > 0 else lo))
    fixed = {k: (box[k][1] if s > 0 else box[k][0]) for k in range(d)
             for s in [_tight(float(x[k]), *box[k])] if s}
    free = [k for k in range(d) if k not in fixed]
    if len(tight) != len(free):
        return None
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
    nus = [[_ZERO] * len(layer) for layer in ivs]
    for (l, j, _), v in zip(tight, nu):
        nus[l][j] = v
    return nus, point


def _optimal(G, g, box, ivs, grad, nus, point):
    """Whether *point* and the multipliers *nus* prove each other optimal (exact): the point
    lies in the box and every ``z`` in its interval, a positive ``ν`` sits on an upper bound
    and a negative one on a lower bound, and the residual ``∇ − Σ ν ∇z`` on each coordinate
    points to a box side the point is on (then the bound of the multipliers is the value)."""
    if not all(lo <= v <= hi for v, (lo, hi) in zip(point, box)):
        return False
    res = list(grad)
    for l, layer in enumerate(ivs):
        z = G[l].apply(point)
        for j, (lo, hi) in enumerate(layer):
            zj = z[j] + g[l][j]
            if not lo <= zj <= hi:
                return False
            v = nus[l][j]
            if v != 0:
                if (v > 0 and zj != hi) or (v < 0 and zj != lo):
                    return False
                for k, w in enumerate(G[l].row_at(j)):
                    res[k] -= v * w
    return all(r == 0 or (r > 0 and p == hi) or (r < 0 and p == lo)
               for r, p, (lo, hi) in zip(res, point, box))


_ROUNDS = 8          # working-set rounds of the exact region LP (each adds the violated rows)


def _rows(G, g, ivs):
    """The region's rows ``(l, j, sign, row, rhs)``: ``sign·(G x + g) <= sign·bound`` for every
    non-constant ``z_{l,j}``; None when a constant ``z`` is outside its interval."""
    cand = []
    for l, layer in enumerate(ivs):
        for j, (lo, hi) in enumerate(layer):
            r = G[l].row_at(j)
            if not any(r):
                if not lo <= g[l][j] <= hi:
                    return None
                continue
            cand.append((l, j, 1, r, hi - g[l][j]))
            cand.append((l, j, -1, tuple(-v for v in r), g[l][j] - lo))
    return cand


def _box_rows(box):
    d = len(box)
    brows = [tuple(Q(1) if i == k else _ZERO for i in range(d)) for k in range(d)]
    return brows + [tuple(-v for v in r) for r in brows], [hi for _, hi in box] + [-lo for lo, _ in box]


def exact_region(Ws, bs, box, ivs, c, halfspaces=()):
    """A leaf without unstable neurons where HiGHS gave no point (a thin region, or one HiGHS
    calls infeasible without a usable proof): the exact LP of its whole region in the input
    coordinates (and the domain's *halfspaces* ``a·x <= b``).  ``("max", (mu, alpha, beta),
    point)`` (its optimum's multipliers), ``("empty", (mu, alpha, beta), None)`` (the
    multipliers of its Motzkin certificate for the zero objective: the caller keeps them only
    when their exact bound is negative), or None.  With *halfspaces* the multipliers have a 4th
    part, ``kappa`` (``[[k_i]]``: the rows' multipliers, ``>= 0``)."""
    if any(lo < 0 < hi for layer in ivs[:-1] for lo, hi in layer):
        return None
    d, L = len(box), len(Ws)
    act = [[lo >= 0 for lo, _ in layer] for layer in ivs[:-1]]
    G, g = _affine(Ws, bs, act, d)
    cand = _rows(G, g, ivs)
    if cand is None:
        return None
    A_box, b_box = _box_rows(box)
    A_box += [tuple(a) for a, _ in halfspaces]
    b_box += [b for _, b in halfspaces]
    nh = 2 * d + len(halfspaces)
    checkpoint()
    res = optimize(list(G[L - 1].transpose().apply(c)), A_le=A_box + [r[3] for r in cand],
                   b_le=b_box + [r[4] for r in cand], n=d)
    if res.status == "optimal":
        kind, ys, target = "max", res.dual["y_le"], c
    elif res.status == "infeasible" and res.certificate is not None:
        kind, ys, target = "empty", res.certificate["y_le"], [_ZERO] * len(c)
    else:
        return None
    nus = [[_ZERO] * len(layer) for layer in ivs]
    for (l, j, sign, _, _), y in zip(cand, ys[nh:]):
        nus[l][j] += sign * y
    y = _multipliers(Ws, ivs, act, target, nus)
    if halfspaces:
        y = (*y, [list(ys[2 * d:nh])])
    return kind, y, (list(res.point) if kind == "max" else None)


def _region_lp(G, g, box, ivs, grad, x):
    """``(ν, point)`` of the exact LP ``max ∇·x`` over the leaf's region (the box and every
    ``lo <= z_{l,j} <= hi``): exact simplex (:func:`semialgebraic.lp.exact.optimize`, warm
    from HiGHS) on a working set of rows — the ones within ``10^-6`` of tight at the float
    point *x* (relative to ``1 + |bound|``), then the rows the exact optimum violates, at most ``_ROUNDS`` times (a
    relaxation whose optimum satisfies every row is optimal for all of them, its multipliers
    those of the whole LP with zeros elsewhere).  None when the region is empty or the rounds
    run out."""
    d = len(box)
    cand = _rows(G, g, ivs)
    if cand is None:
        return None
    xf = np.array(x, dtype=float)
    slack = [float(b) - float(np.dot([float(v) for v in r], xf)) for _, _, _, r, b in cand]
    work = [i for i, (s, c_) in enumerate(zip(slack, cand)) if s <= 1e-6 * (1.0 + abs(float(c_[4])))]
    A_box, b_box = _box_rows(box)
    for _ in range(_ROUNDS):
        checkpoint()
        A = A_box + [cand[i][3] for i in work]
        b = b_box + [cand[i][4] for i in work]
        res = optimize(list(grad), A_le=A, b_le=b, n=d)
        if res.status != "optimal":
            return None
        p = res.point
        inside = set(work)
        bad = [i for i, (_, _, _, r, rhs) in enumerate(cand)
               if i not in inside and sum((u * v for u, v in zip(r, p)), _ZERO) > rhs]
        if not bad:
            nus = [[_ZERO] * len(layer) for layer in ivs]
            for i, y in zip(work, res.dual["y_le"][2 * d:]):
                l, j, sign, _, _ = cand[i]
                nus[l][j] += sign * y
            return nus, list(p)
        work = sorted(set(work) | set(bad))
    return None


def _multipliers(Ws, ivs, act, c, nus):
    """The leaf's ``(mu, alpha, beta)`` from the multipliers *nus* of its ``z`` bounds, top
    down (the module docstring)."""
    L = len(Ws)
    mu = [None] * L
    alpha = [[_ZERO] * len(layer) for layer in ivs[:-1]]
    mu[L - 1] = [cj - v for cj, v in zip(c, nus[L - 1])]
    for l in range(L - 2, -1, -1):
        up = QMatrix.from_rows(Ws[l + 1], len(ivs[l])).transpose().apply(mu[l + 1])
        mu[l] = [(u if a else _ZERO) - v for u, a, v in zip(up, act[l], nus[l])]
        alpha[l] = [-u if a else _ZERO for u, a in zip(up, act[l])]
    beta = [[_ZERO] * len(layer) for layer in ivs[:-1]]
    return mu, alpha, beta
