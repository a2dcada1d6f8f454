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
from algebra.matrices import QMatrix
from algebra.rationals import Q, q_json, to_q

from .exceptions import CertificateError

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
    status, x, extra = _revised_std(rows, rhs, cost, basis)
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
        status, z, extra = _simplex_free_le(rows, list(h), list(cz))
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
# exact simplex over Q (dense tableau, Bland's rule, whole-matrix rank-1 updates)
# ------------------------------------------------------------------------------------------------
def _simplex_free_le(rows, rhs, cost):
    """max cost·w s.t. rows·w <= rhs, w free.

    Returns ("optimal", w, y) with y >= 0 the row duals (yᵀ rows = cost, y·rhs = optimum),
    ("unbounded", w, r) with rows·r <= 0 and cost·r > 0, or ("infeasible", None, None).
    """
    m = len(rows)
    k = len(cost)
    # columns: w+ (k), w- (k), s (m)
    std_rows, std_rhs, basis = [], [], []
    for i in range(m):
        sgn = _ONE if rhs[i] >= 0 else Q(-1)
        r = [sgn * v for v in rows[i]]
        std_rows.append(r + [-v for v in r] + [sgn if j == i else _ZERO for j in range(m)])
        std_rhs.append(sgn * rhs[i])
        basis.append(2 * k + i if sgn == 1 else None)
    std_cost = list(cost) + [-v for v in cost] + [_ZERO] * m
    status, x, extra = _simplex_std(std_rows, std_rhs, std_cost, basis, want_dual=True)
    if status == "infeasible":
        return status, None, None
    w = tuple(x[j] - x[k + j] for j in range(k))
    if status == "unbounded":
        r = tuple(extra[j] - extra[k + j] for j in range(k))
        return status, w, r
    # extra = dual of the standard rows; undo the sign flips
    y = tuple(extra[i] if rhs[i] >= 0 else -extra[i] for i in range(m))
    return status, w, y


def _simplex_std(rows, rhs, cost, basis=None, want_dual=False):
    """max cost·x s.t. rows·x = rhs (rhs >= 0 required if basis given), x >= 0.

    *basis*: per row a column that is the unit vector of that row, or None (an artificial is
    added).  Returns (status, x, extra) with extra the duals (optimal) or a ray (unbounded).
    """
    m = len(rows)
    N = len(cost)
    if basis is None:
        rows = [list(r) for r in rows]
        rhs = list(rhs)
        for i in range(m):
            if rhs[i] < 0:
                rows[i] = [-v for v in rows[i]]
                rhs[i] = -rhs[i]
        basis = [None] * m
    art = [i for i in range(m) if basis[i] is None]
    n_art = len(art)
    total = N + n_art
    full = []
    for i in range(m):
        extra = [_ZERO] * n_art
        if basis[i] is None:
            extra[art.index(i)] = _ONE
        full.append(list(rows[i]) + extra + [rhs[i]])
    basis = list(basis)
    for a_idx, i in enumerate(art):
        basis[i] = N + a_idx
    if m == 0:
        # no constraints: x = 0 optimal iff cost <= 0
        pos = [j for j in range(N) if cost[j] > 0]
        if pos:
            r = [_ZERO] * N
            r[pos[0]] = _ONE
            return "unbounded", [_ZERO] * N, r
        return "optimal", [_ZERO] * N, []
    T = QMatrix.from_rows(full + [[_ZERO] * (total + 1)])
    if n_art:
        c1 = [_ZERO] * N + [Q(-1)] * n_art
        T = _set_objective(T, basis, c1, m)
        T, basis, st = _run(T, basis, m, total, allowed=total)
        if T[m, total] != 0:  # min Σ artificials > 0
            return "infeasible", None, None
        # drive artificials out of the basis
        keep_rows = []
        for i in range(m):
            if basis[i] >= N:
                row = T.row_at(i)
                j = next((j for j in range(N) if row[j] != 0), None)
                if j is None:
                    continue  # redundant row
                T = _pivot(T, i, j)
                basis[i] = j
            keep_rows.append(i)
        if len(keep_rows) < m:
            T = T.submatrix(rows=keep_rows + [m])
            basis = [basis[i] for i in keep_rows]
            removed = [i for i in range(m) if i not in set(keep_rows)]
        else:
            removed = []
        m2 = len(keep_rows)
        T = T.submatrix(cols=list(range(N)) + [total])
    else:
        removed, m2, keep_rows = [], m, list(range(m))
    T = _set_objective(T, basis, list(cost), m2)
    T, basis, st = _run(T, basis, m2, N, allowed=N)
    x = [_ZERO] * N
    for i, b in enumerate(basis):
        x[b] = T[i, N]
    if st != "optimal":
        j = st
        col = T.col_at(j)
        r = [_ZERO] * N
        r[j] = _ONE
        for i, b in enumerate(basis):
            r[b] = -col[i]
        return "unbounded", x, r
    duals = None
    if want_dual:
        # y = c_B B^{-1}: for an original unit column e_i (slack of row i) the reduced cost is y_i
        duals = _duals(T, basis, cost, rows, keep_rows, removed, m, N, m2)
    return "optimal", x, duals


