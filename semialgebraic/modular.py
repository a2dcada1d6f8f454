r"""Exact linear algebra modulo a prime for the certified lower bound of the functional dimension.

The Jacobian rows of :mod:`semialgebraic.dimension` are reduced to integers mod p (p = 1048573,
or the next prime below dividing no denominator of θ): any non-zero minor mod p is a non-zero
rational minor, so rank_p <= rank_Q is a certified lower bound (three-layer-fibers R22 FIBDIM).
Here: the reduction (:func:`_modq`, :func:`_prime_for`), blocked Gaussian elimination over Z/p
with float64 BLAS products that stay exact (:func:`_echelon_mod_p`, :func:`_rank_mod_p`), kernel
bases and their shrinking by new rows (:func:`_kernel_mod_p`, :func:`_shrink_kernel`), exact
products / inverses mod p, and the kernel directions the proven symmetries do not explain
(:func:`_missing_directions`).

>>> _rank_mod_p([[1, 2], [2, 4]], PRIME), _rank_mod_p([[1, 2], [3, 4]], PRIME)
(1, 2)
"""

from __future__ import annotations

from algebra.linalg import QMatrix
from algebra.rationals import Q

__all__ = ["PRIME"]

PRIME = 1048573
"""Prime of the modular rank (< 2^21, so float64 products of 64 reduced terms are exact)."""


def _modq(v, p) -> int:
    v = Q(v) if not isinstance(v, Q) else v
    if int(v.q) % p == 0:
        raise ValueError(f"denominator of {v} divisible by the prime {p}")
    return int(v.p) % p * pow(int(v.q) % p, p - 2, p) % p


def _prime_for(net) -> int:
    """The largest prime p < 2^20 + 2^18 (PRIME first) dividing no denominator of the parameters,
    so that every Jacobian row (inputs are dyadic) reduces mod p (primality by trial division)."""
    dens = {int(Q(v).q) for v in net.parameters()} - {1}
    cand = PRIME
    while True:
        if all(cand % q for q in range(2, int(cand ** 0.5) + 1)) and all(dn % cand for dn in dens):
            return cand
        cand -= 2


def _rank_mod_p(A, p: int, block: int = 64) -> int:
    """Exact rank over Z/p of an integer matrix (see :func:`_echelon_mod_p`)."""
    return _echelon_mod_p(A, p, block)[0]


