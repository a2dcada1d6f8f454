"""Convex polyhedra ``{x : A x <= b}`` over Q: input domains (box, orthant, whole space).

A :class:`Polyhedron` is closed; :meth:`Polyhedron.interior_point` finds an exact point where
every inequality is strict (exact LP, :mod:`semialgebraic.lp`), or returns None when the
interior is empty (lower-dimensional or empty polyhedron).

>>> P = Polyhedron.box(2, 0, 1)
>>> P.dim_ambient, P.contains([1, "1/2"]), P.contains([2, 0])
(2, True, False)
>>> P.interior_point()
(1/2, 1/2)
>>> Polyhedron.orthant(2).interior_point() is not None
True
>>> Polyhedron([[1], [-1]], [0, 0]).interior_point() is None      # the point {0}
True
"""

from __future__ import annotations

from typing import Sequence

from algebra.exceptions import DimensionMismatchError, InputError
from algebra.linalg import QMatrix
from algebra.rationals import Q, q_json, q_str, to_q

from ..lp import LPResult, feasible

__all__ = ["Polyhedron"]


class Polyhedron:
    """Immutable polyhedron ``{x ∈ Q^d : A x <= b}``.

    Parameters
    ----------
    A : QMatrix or sequence of rows
        Shape (m, d); m may be 0 (the whole space, then pass *d*).
    b : sequence of rationals
        Length m.
    d : int, optional
        Ambient dimension (needed when A has no rows).
    """

    __slots__ = ("A", "b", "_interior")

    def __init__(self, A, b: Sequence[object], d: int | None = None):
        M = A if isinstance(A, QMatrix) else QMatrix.from_rows(A, ncols=d)
        if M.nrows == 0 and d is not None:
            M = QMatrix.zeros(0, int(d))
        if d is not None and M.ncols != d:
            raise DimensionMismatchError("Polyhedron", M.shape, d)
        bb = tuple(to_q(v) for v in b)
        if len(bb) != M.nrows:
            raise DimensionMismatchError("Polyhedron: rows of A vs entries of b", M.nrows, len(bb))
        # a row 0·x <= b with b >= 0 holds everywhere and bounds nothing: dropped (the walk's
        # strict rows read 0 < 0 as an empty interior: number_of_regions was 0 where it is 4,
        # s48 re-run audit N1); with b < 0 it stays (the empty set)
        zero = [i for i in range(M.nrows) if bb[i] >= 0 and all(v == 0 for v in M.row_at(i))]
        if zero:
            dropped = set(zero)
            keep = [i for i in range(M.nrows) if i not in dropped]
            M = QMatrix.from_rows([M.row_at(i) for i in keep], ncols=M.ncols) if keep else \
                QMatrix.zeros(0, M.ncols)
            bb = tuple(bb[i] for i in keep)
        self.A, self.b = M, bb
        self._interior = None

    # -- constructors -----------------------------------------------------------------------
    @classmethod
    def box(cls, d: int, lo: object, hi: object) -> "Polyhedron":
        """The cube ``[lo, hi]^d``."""
        lo, hi = to_q(lo), to_q(hi)
        if lo > hi:
            raise InputError(f"box: lower bound {q_str(lo)} exceeds upper bound {q_str(hi)}")
        from ..budget import conversion_guard     # dense rows: 2d x d numbers (98 M at d = 7000:
        conversion_guard(2 * d * d, "the box's rows")       # 7.8 GB, s49)
        rows, rhs = [], []
        for i in range(d):
            e = [0] * d
            e[i] = 1
            rows.append(e)
            rhs.append(hi)
            rows.append([-v for v in e])
            rhs.append(-lo)
        return cls(rows, rhs, d)

    @classmethod
    def orthant(cls, d: int) -> "Polyhedron":
        """The closed non-negative orthant ``x >= 0``."""
        rows = []
        for i in range(d):
            e = [0] * d
            e[i] = -1
            rows.append(e)
        return cls(rows, [0] * d, d)

    @classmethod
    def whole(cls, d: int) -> "Polyhedron":
        """All of ``Q^d``."""
        return cls(QMatrix.zeros(0, d), (), d)

    @classmethod
    def from_json(cls, data: dict) -> "Polyhedron":
        """Inverse of :meth:`to_json`."""
        try:
            return cls(data["A"], data["b"], int(data["d"]))
        except (KeyError, TypeError) as exc:
            raise InputError(f"malformed polyhedron JSON: {exc}") from None

    # -- properties -------------------------------------------------------------------------
    @property
    def dim_ambient(self) -> int:
        return self.A.ncols

    @property
    def number_of_inequalities(self) -> int:
        return self.A.nrows

    def inequalities(self) -> list[tuple[tuple, Q]]:
        """The rows as ``(a, c)`` meaning ``a·x + c >= 0`` (i.e. ``a = -A_i``, ``c = b_i``)."""
        return [(tuple(-v for v in self.A.row_at(i)), self.b[i]) for i in range(self.A.nrows)]

    def contains(self, x: Sequence[object]) -> bool:
        """Exact membership of the closed polyhedron."""
        x = [to_q(v) for v in x]
        if len(x) != self.dim_ambient:
            raise DimensionMismatchError("Polyhedron.contains", len(x), self.dim_ambient)
        return all(a <= b for a, b in zip(self.A.apply(x), self.b)) if self.A.nrows else True

    def contains_interior(self, x: Sequence[object]) -> bool:
        """True when every inequality is strict at *x*."""
        x = [to_q(v) for v in x]
        return all(a < b for a, b in zip(self.A.apply(x), self.b)) if self.A.nrows else True

    def interior_point(self) -> tuple | None:
        """An exact point with every inequality strict (well-centred), or None."""
        if self._interior is None:
            self._interior = self.interior_lp()
        return self._interior.point if self._interior.feasible else None

    def interior_lp(self) -> LPResult:
        """The verified LP behind :meth:`interior_point` (point or Motzkin certificate)."""
        return feasible(A_lt=self.A, b_lt=self.b, n=self.dim_ambient)

    def is_empty(self) -> bool:
        return not feasible(A_le=self.A, b_le=self.b, n=self.dim_ambient).feasible

    def intersect(self, other: "Polyhedron") -> "Polyhedron":
        if other.dim_ambient != self.dim_ambient:
            raise DimensionMismatchError("Polyhedron.intersect", self.dim_ambient, other.dim_ambient)
        return Polyhedron(QMatrix.vstack([self.A, other.A]), self.b + other.b, self.dim_ambient)

    # -- output -----------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"type": "polyhedron", "d": self.dim_ambient, "A": self.A.to_json(),
                "b": [q_json(v) for v in self.b]}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Polyhedron):
            return NotImplemented
        return self.A == other.A and self.b == other.b

    def __hash__(self) -> int:
        return hash((self.A, self.b))

    def __repr__(self) -> str:
        return (f"Polyhedron(d={self.dim_ambient}, {self.A.nrows} inequalities"
                + (")" if self.A.nrows == 0 else f": A={self.A!r}, b=[{', '.join(map(q_str, self.b))}])"))
