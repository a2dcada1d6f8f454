"""Bounded sample of the collision hunt (``tests/fuzz/collisions.py``)."""

from fractions import Fraction as F

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
