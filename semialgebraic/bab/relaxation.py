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
multipliers ``kappa >= 0``: they add ``kappa·b`` to the bound and ``−Σ_i kappa_i a_i`` to the
coefficients of ``x`` (the one hook for them: *halfspaces* of :func:`float_duals` and
:func:`exact_bound_int`, *kappa* of :func:`project`; absent, nothing changes).  They are
distinct from the pair rows' ``gamma``, ``eta`` (:func:`pair_terms`) and can be present together.

How much the exact bound loses to HiGHS's own optimum of the same LP (measured 2026-12-03,
``tests/semialgebraic/test_bab_lp_gap.py`` asserts it on small nets): at the roots of ACAS Xu's
1/16 box, digits 64-32-10 and a 5-50x6-5 box 4e-12, 6e-9, 8e-9 relative; over the nodes and
tightening LPs of a search (ACAS Xu 1/100 box 0, digits) median 1e-12 to 2e-9, at worst 5.5e-4
on a few nodes where HiGHS's dual infeasibility reached 3e-8 (:func:`refit`: 7e-5; HiGHS's
feasibility tolerances at 1e-10: 3e-8, but the same nodes and CPU seconds to the exact answer on
boxes 0 and 6, so they stay HiGHS's defaults).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from algebra.linalg import interval_image
from algebra.rationals import Q

from ..budget import checkpoint
from ..lp.floatlp import new_highs, run_highs

__all__ = ["node_intervals", "exact_bound", "relaxed_max", "exact_bound_int", "refit", "float_duals", "build_lp", "read_duals", "candidates",
           "LPTemplate", "pair_terms", "Basis", "row_keys",
           "project", "set_rowwise"]

_ZERO = Q(0)


def node_intervals(Ws, bs, box, splits):
    """Pre-activation intervals of every layer at a node, or None when a split empties one.

    *Ws* are lists of rows, *bs* bias lists, *box* a list of ``(lo, hi)``, *splits* a dict
    ``{(l, j): side}``.
    """
    out, cur = [], list(box)
    L = len(Ws)
    for l in range(L):
        layer = interval_image(Ws[l], cur, bs[l], checkpoint)
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


def project(ivs, mu, alpha, beta, gamma=None, eta=None, kappa=None):
    """Multipliers of the right signs: ``alpha, beta >= 0`` on unstable neurons, ``beta = 0`` on
    stable active ones, both 0 on inactive ones; the pair rows' ``gamma, eta >= 0`` and the
    half-spaces' ``kappa >= 0`` (``[[k_i]]``, one row) (a new list, exact).  Without *gamma* and
    *kappa*: ``(mu, alpha, beta)``; otherwise ``(mu, alpha, beta, gamma, eta, kappa)``, an absent
    part None."""
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
    if gamma is None and kappa is None:
        return mu, A, B
    pos = [None if part is None else [[max(v, _ZERO) for v in row] for row in part]
           for part in (gamma, eta, kappa)]
    return (mu, A, B, *pos)


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


def pair_terms(ivs, gamma, eta, lines):
    """The pair rows' part of the bound (:mod:`.differential` lines of ``Δh = h_a − h_b`` in
    ``δ = z_a − z_b``, per hidden layer and pair ``(su, tu, sl, tl)``: rows ``h_a − h_b −
    su·(z_a − z_b) <= tu`` (``gamma >= 0``) and ``−(h_a − h_b) + sl·(z_a − z_b) <= −tl`` (``eta
    >= 0``)): ``(constant, z coefficients, h coefficients)`` to add to ``c − Aᵀy``."""
    const, zadj, hadj = _ZERO, [], []
    for l in range(len(ivs) - 1):
        n = len(ivs[l]) // 2
        za, ha = [_ZERO] * (2 * n), [_ZERO] * (2 * n)
        for j, (su, tu, sl, tl) in enumerate(lines[l]):
            g, e = gamma[l][j], eta[l][j]
            if g == 0 and e == 0:
                continue
            t = su * g - sl * e
            za[j] += t; za[n + j] -= t
            ha[j] += e - g; ha[n + j] += g - e
            const += g * tu - e * tl
        zadj.append(za); hadj.append(ha)
    return const, zadj, hadj


