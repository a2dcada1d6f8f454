"""Findings of the symmetry campaign (``tests/fuzz/symmetry_campaign.py``), each minimised to an
exact expected value.

1. (soundness, identify) three-layer-fibers R15/R18: for n1 = 1 the S8 kink swap is not limited
   to one non-dead row.  When every non-dead row of [W2 | b2] is (- | +) the function is constant
   for u = W1 x + b1 <= 0 and for u >= β = max b_j / a_j, and t' = relu(β − u) realises it with
   W1 negated: ``identify`` said "identifiable" for the T4 control net, ``fiber`` listed 2 of its
   4 components, ``equiv --method bottleneck`` could not decide the pair (CANON differed).
2. (fiber completeness) three-layer-fibers R14: S7 with several non-dead rows of equal ratios
   (below).
"""

import copy

from algebra.io import network_from_dict
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.bottleneck import KinkSwap, kink_swap
from semialgebraic import equivalent, fiber, identifiability, verify
from tests.cases.bottleneck import T4ca, T5a

# T4ca: u ↦ relu(3 − 2 relu(u)) + 5 relu(2 − relu(u)); its kink swap (three-layer-fibers R15)
T4C_SWAP = Network.from_rows([[[-1]], [[-2], [-1]], [[1, -7]]], [[2], [1, 2], [13]])


def test_t4_control_kink_swap_is_a_symmetry():
    for x, y in [(-1, 13), (0, 13), (Q(1), 6), (Q(3, 2), Q(5, 2)), (Q(7, 4), Q(5, 4)), (2, 0), (5, 0)]:
        assert T4ca([x]) == (Q(y),) == T4C_SWAP([x])
    assert KinkSwap().apply(T4ca) == T4C_SWAP and KinkSwap().apply(T4C_SWAP) == T4ca
    assert kink_swap([Q(1)], Q(0), {0: (Q(2), Q(3)), 1: (Q(1), Q(2))}, {0: [Q(1)], 1: [Q(5)]},
                     [Q(0)]) == ([-1], 2, {0: 1, 1: 2}, {0: [1], 1: [-7]}, [13])


def test_identify_t4_control_is_not_identifiable():
    v = identifiability(T4ca)
    assert v.answer is False
    assert "S8" in v.reason
    assert v.certificate["steps"] == [{"step": "S8"}]
    assert network_from_dict(v.certificate["b"]) == T4C_SWAP
    assert verify(v.certificate)[0]


def test_identifiability_certificate_for_t4_control_rejected():
    """An 'identifiable' certificate (T5's, network replaced by T4ca) must not verify."""
    c = copy.deepcopy(identifiability(T5a).certificate)
    c["network"] = identifiability(T4ca).certificate["a"]
    c["fiber_dimension"] = 3
    ok, why = verify(c)
    assert not ok and "S8" in why


def test_three_rows_and_a_dead_row():
    """n1 = 1, d = 2: rows (−1 | 1), (−2 | 5), (−1 | 3) and a dead row; the swap keeps the dead
    row, the function, and makes identify answer False and equiv --method bottleneck True."""
    a = Network.from_rows([[[1, -2]], [[-1], [-2], [-1], [-1]], [[2, -1, 3, 7]]],
                          [[Q(1, 2)], [1, 5, 3, -1], [1]])
    b = KinkSwap().apply(a)
    # β_j = 1, 5/2, 3: β = 3 at j0 = 2; b2_j -> a_j β − b_j = 2, 1; v_{j0} -> −(2 − 2 + 3) / 1;
    # b3 -> 1 + (2 − 5 + 9); b1 -> 3 − 1/2
    assert b == Network.from_rows([[[-1, 2]], [[-1], [-2], [-1], [-1]], [[2, -1, -3, 7]]],
                                  [[Q(5, 2)], [2, 1, 3, -1], [7]])
    for x in ([0, 0], [1, 0], [0, 1], [3, -1], [-2, -2], [Q(7, 3), Q(1, 5)]):
        assert a([Q(v) for v in x]) == b([Q(v) for v in x])
    assert identifiability(a).answer is False
    assert equivalent(a, b, method="bottleneck").answer is True


def test_fiber_of_t4_control_has_the_swapped_components():
    f = fiber(T4ca).to_json()
    assert (f["dimension"], f["number_of_components"], f["number_of_orbits"]) == (3, 4, 1)
    assert f["symmetries"] == ["S1", "S2", "S8"]
    assert sorted(c["label"]["s8"] for c in f["components"]) == [False, True]
    assert fiber(T4ca).contains(T4C_SWAP)


