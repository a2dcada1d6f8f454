"""G8 (three-layer-fibers §3.1): a first-layer neuron that is not masked (R4) but whose kink
cancels on every cell of its facet F_i makes R17 too small by one; such nets pass G0-G7 and are
now refused with the G8 witness by every bottleneck decision (R17, R18, CANON, fiber)."""

from fractions import Fraction as F

import pytest

from algebra.network import Network
from semialgebraic import bottleneck as B
from semialgebraic.bottleneck import _structure as S
from semialgebraic.exceptions import NonGenericError

I2 = [[1, 0], [0, 1]]
# the session-17 hunt net: two bent lines (rows 2, 3) and the axis z2 = 0 meet in (1, 0), and
# V_2 W2[2,1] + V_3 W2[3,1] = 1 - 1 = 0: first-layer neuron 1 shows no kink anywhere
HUNT = Network.from_rows([I2, [[-1, -1], [-1, -1], [-1, -1], [-1, -2]], [[-1, -1, -1, F(1, 2)]]],
                         [[0, 0], [-1, F(-1, 2), 1, 1], [0]])
# the same without the dead rows: R18 used to answer "identifiable, fiber dimension 4"
SWITCHING_ONLY = Network.from_rows([I2, [[-1, -1], [-1, -2]], [[-1, F(1, 2)]]], [[0, 0], [1, 1], [0]])
# hunt regressions (n1 = 1: both rows active at z = 0 and -1/3 * -3/2 + 1/2 * -1 = 0; n1 = 3)
N1_ONE = Network.from_rows([[[1]], [[F(-3, 2)], [-1]], [[F(-1, 3), F(1, 2)]]],
                           [[0], [F(1, 3), F(3, 2)], [0]])
N1_THREE = Network.from_rows([[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[-1, -1, -1], [-1, -2, -1]],
                              [[-1, F(1, 2)]]], [[0, 0, 0], [1, 1], [0]])
# test_fidelity's P9 net: the kink of column 0 cancels only on the cell 1/2 < z2 < 1 of F_0
PARTIAL = Network.from_rows([[[1, 2], [3, 1]], [[1, -1], [-1, 2]], [[1, 1]]], [[1, -1], [1, -1], [0]])


def _g8(net):
    return next(h for h in B.genericity(net) if h.name.startswith("G8"))


def _raw_r17(net, monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(S, "cancelled_facet", lambda P, types, trace=None: None)
        return B.dimension_formula(net).value


@pytest.mark.parametrize("net, column, r17, fibdim", [(HUNT, 1, 12, 13), (SWITCHING_ONLY, 1, 4, 5),
                                                      (N1_ONE, 0, 3, 4), (N1_THREE, 1, 5, 6)])
def test_G8_refuses_the_cancelled_kink(net, column, r17, fibdim, monkeypatch):
    # three-layer-fibers §3.1 G8 and R17: G0-G7 hold, R17 (ignoring G8) is one short of FIBDIM (R22)
    hs = B.genericity(net)
    assert all(h.holds for h in hs[:8])
    g8 = _g8(net)
    assert g8.holds is False and g8.witness["column"] == column
    assert _raw_r17(net, monkeypatch) == r17
    assert B.jacobian_dimension(net) == fibdim
    assert B.dimension_formula(net).value is None
    assert not B.is_generic(net)
    assert B.identifiability(net).answer is None
    with pytest.raises(NonGenericError, match="G8"):
        B.canonical_form(net)
    with pytest.raises(NonGenericError, match="G8"):
        B.fiber_bottleneck(net)


def test_G8_hunt_net_witness_cells():
    # the witness: on F_1 (z2 = 0) the cell 0 < z1 < 1 has rows 2, 3 active (slope 0), z1 > 1 none
    w = _g8(HUNT).witness
    assert [([str(x) for x in c["point"]], c["active_rows"]) for c in w["cells"]] == [
        (["1/2", "0"], [2, 3]), (["2", "0"], [])]


def test_G8_partial_cancellation_is_generic():
    # R4: a hyperplane is fixed by any open piece; the cancellation on one cell is harmless
    assert _g8(PARTIAL).holds is True
    assert B.dimension_formula(PARTIAL).value == B.jacobian_dimension(PARTIAL) == 4


def test_verifier_rejects_the_old_identifiability_certificate():
    # the certificate R18 issued for SWITCHING_ONLY before G8 (fiber dimension n1 + n2 = 4; FIBDIM 5)
    from semialgebraic.verify import verify
    cert = {"format": "netfibers.certificate", "type": "identifiability_hypotheses",
            "schema_version": 1, "netfibers_version": "0.1.0",
            "claim": "identifiable up to permutation and positive scaling (three-layer-fibers R18, "
                     "a derived criterion)",
            "network": SWITCHING_ONLY.to_dict(), "fiber_dimension": 4}
    ok, reason = verify(cert)
    assert ok is False and reason.startswith("G8 fails: first-layer neuron 1")


def test_bounded_hunt_r17_equals_fibdim_on_generic_nets():
    # the session-17 hunt, bounded: n1 in {1, 2}, W1 = I, entries ±{1, 1/2, 2, 3/2, 1/3}, entries
    # copied between rows, half the nets with a planted cancellation V_j' W2[j',i] = -V_j W2[j,i];
    # every net passing G0-G8 has R17 = FIBDIM, and G8 is what refuses the planted ones
    import random
    rng = random.Random(1)
    vals = [F(1), F(1, 2), F(2), F(3, 2), F(1, 3)]
    seen = {"generic": 0, "G8": 0}
    for _ in range(150):
        n1, n2, m = rng.choice((1, 2)), rng.randint(1, 4), rng.choice((1, 1, 2))
        rows = [[rng.choice((-1, 1)) * rng.choice(vals) for _ in range(n1 + 1)] for _ in range(n2)]
        for j in range(1, n2):
            if rng.random() < 0.5:
                k = rng.randrange(n1 + 1)
                rows[j][k] = rows[rng.randrange(j)][k]
        W3 = [[rng.choice((-1, 1)) * rng.choice(vals) for _ in range(n2)] for _ in range(m)]
        if rng.random() < 0.5 and n2 >= 2:
            j, jj = rng.sample(range(n2), 2)
            i = rng.randrange(n1)
            for o in range(m):
                W3[o][jj] = -W3[o][j] * rows[j][i] / rows[jj][i]
        net = Network.from_rows([[[int(a == b) for b in range(n1)] for a in range(n1)],
                                 [r[:n1] for r in rows], W3], [[0] * n1, [r[n1] for r in rows], [0] * m])
        bad = next((h for h in B.genericity(net) if not h.holds), None)
        if bad is None:
            seen["generic"] += 1
            assert B.dimension_formula(net).value == B.jacobian_dimension(net)
        elif bad.name.startswith("G8"):
            seen["G8"] += 1
    assert seen == {"generic": 135, "G8": 3}
