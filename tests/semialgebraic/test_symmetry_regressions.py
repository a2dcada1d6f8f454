"""Findings of the symmetry campaign (``tests/fuzz/symmetry_campaign.py``), each minimised to an
exact expected value.

1. (soundness, identify) three-layer-fibers R15/R18: for n1 = 1 the S8 kink swap is not limited
   to one non-dead row.  When every non-dead row of [W2 | b2] is (- | +) the function is constant
   for u = W1 x + b1 <= 0 and for u >= β = max b_j / a_j, and t' = relu(β − u) realises it with
   W1 negated: ``identify`` said "identifiable" for the T4 control net, ``fiber`` listed 2 of its
   4 components, ``equiv --method bottleneck`` could not decide the pair (CANON differed).
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
