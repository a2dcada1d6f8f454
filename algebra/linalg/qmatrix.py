"""Exact matrices over Q on ``flint.fmpq_mat`` (STYLE C3, C4, C15).

Conventions, decided once:

* A matrix has shape ``(nrows, ncols)``; weight matrices are (out, in) like ``torch.nn.Linear``.
* **Bases are returned as rows**, in reduced row echelon form (a canonical form that does not
  depend on FLINT's algorithm): :meth:`QMatrix.nullspace` returns a matrix whose rows span
  ``{x : A x = 0}``; :meth:`QMatrix.left_nullspace` one whose rows span ``{y : y A = 0}``.
* Vectors are tuples of ``fmpq``; :meth:`QMatrix.from_rows` / :meth:`QMatrix.to_rows` convert.
* Backend errors are translated: ``ZeroDivisionError`` from FLINT becomes
  :class:`~algebra.exceptions.SingularMatrixError`, shape errors become
  :class:`~algebra.exceptions.DimensionMismatchError`.

>>> A = QMatrix.from_rows([[1, 2, 3], [2, 4, "13/2"]])
>>> A.rank(), A.nullspace()
(2, QMatrix([[1, -1/2, 0]]))
>>> A @ QMatrix.column([1, 1, 1])
QMatrix([[6], [25/2]])
"""

from __future__ import annotations

from math import gcd, lcm
from typing import Iterable, Sequence

from flint import fmpq, fmpq_mat, fmpz, fmpz_mat

from ..exceptions import DimensionMismatchError, InputError, SingularMatrixError
from ..rationals import q_str, to_q

__all__ = ["QMatrix", "IntMatrix", "common_denominator", "to_q_list"]


_FMPQ_ONLY = {fmpq}


def to_q_list(xs) -> list:
    """*xs* as a list of ``fmpq`` (:func:`to_q` on each entry unless all already are); a string
    or a single number is an :class:`InputError` (s48 API audit: ``net("12")`` was evaluated at
    (1, 2), ``net(1)`` and a scalar bias raised a bare TypeError)."""
    if isinstance(xs, (str, bytes, dict, set, frozenset)) or not hasattr(xs, "__iter__") or \
            getattr(xs, "ndim", 1) == 0:          # (a dict was read as its keys, a set in its
        raise InputError(f"expected a vector (a sequence of numbers), got {type(xs).__name__} "
                         f"{xs!r}"[:200])          # own order; a 0-d array: a bare TypeError)
    xs = list(xs)
    if set(map(type, xs)) <= _FMPQ_ONLY:
        return xs
    return [to_q(x) for x in xs]


def _entry_json(x):
    """One rational as in :meth:`QMatrix.to_json`: an integer (as text from 14 000 bits) or
    ``"p/q"``."""
    if x.q == 1:
        v = int(x.p)
        return v if v.bit_length() < 14_000 else str(x.p)      # (FLINT's text: no digit limit)
    return f"{x.p}/{x.q}"


def _int_json(v: int):
    """A Python integer as in :meth:`QMatrix.to_json`: itself, or its text from 14 000 bits
    (through FLINT: Python refuses ``str`` of integers of more than 4 300 digits).

    >>> len(_int_json(10 ** 5000))
    5001
    """
    return v if v.bit_length() < 14_000 else str(fmpz(v))


def _ratio_text(p: int, q: int) -> str:
    """``"p/q"`` for Python integers of any size.

    >>> _ratio_text(-1, 3), len(_ratio_text(10 ** 5000, 3))
    ('-1/3', 5003)
    """
    if p.bit_length() < 14_000 and q.bit_length() < 14_000:
        return f"{p}/{q}"
    return f"{fmpz(p)}/{fmpz(q)}"


