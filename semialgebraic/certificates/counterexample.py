"""Builder of ``counterexample`` certificates (schema: :mod:`semialgebraic.verify.counterexample`)."""

from __future__ import annotations

from typing import Any, Sequence

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network
from algebra.rationals import Q

from ..sets import in_domain, normalize_domain

from ._json import embed_network, jsonable

__all__ = ["counterexample_certificate", "shorter_point"]


def counterexample_certificate(a: Network, b: Network, x: Sequence[Any] | None = None, *,
                               domain: Any = None) -> dict:
    """Certificate that *a* and *b* differ at the exact input *x* (outputs recomputed here).

    If *domain* (a JSON-able description, e.g. ``{"box": ["-1", "1"]}``) is given, the point
    lies in it.  Networks with different signatures (inputs, outputs) differ everywhere: the
    certificate then holds the two networks only (no point, *x* is ignored).

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> c = counterexample_certificate(a, a.with_parameter("b2[0]", 1), [2])
    >>> c["x"], c["a_x"], c["b_x"], c["schema_version"]
    ([2], [2], [3], 1)
    """
    if a.signature != b.signature:
        return {**header("counterexample"), "claim": CLAIMS["counterexample"][1],
                "a": embed_network(a), "b": embed_network(b)}
    if x is None:
        raise ValueError("a counterexample of networks with equal signatures needs a point x")
    ax, bx = a(x), b(x)
    if ax == bx:
        raise ValueError("the networks agree at this point: not a counterexample")
    cert = {**header("counterexample"), "claim": CLAIMS["counterexample"][0],
            "a": embed_network(a), "b": embed_network(b),
            "x": jsonable(list(x)), "a_x": jsonable(list(ax)), "b_x": jsonable(list(bx))}
    if domain is not None:
        cert["domain"] = jsonable(domain)
    return cert


def shorter_point(a: Network, b: Network, x: Sequence[Any], dom) -> tuple:
    """A point with short coordinates where *a* and *b* still differ, near *x*; else *x* itself.

    Points found inside a region of a deep a − b can have coordinates of thousands of digits.
    Since a(x) ≠ b(x) at *x*, the two also differ at every point of some open set around it:
    round every coordinate to the nearest multiple of 2^-k (k = 4, 8, 16, …), clipped into the
    box *dom* (any form :func:`semialgebraic.sets.normalize_domain` takes; rounding keeps the orthant), and keep the first rounding
    where a and b differ, decided exactly (on a polyhedron: the first that also lies in it).  Never longer than *x*.

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> b = a.with_parameter("b2[0]", Q(1, 10 ** 40))
    >>> shorter_point(a, b, (Q(1, 3) + Q(1, 10 ** 60),), None)
    (5/16,)
    """
    x = tuple(Q(v) for v in x)
    dom = normalize_domain(dom, len(x), polyhedral=True)

    def size(p):
        return sum(v.p.bit_length() + v.q.bit_length() for v in p)

    lo, hi = dom if isinstance(dom, tuple) else (None, None)
    k = 4
    while (1 << k) < 4 * max(v.q for v in x) and k <= 4096:
        s = 1 << k
        p = []
        for v in x:
            r = Q((v.p * s + v.q // 2) // v.q, s)                 # nearest multiple of 2^-k
            if lo is not None:
                r = min(max(r, lo), hi)
            p.append(r)
        p = tuple(p)
        if size(p) >= size(x):
            break
        if (lo is not None or in_domain(p, dom)) and a(p) != b(p):   # (a polyhedron: kept in it)
            return p
        k *= 2
    return x
