"""The branch-and-bound node's exact correction and primal side (issue 15, digits rows): one
Neumaier–Shcherbina correction per node with HiGHS's duals on the ``2^-60`` grid, the sign of
the duals remembered, objectives closed at the best lower bound of all, and the float walk over
linear regions (:func:`semialgebraic.bab.primal.region_search`) whose points are evaluated
exactly.  Every bound is checked against the region walk's exact maximum."""

from __future__ import annotations

import copy
import json

import pytest

from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab import relaxation, search
from semialgebraic.bab.exactleaf import exact_leaf
from semialgebraic.bab.primal import float_candidates, region_search
from semialgebraic.bab.relaxation import exact_bound_int, float_duals
from semialgebraic.lp import optimize
from semialgebraic.bab.search import Engine, _lp_bound, bound_objective
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import max_deviation
from semialgebraic.verify import verify

from .test_bab_budget import near_pair
from .test_bab_diff_resume import _objective


def _root(a, b, box):
    D, Ws, bs, c, _ = _objective(a, b, 0, 1)
    engine = Engine(Ws, bs, paired=True, tighten=0)
    ivs, _ = engine.node(list(box), {})
    return Ws, bs, c, engine, ivs


@pytest.mark.parametrize("widths,seed", [([2, 6, 6, 1], 0), ([3, 5, 2], 0),
                                         pytest.param([3, 8, 2], 1, marks=pytest.mark.slow)])
def test_one_correction_per_node_bounds_the_truth_as_tightly_as_the_six_candidates(widths, seed, monkeypatch):
    """The root's LP bound takes one exact correction (two when the remembered sign is wrong);
    it contains the region walk's exact maximum and is within 10^-12 of the best of the six
    candidates the search used to try (three roundings × two signs), usually below it (the
    ``10^-6`` rounding costs up to 10^-3 on the digits nodes).  (Each pair's maximum is
    objective ``+(a_0 − b_0)``'s: the root bound is compared with it; the 3-8-2 pair, whose region
    walk takes ~3 s, is slow-marked, the 3-5-2 one keeps three inputs and two outputs.)"""
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1))] * widths[0]
    Ws, bs, c, engine, ivs = _root(a, b, box)
    lines = engine.pair_lines(box, {})
    calls = []
    real = search.exact_bound_int

    def counting(*args, **kw):
        calls.append(1)
        return real(*args, **kw)
    monkeypatch.setattr(search, "exact_bound_int", counting)
    memo = {}
    got = _lp_bound(Ws, bs, box, ivs, c, engine.sym, template=engine.template, lines=lines,
                    memo=memo)
    assert got is not None and got[0] is not None
    assert len(calls) == 1 and memo["sign"] == 1          # HiGHS's sign, right the first time
    status, _, duals = relaxation.float_duals(Ws, bs, box, ivs, c, template=engine.template,
                                              pair_lines=lines)
    old = min(real(engine.sym, box, ivs, c, *y, lines=lines) for y in relaxation.candidates(ivs, duals))
    assert got[0] - old <= Q(1, 10 ** 12)
    truth = max_deviation(a, b, (Q(-1), Q(1)))           # max_o |a_o − b_o|
    at = truth.point if truth.output == 0 else None
    assert truth.complete and got[0] >= max(a(x)[0] - b(x)[0] for x in map(tuple, _vertices(box)))
    assert at is not None and a(at)[0] >= b(at)[0]          # the maximum is this objective's
    assert got[0] >= truth.value


def _vertices(box):
    pts = [[]]
    for lo, hi in box:
        pts = [p + [v] for p in pts for v in (lo, hi)]
    return pts


def test_a_wrong_remembered_sign_falls_back_to_the_other():
    a, b = near_pair([2, 6, 6, 1], 0)
    box = [(Q(-1), Q(1))] * 2
    Ws, bs, c, engine, ivs = _root(a, b, box)
    lines = engine.pair_lines(box, {})
    right = _lp_bound(Ws, bs, box, ivs, c, engine.sym, template=engine.template, lines=lines)
    memo = {"sign": -1}
    bound = sum(max(abs(lo), abs(hi)) for lo, hi in ivs[-1])   # the symbolic bound, loose
    wrong_first = _lp_bound(Ws, bs, box, ivs, c, engine.sym, template=engine.template, lines=lines,
                            memo=memo, bound=bound)
    assert wrong_first[0] == right[0] and memo["sign"] == 1


def test_an_objective_below_the_prune_level_closes_at_its_root_with_a_valid_bound():
    a, b = near_pair([2, 6, 6, 1], 0)
    box = [(Q(-1), Q(1))] * 2
    D, Ws, bs, c, value = _objective(a, b, 0, 1)
    truth = max(value(tuple(x)) for x in map(tuple, _vertices(box)))
    full = bound_objective(Ws, bs, box, c, value, engine=Engine(Ws, bs, paired=True))
    cut = bound_objective(Ws, bs, box, c, value, engine=Engine(Ws, bs, paired=True),
                          prune_at=full.upper + 1)
    assert cut.nodes == 1 and cut.complete
    assert cut.upper >= full.upper >= full.lower >= truth


