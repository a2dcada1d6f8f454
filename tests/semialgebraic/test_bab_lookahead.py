"""The float lookahead of the neuron to split (issue 15, :mod:`semialgebraic.bab.lookahead`): the
children's values it reads from one hot-started model are the optima of the children's own
models, its choice is the candidate of least larger child, and the search closes on the region
walk's exact value with it (floats only choose: the certificate is checked)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import semialgebraic.bab.search as search
from algebra.kernel import difference_network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab.lookahead import child_values, lookahead
from semialgebraic.bab.relaxation import build_lp
from semialgebraic.bab.search import Engine
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import max_deviation
from semialgebraic.lp.floatlp import new_highs, run_highs
from semialgebraic.verify import verify

from .test_bab_pair_branching import near_pairs


def _json(c):
    return json.loads(json.dumps(jsonable(c)))


def _cold(t, box, ivs, c, lines):
    """A child's own model solved from scratch: its float optimum (``-inf`` infeasible)."""
    lp, _ = build_lp(t, box, ivs, c, lines)
    h = new_highs()
    h.passModel(lp)
    run_highs(h)
    name = str(h.getModelStatus()).rsplit(".", 1)[-1]
    if name == "kInfeasible":
        return -math.inf
    assert name == "kOptimal"
    return h.getInfo().objective_function_value


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_pairs(), st.integers(0, 1))
def test_child_values_are_the_childrens_optima(case, sign):
    a, b, (lo, hi) = case
    D = difference_network(a, b)
    Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
    box = [(Q(lo), Q(hi))] * a.n_inputs
    eng = Engine(Ws, bs, paired=True)
    ivs, _ = eng.node(box, {})
    if ivs is None:
        return
    c = [Q(0)] * len(Ws[-1])
    c[0] = Q(1 if sign else -1)
    lines = eng.pair_lines(box, {})
    cands = [(l, j) for l, layer in enumerate(ivs[:-1]) for j, (u, v) in enumerate(layer) if u < 0 < v]
    got = child_values(eng.template, box, ivs, c, cands, lines)
    assert got is not None
    base, vals = got
    assert math.isclose(base, _cold(eng.template, box, ivs, c, lines), rel_tol=1e-7, abs_tol=1e-9)
    assert set(vals) <= set(cands)
    for (l, j), pair in vals.items():
        for side, v in zip((0, 1), pair):
            child = [list(layer) for layer in ivs]
            u, w = child[l][j]
            child[l][j] = (u, Q(0)) if side == 0 else (Q(0), w)     # stable: h = 0, or h = z
            want = _cold(eng.template, box, child, c, lines)
            assert v == want == -math.inf or math.isclose(v, want, rel_tol=1e-7, abs_tol=1e-9), \
                ((l, j), side, v, want)
            assert v <= base + 1e-9 * (1 + abs(base))                 # a child is never above its leaf
    pick = lookahead(eng.template, box, ivs, c, cands, lines)
    if pick is not None:
        (l, j), pair = pick
        assert pair == vals[(l, j)] and max(pair) < base
        assert all(max(pair) <= max(v) for v in vals.values())


@pytest.mark.slow
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_pairs())
def test_the_search_with_every_split_looked_ahead_closes_on_the_region_walk(case):
    """The lookahead at every neuron split (its trigger forced): the exact maximum and a
    checked certificate."""
    a, b, box = case
    exact = max_deviation(a, b, box).value
    old, look, calls = search._LOOK_SHARE, search._look, []

    def counted(*args):
        calls.append(args)
        return look(*args)
    search._LOOK_SHARE, search._look = Q(10 ** 9), counted
    try:
        r = diff_bounds(a, b, box, input_splits=False)
    finally:
        search._LOOK_SHARE, search._look = old, look
    assert r.lower == exact == r.upper and r.complete
    assert verify(_json(r.certificate))[0]
    assert all(len(args) == 6 for args in calls)


def test_a_looked_ahead_split_is_an_unstable_neuron_and_the_search_stays_exact():
    """The pair of test_bab_pair_branching (exact maximum 31/128): with the trigger forced,
    every split goes through the lookahead, each chosen neuron is unstable at its node."""
    from algebra.network import Network
    a = Network.from_rows([[[1, 1], [1, -1], [-1, 1]], [[1, -1, 1]]], [[0, 0, 0], [0]])
    b = Network.from_rows([[["17/16", 1], [1, "-15/16"], [-1, 1]], [["15/16", -1, "17/16"]]],
                          [["1/16", 0, "-1/16"], ["1/16"]])
    old, look, picks = search._LOOK_SHARE, search._look, []

    def counted(engine, box, splits, ivs, c, budget):
        got = look(engine, box, splits, ivs, c, budget)
        picks.append((got, ivs))
        return got
    search._LOOK_SHARE, search._look = Q(10 ** 9), counted
    try:
        r = diff_bounds(a, b, (-1, 1), input_splits=False)
    finally:
        search._LOOK_SHARE, search._look = old, look
    assert r.lower == r.upper == Q(31, 128) and r.complete
    assert verify(_json(r.certificate))[0]
    chosen = [(got, ivs) for got, ivs in picks if got is not None]
    assert chosen
    assert all(ivs[l][j][0] < 0 < ivs[l][j][1] for (l, j), ivs in chosen)
