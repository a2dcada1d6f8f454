"""The exact bounds under the branch and bound (issue 15): symbolic intervals, differential
bounds, and the checker's independent replay of both (the same grid numbers)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab.differential import DifferentialNet, relu_difference
from semialgebraic.bab.symbolic import SymbolicNet, affine_bound
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import max_deviation
from semialgebraic.verify.bab_replay import layer_intervals, paired_deltas

ZERO = Q(0)


def _layers(D):
    return [W.to_rows() for W in D.weights], [list(v) for v in D.biases]


def _trace(Ws, bs, x):
    """Every pre-activation of the network at x (plain exact arithmetic, the oracle)."""
    out, h = [], list(x)
    for l, (W, b) in enumerate(zip(Ws, bs)):
        z = [sum((w * v for w, v in zip(row, h)), ZERO) + bj for row, bj in zip(W, b)]
        out.append(z)
        h = [max(v, ZERO) for v in z]
    return out


@st.composite
def near_pairs(draw):
    d = draw(st.integers(1, 3))
    widths = [d] + draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)) + [draw(st.integers(1, 2))]
    ws, bs, ws2, bs2 = [], [], [], []
    for i in range(len(widths) - 1):
        W = [[Q(draw(st.integers(-4, 4)), 2) for _ in range(widths[i])] for _ in range(widths[i + 1])]
        b = [Q(draw(st.integers(-3, 3)), 3) for _ in range(widths[i + 1])]
        ws.append(W); bs.append(b)
        ws2.append([[v + Q(draw(st.integers(-1, 1)), 64) for v in row] for row in W])
        bs2.append([v + Q(draw(st.integers(-1, 1)), 64) for v in b])
    box = [(Q(draw(st.integers(-4, 0)), 2), Q(draw(st.integers(1, 4)), 2)) for _ in range(d)]
    seed = draw(st.integers(0, 10 ** 6))
    return Network.from_rows(ws, bs), Network.from_rows(ws2, bs2), box, seed


def _empty_node_case():
    """A node that is empty (the split ``(1, 2)`` inactive, but ``z_{1,2} >= 13/192`` on the
    box) where a skipped, empty intersection left the symbolic δ disjoint from the plain one."""
    rows = [[[0], [-1], [-2], ["1/2"]], [[0, "1/2", -1, "1/2"], [0, 0, "1/2", 1]],
            [[0, 0], [1, "1/2"], ["1/2", 0]], [[0, 1, "-3/2"]]]
    a = Network.from_rows(rows, [[0, 1, 0, 0], ["1/3", 0], [0, 0, 0], [0]])
    b = Network.from_rows(rows, [[0, 1, "1/64", "1/64"], ["1/3", 0], [0, 0, 0], [0]])
    return a, b, [(Q(-1, 2), Q(1, 2))], 2454


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_pairs())
@example(_empty_node_case())
def test_symbolic_and_differential_bounds_are_sound_and_replayed(case):
    a, b, box, seed = case
    Ws, bs = _layers(difference_network(a, b))
    rng = random.Random(seed)
    hidden = [(l, j) for l in range(len(Ws) - 1) for j in range(len(Ws[l]))]
    splits = {}
    if hidden and rng.random() < 0.5:
        splits[rng.choice(hidden)] = rng.randrange(2)
    ivs = SymbolicNet(Ws, bs).intervals(box, splits)
    D = difference_network(a, b)
    replay = layer_intervals(list(D.weights), Ws, bs, box, splits)
    assert ivs == replay                                       # independent code, same numbers
    if ivs is None:
        return
    dn = DifferentialNet(Ws, bs)
    deltas = dn.deltas(box, ivs) if dn.ok else None
    plain = dn.deltas(box, ivs, symbolic=False) if dn.ok else None
    if deltas is not None:
        assert deltas[-1] == paired_deltas(Ws, bs, box, ivs, symbolic=True)
        assert plain[-1] == paired_deltas(Ws, bs, box, ivs)
        for now, before in zip(deltas, plain):                # the symbolic δ never loosens
            assert all(b0 <= a0 <= a1 <= b1 for (a0, a1), (b0, b1) in zip(now, before))
    for _ in range(30):
        x = [lo + (hi - lo) * Q(rng.randrange(65), 64) for lo, hi in box]
        zs = _trace(Ws, bs, x)
        if any(zs[l][j] * (1 if s else -1) < 0 for (l, j), s in splits.items()):
            continue                                          # outside the node
        for l, z in enumerate(zs):
            assert all(lo <= v <= hi for v, (lo, hi) in zip(z, ivs[l]))
            if deltas is not None:
                n = len(z) // 2 if l < len(zs) - 1 else len(z)
                diff = [z[j] - z[n + j] for j in range(n)] if l < len(zs) - 1 else z
                assert all(lo <= v <= hi for v, (lo, hi) in zip(diff, deltas[l]))


def test_symbolic_delta_stays_inside_the_plain_one_on_an_empty_node():
    a, b, box, _ = _empty_node_case()
    D = difference_network(a, b)
    Ws, bs = _layers(D)
    assert min(_trace(Ws, bs, [x])[1][2] for x in (Q(-1, 2), Q(-1, 32), Q(1, 128), Q(1, 2))) == Q(13, 192)
    ivs = SymbolicNet(Ws, bs).intervals(box, {(1, 2): 0})     # empty node, not detected
    assert ivs[3] == [(Q(14316557653, 2 ** 40), Q(228349094571, 2 ** 39))]
    dn = DifferentialNet(Ws, bs)
    plain = dn.deltas(box, ivs, symbolic=False)
    assert plain[3] == [(Q(14316557653, 2 ** 40), Q(1, 64))]
    assert plain[2][1] == (Q(-5, 256), Q(1, 64))
    sym = dn.deltas(box, ivs)
    assert sym[2][1] == (Q(-17179869185, 2 ** 40), Q(3, 256))   # tighter than plain
    assert sym[3] == plain[3]             # was [-13600729771/2^40, 0], disjoint from plain
    assert paired_deltas(Ws, bs, box, ivs, symbolic=True) == sym[3]
    # the root (not empty): symbolic δ is exact here, max |a − b| = 5/512 at x = 1/4
    root = SymbolicNet(Ws, bs).intervals(box, {})
    assert dn.deltas(box, root)[-1] == [(Q(-5, 512), ZERO)]
    assert dn.deltas(box, root, symbolic=False)[-1] == [(Q(-1, 32), Q(11, 512))]
    assert max_deviation(a, b, (Q(-1, 2), Q(1, 2))).value == Q(5, 512)


def test_relu_difference_rules():
    # both active: the difference itself; both inactive: 0; a active: min(δ, z_a)
    assert relu_difference((Q(1), Q(2)), (Q(1), Q(3)), (Q(-1), Q(0))) == (Q(-1), Q(0))
    assert relu_difference((Q(-2), Q(-1)), (Q(-3), Q(-1)), (Q(-1), Q(1))) == (ZERO, ZERO)
    assert relu_difference((Q(0), Q(1)), (Q(-1), Q(1)), (Q(-1), Q(2))) == (Q(-1), Q(1))
    # brute force on a grid: every rule holds at every consistent pair
    vals = [Q(k, 2) for k in range(-4, 5)]
    for za in [(Q(-1), Q(1)), (Q(0), Q(2)), (Q(-2), Q(0))]:
        for zb in [(Q(-1), Q(1)), (Q(1, 2), Q(2)), (Q(-2), Q(-1, 2))]:
            for dd in [(Q(-1), Q(1)), (Q(-1, 2), Q(0)), (Q(-3), Q(3))]:
                lo, hi = relu_difference(za, zb, dd)
                for u in vals:
                    for v in vals:
                        if za[0] <= u <= za[1] and zb[0] <= v <= zb[1] and dd[0] <= u - v <= dd[1]:
                            assert lo <= max(u, ZERO) - max(v, ZERO) <= hi


def test_affine_bound_exact():
    a = Network.from_rows([[[1, 2], [-1, 1]], [[1, -3]]], [[5, -10], [1]])
    Ws, bs = [W.to_rows() for W in a.weights], [list(v) for v in a.biases]
    box = [(Q(0), Q(1)), (Q(-1), Q(1))]
    ivs = SymbolicNet(Ws, bs).intervals(box, {})
    val, vertex = affine_bound(Ws, bs, box, ivs, [Q(1)])
    assert val == 9 and vertex == (Q(1), Q(1)) and a(vertex)[0] == 9


def test_planted_bump_on_a_tiny_ball():
    """b = a + a tent of height 1e-6 on [p - 1e-6, p + 1e-6]: max |a - b| is 1e-6 at p."""
    r, p = Q(1, 10 ** 6), Q(1, 3)
    W1 = [[1], [-1], [1], [1], [1]]
    b1 = [0, 1, -(p - r), -p, -(p + r)]
    a = Network.from_rows([W1, [[1, 1, 0, 0, 0]]], [b1, [0]])
    b = Network.from_rows([W1, [[1, 1, 1, -2, 1]]], [b1, [0]])
    assert max_deviation(a, b, (-1, 1)).value == r
    res = diff_bounds(a, b, (-1, 1))
    assert res.lower == res.upper == r and res.point == (p,)


@pytest.mark.parametrize("input_splits", [True, False])
def test_one_weight_moved_by_1e9_in_a_deeper_net(input_splits):
    a = Network.from_rows([[[1, 2], [-1, 1], [2, -1]], [[1, -1, 1], [1, 1, -1]], [[1, -1]]],
                          [[0, -1, 1], [0, "1/2"], [0]])
    b = a.with_parameter(4, a.parameters()[4] + Q(1, 10 ** 9))
    exact = max_deviation(a, b, (-1, 1)).value
    r = diff_bounds(a, b, (-1, 1), input_splits=input_splits)
    assert r.lower == exact == r.upper and exact > 0


def test_delta_lines_hold_and_match_the_checker():
    """Every NeuroDiff line of relu(z_a) − relu(z_b) holds at every consistent pair on a grid,
    and the checker's independent rules pick the same lines."""
    from semialgebraic.bab.differential import delta_lines
    from semialgebraic.verify.bab_replay import _pair_lines
    vals = [Q(k, 4) for k in range(-12, 13)]
    ivals = [(Q(-1), Q(1)), (Q(0), Q(2)), (Q(-2), Q(0)), (Q(1, 2), Q(2)), (Q(-2), Q(-1, 2)),
             (Q(-1, 4), Q(3))]
    for za in ivals:
        for zb in ivals:
            for dd in [(Q(-1), Q(1)), (Q(-1, 2), Q(0)), (Q(-3), Q(3)), (Q(1, 4), Q(1)), (Q(-1, 4), Q(3, 4))]:
                (su, tu), (sl, tl), (lo, hi) = delta_lines(za, zb, dd)
                assert _pair_lines(za, zb, dd) == ((su, sl, tu, tl), hi)
                for u in vals:
                    for v in vals:
                        if za[0] <= u <= za[1] and zb[0] <= v <= zb[1] and dd[0] <= u - v <= dd[1]:
                            dh = max(u, ZERO) - max(v, ZERO)
                            assert sl * (u - v) + tl <= dh <= su * (u - v) + tu
                            assert dh <= hi


