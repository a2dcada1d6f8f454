"""Branching of the exact branch and bound on a difference network's pairs (issue 15, digits).

The split is chosen by the share of the node's LP bound carried by a pair's rows (the pair
lines' constants and both triangle rows, :func:`semialgebraic.bab.search._ranked`); whatever is
chosen, the certified interval must close on the region walk's exact value.  Also HiGHS's warm
start of a child's LP from its parent's basis (:class:`semialgebraic.bab.relaxation.Basis`)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab.search import Engine, _choose_by_duals, _ranked, bound_objective
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import max_deviation
from semialgebraic.verify import verify

Z = Q(0)


def _json(c):
    return json.loads(json.dumps(jsonable(c)))


def test_pair_share_and_the_neuron_of_the_pair():
    # one hidden layer of 2 pairs (a's neurons 0, 1; b's 2, 3), all unstable
    ivs = [[(Q(-1), Q(1)), (Q(-2), Q(2)), (Q(-1), Q(3)), (Q(-2), Q(2))], [(Q(-9), Q(9))]]
    holder = {"beta": [[Z, Z, Q(1), Z]], "gamma": [[Q(1, 2), Q(2)]], "eta": [[Q(1), Z]]}
    lines = [[(Q(1, 2), Q(1, 10), Q(1, 2), Q(-1, 10)), (Q(1, 2), Q(1, 5), Q(1, 2), Q(-1, 5))]]
    # pair 0: b's triangle share 1·(3/4)·1 = 3/4, pair rows 1/2·1/10 + 1·1/10 = 3/20: 9/10
    # pair 1: no triangle share, pair rows 2·1/5 = 2/5
    assert _ranked(ivs, holder, lines) == [(Q(9, 10), (0, 2)), (Q(2, 5), (0, 1))]
    # the neuron of pair 0 is b's (its own share); pair 1 has none: the wider triangle (a's, tie → first)
    assert _choose_by_duals(ivs, holder, lines) == (0, 2)
    # without the pair rows: the triangle share alone
    assert _ranked(ivs, holder) == [(Q(3, 4), (0, 2))]
    # a pair with one stable neuron: the unstable one is split
    ivs2 = [[(Q(1), Q(2)), (Q(-2), Q(2)), (Q(-1), Q(3)), (Q(-2), Q(2))], [(Q(-9), Q(9))]]
    holder2 = {"beta": [[Z, Z, Z, Z]], "gamma": [[Q(1), Z]], "eta": [[Z, Z]]}
    assert _ranked(ivs2, holder2, lines) == [(Q(1, 10), (0, 2))]
    assert _ranked(ivs2, {"beta": [[Z] * 4], "gamma": [[Z, Z]], "eta": [[Z, Z]]}, lines) == []
    assert _choose_by_duals(ivs, {}, lines) is None


def _near(draw, widths):
    """A network and a copy with some weights moved by multiples of 1/16 (a near copy: the
    differential pairs are what the branching scores)."""
    ws, bs, ws2, bs2 = [], [], [], []
    for i in range(len(widths) - 1):
        W = [[draw(st.integers(-3, 3)) for _ in range(widths[i])] for _ in range(widths[i + 1])]
        b = [draw(st.integers(-2, 2)) for _ in range(widths[i + 1])]
        ws.append(W); bs.append(b)
        ws2.append([[Q(v) + Q(draw(st.integers(-1, 1)), 16) for v in row] for row in W])
        bs2.append([Q(v) + Q(draw(st.integers(-1, 1)), 16) for v in b])
    return Network.from_rows(ws, bs), Network.from_rows(ws2, bs2)


@st.composite
def near_pairs(draw):
    d = draw(st.integers(2, 3))
    hidden = draw(st.lists(st.integers(2, 3), min_size=1, max_size=2))
    widths = [d] + hidden + [draw(st.integers(1, 2))]
    a, b = _near(draw, widths)
    return a, b, (draw(st.integers(-2, 0)), draw(st.integers(1, 2)))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_pairs())
def test_neuron_splits_only_close_on_the_region_walk(case):
    """No input splits: the neuron (pair) branching alone reaches the exact maximum."""
    a, b, box = case
    exact = max_deviation(a, b, box).value
    r = diff_bounds(a, b, box, input_splits=False)
    assert r.lower == exact == r.upper and r.complete
    assert max(abs(u - v) for u, v in zip(a(r.point), b(r.point))) == exact
    assert verify(_json(r.certificate))[0]


def test_first_split_is_the_ranked_pair(monkeypatch):
    import semialgebraic.bab.search as search
    calls = []

    def ranked(ivs, holder, lines=None):
        out = _ranked(ivs, holder, lines)
        calls.append((out, lines is not None and "gamma" in holder))
        return out
    monkeypatch.setattr(search, "_ranked", ranked)
    a = Network.from_rows([[[1, 1], [1, -1], [-1, 1]], [[1, -1, 1]]], [[0, 0, 0], [0]])
    b = Network.from_rows([[["17/16", 1], [1, "-15/16"], [-1, 1]], [["15/16", -1, "17/16"]]],
                          [["1/16", 0, "-1/16"], ["1/16"]])
    D = difference_network(a, b)
    Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
    box = [(Q(-1), Q(1))] * 2
    exact = max_deviation(a, b, (-1, 1)).value
    eng = Engine(Ws, bs, paired=True)
    obs = [bound_objective(Ws, bs, box, [Q(s)], lambda x, s=s: s * D.evaluate(x)[0], engine=eng.fork(),
                           input_splits=False) for s in (1, -1)]
    assert max(ob.upper for ob in obs) == exact == max(ob.lower for ob in obs) == Q(31, 128)
    assert [ob.tree["split"] for ob in obs] == [[0, 0], [0, 5]]
    # the root of each objective was split by the first ranked pair, scored with its pair rows
    assert calls[0][1] and calls[0][0][0][1] == (0, 0)
    assert any(out and out[0][1] == (0, 5) for out, _ in calls)


def test_warm_start_from_the_parent_basis():
    """A child's LP started from its parent's basis (mapped by row identity): the basis is
    accepted, HiGHS's optimum is the cold one's and the exact bounds agree."""
    from highspy import _core as hc

    from semialgebraic.bab import relaxation as R
    a = Network.from_rows([[[1, 1], [1, -1], [-1, 1]], [[1, -1, 1]]], [[0, 0, 0], [0]])
    b = Network.from_rows([[["17/16", 1], [1, "-15/16"], [-1, 1]], [["15/16", -1, "17/16"]]],
                          [["1/16", 0, "-1/16"], ["1/16"]])
    D = difference_network(a, b)
    Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
    box = [(Q(-1), Q(1))] * 2
    eng = Engine(Ws, bs, paired=True)
    ivs, _ = eng.node(box, {})
    keep = []
    st, _, _ = R.float_duals(Ws, bs, box, ivs, [Q(1)], template=eng.template,
                             pair_lines=eng.pair_lines(box, {}), keep=keep)
    assert st == "optimal" and len(keep) == 1 and len(keep[0].cols) == eng.template.ncol
    unstable = [(0, j) for j, (lo, hi) in enumerate(ivs[0]) if lo < 0 < hi]
    assert unstable
    applied = []
    orig = R.Basis.apply

    def apply(self, h, keys, t):
        applied.append(orig(self, h, keys, t))
        return applied[-1]
    R.Basis.apply = apply
    try:
        for split in unstable:
            for side in (0, 1):
                sp = {split: side}
                civs, _ = eng.node(box, sp, {}, 0)
                if civs is None:
                    continue
                lines = eng.pair_lines(box, sp)
                cold = R.float_duals(Ws, bs, box, civs, [Q(1)], template=eng.template, pair_lines=lines)
                warm = R.float_duals(Ws, bs, box, civs, [Q(1)], template=eng.template, pair_lines=lines,
                                     basis=keep[0])
                assert cold[0] == warm[0] == "optimal"
                ys = [next(R.candidates(civs, r[2], dens=(1 << 60,), signs=(1,))) for r in (cold, warm)]
                vals = [R.exact_bound_int(eng.sym, box, civs, [Q(1)], *y, lines=lines) for y in ys]
                assert abs(vals[0] - vals[1]) <= Q(1, 10 ** 6)
    finally:
        R.Basis.apply = orig
    assert applied and all(applied)
    assert hc.HighsBasisStatus.kBasic == hc.HighsBasisStatus(1)
