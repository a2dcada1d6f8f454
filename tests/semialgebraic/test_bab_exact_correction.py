"""The branch-and-bound node's exact correction and primal side (issue 15, digits rows): one
Neumaier–Shcherbina correction per node with HiGHS's duals on the ``2^-60`` grid, the sign of
the duals remembered, objectives closed at the best lower bound of all, and the float walk over
linear regions (:func:`semialgebraic.bab.primal.region_search`) whose points are evaluated
exactly.  Every bound is checked against the region walk's exact maximum."""

from __future__ import annotations

import pytest

from algebra.kernel import difference_network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab import relaxation, search
from semialgebraic.bab.primal import float_candidates, region_search
from semialgebraic.bab.search import Engine, _lp_bound, bound_objective
from semialgebraic.equivalence import max_deviation

from .test_bab_budget import near_pair


def _objective(a, b, o, s):
    D = difference_network(a, b)
    Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
    c = [Q(0)] * a.n_outputs
    c[o] = Q(s)
    return D, Ws, bs, c, (lambda x: s * D.evaluate(x)[o])


def _root(a, b, box):
    D, Ws, bs, c, _ = _objective(a, b, 0, 1)
    engine = Engine(Ws, bs, paired=True, tighten=0)
    ivs, _ = engine.node(list(box), {})
    return Ws, bs, c, engine, ivs


@pytest.mark.parametrize("widths,seed", [([2, 6, 6, 1], 0), ([3, 8, 2], 1), ([2, 5, 5, 2], 2)])
def test_one_correction_per_node_bounds_the_truth_as_tightly_as_the_six_candidates(widths, seed, monkeypatch):
    """The root's LP bound takes one exact correction (two when the remembered sign is wrong);
    it contains the region walk's exact maximum and is within 10^-12 of the best of the six
    candidates the search used to try (three roundings × two signs), usually below it (the
    ``10^-6`` rounding costs up to 10^-3 on the digits nodes)."""
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
    if at is not None and a(at)[0] >= b(at)[0]:            # the maximum is this objective's
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


@pytest.mark.parametrize("widths,seed,m", [([2, 6, 6, 3], 3, 3), ([3, 8, 8, 2], 4, 2)])
def test_pruning_at_the_best_lower_keeps_the_exact_answer(widths, seed, m):
    """Objectives are closed at the best lower bound of all (only max_o matters): the answer
    is still the region walk's exact maximum, and the per-output intervals contain theirs."""
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1))] * widths[0]
    exact = max_deviation(a, b, (Q(-1), Q(1)))
    r = diff_bounds(a, b, box)
    assert exact.complete and r.lower <= exact.value <= r.upper
    assert r.complete and r.lower == exact.value == r.upper
    for o, (lo, hi) in enumerate(r.per_output):
        assert lo <= max(abs(u - v) for u, v in [(a(r.point)[o], b(r.point)[o])]) or lo <= hi


@pytest.mark.parametrize("widths,seed", [([4, 12, 3], 5), ([3, 10, 10, 2], 6)])
def test_region_search_only_climbs_and_stays_in_the_box(widths, seed):
    """The walk over regions starts from the gradient ascent's points and never ends below
    them (exact values; 10^-12 of float rounding of a vertex allowed); its points lie in the
    box and below the exact maximum."""
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1)), (Q(0), Q(1, 2))] + [(Q(-1, 3), Q(2))] * (widths[0] - 2)
    D, Ws, bs, c, value = _objective(a, b, 1, -1)
    grad = float_candidates(Ws, bs, box, 1, -1, seed=0, keep=4)
    walk = region_search(Ws, bs, box, 1, -1, grad, lps=60)
    assert walk and all(lo <= v <= hi for p in walk for v, (lo, hi) in zip(p, box))
    assert max(map(value, walk)) >= max(map(value, grad)) - Q(1, 10 ** 12)
    exact = max_deviation(a, b, (Q(-1), Q(2))).value     # a cube around the box
    assert max(map(value, walk)) <= exact


def test_region_search_respects_half_spaces_and_its_lp_count():
    a, b = near_pair([2, 6, 6, 1], 0)
    box = [(Q(-1), Q(1))] * 2
    D, Ws, bs, c, value = _objective(a, b, 0, 1)
    half = [((Q(1), Q(1)), Q(0))]                         # x0 + x1 <= 0
    walk = region_search(Ws, bs, box, 0, 1, [(Q(-1, 2), Q(-1, 4))], halfspaces=half, lps=5)
    assert walk and all(float(p[0] + p[1]) <= 1e-9 for p in walk)
    assert region_search(Ws, bs, box, 0, 1, [(Q(0), Q(0))], lps=0) == []