def exact_bound_int(sym, box, ivs, c, mu, alpha, beta, gamma=None, eta=None, kappa=None, lines=None,
                    halfspaces=(), cuts=None):
    """:func:`exact_bound` (the same number, exactly) with the products ``muᵀW`` as integer
    matrix products: the multipliers over one common denominator, the weights as the integer
    rows of *sym* (a :class:`.symbolic.SymbolicNet`); rational arithmetic only per neuron.
    With *gamma*, *eta* and *lines*: the pair rows of :func:`pair_terms` too; *kappa*
    (``[[k_i]]``, ``>= 0``) weighs the *halfspaces* ``(a_i, b_i)``, ``a_i·x <= b_i``; *cuts*
    ``(const, x coefficients, h coefficients)`` (:func:`.cuts.cut_terms`: the cut rows
    ``α·h_{l−1} + β·h_{l,j} <= δ`` weighted by their multipliers ``ρ >= 0``) are added to
    ``c − Aᵀy`` and the constant."""
    return _bound_int(sym, box, ivs, c, mu, alpha, beta, gamma, eta, kappa, lines, halfspaces, cuts)[0]


def refit(sym, box, ivs, c, mu, alpha, beta, gamma=None, eta=None, kappa=None, lines=None,
          halfspaces=(), cuts=None, grid: int = 1 << 60):
    """``(bound, alpha, beta)``: every hidden neuron's triangle multipliers chosen anew for the
    given *mu* (and pair rows, half-spaces, cuts; arguments of :func:`exact_bound_int`), and
    their exact bound.  For fixed coefficients ``P`` of ``z`` and ``u`` of ``h`` (everything
    but ``alpha``, ``beta``), the least Neumaier–Shcherbina term of an unstable neuron is the
    maximum of ``P·z + u·h`` over its triangle, attained at a vertex ``(lo, 0)``, ``(0, 0)`` or
    ``(hi, hi)``; the multipliers that attain it, by the vertex (LP duality on one neuron):
    ``(P, 0)`` at ``(0, 0)``, ``(0, max(u, 0))`` at ``(lo, 0)``, ``(max(0, −u), 0)`` (``P >= 0``)
    or ``(0, −P/s)`` (``P < 0``) at ``(hi, hi)``; a stable active neuron's ``alpha = −u``.
    ``P``, ``u`` and the choice are floats, rounded to the grid ``1/grid`` (and ``>= 0``):
    any multipliers of the right signs give a valid bound, computed exactly, so the floats
    only choose — what HiGHS's duals lose to its dual-feasibility tolerance on the ``z``, ``h``
    columns (about ``1e-8`` times the intervals' widths per neuron) is won back.  Each neuron
    keeps the given pair when that is as good, exactly, so the bound is never above
    :func:`exact_bound_int`'s of the given (projected) multipliers; stable inactive neurons keep
    theirs (0 after :func:`project`)."""
    return _bound_int(sym, box, ivs, c, mu, alpha, beta, gamma, eta, kappa, lines, halfspaces, cuts, grid)


def _fit(P, u, lo, hi, grid):
    """The triangle multipliers ``(alpha, beta)`` of :func:`refit` for one neuron (floats in,
    exact grid values out); *lo*, *hi* floats."""
    if lo >= 0:                                   # stable active: z − h = 0, alpha free
        return Q(round(-u * grid), grid), _ZERO
    s = hi / (hi - lo)
    v0, vlo, vhi = 0.0, P * lo, (P + u) * hi
    if vhi >= vlo and vhi >= v0:
        a, b = (max(0.0, -u), 0.0) if P >= 0 else (0.0, -P / s)
    elif vlo >= v0:
        a, b = 0.0, max(u, 0.0)
    else:
        a, b = P, 0.0
    return Q(max(round(a * grid), 0), grid), Q(max(round(b * grid), 0), grid)