# 2. (fiber completeness) three-layer-fibers R14: S7 is not limited to one non-dead row.  When
#    every non-dead row has the masking pattern for i and the same ratio W2[j,k] / W2[j,i], the
#    flip of k with the shear of i works for every row at once: ``fiber`` listed 1 of the 2
#    components up to permutation (number_of_components 4 instead of 8), ``equiv --method
#    bottleneck`` could not decide the pair.
S7A = Network.from_rows([[[1, 0], [0, 1]], [[2, -1], [4, -2]], [[1, 1]]], [[0, 0], [-1, -3], [0]])
S7B = Network.from_rows([[[1, Q(-1, 2)], [0, -1]], [[2, -1], [4, -2]], [[1, 1]]], [[0, 0], [-1, -3], [0]])


def test_s7_with_two_rows_of_equal_ratio():
    from algebra.symmetries.bottleneck import SignFlip, s7_flippable
    for x in ([0, 0], [1, 0], [3, 1], [2, -1], [Q(1, 3), 5], [-1, -1], [4, 3]):
        assert S7A([Q(v) for v in x]) == S7B([Q(v) for v in x])
    assert S7A([Q(3), Q(1)]) == (Q(11),)        # relu(6 - 1 - 1) + relu(12 - 2 - 3)
    assert s7_flippable([(2, -1, -1), (4, -2, -3)], 0) == [1]
    assert SignFlip(0, [1]).check(S7A)[0] and SignFlip(0, [1]).apply(S7A) == S7B
    f = fiber(S7A).to_json()
    assert (f["dimension"], f["number_of_components"]) == (5, 8)
    assert f["symmetries"] == ["S1", "S2", "S6", "S7"]
    assert [c["label"]["s7"] for c in f["components"]] == [[], [1]]
    v = equivalent(S7A, S7B, method="bottleneck")
    assert v.answer is True and verify(v.certificate)[0]
    assert identifiability(S7A).answer is False


def test_s7_unequal_ratios_still_refused():
    from algebra.symmetries.bottleneck import SignFlip
    net = Network.from_rows([[[1, 0], [0, 1]], [[2, -1], [3, -1]], [[1, 1]]], [[0, 0], [-1, -2], [0]])
    ok, why = SignFlip(0, [1]).check(net)
    assert not ok and "ratio" in why
    assert fiber(net).to_json()["symmetries"] == ["S1", "S2", "S6"]


# Findings of the collision hunt (``tests/fuzz/collisions.py``: nets bucketed by an exact
# fingerprint of their function, pairs not related by S1/S2 checked against netfibers).
# 3. (fiber completeness, constant f) three-layer-fibers R16b: for a constant function ``fiber``
#    lists the open stratum where every second-layer row is dead, which is every point passing
#    the genericity checks; non-generic points (a zero output column, rows constant on the first layer's image)
#    also realise the function: a note says the listing is partial.
# 4. (fiber completeness, n1 = 1) three-layer-fibers R16a: the masked neuron's S6 segment ends
#    where a row's b2[j] reaches 0 and continues into a stratum where that row is linear (S4):
#    relu(x − 1/2) + 1/2 is both a masked-neuron net and a linear-row net.  Fixed: for n1 = 1
#    ``fiber`` lists every stratum (R16a) and counts the strata glued by g1-g3 as one component.

def _frac_net(rows, biases):
    return Network.from_rows(rows, biases)


def _permutations_of(net):
    """All hidden-neuron permutations of a d-n1-n2-1 net (components are closed under S2)."""
    import itertools
    (W1, b1), (W2, b2), (W3, b3) = [(net.layer(k)[0].to_rows(), list(net.layer(k)[1]))
                                    for k in range(3)]
    for p1 in itertools.permutations(range(len(b1))):
        for p2 in itertools.permutations(range(len(b2))):
            yield Network.from_rows(
                [[W1[i] for i in p1], [[W2[j][i] for i in p1] for j in p2],
                 [[W3[0][j] for j in p2]]],
                [[b1[i] for i in p1], [b2[j] for j in p2], list(b3)])


def _listed(fib, other):
    return any(c.contains(p.parameters()) for c in fib.components for p in _permutations_of(other))


CONST_A = _frac_net([[[2]], [[-1]], [[-2]]], [[Q(-1, 2)], [-2], [0]])
CONST_B = _frac_net([[[0]], [[0]], [[Q(1, 2)]]], [[1], [2], [-1]])