def test_neurodiff_leaf_is_checked_by_its_own_definition():
    """A root leaf proved by the symbolic δ bound (19/128 here, the interval rules give 15/64):
    valid under 'neurodiff', rejected under the plain 'paired' rules and when claimed lower."""
    import copy
    from semialgebraic.certificates.bab_bound import bab_bound_certificate
    from semialgebraic.verify import verify
    W1 = [[1, 1], [-2, 0], [2, Q(3, 2)]]
    a = Network.from_rows([W1, [[0, Q(3, 2), Q(1, 2)], [Q(-1, 2), 2, -1], [0, -1, Q(-3, 2)]], [[2, -1, 0]]],
                          [[0, 1, 1], [Q(1, 3), 1, Q(-1, 3)], [0]])
    b = Network.from_rows([[[Q(v) + Q(1, 64) for v in r] for r in W1]] + [W.to_rows() for W in a.weights[1:]],
                          [list(v) for v in a.biases])
    box = [(Q(-1), Q(1))] * 2
    Ws, bs = _layers(difference_network(a, b))
    ivs = SymbolicNet(Ws, bs).intervals(box, {})
    dn = DifferentialNet(Ws, bs)
    (lo, hi), (plo, phi) = dn.deltas(box, ivs)[-1][0], dn.deltas(box, ivs, symbolic=False)[-1][0]
    assert (lo, hi) == (Q(-19, 128), Q(19, 128)) and (plo, phi) == (Q(-15, 64), Q(15, 64))
    objectives = [{"output": 0, "sign": 1, "upper": hi, "tree": {"bound": hi, "by": "differential"}},
                  {"output": 0, "sign": -1, "upper": -lo, "tree": {"bound": -lo, "by": "differential"}}]
    cert = json.loads(json.dumps(jsonable(bab_bound_certificate(a, b, box, objectives, max(hi, -lo)))))
    assert cert["bounds"]["differential"] == "neurodiff" and verify(cert)[0]
    m = copy.deepcopy(cert); m["bounds"]["differential"] = "paired"
    assert not verify(m)[0]
    m = copy.deepcopy(cert); m["objectives"][0]["tree"]["bound"] = str(hi - Q(1, 2 ** 40))
    assert not verify(m)[0]
