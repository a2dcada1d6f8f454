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

from math import gcd
from typing import Iterable, Sequence

from flint import fmpq, fmpq_mat, fmpz, fmpz_mat

from .exceptions import DimensionMismatchError, SingularMatrixError
from .rationals import q_str, to_q

__all__ = ["QMatrix", "IntMatrix", "AffineReluChain", "common_denominator"]


_FMPQ_ONLY = {fmpq}


def _qs(xs) -> list:
    """*xs* as a list of ``fmpq`` (:func:`to_q` on each entry unless all already are)."""
    xs = list(xs)
    if set(map(type, xs)) <= _FMPQ_ONLY:
        return xs
    return [to_q(x) for x in xs]


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
        return cls._from_rep(fmpq_mat(n, c, _qs([x for r in rows for x in r])))

    @classmethod
    def from_flat(cls, nrows: int, ncols: int, entries: Iterable[object]) -> "QMatrix":
        """Build from a row-major flat list of ``nrows * ncols`` entries."""
        entries = _qs(entries)
        if len(entries) != nrows * ncols:
            raise DimensionMismatchError("from_flat", (nrows, ncols), len(entries))
        return cls._from_rep(fmpq_mat(nrows, ncols, entries))

    @classmethod
    def column(cls, vec: Sequence[object]) -> "QMatrix":
        """A column vector (n x 1)."""
        vec = _qs(vec)
        return cls._from_rep(fmpq_mat(len(vec), 1, vec))

    @classmethod
    def row(cls, vec: Sequence[object]) -> "QMatrix":
        """A row vector (1 x n)."""
        vec = _qs(vec)
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
        entries = _qs(entries)
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

    def to_json(self) -> list[list[int | str]]:
        """Rows with each entry a JSON integer or ``"p/q"`` string (same values as
        :func:`~algebra.rationals.q_json`, computed from one integer export ``N / D``).

        >>> QMatrix.from_rows([[1, "-1/2"], ["6/4", 0]]).to_json()
        [[1, '-1/2'], ['3/2', 0]]
        """
        n, c = self.shape
        if n == 0 or c == 0:
            return [[] for _ in range(n)]
        N, D = self._rep.numer_denom()
        D = int(D)
        ints = [int(e) for e in N.entries()]
        if D == 1:
            flat = [v if v.bit_length() < 14_000 else str(v) for v in ints]
        else:
            flat = []
            append = flat.append
            for v in ints:
                g = gcd(v, D)
                if g == D:
                    v //= D
                    append(v if v.bit_length() < 14_000 else str(v))
                else:
                    append(f"{v // g}/{D // g}")
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
        v = fmpq_mat(len(vec), 1, _qs(vec))
        return tuple((self._rep * v).entries())

    def add_to_rows(self, vec: Sequence[object]) -> "QMatrix":
        """``self + 1 vecᵀ``: add the vector *vec* to every row (bias broadcast)."""
        vec = _qs(vec)
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
    from math import lcm
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


