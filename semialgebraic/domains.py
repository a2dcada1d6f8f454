"""The domains of the general equivalence method: R^d, the closed orthant, a box [lo, hi]^d.

Normalisation of a user's domain argument (exact), membership of a point, random rational
points of the domain (short denominators when cheap exact evaluation matters) and the JSON
form of a normalised domain used in certificates.  Used by :mod:`semialgebraic.equivalence`,
:mod:`semialgebraic.joint`, :mod:`semialgebraic.reduction` and :mod:`semialgebraic.deviation`.
"""

from __future__ import annotations

from typing import Any

from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.rationals import Q, q_str, to_q

__all__ = ["normalize_domain"]


def normalize_domain(domain: Any, d: int):
    """None (R^d), ``"orthant"`` or ``(lo, hi)`` with lo <= hi (exact)."""
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


# ------------------------------------------------------------------------------------------------
# private
# ------------------------------------------------------------------------------------------------
def _random_point(rng, d, dom, small=False):
    """A random rational point of the domain (*small*: short denominators, cheap to evaluate)."""
    if isinstance(dom, tuple):
        lo, hi = dom
        if small:
            return tuple(lo + (hi - lo) * Q(rng.randint(1, 63), 64) for _ in range(d))
        return tuple(lo + (hi - lo) * Q(rng.randint(1, 999), 1000) for _ in range(d))
    lo = 0 if dom == "orthant" else -2000
    if small:
        return tuple(Q(rng.randint(lo // 8, 250) * 2 + 1, 16) for _ in range(d))
    return tuple(Q(rng.randint(lo, 2000) * 2 + 1, rng.choice((200, 300, 700))) for _ in range(d))


def _random_batch(rng, n, d, dom) -> QMatrix:
    """*n* random points with short denominators as the rows of one matrix (the same
    distribution as ``_random_point(..., small=True)``, built from one integer matrix)."""
    if isinstance(dom, tuple):
        lo, hi = dom
        K = QMatrix.from_integers(n, d, [rng.randint(1, 63) for _ in range(n * d)], den=64)
        return (K * (hi - lo)).add_to_rows([lo] * d) if n and d else K
    lo = 0 if dom == "orthant" else -2000
    return QMatrix.from_integers(n, d, [rng.randint(lo // 8, 250) * 2 + 1 for _ in range(n * d)], den=16)


def _in_domain(p, dom) -> bool:
    if dom is None:
        return True
    if dom == "orthant":
        return all(v >= 0 for v in p)
    return all(dom[0] <= v <= dom[1] for v in p)


def _dom_json(dom):
    if dom is None:
        return None
    if dom == "orthant":
        return {"orthant": True}
    return {"box": [dom[0], dom[1]]}
