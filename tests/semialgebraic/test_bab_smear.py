"""Input splits on the coordinate of largest smear, no LP tightening at nodes beyond the LP's
reach, and the primal rounds' many ascents (issue 15).  Oracles: the region walk's exact
maximum (``max_deviation``), the exact values of the networks, the checker."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds, primal, search
from semialgebraic.bab.search import Engine, bound_objective
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import max_deviation
from semialgebraic.verify import verify
from .test_bab import _net   # (random small integer networks)


@st.composite
def pairs(draw):
    d = draw(st.integers(2, 3))
    hidden = draw(st.lists(st.integers(2, 3), min_size=1, max_size=2))
    widths = [d] + hidden + [1]
    lo = [draw(st.integers(-2, 0)) for _ in range(d)]
    box = [(Q(v), Q(v + draw(st.integers(1, 3)))) for v in lo]   # unequal widths
    return _net(draw, widths), _net(draw, widths), box


def _walk_max(a, b, box):
    """The region walk's exact max |a − b| over the per-coordinate *box* (it takes cubes): on
    the cube [0, 1]^d after the exact change of variables x_k = lo_k + (hi_k − lo_k)·u_k."""
    def moved(n):
        W0 = n.weights[0].to_rows()
        rows = [[w * (hi - lo) for w, (lo, hi) in zip(row, box)] for row in W0]
        b0 = [v + sum((w * lo for w, (lo, _) in zip(row, box)), Q(0)) for row, v in zip(W0, n.biases[0])]
        return Network.from_rows([rows] + [W.to_rows() for W in n.weights[1:]],
                                 [b0] + [list(v) for v in n.biases[1:]])
    return max_deviation(moved(a), moved(b), (0, 1)).value


def _layers(a, b):
    D = difference_network(a, b)
    return D, [W.to_rows() for W in D.weights], [list(v) for v in D.biases]


def _x_splits(tree):
    out, stack = [], [tree]
    while stack:
        t = stack.pop()
        if "split" in t:
            if t["split"][0] == "x":
                out.append(t["split"][1])
            stack += t["children"]
    return out


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs())
def test_input_splits_everywhere_reach_the_walks_maximum(case):
    """Every node with an unstable neuron split on an input coordinate (smear below the root):
    each objective's max is exact, their largest is the walk's maximum of |a − b|."""
    a, b, box = case
    exact = _walk_max(a, b, box)
    D, Ws, bs = _layers(a, b)
    best = None
    for s in (1, -1):
        ob = bound_objective(Ws, bs, box, [Q(s)], lambda x, s=s: s * D.evaluate(x)[0],
                             engine=Engine(Ws, bs, paired=True), input_splits=True, input_split_above=0)
        assert ob.complete and ob.lower == ob.upper
        assert s * D.evaluate(ob.point)[0] == ob.lower
        best = ob.lower if best is None else max(best, ob.lower)
    assert max(best, Q(0)) == exact


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs())
def test_diff_bounds_with_input_splits_is_exact_and_certified(case):
    a, b, box = case
    exact = _walk_max(a, b, box)
    r = diff_bounds(a, b, box, input_splits=True)
    assert r.complete and r.lower == r.upper == exact
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]


# D(x) = relu(x_1) − relu(x_1 − 1) + x_0 / 100: x_0 is the wider coordinate, x_1 the one that
# moves D (and its only kink): widest picks x_0, smear x_1
_A = Network.from_rows([[[0, 1], [0, 1], [1, 0]], [[1, -1, Q(1, 100)]]], [[0, -1, 0], [0]])
_B = Network.from_rows([[[0, 0], [0, 0], [0, 0]], [[0, 0, 0]]], [[0, 0, 0], [0]])
_BOX = [(Q(0), Q(8)), (Q(-2), Q(2))]


def test_smear_picks_the_coordinate_that_moves_the_objective():
    D, Ws, bs = _layers(_A, _B)
    eng = Engine(Ws, bs, paired=True)
    ivs, _ = eng.node(list(_BOX), {})
    assert eng.smear_axis(_BOX, ivs, [Q(1)]) == 1
    ob = bound_objective(Ws, bs, _BOX, [Q(1)], lambda x: D.evaluate(x)[0], engine=eng,
                         input_splits=True, input_split_above=0)
    # the root splits the widest coordinate (a distributed search's halves inherit it), the
    # nodes below the coordinate of largest smear
    assert ob.complete and ob.lower == ob.upper == Q(1) + Q(8, 100)
    assert ob.tree["split"][:2] == ["x", 0] and set(_x_splits(ob.tree)[1:]) <= {1}
    assert _x_splits(ob.tree)[1:]
    # and the widest-coordinate rule (the old one, kept for experiments) gives the same maximum
    old = search._SMEAR
    search._SMEAR = False
    try:
        ob2 = bound_objective(Ws, bs, _BOX, [Q(1)], lambda x: D.evaluate(x)[0],
                              engine=Engine(Ws, bs, paired=True), input_splits=True, input_split_above=0)
    finally:
        search._SMEAR = old
    assert ob2.lower == ob2.upper == ob.lower


def test_no_tightening_above_the_threshold():
    a = Network.from_rows([[[1, 2], [-1, 1], [2, -1], [1, 1]], [[1, -1, 1, 0], [1, 1, 0, -1], [-1, 2, 1, 1], [1, 0, -1, 1]],
                           [[1, -1, 1, 1]]], [[0, -1, 1, 0], [0, 1, 0, -1], [0]])
    b = a.with_parameter(0, Q(1) + Q(1, 1000))
    D, Ws, bs = _layers(a, b)
    box = [(Q(-1), Q(1))] * 2
    assert Engine(Ws, bs, paired=True).tighten_above == search._LP_MAX      # d = 2 <= 8
    never = Engine(Ws, bs, paired=True, tighten_above=0)
    always = Engine(Ws, bs, paired=True, tighten_above=None)
    iv_never, _ = never.node(list(box), {})
    iv_always, _ = always.node(list(box), {})
    assert never.tightened(list(box), {}) == []
    assert always.tightened(list(box), {})                 # (this root has tightened neurons)
    # the untightened intervals contain the tightened ones (both sound)
    for la, lb in zip(iv_never, iv_always):
        assert all(x[0] <= y[0] and y[1] <= x[1] for x, y in zip(la, lb))
    # and the maxima agree
    c = [Q(1)]
    r1 = bound_objective(Ws, bs, box, c, lambda x: D.evaluate(x)[0], engine=never)
    r2 = bound_objective(Ws, bs, box, c, lambda x: D.evaluate(x)[0], engine=always)
    assert r1.complete and r2.complete and r1.lower == r1.upper == r2.upper


def test_many_candidates_is_deterministic_and_climbs():
    """s·D_o = x_0 − |x_1| on the box: the ascents end at x_0 = hi, x_1 near 0."""
    Ws = [[[Q(1), Q(0)], [Q(0), Q(1)], [Q(0), Q(-1)]], [[Q(1), Q(-1), Q(-1)]]]
    bs = [[Q(2), Q(0), Q(0)], [Q(-2)]]
    box = [(Q(-1), Q(1)), (Q(-1), Q(1))]
    pts, done = primal.many_candidates(Ws, bs, box, 0, 1, chunk=8, chunks=3, seed=5)
    again, _ = primal.many_candidates(Ws, bs, box, 0, 1, chunk=8, chunks=3, seed=5)
    assert done == 3 and pts == again and len(pts) == 8
    assert all(lo <= v <= hi for p in pts for v, (lo, hi) in zip(p, box))
    best = max(p[0] - abs(p[1]) for p in pts)             # exact values of the proposals
    assert best >= Q(99, 100)
    one, done1 = primal.many_candidates(Ws, bs, box, 0, 1, chunk=8, chunks=3, seed=5, more=lambda: False)
    assert done1 == 1 and len(one) == 8                   # the first chunk always runs


def test_primal_round_rule():
    """:func:`semialgebraic.bab.diff.primal_round`: the wide walk for objectives whose lower
    bound is within 9/10 of the best (their first three rounds, while their upper is above
    the best), the gap rounds above twice the best, none otherwise."""
    from semialgebraic.bab.diff import primal_round
    best = Q(1)
    assert primal_round(Q(9, 10), Q(3, 2), best, 0) == "near"
    assert primal_round(Q(9, 10), Q(3), best, 2) == "near"       # near wins over the gap rule
    assert primal_round(Q(9, 10), Q(3), best, 3) == "gap"        # ... for three rounds
    assert primal_round(Q(9, 10), Q(3, 2), best, 3) is None
    assert primal_round(Q(89, 100), Q(3, 2), best, 0) is None    # not near, below 2x
    assert primal_round(Q(1, 2), Q(201, 100), best, 0) == "gap"
    assert primal_round(Q(1), Q(1), best, 0) is None            # closed at the best lower
    assert primal_round(Q(0), Q(1, 10), Q(0), 0) == "gap"       # best lower 0: never near
    assert primal_round(Q(0), Q(0), Q(0), 0) is None


def test_wide_walk_finds_the_digits_maximum():
    """Digits 64-32-10 vs its float16 copy on [0, 16]^64, objective a_2 − b_2 (the maximiser
    of max_o |a_o − b_o| by 16 384 float ascents and walks: 3.6944e-2): the near rounds' walk
    (the 20 best of 6 chunks of ascents, 600 region LPs) reaches it, exactly evaluated; the
    gap rounds' walk (8 best, 120 LPs) from the same ascents stays at 3.6162e-2."""
    from pathlib import Path
    import numpy as np
    from semialgebraic.bab import diff
    z = np.load(Path(__file__).parents[2] / "benchmarks" / "data" / "digits_64-32-10.npz")
    from algebra.rationals import from_float
    Ws = [z["W0"], z["W1"]]
    bs = [z["b0"], z["b1"]]
    a = Network.from_rows([[[from_float(float(v)) for v in row] for row in W] for W in Ws],
                          [[from_float(float(v)) for v in b] for b in bs])
    b = Network.from_rows([[[from_float(float(np.float16(v))) for v in row] for row in W] for W in Ws],
                          [[from_float(float(np.float16(v))) for v in b] for b in bs])
    D = difference_network(a, b)
    W = [M.to_rows() for M in D.weights]
    B = [list(v) for v in D.biases]
    box = [(Q(0), Q(16))] * 64

    def best(keep, lps):
        pts, done = primal.many_candidates(W, B, box, 2, 1, seed=2 + 1000, keep=keep, chunks=6)
        assert done == 6
        walk = primal.region_search(W, B, box, 2, 1, pts, lps=lps)
        return max(D.evaluate(p)[2] for p in pts[:3] + walk)
    wide = best(diff._NEAR_KEEP, diff._NEAR_LPS)
    assert Q(36943, 10**6) < wide < Q(36945, 10**6)
    assert best(diff._STARTS, 120) < Q(3617, 10**5)