def _bound_int(sym, box, ivs, c, mu, alpha, beta, gamma, eta, kappa, lines, halfspaces, cuts, grid=None):
    """:func:`exact_bound_int` (*grid* None: ``(bound, alpha, beta)`` as given) or :func:`refit`."""
    L = sym.L
    dm = _den_lcm([mu])                           # only mu enters the integer products
    if grid is not None:
        alpha = [list(row) for row in alpha]
        beta = [list(row) for row in beta]
    M = [np.array([int(v * dm) for v in row], dtype=object) for row in mu]
    total = _ZERO
    zadj = hadj = None
    if gamma is not None:
        total, zadj, hadj = pair_terms(ivs, gamma, eta, lines)
    for l in range(L):                                           # mu·b
        t = M[l].dot(sym.bnum[l]) if len(M[l]) else 0
        if t:
            total += Q(int(t), dm * sym.bden[l])
    # x coefficients: (mu_0ᵀ W_0)_k
    xco = M[0].dot(sym.Nrows[0]) if len(M[0]) else [0] * len(box)
    shift = _halfspace_shift(kappa, halfspaces, len(box))
    cx = ch = None
    if cuts is not None:
        const, cx, ch = cuts
        total += const
    for k, (lo, hi) in enumerate(box):
        co = Q(int(xco[k]), dm * sym.den[0]) + shift[k]
        if cx is not None and cx[k]:
            co += cx[k]
        total += _box_max(co, lo, hi)
    total += shift[-1]
    for l in range(L):
        checkpoint()
        last = l == L - 1
        up = None if last else (M[l + 1].dot(sym.Nrows[l + 1]) if len(M[l + 1])
                                else [0] * len(ivs[l]))
        for j, (lo, hi) in enumerate(ivs[l]):
            coef = (c[j] if last else _ZERO) - mu[l][j]
            if last:
                total += _box_max(coef, lo, hi)
                continue
            hco = _ZERO
            if hadj is not None:
                hco += hadj[l][j]
            if ch is not None and ch[l][j]:
                hco += ch[l][j]
            if up[j]:
                hco += Q(int(up[j]), dm * sym.den[l + 1])
            if zadj is not None:
                coef += zadj[l][j]
            if grid is not None and hi > 0 and hi > lo:    # unstable, or stable active and not a point
                fit = _fit(float(coef), float(hco), float(lo), float(hi), grid)
                given = (alpha[l][j], beta[l][j])
                got = [_term(coef, hco, ab[0], ab[1], lo, hi) for ab in (given, fit)]
                if got[1] < got[0]:              # the given pair when it is as good (never worse)
                    alpha[l][j], beta[l][j] = fit
                total += min(got)
            else:
                total += _term(coef, hco, alpha[l][j], beta[l][j], lo, hi)
    return total, alpha, beta


def _term(coef, hco, a, b, lo, hi):
    """One hidden neuron's part of the bound: ``z``'s coefficient *coef* and ``h``'s *hco*
    without the triangle multipliers *a*, *b*, their constant ``−b·s·lo`` included."""
    coef -= a
    hco += a - b
    total = _ZERO
    if lo < 0 < hi and b != 0:
        s = hi / (hi - lo)
        coef += s * b
        total -= b * s * lo
    return total + _box_max(coef, lo, hi) + _box_max(hco, max(lo, _ZERO), max(hi, _ZERO))


def _halfspace_shift(kappa, halfspaces, d):
    """``(−Σ k_i a_i, Σ k_i b_i)`` as one list of ``d + 1`` rationals (zeros without kappa)."""
    out = [_ZERO] * (d + 1)
    for g, (a, b) in zip(kappa[0] if kappa else (), halfspaces):
        if g != 0:
            for k in range(d):
                out[k] -= g * a[k]
            out[d] += g * b
    return out


def exact_bound(Ws, bs, box, ivs, c, mu, alpha, beta):
    """The exact upper bound of ``c · z_L`` over the node's relaxation for the multipliers
    ``mu`` (per layer), ``alpha``, ``beta`` (per hidden layer), assumed of the right signs.
    Entry by entry (the reference of :func:`exact_bound_int`, which the search uses): the
    objective on the output layer of :func:`relaxed_max`."""
    L = len(Ws)
    return relaxed_max(Ws, bs, box, ivs, {(L - 1, j): cj for j, cj in enumerate(c) if cj != 0},
                       mu, alpha, beta)


