r"""Exact facet tests of one linear region (used by the walk of :mod:`semialgebraic.regions.walk`).

The region is ``{ℓ_j(x) = a_j·x + c_j > 0}`` over the classes j of coinciding hyperplanes.  A
class t is a facet iff ``{ℓ_t = 0, ℓ_j > 0 for every other class j}`` is feasible.  One warm
float model per region (:class:`~semialgebraic.lp.FloatLP` with ``centre=True``) serves every
float guess of the region: its Chebyshev-like centre (:func:`centre_point`), the supports of
closure proofs and the centres of facets.  Cheapest first: the foot of the perpendicular from
the centre onto the hyperplane (every foot checked exactly at once on the classes' primitive
integer rows, :mod:`semialgebraic.regions.integer`); then an exact proof that the hyperplane misses the closure, with the
support guessed by the float model and the multipliers solved for exactly
(:func:`misses_closure`); then the float centre of the facet rounded, projected exactly onto
the hyperplane and checked exactly (:func:`facet_point`); then the exact facet LP
(:func:`facet_lp`), which decides whenever a guess does not verify.  Only exact points and
exact identities decide.
"""

from __future__ import annotations

from math import gcd, lcm, sqrt

from algebra.linalg import QMatrix
from algebra.rationals import Q

from ..lp import dot, feasible

__all__ = ["foot_witnesses", "misses_closure", "facet_lp", "centre_point", "facet_point",
           "primitive_key", "augmented", "certify_with_basis"]


