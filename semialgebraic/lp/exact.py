r"""Exact linear programming over Q, with certificates: :func:`feasible` and :func:`optimize`.

:func:`feasible` returns an :class:`~semialgebraic.lp.certificates.LPResult`: either an exact
rational point that satisfies every constraint (the strict ones strictly) or an exact
Motzkin/Farkas infeasibility certificate (conditions in :mod:`semialgebraic.lp.certificates`).
:func:`optimize` maximises or minimises a linear objective and returns an
:class:`~semialgebraic.lp.certificates.LPOptimum` with a primal point, a dual certificate of
optimality (or an unbounded direction).

Method (``method="auto"``).  Equalities are eliminated exactly (``x = x0 + z N``, one RREF).
Then HiGHS guesses a point or a certificate for the inequalities and the guess is made exact
and verified over Q (:mod:`semialgebraic.lp.floatlp`).  When verification fails
(ill-conditioned or tiny regions), an exact two-phase simplex over Q with Bland's rule
(``method="exact"``, :mod:`semialgebraic.lp.simplex`) decides.  The exact fallback is our own
rather than delegated to z3 because z3 is only a test dependency and its LRA solver returns no
Motzkin multipliers; pycddlib has no Linux wheel (see DEPENDENCIES.md).  The fallback solves the
*dual* standard form (k + 1 rows for k free variables), whose optimal vector is the Motzkin
certificate and whose simplex multipliers are the point.

Measured with ``benchmarks/bench_lp.py`` (2 shared cores, 50 variables x 200 strict rows):
HiGHS + exact verification decides and certifies in a few tens of ms (median); the exact
fallback alone takes seconds at 20 x 80 and minutes at 50 x 200 (entry growth of exact
pivoting), so it runs only when verification fails.

:func:`optimize` (``method="auto"``) warm-starts the exact simplex from HiGHS's optimal basis:
solved exactly, repaired by exact pivots when it is not primal feasible
(:func:`~semialgebraic.lp.simplex.warm_std`), optimal only when the exact reduced costs say so;
``method="exact"`` starts cold.

>>> r = feasible(A_lt=[[1, 0], [0, 1], [-1, -1]], b_lt=[1, 1, 0])
>>> r.feasible, r.check()
(True, True)
>>> r = feasible(A_lt=[[1], [-1]], b_lt=[0, 0])          # x < 0 and x > 0
>>> r.feasible, r.certificate["y_lt"], r.check()
(False, [1/2, 1/2], True)
>>> optimize([1, 1], A_le=[[1, 0], [0, 1]], b_le=[1, 2]).value
3
"""

from __future__ import annotations

from typing import Sequence

from algebra.exceptions import DimensionMismatchError
from algebra.linalg import QMatrix
from algebra.rationals import Q, to_q

from ..exceptions import CertificateError
from .certificates import (LPOptimum, LPResult, LPSystem, add_vectors, combination, dot, lp_system,
                           satisfies, sub_vectors)
from .floatlp import guess_and_verify, guess_basis_le
from .simplex import revised_std, simplex_free_le, warm_std

__all__ = ["METHODS", "feasible", "is_feasible", "optimize"]

METHODS = ("auto", "exact")
"""Names accepted by ``method=``: HiGHS guess + exact verification with exact fallback, or the
exact simplex alone."""

_ZERO = Q(0)
_ONE = Q(1)