class QMatrix:
    """Immutable matrix over Q, backed by ``flint.fmpq_mat``."""

    __slots__ = ("_rep", "_hash")

    # -- construction -----------------------------------------------------------------------
    def __init__(self, rows: Sequence[Sequence[object]] | None = None):
        if rows is None:
            rows = []
        m = QMatrix.from_rows(rows)
        self._rep, self._hash = m._rep, None

    @classmethod
    def _from_rep(cls, rep: fmpq_mat) -> "QMatrix":
        obj = object.__new__(cls)
        obj._rep, obj._hash = rep, None
        return obj

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[object]], ncols: int | None = None) -> "QMatrix":
        """Build from a list of rows; every entry is coerced with :func:`~algebra.rationals.to_q`.

        *ncols* fixes the width of an empty list of rows.
        """
        rows = [list(r) for r in rows]
        n = len(rows)
        if n == 0:
            return cls._from_rep(fmpq_mat(0, ncols or 0))
        c = len(rows[0])
        for i, r in enumerate(rows):
            if len(r) != c:
                raise DimensionMismatchError(f"from_rows: row {i} has {len(r)} entries, row 0 has {c}")
        return cls._from_rep(fmpq_mat(n, c, to_q_list([x for r in rows for x in r])))

    @classmethod
    def from_flat(cls, nrows: int, ncols: int, entries: Iterable[object]) -> "QMatrix":
        """Build from a row-major flat list of ``nrows * ncols`` entries."""
        entries = to_q_list(entries)
        if len(entries) != nrows * ncols:
            raise DimensionMismatchError("from_flat", (nrows, ncols), len(entries))
        return cls._from_rep(fmpq_mat(nrows, ncols, entries))

    @classmethod
    def column(cls, vec: Sequence[object]) -> "QMatrix":
        """A column vector (n x 1)."""
        vec = to_q_list(vec)
        return cls._from_rep(fmpq_mat(len(vec), 1, vec))

    @classmethod
    def row(cls, vec: Sequence[object]) -> "QMatrix":
        """A row vector (1 x n)."""
        vec = to_q_list(vec)
        return cls._from_rep(fmpq_mat(1, len(vec), vec))

    @classmethod
    def zeros(cls, nrows: int, ncols: int) -> "QMatrix":
        return cls._from_rep(fmpq_mat(nrows, ncols))

    @classmethod
    def identity(cls, n: int) -> "QMatrix":
        rep = fmpq_mat(n, n)
        for i in range(n):
            rep[i, i] = 1
        return cls._from_rep(rep)

    @classmethod
    def diagonal(cls, entries: Sequence[object]) -> "QMatrix":
        entries = to_q_list(entries)
        rep = fmpq_mat(len(entries), len(entries))
        for i, x in enumerate(entries):
            rep[i, i] = x
        return cls._from_rep(rep)

    @classmethod
    def from_int_matrix(cls, num: fmpz_mat, den: int | fmpz = 1) -> "QMatrix":
        """``num / den`` for an integer matrix (the fast route of batched products)."""
        rep = fmpq_mat(num)
        if den != 1:
            rep = rep / fmpq(den)
        return cls._from_rep(rep)

    @classmethod
    def from_integers(cls, nrows: int, ncols: int, ints: Sequence[int], den: int = 1) -> "QMatrix":
        """``N / den`` for a row-major flat list of Python integers (fast: no per-entry ``fmpq``).

        Used by the binary weight readers, which decompose every stored float exactly into an
        integer times a common power of two.

        >>> QMatrix.from_integers(2, 2, [1, 2, 3, 4], den=4)
        QMatrix([[1/4, 1/2], [3/4, 1]])
        """
        ints = list(ints)
        if len(ints) != nrows * ncols:
            raise DimensionMismatchError("from_integers", (nrows, ncols), len(ints))
        if den == 0:
            raise SingularMatrixError((nrows, ncols))
        if nrows == 0 or ncols == 0:
            return cls.zeros(nrows, ncols)
        rep = fmpq_mat(fmpz_mat(nrows, ncols, ints))
        if den != 1:
            rep = rep * fmpq(1, den)
        return cls._from_rep(rep)

    @classmethod
    def from_integer_rows(cls, rows: Sequence[Sequence[int]], ncols: int, den: int = 1) -> "QMatrix":
        """``N / den`` for an integer matrix given as rows of Python ints (the fastest route
        into FLINT for large matrices).

        >>> QMatrix.from_integer_rows([[1, 2], [3, 4]], 2, den=6)
        QMatrix([[1/6, 1/3], [1/2, 2/3]])
        """
        rows = list(rows)
        if any(len(r) != ncols for r in rows):
            raise DimensionMismatchError("from_integer_rows", (len(rows), ncols))
        if den == 0:
            raise SingularMatrixError((len(rows), ncols))
        if not rows or ncols == 0:
            return cls.zeros(len(rows), ncols)
        rep = fmpq_mat(fmpz_mat(rows))
        if den != 1:
            rep = rep * fmpq(1, den)
        return cls._from_rep(rep)

    @classmethod
    def hstack(cls, blocks: Sequence["QMatrix"]) -> "QMatrix":
        blocks = list(blocks)
        if not blocks:
            return cls.zeros(0, 0)
        n = blocks[0].nrows
        if any(b.nrows != n for b in blocks):
            raise DimensionMismatchError("hstack", *(b.shape for b in blocks))
        ncols = sum(b.ncols for b in blocks)
        if n == 0 or ncols == 0:
            return cls.zeros(n, ncols)
        parts = [b._rep.tolist() if b.ncols else [[]] * n for b in blocks]
        return cls._from_rep(fmpq_mat(n, ncols, [x for i in range(n) for part in parts for x in part[i]]))

    @classmethod
    def vstack(cls, blocks: Sequence["QMatrix"]) -> "QMatrix":
        blocks = list(blocks)
        if not blocks:
            return cls.zeros(0, 0)
        c = blocks[0].ncols
        if any(b.ncols != c for b in blocks):
            raise DimensionMismatchError("vstack", *(b.shape for b in blocks))
        entries: list = []
        for b in blocks:
            entries.extend(b._rep.entries())
        return cls._from_rep(fmpq_mat(sum(b.nrows for b in blocks), c, entries))

    # -- access -----------------------------------------------------------------------------
    @property
    def nrows(self) -> int:
        return self._rep.nrows()

    @property
    def ncols(self) -> int:
        return self._rep.ncols()

    @property
    def shape(self) -> tuple[int, int]:
        return (self._rep.nrows(), self._rep.ncols())

    def __getitem__(self, ij: tuple[int, int]) -> fmpq:
        i, j = ij
        return self._rep[i, j]

    def row_at(self, i: int) -> tuple[fmpq, ...]:
        """Row *i* as a tuple."""
        c = self.ncols
        return tuple(self._rep[i, j] for j in range(c))

    def col_at(self, j: int) -> tuple[fmpq, ...]:
        """Column *j* as a tuple."""
        return tuple(self._rep[i, j] for i in range(self.nrows))

    def to_rows(self) -> list[list[fmpq]]:
        """Entries as a list of rows of ``fmpq``."""
        return [list(r) for r in self._rep.tolist()] if self.nrows else []

    def to_tuples(self) -> tuple[tuple[fmpq, ...], ...]:
        return tuple(tuple(r) for r in self._rep.tolist()) if self.nrows else ()

    def entries(self) -> list[fmpq]:
        """Row-major flat list of entries."""
        return list(self._rep.entries())

    def _small_common_denominator(self, bits: int = 1024) -> bool:
        """Is the lcm of the entries' denominators below 2^*bits*?  (A canonical form's entries
        have many unrelated denominators: their lcm made a 256-1536-256 representative's
        integer export take 1.4 GB, and a 768-4608-768 one more than 10 GB.)"""
        D = 1
        for x in self._rep.entries():
            q = int(x.q)
            if q != 1 and D % q:
                D = D * q // gcd(D, q)
                if D.bit_length() > bits:
                    return False
        return True

    def to_json(self) -> list[list[int | str]]:
        """Rows with each entry a JSON integer or ``"p/q"`` string (same values as
        :func:`~algebra.rationals.q_json`, computed from one integer export ``N / D``).

        >>> QMatrix.from_rows([[1, "-1/2"], ["6/4", 0]]).to_json()
        [[1, '-1/2'], ['3/2', 0]]
        """
        n, c = self.shape
        if n == 0 or c == 0:
            return [[] for _ in range(n)]
        if not self._small_common_denominator():   # entry by entry: N / D would hold every
            flat = [_entry_json(x) for x in self._rep.entries()]   # numerator at D's size
            return [flat[i * c:(i + 1) * c] for i in range(n)]
        N, D = self._rep.numer_denom()
        D = int(D)
        ints = [int(e) for e in N.entries()]
        if D == 1:
            flat = [_int_json(v) for v in ints]
        else:
            flat = []
            append = flat.append
            for v in ints:
                g = gcd(v, D)
                if g == D:
                    append(_int_json(v // D))
                else:
                    append(_ratio_text(v // g, D // g))
        return [flat[i * c:(i + 1) * c] for i in range(n)]

    def take_rows(self, rows: Sequence[int]) -> "QMatrix":
        """The rows *rows* in the given order (repeats allowed), from one bulk export.

        >>> QMatrix.from_rows([[1, 2], [3, 4]]).take_rows([1, 0, 1])
        QMatrix([[3, 4], [1, 2], [3, 4]])
        """
        n, c = self.shape
        rows = [int(i) for i in rows]
        if any(not 0 <= i < n for i in rows):
            raise IndexError(f"row index out of range for a {n}x{c} matrix")
        if not rows or c == 0:
            return QMatrix.zeros(len(rows), c)
        flat = self._rep.entries()
        return QMatrix._from_rep(fmpq_mat(len(rows), c, [x for i in rows for x in flat[i * c:(i + 1) * c]]))

    def scale_rows(self, factors: Sequence[object]) -> "QMatrix":
        """``diag(factors) @ self`` without the dense product (row *i* times ``factors[i]``).

        >>> QMatrix.from_rows([[1, 2], [3, 4]]).scale_rows(["1/2", -1])
        QMatrix([[1/2, 1], [-3, -4]])
        """
        n, c = self.shape
        factors = [to_q(x) for x in factors]
        if len(factors) != n:
            raise DimensionMismatchError("scale_rows", self.shape, len(factors))
        if n == 0 or c == 0:
            return self
        flat = self._rep.entries()
        out = []
        for i, f in enumerate(factors):
            out.extend(map(f.__mul__, flat[i * c:(i + 1) * c]))
        return QMatrix._from_rep(fmpq_mat(n, c, out))

    def submatrix(self, rows: Sequence[int] | None = None, cols: Sequence[int] | None = None) -> "QMatrix":
        """Rows *rows* and columns *cols* (all when None), in the given order."""
        rows = range(self.nrows) if rows is None else list(rows)
        cols = range(self.ncols) if cols is None else list(cols)
        rep = self._rep
        return QMatrix._from_rep(fmpq_mat(len(rows), len(cols), [rep[i, j] for i in rows for j in cols]))

    def with_entry(self, i: int, j: int, value: object) -> "QMatrix":
        """A copy with entry (i, j) replaced."""
        rep = fmpq_mat(self._rep)
        rep[i, j] = to_q(value)
        return QMatrix._from_rep(rep)

    def numer_denom(self) -> tuple[fmpz_mat, fmpz]:
        """``(N, D)`` with self = N / D, N an integer matrix and D the least common denominator."""
        if self.nrows == 0 or self.ncols == 0:
            return fmpz_mat(self.nrows, self.ncols), fmpz(1)
        return self._rep.numer_denom()

    # -- arithmetic -------------------------------------------------------------------------
    def __matmul__(self, other: "QMatrix") -> "QMatrix":
        if not isinstance(other, QMatrix):
            return NotImplemented
        if self.ncols != other.nrows:
            raise DimensionMismatchError("matmul", self.shape, other.shape)
        return QMatrix._from_rep(self._rep * other._rep)

    def __add__(self, other: "QMatrix") -> "QMatrix":
        if not isinstance(other, QMatrix):
            return NotImplemented
        if self.shape != other.shape:
            raise DimensionMismatchError("add", self.shape, other.shape)
        return QMatrix._from_rep(self._rep + other._rep)

    def __sub__(self, other: "QMatrix") -> "QMatrix":
        if not isinstance(other, QMatrix):
            return NotImplemented
        if self.shape != other.shape:
            raise DimensionMismatchError("sub", self.shape, other.shape)
        return QMatrix._from_rep(self._rep - other._rep)

    def __neg__(self) -> "QMatrix":
        return QMatrix._from_rep(-self._rep)

    def scale(self, c: object) -> "QMatrix":
        """``c * self`` for a rational scalar c."""
        return QMatrix._from_rep(self._rep * to_q(c))

    def __mul__(self, c: object) -> "QMatrix":
        if isinstance(c, QMatrix):
            return NotImplemented
        return self.scale(c)

    __rmul__ = __mul__

    def apply(self, vec: Sequence[object]) -> tuple[fmpq, ...]:
        """``self @ vec`` for a vector given as a sequence; returns a tuple."""
        if len(vec) != self.ncols:
            raise DimensionMismatchError("apply", self.shape, len(vec))
        v = fmpq_mat(len(vec), 1, to_q_list(vec))
        return tuple((self._rep * v).entries())

    def add_to_rows(self, vec: Sequence[object]) -> "QMatrix":
        """``self + 1 vecᵀ``: add the vector *vec* to every row (bias broadcast)."""
        vec = to_q_list(vec)
        if len(vec) != self.ncols:
            raise DimensionMismatchError("add_to_rows", self.shape, len(vec))
        if self.nrows == 0 or self.ncols == 0:
            return self
        ones = fmpq_mat(self.nrows, 1, [1] * self.nrows)
        return QMatrix._from_rep(self._rep + ones * fmpq_mat(1, len(vec), vec))

    def relu(self) -> "QMatrix":
        """Entrywise max(·, 0)."""
        zero = fmpq(0)
        return QMatrix._from_rep(fmpq_mat(self.nrows, self.ncols,
                                          [x if x > zero else zero for x in self._rep.entries()]))

    @property
    def T(self) -> "QMatrix":
        return QMatrix._from_rep(self._rep.transpose())

    def transpose(self) -> "QMatrix":
        return self.T

    # -- linear algebra ---------------------------------------------------------------------
    def rank(self) -> int:
        """Exact rank (one FLINT call)."""
        if self.nrows == 0 or self.ncols == 0:
            return 0
        return self._rep.rank()

    def rref(self) -> tuple["QMatrix", tuple[int, ...]]:
        """Reduced row echelon form and the pivot columns.

        >>> QMatrix.from_rows([[2, 4], [1, 3]]).rref()
        (QMatrix([[1, 0], [0, 1]]), (0, 1))
        """
        if self.nrows == 0 or self.ncols == 0:
            return self, ()
        R, r = self._rep.rref()
        pivots = []
        j = 0
        for i in range(r):
            while R[i, j] == 0:
                j += 1
            pivots.append(j)
        return QMatrix._from_rep(R), tuple(pivots)

    def row_space(self) -> "QMatrix":
        """Canonical basis (rows, RREF, zero rows removed) of the row space."""
        R, piv = self.rref()
        return R.submatrix(rows=range(len(piv)))

    def nullspace(self) -> "QMatrix":
        """Basis of ``{x : self @ x = 0}`` as the rows of a matrix, in RREF.

        >>> QMatrix.from_rows([[1, 1]]).nullspace()
        QMatrix([[1, -1]])
        """
        n = self.ncols
        if self.nrows == 0:
            return QMatrix.identity(n)
        if n == 0:
            return QMatrix.zeros(0, 0)
        R, piv = self.rref()
        free = [j for j in range(n) if j not in set(piv)]
        rows = []
        for f in free:
            v = [fmpq(0)] * n
            v[f] = fmpq(1)
            for i, p in enumerate(piv):
                v[p] = -R[i, f]
            rows.append(v)
        return QMatrix.from_rows(rows, ncols=n).row_space() if rows else QMatrix.zeros(0, n)

    def left_nullspace(self) -> "QMatrix":
        """Basis of ``{y : y @ self = 0}`` as rows, in RREF."""
        return self.T.nullspace()

    def det(self) -> fmpq:
        if self.nrows != self.ncols:
            raise DimensionMismatchError("det", self.shape)
        if self.nrows == 0:
            return fmpq(1)
        return self._rep.det()

    def solve(self, rhs: "QMatrix") -> "QMatrix":
        """Unique solution X of ``self @ X = rhs`` for square non-singular ``self``."""
        if self.nrows != self.ncols or self.nrows != rhs.nrows:
            raise DimensionMismatchError("solve", self.shape, rhs.shape)
        if self.nrows == 0:
            return QMatrix.zeros(0, rhs.ncols)
        try:
            return QMatrix._from_rep(self._rep.solve(rhs._rep))
        except ZeroDivisionError:
            raise SingularMatrixError(self.shape) from None

    def solve_general(self, rhs: Sequence[object]) -> tuple[tuple[fmpq, ...], "QMatrix"] | None:
        """All solutions of ``self @ x = rhs`` for any shape.

        Returns ``(x0, N)`` with every solution ``x0 + z @ N`` (N's rows span the nullspace;
        x0 has zeros on the free coordinates), or None if the system is inconsistent.

        >>> QMatrix.from_rows([[1, 1]]).solve_general([2])
        ((2, 0), QMatrix([[1, -1]]))
        """
        rhs = [to_q(x) for x in rhs]
        if len(rhs) != self.nrows:
            raise DimensionMismatchError("solve_general", self.shape, len(rhs))
        n = self.ncols
        aug = QMatrix.hstack([self, QMatrix.column(rhs)]) if self.nrows else QMatrix.zeros(0, n + 1)
        R, piv = aug.rref()
        if n in piv:
            return None
        x0 = [fmpq(0)] * n
        for i, p in enumerate(piv):
            x0[p] = R[i, n]
        return tuple(x0), self.nullspace()

    def inverse(self) -> "QMatrix":
        """Exact inverse of a square non-singular matrix (slow from n ~ 200; prefer solve)."""
        if self.nrows != self.ncols:
            raise DimensionMismatchError("inverse", self.shape)
        try:
            return QMatrix._from_rep(self._rep.inv())
        except ZeroDivisionError:
            raise SingularMatrixError(self.shape) from None

    def is_zero(self) -> bool:
        return all(x == 0 for x in self._rep.entries())

    # -- identity ---------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QMatrix):
            return NotImplemented
        return self.shape == other.shape and self._rep == other._rep

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.shape, tuple(self._rep.entries())))
        return self._hash

    def __repr__(self) -> str:
        return "QMatrix([" + ", ".join("[" + ", ".join(q_str(x) for x in r) + "]" for r in self.to_rows()) + "])"

    def __reduce__(self):
        return (QMatrix.from_flat, (self.nrows, self.ncols, [q_str(x) for x in self.entries()]))


def common_denominator(values: Iterable[fmpq]) -> fmpz:
    """Least common denominator of rationals (1 for an empty input)."""
    d = 1
    for v in values:
        d = lcm(d, int(v.q))
    return fmpz(d)


class IntMatrix:
    """Namespace for integer-matrix helpers (``fmpz_mat``) used in hot paths."""

    @staticmethod
    def from_rows(rows: Sequence[Sequence[int]]) -> fmpz_mat:
        rows = [list(r) for r in rows]
        if not rows:
            return fmpz_mat(0, 0)
        return fmpz_mat(len(rows), len(rows[0]), [int(x) for r in rows for x in r])
