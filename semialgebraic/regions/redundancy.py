r"""Redundancy multipliers of a linear region: exact proofs that its facets cut it out.

For every inequality ``k`` of a region (see :mod:`semialgebraic.regions.walk`) that is not a
listed facet and not the trivial ``0·x + 0``, exact Farkas multipliers ``λ_0 >= 0, λ_f >= 0``
with ``ℓ_k = λ_0 + Σ_f λ_f ℓ_f`` over the facets (``Region.redundant``): they prove that the
closed region is cut out by its facets (the ``region_cover`` certificate of
:mod:`semialgebraic.equivalence` needs them).  The exact proof that a hyperplane misses the
closure (found while deciding the facets) is reused when its basis consists of facets; otherwise
the support of λ is guessed by a float LP over the facets and λ solved for exactly; when that
fails, an exact Motzkin certificate of :func:`semialgebraic.lp.feasible` gives λ.  Only the
exact identities count; the float LP only guesses supports.
"""

from __future__ import annotations

from algebra.linalg import QMatrix
from algebra.rationals import Q

from ..budget import checkpoint
from ..exceptions import CertificateError
from ..lp import FloatLP, dot, feasible

__all__ = ["redundancy_multipliers"]

_ZERO = Q(0)


def redundancy_multipliers(rows, c, active, classes, order, facets, d, known=None) -> dict:
    """Exact ``(λ_0, λ)`` with ``ℓ_k = λ_0 + Σ_f λ_f ℓ_f``, λ >= 0, for every non-facet k.

    *rows*, *c*: the inequalities ``a_k·x + c_k > 0`` of a region in dimension *d*; *active*:
    the indices of the non-zero rows; *classes*, *order*: the classes of coinciding hyperplanes
    (key -> indices, keys in order); *facets*: the facet representatives; *known*: multipliers
    already proved while deciding the facets.  Raises :class:`CertificateError` when an
    inequality is neither a facet nor implied by the facets.

    Non-facet hyperplanes are batched: the float minimum of one of them over the closed
    region gives a vertex basis of facets, and λ is solved exactly for every pending one
    at once with that basis (kept where λ >= 0, λ_0 >= 0); the rest go one by one.
    """
    pos = {i: p for p, i in enumerate(facets)}
    nf = len(facets)
    zero = (_ZERO,) * nf
    out: dict = dict(known or {})     # (λ_0 > 0, λ over the facets) already proved
    AF = QMatrix.from_rows([rows[i] for i in facets], ncols=d) if facets else None
    cF = [c[i] for i in facets]
    todo = [classes[key][0] for key in order if classes[key][0] not in pos and classes[key][0] not in out]
    flp = FloatLP(-AF, cF) if facets and todo else None
    while todo:
        checkpoint()
        k = todo[0]
        S = _support(rows[k], flp)
        basis = S if S and len(S) == d and AF.submatrix(rows=S).rank() == d else None
        if basis is not None:
            inv = AF.submatrix(rows=basis).T.inverse()
            Lam = (inv @ QMatrix.from_rows([rows[u] for u in todo], ncols=d).T).to_rows()
            cB = [cF[f] for f in basis]
            for col, u in enumerate(todo):
                lam = [Lam[r][col] for r in range(len(basis))]
                if all(v >= 0 for v in lam):
                    lam0 = c[u] - dot(lam, cB)
                    if lam0 >= 0:
                        full = [_ZERO] * nf
                        for f, v in zip(basis, lam):
                            full[f] = v
                        out[u] = (lam0, tuple(full))
        if k not in out:
            got = _farkas(rows[k], c[k], AF, cF, S)
            if got is None:
                raise CertificateError("regions", f"inequality {k} is neither a facet nor "
                                       "implied by the facets")
            out[k] = got
        todo = [u for u in todo if u not in out]
    for key in order:
        cls = classes[key]
        rep = cls[0]
        base = out[rep] if rep not in pos else \
            (_ZERO, tuple(_ZERO if p != pos[rep] else Q(1) for p in range(nf)))
        s = next(v for v in rows[rep] if v != 0)
        for i in cls[1:]:
            mu = next(v for v in rows[i] if v != 0) / s      # ℓ_i = μ ℓ_rep, μ > 0
            out[i] = (mu * base[0], tuple(mu * v for v in base[1]))
    act = set(active)
    for i in range(len(rows)):
        if i not in act and c[i] != 0:                    # positive constant
            out[i] = (c[i], zero)
    return out

def _support(a, flp):
    """Facets with a positive float dual at a minimiser of a·x over the closure, or None."""
    got = flp.minimize(a) if flp is not None else None
    if got is None:
        return None
    duals = got[2]
    top = float(duals.max()) if len(duals) else 0.0
    return [f for f in range(len(duals)) if duals[f] > 1e-9 * max(top, 1.0)] or None

def _farkas(a, ci, AF, cF, S):
    """``(λ_0, λ)`` >= 0 with ``a·x + ci = λ_0 + Σ λ_f (a_f·x + c_f)``, or None.

    First λ supported on the guessed facets *S* (exact solve), else an exact Motzkin
    certificate that ``{ℓ_f > 0 for all f, a·x + ci < 0}`` is empty.
    """
    if S:
        sol = AF.submatrix(rows=S).T.solve_general(list(a))
        if sol is not None and all(v >= 0 for v in sol[0]):
            lam0 = ci - dot(sol[0], [cF[f] for f in S])
            if lam0 >= 0:
                lam = [_ZERO] * len(cF)
                for f, v in zip(S, sol[0]):
                    lam[f] = v
                return lam0, tuple(lam)
    n = len(cF)
    A_lt = QMatrix.vstack([-AF, QMatrix.row(list(a))]) if n else QMatrix.row(list(a))
    res = feasible(A_lt=A_lt, b_lt=list(cF) + [-ci], n=len(a))
    if res.feasible:
        return None
    y = res.certificate["y_lt"]
    if y[-1] <= 0:
        return None
    lam = tuple(v / y[-1] for v in y[:-1])
    lam0 = ci - dot(lam, cF)
    return (lam0, lam) if lam0 >= 0 else None
