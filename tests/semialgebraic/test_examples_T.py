"""Every acceptance example of three-layer-fibers §9 except T10 (conservation), and P5, read
from the bundled files ``algebra/examples/*.json``, with its stated answer."""

from importlib import resources

import pytest

from algebra import load
from algebra.rationals import Q
from semialgebraic.bottleneck import (dimension_formula, equivalent_bottleneck, identifiability,
                                      jacobian_dimension, structure)
from semialgebraic.shallow import positive_factor_rank
from semialgebraic.verify import verify


def ex(name):
    return load(str(resources.files("algebra") / "examples" / f"{name}.json"))


EQUAL = [("t1_masked", "t1_translated_7_5"), ("t1_masked", "t1_translated_m9_10"),
         ("t2_linear_a", "t2_linear_b"), ("t3_dead_a", "t3_dead_b"), ("t4_kink_a", "t4_kink_b"),
         ("t4_variant_a", "t4_variant_b"), ("t5_perm_scale_a", "t5_perm_scale_b"),
         ("t6_flip_a", "t6_flip_b"), ("t7_signflip_a", "t7_signflip_b"),
         ("t7_control_dead_a", "t7_control_dead_b"), ("t11_large_bias", "t11_theta_prime"),
         ("masked_bottleneck", "t1_translated_7_5")]

DIFFERENT = [("t1_masked", "t1_translated_2", (-2, 0), 0, 1),
             ("t1_masked", "t1_translated_m3_2", (0, 0), 0, Q(1, 2)),
             ("t2_linear_a", "t2_control", (0, 0), 2, 3),
             ("t3_dead_a", "t3_control", (0, 0), 0, 7),
             ("t4_control_a", "t4_control_b", (0,), 13, Q(11, 2)),
             ("t6_flip_a", "t6_control", (0, 0), 1, Q(101, 100)),
             ("t7_signflip_a", "t7_control_noshear", (1, Q(-1, 2)), 1, Q(1, 2)),
             ("t7_control_two_a", "t7_control_two_b", (1, Q(-1, 2)), 2, Q(9, 4)),
             ("t11_large_bias", "t11_theta_second", (Q(-7, 2), 0), Q(1, 2), 1)]


@pytest.mark.parametrize("a, b", EQUAL)
def test_equal(a, b):
    v = equivalent_bottleneck(ex(a), ex(b))
    assert v.answer is True
    assert v.certificate["type"] == "symmetry_path" and verify(v.certificate)[0]


@pytest.mark.parametrize("a, b, x, fa, fb", DIFFERENT)
def test_different(a, b, x, fa, fb):
    A, B = ex(a), ex(b)
    assert A(x) == (Q(fa),) and B(x) == (Q(fb),)        # the stated witness
    v = equivalent_bottleneck(A, B)
    assert v.answer is False and verify(v.certificate)[0]


def test_T1_end_points_non_generic():
    A = ex("t1_masked")
    B = ex("t1_endpoint_3_2")
    for x in [(-2, 0), (0, 0), (1, 3), (Q(-1, 3), Q(5, 2))]:
        assert A(x) == B(x)
    v = equivalent_bottleneck(A, B)
    assert v.answer is None and "G2" in v.reason
    s = structure(A)
    assert s.s6_interval == (Q(-1), Q(3, 2)) and s.masked == 0


def test_T2_kappa():
    s = structure(ex("t2_linear_a"))
    k, wit = positive_factor_rank(s.Gamma)
    assert k == 2 == s.kappa_plus
    assert s.Gamma.to_rows() == [[-2, 1]] and s.gamma == (4,)


def test_T5_identifiable():
    v = identifiability(ex("t5_perm_scale_a"))
    assert v.answer is True and v.details["fiber_dimension"] == 4


def test_T6_linear_block():
    s = structure(ex("t6_flip_a"))
    assert s.Gamma.to_rows() == [[3, 4]] and s.gamma == (1,)


@pytest.mark.parametrize("name, dim", [("t8_masked_col0", 4), ("t8_switching", 3),
                                       ("t9_three_masked", 7), ("p5_rank2", 8)])
def test_T8_T9_dimensions(name, dim):
    net = ex(name)
    assert dimension_formula(net).value == dim == jacobian_dimension(net)


def test_P5_counterexample_to_naive_formula():
    net = ex("p5_rank1")
    assert jacobian_dimension(net) == 8
    assert dimension_formula(net).value is None          # non-generic: R17 refused
    v = identifiability(net)
    assert v.answer is None and "G6" in v.reason


def test_T11_invariant_is_not_a_parameter():
    from semialgebraic.bottleneck import canonical_form
    c = canonical_form(ex("t11_large_bias"))
    assert c.first[-1][-1] == 0
    assert structure(ex("t11_large_bias")).s6_interval == (Q(-1), None)
