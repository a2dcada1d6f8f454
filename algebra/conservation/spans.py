"""Exact values at θ and row spans for the conservation-law count (three-layer-fibers §8).

``_Span`` keeps a row space over Q in reduced row echelon form (membership by one product);
``_ModSpan`` ranks rows modulo the prime 2^61 − 1 (:data:`algebra.linalg.gfp.PRIME_61`), which
can only lower the rank, so ``N − rank`` stays a valid upper bound on the number of laws (see
:mod:`algebra.conservation.laws`); ``_BlockSpan`` does the same modulo
:data:`algebra.linalg.gfp.PRIME` (< 2^21) by the blocked numpy elimination
(:func:`algebra.linalg.gfp.echelon_mod_p`) for large N, calling a *check* between panels of 64
columns so that a deadline stops it (one FLINT ``nmod_mat`` RREF of 1 300 x 2 410 rows took
2.5-5 s, the exact rank of 3 250 x 2 410 field rows 107 s, on the digits 64-32-10 net).  Plus
the exact gradient of a law at θ and a greedy independent subset of laws.
"""

from __future__ import annotations

from ..linalg import PRIME_61, QMatrix, nmod_rref, residues
from ..linalg.gfp import PRIME, echelon_mod_p, reduce_mod_p, residues_array
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


class _BlockSpan:
    """Rank of accepted rows modulo :data:`PRIME` (< 2^21) by :func:`echelon_mod_p` (numpy).

    Sound for the upper bound exactly as :class:`_ModSpan` (a modular rank is at most the
    rational rank).  *check* (or None) is called before each panel of 64 columns and may raise
    to stop: the span then stays as it was before the call (nothing partial is kept).  A
    check costs a clock read; a panel of 2 410 columns on ~1 600 rows takes ~25 ms.
    """

    P = PRIME

    def __init__(self, n: int, check=None):
        self.n, self.check = n, check
        self.E = None                  # echelon rows, entries reduced to |v| <= P/2
        self.blocks: list = []         # (row0, pivot columns, inverse) per elimination step
        self.piv: tuple[int, ...] = ()
        self.skipped = 0

    @property
    def rank(self) -> int:
        return len(self.piv)

    def residues(self, M: QMatrix):
        """The residues of *M* mod :data:`PRIME` (None when its denominator is not invertible)."""
        try:
            return residues_array(M, self.P)
        except ZeroDivisionError:
            self.skipped += M.nrows
            return None

    def add_residues(self, R) -> int:
        """Add integer rows (a numpy array, entries in [0, P)); returns the rank gained.

        The rows are first reduced by the echelon blocks already held (block forward
        substitution: each block's rows vanish on the pivot columns of the earlier ones, and
        its ``inv`` inverts its square pivot submatrix), then only the remainder is eliminated
        (:func:`echelon_mod_p`) and its blocks appended: rows · rank · N operations instead of
        (rank + rows) · N · rank for re-eliminating everything.  Every float64 product is of
        entries reduced to |v| <= P/2 over at most 64 terms: exact (see ``echelon_mod_p``)."""
        import numpy as np
        if R is None or R.shape[0] == 0:
            return 0
        P = self.P
        X = reduce_mod_p(np.asarray(R, dtype=np.float64) % P, P)
        for k, (r0, cols, inv) in enumerate(self.blocks):
            if self.check is not None and k % 4 == 0:
                self.check()
            C = reduce_mod_p(reduce_mod_p(X[:, cols], P) @ inv % P, P)
            X = reduce_mod_p((X - C @ self.E[r0:r0 + len(cols)]) % P, P)
        X = X % P
        keep = np.flatnonzero(X.any(axis=1))
        if keep.size == 0:
            return 0
        r, E, blocks = echelon_mod_p(X[keep].astype(np.int64), P, 64, self.check)
        if r == 0:
            return 0
        base = self.rank
        Enew = reduce_mod_p(E, P)
        self.E = Enew if self.E is None else np.vstack([self.E, Enew])
        self.blocks += [(base + r0, cols, reduce_mod_p(inv, P)) for r0, cols, inv in blocks]
        self.piv = self.piv + tuple(int(c) for _, cols, _ in blocks for c in cols)
        return r

    def add_matrix(self, M: QMatrix) -> int:
        if M.nrows == 0:
            return 0
        return self.add_residues(self.residues(M))

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
