"""``gfp.product_is_zero`` (exact zero test of a rational matrix product by word-prime products
bounded by the Chinese remainder theorem) and ``neurons.same_linear_part`` against the product
over Q (session 40: a 256-1024-256 canonical path's linear refactor took minutes over Q)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from flint import fmpq

from algebra.linalg import QMatrix
from algebra.linalg import gfp
from algebra.symmetries.neurons import same_linear_part


def _rat(rng, big):
    den = rng.choice([1, 2, 3, 7, 2 ** rng.randint(0, 40), rng.randint(1, 10 ** 6)])
    if big:
        den *= rng.randint(1, 2 ** 200)
    return Fraction(rng.randint(-10 ** 6, 10 ** 6), den)


def _zero_pair(rng, m, k, d, big):
    """L, R with L R = 0: R's columns in the kernel of L (L's last column solves for them)."""
    L = [[_rat(rng, big) for _ in range(k)] for _ in range(m)]
    R = [[_rat(rng, big) for _ in range(d)] for _ in range(k)]
    # make L R = 0 by choosing L as rows orthogonal to R's columns: L = Y (I - R (R^T R)^-1 R^T)
    RQ = QMatrix.from_rows(R)
    P = QMatrix.identity(k) - RQ @ (RQ.T @ RQ).inverse() @ RQ.T
    return QMatrix.from_rows(L) @ P, RQ


@pytest.mark.parametrize("seed", range(12))
def test_product_is_zero_agrees_with_the_product_over_q(seed, monkeypatch):
    rng = random.Random(seed)
    m, k, d = rng.randint(1, 6), rng.randint(3, 9), rng.randint(1, 3)
    big = seed % 3 == 0
    if seed % 4 == 1:               # the fallback: the product over Q, in blocks
        monkeypatch.setattr(gfp, "PRODUCT_PRIMES_MAX", 1)
    L, R = _zero_pair(rng, m, k, d, big)
    assert (L @ R).is_zero() and gfp.product_is_zero(L, R)
    rows = L.to_rows()
    i, j = rng.randrange(m), rng.randrange(k)
    rows[i][j] += fmpq(1, 10 ** 40)               # a near miss: one entry moved by 1e-40
    L2 = QMatrix.from_rows(rows)
    assert not (L2 @ R).is_zero() and not gfp.product_is_zero(L2, R)
    Z = QMatrix.from_rows([[0] * d for _ in range(k)])
    assert gfp.product_is_zero(L, Z)


def test_same_linear_part_of_rescaled_neurons():
    """Neurons (w, v) and (w / c, c v): the same outer products, large denominators on each
    side (c = a float32's numerator), and one output moved by 2^-60."""
    rng = random.Random(5)
    a = [(tuple(Fraction(rng.randint(-2 ** 23, 2 ** 23), 2 ** 30) for _ in range(4)), 0,
          tuple(Fraction(rng.randint(-2 ** 23, 2 ** 23), 2 ** 28) for _ in range(3)))
         for _ in range(12)]
    b = []
    for w, bias, v in a:
        c = Fraction(rng.randint(1, 2 ** 23), rng.randint(1, 2 ** 23))
        b.append((tuple(x / c for x in w), bias, tuple(x * c for x in v)))
    assert same_linear_part(a, b, 4, 3)
    w, bias, v = b[7]
    b[7] = (w, bias, (v[0] + Fraction(1, 2 ** 60),) + v[1:])
    assert not same_linear_part(a, b, 4, 3)


def test_rows_over_distinct_primes_take_the_product_over_q(monkeypatch):
    """Rows over 250 distinct large primes with integral outputs (the s40 forge audit's F4
    shape): the modular test would clear one common denominator of ~7 700 bits per entry; the two
    linear parts are compared over Q instead (and a moved output is still caught)."""
    from algebra.linalg import gfp as g
    from algebra.rationals import Q
    primes, p = [], 2 ** 31
    while len(primes) < 250:
        p -= 1
        if g.is_prime(p):
            primes.append(p)
    a = [((Q(1, q),), 0, (Q(k % 5 + 1), Q(2))) for k, q in enumerate(primes)]
    b = list(reversed(a))
    called = []
    monkeypatch.setattr(g, "product_is_zero", lambda *x, **k: called.append(1))
    assert same_linear_part(a, b, 1, 2) and not called
    w, bias, v = b[3]
    b[3] = (w, bias, (v[0] + 1, v[1]))
    assert not same_linear_part(a, b, 1, 2)