@pytest.mark.parametrize("widths,seed", [([2, 4, 4, 3], 1),
                                         pytest.param([2, 6, 6, 3], 3, marks=pytest.mark.slow),
                                         pytest.param([3, 8, 8, 2], 4, marks=pytest.mark.slow)])
def test_pruning_at_the_best_lower_keeps_the_exact_answer(widths, seed):
    """Objectives are closed at the best lower bound of all (only max_o matters): the answer
    is still the region walk's exact maximum.  (3-8-8-2, seed 4: 1 098 nodes, 15 s CPU and
    lower = upper; before, 4 592 nodes, 72 s, and a gap of dual rounding of 2e-15.  The fast
    2-4-4-3 pair: 102 nodes, one output pruned; 2-6-6-3 seed 3, slow-marked: its walk ~2 s.)"""
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1))] * widths[0]
    exact = max_deviation(a, b, (Q(-1), Q(1)))
    r = diff_bounds(a, b, box)
    assert exact.complete and r.lower <= exact.value <= r.upper
    assert r.complete and r.lower == exact.value == r.upper
    assert all(lo <= hi <= r.upper for lo, hi in r.per_output)
    assert any(lo < hi for lo, hi in r.per_output)        # an output closed above its own maximum
    cert = json.loads(json.dumps(jsonable(r.certificate)))
    assert verify(cert)[0]
    # false claims: the exact upper bound lowered by 2^-200, or a leaf's bound lowered, rejected
    low = copy.deepcopy(cert)
    low["upper"] = str(Q(low["upper"]) - Q(1, 2 ** 200))
    for ob in low["objectives"]:
        ob["upper"] = str(min(Q(ob["upper"]), Q(low["upper"])))
    assert not verify(low)[0]
    leafy = copy.deepcopy(cert)
    stack = [ob["tree"] for ob in leafy["objectives"]]
    leaves = []
    while stack:
        node = stack.pop()
        stack.extend(node.get("children", ()))
        if "mu" in node and "bound" in node:
            leaves.append(node)
    top = max(leaves, key=lambda n: Q(n["bound"]))
    top["bound"] = str(Q(top["bound"]) - Q(1, 2 ** 200))
    assert not verify(leafy)[0]


@pytest.mark.parametrize("widths,seed", [([4, 12, 3], 5), ([3, 6, 6, 2], 6)])
def test_region_search_only_climbs_and_stays_in_the_box(widths, seed):
    """The walk over regions starts from the gradient ascent's points and never ends below
    them (exact values; 10^-12 of float rounding of a vertex allowed); its points lie in the
    box and below the root's certified bound."""
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1)), (Q(0), Q(1, 2))] + [(Q(-1, 3), Q(2))] * (widths[0] - 2)
    D, Ws, bs, c, value = _objective(a, b, 1, -1)
    grad = float_candidates(Ws, bs, box, 1, -1, seed=0, keep=4)
    walk = region_search(Ws, bs, box, 1, -1, grad, lps=60)
    assert walk and all(lo <= v <= hi for p in walk for v, (lo, hi) in zip(p, box))
    assert max(map(value, walk)) >= max(map(value, grad)) - Q(1, 10 ** 12)
    ivs, _ = Engine(Ws, bs, tighten=0).node(box, {})      # the root's certified interval
    assert max(map(value, walk)) <= -ivs[-1][1][0]


def test_region_search_respects_half_spaces_and_its_lp_count():
    a, b = near_pair([2, 6, 6, 1], 0)
    box = [(Q(-1), Q(1))] * 2
    D, Ws, bs, c, value = _objective(a, b, 0, 1)
    half = [((Q(1), Q(1)), Q(0))]                         # x0 + x1 <= 0
    walk = region_search(Ws, bs, box, 0, 1, [(Q(-1, 2), Q(-1, 4))], halfspaces=half, lps=5)
    assert walk and all(float(p[0] + p[1]) <= 1e-9 for p in walk)
    assert region_search(Ws, bs, box, 0, 1, [(Q(0), Q(0))], lps=0) == []


