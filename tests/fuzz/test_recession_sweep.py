"""A bounded sample of ``tests/fuzz/recession_sweep.py``: ``diff`` on R^d and the orthant for
d = 3 and 4 against z3's optimum (issue 15; three-layer-fibers R28 for the rays, R29 and R33 for
the tails, R33's carried pair for a deepened copy of a).  ``python -m tests.fuzz.recession_sweep
--seed S --count N`` runs more."""

from fractions import Fraction as F

import pytest

pytest.importorskip("z3")

from tests.fuzz.recession_sweep import make_case, run_case  # noqa: E402


@pytest.mark.parametrize("seed,kind", [(2, "f16w"), (3, "perturb"), (8, "f16w"), (14, "f16w")])
def test_weight_changes_are_unbounded_with_a_verified_ray_and_z3_agrees(seed, kind):
    c = run_case(seed, None, 60.0)
    assert (c["kind"], c["verdict"], c["z3"], c["wrong"]) == (kind, "inf", "inf", [])
    assert c["lower"] >= 1                   # the ray's point: |a - b| >= 1, evaluated exactly


def test_a_float16_copy_of_its_biases_is_exact_in_d4_on_the_orthant():
    c = run_case(19, None, 60.0)
    assert (c["kind"], c["d"], c["domain"], c["verdict"], c["wrong"]) == ("f16", 4, "orthant", "exact", [])
    assert c["lower"] == c["upper"] and F(str(c["upper"])) == c["z3"] == F(4057480609, 4398046511104)


@pytest.mark.parametrize("seed,d,name,truth", [(23, 4, "orthant", F(37, 16))])
def test_a_deepened_copy_is_exact_by_the_carried_pair(seed, d, name, truth):
    # a of depth 3, b = a deepened by 2 layers (biases shifted): bounded without a cone proof
    # (same_weights_deepened), the tail by the homogenised network of two depths (R33)
    kind, d_, dom, a, b = make_case(seed, (3, 2))
    assert (kind, d_, dom, len(a), len(b)) == ("deep", d, name, 3, 5)
    c = run_case(seed, None, 60.0, hidden=(3, 2))
    assert (c["verdict"], c["tail"], c["wrong"]) == ("exact", "homogenised", [])
    assert F(str(c["upper"])) == c["z3"] == truth
