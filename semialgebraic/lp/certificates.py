r"""Linear systems over Q, the results of :mod:`semialgebraic.lp`, and their exact checks.

Systems have the form

.. math:: A_{eq} x = b_{eq}, \quad A_{lt} x < b_{lt}, \quad A_{le} x \le b_{le}, \qquad x \in \mathbb{Q}^n

(:class:`LPSystem`, built by :func:`lp_system`).  A feasible system is proved by an exact point
(:func:`satisfies`); an infeasible one by a Motzkin certificate.

Infeasibility certificate (Motzkin's transposition theorem).  Multipliers
``y_eq`` (free), ``y_lt >= 0``, ``y_le >= 0`` with

1. ``A_eqᵀ y_eq + A_ltᵀ y_lt + A_leᵀ y_le = 0`` (the combination of left-hand sides vanishes), and
2. with ``β = b_eq·y_eq + b_lt·y_lt + b_le·y_le``: either ``β < 0``, or ``β <= 0`` and some
   entry of ``y_lt`` is positive.

If x were feasible, ``0 = yᵀ A x`` would be ``< β`` (when some y_lt > 0) or ``<= β``, contradicting
2.  Certificates are normalised so that ``β = -1``, or else ``Σ y_lt = 1``.  The check is a few
exact matrix-vector products (:func:`check_infeasibility_certificate`).

An optimum (:class:`LPOptimum`) is proved by a dual vector (weak duality) or, when unbounded, by
an improving direction; :meth:`LPResult.check` and :meth:`LPOptimum.check` re-check every claim.

>>> S = lp_system(None, None, [[1], [-1]], [0, 0], None, None, None)     # x < 0 and x > 0
>>> check_infeasibility_certificate(S, {"y_eq": [], "y_lt": ["1/2", "1/2"], "y_le": []})
True
>>> satisfies(S, [0], relax_strict=True), satisfies(S, [0])
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algebra.exceptions import DimensionMismatchError
from algebra.linalg import QMatrix
from algebra.rationals import Q, q_json, to_q

__all__ = ["LPSystem", "lp_system", "LPResult", "LPOptimum", "check_infeasibility_certificate",
           "dot", "add_vectors", "sub_vectors", "combination", "satisfies"]

_ZERO = Q(0)


# ------------------------------------------------------------------------------------------------
# systems
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LPSystem:
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


def lp_system(A_eq, b_eq, A_lt, b_lt, A_le, b_le, n) -> LPSystem:
    """The normalised :class:`LPSystem` of the blocks (each a QMatrix, a sequence of rows or None)
    and right-hand sides; *n* is needed only when every block is missing or empty."""
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
    return LPSystem(*out)


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
        conditions of :mod:`semialgebraic.lp.certificates` when infeasible.
    method : str
        ``"highs+exact"`` (float guess verified over Q) or ``"exact-simplex"``.
    """

    feasible: bool
    point: tuple | None
    certificate: dict | None
    method: str = ""
    system: LPSystem | None = field(default=None, repr=False, compare=False)

    def check(self) -> bool:
        """Re-check the point or the certificate exactly against the system."""
        if self.system is None:
            return False
        if self.feasible:
            return self.point is not None and satisfies(self.system, self.point)
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
    system: LPSystem | None = field(default=None, repr=False, compare=False)

    def check(self) -> bool:
        """Re-check every claim exactly."""
        S = self.system
        if S is None:
            return False
        if self.status == "infeasible":
            return self.certificate is not None and check_infeasibility_certificate(S, self.certificate)
        c = self.objective if self.maximize else tuple(-v for v in self.objective)
        if self.point is None or not satisfies(S, self.point, relax_strict=True):
            return False
        if self.status == "unbounded":
            r = self.direction
            if r is None or len(r) != S.n:
                return False
            return (all(v == 0 for v in S.A_eq.apply(r)) and all(v <= 0 for v in S.A_lt.apply(r))
                    and all(v <= 0 for v in S.A_le.apply(r)) and dot(c, r) > 0)
        if self.status != "optimal" or self.dual is None:
            return False
        y_eq, y_lt, y_le = self.dual["y_eq"], self.dual["y_lt"], self.dual["y_le"]
        if any(v < 0 for v in y_lt) or any(v < 0 for v in y_le):
            return False
        if combination(S, y_eq, y_lt, y_le) != tuple(c):
            return False
        val = dot(c, self.point)
        bound = dot(S.b_eq, y_eq) + dot(S.b_lt, y_lt) + dot(S.b_le, y_le)
        signed = self.value if self.maximize else -self.value
        return val == bound == signed and self.attained == satisfies(S, self.point)


def check_infeasibility_certificate(system: LPSystem, cert: dict) -> bool:
    """True iff *cert* satisfies the Motzkin conditions 1-2 of the module docstring.

    Parameters
    ----------
    system : LPSystem
        The system (``result.system`` of an :class:`LPResult`).
    cert : dict
        ``{"y_eq": [...], "y_lt": [...], "y_le": [...]}`` (exact numbers).

    Returns
    -------
    bool
        False also when *cert* is malformed (missing keys, wrong lengths, inexact entries).
    """
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
    if any(v != 0 for v in combination(S, y_eq, y_lt, y_le)):
        return False
    beta = dot(S.b_eq, y_eq) + dot(S.b_lt, y_lt) + dot(S.b_le, y_le)
    return beta < 0 or (beta <= 0 and any(v > 0 for v in y_lt))


# ------------------------------------------------------------------------------------------------
# small exact helpers
# ------------------------------------------------------------------------------------------------
def dot(a, b):
    """Exact dot product of two rational vectors (zero entries skipped)."""
    s = _ZERO
    for u, v in zip(a, b):
        if u != 0 and v != 0:
            s += u * v
    return s



def add_vectors(a, b):
    """The entrywise sum of two vectors, as a tuple."""
    return tuple(u + v for u, v in zip(a, b))


def sub_vectors(a, b):
    """The entrywise difference ``a - b`` of two vectors, as a tuple."""
    return tuple(u - v for u, v in zip(a, b))


def combination(S, y_eq, y_lt, y_le):
    """``A_eqᵀ y_eq + A_ltᵀ y_lt + A_leᵀ y_le`` for the system *S* (a tuple of length n)."""
    total = [_ZERO] * S.n
    for A, y in ((S.A_eq, y_eq), (S.A_lt, y_lt), (S.A_le, y_le)):
        if A.nrows:
            total = add_vectors(total, A.T.apply(y))
    return tuple(total)


def satisfies(S: LPSystem, x, relax_strict: bool = False) -> bool:
    """True iff the point *x* satisfies every row of *S* exactly (with *relax_strict*, the strict
    rows as ``<=``)."""
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