def _revised_std(rows, rhs, cost, basis):
    """Revised simplex over Q for  max cost·x, rows·x = rhs (>= 0), x >= 0.

    *basis* gives, per row, a column that is that row's unit vector, or None (an artificial is
    added).  Every iteration solves with the basis matrix exactly (FLINT's fraction-free
    solver), prices all columns with one product and pivots (Dantzig's rule, Bland's after a
    run of degenerate pivots).  Same results as :func:`_simplex_std` with ``want_dual=True``.
    """
    m, N = len(rows), len(cost)
    art = [i for i in range(m) if basis[i] is None]
    full = [list(rows[i]) + [_ONE if art and i == a else _ZERO for a in art] for i in range(m)]
    A = QMatrix.from_rows(full, ncols=N + len(art))
    b = list(rhs)
    basis = [basis[i] if basis[i] is not None else N + art.index(i) for i in range(m)]
    live = list(range(m))
    if art:
        c1 = [_ZERO] * N + [Q(-1)] * len(art)
        st, basis, xB, _, _ = _revised_run(A, b, c1, basis, N + len(art))
        if sum((xB[i] for i in range(m) if basis[i] >= N), _ZERO) != 0:
            return "infeasible", None, None
        # drive the (zero) artificials out of the basis; drop redundant rows
        i = 0
        while i < len(basis):
            if basis[i] < N:
                i += 1
                continue
            B = A.submatrix(rows=live, cols=basis)
            e = QMatrix.column([_ONE if t == i else _ZERO for t in range(len(basis))])
            rowi = (B.T.solve(e).T @ A.submatrix(rows=live, cols=range(N))).row_at(0)
            j = next((j for j in range(N) if rowi[j] != 0 and j not in basis), None)
            if j is None:
                del basis[i]
                del live[i]
                continue
            basis[i] = j
            i += 1
        A = A.submatrix(rows=live, cols=range(N))
        b = [rhs[i] for i in live]
    st, basis, xB, pi, extra = _revised_run(A, b, list(cost), basis, N)
    x = [_ZERO] * N
    for i, j in enumerate(basis):
        x[j] = xB[i]
    if st == "unbounded":
        j, u = extra
        r = [_ZERO] * N
        r[j] = _ONE
        for i, bj in enumerate(basis):
            r[bj] = -u[i]
        return "unbounded", x, r
    duals = [_ZERO] * m
    for i, v in zip(live, pi):
        duals[i] = v
    return "optimal", x, duals