# ------------------------------------------------------------------------------------------------
# public functions
# ------------------------------------------------------------------------------------------------
def feasible(A_eq=None, b_eq=None, A_lt=None, b_lt=None, A_le=None, b_le=None, *,
             n: int | None = None, method: str = "auto") -> LPResult:
    """Decide ``A_eq x = b_eq, A_lt x < b_lt, A_le x <= b_le`` over Q, with proof.

    Parameters
    ----------
    A_eq, A_lt, A_le : QMatrix or sequence of rows, optional
    b_eq, b_lt, b_le : sequence of rationals, optional
    n : int, optional
        Number of variables (needed only when every block is missing or empty).
    method : {"auto", "exact"}
        ``"auto"``: HiGHS guess verified exactly, exact simplex when verification fails.

    Returns
    -------
    LPResult
        Verified: ``result.check()`` is True.

    Raises
    ------
    ValueError
        If *method* is unknown.
    DimensionMismatchError
        If the blocks have different numbers of columns, or a right-hand side has the wrong
        length.
    CertificateError
        If the point or the certificate fails its exact check (a bug in netfibers).

    Examples
    --------
    >>> feasible(A_eq=[[1, 1]], b_eq=[1], A_le=[[-1, 0], [0, -1]], b_le=[0, 0]).feasible
    True
    >>> r = feasible(A_le=[[1], [-1]], b_le=[0, -1])        # x <= 0 and x >= 1
    >>> r.feasible, r.certificate
    (False, {'y_eq': [], 'y_lt': [], 'y_le': [1, 1]})
    >>> feasible(n=3).point
    (0, 0, 0)
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {METHODS}")
    S = lp_system(A_eq, b_eq, A_lt, b_lt, A_le, b_le, n)
    res = _feasible(S, method)
    if not res.check():
        raise CertificateError("LP", f"{'point' if res.feasible else 'Motzkin certificate'} "
                                     "failed its exact check")
    return res


def is_feasible(*args, **kwargs) -> bool:
    """Whether the system is feasible: ``feasible(...).feasible``.

    Parameters
    ----------
    *args, **kwargs
        The arguments of :func:`feasible`.

    Returns
    -------
    bool
        True when an exact point exists (its proof is in ``feasible(...)``).

    Examples
    --------
    >>> is_feasible(A_lt=[[1], [-1]], b_lt=[1, 0]), is_feasible(A_lt=[[1], [-1]], b_lt=[0, 0])
    (True, False)
    """
    return feasible(*args, **kwargs).feasible


def optimize(c: Sequence[object], *, maximize: bool = True, A_eq=None, b_eq=None, A_lt=None,
             b_lt=None, A_le=None, b_le=None, n: int | None = None,
             method: str = "auto") -> LPOptimum:
    """Maximise (or minimise) ``c·x`` over the system, exactly, with a dual certificate.

    Strict rows make the feasible set open: the returned ``value`` is then the supremum
    (infimum), ``point`` an optimal point of the closure, and ``attained`` says whether that
    point satisfies the strict rows.  The system must be strictly feasible for status
    ``"optimal"``/``"unbounded"``; otherwise the status is ``"infeasible"`` with a Motzkin
    certificate.

    Parameters
    ----------
    c : sequence of rationals
        The objective (length n).
    maximize : bool
        Maximise (default) or minimise.
    A_eq, b_eq, A_lt, b_lt, A_le, b_le, n, method
        The system and the method, as in :func:`feasible`.

    Returns
    -------
    LPOptimum
        Verified: ``result.check()`` is True (dual certificate, unbounded direction or Motzkin
        certificate).

    Raises
    ------
    ValueError
        If *method* is unknown.
    DimensionMismatchError
        If the objective or a block has the wrong shape.
    CertificateError
        If the result fails its exact check (a bug in netfibers).

    Examples
    --------
    >>> o = optimize([1, 0], A_lt=[[1, 0]], b_lt=[2], A_le=[[-1, 0], [0, 1], [0, -1]], b_le=[0, 1, 1])
    >>> o.status, o.value, o.attained, o.check()
    ('optimal', 2, False, True)
    >>> optimize([1], A_le=[[-1]], b_le=[0]).status
    'unbounded'
    >>> optimize([1], maximize=False, A_le=[[1], [-1]], b_le=[-1, 0]).status
    'infeasible'
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {METHODS}")
    S = lp_system(A_eq, b_eq, A_lt, b_lt, A_le, b_le, n if n is not None else len(c))
    c = tuple(to_q(v) for v in c)
    if len(c) != S.n:
        raise DimensionMismatchError("optimize: objective length", len(c), S.n)
    res = _optimize(S, c, maximize, method)
    if not res.check():
        raise CertificateError("LP optimum", f"{res.status} result failed its exact check")
    return res


