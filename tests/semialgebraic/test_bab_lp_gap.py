"""The quality of the certified LP bound of a branch-and-bound node (issue 15, the loss between
the certified Neumaier–Shcherbina bound and the LP optimum): HiGHS's duals rounded to the
``2^-60`` grid, projected and corrected exactly (:mod:`semialgebraic.bab.relaxation`) give a
bound within a stated relative tolerance of the LP's optimum, computed independently (HiGHS on
the same model, and the exact simplex of :func:`semialgebraic.lp.optimize` over Q on the same
relaxation); :func:`~semialgebraic.bab.relaxation.refit` (the triangle multipliers chosen anew
for HiGHS's ``mu``) is never above the given multipliers' bound, closes what perturbed duals
lose on the hidden columns, and its multipliers are accepted by the certificate checker
unchanged.  The tolerances asserted are on the bound's *quality*, not on any verdict."""

from __future__ import annotations

import numpy as np
import pytest

from algebra.rationals import Q, from_float
from semialgebraic.bab.relaxation import (LPTemplate, _fit, _term, build_lp, candidates,
                                          exact_bound_int, float_duals, project, refit)
from semialgebraic.bab.symbolic import SymbolicNet
from semialgebraic.lp import optimize
from semialgebraic.lp.floatlp import new_highs, run_highs
from semialgebraic.verify.bab_bound import _leaf_value

from .test_bab_budget import near_pair
from .test_bab_diff_resume import _objective

GRID = 1 << 60


def _node(widths, seed, half=Q(1)):
    a, b = near_pair(widths, seed)
    _, Ws, bs, c, _ = _objective(a, b, 0, 1)
    box = [(-half, half)] * widths[0]
    sym = SymbolicNet(Ws, bs)
    return Ws, bs, c, box, sym, sym.intervals(box, {})


def _certified(Ws, bs, c, box, sym, ivs):
    """The search's rule (one exact correction, HiGHS's sign): the duals on the ``2^-60`` grid,
    projected, their exact bound; and HiGHS's own optimum of the same model, solved apart."""
    t = LPTemplate(Ws, bs)
    status, _, duals = float_duals(Ws, bs, box, ivs, c, template=t)
    assert status == "optimal"
    y = next(candidates(ivs, duals, dens=(GRID,), signs=(1,)))
    lp, _ = build_lp(t, box, ivs, c)
    h = new_highs()
    h.passModel(lp)
    run_highs(h)
    return exact_bound_int(sym, box, ivs, c, *y), y, h.getInfo().objective_function_value


def _exact_lp(Ws, bs, c, box, ivs):
    """The node's triangle relaxation (module docstring of :mod:`semialgebraic.bab.relaxation`)
    maximised exactly over Q by :func:`semialgebraic.lp.optimize`: built here from the rows'
    definitions, not from :func:`build_lp`."""
    L = len(Ws)
    col, cols = 0, {}

    def new(key):
        nonlocal col
        cols[key] = col
        col += 1
    for k in range(len(box)):
        new(("x", k))
    for l in range(L):
        for j in range(len(Ws[l])):
            new(("z", l, j))
        if l < L - 1:
            for j in range(len(Ws[l])):
                new(("h", l, j))
    n = col
    A_eq, b_eq, A_le, b_le = [], [], [], []

    def row(entries):
        r = [Q(0)] * n
        for key, v in entries:
            r[cols[key]] += v
        return r

    def bounded(key, lo, hi):
        A_le.append(row([(key, Q(1))])); b_le.append(hi)
        A_le.append(row([(key, Q(-1))])); b_le.append(-lo)
    for k, (lo, hi) in enumerate(box):
        bounded(("x", k), lo, hi)
    for l in range(L):
        below = [("x", k) for k in range(len(box))] if l == 0 else [("h", l - 1, k) for k in range(len(Ws[l - 1]))]
        for j, (w, bj) in enumerate(zip(Ws[l], bs[l])):
            A_eq.append(row([(("z", l, j), Q(1))] + [(key, -Q(v)) for key, v in zip(below, w)]))
            b_eq.append(Q(bj))
            lo, hi = ivs[l][j]
            bounded(("z", l, j), lo, hi)
            if l == L - 1:
                continue
            bounded(("h", l, j), max(lo, Q(0)), max(hi, Q(0)))
            if lo >= 0:
                A_eq.append(row([(("z", l, j), Q(1)), (("h", l, j), Q(-1))])); b_eq.append(Q(0))
            elif hi > 0:
                s = hi / (hi - lo)
                A_le.append(row([(("z", l, j), Q(1)), (("h", l, j), Q(-1))])); b_le.append(Q(0))
                A_le.append(row([(("h", l, j), Q(1)), (("z", l, j), -s)])); b_le.append(-s * lo)
    obj = [Q(0)] * n
    for j, cj in enumerate(c):
        obj[cols[("z", L - 1, j)]] = cj
    got = optimize(obj, A_eq=A_eq, b_eq=b_eq, A_le=A_le, b_le=b_le, n=n)
    assert got.status == "optimal"
    return got.value