class AffineReluChain:
    """Integer form of affine maps with ReLU between them, for exact batched evaluation.

    Layer *l* is stored as ``W_l = N_l / D_l`` (N_l an integer matrix, D_l its least common
    denominator; a power of two for weights read from float files) and ``b_l = c_l / F_l``.
    A batch ``H = M / E`` (integer matrix M, one denominator E) goes through the layer as

        ``relu(H W_l^T + b_l) = relu(t M N_l^T + c_l E D_l t / F_l) / (E D_l t)``

    with the smallest integer ``t`` making the bias term integral (t = 1 whenever ``F_l``
    divides ``E D_l``, the usual case): ONE integer matrix product per layer, and ReLU acts on
    integer signs, never on ``fmpq`` entries.

    Two exact back ends (``method=``):

    * ``"flint"``: ``fmpz_mat`` products; ReLU walks the entries in Python.
    * ``"limbs"`` (needs numpy): each integer matrix is split into base-``2**B`` limbs
      (``B = (53 - bitlength(K)) // 2`` for inner dimension K), so every limb product is a
      float64 matrix product whose partial sums are integers of absolute value at most
      ``2**53``, hence exact in any summation order; the products are recombined with carries
      in int64, and ReLU is a vectorised sign test on the top limb.
    * ``"auto"``: ``"limbs"`` when numpy is installed and the batch is not tiny, else ``"flint"``
      (``benchmarks/bench_io.py``, 784-1024-1024-10 float32 model, 1000 inputs, 2 cores: "limbs"
      about 2 s CPU, "flint" about 4 s, numpy float64 0.11 s).

    >>> W1, b1 = QMatrix.from_rows([[1, "1/2"], [-1, 3]]), ["1/3", 0]
    >>> W2, b2 = QMatrix.from_rows([[2, -5]]), [1]
    >>> chain = AffineReluChain([(W1, b1), (W2, b2)])
    >>> X = QMatrix.from_rows([[1, 2], ["-1/2", "1/4"]])
    >>> chain(X, method="flint"), chain(X, method="limbs")
    (QMatrix([[-58/3], [-21/4]]), QMatrix([[-58/3], [-21/4]]))
    """

    __slots__ = ("_layers", "_limbs", "_hints")

    def __init__(self, layers: Sequence[tuple[QMatrix, Sequence[object]]],
                 integer_weights: Sequence[tuple[object, int] | None] | None = None):
        """*integer_weights* (optional, per layer ``(N, D)`` or None) are numpy integer arrays
        with ``W == N / D`` exactly, e.g. kept by a weight-file reader; they spare the limb
        back end from extracting FLINT integers entry by entry.  The caller guarantees the
        identity."""
        prepared = []
        for W, b in layers:
            b = [to_q(x) for x in b]
            if len(b) != W.nrows:
                raise DimensionMismatchError("AffineReluChain", W.shape, len(b))
            N, D = W.numer_denom()
            F = 1
            for x in b:
                F = _lcm(F, int(x.q))
            c = [int(x.p) * (F // int(x.q)) for x in b]
            prepared.append((N.transpose(), int(D), c, F, W.ncols, W.nrows))
        for prev, nxt in zip(prepared, prepared[1:]):
            if prev[5] != nxt[4]:
                raise DimensionMismatchError("AffineReluChain", prev[5], nxt[4])
        self._layers = tuple(prepared)
        self._limbs = None
        hints = list(integer_weights) if integer_weights is not None else [None] * len(prepared)
        if len(hints) != len(prepared):
            raise DimensionMismatchError("AffineReluChain integer_weights", len(hints), len(prepared))
        for hint, (_, _, _, _, n_in, n_out) in zip(hints, prepared):
            if hint is not None and tuple(hint[0].shape) != (n_out, n_in):
                raise DimensionMismatchError("AffineReluChain integer_weights", hint[0].shape, (n_out, n_in))
        self._hints = hints

    def __call__(self, X: QMatrix, *, method: str = "auto", relu_last: bool = False) -> QMatrix:
        """``A_L(relu(… relu(A_1(x))))`` for every row x of *X* (ReLU after the last layer only
        when *relu_last*)."""
        if method not in ("auto", "flint", "limbs"):
            raise ValueError(f"unknown method {method!r}; use 'auto', 'flint' or 'limbs'")
        if not self._layers:
            return X
        if X.ncols != self._layers[0][4]:
            raise DimensionMismatchError("AffineReluChain", X.shape, f"{self._layers[0][4]} inputs")
        if X.nrows == 0:
            return QMatrix.zeros(0, self._layers[-1][5])
        if method == "auto":
            work = X.nrows * sum(NT.nrows() * NT.ncols() for NT, *_ in self._layers)
            method = "limbs" if work >= 200_000 and _numpy_or_none() is not None else "flint"
        if method == "limbs":
            np = _numpy_or_none()
            if np is None:
                raise ImportError("method='limbs' needs numpy")
            B = min(_limb_bits(NT.nrows()) for NT, *_ in self._layers)
            if B >= 8:
                return self._limb_path(np, X, relu_last, B)
        return self._flint(X, relu_last)

    # -- back ends ----------------------------------------------------------------------------
    def _flint(self, X: QMatrix, relu_last: bool) -> QMatrix:
        M, E = X.numer_denom()
        E = int(E)
        last = len(self._layers) - 1
        zero = fmpz(0)
        for l, (NT, D, c, F, _, n_out) in enumerate(self._layers):
            P = M * NT
            E, t, bias = _next_denominator(E, D, c, F)
            if t != 1:
                P = P * t
            if bias is not None:
                ones = fmpz_mat(P.nrows(), 1, [1] * P.nrows())
                P = P + ones * fmpz_mat(1, n_out, bias)
            if l < last or relu_last:
                P = fmpz_mat(P.nrows(), n_out, [v if v > zero else zero for v in P.entries()])
            M = P
        return QMatrix._from_rep(fmpq_mat(M) * fmpq(1, E))

    def _limb_path(self, np, X: QMatrix, relu_last: bool, B: int) -> QMatrix:
        if self._limbs is None or self._limbs[0] != B:
            prepared = []
            for (NT, D, *_), hint in zip(self._layers, self._hints):
                if hint is not None and hint[0].dtype.kind in "iu":
                    ints, D = np.ascontiguousarray(hint[0].T), int(hint[1])
                else:
                    ints = _int_array(np, NT.entries(), (NT.nrows(), NT.ncols()))
                limbs = _split_limbs(np, ints, B)
                prepared.append((np.hstack([w.astype(np.float64) for w in limbs]), D))
            self._limbs = (B, prepared)
        weights = self._limbs[1]
        M, E = X.numer_denom()
        E = int(E)
        H = _split_limbs(np, _int_array(np, M.entries(), (M.nrows(), M.ncols())), B)
        last = len(self._layers) - 1
        for l, (_, _, c, F, _, n_out) in enumerate(self._layers):
            Wf, D = weights[l]  # W_l = (integers in Wf) / D
            n_w = Wf.shape[1] // n_out
            if min(len(H), n_w) > 256:  # int64 accumulators hold at most 2**10 sums of 2**53
                return self._flint(X, relu_last)
            acc = [None] * (len(H) + n_w - 1)
            for i, h in enumerate(H):
                if not h.any():
                    continue
                P = h.astype(np.float64) @ Wf
                for j in range(n_w):
                    part = P[:, j * n_out:(j + 1) * n_out].astype(np.int64)
                    acc[i + j] = part if acc[i + j] is None else acc[i + j] + part
            shape = (H[0].shape[0], n_out)
            acc = [np.zeros(shape, dtype=np.int64) if a is None else a for a in acc]
            E, t, bias = _next_denominator(E, D, c, F)
            if t != 1:
                acc = _convolve_limbs(np, _normalize_limbs(np, acc, B), _digits(t, B))
            if bias is not None:
                for k, limb in enumerate(_split_limbs(np, _int_array(np, bias, (1, n_out)), B)):
                    if k < len(acc):
                        acc[k] = acc[k] + limb
                    else:
                        acc.append(np.broadcast_to(limb, shape).copy())
            H = _normalize_limbs(np, acc, B)
            if l < last or relu_last:
                keep = (H[-1] >= 0).astype(np.int64)
                H = _trim_limbs([h * keep for h in H])
        rows, cols = H[0].shape
        value = H[-1].astype(object)
        for h in reversed(H[:-1]):
            value = (value << B) + h.astype(object)
        return QMatrix.from_integers(rows, cols, value.reshape(-1).tolist(), den=E)


def _next_denominator(E: int, D: int, c: list, F: int) -> tuple[int, int, list | None]:
    """``(E', t, bias)`` with ``E' = E D t`` the new denominator, t the smallest positive integer
    with ``F | E D t``, and bias the integer row ``c E' / F`` (None when zero)."""
    ED = E * D
    t = F // gcd(ED, F)
    E_new = ED * t
    if not any(c):
        return E_new, t, None
    s = E_new // F
    return E_new, t, [ci * s for ci in c]


def _lcm(a: int, b: int) -> int:
    return a // gcd(a, b) * b


def _numpy_or_none():
    try:
        import numpy
    except ImportError:  # numpy is optional (extra "io")
        return None
    return numpy


def _limb_bits(K: int) -> int:
    """Largest B with ``K * 2**(2B) <= 2**53``: K products of limbs of absolute value at most
    ``2**B`` sum exactly in float64."""
    return (53 - max(K, 1).bit_length()) // 2


def _int_array(np, entries, shape):
    """An int64 array of the integers *entries* when they fit, else an object array."""
    ints = list(map(int, entries))
    big = bool(ints) and max(max(ints), -min(ints)).bit_length() > 62
    return np.array(ints, dtype=object if big else np.int64).reshape(shape)


def _digits(t: int, B: int) -> list[int]:
    """Base-``2**B`` digits of a positive integer, least significant first."""
    out = []
    while t:
        out.append(t & ((1 << B) - 1))
        t >>= B
    return out


def _split_limbs(np, a, B: int) -> list:
    """Limbs ``[l_0, …, l_top]`` (int64) with ``a = Σ l_k 2**(B k)``, ``0 <= l_k < 2**B`` below
    the top and ``-2**B <= l_top < 2**B``."""
    mask = (1 << B) - 1
    hi = max(int(a.max()), -int(a.min())) if a.size else 0
    n = max(1, -(-hi.bit_length() // B))  # |a| < 2**(B n)
    limbs = [((a >> (B * k)) & mask).astype(np.int64) for k in range(n - 1)]
    limbs.append((a >> (B * (n - 1))).astype(np.int64))
    return limbs


def _convolve_limbs(np, limbs: list, digits: list[int]) -> list:
    """Accumulators of ``(Σ l_i 2**(B i)) * (Σ d_k 2**(B k))`` (each term below ``2**(2B+1)``)."""
    acc = [np.zeros_like(limbs[0]) for _ in range(len(limbs) + len(digits) - 1)]
    for i, l in enumerate(limbs):
        for k, d in enumerate(digits):
            if d:
                acc[i + k] += l * d
    return acc


def _normalize_limbs(np, acc: list, B: int) -> list:
    """Carry-propagate int64 accumulators into the limb form of :func:`_split_limbs`."""
    mask = (1 << B) - 1
    out, carry = [], None
    for a in acc:
        v = a if carry is None else a + carry
        out.append(v & mask)
        carry = v >> B
    while np.any((carry >= (1 << B)) | (carry < -(1 << B))):
        out.append(carry & mask)
        carry = carry >> B
    out.append(carry)
    return _trim_limbs(out)


def _trim_limbs(limbs: list) -> list:
    """Drop all-zero top limbs (the new top is then non-negative, so the sign rule still holds)."""
    while len(limbs) > 1 and not limbs[-1].any():
        limbs.pop()
    return limbs


# -- modular helpers (skip absorption: find an answer mod p, then certify it exactly) ----------
from flint import nmod_mat as _nmod_mat  # noqa: E402  (additive section)

__all__ += ["residues", "nmod_rref", "nmod_rank", "nmod_left_kernel_vector"]


def residues(matrix: QMatrix, p: int) -> list[int]:
    """Row-major residues mod *p* of a rational matrix, as Python ints in ``[0, p)``.

    Raises ``ZeroDivisionError`` when the common denominator is not invertible mod *p*.

    >>> residues(QMatrix.from_rows([[1, "1/2"], [-1, 0]]), 7)
    [1, 4, 6, 0]
    """
    if matrix.nrows == 0 or matrix.ncols == 0:
        return []
    num, den = matrix.numer_denom()
    dinv = pow(int(den) % p, -1, p) if int(den) % p else None
    if dinv is None:
        raise ZeroDivisionError(f"denominator {den} is not invertible mod {p}")
    return [int(x) * dinv % p for x in _nmod_mat(num, p).entries()]


def nmod_rref(nrows: int, ncols: int, entries: Sequence[int], p: int,
              columns: Sequence[int] | str | None = None) -> tuple[tuple[int, ...], list[list[int]]]:
    """Reduced row echelon form mod a prime *p* of a row-major integer matrix.

    Returns the pivot columns and, for each pivot row, its entries at *columns* (all columns
    when None; the non-pivot columns, in increasing order, when ``"nonpivot"``) as ints.

    >>> nmod_rref(2, 3, [1, 2, 3, 2, 4, 7], 5)
    ((0, 2), [[1, 2, 0], [0, 0, 1]])
    """
    if nrows == 0 or ncols == 0:
        return (), []
    R, rank = _nmod_mat(nrows, ncols, [int(x) for x in entries], p).rref()
    pivots, j = [], 0
    for i in range(rank):
        while int(R[i, j]) == 0:
            j += 1
        pivots.append(j)
    if columns == "nonpivot":
        cols = [c for c in range(ncols) if c not in set(pivots)]
    else:
        cols = range(ncols) if columns is None else list(columns)
    return tuple(pivots), [[int(R[i, c]) for c in cols] for i in range(rank)]


def nmod_rank(nrows: int, ncols: int, entries: Sequence[int], p: int) -> int:
    """Rank mod a prime *p* (a lower bound for the rank over Q of any rational lift).

    >>> nmod_rank(2, 2, [1, 2, 2, 4], 7)
    1
    """
    if nrows == 0 or ncols == 0:
        return 0
    return _nmod_mat(nrows, ncols, [int(x) for x in entries], p).rank()


def nmod_left_kernel_vector(nrows: int, ncols: int, entries: Sequence[int], p: int,
                            rhs: Sequence[int]) -> list[int] | None:
    """A vector y with ``y A ≡ 0`` and ``y · rhs ≢ 0`` (mod a prime *p*), or None.

    >>> nmod_left_kernel_vector(2, 1, [1, 1], 7, [1, 0])
    [6, 1]
    """
    if nrows == 0:
        return None
    if ncols == 0:
        for i in range(nrows):
            if int(rhs[i]) % p:
                return [1 if r == i else 0 for r in range(nrows)]
        return None
    at = _nmod_mat(nrows, ncols, [int(x) for x in entries], p).transpose()
    basis, nullity = at.nullspace()
    for j in range(nullity):
        y = [int(basis[i, j]) for i in range(nrows)]
        if sum(a * int(b) for a, b in zip(y, rhs)) % p:
            return y
    return None


class IntegerImage:
    """A rational matrix ``M = N / D`` held as the integer matrix ``N`` and the denominator ``D``,
    so that repeated products convert ``M`` once (FLINT's rational product re-derives ``N`` and
    ``D`` on every call, which dominates a matrix–vector product for a large ``M``).  Exact.

    >>> M = QMatrix.from_rows([[1, "1/2"], [3, "-2/3"]])
    >>> im = IntegerImage(M)
    >>> im.apply([6, "4/5"]) == M.apply([6, "4/5"])
    True
    >>> L = QMatrix.from_rows([["1/7", 1]])
    >>> im.left(L) == L @ M
    True
    """

    __slots__ = ("_num", "_den", "nrows", "ncols")

    def __init__(self, M: QMatrix):
        self.nrows, self.ncols = M.shape
        self._num, self._den = M.numer_denom()

    def apply(self, vec: Sequence[object]) -> tuple[fmpq, ...]:
        """``M @ vec`` as a tuple (same value as :meth:`QMatrix.apply`)."""
        if len(vec) != self.ncols:
            raise DimensionMismatchError("apply", (self.nrows, self.ncols), len(vec))
        q = [to_q(x) for x in vec]
        den = common_denominator(q)
        ints = fmpz_mat(len(q), 1, [x.p * (den // x.q) for x in q])
        scale = fmpq(1, self._den * den)
        return tuple(fmpq(e) * scale for e in (self._num * ints).entries())

    def left(self, L: QMatrix) -> QMatrix:
        """``L @ M`` (same value as ``L @ M``)."""
        if L.ncols != self.nrows:
            raise DimensionMismatchError("matmul", L.shape, (self.nrows, self.ncols))
        return QMatrix._from_rep((L._rep * self._num) * fmpq(1, self._den))


__all__ += ["IntegerImage"]


__all__ += ["interval_image"]


def interval_image(rows: Sequence[Sequence[fmpq]], box: Sequence[tuple], offset: Sequence[fmpq]) -> list[tuple]:
    """Exact bounds ``(lo, hi)`` of every ``rows[i] · x + offset[i]`` over the box
    ``∏_k [box[k][0], box[k][1]]`` (``None`` = unbounded, in the box and in the result).

    Two whole-matrix products: ``lo, hi = A·m + c ∓ |A|·r`` with the box's centre m and radius r
    (unbounded sides replaced by 0); a row is then unbounded below (above) exactly when it has a
    positive (negative) weight on a coordinate unbounded below and so on.

    >>> interval_image([[1, -2], [0, 3]], [(0, 1), (-1, None)], [5, 0])
    [(None, 8), (-3, None)]
    """
    n = len(rows)
    if n == 0:
        return []
    c = len(box)
    if c == 0:
        return [(to_q(v), to_q(v)) for v in offset]
    zero, half = fmpq(0), fmpq(1, 2)
    flat = [x for r in rows for x in r]
    if len(flat) != n * c:
        raise DimensionMismatchError("interval_image", (n, c), len(flat))
    A = fmpq_mat(n, c, flat)
    Abs = fmpq_mat(n, c, [abs(x) for x in flat])       # (abs is cheap; ordering tests are not)
    lo_v = [zero if lo is None else lo for lo, _ in box]
    hi_v = [zero if hi is None else hi for _, hi in box]
    zm = (A * fmpq_mat(c, 1, [(u + v) * half for u, v in zip(lo_v, hi_v)])).entries()
    zr = (Abs * fmpq_mat(c, 1, [(v - u) * half for u, v in zip(lo_v, hi_v)])).entries()
    out = [(m + b - r, m + b + r) for m, r, b in zip(zm, zr, offset)]
    free = [(lo is None, hi is None) for lo, hi in box]
    if any(u or v for u, v in free):
        # positive part P = (A + |A|)/2, negative part M = (|A| - A)/2 (both >= 0): row i is
        # unbounded below iff (P uL + M uH)_i != 0, above iff (P uH + M uL)_i != 0, with uL, uH
        # the indicators of the coordinates unbounded below / above.
        U = fmpq_mat(c, 2, [int(v) for pair in free for v in pair])
        S, T = (A * U).entries(), (Abs * U).entries()
        for i in range(n):
            sL, sH, tL, tH = S[2 * i], S[2 * i + 1], T[2 * i], T[2 * i + 1]
            lo_i, hi_i = out[i]
            if sL + tL + tH - sH:
                lo_i = None
            if sH + tH + tL - sL:
                hi_i = None
            out[i] = (lo_i, hi_i)
    return out
