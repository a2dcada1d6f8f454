"""R16a / R16b / R16c under G0-G8 (three-layer-fibers §6): where G8 enters each proof.

R16a (n1 = 1): the proof reads the strata off F alone and never uses G8; the strata whose points
fail G8 are exactly the masked strata with a clipped row (`Stratum.engine_generic` False), and on
every stratum whose point passes G0-G8 R16a's count equals R17.  R16b: G8 is vacuous at the
all-dead points.  R16c: G8 with no masked column is the visibility hypothesis, so `fiber` no longer
runs its own (sufficient) ray test, which called visible hyperplanes hidden and the listing
"partial"."""

import pytest

from algebra.network import Network
from semialgebraic import bottleneck as B
from semialgebraic.bottleneck import _structure as S
from semialgebraic.bottleneck.one_neuron import one_neuron_strata, representative
from tests.semialgebraic.test_fiber_one_neuron import G3NET, MULTI, RAMP


def _g8(net):
    return next(h for h in B.genericity(net) if h.name.startswith("G8")).holds


@pytest.mark.parametrize("net, failing", [(RAMP, 2), (MULTI, 0), (G3NET, 3)])
def test_R16a_strata_failing_G8_are_the_masked_clipped_ones(net, failing):
    P = S.Parts.of(net)
    strata, _, _ = one_neuron_strata(net, P)
    bad = 0
    for st in strata:
        rep = representative(net, P, st)
        assert _g8(rep) is st.engine_generic
        assert st.engine_generic is not (st.masked and "clipped" in st.types)
        bad += not st.engine_generic
        if S.is_generic(rep):                 # G0-G8 at the stratum's point: R16a's count is R17
            assert S.dimension_formula(rep).value == st.dimension
    assert bad == failing


def test_R16b_G8_is_vacuous_at_the_all_dead_points():
    net = Network.from_rows([[[1, 0], [0, 1]], [[-1, -2], [-3, -1]], [[1, 2]]], [[0, 0], [-1, -2], [5]])
    assert [h.holds for h in B.genericity(net)] == [True] * 9
    assert S.cancelled_facet(S.Parts.of(net), S.second_layer_types(S.Parts.of(net))) is None
    assert B.dimension_formula(net).value == net.n_parameters - 1


I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
# G0-G8 hold; on the diagonal ray of F_1 (z = (t, 0, t)) the slope never jumps, so the old
# sufficient test of `fiber` called H_1 hidden and the listing "partial"; by G8 H_1 is visible
RAY = Network.from_rows([I3, [[-2, -3, -2], [1, 3, -1], [-3, -2, -3], [1, -2, -1]], [[2, -2, 2, 1]]],
                        [[0, 0, 0], [-1, -1, -2, -2], [0]])
# no linear row, one dead row: R16c finds no stratum with other numbers of linear and dead rows
RAY_DEAD = Network.from_rows([I3, [[-2, -2, -2], [-1, 2, -3], [-2, 2, 1]], [[1, 1, 1]]],
                             [[0, 0, 0], [-3, -3, -2], [0]])


def test_R16c_visibility_is_G8_and_the_listing_is_complete():
    F = B.fiber_bottleneck(RAY)
    j = F.to_json()
    assert j["listing"] == "complete" and j["notes"] == []
    assert j["dimension"] == j["jacobian_dimension"] == 15 and j["number_of_strata"] == 288
    assert sorted((tuple(c.label["flips"]), c.label["linear"]) for c in F.components) == [
        ((), 0), ((1,), 2), ((1, 3), 2), ((3,), 2)]
    F = B.fiber_bottleneck(RAY_DEAD)
    assert F.to_json()["listing"] == "complete" and F.notes == []
    assert F.dimension.value == F.fibdim == 10 and len(F.components) == 1


def test_masked_column_dead_rows_recruited_flip_is_a_G8_failing_point():
    # the open case of R16c's "what fiber does" (masked column and a dead row: "partial"): the
    # flip of the masked-pattern row absorbed by two recruited (formerly dead) linear rows is in
    # the fiber, passes G0-G7 but fails G8 (H_0 hidden without the masking pattern) and its local
    # dimension is below the fiber's: a non-generic point (gap (iii)), not a missing generic stratum
    from semialgebraic import equivalent, verify
    I2 = [[1, 0], [0, 1]]
    theta = Network.from_rows([I2, [[2, -1], [-1, -2], [-2, -1]], [[1, 3, 5]]], [[0, 0], [-1, -1, -3], [0]])
    flip = Network.from_rows([I2, [[-2, 1], [3, 1], [1, 2]], [[1, 1, -1]]], [[0, 0], [1, 1, 1], [-1]])
    assert S.is_generic(theta) and B.dimension_formula(theta).value == B.jacobian_dimension(theta) == 12
    v = equivalent(theta, flip)
    assert v.answer is True and verify(v.certificate)[0]
    hs = B.genericity(flip)
    assert all(h.holds for h in hs[:8]) and hs[8].holds is False and hs[8].witness["column"] == 0
    assert B.jacobian_dimension(flip) == 10
    F = B.fiber_bottleneck(theta)
    assert F.to_json()["listing"] == "partial"
