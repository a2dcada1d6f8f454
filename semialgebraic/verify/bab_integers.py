r"""Exact rational vectors of the ``bab_bound`` checker as Python integers over one denominator
(:class:`IntVec`), read from the certificate's numbers without building a rational per entry
(:func:`_pq`), and the integer forms of a network's layers (made once per check).

A leaf's Neumaier–Shcherbina bound (:func:`semialgebraic.verify.bab_bound._leaf_value`) is a
sum of products of multipliers, weights and interval ends: on integers over a few
denominators it is one numpy object-array operation per layer instead of a rational per
term (2026-12-02: 1.75–2× faster on the leaves of the digits and ACAS Xu certificates, the
same exact numbers).

Imports ``algebra`` only (and its sibling :mod:`~semialgebraic.verify.bab_replay`).
"""

from __future__ import annotations

import re
from math import gcd

from algebra.exceptions import InputError
from algebra.rationals import Q, to_q

from .bab_replay import _cached, _np, _obj

__all__ = ["IntVec", "int_bias", "int_matrix", "max_over"]

_Z = Q(0)


def _q(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise InputError(f"{what} must be an exact number (JSON integer or 'p/q' string)")
    return to_q(v)


def _int_rows_of(rows):
    """Rows of exact numbers as a numpy object array of integers over one denominator."""
    den = _lcm(v for row in rows for v in row)
    return _obj([[int(v * den) for v in row] for row in rows]), den


def _lcm(values):
    d = 1
    for v in values:
        q = int(v.q)
        d = d * q // gcd(d, q)
    return d


_CANONICAL = re.compile(r"(-?[0-9]{1,300})(?:/([0-9]{1,300}))?")


def _pq(v, what):
    """``(p, q)``, ``q > 0``, with ``p / q`` the value of :func:`_q` ``(v, what)`` (the canonical
    ``"p/q"`` and small integers read directly, anything else through :func:`_q`)."""
    if type(v) is int and v.bit_length() < 1024:
        return v, 1
    if type(v) is str:
        m = _CANONICAL.fullmatch(v)
        if m:
            p, q = m.groups()
            if q is None:
                return int(p), 1
            q = int(q)
            if q:
                return int(p), q
    x = _q(v, what)
    return int(x.p), int(x.q)


class IntVec:
    """An exact rational vector as integers over one positive denominator: ``num / den``
    (``num`` a numpy object array of Python integers)."""

    __slots__ = ("num", "den")

    def __init__(self, num, den):
        self.num, self.den = num, den

    @staticmethod
    def zero(n):
        return IntVec(_obj([0] * n), 1)

    @staticmethod
    def _from_pq(pq):
        den = 1
        for _, q in pq:
            if den % q:
                den = den * q // gcd(den, q)
        return IntVec(_obj([p * (den // q) for p, q in pq]), den)

    @staticmethod
    def parse(v, n, what):
        """A certificate list of *n* exact numbers (the errors of :func:`_qlist`)."""
        if not isinstance(v, list) or len(v) != n:
            raise InputError(f"{what} must be a list of {n} exact numbers")
        return IntVec._from_pq([_pq(x, what) for x in v])

    @staticmethod
    def of(values):
        """Exact numbers (:data:`Q`) as a vector."""
        return IntVec._from_pq([(int(x.p), int(x.q)) for x in values])

    def to(self, den):
        """The numerators over *den*, a multiple of ``self.den``."""
        return self.num if den == self.den else self.num * (den // self.den)

    def add(self, other):
        den = self.den * other.den // gcd(self.den, other.den)
        return IntVec(self.to(den) + other.to(den), den)

    def neg(self):
        return IntVec(-self.num, self.den)

    def sub(self, other):
        return self.add(other.neg())

    def mul(self, other):
        return IntVec(self.num * other.num, self.den * other.den)

    def concat(self, other):
        den = self.den * other.den // gcd(self.den, other.den)
        return IntVec(_np().concatenate([self.to(den), other.to(den)]), den)

    def value(self):
        """The sum of the entries, exact."""
        return Q(int(self.num.sum()), self.den) if len(self.num) else _Z


def int_matrix(W):
    """``(N, d)`` with ``W = N / d`` (integers), remembered for the network's own layers (a
    record's one- or two-row cut layer is made each time: it is small, and remembering it would
    push the network's layers out of the cache)."""
    return _int_rows_of(W) if len(W) <= 2 else _cached(W, _int_rows_of)


def int_bias(b):
    return IntVec.of(b) if len(b) <= 2 else _cached(b, IntVec.of)


def max_over(co, lo, hi):
    """``Σ_k max(co_k·v, v in [lo_k, hi_k])`` (:class:`IntVec` each), exact."""
    den = lo.den * hi.den // gcd(lo.den, hi.den)
    a, b = lo.to(den), hi.to(den)
    return Q(int(_np().where(co.num > 0, co.num * b, co.num * a).sum()), co.den * den)
