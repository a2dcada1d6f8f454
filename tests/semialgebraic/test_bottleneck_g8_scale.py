"""G8 for n1 >= 3 by the jump rule (three-layer-fibers §3.1, G8): no walk of the facet's cells.

The decider (`_structure.facet_jumps`) and the identifiability checker
(`verify/identifiability._visible_on_facet`) are compared, column by column, with an exact walk
of the facet's linear regions (small cap) on random nets with planted cancellations: pairs of rows
equal on F_i whose kinks cancel (same orientation, jump 0) and flipped pairs (opposite
orientation, jump 0, a constant slope that a second flipped pair can cancel)."""

import copy
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from algebra.linalg import QMatrix
from algebra.network import Network
from semialgebraic import bottleneck as B
from semialgebraic.bottleneck import _structure as S
from semialgebraic.verify import verify
from semialgebraic.verify.identifiability import _visible_on_facet


def _walk_visible(P, i, cap=2000):
    """Reference: one exact point per open cell of F_i (the region walk of the rows with column
    i deleted on the open orthant of the other coordinates); None when the walk hits the cap."""
    from semialgebraic.regions import regions
    from semialgebraic.sets.polyhedra import Polyhedron
    live = [j for j, t in enumerate(S.second_layer_types(P)) if t != S.DEAD]
    if not live:
        return False
    others = [c for c in range(P.n1) if c != i]
    W = QMatrix.from_rows([[P.R2[j][c] for c in others] for j in live])
    net = Network([W, QMatrix.from_rows([[1] * len(live)])], [[P.R2[j][P.n1] for j in live], [0]])
    walk = regions(net, domain=Polyhedron.orthant(len(others)), max_regions=cap)
    seen = False
    for reg in walk:
        z = dict(zip(others, reg.point))
        act = [j for j in live if sum((P.R2[j][c] * z[c] for c in others), P.R2[j][P.n1]) > 0]
        seen |= any(sum((P.V[j][o] * P.R2[j][i] for j in act), 0 * P.R2[0][0]) != 0 for o in range(P.m))
    return seen if walk.complete else None


nz = st.integers(1, 5).flatmap(lambda k: st.sampled_from([k, -k]))


@st.composite
def planted(draw, n1):
    """A net d = n1 with W1 = I; rows of [W2 | b2] random (no zero entry) plus planted pairs for
    column i: ('same') r and r with column i changed, V' = -V x/x' (jump 0); ('flip') r and -r
    with column i changed, V' = V x/x' (jump 0, slope a constant)."""
    m = draw(st.integers(1, 2))
    i = draw(st.integers(0, n1 - 1))
    rows, cols = [], []
    for kind in draw(st.lists(st.sampled_from(["same", "flip"]), min_size=1, max_size=3)):
        r = [F(draw(nz)) for _ in range(n1 + 1)]
        V = [F(draw(nz)) for _ in range(m)]
        x2 = F(draw(nz))
        sgn = 1 if kind == "same" else -1
        if x2 == sgn * r[i]:
            x2 = 2 * x2
        r2 = [sgn * x for x in r]
        r2[i] = x2
        rows += [r, r2]
        cols += [V, [-sgn * v * r[i] / x2 for v in V]]
    for _ in range(draw(st.integers(0, 3))):
        rows.append([F(draw(nz)) for _ in range(n1 + 1)])
        cols.append([F(draw(nz)) for _ in range(m)])
    n2 = len(rows)
    W3 = [[cols[j][o] for j in range(n2)] for o in range(m)]
    I = [[int(r == c) for c in range(n1)] for r in range(n1)]
    return Network.from_rows([I, [r[:-1] for r in rows], W3], [[0] * n1, [r[-1] for r in rows], [0] * m])


def _compare(net):
    P = S.Parts.of(net)
    live = [j for j, t in enumerate(S.second_layer_types(P)) if t != S.DEAD]
    rows2 = [list(r) for r in P.R2]
    for i in range(P.n1):
        ref = _walk_visible(P, i)
        assert ref is not None          # at most 9 rows: the walk stays far below its cap
        assert (S.facet_jumps(P, live, i) is None) == ref if live else True
        if len(live) == P.n2:     # the checker's own code (it sees all-switching nets only)
            assert _visible_on_facet(rows2, [list(v) for v in P.V], P.n1, i) == ref


@pytest.mark.parametrize("n1", [3, 4])
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_jump_rule_agrees_with_the_cell_walk(n1, data):
    # three-layer-fibers §3.1 G8: the jump rule decides exactly what the walk of F_i's cells decides
    _compare(data.draw(planted(n1)))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_jump_rule_agrees_with_the_ray_listing_for_n1_two(data):
    # n1 = 2: cancelled_facet lists the cells of the ray exactly; the jump rule must agree
    net = data.draw(planted(2))
    P = S.Parts.of(net)
    types = S.second_layer_types(P)
    live = [j for j, t in enumerate(types) if t != S.DEAD]
    if not live:
        return
    wit = S.cancelled_facet(P, types)
    masked = S.masking_column(P.R2)
    fails = [i for i in range(2) if i != masked and S.facet_jumps(P, live, i) is not None]
    assert (wit is None) == (not fails)
    if wit is not None:
        assert wit["column"] == fails[0]