def relaxed_max(Ws, bs, box, ivs, obj, mu, alpha, beta) -> Q:
    """The exact Neumaier–Shcherbina bound of ``Σ obj[(l, j)]·z_{l,j}`` (any layers) over the
    triangle relaxation of the intervals *ivs* (the rows of this module) for multipliers
    of the right signs (:func:`project`)."""
    L = len(Ws)
    total = _ZERO
    for l in range(L):
        for j, bj in enumerate(bs[l]):
            if mu[l][j] != 0:
                total += mu[l][j] * bj

    def pulled(l, n):                      # Σ_i mu_l[i] W_l[i][k], k < n
        out = [_ZERO] * n
        for i, row in enumerate(Ws[l]):
            m = mu[l][i]
            if m != 0:
                for k, w in enumerate(row):
                    if w != 0:
                        out[k] += m * w
        return out

    top = _box_max
    for k, co in enumerate(pulled(0, len(box))):
        total += top(co, *box[k])
    for l in range(L):
        checkpoint()
        up_ = pulled(l + 1, len(ivs[l])) if l < L - 1 else None
        for j, (lo, hi) in enumerate(ivs[l]):
            co = obj.get((l, j), _ZERO) - mu[l][j]
            if l < L - 1:
                a, b = alpha[l][j], beta[l][j]
                co -= a
                if lo < 0 < hi and b != 0:
                    s = hi / (hi - lo)
                    co += s * b
                    total -= b * s * lo
                total += top(a - b + up_[j], max(lo, _ZERO), max(hi, _ZERO))
            total += top(co, lo, hi)
    return total


class LPTemplate:
    """The node-independent part of the triangle LP of a network, in floats, built once: the
    column layout (``x``, then per layer ``z_l`` and, hidden, ``h_l``) and the equality rows
    ``z_{l,j} − W_l[j]·h_{l−1} = b_l[j]`` in row-wise sparse form (HiGHS's input)."""

    def __init__(self, Ws, bs):
        self.L = L = len(Ws)
        self.widths = [len(W) for W in Ws]
        self.d = len(Ws[0][0]) if Ws and Ws[0] else 0
        off = self.d
        self.zoff, self.hoff = [], []
        prev = np.arange(self.d)
        starts, index, value, rhs = [np.zeros(1, dtype=np.int64)], [], [], []
        nnz = 0
        for l in range(L):
            n = self.widths[l]
            zcols = np.arange(off, off + n)
            self.zoff.append(off)
            off += n
            W = np.array([[float(v) for v in row] for row in Ws[l]], dtype=float).reshape(n, len(prev))
            r, k = np.nonzero(W)
            counts = np.bincount(r, minlength=n) + 1
            # per row: z first, then the nonzeros of −W (row-major order of np.nonzero)
            row_start = np.concatenate([[0], np.cumsum(counts)[:-1]])
            idx = np.empty(int(counts.sum()), dtype=np.int64)
            val = np.empty(int(counts.sum()), dtype=float)
            idx[row_start] = zcols
            val[row_start] = 1.0
            pos_in_row = np.arange(len(r)) - np.concatenate([[0], np.cumsum(np.bincount(r, minlength=n))[:-1]])[r]
            dest = row_start[r] + 1 + pos_in_row
            idx[dest] = prev[k]
            val[dest] = -W[r, k]
            index.append(idx); value.append(val)
            starts.append(nnz + np.cumsum(counts))
            nnz += int(counts.sum())
            rhs.append(np.array([float(v) for v in bs[l]], dtype=float))
            if l < L - 1:
                self.hoff.append(off)
                prev = np.arange(off, off + n)
                off += n
        self.ncol = off
        self.eq_start = np.concatenate(starts)
        self.eq_index = np.concatenate(index) if index else np.zeros(0, dtype=np.int64)
        self.eq_value = np.concatenate(value) if value else np.zeros(0)
        self.eq_rhs = np.concatenate(rhs) if rhs else np.zeros(0)
        self.n_eq = len(self.eq_rhs)