def test_constant_function_fiber_says_it_is_partial():
    """R16b: the all-dead stratum is every generic point; CONST_B (W1 = 0, W2 = 0) is not."""
    for x in (-3, 0, Q(1, 4), 1, 7):
        assert CONST_A([Q(x)]) == (Q(0),) == CONST_B([Q(x)])
    f = fiber(CONST_A)
    assert (f.dimension.value, f.number_of_components) == (5, 1)
    assert not _listed(f, CONST_B) and _listed(f, CONST_A)
    assert len(f.notes) == 1 and f.notes[0].startswith("constant function: the points that pass")
    assert f.partial and f.to_json()["listing"] == "partial"
    assert identifiability(CONST_A).answer is False
    assert equivalent(CONST_A, CONST_B).answer is True


# relu(x − 1/2) + 1/2: a masked first-layer neuron (row (+|−) switching at h = 2) and a linear row
MASKED = _frac_net([[[1]], [[Q(1, 2)], [Q(-1, 2)]], [[2, Q(-3, 2)]]], [[Q(3, 2)], [-1, -1], [Q(1, 2)]])
LINEAR = _frac_net([[[2]], [[Q(1, 2)], [-1]], [[1, -1]]], [[-1], [2, Q(-1, 2)], [Q(-3, 2)]])


def test_masked_and_linear_strata_glued_for_one_first_layer_neuron():
    """R16a for relu(x − 1/2) + 1/2 on 1-1-2-1: strata (masked | sw, dead) dim 6, (masked | clip,
    lin) dim 5 (the linear row cancels the clipped row's slope at the first-layer kink), (visible |
    lin, dead) dim 6, (visible | lin, lin) dim 6; 2 + 2 + 2 + 1 = 7 labelled strata, glued by
    g1 (b2 → 0), g2 (dead ↔ linear) into one component."""
    for x in (-5, -1, 0, Q(1, 2), 1, Q(7, 3), 10):
        y = max(Q(x) - Q(1, 2), Q(0)) + Q(1, 2)
        assert MASKED([Q(x)]) == (y,) == LINEAR([Q(x)])
    fm, fl = fiber(MASKED), fiber(LINEAR)
    assert fm.to_json()["symmetries"] == ["S1", "S2", "S3", "S6"]
    assert fl.to_json()["symmetries"] == ["S1", "S2", "S3", "S4"]
    assert _listed(fm, LINEAR) and _listed(fl, MASKED) and _listed(fm, MASKED)
    for f in (fm, fl):
        j = f.to_json()
        assert f.notes == [] and j["listing"] == "complete"
        assert (j["dimension"], j["number_of_components"], j["number_of_strata"]) == (6, 1, 7)
        assert sorted((c["label"]["stratum"]["first_layer_kink"],
                       tuple(c["label"]["stratum"]["kink_rows"]), c["label"]["stratum"]["linear"],
                       c["label"]["stratum"]["dead"], c["dimension"]) for c in j["components"]) == [
            ("masked", ("clipped",), 1, 0, 5), ("masked", ("switching",), 0, 1, 6),
            ("visible", (), 1, 1, 6), ("visible", (), 2, 0, 6)]
        for c in f.components:       # every representative computes relu(x − 1/2) + 1/2
            assert c.contains(c.representative)
            for x in (-3, 0, Q(1, 2), Q(3, 4), 2, 9):
                assert c.representative([Q(x)]) == MASKED([Q(x)])
    assert identifiability(MASKED).answer is False and identifiability(LINEAR).answer is False
    v = equivalent(MASKED, LINEAR)
    assert v.answer is True and verify(v.certificate)[0]


def test_no_partial_note_when_a_row_is_minus_plus():
    """T4ca (n1 = 1, rows (− | +)): no masked/linear gluing, so no note."""
    assert fiber(T4ca).notes == []


def test_a_partial_listing_says_so_in_json_and_text():
    """A constant function's listing leaves the non-generic points out (R16b): JSON ``listing`` is
    ``partial`` and the printed counts say they count the listed strata only; n1 = 1 lists all."""
    from semialgebraic.commands.bottleneck import fiber_text
    fc = fiber(CONST_A)
    assert fc.partial and fc.to_json()["listing"] == "partial"
    assert "number of components: 1 (of the listed strata only" in fiber_text(fc)
    for net in (T4ca, MASKED):
        ft = fiber(net)
        assert not ft.partial and ft.to_json()["listing"] == "complete"
        assert "listed strata only" not in fiber_text(ft)
