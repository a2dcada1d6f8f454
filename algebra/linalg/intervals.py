"""Exact images of a rational matrix: repeated products through one integer form
(:class:`IntegerImage`) and the exact interval image of a box (:func:`interval_image`).
"""

from __future__ import annotations

from typing import Sequence

from flint import fmpq, fmpq_mat, fmpz_mat

from ..exceptions import DimensionMismatchError
from ..rationals import to_q
from .qmatrix import QMatrix, common_denominator

__all__ = ["IntegerImage", "interval_image"]


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


_BLOCK = 1 << 18
"""Products of 64-bit words per block of rows of :func:`interval_image` under a check (60 rows
of 60 entries against a box of 3 400 words took 2.1 s: ~170 ns a word product)."""


def interval_image(rows: Sequence[Sequence[fmpq]], box: Sequence[tuple], offset: Sequence[fmpq],
                   check=None) -> list[tuple]:
    """Exact bounds ``(lo, hi)`` of every ``rows[i] · x + offset[i]`` over the box
    ``∏_k [box[k][0], box[k][1]]`` (``None`` = unbounded, in the box and in the result).

    Two whole-matrix products: ``lo, hi = A·m + c ∓ |A|·r`` with the box's centre m and radius r
    (unbounded sides replaced by 0); a row is then unbounded below (above) exactly when it has a
    positive (negative) weight on a coordinate unbounded below and so on.

    With *check* (a caller's budget: called between blocks, ``algebra`` knows none), the rows go
    in blocks of about :data:`_BLOCK` products of 64-bit words (about 0.05 s; the sizes read from
    the box and the first row): one FLINT call on 60 rows against a box of 10^5-bit rationals
    took 2 s, and no signal stops it (s54).

    >>> interval_image([[1, -2], [0, 3]], [(0, 1), (-1, None)], [5, 0])
    [(None, 8), (-3, None)]
    """
    n = len(rows)
    if n == 0:
        return []
    if check is not None and n > 1 and box:
        words = lambda v: 1 + (v.p.bit_length() + v.q.bit_length()) // 64     # noqa: E731
        bx = max(words(to_q(v)) for pair in box for v in pair if v is not None) if any(
            v is not None for pair in box for v in pair) else 1
        bw = max(words(to_q(v)) for v in rows[0]) if len(rows[0]) else 1
        # a row's sum over sides of distinct denominators carries all of them (40 rows against
        # 30 sides of distinct 40 000-bit denominators: 30 s)
        dens = len({to_q(v).q for pair in box for v in pair if v is not None})
        size = max(1, _BLOCK // (len(box) * bx * bw * min(max(dens, 1), len(box))))
        if size < n:
            out = []
            for start in range(0, n, size):
                check()
                out.extend(interval_image(rows[start:start + size], box, offset[start:start + size]))
            return out
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