def float_duals(Ws, bs, box, ivs, c, time_limit=None, template: LPTemplate | None = None,
                pair_lines=None, halfspaces=(), basis=None, keep=None, cuts=(), info=None):
    """HiGHS on the node's relaxation (maximise ``c · z_L``): ``(status, x, duals)`` in floats.

    ``duals`` is ``(mu, alpha, beta)`` as float lists (HiGHS's row duals, sign conventions
    unchecked: the caller tries both signs and keeps the exact bound that is smaller).
    *template* (:class:`LPTemplate` of *Ws*, *bs*) is built when absent.  With *pair_lines*
    (a difference network: per hidden layer the lines ``(su, tu, sl, tl)`` of each pair, see
    :func:`pair_terms`) the pair rows are added; with *halfspaces* ``(a, b)`` (rows ``a·x <=
    b`` on the input, after the pair rows) so are they.  With either, ``duals`` is ``(mu, alpha,
    beta, gamma, eta, kappa)`` (``kappa`` = ``[[k_i]]``, one per half-space; an absent part
    None), the row duals read in the order of the rows.

    Warm start: *basis* (a :class:`Basis` kept from another node of the same network, e.g. the
    parent of a split) is mapped onto this model's rows by their identity (:func:`row_keys`)
    and given to HiGHS when it is consistent; with a list *keep*, the final basis is appended
    to it.  HiGHS only guesses the duals either way (the exact bound is the caller's): on a
    digits 64-32-10 node a warm start took 13× fewer simplex iterations (measured 2026-12-02).

    *cuts* (:class:`.cuts.Cut`, valid inequalities of single neurons, rows after the
    half-spaces) are added as rows; with a dict *info*, their row duals (or the dual ray's
    entries) go to ``info["rho"]`` and every column's value to ``info["cols"]`` (the separation
    of :mod:`.cuts` reads the hidden layers' values).
    """
    t = template or LPTemplate(Ws, bs)
    lp, tags = build_lp(t, box, ivs, c, pair_lines, halfspaces, cuts=cuts)
    # presolve off (new_highs): a dual ray is only returned without presolve
    h = new_highs() if time_limit is None else new_highs(time_limit=max(0.05, float(time_limit)))
    h.passModel(lp)
    layout = (t, tags, None if pair_lines is None else [len(p) for p in pair_lines], len(halfspaces),
              tuple(cut.key for cut in cuts))
    if basis is not None:
        basis.apply(h, row_keys(*layout), t)
    run_highs(h)
    if keep is not None and str(h.getModelStatus()).rsplit(".", 1)[-1] == "kOptimal":
        keep.append(Basis.read(h, layout))
    out = read_duals(h, t, tags, pair_lines, halfspaces)
    if info is not None:
        info["rho"], info["cols"] = [0.0] * len(cuts), None
        if out[0] == "optimal":
            sol = h.getSolution()
            info["cols"] = np.asarray(sol.col_value, dtype=float)
            if cuts:
                info["rho"] = list(np.asarray(sol.row_dual, dtype=float)[-len(cuts):])
        elif out[0] == "infeasible" and out[2] is not None and cuts:
            got = h.getDualRay()
            ray = got[2] if len(got) == 3 else got[1]
            info["rho"] = list(np.asarray(ray, dtype=float)[-len(cuts):])
    return out


def row_keys(t: LPTemplate, tags, pair_sizes=None, n_halfspaces=0, cut_keys=()):
    """The identity of every row of :func:`build_lp`'s model, in order: ``("q", i)`` (the
    equality rows), ``("a", l, j)`` / ``("u", l, j)`` (neuron ``(l, j)``'s ``z − h`` and upper
    triangle rows), ``("g", l, j)`` / ``("e", l, j)`` (pair rows; *pair_sizes*: the pairs per
    hidden layer), ``("k", i)`` (half-spaces), ``("c", key)`` (the cuts, by their keys: a
    child's inherited cut is the parent's row)."""
    out = [("q", i) for i in range(t.n_eq)]
    for l, ja, ju in tags:
        out += [("a", l, int(j)) for j in ja]
        out += [("u", l, int(j)) for j in ju]
    if pair_sizes is not None:
        for l in range(t.L - 1):
            out += [("g", l, j) for j in range(pair_sizes[l])]
            out += [("e", l, j) for j in range(pair_sizes[l])]
    out += [("k", i) for i in range(n_halfspaces)]
    out += [("c", key) for key in cut_keys]
    return out