def _region_lp(Ws, bs, box, ivs, c):
    """The exact LP (:func:`semialgebraic.lp.optimize`, an independent exact method) of ``c·D``
    over a leaf's region: the pattern of *ivs* (no unstable neuron), the box and the intervals."""
    from algebra.linalg import QMatrix
    d, L = len(box), len(Ws)
    G, g = QMatrix.identity(d), [Q(0)] * d
    A_le, b_le = [], []
    for k, (lo, hi) in enumerate(box):
        e = [Q(0)] * d
        e[k] = Q(1)
        A_le += [e, [-v for v in e]]
        b_le += [hi, -lo]
    for l in range(L):
        W = QMatrix.from_rows(Ws[l], G.nrows)
        G, g = W @ G, [u + v for u, v in zip(W.apply(g), bs[l])]
        for j, (lo, hi) in enumerate(ivs[l]):
            row = list(G.row_at(j))
            A_le += [row, [-v for v in row]]
            b_le += [hi - g[j], g[j] - lo]
        if l < L - 1:
            act = [1 if lo >= 0 else 0 for lo, _ in ivs[l]]
            G, g = G.scale_rows(act), [v * a for v, a in zip(g, act)]
    cost = G.transpose().apply(c)
    res = optimize(cost, A_le=A_le, b_le=b_le, n=d)
    return res.value + sum(cj * gj for cj, gj in zip(c, g))


@pytest.mark.parametrize("widths,seed,x0", [([2, 3, 1], 0, ("1/3", "-1/5")), ([2, 4, 4, 1], 1, ("-1/2", "1/7")),
                                            ([3, 5, 2], 2, ("1/9", "2/3", "-3/4"))])
def test_exact_leaf_reaches_the_exact_lp_of_its_region(widths, seed, x0):
    """At a leaf whose neurons are all split (on the sides of the point *x0*), the multipliers
    of :func:`exact_leaf` give the exact maximum of its region, as computed by the exact LP
    (and its point attains it)."""
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1))] * widths[0]
    D, Ws, bs, c, value = _objective(a, b, 0, 1)
    engine = Engine(Ws, bs, tighten=0)
    pre = D.preactivations(tuple(Q(v) for v in x0))
    splits = {(l, j): 1 if pre[l][j] >= 0 else 0 for l in range(len(Ws) - 1) for j in range(len(Ws[l]))}
    ivs, _ = engine.node(box, splits)
    assert ivs is not None and not any(lo < 0 < hi for layer in ivs[:-1] for lo, hi in layer)
    status, x, _ = float_duals(Ws, bs, box, ivs, c, template=engine.template)
    assert status == "optimal"
    mu, alpha, beta, point = exact_leaf(Ws, bs, box, ivs, c, x)
    truth = _region_lp(Ws, bs, box, ivs, c)
    assert exact_bound_int(engine.sym, box, ivs, c, mu, alpha, beta) == truth == value(point)


def test_exact_leaf_declines_unstable_leaves_and_a_wrong_guess_stays_a_valid_bound():
    a, b = near_pair([2, 4, 4, 1], 1)
    box = [(Q(-1), Q(1))] * 2
    D, Ws, bs, c, value = _objective(a, b, 0, 1)
    engine = Engine(Ws, bs, tighten=0)
    ivs, _ = engine.node(box, {})
    assert exact_leaf(Ws, bs, box, ivs, c, [0.0, 0.0]) is None        # unstable neurons
    splits = {(l, j): 1 for l in range(2) for j in range(4)}
    ivs, _ = engine.node(box, splits)
    if ivs is None:
        pytest.skip("the all-active pattern is empty")
    got = exact_leaf(Ws, bs, box, ivs, c, [1.0, -1.0])                # a box vertex, maybe not optimal
    if got is not None:
        truth = _region_lp(Ws, bs, box, ivs, c)
        assert exact_bound_int(engine.sym, box, ivs, c, *got[:3]) >= truth


@pytest.mark.parametrize("guess", [[1.0, -1.0], [-1.0, -1.0], [0.0, 0.0], [0.25, 0.5]])
def test_exact_leaf_from_any_float_guess_reaches_the_exact_lp(guess):
    """A float point that is not the optimal vertex (a box corner, the centre, an interior
    point: no square active set) still gives the exact maximum of the leaf's region: the exact
    LP of the region decides when the square solve is not optimal (:func:`exact_leaf`), and its
    point attains the bound (lower = upper at the leaf)."""
    a, b = near_pair([2, 4, 4, 1], 1)
    box = [(Q(-1), Q(1))] * 2
    D, Ws, bs, c, value = _objective(a, b, 0, 1)
    engine = Engine(Ws, bs, tighten=0)
    pre = D.preactivations((Q(1, 3), Q(-1, 5)))
    splits = {(l, j): 1 if pre[l][j] >= 0 else 0 for l in range(len(Ws) - 1) for j in range(len(Ws[l]))}
    ivs, _ = engine.node(box, splits)
    assert ivs is not None and not any(lo < 0 < hi for layer in ivs[:-1] for lo, hi in layer)
    got = exact_leaf(Ws, bs, box, ivs, c, guess)
    assert got is not None
    mu, alpha, beta, point = got
    truth = _region_lp(Ws, bs, box, ivs, c)
    assert exact_bound_int(engine.sym, box, ivs, c, mu, alpha, beta) == truth == value(point)