# ------------------------------------------------------------------------------------------------
# feasibility
# ------------------------------------------------------------------------------------------------
def _solve_equalities(S: LPSystem):
    """``(x0, N)`` of ``A_eq x = b_eq`` (:meth:`QMatrix.solve_general`), or None.  One equality
    (a facet's hyperplane) is pivoted on its largest coefficient: the first non-zero one, tiny
    in a trained net (an input pixel that is always 0: 9e-16), gave x0 of ~1e27 and rows of N up
    to 1e16, which HiGHS could not solve (status "unknown": the cold exact simplex decided)."""
    A = S.A_eq
    if A.nrows != 1 or A.ncols < 2:
        return A.solve_general(S.b_eq)
    row = A.row_at(0)
    j = max(range(A.ncols), key=lambda i: abs(row[i]))
    if j == 0 or row[j] == 0:
        return A.solve_general(S.b_eq)
    perm = [j] + [i for i in range(A.ncols) if i != j]
    sol = A.submatrix(cols=perm).solve_general(S.b_eq)
    if sol is None:
        return None
    x0p, Np = sol
    inv = [0] * len(perm)
    for i, c in enumerate(perm):
        inv[c] = i
    return tuple(x0p[inv[c]] for c in range(len(perm))), Np.submatrix(cols=inv)


def _feasible(S: LPSystem, method: str) -> LPResult:
    n = S.n
    # 1. equalities, exactly: x = x0 + z N
    if S.A_eq.nrows:
        sol = _solve_equalities(S)
        if sol is None:
            return LPResult(False, None, _eq_certificate(S), "exact-rref", S)
        x0, N = sol
        N_T = N.T
        k = N.nrows
        G_lt = S.A_lt @ N_T if S.A_lt.nrows else QMatrix.zeros(0, k)
        G_le = S.A_le @ N_T if S.A_le.nrows else QMatrix.zeros(0, k)
        h_lt = sub_vectors(S.b_lt, S.A_lt.apply(x0)) if S.A_lt.nrows else ()
        h_le = sub_vectors(S.b_le, S.A_le.apply(x0)) if S.A_le.nrows else ()
    else:
        x0, N, k = (_ZERO,) * n, None, n
        G_lt, G_le, h_lt, h_le = S.A_lt, S.A_le, S.b_lt, S.b_le
    # 2. inequalities only, in k variables
    res = None
    hint: list = []
    if method == "auto" and k > 0 and (G_lt.nrows + G_le.nrows) > 0:
        res = guess_and_verify(G_lt, h_lt, G_le, h_le, hint)
    if res is None:
        res = _exact_inequalities(G_lt, h_lt, G_le, h_le, hint[0] if hint else None)
        how = "exact-simplex"
    else:
        how = "highs+exact"
    ok, payload = res
    if ok:
        z = payload
        if N is None:
            x = tuple(z)
        else:
            x = add_vectors(x0, N.T.apply(z)) if k else tuple(x0)
        return LPResult(True, tuple(x), None, how, S)
    y_lt, y_le = payload
    y_eq = _lift_eq_multipliers(S, y_lt, y_le) if S.A_eq.nrows else []
    cert = _normalise({"y_eq": list(y_eq), "y_lt": list(y_lt), "y_le": list(y_le)}, S)
    return LPResult(False, None, cert, how, S)


def _eq_certificate(S: LPSystem) -> dict:
    """y with yᵀ A_eq = 0 and y·b_eq = -1 (the equalities alone are inconsistent)."""
    K = S.A_eq.left_nullspace()
    for i in range(K.nrows):
        y = K.row_at(i)
        beta = dot(y, S.b_eq)
        if beta != 0:
            y = tuple(v / -beta for v in y)
            return {"y_eq": list(y), "y_lt": [_ZERO] * S.A_lt.nrows, "y_le": [_ZERO] * S.A_le.nrows}
    raise CertificateError("LP", "inconsistent equalities without a left-null witness")


def _lift_eq_multipliers(S, y_lt, y_le):
    """y_eq with A_eqᵀ y_eq = -(A_ltᵀ y_lt + A_leᵀ y_le) (exists since the rest vanishes on N)."""
    v = combination(S, [_ZERO] * S.A_eq.nrows, y_lt, y_le)
    sol = S.A_eq.T.solve_general([-t for t in v])
    if sol is None:
        raise CertificateError("LP", "reduced certificate does not lift to the equalities")
    return sol[0]


def _normalise(cert: dict, S: LPSystem) -> dict:
    beta = dot(S.b_eq, cert["y_eq"]) + dot(S.b_lt, cert["y_lt"]) + dot(S.b_le, cert["y_le"])
    if beta < 0:
        s = -beta
    else:
        s = sum(cert["y_lt"], _ZERO)
        if s <= 0:
            return cert
    return {k: [v / s for v in vs] for k, vs in cert.items()}