class Basis:
    """A HiGHS simplex basis of one node's model, applied to another node's model by row
    identity (:func:`row_keys`): column statuses (the columns of a network's models are the
    same at every node) and row statuses, both ``int8`` (a few hundred bytes per open leaf),
    with the model's layout (its rows' keys are made only when applied)."""

    __slots__ = ("cols", "rows", "layout", "_map", "cuts")

    def __init__(self, cols, rows, layout):
        self.cols, self.rows, self.layout = cols, rows, layout
        self._map = None                  # row key -> status, made on the first apply
        self.cuts = ()                    # the node's cuts that its children inherit (.cuts)

    @classmethod
    def read(cls, h, layout) -> "Basis":
        b = h.getBasis()
        return cls(np.array([int(v) for v in b.col_status], dtype=np.int8),
                   np.array([int(v) for v in b.row_status], dtype=np.int8), layout)

    def apply(self, h, keys, t: LPTemplate) -> bool:
        """Give HiGHS this basis on a model of *t*'s layout with rows *keys*: a row it does not
        know is basic.  A basis has as many basic variables as rows: a row that is gone while
        nonbasic (a split neuron's triangle row at its bound) leaves one basic variable too
        many, and that neuron's ``z`` (else ``h``) is made nonbasic at the split's bound 0
        (``z <= 0`` when its ``z − h`` row is gone too: the inactive side; else ``z >= 0``).
        Not given (False) when that does not balance."""
        from highspy import _core as hc
        BS = hc.HighsBasisStatus
        basic, at_lo, at_hi = int(BS.kBasic), int(BS.kLower), int(BS.kUpper)
        if len(self.cols) != t.ncol:
            return False
        have = set(keys)
        if self._map is None:
            self._map = dict(zip(row_keys(*self.layout), self.rows.tolist()))
        mine = self._map
        rows = [mine.get(k, basic) for k in keys]
        cols = self.cols.copy()
        extra = int(np.count_nonzero(cols == basic)) + rows.count(basic) - len(rows)
        if extra > 0:
            lost = sorted({k[1:] for k, v in mine.items() if k[0] in "au" and v != basic and k not in have})
            for l, j in lost:
                inactive = ("a", l, j) not in have
                for col, st in ((t.zoff[l] + j, at_hi if inactive else at_lo), (t.hoff[l] + j, at_lo)):
                    if extra > 0 and cols[col] == basic:
                        cols[col] = st
                        extra -= 1
                        break
        if extra != 0:
            return False
        out = hc.HighsBasis()
        out.col_status = [BS(int(v)) for v in cols]
        out.row_status = [BS(int(v)) for v in rows]
        out.valid = True
        return h.setBasis(out) == hc.HighsStatus.kOk