def _revised_run(A, b, cost, basis, allowed):
    """Revised simplex iterations from a feasible basis; see :func:`_revised_std`."""
    r = A.nrows
    bcol = QMatrix.column(b)
    crow = QMatrix.row(cost + [_ZERO] * (A.ncols - len(cost)))
    bland, degenerate = False, 0
    while True:
        B = A.submatrix(cols=basis)
        xB = B.solve(bcol).col_at(0) if r else ()
        pi = B.T.solve(QMatrix.column([crow[0, j] for j in basis])) if r else QMatrix.zeros(0, 1)
        red = (crow - pi.T @ A).row_at(0) if r else crow.row_at(0)
        inb = set(basis)
        if bland:
            j = next((j for j in range(allowed) if j not in inb and red[j] > 0), None)
        else:
            j, best = None, _ZERO
            for jj in range(allowed):
                if red[jj] > best and jj not in inb:
                    j, best = jj, red[jj]
        if j is None:
            return "optimal", basis, xB, pi.col_at(0) if r else (), None
        u = B.solve(A.submatrix(cols=[j])).col_at(0) if r else ()
        best_ratio, best_i = None, None
        for i in range(r):
            if u[i] > 0:
                ratio = xB[i] / u[i]
                if (best_ratio is None or ratio < best_ratio
                        or (ratio == best_ratio and basis[i] < basis[best_i])):
                    best_ratio, best_i = ratio, i
        if best_i is None:
            return "unbounded", basis, xB, None, (j, u)
        degenerate = degenerate + 1 if best_ratio == 0 else 0
        if degenerate > 2 * r + 10:
            bland = True
        basis = list(basis)
        basis[best_i] = j


def _duals(T, basis, cost, rows, keep_rows, removed, m, N, m2):
    """Row duals of the standard problem: solve y B = c_B on the final basis (exact)."""
    B = QMatrix.from_rows([[rows[i][b] for b in basis] for i in keep_rows], ncols=len(basis))
    cB = QMatrix.row([cost[b] for b in basis])
    if m2 == 0:
        yk = []
    else:
        yk = (B.T.solve(cB.T)).col_at(0)
    y = [_ZERO] * m
    for i, v in zip(keep_rows, yk):
        y[i] = v
    return y


def _set_objective(T, basis, cost, m):
    """Objective row (last row) = c_B · rows - c, rhs = current value."""
    ncol = T.ncols
    c_ext = list(cost) + [_ZERO] * (ncol - len(cost))
    cB = QMatrix.row([c_ext[b] for b in basis] + [_ZERO])
    obj = cB @ T - QMatrix.row(c_ext)
    body = T.submatrix(rows=range(m))
    return QMatrix.vstack([body, obj])


def _run(T, basis, m, ncols, allowed):
    """Simplex pivots until optimal; returns (T, basis, "optimal" or the entering column if
    unbounded).  Dantzig's rule (most negative reduced cost) while it makes progress; after
    ``2 m + 10`` degenerate pivots in a row, Bland's rule for good (which cannot cycle)."""
    rhs_col = T.ncols - 1
    bland = False
    degenerate = 0
    while True:
        obj = T.row_at(m)
        if bland:
            j = next((j for j in range(allowed) if obj[j] < 0), None)
        else:
            j, best_v = None, _ZERO
            for jj in range(allowed):
                if obj[jj] < best_v:
                    j, best_v = jj, obj[jj]
        if j is None:
            return T, basis, "optimal"
        col = T.col_at(j)
        rhs = T.col_at(rhs_col)
        best, best_i = None, None
        for i in range(m):
            a = col[i]
            if a > 0:
                ratio = rhs[i] / a
                if best is None or ratio < best or (ratio == best and basis[i] < basis[best_i]):
                    best, best_i = ratio, i
        if best_i is None:
            return T, basis, j
        degenerate = degenerate + 1 if best == 0 else 0
        if degenerate > 2 * m + 10:
            bland = True
        T = _pivot(T, best_i, j)
        basis[best_i] = j


def _pivot(T, r, j):
    p = T[r, j]
    col = list(T.col_at(j))
    col[r] = p - 1
    row = QMatrix.row([v / p for v in T.row_at(r)])
    return T - QMatrix.column(col) @ row


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