def _exact_inequalities(G_lt, h_lt, G_le, h_le, hint=None, closed=False):
    """Exact simplex: returns (True, z) or (False, (y_lt, y_le)).

    *hint*: HiGHS's optimal basis of the primal ``max t`` (see :func:`_warm_basis`); when it
    gives an exactly feasible basis of the dual standard form below, the exact simplex starts
    there (:func:`~semialgebraic.lp.simplex.warm_std`) instead of from phase one.

    *closed*: the rows *G_lt* are non-strict (``<=``; *G_le* then empty): the same ``max t``
    decides them with ``t >= 0`` for feasible (its optimal y with ``h·y < 0`` is a Farkas
    certificate), so a system of non-strict rows alone also gets HiGHS's warm start (with no
    strict row its dual had no ``t`` and no basis to start from: a cold simplex on the dual of
    2 400 rows in 98 variables, identify's positive functional of a 48-2400-2 bottleneck, > 5 min)."""
    k = G_lt.ncols
    m_lt, m_le = G_lt.nrows, G_le.nrows
    if not closed and not m_lt and m_le and k:
        ok, payload = _exact_inequalities(G_le, h_le, G_lt, h_lt, hint, closed=True)
        return (ok, payload) if ok else (ok, ((), payload[0]))
    if k == 0:
        bad_lt = [i for i, h in enumerate(h_lt) if (h < 0 if closed else not h > 0)]
        bad_le = [i for i, h in enumerate(h_le) if h < 0]
        if not bad_lt and not bad_le:
            return True, ()
        y_lt, y_le = [_ZERO] * m_lt, [_ZERO] * m_le
        if bad_le:
            y_le[bad_le[0]] = _ONE
        else:
            y_lt[bad_lt[0]] = _ONE
        return False, (y_lt, y_le)
    m = m_lt + m_le
    if m < k:
        # fewer rows than variables (a facet LP of a region of a net on R^64: 19 rows in 63
        # variables): only G z matters, and G's pivot columns span its image, so z on them
        # (the others 0) loses no point, and a certificate y with yᵀ G = 0 on the pivot columns
        # has it on every column (each a combination of them).  The dual below then has r + 1
        # independent rows instead of k + 1 with k - r redundant (a cold simplex of 1.3 s each,
        # 14 in 20 regions of a trained 64-12-8-10 digits net: HiGHS's basis left ~50 free
        # columns non-basic, no warm start)
        piv = list(QMatrix.vstack([G_lt, G_le]).rref()[1])
        if len(piv) < k:
            ok, payload = _exact_inequalities(G_lt.submatrix(cols=piv), h_lt,
                                              G_le.submatrix(cols=piv), h_le, closed=closed)
            if not ok:
                return ok, payload
            z = [_ZERO] * k
            for j, v in zip(piv, payload):
                z[j] = v
            return True, tuple(z)
    # The dual of   max t  s.t.  G_lt z + t <= h_lt,  G_le z <= h_le,  t <= 1   (z, t free):
    #   min h·y + y_cap  s.t.  Σ_i y_i G_i = 0,  Σ_lt y_i + y_cap = 1,  y, y_cap >= 0,
    # a standard-form LP with only k + 1 rows (k = number of variables): much smaller tableaux
    # than the primal's.  Its optimal y is a Motzkin certificate when the optimum is <= 0; its
    # simplex multipliers are the primal point (z, t) otherwise; a ray is a Farkas certificate.
    G_rows = [G_lt.row_at(i) for i in range(m_lt)] + [G_le.row_at(i) for i in range(m_le)]
    rows = [[G_rows[i][j] for i in range(m)] + [_ZERO] for j in range(k)]
    rows.append([_ONE] * m_lt + [_ZERO] * m_le + [_ONE])
    rhs = [_ZERO] * k + [_ONE]
    h = list(h_lt) + list(h_le)
    cost = [-v for v in h] + [Q(-1)]
    warm = _warm_basis(hint, m, k)
    got = warm_std(rows, rhs, cost, warm) if warm is not None else None
    status, x, extra = got if got is not None else revised_std(rows, rhs, cost, [None] * k + [m])
    if status == "unbounded":  # Farkas ray on the non-strict rows
        r = extra
        return False, (tuple(r[:m_lt]), tuple(r[m_lt:m]))
    if status != "optimal":
        raise CertificateError("LP", "the exact dual simplex found its (always feasible) LP infeasible")
    value = dot(h, x[:m]) + x[m]
    if closed and value < 0:
        return False, (tuple(x[:m_lt]), ())
    if not closed and m_lt and value <= 0:
        return False, (tuple(x[:m_lt]), tuple(x[m_lt:m]))
    z = tuple(-v for v in extra[:k])
    return True, z


