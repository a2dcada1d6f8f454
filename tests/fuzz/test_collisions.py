"""Bounded sample of the collision hunt (``tests/fuzz/collisions.py``)."""

from fractions import Fraction as F

import pytest

from tests.fuzz.collisions import fingerprint, hunt, normal_form, same_function


def test_fingerprint_and_normal_form():
    a = [([[F(1)]], [F(3, 2)]), ([[F(1, 2)], [F(-1, 2)]], [F(-1), F(-1)]), ([[F(2), F(-3, 2)]], [F(1, 2)])]
    b = [([[F(2)]], [F(-1)]), ([[F(1, 2)], [F(-1)]], [F(2), F(-1, 2)]), ([[F(1), F(-1)]], [F(-3, 2)])]
    assert fingerprint(a) == fingerprint(b) == (1, ((F(1, 2), F(1, 2)),), F(0), F(1), ())
    assert normal_form(a) != normal_form(b)
    # S1 + S2 image of a: same normal form
    c = [([[F(3)]], [F(9, 2)]), ([[F(-1, 6)], [F(1, 6)]], [F(-1), F(-1)]), ([[F(-3, 2), F(2)]], [F(1, 2)])]
    assert normal_form(a) == normal_form(c)
    import random
    assert same_function(a, b, random.Random(0)) and same_function(a, c, random.Random(0))


def test_collision_hunt_sample():
    findings, stats, _ = hunt(seed=1, count=400, verbose=False)
    assert findings == []
    assert stats["pairs"] >= 10


def test_strata_sampler_on_the_glued_pair():
    """three-layer-fibers R16a: random points of every stratum of relu(x − 1/2) + 1/2 (built from
    the labels alone) compute the function and lie in their components; the hunter's check of the
    pair (masked net, linear-row net) finds each in the other's fiber."""
    import random
    from tests.fuzz.collisions import check_pair, check_strata, sample_stratum
    a = [([[F(1)]], [F(3, 2)]), ([[F(1, 2)], [F(-1, 2)]], [F(-1), F(-1)]), ([[F(2), F(-3, 2)]], [F(1, 2)])]
    b = [([[F(2)]], [F(-1)]), ([[F(1, 2)], [F(-1)]], [F(2), F(-1, 2)]), ([[F(1), F(-1)]], [F(-3, 2)])]
    findings, tally = check_strata(a, random.Random(3), per_stratum=3)
    assert findings == [] and tally["strata points"] == 12
    fs, t = check_pair(a, b)
    assert fs == [] and t["fiber True"] == 2
    lab = {"orientation": 1, "first_layer_kink": "masked", "kink_rows": ["clipped"], "linear": 1,
           "dead": 0}
    (W1, b1), (W2, b2), (W3, b3) = sample_stratum(a, lab, random.Random(0))
    assert W2[0][0] < 0 < b2[0] and W2[1][0] > 0 and b2[1] > 0 and -b1[0] / W1[0][0] < F(1, 2)


@pytest.mark.slow
def test_strata_campaign_sample():
    from tests.fuzz.collisions import strata_campaign
    findings, tally = strata_campaign(seed=5, count=25, verbose=False)
    assert findings == [] and tally["strata points"] >= 100


def test_pool_strata_sampler_on_the_recruited_pair():
    """three-layer-fibers R16c: random points of every stratum of the gap-(iv) reproducer (one
    dead row, two (−, − | +) rows), drawn from the labels alone in fractions, compute the
    function and lie in their components (4 strata × 3 points)."""
    import random
    from tests.fuzz.collisions import check_pool_strata
    a = [([[F(-3), F(2)], [F(2), F(1)]], [F(-3), F(-1)]),
         ([[F(-2), F(-4, 3)], [F(-5, 2), F(-3)], [F(-1, 2), F(-1)]], [F(-3, 2), F(1), F(5, 2)]),
         ([[F(-2), F(1), F(-5, 2)]], [F(-1)])]
    findings, tally = check_pool_strata(a, random.Random(0), per_stratum=3)
    assert findings == [] and tally["strata points"] == 12 and tally["complete"] == 1


@pytest.mark.slow
def test_pool_strata_campaign_sample():
    from tests.fuzz.collisions import strata_campaign
    findings, tally = strata_campaign(seed=3, count=30, verbose=False, n1=2)
    assert findings == [] and tally["strata points"] >= 20
