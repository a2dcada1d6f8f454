r"""The LP relaxation of one branch-and-bound node and its exact (Neumaier–Shcherbina) bound.

A node of the search over the network ``D`` (usually ``a − b``, :func:`algebra.kernel.difference_network`)
on a box is the box plus a set of *splits* ``{(l, j): side}`` (side 1: ``z_{l,j} >= 0``, side 0:
``z_{l,j} <= 0``).  Its pre-activation intervals are the exact interval propagation of the box
(:func:`algebra.linalg.interval_image`) with each split clipping its neuron's interval at 0 (a
rule the checker redoes).  Variables ``x``, ``z_l`` (all layers) and ``h_l = relu(z_l)`` (hidden
layers), every one boxed.  Rows: ``z_{l,j} − W_l[j]·h_{l−1} − b_l[j] = 0`` (multiplier ``mu``,
free); per hidden neuron, when unstable (``lo < 0 < hi``) the triangle ``z − h <= 0`` (``alpha >= 0``)
and ``h − s z <= −s lo``, ``s = hi/(hi − lo)`` (``beta >= 0``); when stable active (``lo >= 0``)
``z − h = 0`` (``alpha`` free, ``beta = 0``); when stable inactive (``hi <= 0``) ``h`` is boxed to
``[0, 0]`` (``alpha = beta = 0``).

For *any* multipliers of the right signs, ``c·v <= mu·rhs + beta·rhs + Σ_k max_{v_k in box}
(c − Aᵀy)_k v_k`` for every feasible ``v`` (weak duality with the residual corrected over the box:
Neumaier and Shcherbina, Math. Prog. 99 (2004)).  HiGHS only *guesses* ``y``; the bound is computed
exactly over Q.  With ``c = 0`` a negative bound proves the node empty.

Half-spaces ``a·x <= b`` of the domain (box ∩ half-spaces) are extra rows on ``x`` with
multipliers ``gamma >= 0``: they add ``gamma·b`` to the bound and ``−Σ_i gamma_i a_i`` to the
coefficients of ``x`` (the one hook for them: *halfspaces* of :func:`float_duals`,
:func:`project`, :func:`exact_bound_int`; absent, nothing changes).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from algebra.linalg import interval_image
from algebra.rationals import Q

from ..budget import checkpoint

__all__ = ["node_intervals", "exact_bound", "exact_bound_int", "float_duals", "project", "set_rowwise"]

_ZERO = Q(0)


def node_intervals(Ws, bs, box, splits):
    """Pre-activation intervals of every layer at a node, or None when a split empties one.

    *Ws* are lists of rows, *bs* bias lists, *box* a list of ``(lo, hi)``, *splits* a dict
    ``{(l, j): side}``.
    """
    out, cur = [], list(box)
    L = len(Ws)
    for l in range(L):
        layer = interval_image(Ws[l], cur, bs[l])
        if l < L - 1:
            layer = list(layer)
            for j in range(len(layer)):
                side = splits.get((l, j))
                lo, hi = layer[j]
                if side == 1 and lo < 0:
                    lo = _ZERO
                elif side == 0 and hi > 0:
                    hi = _ZERO
                if lo > hi:
                    return None
                layer[j] = (lo, hi)
            cur = [(max(lo, _ZERO), max(hi, _ZERO)) for lo, hi in layer]
        out.append(layer)
    return out


def _kind(lo, hi):
    if lo >= 0:
        return "active"
    if hi <= 0:
        return "inactive"
    return "unstable"


def project(ivs, mu, alpha, beta, *gamma):
    """Multipliers of the right signs: ``alpha, beta >= 0`` on unstable neurons, ``beta = 0`` on
    stable active ones, both 0 on inactive ones (a new list, exact); the half-spaces'
    ``gamma`` (one row, when given) ``>= 0``."""
    A, B = [], []
    for l in range(len(ivs) - 1):
        ra, rb = [], []
        for j, (lo, hi) in enumerate(ivs[l]):
            k = _kind(lo, hi)
            a, b = alpha[l][j], beta[l][j]
            if k == "unstable":
                ra.append(max(a, _ZERO)); rb.append(max(b, _ZERO))
            elif k == "active":
                ra.append(a); rb.append(_ZERO)
            else:
                ra.append(_ZERO); rb.append(_ZERO)
        A.append(ra); B.append(rb)
    if gamma:
        return mu, A, B, [[max(g, _ZERO) for g in gamma[0][0]]]
    return mu, A, B


def _box_max(coef, lo, hi):
    if coef == 0:
        return _ZERO
    return coef * hi if coef > 0 else coef * lo


def _den_lcm(parts):
    d = 1
    for part in parts:
        for row in part:
            for v in row:
                if v != 0:
                    q = int(v.q)
                    d = d * q // math.gcd(d, q)
    return d


def exact_bound_int(sym, box, ivs, c, mu, alpha, beta, gamma=None, halfspaces=()):
    """:func:`exact_bound` (the same number, exactly) with the products ``muᵀW`` as integer
    matrix products: the multipliers over one common denominator, the weights as the integer
    rows of *sym* (a :class:`.symbolic.SymbolicNet`); rational arithmetic only per neuron.
    *gamma* (``[[g_i]]``, ``>= 0``) weighs the *halfspaces* ``(a_i, b_i)``, ``a_i·x <= b_i``."""
    L = sym.L
    dm = _den_lcm([mu, alpha, beta])
    M = [np.array([int(v * dm) for v in row], dtype=object) for row in mu]
    total = _ZERO
    for l in range(L):                                           # mu·b
        t = M[l].dot(sym.bnum[l]) if len(M[l]) else 0
        if t:
            total += Q(int(t), dm * sym.bden[l])
    # x coefficients: (mu_0ᵀ W_0)_k
    xco = M[0].dot(sym.Nrows[0]) if len(M[0]) else [0] * len(box)
    shift = _halfspace_shift(gamma, halfspaces, len(box))
    for k, (lo, hi) in enumerate(box):
        total += _box_max(Q(int(xco[k]), dm * sym.den[0]) + shift[k], lo, hi)
    total += shift[-1]
    for l in range(L):
        checkpoint()
        last = l == L - 1
        up = None if last else (M[l + 1].dot(sym.Nrows[l + 1]) if len(M[l + 1])
                                else [0] * len(ivs[l]))
        for j, (lo, hi) in enumerate(ivs[l]):
            coef = (c[j] if last else _ZERO) - mu[l][j]
            if not last:
                a, b = alpha[l][j], beta[l][j]
                coef -= a
                if lo < 0 < hi and b != 0:
                    s = hi / (hi - lo)
                    coef += s * b
                    total -= b * s * lo
            total += _box_max(coef, lo, hi)
            if not last:
                hco = alpha[l][j] - beta[l][j]
                if up[j]:
                    hco += Q(int(up[j]), dm * sym.den[l + 1])
                total += _box_max(hco, max(lo, _ZERO), max(hi, _ZERO))
    return total


def _halfspace_shift(gamma, halfspaces, d):
    """``(−Σ g_i a_i, Σ g_i b_i)`` as one list of ``d + 1`` rationals (zeros without gamma)."""
    out = [_ZERO] * (d + 1)
    for g, (a, b) in zip(gamma[0] if gamma else (), halfspaces):
        if g != 0:
            for k in range(d):
                out[k] -= g * a[k]
            out[d] += g * b
    return out


def exact_bound(Ws, bs, box, ivs, c, mu, alpha, beta):
    """The exact upper bound of ``c · z_L`` over the node's relaxation for the multipliers
    ``mu`` (per layer), ``alpha``, ``beta`` (per hidden layer), assumed of the right signs.
    Entry by entry (the reference of :func:`exact_bound_int`, which the search uses)."""
    L = len(Ws)
    total = _ZERO
    # constants: mu·b and beta·(−s lo)
    for l in range(L):
        for j, bj in enumerate(bs[l]):
            if mu[l][j] != 0:
                total += mu[l][j] * bj
    slopes = []
    for l in range(L - 1):
        sl = []
        for j, (lo, hi) in enumerate(ivs[l]):
            if lo < 0 < hi:
                s = hi / (hi - lo)
                sl.append(s)
                if beta[l][j] != 0:
                    total -= beta[l][j] * s * lo
            else:
                sl.append(_ZERO)
        slopes.append(sl)
    # x coefficients: Σ_j mu_0j W_0[j][k]
    for k, (lo, hi) in enumerate(box):
        coef = _ZERO
        for j, row in enumerate(Ws[0]):
            if mu[0][j] != 0 and row[k] != 0:
                coef += mu[0][j] * row[k]
        total += _box_max(coef, lo, hi)
    for l in range(L):
        checkpoint()
        last = l == L - 1
        for j, (lo, hi) in enumerate(ivs[l]):
            coef = (c[j] if last else _ZERO) - mu[l][j]
            if not last:
                coef += -alpha[l][j] + slopes[l][j] * beta[l][j]
            total += _box_max(coef, lo, hi)
            if not last:
                hco = alpha[l][j] - beta[l][j]
                for i, row in enumerate(Ws[l + 1]):
                    if mu[l + 1][i] != 0 and row[j] != 0:
                        hco += mu[l + 1][i] * row[j]
                total += _box_max(hco, max(lo, _ZERO), max(hi, _ZERO))
    return total


def float_duals(Ws, bs, box, ivs, c, time_limit=None, halfspaces=()):
    """HiGHS on the node's relaxation (maximise ``c · z_L``): ``(status, x, duals)`` in floats.

    ``duals`` is ``(mu, alpha, beta)`` as float lists (HiGHS's row duals, sign conventions
    unchecked: the caller tries both signs and keeps the exact bound that is smaller), and
    ``[gamma]`` after them when *halfspaces* ``(a, b)`` (rows ``a·x <= b``) are given.
    """
    import numpy as np
    from highspy import _core as hc
    L = len(Ws)
    d = len(box)
    f = float
    col_lo, col_hi = [f(lo) for lo, _ in box], [f(hi) for _, hi in box]
    zcol, hcol = [], []
    for l in range(L):
        zc = []
        for lo, hi in ivs[l]:
            zc.append(len(col_lo)); col_lo.append(f(lo)); col_hi.append(f(hi))
        zcol.append(zc)
        if l < L - 1:
            hc_ = []
            for lo, hi in ivs[l]:
                hc_.append(len(col_lo)); col_lo.append(max(f(lo), 0.0)); col_hi.append(max(f(hi), 0.0))
            hcol.append(hc_)
    prev = list(range(d))
    rows, rlo, rhi, tags = [], [], [], []
    inf = hc.kHighsInf
    for l in range(L):
        for j, row in enumerate(Ws[l]):
            ent = {zcol[l][j]: 1.0}
            for k, w in enumerate(row):
                if w != 0:
                    ent[prev[k]] = ent.get(prev[k], 0.0) - f(w)
            rows.append(ent); rlo.append(f(bs[l][j])); rhi.append(f(bs[l][j])); tags.append(("mu", l, j))
        if l < L - 1:
            for j, (lo, hi) in enumerate(ivs[l]):
                k = _kind(lo, hi)
                if k == "active":
                    rows.append({zcol[l][j]: 1.0, hcol[l][j]: -1.0}); rlo.append(0.0); rhi.append(0.0)
                    tags.append(("alpha", l, j))
                elif k == "unstable":
                    s = f(hi / (hi - lo))
                    rows.append({zcol[l][j]: 1.0, hcol[l][j]: -1.0}); rlo.append(-inf); rhi.append(0.0)
                    tags.append(("alpha", l, j))
                    rows.append({hcol[l][j]: 1.0, zcol[l][j]: -s}); rlo.append(-inf); rhi.append(-s * f(lo))
                    tags.append(("beta", l, j))
            prev = hcol[l]
    for i, (a, b) in enumerate(halfspaces):
        rows.append({k: f(v) for k, v in enumerate(a) if v != 0}); rlo.append(-inf); rhi.append(f(b))
        tags.append(("gamma", 0, i))
    ncol = len(col_lo)
    cost = np.zeros(ncol)
    for j, cj in enumerate(c):
        cost[zcol[L - 1][j]] = f(cj)
    h = hc._Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")   # a dual ray is only returned without presolve
    if time_limit is not None:
        h.setOptionValue("time_limit", max(0.05, float(time_limit)))
    lp = hc.HighsLp()
    lp.num_col_, lp.num_row_ = ncol, len(rows)
    lp.col_cost_ = cost
    lp.col_lower_ = np.array(col_lo)
    lp.col_upper_ = np.array(col_hi)
    lp.row_lower_ = np.array(rlo)
    lp.row_upper_ = np.array(rhi)
    lp.sense_ = hc.ObjSense.kMaximize
    set_rowwise(lp, rows, ncol)
    h.passModel(lp)
    h.run()
    name = str(h.getModelStatus()).rsplit(".", 1)[-1]
    if name == "kInfeasible":
        try:
            out = h.getDualRay()
            has, ray = (out[1], out[2]) if len(out) == 3 else (out[0], out[1])
        except Exception:                  # noqa: BLE001 — an older highspy: no ray, no proof
            has, ray = False, None
        if not has:
            return "infeasible", None, None
        dual = list(ray)
    elif name != "kOptimal":
        return "unknown", None, None
    else:
        dual = list(h.getSolution().row_dual)
    mu = [[0.0] * len(Ws[l]) for l in range(L)]
    al = [[0.0] * len(Ws[l]) for l in range(L - 1)]
    be = [[0.0] * len(Ws[l]) for l in range(L - 1)]
    ga = [[0.0] * len(halfspaces)]
    for (t, l, j), y in zip(tags, dual):
        {"mu": mu, "alpha": al, "beta": be, "gamma": ga}[t][l][j] = y
    duals = (mu, al, be, ga) if halfspaces else (mu, al, be)
    if name == "kInfeasible":
        return "infeasible", None, duals
    x = list(h.getSolution().col_value)[:d]
    return "optimal", x, duals


def to_rational(y: float, den: int | None) -> Q:
    """A float as an exact rational: exactly (``den`` None) or the nearest multiple of ``1/den``
    (any rational multipliers are valid after projection; short ones keep the bound cheap)."""
    if den is not None:
        return Q(round(y * den), den)
    fr = Fraction(y)
    return Q(fr.numerator, fr.denominator)


def set_rowwise(lp, rows, ncol: int) -> None:
    """Fill the constraint matrix of the HiGHS model *lp* row-wise from *rows* (one dict
    ``column -> float`` per row) with *ncol* columns (also used by benchmarks/bench_bab.py's MILP)."""
    from highspy import _core as hc
    start, index, value = [0], [], []
    for ent in rows:
        for k, v in ent.items():
            index.append(k)
            value.append(v)
        start.append(len(index))
    A = lp.a_matrix_
    A.format_ = hc.MatrixFormat.kRowwise
    A.start_ = np.array(start, dtype=np.int32)
    A.index_ = np.array(index, dtype=np.int32)
    A.value_ = np.array(value, dtype=float)
    A.num_col_, A.num_row_ = ncol, len(rows)
