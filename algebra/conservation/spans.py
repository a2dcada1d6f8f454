"""Exact values at θ and row spans for the conservation-law count (three-layer-fibers §8).

``_Span`` keeps a row space over Q in reduced row echelon form (membership by one product);
``_ModSpan`` ranks rows modulo the prime 2^61 − 1 (:data:`algebra.linalg.gfp.PRIME_61`), which
can only lower the rank, so ``N − rank`` stays a valid upper bound on the number of laws (see
:mod:`algebra.conservation.laws`); ``_BlockSpan`` (:class:`algebra.linalg.gfp.BlockSpan`, shared
with the functional dimension) does the same modulo :data:`algebra.linalg.gfp.PRIME` (< 2^21) by
the blocked numpy elimination for large N, calling a *check* between panels of 64 columns so
that a deadline stops it (one FLINT ``nmod_mat`` RREF of 1 300 x 2 410 rows took
2.5-5 s, the exact rank of 3 250 x 2 410 field rows 107 s, on the digits 64-32-10 net).  Plus
the exact gradient of a law at θ and a greedy independent subset of laws.
"""

from __future__ import annotations

from ..linalg import PRIME_61, QMatrix, nmod_rref, residues
from ..linalg.gfp import BlockSpan as _BlockSpan
from ..polynomials import Polynomial
from ..rationals import Q

__all__: list[str] = []


def _gradient_at(p: Polynomial, theta) -> list:
    g = [Q(0)] * len(theta)
    for name in p.variables():
        k = p.ring.index(name)
        g[k] = p.diff(k)(theta)
    return g


def _dot(a, b):
    return sum((x * y for x, y in zip(a, b) if x != 0), Q(0))


def _independent(laws, grads, N):
    """Greedy maximal subset of laws whose gradients at θ are independent (exact)."""
    span = _Span(N)
    basis, redundant = [], []
    for law, g in zip(laws, grads):
        (basis if span.add_vector(g) else redundant).append(law)
    return basis, redundant


class _ModSpan:
    """Rank of accepted rows modulo the prime p = 2^61 − 1 (FLINT ``nmod_mat`` RREF).

    Sound for the upper bound: reducing mod p (after clearing denominators) can only lower
    the rank, so N − rank_p ≥ N − rank_Q ≥ the true number of laws.  Rows whose common
    denominator is divisible by p are skipped (again only loosening the bound).
    """

    P = PRIME_61

    def __init__(self, n: int):
        self.n = n
        self.rows: list[list[int]] = []
        self.piv: tuple[int, ...] = ()
        self.skipped = 0

    @property
    def rank(self) -> int:
        return len(self.piv)

    def add_matrix(self, M: QMatrix) -> int:
        if M.nrows == 0:
            return 0
        try:
            res = residues(M, self.P)
        except ZeroDivisionError:
            self.skipped += M.nrows
            return 0
        before = self.rank
        flat = [x for row in self.rows for x in row] + res
        self.piv, self.rows = nmod_rref(len(self.rows) + M.nrows, self.n, flat, self.P)
        return self.rank - before

    def add_vector(self, v) -> bool:
        row = v if isinstance(v, QMatrix) else QMatrix.from_flat(1, self.n, v)
        return self.add_matrix(row) > 0


class _Span:
    """Row space over Q kept in reduced row echelon form; membership by one product."""

    def __init__(self, n: int):
        self.n = n
        self.B = QMatrix.zeros(0, n)
        self.piv: list[int] = []

    @property
    def rank(self) -> int:
        return len(self.piv)

    def _reduce(self, M: QMatrix) -> QMatrix:
        if not self.piv or M.nrows == 0:
            return M
        return M - M.submatrix(cols=self.piv) @ self.B

    def add_matrix(self, M: QMatrix) -> int:
        if M.nrows == 0:
            return 0
        R = self._reduce(M)
        if R.is_zero():
            return 0
        E, piv = R.rref()
        E = E.submatrix(rows=range(len(piv)))
        if self.piv:
            self.B = self.B - self.B.submatrix(cols=piv) @ E
        B = QMatrix.vstack([self.B, E]) if self.piv else E
        allp = self.piv + list(piv)
        order = sorted(range(len(allp)), key=lambda t: allp[t])
        self.B = B.submatrix(rows=order)
        self.piv = [allp[t] for t in order]
        return len(piv)

    def add_vector(self, v) -> bool:
        row = v if isinstance(v, QMatrix) else QMatrix.from_flat(1, self.n, v)
        return self.add_matrix(row) > 0

    def contains(self, v) -> bool:
        row = v if isinstance(v, QMatrix) else QMatrix.from_flat(1, self.n, v)
        return self._reduce(row).is_zero()

    def orthogonal(self, g) -> bool:
        if not self.piv:
            return True
        return (self.B @ QMatrix.column(g)).is_zero()