def primitive_key(values) -> tuple:
    """The primitive integer vector of a rational vector (not all zero): the same for every
    positive multiple, so it names a hyperplane with its orientation."""
    den = lcm(*(int(v.q) for v in values))
    ints = [int(v.p) * (den // int(v.q)) for v in values]
    g = gcd(*ints)
    return tuple(v // g for v in ints)


def _rounded(xf, s, d):
    """Exact rational roundings of the float point *xf* (Chebyshev radius *s*), coarse first."""
    D0 = int(min(2 ** 60, max(1, 4 * sqrt(d) / max(s, 1e-300))))
    for D in (max(1, D0 // 64), D0, D0 * 1024):
        D = 1 << (D.bit_length() - 1)              # a power of two: cheap exact rationals
        yield tuple(Q(int(round(float(v) * D)), D) for v in xf)


def augmented(Areps, creps) -> QMatrix:
    """``[Areps | creps]``: one exact product with ``(y, 1)`` gives every ``ℓ_j(y)``."""
    return QMatrix.hstack([Areps, QMatrix.column(creps)])


def centre_point(flp, kints):
    """An exact point well inside ``{Areps x + creps > 0}`` from the float centre of the warm
    model *flp* (``FloatLP(-Areps, creps, centre=True)``), verified exactly on the classes'
    integer rows *kints* (:class:`~semialgebraic.regions.integer.ClassInts`); None when the
    guess does not verify (the caller then runs the exact LP)."""
    got = flp.centre()
    if got is None or got[0] <= 1e-9:
        return None
    for y in _rounded(got[1], got[0], kints.d):
        if kints.inside(y):
            return y
    return None


def facet_point(flp, t, a, ci, kints):
    """An exact point of class *t*'s hyperplane with every other class > 0 (a facet witness)
    from the float centre of the facet in the warm model *flp*: rounded, projected exactly
    onto the hyperplane and verified exactly (*kints* as in :func:`centre_point`); None when
    the guess does not verify (the caller then runs the exact facet LP, which decides)."""
    got = flp.centre_on(t)
    if got is None or got[0] <= 1e-9:
        return None
    nn = dot(a, a)
    for x in _rounded(got[1], got[0], kints.d):
        r = (dot(a, x) + ci) / nn
        y = tuple(u - r * v for u, v in zip(x, a))
        if kints.inside(y, skip=t):
            return y
    return None


def foot_witnesses(point, Areps, creps):
    """For each class t: the foot of the perpendicular from the interior point onto its
    hyperplane if it witnesses a facet (every other class > 0 there), else None; one exact
    rational product for all feet.  (The walk computes the same on integer rows,
    :meth:`~semialgebraic.regions.integer.ClassInts.feet`; this is its rational reference.)"""
    m = len(creps)
    vals_p = [v + w for v, w in zip(Areps.apply(point), creps)]
    A = Areps.to_rows()
    feet = []
    for t in range(m):
        s = vals_p[t] / dot(A[t], A[t])
        feet.append([p - s * v for p, v in zip(point, A[t])])
    V = (Areps @ QMatrix.from_rows(feet, ncols=len(point)).T).to_rows()   # V[j][t] = a_j·y_t
    out = []
    for t in range(m):
        ok = all(V[j][t] + creps[j] > 0 for j in range(m) if j != t)
        out.append(tuple(feet[t]) if ok else None)
    return out


def misses_closure(t, a, ci, Areps, creps, flp, undecided, certified, d, ints) -> bool:
    """Exact proof that ℓ_t >= λ_0 > 0 on the closure: ℓ_t = Σ λ_f ℓ_f + λ_0, λ >= 0.

    *t*: the class tested (row *a*, constant *ci*) among the classes ``Areps x + creps > 0`` in
    dimension *d*; *flp*: a :class:`~semialgebraic.lp.FloatLP` of the classes; proofs found go
    into *certified* (class -> ``(support, λ, λ_0)``), for every class of *undecided* at once;
    *ints*: ``(ClassInts, scales, want_values, cache)`` for :func:`certify_with_basis`.

    The support of λ (a vertex basis) is guessed by a float LP (min ℓ_t over the closure);
    λ is then solved for exactly, for *every* undecided inequality at once (one product
    with the inverse of the basis), and each one whose λ >= 0 and λ_0 > 0 is certified.
    Only the exact identities count.
    """
    out = flp.minimize(-flp.A[t])
    if out is None:
        return False
    value, _, duals = out
    if value + float(ci) <= 1e-9 * (1.0 + abs(float(ci))):
        return False
    top = float(duals.max()) if len(duals) else 0.0
    support = [f for f in range(len(duals)) if f != t and duals[f] > 1e-9 * max(top, 1.0)]
    if not support:
        return False
    if len(support) == d:
        todo = [u for u in undecided if u not in certified and u not in support]
        if t not in todo:
            return False
        if certify_with_basis(support, *ints[:2], todo, certified, *ints[2:]):
            return t in certified
    sol = Areps.submatrix(rows=support).T.solve_general(list(a))
    if sol is None:
        return False
    lam = sol[0]
    if any(v < 0 for v in lam):
        return False
    lam0 = ci - dot(lam, [creps[f] for f in support])
    if lam0 > 0:
        certified[t] = (support, list(lam), lam0)
        return True
    return False

def certify_with_basis(support, kints, scales, todo, certified, want_values=False,
                       cache=None) -> bool:
    """Exact closure proofs of every class of *todo* over one basis *support* of d classes:
    λ solves ``Σ λ_f a_f = a_u`` (one exact inverse of the d x d integer basis, then integer
    products for all of them, :meth:`~semialgebraic.regions.integer.ClassInts.certify`); each u
    with λ >= 0 and ``λ_0 = c_u - Σ λ_f c_f > 0`` goes into *certified* as
    ``(support, λ, λ_0)`` (λ and λ_0 None unless *want_values*).  Any classes of the region
    may form the basis (each ``ℓ_f > 0`` on it), e.g. one that certified classes of a
    neighbouring region.  False when the basis is singular.  *cache*: inverses of bases
    shared between regions (:func:`~semialgebraic.regions.integer.basis_inverse`)."""
    if len(support) != kints.d:
        return False
    got = kints.certify(list(support), list(todo), want_values, scales, cache)
    if got is None:
        return False
    for u, vals in got.items():
        certified[u] = (list(support), *(vals if vals is not None else (None, None)))
    return True


def facet_lp(t, a, ci, Areps, creps, d):
    """Exact facet LP: a point with ℓ_t = 0 and every other class > 0 (dimension *d*), or None."""
    others = [j for j in range(len(creps)) if j != t]
    if not others:
        nn = dot(a, a)
        return tuple(-ci / nn * v for v in a)
    A_lt = -Areps.submatrix(rows=others)
    b_lt = [creps[j] for j in others]
    res = feasible(A_eq=[list(a)], b_eq=[-ci], A_lt=A_lt, b_lt=b_lt, n=d)
    return res.point if res.feasible else None