def build_lp(t: LPTemplate, box, ivs, c, pair_lines=None, halfspaces=(), free_top: bool = False,
             cuts=()):
    """The HiGHS model (``HighsLp``, maximise ``c · z_L``) of :func:`float_duals` and the tags
    :func:`read_duals` needs; with *free_top* the last layer's columns are free (their rows
    then fix its multipliers at ``c``: the intermediate bounds of :mod:`.tighten`); *cuts*
    (:class:`.cuts.Cut`) are rows ``α·h_{l−1} + β·h_{l,j} <= δ`` after everything else (the
    single-neuron cuts of three-layer-fibers R30; a pair cut has ``+ β_2·h_{l,j2}`` too)."""
    from highspy import _core as hc
    L = t.L
    inf = hc.kHighsInf
    col_lo = np.empty(t.ncol)
    col_hi = np.empty(t.ncol)
    col_lo[:t.d] = [float(lo) for lo, _ in box]
    col_hi[:t.d] = [float(hi) for _, hi in box]
    tri_start, tri_index, tri_value, tri_lo, tri_hi, tags = [], [], [], [], [], []
    nnz = len(t.eq_index)
    for l in range(L):
        lo = np.array([float(a) for a, _ in ivs[l]])
        hi = np.array([float(b) for _, b in ivs[l]])
        z0 = t.zoff[l]
        col_lo[z0:z0 + len(lo)] = -inf if free_top and l == L - 1 else lo
        col_hi[z0:z0 + len(lo)] = inf if free_top and l == L - 1 else hi
        if l == L - 1:
            break
        h0 = t.hoff[l]
        col_lo[h0:h0 + len(lo)] = np.maximum(lo, 0.0)
        col_hi[h0:h0 + len(lo)] = np.maximum(hi, 0.0)
        lo_q = [a for a, _ in ivs[l]]
        hi_q = [b for _, b in ivs[l]]
        active = np.array([a >= 0 for a in lo_q], dtype=bool)
        unstable = np.array([a < 0 < b for a, b in zip(lo_q, hi_q)], dtype=bool)
        ja = np.nonzero(active | unstable)[0]          # z − h (= 0 active, <= 0 unstable)
        ju = np.nonzero(unstable)[0]                    # h − s z <= −s lo
        s = np.array([float(hi_q[j] / (hi_q[j] - lo_q[j])) for j in ju])
        m = len(ja) + len(ju)
        idx = np.empty(2 * m, dtype=np.int64)
        val = np.empty(2 * m)
        idx[0:2 * len(ja):2] = z0 + ja
        idx[1:2 * len(ja):2] = h0 + ja
        val[0:2 * len(ja):2] = 1.0
        val[1:2 * len(ja):2] = -1.0
        b0 = 2 * len(ja)
        idx[b0::2] = h0 + ju
        idx[b0 + 1::2] = z0 + ju
        val[b0::2] = 1.0
        val[b0 + 1::2] = -s
        tri_index.append(idx); tri_value.append(val)
        tri_start.append(nnz + 2 * np.arange(1, m + 1))
        nnz += 2 * m
        tri_lo.append(np.where(active[ja], 0.0, -inf)); tri_hi.append(np.zeros(len(ja)))
        tri_lo.append(np.full(len(ju), -inf)); tri_hi.append(-s * lo[ju])
        tags.append((l, ja, ju))
    if pair_lines is not None:
        for l in range(L - 1):
            n = len(pair_lines[l])
            if n == 0:
                continue
            su, tu, sl, tl = (np.array([float(ln[i]) for ln in pair_lines[l]]) for i in range(4))
            z0, h0, jj = t.zoff[l], t.hoff[l], np.arange(n)
            for sign, slope, rhs in ((1.0, su, tu), (-1.0, sl, -tl)):
                idx = np.stack([h0 + jj, h0 + n + jj, z0 + jj, z0 + n + jj], axis=1).ravel()
                val = np.stack([np.full(n, sign), np.full(n, -sign), -sign * slope, sign * slope],
                               axis=1).ravel()
                tri_index.append(idx); tri_value.append(val)
                tri_start.append(nnz + 4 * np.arange(1, n + 1))
                nnz += 4 * n
                tri_lo.append(np.full(n, -inf)); tri_hi.append(rhs)
    if halfspaces:                                      # a_i·x <= b_i, after the pair rows
        d = t.d
        for a, b in halfspaces:
            ks = np.array([k for k in range(d) if a[k] != 0], dtype=np.int64)
            tri_index.append(ks); tri_value.append(np.array([float(a[k]) for k in ks], dtype=float))
            nnz += len(ks)
            tri_start.append(np.array([nnz], dtype=np.int64))
            tri_lo.append(np.array([-inf])); tri_hi.append(np.array([float(b)]))
    for cut in cuts:                                    # valid inequalities of one neuron, last
        l, j = cut.at
        base = 0 if l == 0 else t.hoff[l - 1]
        ks = np.concatenate([base + cut.index, [t.hoff[l] + j]]).astype(np.int64)
        vals = np.concatenate([cut.fvalues, [float(cut.beta)]])
        if cut.pair is not None:                        # a pair cut: + β_2·h_{l,j2} too (.cuts)
            ks = np.append(ks, t.hoff[l] + cut.pair[0])
            vals = np.append(vals, float(cut.pair[1]))
        tri_index.append(ks); tri_value.append(vals)
        nnz += len(ks)
        tri_start.append(np.array([nnz], dtype=np.int64))
        tri_lo.append(np.array([-inf])); tri_hi.append(np.array([cut.fdelta]))
    start = np.concatenate([t.eq_start] + tri_start)
    index = np.concatenate([t.eq_index] + tri_index)
    value = np.concatenate([t.eq_value] + tri_value)
    rlo = np.concatenate([t.eq_rhs] + tri_lo)
    rhi = np.concatenate([t.eq_rhs] + tri_hi)
    cost = np.zeros(t.ncol)
    cost[t.zoff[L - 1]:t.zoff[L - 1] + len(c)] = [float(cj) for cj in c]
    lp = hc.HighsLp()
    lp.num_col_, lp.num_row_ = t.ncol, len(rlo)
    lp.col_cost_ = cost
    lp.col_lower_ = col_lo
    lp.col_upper_ = col_hi
    lp.row_lower_ = rlo
    lp.row_upper_ = rhi
    lp.sense_ = hc.ObjSense.kMaximize
    A = lp.a_matrix_
    A.format_ = hc.MatrixFormat.kRowwise
    A.start_ = start.astype(np.int32)
    A.index_ = index.astype(np.int32)
    A.value_ = value
    A.num_col_, A.num_row_ = t.ncol, len(rlo)
    return lp, tags