I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
# column 1: rows 0, 1 are (-1, ., -1 | 1) on F_1 (one hyperplane, same orientation), V W2[., 1]
# = (-1)(-1) + (1/2)(-2) = 0: jump 0, and off the hyperplane the slope is 0 too
CANCEL = Network.from_rows([I3, [[-1, -1, -1], [-1, -2, -1]], [[-1, F(1, 2)]]], [[0, 0, 0], [1, 1], [0]])
# flipped pairs: rows 0/1 are +-(1, ., -1 | -1) on F_0 with equal slopes 1 (jump 0, slope 1 on
# both sides), rows 2/3 likewise with slopes -1: the constant slope is 1 - 1 = 0
FLIP2 = Network.from_rows([I3, [[1, 1, -1], [1, -1, 1], [-1, 2, 3], [-1, -2, -3]], [[1, 1, 1, 1]]],
                          [[0, 0, 0], [-1, 1, -1, 1], [0]])


def test_planted_witnesses_exact():
    w = S.cancelled_facet(S.Parts.of(CANCEL), S.second_layer_types(S.Parts.of(CANCEL)))
    assert w["column"] == 1 and w["hyperplanes"] == [[0, 1]]
    assert [(list(map(str, c["point"])), c["active_rows"]) for c in w["cells"]] == [(["1", "0", "1"], [])]
    P = S.Parts.of(FLIP2)
    live = list(range(4))
    w = S.facet_jumps(P, live, 0)
    assert w["hyperplanes"] == [[0, 1], [2, 3]] and len(w["cells"][0]["active_rows"]) == 2
    assert _walk_visible(P, 0) is False
    g8 = next(h for h in B.genericity(FLIP2) if h.name.startswith("G8"))
    assert g8.holds is False and g8.witness["column"] == 0
    # the flip of one slope breaks the constant cancellation: visible again (slope 2 everywhere)
    P2 = S.Parts.of(Network.from_rows([I3, [[1, 1, -1], [1, -1, 1], [-1, 2, 3], [-1, -2, -3]],
                                            [[1, 1, -1, -1]]], [[0, 0, 0], [-1, 1, -1, 1], [0]]))
    assert S.facet_jumps(P2, live, 0) is None and _walk_visible(P2, 0) is True


def _random_identifiable(n1, n2, seed, m=1):
    import random
    rng = random.Random(seed)
    rows = []
    while len(rows) < n2:
        r = [F(rng.choice([-1, 1]) * rng.randint(1, 9), rng.randint(1, 4)) for _ in range(n1 + 1)]
        if any(x > 0 for x in r) and any(x < 0 for x in r):
            rows.append(r)
    W3 = [[F(rng.choice([-1, 1]) * rng.randint(1, 9)) for _ in range(n2)] for _ in range(m)]
    I = [[int(r == c) for c in range(n1)] for r in range(n1)]
    return Network.from_rows([I, [r[:-1] for r in rows], W3], [[0] * n1, [r[-1] for r in rows], [0] * m])


@pytest.mark.parametrize("n1, n2, seed", [(3, 14, 1), (4, 16, 2), (6, 12, 3)])
def test_identifiability_certificate_for_n1_at_least_three(n1, n2, seed):
    # R18 with G8 by the jump rule: the checker used to refuse more than 12 candidate rows
    net = _random_identifiable(n1, n2, seed)
    v = B.identifiability(net)
    assert v.answer is True and v.details["fiber_dimension"] == n1 + n2
    ok, why = verify(v.certificate)
    assert ok and "R18" in why


def test_checker_rejects_a_planted_cancellation_claimed_identifiable():
    # a G8-failing net (CANCEL: G0-G7 hold, rows all switching, no masked column) claimed
    # identifiable: the checker re-derives G8 itself and refuses
    cert = copy.deepcopy(B.identifiability(_random_identifiable(3, 2, 7)).certificate)
    assert verify(cert)[0]
    cert["network"] = CANCEL.to_dict()
    cert["fiber_dimension"] = 5
    ok, why = verify(cert)
    assert not ok and why.startswith("G8 fails: first-layer neuron 1")
    # ... and FLIP2 (the constant-slope branch)
    cert["network"] = FLIP2.to_dict()
    cert["fiber_dimension"] = 7
    ok, why = verify(cert)
    assert not ok and why.startswith("G8 fails: first-layer neuron 0")
    assert B.identifiability(FLIP2).answer is None


def test_checker_rejects_a_removed_kink():
    # FLIP2 plus a fifth row: its rows 0-3 have V_j W2_j summing to 0, so they flip together
    # (R18.5; this test called it identifiable before session 35's audit), and an R18
    # certificate claiming otherwise is rejected; removing the fifth row, whose kink makes
    # column 0 visible (mutating the witnessing cell away), fails G8 first
    from semialgebraic.certificates import identifiability_certificate
    extra = Network.from_rows([I3, [[1, 1, -1], [1, -1, 1], [-1, 2, 3], [-1, -2, -3], [2, -3, 5]],
                               [[1, 1, 1, 1, 1]]], [[0, 0, 0], [-1, 1, -1, 1, -7], [0]])
    v = B.identifiability(extra)
    assert v.answer is False and v.details["flip_set"] == [0, 1, 2, 3] and verify(v.certificate)[0]
    cert = identifiability_certificate(extra, {"kind": "split_sums"})
    ok, why = verify(cert)
    assert not ok and why.startswith("R18.5 fails: flip set [0, 1, 2, 3]")
    layers = cert["network"]["layers"]
    del layers[1]["weight"][4], layers[1]["bias"][4], layers[2]["weight"][0][4]
    cert["fiber_dimension"] = 7
    ok, why = verify(cert)
    assert not ok and "G8 fails" in why
