"""The exact domain object (issue 15, domains): boxes, balls, the orthant, box ∩ half-spaces;
membership checked against Fraction arithmetic; the older forms; JSON round trips."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from algebra.exceptions import InputError
from algebra.kernel import domain_rows
from algebra.kernel.domains import Domain
from algebra.rationals import Q


def _inside(lo, hi, hs, x) -> bool:          # the oracle: plain Fractions
    ok = all((a is None or a <= v) and (b is None or v <= b) for a, b, v in zip(lo, hi, x))
    return ok and all(sum(Fraction(c) * v for c, v in zip(a, x)) <= Fraction(b) for a, b in hs)


@pytest.mark.parametrize("seed", range(5))
def test_contains_and_rows_agree_with_fractions(seed):
    rng = random.Random(seed)
    d = rng.randint(1, 4)
    lo = [None if rng.random() < 0.2 else Fraction(rng.randint(-4, 0), rng.randint(1, 3)) for _ in range(d)]
    hi = [None if rng.random() < 0.2 else Fraction(rng.randint(0, 4), rng.randint(1, 3)) for _ in range(d)]
    hs = [([rng.randint(-2, 2) for _ in range(d)], Fraction(rng.randint(-2, 3), 2)) for _ in range(2)]
    D = Domain(lo, hi, hs)
    for _ in range(40):
        x = [Fraction(rng.randint(-12, 12), rng.randint(1, 4)) for _ in range(d)]
        assert D.contains(x) == _inside(lo, hi, hs, x)
    assert Domain.from_json(D.to_json()) == D
    kept = [h for h in hs if any(h[0]) or h[1] < 0]   # 0·x <= b, b >= 0: no row (session 48)
    assert len(D.rows()) == sum(v is not None for v in lo + hi) + len(kept)


def test_forms_and_legacy():
    assert Domain.cube(3, Q(-1), Q(2)).legacy() == (Q(-1), Q(2))
    assert Domain.cube(3, Q(-1), Q(2)).rows() == domain_rows(3, (Q(-1), Q(2)))
    assert Domain.orthant(2).rows() == domain_rows(2, "orthant")
    assert Domain.whole(2).legacy() is None and Domain.whole(2).rows() == []
    ball = Domain.ball([Q(1), Q(-1)], Q(1, 4))
    assert ball.box == [(Q(3, 4), Q(5, 4)), (Q(-5, 4), Q(-3, 4))] and ball.as_cube is None
    with pytest.raises(InputError, match="different bounds per coordinate"):
        ball.legacy()
    with pytest.raises(InputError, match="half-spaces"):
        Domain.cube(1, 0, 1).with_halfspaces([([1], 0)]).legacy()


@pytest.mark.parametrize("make, problem", [
    (lambda: Domain([Q(2)], [Q(1)]), "exceeds"),
    (lambda: Domain.ball([Q(0)], Q(-1)), "radius"),
    (lambda: Domain([Q(0)], [Q(1)], [([1, 2], 0)]), "coefficients"),
    (lambda: Domain([Q(0)], [Q(1), Q(2)]), "upper bounds"),
])
def test_bad_domains_raise(make, problem):
    with pytest.raises(InputError, match=problem):
        make()
