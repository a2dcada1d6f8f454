"""The input domains of the deciders: R^d, the closed non-negative orthant, a box [lo, hi]^d.

A user's domain argument is normalised exactly (:func:`normalize_domain`) to ``None`` (R^d),
``"orthant"`` or a pair ``(lo, hi)``.  On the normalised form this module tests membership of a
point (:func:`in_domain`), draws random rational points of the domain, with short denominators
when cheap exact evaluation matters (:func:`random_point`, :func:`random_batch`), and gives the
JSON form that :func:`normalize_domain` reads back (:func:`domain_spec`, used in certificates
and hypotheses).  The proof form of a domain (strict rows, ``["lo", "hi"]``) is in
:mod:`algebra.kernel.domains`.

>>> dom = normalize_domain((0, "1/2"), 2)
>>> dom, in_domain((0, 1), dom), domain_spec(dom)
((0, 1/2), False, {'box': [0, 1/2]})
>>> normalize_domain(domain_spec("orthant"), 3)
'orthant'
"""

from __future__ import annotations

from typing import Any

from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.rationals import Q, q_str, to_q

__all__ = ["normalize_domain", "in_domain", "random_point", "random_batch", "domain_spec"]


def normalize_domain(domain: Any, d: int):
    """The normalised form of a user's domain argument.

    Parameters
    ----------
    domain : None, "whole", "orthant", (lo, hi), {"box": [lo, hi]} or {"orthant": True}
        R^d, the closed non-negative orthant or the box ``[lo, hi]^d`` (exact bounds: int,
        Fraction or a string such as ``"1/3"``).
    d : int
        Input dimension (the normalised form does not depend on it).

    Returns
    -------
    None, "orthant" or tuple of Q
        ``None`` for R^d, ``"orthant"``, or ``(lo, hi)`` with ``lo <= hi``.

    Raises
    ------
    InputError
        If the domain is unknown, or ``lo > hi``.

    Examples
    --------
    >>> normalize_domain(None, 2), normalize_domain({"orthant": True}, 2)
    (None, 'orthant')
    >>> normalize_domain({"box": ["-1/2", 1]}, 2)
    (-1/2, 1)
    """
    if domain is None or domain == "whole":
        return None
    if domain == "orthant" or (isinstance(domain, dict) and domain.get("orthant") is True):
        return "orthant"
    if isinstance(domain, dict) and "box" in domain:
        domain = domain["box"]
    if isinstance(domain, (tuple, list)) and len(domain) == 2:
        lo, hi = to_q(domain[0]), to_q(domain[1])
        if lo > hi:
            raise InputError(f"box lower bound {q_str(lo)} exceeds upper bound {q_str(hi)}")
        return (lo, hi)
    raise InputError(f"unknown domain {domain!r}: use None, 'orthant' or (lo, hi)")


def random_point(rng, d, dom, small=False):
    """A random rational point of the normalised domain *dom* in dimension *d*, drawn with *rng*
    (a :class:`random.Random`); *small*: short denominators, cheap to evaluate."""
    if isinstance(dom, tuple):
        lo, hi = dom
        if small:
            return tuple(lo + (hi - lo) * Q(rng.randint(1, 63), 64) for _ in range(d))
        return tuple(lo + (hi - lo) * Q(rng.randint(1, 999), 1000) for _ in range(d))
    lo = 0 if dom == "orthant" else -2000
    if small:
        return tuple(Q(rng.randint(lo // 8, 250) * 2 + 1, 16) for _ in range(d))
    return tuple(Q(rng.randint(lo, 2000) * 2 + 1, rng.choice((200, 300, 700))) for _ in range(d))


def random_batch(rng, n, d, dom) -> QMatrix:
    """*n* random points of *dom* with short denominators as the rows of one matrix (the same
    distribution as ``random_point(..., small=True)``, built from one integer matrix)."""
    if isinstance(dom, tuple):
        lo, hi = dom
        K = QMatrix.from_integers(n, d, [rng.randint(1, 63) for _ in range(n * d)], den=64)
        return (K * (hi - lo)).add_to_rows([lo] * d) if n and d else K
    lo = 0 if dom == "orthant" else -2000
    return QMatrix.from_integers(n, d, [rng.randint(lo // 8, 250) * 2 + 1 for _ in range(n * d)], den=16)


def in_domain(p, dom) -> bool:
    """True iff the point *p* lies in the normalised (closed) domain *dom*."""
    if dom is None:
        return True
    if dom == "orthant":
        return all(v >= 0 for v in p)
    return all(dom[0] <= v <= dom[1] for v in p)


def domain_spec(dom):
    """The JSON form of a normalised domain that :func:`normalize_domain` reads back: ``None``,
    ``{"orthant": True}`` or ``{"box": [lo, hi]}`` (bounds left as rationals)."""
    if dom is None:
        return None
    if dom == "orthant":
        return {"orthant": True}
    return {"box": [dom[0], dom[1]]}