def _echelon_mod_p(A, p: int, block: int = 64):
    """Blocked Gaussian elimination over Z/p with float64 BLAS products, all exact.

    Returns ``(rank, E, blocks)``: E (rank x ncols, entries in [0, p)) spans the row space mod p
    and is in block echelon form; *blocks* lists ``(row0, cols, inv)`` per elimination step: rows
    ``E[row0 : row0 + len(cols)]`` vanish mod p on the pivot columns of every earlier step, and
    ``inv`` is the inverse mod p of their square submatrix on *cols*.

    Exactness: every matrix product multiplies entries reduced to |v| <= p/2 (< 2^20) over at
    most *block* terms (< 2^38 * block); the trailing matrix is reduced lazily (only the panel
    columns and pivot rows before use, everything every 2^13 / block steps), so entries stay
    below 2^13 * 2^38 = 2^51 < 2^53 and every float64 operation is an exact integer operation.
    """
    import numpy as np
    M = np.mod(np.asarray(A, dtype=np.int64), p).astype(np.float64)
    n, ncols = M.shape
    r, steps = 0, 0
    E, blocks = [], []
    for c0 in range(0, ncols, block):
        if r >= n:
            break
        c1 = min(ncols, c0 + block)
        M[r:, c0:c1] = np.mod(M[r:, c0:c1], p)
        P = M[r:, c0:c1].copy()
        swaps = []
        k, piv = 0, []
        for j in range(c1 - c0):                   # panel: entries grow by < 2^39 per column
            if k >= P.shape[0]:
                break
            col = np.mod(P[k:, j], p)
            nz = np.flatnonzero(col)
            if nz.size == 0:
                continue
            i = k + nz[0]
            if i != k:
                P[[i, k]] = P[[k, i]]
                col[[i - k, 0]] = col[[0, i - k]]
                swaps.append((i, k))
            row = np.mod(P[k, j:], p)
            row = _reduce(np.mod(row * pow(int(row[0]), p - 2, p), p), p)
            P[k + 1:, j:] -= np.outer(col[1:], row)
            piv.append(j)
            k += 1
        if k == 0:
            continue
        for i, i2 in swaps:                        # the same row swaps on the full rows
            M[[r + i, r + i2]] = M[[r + i2, r + i]]
        cols = c0 + np.array(piv)
        pivrows = np.mod(M[r:r + k, c0:], p)
        M[r:r + k, c0:] = pivrows
        inv = _inv_mod(pivrows[:, piv], p)
        if r + k < n:
            C = _reduce(np.mod(_reduce(M[r + k:, cols], p) @ _reduce(inv, p), p), p)
            M[r + k:, c0:] -= C @ _reduce(pivrows, p)
            steps += 1
            if steps % max(1, 2 ** 13 // block) == 0:
                M[r + k:, c0:] = np.mod(M[r + k:, c0:], p)
        full = np.zeros((k, ncols))
        full[:, c0:] = pivrows
        E.append(full)
        blocks.append((r, cols, inv))
        r += k
    E = np.vstack(E) if E else np.zeros((0, ncols))
    return r, E, blocks


def _kernel_mod_p(A, p: int, block: int = 64):
    """Basis (columns, entries in [0, p)) of the right kernel mod p of the integer matrix *A*:
    an ``ncols x (ncols - rank)`` float64 array K with A K = 0 mod p (block back-substitution
    on :func:`_echelon_mod_p`)."""
    import numpy as np
    A = np.asarray(A)
    ncols = A.shape[1]
    r, E, blocks = _echelon_mod_p(A, p, block)
    pivots = np.concatenate([c for _, c, _ in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    free = np.setdiff1d(np.arange(ncols), pivots)
    K = np.zeros((ncols, free.size))
    K[free, np.arange(free.size)] = 1.0
    for r0, cols, inv in reversed(blocks):          # E_b K = 0: K[cols] = -inv (E_b[rest] K[rest])
        rows = E[r0:r0 + len(cols)]                 # (K[cols] is still 0, and E_b vanishes left
        c0 = int(cols[0])                           # of its first pivot column)
        S = np.zeros((len(cols), K.shape[1]))
        for c in range(c0, ncols, 4096):            # entries in [0, p): sums of 4096 products < 2^52
            S = np.mod(S + rows[:, c:c + 4096] @ K[c:c + 4096], p)
        K[cols] = np.mod(-(inv @ S), p) if len(cols) <= 4096 else np.mod(-_matmul_mod(inv, S, p), p)
    return K


def _shrink_kernel(K, R, p: int):
    """Basis mod p of {v in span(K) : R v = 0 mod p} (K: ncols x f columns, R: new integer rows)."""
    import numpy as np
    if K.shape[1] == 0 or len(R) == 0:
        return K
    RK = _matmul_mod(R, K, p)
    if not RK.any():
        return K
    return _matmul_mod(K, _kernel_mod_p(RK.astype(np.int64), p), p)


_SYM_CACHE: dict = {}       # RREF mod p of the last proven span (the same across rounds)


def _missing_directions(net, K, sym, p: int = PRIME, limit: int = 12) -> list:
    """Kernel directions mod p of the Jacobian rows so far that the proven directions *sym* do
    not explain: a basis (as rows, block echelon mod p) of span(K) modulo span(sym), as lists of
    parameter indices (the support of each direction).  Only a guide for the sampling and for the
    reason text: the missing directions are either not exercised yet or an unproven symmetry."""
    import numpy as np
    N = net.n_parameters
    T = np.ascontiguousarray(K.T)
    if T.shape[0] == 0:
        return []
    if sym:
        if _SYM_CACHE.get("sym") is not sym:        # the cache holds sym: identity is safe
            Sm = QMatrix.from_rows(sym, ncols=N).rref()[0]
            rows = [r for r in Sm.to_rows() if any(v != 0 for v in r)]
            piv = [next(c for c, v in enumerate(r) if v != 0) for r in rows]
            Sp = np.zeros((len(rows), N))
            for a, r in enumerate(rows):
                for c, v in enumerate(r):
                    if v != 0:
                        Sp[a, c] = _modq(v, p)
            _SYM_CACHE.clear()
            _SYM_CACHE.update(sym=sym, piv=piv, Sp=Sp)
        piv, Sp = _SYM_CACHE["piv"], _SYM_CACHE["Sp"]
        T = np.mod(T - _matmul_mod(T[:, piv], Sp, p), p)
    r, E, _ = _echelon_mod_p(T.astype(np.int64), p)
    return [list(map(int, np.flatnonzero(row))) for row in E[:limit]]


def _matmul_mod(A, B, p: int, chunk: int = 4096):
    """A @ B mod p, exact in float64: symmetric representatives (< 2^20) and sums of at most
    *chunk* products (< 2^52)."""
    import numpy as np
    A, B = _reduce(np.asarray(A, dtype=np.float64), p), _reduce(np.asarray(B, dtype=np.float64), p)
    out = np.zeros((A.shape[0], B.shape[1]))
    for c in range(0, A.shape[1], chunk):
        out = np.mod(out + A[:, c:c + chunk] @ B[c:c + chunk], p)
    return out


def _reduce(X, p):
    """An exact representative of X mod p with |entry| <= p/2 + 1 (X integral, |X| < 2^52: the
    float quotient is within 2^-20 of X/p, and X - q p is an exact integer subtraction)."""
    import numpy as np
    return X - np.rint(X * (1.0 / p)) * p


def _inv_mod(S, p):
    """Inverse mod p of an invertible square matrix (Gauss-Jordan; the pivot column and row are
    reduced before use, the rest lazily: entries grow by < 2^39 per step, k <= 2^12 steps)."""
    import numpy as np
    k = S.shape[0]
    A = np.hstack([np.mod(S, p), np.eye(k)])
    for j in range(k):
        col = np.mod(A[:, j], p)
        i = j + np.flatnonzero(col[j:])[0]
        if i != j:
            A[[i, j]] = A[[j, i]]
            col[[i, j]] = col[[j, i]]
        A[j] = _reduce(np.mod(np.mod(A[j], p) * pow(int(col[j]), p - 2, p), p), p)
        col[j] = 0
        A -= np.outer(col, A[j])
    return np.mod(A[:, k:], p)
