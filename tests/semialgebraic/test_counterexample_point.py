"""Counterexamples with short coordinates: a point found deep inside a region (or next to a
hyperplane) can have coordinates of thousands of digits, longer than the certificate reader
accepts; :func:`shorter_point` rounds it while a(x) != b(x) stays true (decided exactly)."""

import random
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic import equivalent
from semialgebraic.certificates import shorter_point
from semialgebraic.verify import verify


def _net(rng, widths, zero=False):
    W, B = [], []
    for i, o in zip(widths, widths[1:]):
        W.append([[Fraction(rng.randint(-9, 9), rng.randint(1, 9)) for _ in range(i)] for _ in range(o)])
        B.append([Fraction(rng.randint(-9, 9), rng.randint(1, 9)) for _ in range(o)])
    if zero:
        W[1][0][0] = 0               # outside the bottleneck theory (G2)
    return Network.from_rows(W, B)


def _size(x):
    return sum(len(str(Q(v))) for v in x)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 6), st.sampled_from([None, "orthant", (Q(-1), Q(2))]))
def test_shorter_point_keeps_the_difference_and_the_domain(seed, dom):
    rng = random.Random(seed)
    a, b = _net(rng, [2, 3, 1]), _net(rng, [2, 3, 1])
    lo, hi = (0, 2) if dom == "orthant" else (-1, 2)
    x = tuple(Q(rng.randint(lo * 10 ** 30, hi * 10 ** 30), 10 ** 30 + rng.randint(1, 99)) for _ in range(2))
    y = shorter_point(a, b, x, dom)
    assert _size(y) <= _size(x)
    if a(x) != b(x):
        assert a(y) != b(y)                               # still a counterexample, exactly
    else:
        assert y == x                                     # nothing to keep: unchanged
    if dom == "orthant":
        assert all(v >= 0 for v in y)
    elif dom is not None:
        assert all(dom[0] <= v <= dom[1] for v in y)


def test_random_deep_pair_gets_a_short_verified_counterexample():
    """Two random 64-32-16-10 nets outside the bottleneck theory: the counterexample used to have
    coordinates of 1 000+ characters (10 000+ on other seeds, beyond what the reader accepts)."""
    rng = random.Random(5)
    a, b = _net(rng, [64, 32, 16, 10], True), _net(rng, [64, 32, 16, 10], True)
    v = equivalent(a, b)
    assert v.answer is False and verify(v.certificate)[0]
    assert max(len(str(c)) for c in v.certificate["x"]) < 40