@pytest.mark.parametrize("widths,seed", [([2, 6, 6, 1], 0), ([3, 8, 2], 1), ([2, 5, 5, 5, 1], 2)])
def test_certified_node_bound_is_within_1e_9_of_the_exact_lp_optimum(widths, seed):
    """On small near copies the certified root bound is an upper bound of the exact LP optimum
    (over Q, the exact simplex on rows built independently) and within 10^-9 of it relative to
    the objective's scale (HiGHS's float optimum agrees to the same tolerance)."""
    Ws, bs, c, box, sym, ivs = _node(widths, seed)
    cert, _, fopt = _certified(Ws, bs, c, box, sym, ivs)
    exact = _exact_lp(Ws, bs, c, box, ivs)
    scale = max(abs(exact), Q(1, 10 ** 6))
    assert cert >= exact                                   # sound: an upper bound of the LP
    assert (cert - exact) / scale <= Q(1, 10 ** 9)
    assert abs(fopt - float(exact)) <= 1e-9 * float(scale)


@pytest.mark.parametrize("widths,seed,half", [([5, 20, 20, 20, 2], 0, Q(1, 2)), ([5, 30, 30, 2], 3, Q(1, 4)),
                                              ([8, 24, 24, 3], 4, Q(1))])
def test_certified_node_bound_is_within_1e_6_of_highs(widths, seed, half):
    """Larger near copies (up to 120 unstable neurons of ``a − b``): the certified bound is within
    10^-6 relative of HiGHS's optimum of the same model (measured 2026-12-03: 4e-16 on these; at
    the roots of ACAS Xu's 1/16 box, digits 64-32-10 and a 5-50x6-5 box 4e-12, 6e-9, 8e-9; at
    the nodes of a search up to 5.5e-4, where HiGHS's dual infeasibility reached 3e-8), and
    refitting the triangle multipliers never raises it."""
    Ws, bs, c, box, sym, ivs = _node(widths, seed, half)
    cert, y, fopt = _certified(Ws, bs, c, box, sym, ivs)
    F = from_float(fopt)
    assert cert >= F - Q(1, 10 ** 9) * (1 + abs(F))
    assert abs(float(cert) - fopt) <= 1e-6 * max(abs(fopt), 1e-6)
    assert refit(sym, box, ivs, c, *y)[0] <= cert


@pytest.mark.parametrize("widths,seed", [([2, 6, 6, 1], 0), ([3, 8, 2], 1), ([2, 5, 5, 5, 1], 2)])
def test_refit_closes_what_perturbed_triangle_duals_lose(widths, seed):
    """HiGHS's triangle duals perturbed by up to 10^-3 (a dual-feasibility error, far above
    HiGHS's 10^-7): their bound loses up to ~10^-3 times the intervals, :func:`refit` given only
    HiGHS's ``mu`` back is within 10^-9 of the exact LP optimum again; its multipliers have the
    right signs (the checker's ``_leaf_value`` reads them and finds the same exact bound)."""
    Ws, bs, c, box, sym, ivs = _node(widths, seed)
    _, (mu, alpha, beta), _ = _certified(Ws, bs, c, box, sym, ivs)
    rng = np.random.default_rng(seed)
    noisy = [[v + Q(int(rng.integers(-1000, 1001)), 10 ** 6) for v in row] for row in alpha]
    bad = [[v + Q(int(rng.integers(0, 1001)), 10 ** 6) for v in row] for row in beta]
    y = project(ivs, mu, noisy, bad)
    loose = exact_bound_int(sym, box, ivs, c, *y)
    val, a2, b2 = refit(sym, box, ivs, c, *y)
    exact = _exact_lp(Ws, bs, c, box, ivs)
    scale = max(abs(exact), Q(1, 10 ** 6))
    assert exact <= val <= loose
    assert (loose - exact) / scale > Q(1, 10 ** 6)         # the perturbation did cost something
    assert (val - exact) / scale <= Q(1, 10 ** 9)
    assert val == exact_bound_int(sym, box, ivs, c, mu, a2, b2)
    assert all(v.q in (1, GRID) or GRID % v.q == 0 for row in a2 + b2 for v in row)   # on the grid
    leaf = {"bound": str(val), "mu": [[str(v) for v in row] for row in mu],
            "alpha": [[str(v) for v in row] for row in a2], "beta": [[str(v) for v in row] for row in b2]}
    assert _leaf_value(Ws, bs, box, ivs, c, leaf) == val


def test_fit_of_one_neuron_is_the_maximum_over_its_triangle():
    """:func:`_fit` per neuron: the exact term of the chosen multipliers equals the maximum of
    ``P·z + u·h`` over the triangle's vertices ``(lo, 0)``, ``(0, 0)``, ``(hi, hi)`` (a stable
    active neuron: over its segment ``z = h``) up to the ``2^-60`` grid, for every case of the
    vertex that attains it."""
    rng = np.random.default_rng(0)
    for _ in range(400):
        P, u = (Q(int(rng.integers(-50, 51)), int(rng.integers(1, 9))) for _ in range(2))
        lo = Q(int(rng.integers(-40, 41)), int(rng.integers(1, 5)))
        hi = lo + Q(int(rng.integers(1, 60)), int(rng.integers(1, 5)))
        if hi <= 0:
            continue
        a, b = _fit(float(P), float(u), float(lo), float(hi), GRID)
        assert a >= 0 or lo >= 0
        assert b >= 0 and (b == 0 or lo < 0)
        got = _term(P, u, a, b, lo, hi)
        verts = [(lo, Q(0)), (Q(0), Q(0)), (hi, hi)] if lo < 0 else [(lo, lo), (hi, hi)]
        best = max(P * z + u * h for z, h in verts)
        assert best <= got <= best + Q(1, 10 ** 12) * (1 + abs(P) + abs(u)) * (hi - lo + 1)
