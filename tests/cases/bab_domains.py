"""Planted pairs for the domains of branch and bound (issue 15): a box ∩ half-space, unbounded
domains where ``a − b`` grows (+∞) or stays bounded (three-layer-fibers R28), with the
certificate builders and Fraction oracles the mutation tests use (one input, so exact)."""

from __future__ import annotations

import json
from fractions import Fraction

from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q

ABS = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])              # |x|
HALF = Network.from_rows([[[1], [-1]], [["1/2", 1]]], [[0, 0], [0]])         # ABS - relu(x)/2
SHIFT = Network.from_rows([[[1], [-1]], [[1, 1]]], [[1, 0], [-1]])           # relu(x+1)+relu(-x)-1
# ABS - SHIFT = relu(x) - relu(x + 1) + 1: 1 for x <= -1, -x on [-1, 0], 0 for x >= 0: sup 1 on R


def _json(cert):
    return json.loads(json.dumps(cert))


def bab_bound_halfspace_cert():
    """``max |ABS − HALF| = 1/2`` on ``[−1, 2] ∩ {x <= 1}`` (1 on the box alone)."""
    from semialgebraic.bab import diff_bounds
    r = diff_bounds(ABS, HALF, Domain.cube(1, Q(-1), Q(2)).with_halfspaces([([Q(1)], Q(1))]))
    assert r.complete and r.upper == Q(1, 2)
    return _json(r.certificate)


def bab_recession_ray_cert():
    """``ABS − HALF = relu(x)/2`` on the orthant: +∞ along a ray."""
    from semialgebraic.bab import diff_bounds
    r = diff_bounds(ABS, HALF, Domain.orthant(1))
    assert r.unbounded
    return _json(r.certificate)


def bab_recession_bounded_cert():
    """``ABS − SHIFT`` on R: bounded (sup 1); the same weights, so R29's body and tail: exact."""
    from semialgebraic.bab import diff_bounds
    r = diff_bounds(ABS, SHIFT, Domain.whole(1))
    assert not r.unbounded and r.lower == 1 and r.upper == 1 and "tail" in r.certificate
    return _json(r.certificate)


# relu(x) + relu(1 - x) - 1 with other weights than ABS: ABS - SHIFT2 is 0, x, 1 on x <= 0,
# [0, 1], x >= 1 (sup 1 on R); the biases-free difference is 0, so R28's cone and decomposition
# (bound 2), or R29's body and stable tail cells (exact)
SHIFT2 = Network.from_rows([[[2], [-1]], [["1/2", 1]]], [[0, 1], [-1]])


def bab_recession_cone_cert():
    """``ABS − SHIFT2`` on R: bounded (sup 1), R28's upper bound 2 from the biases (asked at
    ε = 3, which that bound decides: without ε the stable tail cells of R29 make it exact)."""
    from semialgebraic.bab import diff_bounds
    r = diff_bounds(ABS, SHIFT2, Domain.whole(1), epsilon=3)
    assert not r.unbounded and r.lower == 1 and r.upper == 2 and "cone" in r.certificate
    return _json(r.certificate)


# ------------------------------------------------------------------------------------------------
# oracles: one input, exact with Fractions
# ------------------------------------------------------------------------------------------------
def _eval(net: dict, x):
    h = [Fraction(v) for v in x]
    layers = net["layers"]
    for k, layer in enumerate(layers):
        h = [sum((Fraction(w) * v for w, v in zip(row, h)), Fraction(0)) + Fraction(c)
             for row, c in zip(layer["weight"], layer["bias"])]
        if k < len(layers) - 1:
            h = [max(v, Fraction(0)) for v in h]
    return h


def _dev(c, x):
    return max(abs(u - v) for u, v in zip(_eval(c["a"], x), _eval(c["b"], x)))


def _interval(lo, hi, halfspaces):
    """``[lo, hi]`` (None: open) ∩ ``{a x <= b}`` in one dimension; None when empty."""
    for h in halfspaces:
        a, b = Fraction(h["a"][0]), Fraction(h["b"])
        if a > 0:
            hi = b / a if hi is None else min(hi, b / a)
        elif a < 0:
            lo = b / a if lo is None else max(lo, b / a)
        elif b < 0:
            return None
    return None if lo is not None and hi is not None and lo > hi else (lo, hi)


def _breakpoints(c):
    out = set()
    for net in (c["a"], c["b"]):
        first = net["layers"][0]
        for row, bias in zip(first["weight"], first["bias"]):
            if Fraction(row[0]) != 0:
                out.add(-Fraction(bias) / Fraction(row[0]))
    return out


def _sup(c, lo, hi):
    """Exact ``sup |a − b|`` over ``[lo, hi]`` (None: open) for one-hidden-layer nets of one
    input: the breakpoints and ends, and +∞ when an open end has a non-zero slope."""
    if len(c["a"]["layers"]) != 2 or len(c["b"]["layers"]) != 2:
        raise ValueError("the oracle takes one hidden layer")
    big = Fraction(10) ** 12
    pts = [p for p in _breakpoints(c) if (lo is None or p >= lo) and (hi is None or p <= hi)]
    for end, sgn in ((lo, -1), (hi, 1)):
        if end is None:
            x1, x2 = [sgn * big], [2 * sgn * big]
            if any(u != v for u, v in zip([a - b for a, b in zip(_eval(c["a"], x1), _eval(c["b"], x1))],
                                          [a - b for a, b in zip(_eval(c["a"], x2), _eval(c["b"], x2))])):
                return None                                  # +inf
            pts.append(x1[0])
        else:
            pts.append(end)
    return max(_dev(c, [p]) for p in pts)


def _lower_ok(c, contains):
    if "lower" not in c:
        return True
    x = [Fraction(v) for v in c["point"]]
    return contains(x) and _dev(c, x) >= Fraction(c["lower"])


def oracle_bab_bound_halfspace(c) -> bool:
    box = [tuple(Fraction(v) for v in p) for p in c["box"]]
    iv = _interval(box[0][0], box[0][1], c.get("halfspaces", []))
    ok = iv is None or c["claim"].endswith(">= lower on the box") or _sup(c, *iv) <= Fraction(c["upper"])
    return ok and _lower_ok(c, lambda x: iv is not None and iv[0] <= x[0] <= iv[1])


def oracle_bab_recession(c) -> bool:
    dom = c["domain"]
    lo = None if dom["lo"][0] is None else Fraction(dom["lo"][0])
    hi = None if dom["hi"][0] is None else Fraction(dom["hi"][0])
    iv = _interval(lo, hi, dom.get("halfspaces", []))
    if iv is None:
        return False                                         # an empty domain: no sup, no point
    inside = (lambda x: (iv[0] is None or x[0] >= iv[0]) and (iv[1] is None or x[0] <= iv[1]))
    if not _lower_ok(c, inside):
        return False
    sup = _sup(c, *iv)
    if c["claim"].startswith("sup_x"):                       # +inf
        return sup is None
    if c["claim"].endswith(">= lower on the domain"):
        return True
    return sup is not None and sup <= Fraction(c["upper"])


# builder / oracle tables for tests/semialgebraic/test_certificate_mutations.py
BUILDERS = {"bab_bound_halfspace": bab_bound_halfspace_cert, "bab_recession": bab_recession_ray_cert,
            "bab_recession_bounded": bab_recession_bounded_cert,
            "bab_recession_cone": bab_recession_cone_cert}
ORACLES = {"bab_bound_halfspace": oracle_bab_bound_halfspace, "bab_recession": oracle_bab_recession,
           "bab_recession_bounded": oracle_bab_recession, "bab_recession_cone": oracle_bab_recession}