def _warm_basis(hint, m, k):
    """The dual basis matching HiGHS's primal basis, or None.

    The primal ``max t`` has k + 1 columns (z, t); at a vertex its k + 1 nonbasic constraints
    (rows at their bound, and ``t <= 1``) are the basic variables of the dual standard form
    (columns ``y_0 … y_{m-1}``, ``y_cap = m``).  A free column of z left nonbasic (degenerate)
    or a count other than k + 1 gives no basis.  Only a guess: :func:`warm_std` checks it."""
    if hint is None:
        return None
    rows, t_nonbasic, n_cols = hint[:3]
    if n_cols != (1 if t_nonbasic else 0):
        return None
    basis = list(rows) + ([m] if t_nonbasic else [])
    return basis if len(basis) == k + 1 else None


# ------------------------------------------------------------------------------------------------
# optimisation
# ------------------------------------------------------------------------------------------------
def _optimize(S: LPSystem, c: tuple, maximize: bool, method: str) -> LPOptimum:
    common = dict(maximize=maximize, objective=c, system=S)
    if S.A_lt.nrows:
        fr = _feasible(S, method)
        if not fr.feasible:
            return LPOptimum("infeasible", certificate=fr.certificate, method=fr.method, **common)
    cc = c if maximize else tuple(-v for v in c)
    # closure: strict rows relaxed; eliminate equalities exactly
    n = S.n
    if S.A_eq.nrows:
        sol = S.A_eq.solve_general(S.b_eq)
        if sol is None:
            return LPOptimum("infeasible", certificate=_eq_certificate(S), method="exact-rref", **common)
        x0, N = sol
    else:
        x0, N = (_ZERO,) * n, QMatrix.identity(n)
    k = N.nrows
    A_in = QMatrix.vstack([S.A_lt, S.A_le])
    b_in = list(S.b_lt) + list(S.b_le)
    G = A_in @ N.T if A_in.nrows else QMatrix.zeros(0, k)
    h = sub_vectors(b_in, A_in.apply(x0)) if A_in.nrows else ()
    cz = N.apply(cc) if k else ()
    rows = [list(G.row_at(i)) for i in range(G.nrows)]
    if k == 0:
        if any(v < 0 for v in h):
            fr = _feasible(S, "exact")
            return LPOptimum("infeasible", certificate=fr.certificate, method="exact", **common)
        status, z, y, ray = "optimal", (), [_ZERO] * len(h), None
    else:
        # HiGHS's optimal basis, solved and checked exactly (repaired by exact pivots when it
        # is not feasible), else the cold exact simplex
        warm = guess_basis_le(G, h, cz) if method == "auto" and rows else None
        status, z, extra = simplex_free_le(rows, list(h), list(cz), warm=warm)
        if status == "optimal":
            y = extra
        elif status == "unbounded":
            ray = extra
    if status == "infeasible":
        fr = _feasible(S, "exact")
        return LPOptimum("infeasible", certificate=fr.certificate, method="exact", **common)
    x = tuple(add_vectors(x0, N.T.apply(z))) if k else tuple(x0)
    if status == "unbounded":
        r = tuple(N.T.apply(ray))
        return LPOptimum("unbounded", point=x, direction=r, method="exact-simplex",
                         attained=satisfies(S, x), **common)
    m_lt = S.A_lt.nrows
    y_lt, y_le = list(y[:m_lt]), list(y[m_lt:])
    if S.A_eq.nrows:
        v = combination(S, [_ZERO] * S.A_eq.nrows, y_lt, y_le)
        sol = S.A_eq.T.solve_general(sub_vectors(cc, v))
        if sol is None:
            raise CertificateError("LP optimum", "dual does not lift to the equalities")
        y_eq = list(sol[0])
    else:
        y_eq = []
    value = dot(cc, x)
    return LPOptimum("optimal", value=value if maximize else -value, point=x,
                     dual={"y_eq": y_eq, "y_lt": y_lt, "y_le": y_le},
                     attained=satisfies(S, x), method="exact-simplex", **common)