# two outputs: D_0 moved by x_1 (smear 4 · 1), D_1 = 2 x_0 (smear 8 · 2); B the zero network
_A2 = Network.from_rows([[[0, 1], [0, 1], [1, 0]], [[1, -1, Q(1, 100)], [0, 0, 2]]], [[0, -1, 0], [0, 0]])
_B2 = Network.from_rows([[[0, 0], [0, 0], [0, 0]], [[0, 0, 0], [0, 0, 0]]], [[0, 0, 0], [0, 0]])


def test_shared_smear_is_one_axis_for_every_objective():
    """With ``_SHARED_SMEAR`` (the default) every objective ``± D_o`` splits on the axis of
    largest smear over all outputs (x_0: 8 · 2 against 4 · 1), so the objectives' cells are the
    engine's shared cache; the per-objective rule picks x_1 for ``D_0``.  Both stay exact."""
    D, Ws, bs = _layers(_A2, _B2)
    eng = Engine(Ws, bs, paired=True)
    ivs, _ = eng.node(list(_BOX), {})
    assert search._SHARED_SMEAR
    for c in ([Q(1), Q(0)], [Q(-1), Q(0)], [Q(0), Q(1)]):
        assert eng.smear_axis(_BOX, ivs, c) == 0
    old = search._SHARED_SMEAR
    search._SHARED_SMEAR = False
    try:
        assert eng.smear_axis(_BOX, ivs, [Q(1), Q(0)]) == 1
        assert eng.smear_axis(_BOX, ivs, [Q(0), Q(1)]) == 0
        ob_own = bound_objective(Ws, bs, _BOX, [Q(1), Q(0)], lambda x: D.evaluate(x)[0],
                                 engine=Engine(Ws, bs, paired=True), input_splits=True, input_split_above=0)
    finally:
        search._SHARED_SMEAR = old
    ob = bound_objective(Ws, bs, _BOX, [Q(1), Q(0)], lambda x: D.evaluate(x)[0], engine=eng,
                         input_splits=True, input_split_above=0)
    # max of D_0 = relu(x_1) − relu(x_1 − 1) + x_0 / 100 on [0, 8] × [-2, 2]: 1 + 8/100
    assert ob.complete and ob.lower == ob.upper == ob_own.lower == ob_own.upper == Q(1) + Q(8, 100)


def test_shared_smear_diff_bounds_is_exact_and_certified():
    """Two outputs, every node split on the shared axis: the interval is the walk's exact
    maximum of max_o |a_o − b_o| (here |2 x_0 − x_0 / 2| at x_0 = 8, minus b's share) and the
    certificate checks."""
    b = Network.from_rows([[[0, 1], [0, 1], [1, 0]], [[1, -1, 0], [0, 0, Q(1, 2)]]], [[0, -1, 0], [0, 0]])
    r = diff_bounds(_A2, b, _BOX, input_splits=True)
    exact = _walk_max(_A2, b, _BOX)
    assert exact == Q(12)
    assert r.complete and r.lower == r.upper == exact
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]