def read_duals(h, t: LPTemplate, tags, pair_lines=None, halfspaces=()):
    """``(status, x, duals)`` of the solved model *h* built by :func:`build_lp`."""
    L = t.L
    name = str(h.getModelStatus()).rsplit(".", 1)[-1]
    if name == "kInfeasible":
        try:
            out = h.getDualRay()
            has, ray = (out[1], out[2]) if len(out) == 3 else (out[0], out[1])
        except Exception:                  # noqa: BLE001 — an older highspy: no ray, no proof
            has, ray = False, None
        if not has:
            return "infeasible", None, None
        dual = np.asarray(ray, dtype=float)
    elif name != "kOptimal":
        return "unknown", None, None
    else:
        dual = np.asarray(h.getSolution().row_dual, dtype=float)
    mu, pos = [], 0
    for n in t.widths:
        mu.append(dual[pos:pos + n].tolist())
        pos += n
    al, be = [], []
    for l, ja, ju in tags:
        a = np.zeros(t.widths[l]); b = np.zeros(t.widths[l])
        a[ja] = dual[pos:pos + len(ja)]
        pos += len(ja)
        b[ju] = dual[pos:pos + len(ju)]
        pos += len(ju)
        al.append(a.tolist()); be.append(b.tolist())
    ga = et = ka = None
    if pair_lines is not None:
        ga, et = [], []
        for l in range(L - 1):
            n = len(pair_lines[l])
            ga.append(dual[pos:pos + n].tolist()); pos += n
            et.append(dual[pos:pos + n].tolist()); pos += n
    if halfspaces:                                      # the half-space rows come last
        ka = [dual[pos:pos + len(halfspaces)].tolist()]
        pos += len(halfspaces)
    duals = (mu, al, be) if ga is None and ka is None else (mu, al, be, ga, et, ka)
    if name == "kInfeasible":
        return "infeasible", None, duals
    x = list(h.getSolution().col_value)[:t.d]
    return "optimal", x, duals


def candidates(ivs, duals, dens=(10 ** 6, None, "cf"), signs=(1, -1)):
    """The projected exact multiplier candidates: HiGHS's duals rounded to ``10^-6``, exact, and
    as the nearest fractions of denominator <= 10^9 (which recover the exact optimal duals of a
    leaf whose LP is tight, so lower = upper there), each with both signs (every float converted
    once; a negation is exact).  An absent part of *duals* (None: no pair rows, no half-spaces)
    stays None.  *dens* and *signs* choose among them (in that order)."""
    for den in dens:
        conv = _near_fraction if den == "cf" else (lambda v, den=den: to_rational(v, den))
        ys = [None if part is None else [[conv(v) for v in row] for row in part] for part in duals]
        for sgn in signs:
            yield project(ivs, *(ys if sgn == 1 else
                                 [None if part is None else [[-v for v in row] for row in part] for part in ys]))


def _near_fraction(y: float) -> Q:
    fr = Fraction(y).limit_denominator(10 ** 9)
    return Q(fr.numerator, fr.denominator)


def to_rational(y: float, den: int | None) -> Q:
    """A float as an exact rational: exactly (``den`` None) or the nearest multiple of ``1/den``
    (any rational multipliers are valid after projection; short ones keep the bound cheap)."""
    if den is not None:
        return Q(round(y * den), den)
    return Q(*y.as_integer_ratio())


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
