"""The input domains of the deciders: R^d, the closed non-negative orthant, a box [lo, hi]^d,
and (for the general equivalence method) a convex polyhedron: a box with its own, possibly
open, sides ∩ half-spaces.

A user's domain argument is normalised exactly (:func:`normalize_domain`) to ``None`` (R^d),
``"orthant"`` or a pair ``(lo, hi)``; with ``polyhedral=True`` an
:class:`algebra.kernel.domains.Domain` without such a form is kept as it is (the region walk
and its reductions take it: rows by :func:`algebra.kernel.domain_rows`, interval bounds over its
box part, or over its exact bounding box once :func:`tighten` proved it).  On the normalised form this module tests membership of a
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

from functools import lru_cache

from algebra.exceptions import InputError
from algebra.kernel.domains import Domain
from algebra.linalg import QMatrix
from algebra.rationals import Q, q_str, to_q

from ..lp import optimize
from ..lp.floatlp import dense_max
from .polyhedra import Polyhedron

__all__ = ["api_domain", "polyhedron_of", "normalize_domain", "in_domain", "random_point", "random_batch", "domain_spec", "interior_point",
           "tighten"]


DOMAIN_FORMS = ("None or 'R^d' (all of R^d), 'orthant', (lo, hi) (the cube), per-coordinate "
                "[(lo_1, hi_1), ...], a --box text such as '-1,1' or '0:1,-2:2', "
                "{'box': ...}, {'orthant': True}, a domain JSON ({'box' or 'lo'/'hi', "
                "'halfspaces'}), a Domain or a Polyhedron")
"""Every spelling of a domain the Python API takes (:func:`api_domain`), for its messages."""

_WHOLE = {"r^d", "rd", "r", "whole", "all", "none"}


def api_domain(domain: Any, d: int) -> Domain:
    """A user's domain argument, in any spelling the Python API takes, as one exact
    :class:`~algebra.kernel.domains.Domain` of dimension *d* (the s48 API audit: each entry point
    took its own subset, ``number_of_regions(net, domain=(-1, 1))`` raised a bare
    AttributeError, and a :class:`Polyhedron` was refused by all the others).

    Accepted (:data:`DOMAIN_FORMS`): a Domain; a :class:`Polyhedron` ``A x <= b`` (rows with one
    non-zero coefficient become the box's sides); ``None``, ``"R^d"`` or ``"whole"``;
    ``"orthant"``; the cube ``(lo, hi)``; per-coordinate ``[(lo_1, hi_1), …]``; a numpy array of
    either; a ``--box`` text (``"-1,1"``, ``"0:1,-2:2"``); ``{"orthant": True}``; ``{"box": [lo,
    hi]}`` or ``{"box": [[lo_1, hi_1], …]}``; the domain JSON of ``--box FILE.json``
    (``"halfspaces"``, ``"lo"``/``"hi"``, open sides ``None``).  Numbers are exact (int,
    Fraction, ``"1/3"``, ``"0.1"`` = 1/10; a float is an :class:`InexactInputError`); an unknown
    key, a wrong count or ``lo > hi`` is an :class:`InputError`.

    >>> api_domain((0, "1/2"), 2).describe(), api_domain("R^d", 3).describe()
    ('the cube [0, 1/2]^2', 'R^3')
    >>> api_domain(Polyhedron.box(2, -1, 1), 2) == api_domain("-1,1", 2)
    True
    >>> api_domain({"box": [[0, 1], [0, None]], "halfspaces": [{"a": [1, 1], "b": 1}]}, 2).describe()
    'the box [0, 1] x [0, inf) cut by 1 half-space'
    """
    if isinstance(domain, Domain):
        if domain.dim != d:
            raise InputError(f"the domain has dimension {domain.dim}, the networks take {d} inputs")
        return domain
    if isinstance(domain, Polyhedron):
        if domain.dim_ambient != d:
            raise InputError(f"the polyhedron has dimension {domain.dim_ambient}, the networks take "
                             f"{d} inputs")
        return _polyhedron_domain(domain)
    if domain is None:
        return Domain.whole(d)
    if isinstance(domain, str):
        key = domain.strip().lower().replace(" ", "")
        if key in _WHOLE or key == f"r^{d}":
            return Domain.whole(d)
        if key == "orthant":
            return Domain.orthant(d)
        from algebra.io.domain_text import parse_domain_text
        try:
            return parse_domain_text(d, box=domain, options=("domain", "--ball", "--orthant"))
        except InputError as exc:
            raise InputError(f"unknown domain {domain!r} ({exc}); a domain is {DOMAIN_FORMS}") from None
    if isinstance(domain, dict):
        if domain == {"orthant": True}:
            return Domain.orthant(d)
        box = domain.get("box")
        if set(domain) == {"box"} and isinstance(box, (list, tuple)) and len(box) == 2 and \
                not isinstance(box[0], (list, tuple)):
            return api_domain(tuple(box), d)            # {"box": [lo, hi]}: the cube
        from algebra.io.domain_text import domain_from_data
        data = {k: ([list(p) if isinstance(p, tuple) else p for p in v]
                    if isinstance(v, (list, tuple)) else v) for k, v in domain.items()}
        return domain_from_data(data, d, repr(domain)[:80], "domain")
    if hasattr(domain, "tolist") and not isinstance(domain, (list, tuple)):
        domain = domain.tolist()                        # a numpy array
    if isinstance(domain, list) and len(domain) == 2 and not isinstance(domain[0], (list, tuple)):
        domain = tuple(domain)
    if isinstance(domain, tuple) and len(domain) == 2 and not isinstance(domain[0], (list, tuple)):
        lo, hi = to_q(domain[0]), to_q(domain[1])
        if lo > hi:
            raise InputError(f"box lower bound {q_str(lo)} exceeds upper bound {q_str(hi)}")
        return Domain.cube(d, lo, hi)
    if isinstance(domain, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2
                                                 for p in domain):
        if len(domain) != d:
            raise InputError(f"a box with its own sides is {d} intervals (lo, hi), one per input; "
                             f"got {len(domain)}")
        return Domain.from_box([(to_q(lo), to_q(hi)) for lo, hi in domain])
    raise InputError(f"unknown domain {domain!r}: a domain is {DOMAIN_FORMS}")


def _polyhedron_domain(P: Polyhedron) -> Domain:
    """``A x <= b`` as a Domain: a row with one non-zero coefficient bounds its coordinate, the
    other rows stay half-spaces; a zero row ``0 <= b`` is dropped, or (b < 0) the empty domain is
    an :class:`InputError`."""
    d = P.dim_ambient
    lo, hi, halfspaces = [None] * d, [None] * d, []
    for i in range(P.A.nrows):
        a, b = P.A.row_at(i), P.b[i]
        nz = [k for k, v in enumerate(a) if v != 0]
        if not nz:
            if b < 0:
                raise InputError(f"the polyhedron is empty (its row {i} reads 0 <= {q_str(b)})")
            continue
        if len(nz) > 1:
            halfspaces.append((tuple(a), b))
            continue
        k = nz[0]
        v = b / a[k]
        if a[k] > 0:
            hi[k] = v if hi[k] is None else min(hi[k], v)
        else:
            lo[k] = v if lo[k] is None else max(lo[k], v)
    for k in range(d):
        if lo[k] is not None and hi[k] is not None and lo[k] > hi[k]:
            raise InputError(f"the polyhedron is empty (coordinate {k}: {q_str(lo[k])} <= x_{k} <= "
                             f"{q_str(hi[k])})")
    return Domain(lo, hi, halfspaces)


def polyhedron_of(domain: Any, d: int) -> Polyhedron | None:
    """Any domain :func:`api_domain` takes as a :class:`Polyhedron` (``None`` for R^d): the
    form of the region walk's ``domain``."""
    if isinstance(domain, Polyhedron):
        if domain.dim_ambient != d:
            raise InputError(f"the polyhedron has dimension {domain.dim_ambient}, the network takes "
                             f"{d} inputs")
        return domain
    rows = api_domain(domain, d).rows()
    if not rows:
        return None
    return Polyhedron([[-v for v in r[:-1]] for r in rows], [r[-1] for r in rows], d)


def normalize_domain(domain: Any, d: int, polyhedral: bool = False):
    """The normalised form of a user's domain argument.

    Parameters
    ----------
    domain : None, "whole", "orthant", (lo, hi), {"box": [lo, hi]}, {"orthant": True} or Domain
        R^d, the closed non-negative orthant or the box ``[lo, hi]^d`` (exact bounds: int,
        Fraction or a string such as ``"1/3"``); a :class:`~algebra.kernel.domains.Domain` in
        one of those forms, or (*polyhedral*) any Domain of dimension *d*, or its JSON form
        (``{"lo": …, "hi": …, "halfspaces": …}``, :meth:`Domain.to_json`).
    d : int
        Input dimension (the normalised form does not depend on it, a Domain's must be *d*).
    polyhedral : bool
        Keep a Domain that has no older form (half-spaces, open or unequal sides) as it is:
        only for computations that take a convex polyhedron (the general equivalence method).

    Returns
    -------
    None, "orthant", tuple of Q or Domain
        ``None`` for R^d, ``"orthant"``, ``(lo, hi)`` with ``lo <= hi``, or (*polyhedral*) the
        Domain.

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
    if polyhedral and isinstance(domain, dict) and "lo" in domain and "hi" in domain:
        domain = Domain.from_json(domain)
    if isinstance(domain, Domain):
        if domain.dim != d:
            raise InputError(f"the domain has {domain.dim} coordinates, expected {d}")
        if polyhedral and domain.legacy_or_none() == "other":
            return domain
        return domain.legacy()            # InputError for half-spaces or unequal sides
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
    (a :class:`random.Random`); *small*: short denominators, cheap to evaluate.  On a Domain
    (a polyhedron): a point of its interior (:func:`_polyhedron_point`)."""
    if isinstance(dom, Domain):
        return _polyhedron_point(rng, dom, small)
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
    if isinstance(dom, Domain):
        return QMatrix.from_rows([_polyhedron_point(rng, dom, True) for _ in range(n)], ncols=d)
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
    if isinstance(dom, Domain):
        return dom.contains(p)
    if dom == "orthant":
        return all(v >= 0 for v in p)
    return all(dom[0] <= v <= dom[1] for v in p)


def domain_spec(dom):
    """The JSON form of a normalised domain that :func:`normalize_domain` reads back: ``None``,
    ``{"orthant": True}`` or ``{"box": [lo, hi]}`` (bounds left as rationals); a Domain's
    :meth:`~algebra.kernel.domains.Domain.to_json` (``{"lo": [lo_i | None], "hi": [hi_i | None],
    "halfspaces": [{"a": [...], "b": b}]}``, read back with ``polyhedral=True``)."""
    if dom is None:
        return None
    if isinstance(dom, Domain):
        return dom.to_json()
    if dom == "orthant":
        return {"orthant": True}
    return {"box": [dom[0], dom[1]]}


def tighten(dom: Domain, budget=None) -> Domain:
    """*dom* with its exact bounding box as its interval box (:meth:`Domain.tightened`): for each
    side of each coordinate, the exact LP ``min``/``max x_k`` over the domain (box ∩ half-spaces);
    a side strictly tighter than the box part's (an open side the half-spaces close, or a side
    the half-spaces cut) is kept with the LP's dual multipliers, which prove it
    (:func:`algebra.kernel.domains.side_bound`, checked again by :meth:`Domain.tightened`).

    Only a domain with half-spaces can tighten (the bounding box of a box is itself), and only
    in a coordinate some half-space involves (else the domain is a product with that side's
    interval).  A float LP (HiGHS, a hint only) first screens each side: the exact LP runs only
    where it says the side is strictly tighter, so a side is never tightened on a float's word
    and a screen that errs only leaves a side as it was (sound: the box part contains the
    domain).  An empty domain, or a *budget* spent, stops the LPs (the sides proved so far are
    kept: each is implied).

    >>> S = tighten(Domain([0, 0], [None, None], [([1, 1], 1)]))        # the simplex
    >>> [tuple(map(str, b)) for b in S.intervals()], [s["value"] for s in S.sides()]
    ([('0', '1'), ('0', '1')], ['1', '1'])
    >>> tighten(Domain.cube(2, 0, 1)).sides()
    []
    """
    if not isinstance(dom, Domain) or not dom.halfspaces:
        return dom
    rows = dom.rows()
    A = [[-v for v in r[:-1]] for r in rows]           # a·x + c >= 0  <=>  -a·x <= c
    rhs = [r[-1] for r in rows]
    sides = []
    screen = _FloatScreen(dom)
    for k in range(dom.dim):
        if not any(a[k] for a, _ in dom.halfspaces):
            continue
        for side, maximize, given in (("lo", False, dom.lo[k]), ("hi", True, dom.hi[k])):
            if budget is not None and budget.exhausted():
                return dom.tightened(sides)
            if not screen.may_tighten(k, maximize, given):
                continue
            e = [Q(0)] * dom.dim
            e[k] = Q(1)
            res = optimize(e, maximize=maximize, A_le=A, b_le=rhs, n=dom.dim)
            if res.status == "infeasible":
                return dom                                 # an empty domain: nothing to bound
            if res.status != "optimal":
                continue
            if given is not None and (res.value <= given if side == "lo" else res.value >= given):
                continue
            sides.append((k, side, res.value, res.dual["y_le"]))
    return dom.tightened(sides)


class _FloatScreen:
    """HiGHS's float ``max ±x_k`` over the domain (:func:`semialgebraic.lp.floatlp.dense_max`):
    whether the exact LP of a side may tighten it (a hint; never a bound)."""

    def __init__(self, dom: Domain):
        import numpy as np
        self.dom = dom
        self.A = np.array([[float(v) for v in a] for a, _ in dom.halfspaces], dtype=float)
        self.r = np.array([float(b) for _, b in dom.halfspaces], dtype=float)
        self.lo = np.array([-np.inf if v is None else float(v) for v in dom.lo], dtype=float)
        self.hi = np.array([np.inf if v is None else float(v) for v in dom.hi], dtype=float)

    def may_tighten(self, k: int, maximize: bool, given) -> bool:
        import numpy as np
        cost = np.zeros(self.dom.dim)
        cost[k] = 1.0 if maximize else -1.0
        try:
            res = dense_max(self.A, self.r, cost, self.lo, self.hi)
        except Exception:                   # (HiGHS refused the model: try the exact LP)
            return True
        if res is None:                     # unbounded, or empty: no side to prove
            return False
        value = res[1] if maximize else -res[1]
        if given is None:
            return True
        g = float(given)
        slack = 1e-9 * max(1.0, abs(g))
        return value < g - slack if maximize else value > g + slack


def interior_point(dom: Domain):
    """An exact point strictly inside every row of the Domain *dom* (exact LP, well centred),
    or None when its interior is empty (an empty or lower-dimensional domain)."""
    return _interior(dom)


# ------------------------------------------------------------------------------------------------
# private
# ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=32)
def _interior(dom: Domain):
    rows = dom.rows()
    if not rows:
        return tuple(Q(0) for _ in range(dom.dim))
    poly = Polyhedron([[-v for v in g[:-1]] for g in rows], [g[-1] for g in rows], dom.dim)
    return poly.interior_point()


def _strictly_inside(dom: Domain, x) -> bool:
    return all(sum((g[i] * x[i] for i in range(dom.dim)), Q(0)) + g[-1] > 0 for g in dom.rows())


def _polyhedron_point(rng, dom: Domain, small: bool) -> tuple:
    """A random point of the interior of *dom*: a random point of its box part (an open side:
    the distribution of R^d beyond its bound), pulled towards the exact interior point
    :func:`interior_point` by halving until every row is strict (at most 12 halvings, then the
    interior point itself).  :class:`InputError` when the interior is empty."""
    c = _interior(dom)
    if c is None:
        open_side = any(lo is None or hi is None for lo, hi in dom.intervals())
        raise InputError("the domain has an empty interior (empty or lower-dimensional)" + (
            "; a lower-dimensional domain is taken with lo and hi on every coordinate (here a "
            "side is open): bound it by a box around the part that matters" if open_side else ""))
    x = []
    for lo, hi in dom.intervals():
        if lo is not None and hi is not None:
            den = 64 if small else 1000
            x.append(lo + (hi - lo) * Q(rng.randint(1, den - 1), den))
        else:
            t = Q(rng.randint(0, 250) * 2 + 1, 16) if small else \
                Q(rng.randint(0, 2000) * 2 + 1, rng.choice((200, 300, 700)))
            if lo is not None:
                x.append(lo + t)
            elif hi is not None:
                x.append(hi - t)
            else:
                x.append(t if rng.random() < 0.5 else -t)
    for _ in range(12):
        if _strictly_inside(dom, x):
            return tuple(x)
        x = [(u + v) / 2 for u, v in zip(x, c)]
    return tuple(c)
