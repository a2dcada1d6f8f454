"""Input domains in the form deciders and checkers share: strict rows and the proof JSON form.

A domain is ``None`` (all of R^d), ``"orthant"`` (the closed non-negative orthant) or a pair
``(lo, hi)`` of rationals (the cube ``[lo, hi]^d``).
"""

from __future__ import annotations

from algebra.io.native import parse_number
from algebra.rationals import Q

__all__ = ["domain_rows", "domain_json", "domain_from_json"]


def domain_rows(d: int, lo_hi) -> list[tuple[Q, ...]]:
    """Rows ``(a_0, …, a_{d-1}, c)`` with ``a·x + c >= 0`` (``> 0`` inside) cutting out the domain.

    Box: ``x_i − lo`` then ``hi − x_i`` for each i; orthant: ``x_i``; R^d: no row.

    Examples
    --------
    >>> [tuple(map(str, r)) for r in domain_rows(1, (Q(-1), Q(2)))]
    [('1', '1'), ('-1', '2')]
    >>> domain_rows(2, None)
    []
    """
    rows = []
    if lo_hi is None:
        return rows
    z = Q(0)
    for i in range(d):
        e = [z] * d
        e[i] = Q(1)
        if lo_hi == "orthant":
            rows.append(tuple(e) + (z,))
        else:
            rows.append(tuple(e) + (-lo_hi[0],))
            rows.append(tuple(-v for v in e) + (lo_hi[1],))
    return rows


def domain_json(dom):
    """The JSON form of a domain inside proofs: ``None``, ``"orthant"`` or ``["lo", "hi"]``.

    Examples
    --------
    >>> domain_json((Q(-1, 2), Q(3))), domain_json("orthant"), domain_json(None)
    (['-1/2', '3'], 'orthant', None)
    """
    if dom is None or dom == "orthant":
        return dom
    return [str(dom[0]), str(dom[1])]


def domain_from_json(data, d: int | None = None):
    """The domain of its proof JSON form (inverse of :func:`domain_json`); *d* is not used.

    Raises
    ------
    InputError
        If a bound is a string that is not an exact number (e.g. ``"1/0"``).
    TypeError, KeyError, IndexError
        If *data* has the wrong shape.

    Examples
    --------
    >>> domain_from_json(["-1/2", 3]) == (Q(-1, 2), Q(3))
    True
    """
    if data is None or data == "orthant":
        return data
    return (Q(data[0]) if not isinstance(data[0], str) else parse_number(data[0], "proof.domain"),
            Q(data[1]) if not isinstance(data[1], str) else parse_number(data[1], "proof.domain"))
