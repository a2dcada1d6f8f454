r"""Exact linear programming over Q, with certificates (issue 3).

Systems have the form

.. math:: A_{eq} x = b_{eq}, \quad A_{lt} x < b_{lt}, \quad A_{le} x \le b_{le}, \qquad x \in \mathbb{Q}^n .

:func:`feasible` returns an :class:`LPResult`: either an exact rational point that satisfies every
constraint (the strict ones strictly) or an exact Motzkin/Farkas infeasibility certificate.
:func:`optimize` maximises or minimises a linear objective and returns an :class:`LPOptimum`
with a primal point, a dual certificate of optimality (or an unbounded direction).

Infeasibility certificate (Motzkin's transposition theorem).  Multipliers
``y_eq`` (free), ``y_lt >= 0``, ``y_le >= 0`` with

1. ``A_eqᵀ y_eq + A_ltᵀ y_lt + A_leᵀ y_le = 0`` (the combination of left-hand sides vanishes), and
2. with ``β = b_eq·y_eq + b_lt·y_lt + b_le·y_le``: either ``β < 0``, or ``β <= 0`` and some
   entry of ``y_lt`` is positive.

If x were feasible, ``0 = yᵀ A x`` would be ``< β`` (when some y_lt > 0) or ``<= β``, contradicting
2.  Certificates are normalised so that ``β = -1``, or else ``Σ y_lt = 1``.  The check is a few
exact matrix-vector products (:func:`check_infeasibility_certificate`).

Method (``method="auto"``).  Equalities are eliminated exactly (``x = x0 + z N``, one RREF).
Then HiGHS (float, imported lazily) maximises a slack ``t <= 1`` on the strict rows, each row
scaled by its Euclidean norm (a Chebyshev-like centre, so the guessed point is well inside).  The
guess is made exact and *verified over Q*: a point by rounding its coordinates to small
denominators (or, when non-strict rows are active, by solving the active rows exactly and
rounding the remaining free coordinates); an infeasible verdict by solving for the multipliers
exactly on the support of HiGHS's dual vector (or dual ray) and checking conditions 1-2.  When
verification fails (ill-conditioned or tiny regions), an exact two-phase simplex over Q with
Bland's rule (``method="exact"``, this module) decides.  The exact fallback is written here
rather than delegated to z3 because z3 is only a test dependency and its LRA solver returns no
Motzkin multipliers; pycddlib has no Linux wheel (see DEPENDENCIES.md).  The fallback solves the
*dual* standard form (k + 1 rows for k free variables), whose optimal vector is the Motzkin
certificate and whose simplex multipliers are the point.

Measured with ``benchmarks/bench_lp.py`` (2 shared cores, 50 variables x 200 strict rows):
HiGHS + exact verification decides and certifies in a few tens of ms (median); the exact
fallback alone takes seconds at 20 x 80 and minutes at 50 x 200 (entry growth of exact
pivoting), so it runs only when verification fails.

:func:`optimize` runs the exact simplex directly (no float guess): it is meant for the small
LPs of region geometry; :func:`feasible` is the fast path.

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

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

from algebra.exceptions import DimensionMismatchError
from algebra.linalg import QMatrix
from algebra.rationals import Q, q_json, to_q

from .exceptions import CertificateError
from .simplex import revised_std, simplex_free_le

__all__ = [
    "LPResult",
    "LPOptimum",
    "feasible",
    "is_feasible",
    "optimize",
    "check_infeasibility_certificate",
    "FloatLP",
    "METHODS",
]

METHODS = ("auto", "exact")
"""Names accepted by ``method=``: HiGHS guess + exact verification with exact fallback, or the
exact simplex alone."""

_ZERO = Q(0)
_ONE = Q(1)


# ------------------------------------------------------------------------------------------------
# systems
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _System:
    """A normalised system: three QMatrix blocks with n columns and their right-hand sides."""

    A_eq: QMatrix
    b_eq: tuple
    A_lt: QMatrix
    b_lt: tuple
    A_le: QMatrix
    b_le: tuple

    @property
    def n(self) -> int:
        return self.A_eq.ncols

    def to_json(self) -> dict:
        return {"A_eq": self.A_eq.to_json(), "b_eq": [q_json(v) for v in self.b_eq],
                "A_lt": self.A_lt.to_json(), "b_lt": [q_json(v) for v in self.b_lt],
                "A_le": self.A_le.to_json(), "b_le": [q_json(v) for v in self.b_le], "n": self.n}


def _matrix(A, b, n, what):
    if A is None:
        if b is not None and len(b) != 0:
            raise DimensionMismatchError(f"{what}: right-hand side without matrix", len(b))
        return None, ()
    M = A if isinstance(A, QMatrix) else QMatrix.from_rows(A, ncols=n)
    bb = tuple(to_q(v) for v in (b if b is not None else ()))
    if len(bb) != M.nrows:
        raise DimensionMismatchError(f"{what}: {M.nrows} rows but {len(bb)} right-hand sides",
                                     M.shape, len(bb))
    return M, bb


def _system(A_eq, b_eq, A_lt, b_lt, A_le, b_le, n) -> _System:
    mats = [_matrix(A_eq, b_eq, n, "A_eq"), _matrix(A_lt, b_lt, n, "A_lt"),
            _matrix(A_le, b_le, n, "A_le")]
    widths = {M.ncols for M, _ in mats if M is not None and M.nrows > 0}
    if n is None:
        widths |= {M.ncols for M, _ in mats if M is not None}
    if n is not None:
        widths.add(int(n))
    if len(widths) > 1:
        raise DimensionMismatchError("LP blocks have different numbers of columns", sorted(widths))
    if not widths:
        raise DimensionMismatchError("LP: pass n= when every block is empty or missing", 0)
    n = widths.pop()
    out = []
    for M, b in mats:
        if M is None or M.nrows == 0:
            M = QMatrix.zeros(0, n)
        out += [M, b]
    return _System(*out)


# ------------------------------------------------------------------------------------------------
# results
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LPResult:
    """Outcome of :func:`feasible`.

    Attributes
    ----------
    feasible : bool
    point : tuple of Q or None
        A point satisfying every constraint exactly (strict ones strictly) when feasible.
    certificate : dict or None
        ``{"y_eq": [...], "y_lt": [...], "y_le": [...]}`` (lists of Q) satisfying the Motzkin
        conditions of the module docstring when infeasible.
    method : str
        ``"highs+exact"`` (float guess verified over Q) or ``"exact-simplex"``.
    """

    feasible: bool
    point: tuple | None
    certificate: dict | None
    method: str = ""
    system: _System | None = field(default=None, repr=False, compare=False)

    def check(self) -> bool:
        """Re-check the point or the certificate exactly against the system."""
        if self.system is None:
            return False
        if self.feasible:
            return self.point is not None and _satisfies(self.system, self.point)
        return self.certificate is not None and check_infeasibility_certificate(
            self.system, self.certificate)

    def __bool__(self) -> bool:
        return self.feasible

    def to_json(self) -> dict:
        out = {"feasible": self.feasible, "method": self.method, "system": self.system.to_json()
               if self.system else None}
        if self.point is not None:
            out["point"] = [q_json(v) for v in self.point]
        if self.certificate is not None:
            out["certificate"] = {k: [q_json(v) for v in vs] for k, vs in self.certificate.items()}
        return out


@dataclass(frozen=True)
class LPOptimum:
    """Outcome of :func:`optimize`.

    ``status`` is ``"optimal"``, ``"infeasible"`` or ``"unbounded"``.  ``value`` is the optimum
    (the supremum/infimum over the system; with strict rows it is attained only if ``attained``),
    ``point`` an optimal point of the closure (strict rows relaxed to ``<=``), ``dual`` the
    multipliers ``{"y_eq", "y_lt", "y_le"}`` with ``A_eqᵀ y_eq + A_ltᵀ y_lt + A_leᵀ y_le = c``
    (for a maximum; ``= -c`` for a minimum), ``y_lt, y_le >= 0`` and ``b·y = ±value`` — a proof of
    optimality by weak duality.  When unbounded, ``direction`` r satisfies ``A_eq r = 0``,
    ``A_lt r <= 0``, ``A_le r <= 0`` and improves the objective; when infeasible,
    ``certificate`` is a Motzkin certificate as in :class:`LPResult`.
    """

    status: str
    value: Q | None = None
    point: tuple | None = None
    dual: dict | None = None
    direction: tuple | None = None
    certificate: dict | None = None
    attained: bool = False
    maximize: bool = True
    method: str = ""
    objective: tuple = ()
    system: _System | None = field(default=None, repr=False, compare=False)

    def check(self) -> bool:
        """Re-check every claim exactly."""
        S = self.system
        if S is None:
            return False
        if self.status == "infeasible":
            return self.certificate is not None and check_infeasibility_certificate(S, self.certificate)
        c = self.objective if self.maximize else tuple(-v for v in self.objective)
        if self.point is None or not _satisfies(S, self.point, relax_strict=True):
            return False
        if self.status == "unbounded":
            r = self.direction
            if r is None or len(r) != S.n:
                return False
            return (all(v == 0 for v in S.A_eq.apply(r)) and all(v <= 0 for v in S.A_lt.apply(r))
                    and all(v <= 0 for v in S.A_le.apply(r)) and _dot(c, r) > 0)
        if self.status != "optimal" or self.dual is None:
            return False
        y_eq, y_lt, y_le = self.dual["y_eq"], self.dual["y_lt"], self.dual["y_le"]
        if any(v < 0 for v in y_lt) or any(v < 0 for v in y_le):
            return False
        if _combination(S, y_eq, y_lt, y_le) != tuple(c):
            return False
        val = _dot(c, self.point)
        bound = _dot(S.b_eq, y_eq) + _dot(S.b_lt, y_lt) + _dot(S.b_le, y_le)
        signed = self.value if self.maximize else -self.value
        return val == bound == signed and self.attained == _satisfies(S, self.point)


def check_infeasibility_certificate(system: _System, cert: dict) -> bool:
    """True iff *cert* satisfies the Motzkin conditions 1-2 of the module docstring."""
    try:
        y_eq = [to_q(v) for v in cert["y_eq"]]
        y_lt = [to_q(v) for v in cert["y_lt"]]
        y_le = [to_q(v) for v in cert["y_le"]]
    except (KeyError, TypeError, ValueError):
        return False
    S = system
    if (len(y_eq), len(y_lt), len(y_le)) != (S.A_eq.nrows, S.A_lt.nrows, S.A_le.nrows):
        return False
    if any(v < 0 for v in y_lt) or any(v < 0 for v in y_le):
        return False
    if any(v != 0 for v in _combination(S, y_eq, y_lt, y_le)):
        return False
    beta = _dot(S.b_eq, y_eq) + _dot(S.b_lt, y_lt) + _dot(S.b_le, y_le)
    return beta < 0 or (beta <= 0 and any(v > 0 for v in y_lt))


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
        Verified: ``result.check()`` is True (this function raises
        :class:`~semialgebraic.exceptions.CertificateError` otherwise, which would be a bug).

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
    S = _system(A_eq, b_eq, A_lt, b_lt, A_le, b_le, n)
    res = _feasible(S, method)
    if not res.check():
        raise CertificateError("LP", f"{'point' if res.feasible else 'Motzkin certificate'} "
                                     "failed its exact check")
    return res


def is_feasible(*args, **kwargs) -> bool:
    """``feasible(...).feasible`` (same arguments)."""
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
    S = _system(A_eq, b_eq, A_lt, b_lt, A_le, b_le, n if n is not None else len(c))
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
def _feasible(S: _System, method: str) -> LPResult:
    n = S.n
    # 1. equalities, exactly: x = x0 + z N
    if S.A_eq.nrows:
        sol = S.A_eq.solve_general(S.b_eq)
        if sol is None:
            return LPResult(False, None, _eq_certificate(S), "exact-rref", S)
        x0, N = sol
        N_T = N.T
        k = N.nrows
        G_lt = S.A_lt @ N_T if S.A_lt.nrows else QMatrix.zeros(0, k)
        G_le = S.A_le @ N_T if S.A_le.nrows else QMatrix.zeros(0, k)
        h_lt = _sub(S.b_lt, S.A_lt.apply(x0)) if S.A_lt.nrows else ()
        h_le = _sub(S.b_le, S.A_le.apply(x0)) if S.A_le.nrows else ()
    else:
        x0, N, k = (_ZERO,) * n, None, n
        G_lt, G_le, h_lt, h_le = S.A_lt, S.A_le, S.b_lt, S.b_le
    # 2. inequalities only, in k variables
    res = None
    if method == "auto" and k > 0 and (G_lt.nrows + G_le.nrows) > 0:
        res = _guess_and_verify(G_lt, h_lt, G_le, h_le)
    if res is None:
        res = _exact_inequalities(G_lt, h_lt, G_le, h_le)
        how = "exact-simplex"
    else:
        how = "highs+exact"
    ok, payload = res
    if ok:
        z = payload
        if N is None:
            x = tuple(z)
        else:
            x = _add(x0, N.T.apply(z)) if k else tuple(x0)
        return LPResult(True, tuple(x), None, how, S)
    y_lt, y_le = payload
    y_eq = _lift_eq_multipliers(S, y_lt, y_le) if S.A_eq.nrows else []
    cert = _normalise({"y_eq": list(y_eq), "y_lt": list(y_lt), "y_le": list(y_le)}, S)
    return LPResult(False, None, cert, how, S)


def _eq_certificate(S: _System) -> dict:
    """y with yᵀ A_eq = 0 and y·b_eq = -1 (the equalities alone are inconsistent)."""
    K = S.A_eq.left_nullspace()
    for i in range(K.nrows):
        y = K.row_at(i)
        beta = _dot(y, S.b_eq)
        if beta != 0:
            y = tuple(v / -beta for v in y)
            return {"y_eq": list(y), "y_lt": [_ZERO] * S.A_lt.nrows, "y_le": [_ZERO] * S.A_le.nrows}
    raise CertificateError("LP", "inconsistent equalities without a left-null witness")


def _lift_eq_multipliers(S, y_lt, y_le):
    """y_eq with A_eqᵀ y_eq = -(A_ltᵀ y_lt + A_leᵀ y_le) (exists since the rest vanishes on N)."""
    v = _combination(S, [_ZERO] * S.A_eq.nrows, y_lt, y_le)
    sol = S.A_eq.T.solve_general([-t for t in v])
    if sol is None:
        raise CertificateError("LP", "reduced certificate does not lift to the equalities")
    return sol[0]


def _normalise(cert: dict, S: _System) -> dict:
    beta = _dot(S.b_eq, cert["y_eq"]) + _dot(S.b_lt, cert["y_lt"]) + _dot(S.b_le, cert["y_le"])
    if beta < 0:
        s = -beta
    else:
        s = sum(cert["y_lt"], _ZERO)
        if s <= 0:
            return cert
    return {k: [v / s for v in vs] for k, vs in cert.items()}


def _exact_inequalities(G_lt, h_lt, G_le, h_le):
    """Exact simplex: returns (True, z) or (False, (y_lt, y_le))."""
    k = G_lt.ncols
    m_lt, m_le = G_lt.nrows, G_le.nrows
    if k == 0:
        bad_lt = [i for i, h in enumerate(h_lt) if not h > 0]
        bad_le = [i for i, h in enumerate(h_le) if h < 0]
        if not bad_lt and not bad_le:
            return True, ()
        y_lt, y_le = [_ZERO] * m_lt, [_ZERO] * m_le
        if bad_le:
            y_le[bad_le[0]] = _ONE
        else:
            y_lt[bad_lt[0]] = _ONE
        return False, (y_lt, y_le)
    # The dual of   max t  s.t.  G_lt z + t <= h_lt,  G_le z <= h_le,  t <= 1   (z, t free):
    #   min h·y + y_cap  s.t.  Σ_i y_i G_i = 0,  Σ_lt y_i + y_cap = 1,  y, y_cap >= 0,
    # a standard-form LP with only k + 1 rows (k = number of variables): much smaller tableaux
    # than the primal's.  Its optimal y is a Motzkin certificate when the optimum is <= 0; its
    # simplex multipliers are the primal point (z, t) otherwise; a ray is a Farkas certificate.
    m = m_lt + m_le
    G_rows = [G_lt.row_at(i) for i in range(m_lt)] + [G_le.row_at(i) for i in range(m_le)]
    rows = [[G_rows[i][j] for i in range(m)] + [_ZERO] for j in range(k)]
    rows.append([_ONE] * m_lt + [_ZERO] * m_le + [_ONE])
    rhs = [_ZERO] * k + [_ONE]
    h = list(h_lt) + list(h_le)
    cost = [-v for v in h] + [Q(-1)]
    basis = [None] * k + [m]
    status, x, extra = revised_std(rows, rhs, cost, basis)
    if status == "unbounded":  # Farkas ray on the non-strict rows
        r = extra
        return False, (tuple(r[:m_lt]), tuple(r[m_lt:m]))
    if status != "optimal":
        raise CertificateError("LP", "the exact dual simplex found its (always feasible) LP infeasible")
    value = _dot(h, x[:m]) + x[m]
    if m_lt and value <= 0:
        return False, (tuple(x[:m_lt]), tuple(x[m_lt:m]))
    z = tuple(-v for v in extra[:k])
    return True, z


# ------------------------------------------------------------------------------------------------
# HiGHS guess + exact verification
# ------------------------------------------------------------------------------------------------
def _floats(M: QMatrix):
    import numpy as np
    return np.array([float(v) for v in M.entries()], dtype=float).reshape(M.nrows, M.ncols)


def _highs_solve(G, h, n_strict, weights, cost, t_col, sense_max=True, lower_t=None):
    """Run HiGHS on  G w <= h  (rows), free columns except t <= 1; returns (status, x, dual, ray)."""
    import numpy as np
    from highspy import _core as hc
    m, ncol = G.shape
    h_ = hc._Highs()
    h_.setOptionValue("output_flag", False)
    h_.setOptionValue("presolve", "off")   # small dense LPs: presolve costs more than it saves
    lp = hc.HighsLp()
    lp.num_col_ = ncol
    lp.num_row_ = m
    inf = hc.kHighsInf
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lo = np.full(ncol, -inf)
    up = np.full(ncol, inf)
    if t_col is not None:
        up[t_col] = 1.0
    lp.col_lower_ = lo
    lp.col_upper_ = up
    lp.row_lower_ = np.full(m, -inf)
    lp.row_upper_ = np.asarray(h, dtype=float)
    lp.sense_ = hc.ObjSense.kMaximize if sense_max else hc.ObjSense.kMinimize
    lp.a_matrix_.format_ = hc.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.arange(0, m * ncol + 1, ncol, dtype=np.int32)
    lp.a_matrix_.index_ = np.tile(np.arange(ncol, dtype=np.int32), m)
    lp.a_matrix_.value_ = G.ravel()
    h_.passModel(lp)
    h_.run()
    st = h_.getModelStatus()
    sol = h_.getSolution()
    name = str(st).rsplit(".", 1)[-1]
    if name == "kOptimal":
        return "optimal", np.array(sol.col_value), np.array(sol.row_dual), None
    if name == "kInfeasible":
        ok, ray = _dual_ray(h_, m)
        return "infeasible", None, None, ray if ok else None
    if name in ("kUnbounded", "kUnboundedOrInfeasible"):
        return "unbounded", None, None, None
    return "unknown", None, None, None


def _dual_ray(h_, m):
    import numpy as np
    try:
        out = h_.getDualRay()
    except Exception:  # pragma: no cover - API differences
        return False, None
    if isinstance(out, tuple):
        if len(out) == 3:
            _, exists, ray = out
        else:
            exists, ray = out[-2], out[-1]
    else:  # pragma: no cover
        return False, None
    if not exists:
        return False, None
    return True, np.array(ray[:m], dtype=float)


def _guess_and_verify(G_lt, h_lt, G_le, h_le):
    """Float guess, verified exactly; None when verification fails (caller falls back)."""
    import numpy as np
    k = G_lt.ncols
    m_lt, m_le = G_lt.nrows, G_le.nrows
    A_lt = _floats(G_lt) if m_lt else np.zeros((0, k))
    A_le = _floats(G_le) if m_le else np.zeros((0, k))
    f_lt = np.array([float(v) for v in h_lt]) if m_lt else np.zeros(0)
    f_le = np.array([float(v) for v in h_le]) if m_le else np.zeros(0)
    if m_lt:
        w = np.linalg.norm(A_lt, axis=1)
        w[w == 0] = 1.0
        G = np.vstack([np.c_[A_lt, w], np.c_[A_le, np.zeros(m_le)]])
        cost = np.r_[np.zeros(k), 1.0]
        t_col = k
    else:
        G = A_le
        cost = np.zeros(k)
        t_col = None
    h = np.r_[f_lt, f_le]
    if not np.all(np.isfinite(G)) or not np.all(np.isfinite(h)):
        return None
    status, x, dual, ray = _highs_solve(G, h, m_lt, None, cost, t_col)
    if status == "optimal":
        t = x[k] if m_lt else 1.0
        if t > 1e-9:
            z = _exact_point(G_lt, h_lt, G_le, h_le, A_le, f_le, x[:k], t)
            if z is not None:
                return True, z
        if m_lt and t < 1e-7:
            y = _exact_multipliers(G_lt, h_lt, G_le, h_le, np.abs(dual), strict_needed=True)
            if y is not None:
                return False, y
        return None
    if status == "infeasible" and ray is not None:
        y = np.abs(ray)
        if m_lt:
            y[:m_lt] = 0.0
        y = _exact_multipliers(G_lt, h_lt, G_le, h_le, y, strict_needed=False)
        if y is not None:
            return False, y
    return None


def _round_vector(v, D):
    return tuple(Q(f.numerator, f.denominator) for f in
                 (Fraction(float(t)).limit_denominator(D) for t in v))


def _holds(G_lt, h_lt, G_le, h_le, z) -> bool:
    if G_lt.nrows and any(not a < b for a, b in zip(G_lt.apply(z), h_lt)):
        return False
    if G_le.nrows and any(a > b for a, b in zip(G_le.apply(z), h_le)):
        return False
    return True


def _exact_point(G_lt, h_lt, G_le, h_le, A_le, f_le, zf, t):
    import numpy as np
    k = len(zf)
    active = []
    if len(f_le):
        slack = f_le - A_le @ zf
        tol = 1e-9 * (1.0 + np.abs(f_le) + np.abs(A_le) @ np.abs(zf))
        active = [i for i in range(len(f_le)) if slack[i] <= tol[i]]
    if not active:
        D0 = int(min(2 ** 60, max(1, 4 * np.sqrt(k) / max(t, 1e-300))))
        for D in (max(1, D0 // 64), D0, D0 * 1024):
            z = _round_vector(zf, D)
            if _holds(G_lt, h_lt, G_le, h_le, z):
                return z
        return None
    # active non-strict rows: solve them exactly, round the free part
    Gact = G_le.submatrix(rows=active)
    sol = Gact.solve_general([h_le[i] for i in active])
    if sol is None:
        return None
    z0, M = sol
    z0f = np.array([float(v) for v in z0])
    if M.nrows == 0:
        return z0 if _holds(G_lt, h_lt, G_le, h_le, z0) else None
    Mf = _floats(M)
    u, *_ = np.linalg.lstsq(Mf.T, zf - z0f, rcond=None)
    for D in (2 ** 10, 2 ** 30, 2 ** 50):
        uq = _round_vector(u, D)
        z = _add(z0, M.T.apply(uq))
        if _holds(G_lt, h_lt, G_le, h_le, z):
            return z
    return None


def _exact_multipliers(G_lt, h_lt, G_le, h_le, yf, strict_needed):
    """Exact y >= 0 on the support of the float multipliers yf with yᵀ G = 0 and the β test."""
    import numpy as np
    m_lt = G_lt.nrows
    if yf is None or not np.all(np.isfinite(yf)) or yf.max(initial=0.0) <= 0:
        return None
    top = yf.max()
    support = [i for i in range(len(yf)) if yf[i] > 1e-9 * top]
    if not support:
        return None
    G = QMatrix.vstack([G_lt, G_le])
    h = list(h_lt) + list(h_le)
    GS = G.submatrix(rows=support)
    K = GS.left_nullspace()  # rows y with y GS = 0
    if K.nrows == 0:
        return None
    ys = yf[support]
    if K.nrows == 1:
        cands = [K.row_at(0)]
    else:
        Kf = _floats(K)
        u, *_ = np.linalg.lstsq(Kf.T, ys / top, rcond=None)
        cands = []
        for D in (2 ** 10, 2 ** 30):
            uq = _round_vector(u, D)
            cands.append(K.T.apply(uq))
    for y in cands:
        for sgn in (1, -1):
            yy = tuple(v if sgn == 1 else -v for v in y)
            if any(v < 0 for v in yy):
                continue
            full = [_ZERO] * len(h)
            for i, v in zip(support, yy):
                full[i] = v
            beta = _dot(h, full)
            strict = any(v > 0 for v in full[:m_lt])
            if beta < 0 or (beta <= 0 and strict):
                return tuple(full[:m_lt]), tuple(full[m_lt:])
    return None


class FloatLP:
    """A float (HiGHS) model ``A x <= b``, x free, re-solved for many objectives (warm start).

    Only a *guess*: callers turn its answers into exact certificates and check them over Q.
    ``minimize(c)`` returns ``(value, x, duals)`` (numpy arrays; duals >= 0 with
    ``Aᵀ duals ≈ -c`` at a minimum) or None when HiGHS does not report an optimum.

    >>> F = FloatLP([[1, 0], [0, 1], [-1, -1]], [1, 1, 0])
    >>> round(F.minimize([-1, 0])[0], 9)
    -1.0
    """

    def __init__(self, A, b):
        import numpy as np
        from highspy import _core as hc
        if isinstance(A, QMatrix):
            A = _floats(A)
        A = np.asarray(A, dtype=float)
        m, n = A.shape
        self.n = n
        h = hc._Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("presolve", "off")
        lp = hc.HighsLp()
        lp.num_col_, lp.num_row_ = n, m
        inf = hc.kHighsInf
        lp.col_cost_ = np.zeros(n)
        lp.col_lower_ = np.full(n, -inf)
        lp.col_upper_ = np.full(n, inf)
        lp.row_lower_ = np.full(m, -inf)
        lp.row_upper_ = np.asarray([float(v) for v in b], dtype=float)
        lp.a_matrix_.format_ = hc.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.arange(0, m * n + 1, n, dtype=np.int32)
        lp.a_matrix_.index_ = np.tile(np.arange(n, dtype=np.int32), m)
        lp.a_matrix_.value_ = A.ravel()
        h.passModel(lp)
        self._h = h
        self._idx = np.arange(n, dtype=np.int32)
        self._np = np

    def minimize(self, c):
        np = self._np
        h = self._h
        h.changeColsCost(self.n, self._idx, np.asarray([float(v) for v in c], dtype=float))
        h.run()
        if str(h.getModelStatus()).rsplit(".", 1)[-1] != "kOptimal":
            return None
        sol = h.getSolution()
        x = np.array(sol.col_value)
        return float(np.dot([float(v) for v in c], x)), x, -np.array(sol.row_dual)


# ------------------------------------------------------------------------------------------------
# optimisation
# ------------------------------------------------------------------------------------------------
def _optimize(S: _System, c: tuple, maximize: bool, method: str) -> LPOptimum:
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
    h = _sub(b_in, A_in.apply(x0)) if A_in.nrows else ()
    cz = N.apply(cc) if k else ()
    offset = _dot(cc, x0)
    rows = [list(G.row_at(i)) for i in range(G.nrows)]
    if k == 0:
        if any(v < 0 for v in h):
            fr = _feasible(S, "exact")
            return LPOptimum("infeasible", certificate=fr.certificate, method="exact", **common)
        status, z, y, ray = "optimal", (), [_ZERO] * len(h), None
    else:
        status, z, extra = simplex_free_le(rows, list(h), list(cz))
        if status == "optimal":
            y = extra
        elif status == "unbounded":
            ray = extra
    if status == "infeasible":
        fr = _feasible(S, "exact")
        return LPOptimum("infeasible", certificate=fr.certificate, method="exact", **common)
    x = tuple(_add(x0, N.T.apply(z))) if k else tuple(x0)
    if status == "unbounded":
        r = tuple(N.T.apply(ray))
        return LPOptimum("unbounded", point=x, direction=r, method="exact-simplex",
                         attained=_satisfies(S, x), **common)
    m_lt = S.A_lt.nrows
    y_lt, y_le = list(y[:m_lt]), list(y[m_lt:])
    if S.A_eq.nrows:
        v = _combination(S, [_ZERO] * S.A_eq.nrows, y_lt, y_le)
        sol = S.A_eq.T.solve_general(_sub(cc, v))
        if sol is None:
            raise CertificateError("LP optimum", "dual does not lift to the equalities")
        y_eq = list(sol[0])
    else:
        y_eq = []
    value = _dot(cc, x)
    del offset
    return LPOptimum("optimal", value=value if maximize else -value, point=x,
                     dual={"y_eq": y_eq, "y_lt": y_lt, "y_le": y_le},
                     attained=_satisfies(S, x), method="exact-simplex", **common)


# ------------------------------------------------------------------------------------------------
# small exact helpers
# ------------------------------------------------------------------------------------------------
def dot(a, b):
    """Exact dot product of two rational vectors (zero entries skipped; shared with regions)."""
    s = _ZERO
    for u, v in zip(a, b):
        if u != 0 and v != 0:
            s += u * v
    return s


_dot = dot


def _add(a, b):
    return tuple(u + v for u, v in zip(a, b))


def _sub(a, b):
    return tuple(u - v for u, v in zip(a, b))


def _combination(S, y_eq, y_lt, y_le):
    """A_eqᵀ y_eq + A_ltᵀ y_lt + A_leᵀ y_le."""
    total = [_ZERO] * S.n
    for A, y in ((S.A_eq, y_eq), (S.A_lt, y_lt), (S.A_le, y_le)):
        if A.nrows:
            total = _add(total, A.T.apply(y))
    return tuple(total)


def _satisfies(S: _System, x, relax_strict: bool = False) -> bool:
    x = tuple(to_q(v) for v in x)
    if len(x) != S.n:
        return False
    if S.A_eq.nrows and tuple(S.A_eq.apply(x)) != tuple(S.b_eq):
        return False
    if S.A_lt.nrows:
        vals = S.A_lt.apply(x)
        if relax_strict:
            if any(a > b for a, b in zip(vals, S.b_lt)):
                return False
        elif any(not a < b for a, b in zip(vals, S.b_lt)):
            return False
    if S.A_le.nrows and any(a > b for a, b in zip(S.A_le.apply(x), S.b_le)):
        return False
    return True
