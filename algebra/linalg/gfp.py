r"""Linear algebra over GF(p): residues of rational matrices, rank, echelon forms and kernels
modulo a prime.  The one modular module of netfibers.

Why it is sound: for a rational matrix ``A = N / D`` (N integer), every minor of N mod p that is
non-zero is a non-zero integer minor, so ``rank_p(N) <= rank_Q(A)``: a modular rank is a
certified *lower* bound of the rank over Q (three-layer-fibers R22 FIBDIM), and ``n - rank_p``
a certified *upper* bound of a nullity.  Anything else found mod p (a kernel vector, a subset, a
solution) is only a candidate, re-checked over Q by the caller.

Two back ends, both exact:

* ``nmod_*`` take a row-major list of Python ints and run FLINT's ``nmod_mat`` (C, any prime
  below 2^64): :func:`nmod_rank`, :func:`nmod_rref`, :func:`nmod_left_kernel_vector`;
  :func:`rank_lower_bound` ranks the numerator of a :class:`~algebra.linalg.QMatrix` this way.
* ``*_mod_p`` take numpy arrays and run a blocked Gaussian elimination whose float64 BLAS
  products are exact integer operations (needs ``p < 2^20`` and numpy, an optional dependency
  imported when called): :func:`rank_mod_p`, :func:`echelon_mod_p`, :func:`kernel_mod_p`,
  :func:`shrink_kernel_mod_p` (:func:`shrink_kernel_free_mod_p` keeps the identity rows;
  :func:`kernel_rows_mod_p` and :func:`shrink_kernel_rows_mod_p` leave them out),
  :func:`matmul_mod_p`, :func:`inverse_mod_p`,
  :func:`reduce_mod_p`, and :class:`BlockSpan` (a row space grown batch by batch, stoppable
  between panels).  For the large Jacobians of the functional dimension and the conservation
  laws.

Reduction: :func:`residue` (one rational), :func:`residues` (a matrix), :func:`prime_for` (the
largest prime dividing no given denominator), :func:`is_prime` (proven, FLINT).

**The primes** (one list; every value is fixed because it appears in certificates and results):

============  ============================  ==========================================================
name          value                         use and why this size
============  ============================  ==========================================================
``PRIME``     1048573 (< 2^20)              float64 route (functional dimension): residues
                                            ``|v| <= p/2 < 2^20``, 64-term products < 2^53 exact
``PRIMES_24`` 16777213, 16777199, …         skip absorption (FIND-S, canonical flips): products of
              (six primes < 2^24)           two residues fit int64 sums of 2^15 terms; several
                                            primes for retries when one divides a denominator
``PRIME_31``  2^31 − 1                      bottleneck full-row-rank test: products of two residues
                                            fit int64
``PRIME_61``  2^61 − 1                      conservation-law count (FLINT word-size ``nmod``): the
                                            rank drops mod p with probability about n / 2^61
============  ============================  ==========================================================

>>> rank_mod_p([[1, 2], [2, 4]], PRIME), rank_mod_p([[1, 2], [3, 4]], PRIME)
(1, 2)
>>> nmod_rank(2, 2, [1, 2, 3, 4], PRIME_61), residue("1/2", 7)
(2, 4)
"""

from __future__ import annotations

from typing import Iterable, Sequence

from flint import fmpq, fmpz, fmpz_mat, nmod_mat

from ..rationals import to_q
from .qmatrix import QMatrix

__all__ = ["PRIME", "PRIMES_24", "PRIME_31", "PRIME_61", "is_prime", "prime_for", "residue",
           "outer_products_rank", "outer_products_ranks_modulo",
           "residues", "nmod_rank", "nmod_rref", "nmod_left_kernel_vector", "rank_lower_bound", "exact_rank",
           "rank_mod_p", "echelon_mod_p", "rref_mod_p", "kernel_mod_p", "shrink_kernel_mod_p",
           "shrink_kernel_free_mod_p", "kernel_rows_mod_p", "shrink_kernel_rows_mod_p", "expand_kernel",
           "matmul_mod_p", "product_is_zero", "word_primes",
           "inverse_mod_p", "reduce_mod_p", "kernel_free_mod_p", "residues_array", "sparse_rank_mod_p", "SparseEchelon",
           "peel_columns", "pivot_columns",
           "BlockSpan"]

# -- the primes --------------------------------------------------------------------------------

PRIME = 1048573
"""Prime of the float64 route (< 2^20, so float64 products of 64 reduced terms are exact)."""

PRIMES_24 = (16777213, 16777199, 16777183, 16777153, 16777141, 16777139)
"""Primes below 2^24 (products of two residues fit int64 sums of 2^15 terms), largest first."""

PRIME_31 = 2147483647
"""2^31 − 1: products of two residues fit in int64."""

PRIME_61 = (1 << 61) - 1
"""2^61 − 1: the largest word-size Mersenne prime (FLINT ``nmod_mat``)."""


def is_prime(n: int) -> bool:
    """Whether the integer *n* is prime (FLINT's proven test).

    >>> [n for n in range(20) if is_prime(n)], is_prime(PRIME_61), is_prime(PRIME_61 + 2)
    ([2, 3, 5, 7, 11, 13, 17, 19], True, False)
    """
    return n >= 2 and bool(fmpz(n).is_prime())


def prime_for(denominators: Iterable[int], start: int = PRIME) -> int:
    """The largest prime ``p <= start`` dividing none of *denominators*, so that every rational
    with one of them as denominator reduces mod p.

    >>> prime_for([1, 2, 3]), prime_for([PRIME]), prime_for([7 * 5], start=7)
    (1048573, 1048571, 3)
    """
    dens = {abs(int(d)) for d in denominators} - {1}
    cand = int(start)
    while cand >= 2:
        if is_prime(cand) and all(d % cand for d in dens):
            return cand
        cand -= 1
    raise ValueError(f"no prime <= {start} divides none of the denominators")


def residue(v: object, p: int) -> int:
    """The residue in ``[0, p)`` of a rational *v* (exact: :func:`~algebra.rationals.to_q`).

    Raises ``ZeroDivisionError`` when the denominator of *v* is divisible by *p*.

    >>> residue("-1/2", 7), residue(3, 7), residue("10/3", 5)
    (3, 3, 0)
    """
    v = v if isinstance(v, fmpq) else to_q(v)
    q = int(v.q) % p
    if q == 0:
        raise ZeroDivisionError(f"denominator of {v} is divisible by the prime {p}")
    return int(v.p) % p * pow(q, -1, p) % p


# -- FLINT nmod_mat (any word-size prime) ---------------------------------------------------------

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
    return [int(x) * dinv % p for x in nmod_mat(num, p).entries()]


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
    R, rank = nmod_mat(nrows, ncols, [int(x) for x in entries], p).rref()
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
    return nmod_mat(nrows, ncols, [int(x) for x in entries], p).rank()


def sparse_rank_mod_p(rows, p: int, max_ops: int = 10 ** 7) -> int | None:
    """Rank mod a prime *p* of sparse rows (dicts column -> residue in [0, p)) by incremental
    echelon form (each row reduced by the pivots found so far, leading column first); None when
    the fill-in would exceed *max_ops* entry updates (then a dense route is the better one).
    Fast for rows with private columns, such as the scaling directions of a network's neurons.

    >>> sparse_rank_mod_p([{0: 1, 2: 2}, {1: 1}, {0: 2, 1: 3, 2: 4}], 7)
    2
    >>> sparse_rank_mod_p([{0: 1, 1: 1}, {0: 1, 1: 2}], 7, max_ops=1) is None
    True
    """
    echelon = SparseEchelon(p, max_ops)
    for r in rows:
        if echelon.add(r) is None:
            return None
    return echelon.rank


class SparseEchelon:
    """The incremental echelon form mod a prime *p* of sparse rows (:func:`sparse_rank_mod_p`
    one row at a time): :meth:`add` reduces a row by the pivots so far and keeps it when it is
    independent; ``rank`` is the number of pivots, the rank of the rows added (a row given up
    at *max_ops* is left out: then a lower bound).

    >>> e = SparseEchelon(7)
    >>> [e.add(r) for r in ({0: 1, 2: 2}, {1: 1}, {0: 2, 1: 3, 2: 4})], e.rank
    ([True, True, False], 2)
    """

    def __init__(self, p: int, max_ops: int = 10 ** 7):
        self.p, self.max_ops, self.ops = p, max_ops, 0
        self.pivots: dict = {}             # leading column -> row normalised to 1 there

    @property
    def rank(self) -> int:
        return len(self.pivots)

    def add(self, r: dict) -> bool | None:
        """True when the row *r* (column -> integer) is independent of the rows so far (then
        kept), False when it is not, None when its reduction would pass *max_ops* entry updates
        in all (the row is left out, the echelon form unchanged)."""
        p, pivots = self.p, self.pivots
        row = {c: v % p for c, v in r.items() if v % p}
        while row:
            c = min(row)
            piv = pivots.get(c)
            if piv is None:
                inv = pow(row[c], -1, p)
                pivots[c] = {k: v * inv % p for k, v in row.items()}
                return True
            f = row[c]
            self.ops += len(piv)
            if self.ops > self.max_ops:
                return None
            for k, v in piv.items():
                w = (row.get(k, 0) - f * v) % p
                if w:
                    row[k] = w
                else:
                    row.pop(k, None)
        return False


def peel_columns(vectors) -> tuple[list, list, list]:
    """``(pivots, rest, cols)``: exact peeling of sparse vectors (dicts ``{column: value}`` or
    lists).  Vectors with one non-zero entry are unit vectors (their columns are pivots and are
    dropped from the others); then, while some column is non-zero in exactly one remaining
    vector, that vector is independent of the others and removed, that column its pivot.  The
    rank over Q of *vectors* is ``len(pivots)`` plus the rank of *rest* (dicts on the columns
    renumbered 0 .. len(cols) − 1, ``cols`` their original numbers), and if the columns P of
    the rest's vectors have full rank |P|, the vectors restricted to ``pivots`` + those columns
    have full rank too (block triangular: unit rows, then the peeled rows triangular on their
    lone columns, the rest zero on them).

    >>> sorted(peel_columns([{0: 1}, {0: 2, 1: 3}, {1: 1, 2: 1}, {2: 1, 3: 1}])[0])   # all peeled
    [0, 1, 2, 3]
    >>> peel_columns([{0: 1}, {0: 5, 2: 1, 3: 1}, {2: 2, 3: 2}])            # e_0, then two parallel
    ([0], [{0: 1, 1: 1}, {0: 2, 1: 2}], [2, 3])
    """
    items = lambda r: r.items() if isinstance(r, dict) else ((c, v) for c, v in enumerate(r) if v)
    units, rest = [], []
    for r in vectors:
        nz = [(c, v) for c, v in items(r) if v]
        if len(nz) == 1:
            if nz[0][0] not in units:
                units.append(nz[0][0])
        elif nz:
            rest.append(nz)
    unit_set = set(units)
    rest = [[(c, v) for c, v in r if c not in unit_set] for r in rest] if units else rest
    rest = [r for r in rest if r]
    holders: dict = {}
    for i, r in enumerate(rest):
        for c, _ in r:
            holders.setdefault(c, set()).add(i)
    alive, pivots = set(range(len(rest))), list(units)
    lone = [c for c, h in holders.items() if len(h) == 1]
    while lone:
        c0 = lone.pop()
        h = holders[c0]
        if len(h) != 1:
            continue
        i = h.pop()
        alive.discard(i)
        pivots.append(c0)
        for c, _ in rest[i]:
            hc = holders[c]
            hc.discard(i)
            if len(hc) == 1:
                lone.append(c)
    left = [rest[i] for i in sorted(alive)]
    cols = sorted({c for r in left for c, _ in r})
    at = {c: j for j, c in enumerate(cols)}
    return pivots, [{at[c]: v for c, v in r} for r in left], cols


def pivot_columns(vectors, p: int, check=None) -> list | None:
    """Columns P on which *vectors* (sparse dicts or lists of rationals) restricted have full
    rank |P| mod the prime *p* < 2^20, hence over Q, with |P| their rank mod p (a lower bound of
    the rank over Q); None when p divides a denominator.  :func:`peel_columns`, then the blocked
    echelon form mod p of the rest (its pivot columns; *check* between panels).

    Then for every vector r with r·v = 0 for each of *vectors* (over Q), r is determined by its
    entries off P (the vectors' P-block is invertible on the span's coordinates): rows all
    orthogonal to the vectors have the same rank as their columns off P.

    >>> pivot_columns([{0: 1, 1: 1}, {1: 1, 2: 1}, {0: 1, 2: -1}], 5)   # rank 2
    [0, 1]
    """
    import numpy as np
    pivots, rest, cols = peel_columns(vectors)
    if rest:
        A = np.zeros((len(rest), len(cols)), dtype=np.int64)
        try:
            for i, r in enumerate(rest):
                for c, v in r.items():
                    A[i, c] = residue(v, p)
        except ZeroDivisionError:
            return None
        _, _, blocks = echelon_mod_p(A, p, check=check)
        pivots += [cols[int(c)] for _, cs, _ in blocks for c in cs]
    else:
        try:                                  # (the residues must exist for the claim mod p)
            for r in vectors:
                for _, v in (r.items() if isinstance(r, dict) else enumerate(r)):
                    residue(v, p)
        except ZeroDivisionError:
            return None
    return sorted(pivots)


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
    at = nmod_mat(nrows, ncols, [int(x) for x in entries], p).transpose()
    basis, nullity = at.nullspace()
    for j in range(nullity):
        y = [int(basis[i, j]) for i in range(nrows)]
        if sum(a * int(b) for a, b in zip(y, rhs)) % p:
            return y
    return None


def rank_lower_bound(matrix: QMatrix, p: int = PRIME_31) -> int:
    """Rank mod *p* of the numerator N of ``matrix = N / D``: a lower bound of ``matrix.rank()``
    (equal to it unless p divides every maximal non-zero minor of N).  No denominator needs to
    be invertible.  ``rank_lower_bound(A) == A.nrows`` certifies full row rank over Q.

    >>> A = QMatrix.from_rows([[1, "1/2"], [2, 1], [0, "1/3"]])
    >>> rank_lower_bound(A), rank_lower_bound(QMatrix.from_rows([[7, 7]]), 7)
    (2, 0)
    """
    if matrix.nrows == 0 or matrix.ncols == 0:
        return 0
    num, _ = matrix.numer_denom()
    return nmod_mat(num, p).rank()


EXACT_RANK_DIRECT = 1024
""":func:`exact_rank` hands matrices of at most this many entries to FLINT's elimination at once
(400 random matrices up to 40 x 40: 0.34 s through the minor against 0.15 s direct)."""


def _integer_rows(matrix: QMatrix, check):
    """N = a positive multiple of each row of *matrix*, integral (each block of rows over its own
    least common denominator: the same rank, the same row spaces), *check* called between blocks.
    Without *check*, one common denominator (one FLINT call).  The 30 x 1 080 Jacobian rows of a
    4-30-30 net with 1 000-digit weights: one common denominator 11.9 s that no signal stops,
    row by row 1.6 s (s54)."""
    if check is None:
        return matrix.numer_denom()[0]
    import time
    n, c = matrix.nrows, matrix.ncols
    cap = max(1, (1 << 12) // max(1, c))
    rows: list = []
    check()
    t = time.perf_counter()          # one row first: when n of it fit in 0.05 s, the whole
    first, _ = matrix.take_rows([0]).numer_denom()          # matrix at once (the usual case:
    if (time.perf_counter() - t) * n < 0.05:                # blocks convert twice as much)
        return matrix.numer_denom()[0]
    rows.extend(first.tolist())
    r0, step = 1, 1                  # blocks double while they take < 10 ms (a block's common
    while r0 < n:                    # denominator carries all its rows')
        check()
        t = time.perf_counter()
        block, _ = matrix.take_rows(range(r0, min(n, r0 + step))).numer_denom()
        rows.extend(block.tolist())
        r0 += step
        if time.perf_counter() - t < 0.01:
            step = min(cap, 2 * step)
    return fmpz_mat(rows)


def exact_rank(matrix: QMatrix, p: int = PRIME_61, check=None) -> int:
    """The exact rank over Q of *matrix*, through a maximal minor found mod *p*: with N = D ·
    matrix integral, r = rank of N mod p, J the pivot columns of its echelon form and I rows
    where N[I, J] is invertible mod p (so det N[I, J] != 0: rank >= r), the rank is exactly r
    when the Schur complement vanishes, N[~I, ~J] = N[~I, J] N[I, J]^-1 N[I, ~J] (every other
    row is then a combination of the rows I: rank <= r), checked exactly by one solve and one
    integer product; when it does not (p divides every maximal minor: unlikely for p = 2^61 −
    1) the full elimination over Q decides.  Rows far more numerous than the rank are where it
    pays: 3 128 x 1 751 Jacobian rows of rank 336 (a 16-60-60-8 net on 23 regions of a ball)
    in 8.4 s where ``matrix.rank()`` took 18.3 s.  With *check* (a caller's budget), N scales
    each block of rows by its own denominator, *check* called between blocks (:func:`_integer_rows`).

    >>> exact_rank(QMatrix.from_rows([[1, "1/2", 0], [2, 1, 0], [0, "1/3", 1], [1, "5/6", 1]]))
    2
    >>> exact_rank(QMatrix.from_rows([[7, 0], [0, 7]]), 7), exact_rank(QMatrix.from_rows([[0, 0]]))
    (2, 0)
    """
    n, c = matrix.nrows, matrix.ncols
    if n == 0 or c == 0:
        return 0
    if n * c <= EXACT_RANK_DIRECT:            # small: one elimination is cheaper than the steps
        return matrix.rank()
    num = _integer_rows(matrix, check)        # (rows scaled apart under a caller's *check*)
    R, r = nmod_mat(num, p).rref()
    if r == 0 or r == min(n, c):
        return r if r else matrix.rank()      # (r = 0: N is 0 mod p, perhaps not over Z)
    J, j = [], 0                              # (pivots increase: r + c entries read)
    for i in range(r):
        while int(R[i, j]) == 0:
            j += 1
        J.append(j)
    Z = num.tolist()
    sub = nmod_mat([[Z[i][j] for i in range(n)] for j in J], p)    # N[:, J] transposed (r x n)
    Rt, r2 = sub.rref()
    I, k = [], 0
    for i in range(r2):
        while int(Rt[i, k]) == 0:
            k += 1
        I.append(k)
    if r2 != r:                               # (not expected: the column rank of N[:, J] is r)
        return matrix.rank()
    inI, inJ = set(I), set(J)
    nI = [i for i in range(n) if i not in inI]
    nJ = [j for j in range(c) if j not in inJ]
    A = fmpz_mat([[Z[i][j] for j in J] for i in I])
    B = fmpz_mat([[Z[i][j] for j in nJ] for i in I])
    C = fmpz_mat([[Z[i][j] for j in J] for i in nI])
    D = fmpz_mat([[Z[i][j] for j in nJ] for i in nI])
    # C A^-1 B = D, solved on the narrower side (A invertible: det A != 0 mod p): A X = B has
    # c − r right-hand sides, Aᵀ Y = Cᵀ has n − r (a 1-60-60-1 net's 248 x 3 721 rows of rank
    # 245: 12 s one way, the other a fraction of a second — a flint call no budget stops)
    if len(nI) < len(nJ):
        Yn, den = A.transpose().solve(C.transpose()).numer_denom()
        ok = Yn.transpose() * B == D * den
    else:
        Xn, den = A.solve(B).numer_denom()
        ok = C * Xn == D * den
    if ok:
        return r
    return matrix.rank()


# -- numpy float64 route (p < 2^20), blocked, every operation exact -----------------------------

def rank_mod_p(A, p: int = PRIME, block: int = 64) -> int:
    """Exact rank over Z/p of an integer matrix (see :func:`echelon_mod_p`).

    >>> rank_mod_p([[1, 2, 3], [2, 4, 6], [0, 0, PRIME]]), rank_mod_p([[0, 0]], 5)
    (1, 0)
    """
    return echelon_mod_p(A, p, block)[0]


def _require_float64_route(p: int, block: int = 64) -> None:
    """The hypotheses under which every float64 operation below is an exact integer operation:
    a prime ``p < 2^20`` (reduced entries ``|v| <= p/2 < 2^19``, products < 2^38; below 2^21 a
    product could reach 2^40 and 128 lazily accumulated steps of 64 terms 2^53: audit 2026-12-05)
    and ``1 <= block <= 2^12`` (a
    block size, a chunk length or the order of a matrix to invert)."""
    if not (2 <= p < 1 << 20 and is_prime(p)):
        raise ValueError(f"the float64 route needs a prime below 2^20, not {p}")
    if not 1 <= block <= 1 << 12:
        raise ValueError(f"block size {block} is not in [1, 4096]")


def _checked(check, rank: int) -> None:
    """Call *check*; an exception it raises carries ``partial_rank``: the pivots found so far,
    *rank*, the rank mod p of the columns eliminated so far (a lower bound of the whole matrix's
    rank mod p, hence of its rank over Q)."""
    try:
        check()
    except BaseException as exc:
        exc.partial_rank = rank
        raise


def echelon_mod_p(A, p: int = PRIME, block: int = 64, check=None, overwrite: bool = False):
    """Blocked Gaussian elimination over Z/p with float64 BLAS products, all exact.

    *check*, when given, is called before each elimination step (one panel of *block* columns:
    a bounded piece of work) and every 2 048 rows of the first copy; it stops a long
    elimination by raising (a budget check of the caller: ``algebra`` knows no budget), and
    nothing partial is returned but the exception's ``partial_rank`` (the pivots found: a lower
    bound of the rank mod p).  With *overwrite* and a float64 array *A* (integer entries below
    2^53), A itself is reduced and eliminated in place: no copy (a 4 419 x 5 168 kernel: 183 MB
    and ~1 s of first touches saved).

    Returns ``(rank, E, blocks)``: E (rank x ncols, entries in [0, p)) spans the row space mod p
    and is in block echelon form; *blocks* lists ``(row0, cols, inv)`` per elimination step: rows
    ``E[row0 : row0 + len(cols)]`` vanish mod p on the pivot columns of every earlier step, and
    ``inv`` is the inverse mod p of their square submatrix on *cols*.

    Exactness: every matrix product multiplies entries reduced to |v| <= p/2 (< 2^19) over at
    most *block* terms (< 2^38 * block); the trailing matrix is reduced lazily (only the panel
    columns and pivot rows before use, everything every 2^13 / block steps), so entries stay
    below 2^13 * 2^38 = 2^51 < 2^53 and every float64 operation is an exact integer operation.
    Raises ``ValueError`` unless ``p < 2^20`` is prime and ``1 <= block <= 4096``.
    """
    _require_float64_route(p, block)
    import numpy as np
    A = np.asarray(A)
    n, ncols = A.shape
    inplace = overwrite and A.dtype == np.float64 and A.flags.c_contiguous
    M = A if inplace else np.empty((n, ncols))  # reduced in row chunks: one float64 copy of A
    for i in range(0, n, 256):
        if check is not None and i and i % 2048 == 0:     # (large copies only: ~0.5 s of first
            _checked(check, 0)                            # touches per 2 048 x 5 000 rows)
        if inplace:
            np.mod(M[i:i + 256], p, out=M[i:i + 256])
        else:
            M[i:i + 256] = np.mod(np.asarray(A[i:i + 256], dtype=np.int64), p)
    r, steps = 0, 0
    E = np.zeros((min(n, ncols), ncols))       # filled in place: no list of blocks to stack
    blocks = []
    for c0 in range(0, ncols, block):
        if r >= n:
            break
        if check is not None:
            _checked(check, r)
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
            row = reduce_mod_p(np.mod(row * pow(int(row[0]), p - 2, p), p), p)
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
        inv = inverse_mod_p(pivrows[:, piv], p)
        if r + k < n:
            C = reduce_mod_p(np.mod(reduce_mod_p(M[r + k:, cols], p) @ reduce_mod_p(inv, p), p), p)
            R = reduce_mod_p(pivrows, p)
            for i in range(0, n - r - k, 1024):       # row chunks: small temporaries
                M[r + k + i:r + k + i + 1024, c0:] -= C[i:i + 1024] @ R
            steps += 1
            if steps % max(1, 2 ** 13 // block) == 0:
                tail = M[r + k:, c0:]
                np.mod(tail, p, out=tail)
        E[r:r + k, c0:] = pivrows
        blocks.append((r, cols, inv))
        r += k
    return r, E[:r], blocks


def rref_mod_p(A, p: int = PRIME, block: int = 64, check=None):
    """``(pivots, S)``: the reduced row echelon form mod p of the integer matrix *A*, as the
    increasing pivot columns (int array) and the rank x ncols float64 array S (entries in
    [0, p), ``S[:, pivots]`` the identity, the same row space mod p as *A*).

    :func:`echelon_mod_p`, then a block back-substitution over groups of its blocks (at least
    *block* rows each: a sparse matrix gives a few pivots per panel): each group's rows are
    cleared on the later groups' pivot columns, then multiplied by the inverse of their square
    submatrix on their own pivot columns (block upper triangular with invertible diagonal
    blocks, since a block's rows vanish on every earlier block's pivot columns).  *check* is
    called between the steps as there, so a budget stops it within one panel's work (where
    :func:`nmod_rref`, one FLINT call and ~2 million Python ints for 453 x 4 801, took 1.5 s
    that no budget could stop).

    >>> piv, S = rref_mod_p([[1, 2, 3], [2, 4, 7]], 5)
    >>> piv.tolist(), S.tolist()
    ([0, 2], [[1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    """
    import numpy as np
    r, E, blocks = echelon_mod_p(A, p, block, check)
    pivots = np.concatenate([c for _, c, _ in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    starts = [0]                             # group boundaries (rows), at block boundaries
    for r0, _, _ in blocks:
        if r0 - starts[-1] >= block:
            starts.append(r0)
    S = np.zeros_like(E)
    for g0, g1 in reversed(list(zip(starts, starts[1:] + [r]))):
        if check is not None:
            check()
        Eg = E[g0:g1]
        if g1 < r:                     # the later rows: identity on their pivots, 0 on these
            Eg = np.mod(Eg - matmul_mod_p(Eg[:, pivots[g1:]], S[g1:r], p), p)
        inv = inverse_mod_p(Eg[:, pivots[g0:g1]], p)
        S[g0:g1] = np.mod(matmul_mod_p(inv, Eg, p), p)
    return pivots, S


def kernel_mod_p(A, p: int = PRIME, block: int = 64, check=None):
    """Basis (columns, entries in [0, p)) of the right kernel mod p of the integer matrix *A*:
    an ``ncols x (ncols - rank)`` float64 array K with A K = 0 mod p (block back-substitution
    on :func:`echelon_mod_p`; *check* as there)."""
    return kernel_free_mod_p(A, p, block, check)[0]


def kernel_free_mod_p(A, p: int = PRIME, block: int = 64, check=None):
    """``(K, free)``: the kernel basis of :func:`kernel_mod_p` and the free (non-pivot) columns
    of the echelon form, increasing: ``K[free]`` is the identity, so column j of K is the
    kernel vector with 1 at ``free[j]`` and 0 at the other free columns, and for a pivot column
    c, ``-K[c, j]`` is the entry of the reduced row echelon form at (row of c, ``free[j]``).
    The dense form of :func:`kernel_rows_mod_p` (ncols x f: large, and its identity rows cost
    page faults; the functional dimension keeps the compact form).

    >>> K, free = kernel_free_mod_p([[1, 2, 3], [2, 4, 7]], 5)
    >>> free.tolist(), K.T.tolist()
    ([1], [[3.0, 1.0, 0.0]])
    """
    import numpy as np
    P, free, piv = kernel_rows_mod_p(A, p, block, check)
    return expand_kernel(P, free, piv, np.asarray(A).shape[1]), free


def kernel_rows_mod_p(A, p: int = PRIME, block: int = 64, check=None):
    """``(P, free, piv)``: the kernel basis of :func:`kernel_free_mod_p` without its identity
    rows.  ``free`` (increasing) and ``piv`` (the pivot columns, in the echelon form's order)
    split the columns; the basis K has ``K[free]`` the identity and ``K[piv] = P``, a
    ``len(piv) x len(free)`` float64 array of entries in [0, p) (rank x f numbers where K holds
    ncols x f: a 5 168-column Jacobian of rank 600 keeps 22 MB, not 189 MB, and skips the
    ~1 s of first touches of the dense identity, which no *check* could interrupt).  *check*
    as in :func:`echelon_mod_p`, also before each block of the back-substitution.

    >>> P, free, piv = kernel_rows_mod_p([[1, 2, 3], [2, 4, 7]], 5)
    >>> P.tolist(), free.tolist(), piv.tolist()
    ([[3.0], [0.0]], [1], [0, 2])
    """
    import numpy as np
    A = np.asarray(A)
    ncols = A.shape[1]
    r, E, blocks = echelon_mod_p(A, p, block, check)
    pivots = np.concatenate([c for _, c, _ in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    free = np.setdiff1d(np.arange(ncols), pivots)
    P = np.zeros((pivots.size, free.size))          # row k: the kernel basis at column pivots[k]
    for b in range(len(blocks) - 1, -1, -1):        # E_b K = 0: K[cols] = -inv (E_b[rest] K[rest])
        if check is not None:
            _checked(check, r)
        r0, cols, inv = blocks[b]
        rows = E[r0:r0 + len(cols)]                 # K[free] is the identity, K[cols] and the
        k0 = r0 + len(cols)                         # earlier blocks' rows still 0: E_b K is
        later = pivots[k0:]                         # E_b[free] + E_b[later] K[later] (rank x f
        S = np.mod(rows[:, free], p)                # per block, not ncols x f); symmetric
        for c in range(0, later.size, 4096):        # representatives: 4096 (p/2)^2 < 2^52 for
            part = reduce_mod_p(rows[:, later[c:c + 4096]], p) @ reduce_mod_p(P[k0 + c:k0 + c + 4096], p)
            S = np.mod(S + part, p)                 # p < 2^21 (entries in [0, p): 2^54, wrong)
        P[r0:k0] = np.mod(-(inv @ S), p) if len(cols) <= 4096 else np.mod(-matmul_mod_p(inv, S, p), p)
    return P, free, pivots


def expand_kernel(P, free, piv, ncols: int):
    """The dense ``ncols x len(free)`` kernel basis of the compact form ``(P, free, piv)``
    (:func:`kernel_rows_mod_p`): the identity on the rows *free*, *P* on the rows *piv*.

    >>> expand_kernel(*kernel_rows_mod_p([[1, 2, 3], [2, 4, 7]], 5), 3).T.tolist()
    [[3.0, 1.0, 0.0]]
    """
    import numpy as np
    K = np.zeros((ncols, len(free)))
    K[np.asarray(free, dtype=np.int64), np.arange(len(free))] = 1.0
    if len(piv):
        K[np.asarray(piv, dtype=np.int64)] = P
    return K


def residues_array(matrix: QMatrix, p: int):
    """The residues mod *p* of a rational matrix as a numpy int64 array of its shape, entries in
    ``[0, p)`` (:func:`residues`, without a Python int per entry where the numerators fit in
    int64).  Raises ``ZeroDivisionError`` when the common denominator is not invertible mod p.
    *matrix* may also be an integer view (an object with an int64 array ``N``, an int ``den``
    and a ``shape``: :class:`algebra.blocks.IntegerArray`), reduced without FLINT (p < 2^31).

    >>> residues_array(QMatrix.from_rows([[1, "1/2"], [-1, 0]]), 7).tolist()
    [[1, 4], [6, 0]]
    """
    import numpy as np
    n, c = matrix.shape
    if n == 0 or c == 0:
        return np.zeros((n, c), dtype=np.int64)
    if not isinstance(matrix, QMatrix):        # an integer view N / den (algebra.blocks.IntegerArray)
        d = int(matrix.den) % p
        if d == 0:
            raise ZeroDivisionError(f"denominator {matrix.den} is not invertible mod {p}")
        if p >= 1 << 31:
            raise ValueError(f"integer views are reduced modulo primes below 2^31, not {p}")
        return np.mod(matrix.N, p) * pow(d, -1, p) % p
    num, den = matrix.numer_denom()
    d = int(den) % p
    if d == 0:
        raise ZeroDivisionError(f"denominator {den} is not invertible mod {p}")
    dinv = pow(d, -1, p)
    try:
        N = np.array(num.tolist(), dtype=np.int64) % p
    except OverflowError:                      # numerators beyond int64: FLINT reduces them
        N = np.array([[int(x) for x in row] for row in nmod_mat(num, p).tolist()], dtype=np.int64)
    if p < 1 << 31:
        return N * dinv % p                    # < 2^62: exact in int64
    return np.array([[x * dinv % p for x in row] for row in N.tolist()], dtype=np.int64)


def shrink_kernel_mod_p(K, R, p: int, check=None):
    """Basis mod p of {v in span(K) : R v = 0 mod p} (K: ncols x f columns, R: new integer rows);
    *check* as in :func:`echelon_mod_p`, between the products' row blocks and the panels."""
    import numpy as np
    if K.shape[1] == 0 or len(R) == 0:
        return K
    RK = matmul_mod_p(R, K, p, check=check)
    if not RK.any():
        return K
    return matmul_mod_p(K, kernel_mod_p(RK.astype(np.int64), p, check=check), p, check=check)


def shrink_kernel_free_mod_p(K, free, R, p: int, check=None):
    """:func:`shrink_kernel_mod_p` for a basis with ``K[free]`` the identity (as
    :func:`kernel_free_mod_p` returns it): ``(K', free')`` with ``K'[free']`` the identity
    again, ``free'`` a subset of *free*, increasing (the dense form of
    :func:`shrink_kernel_rows_mod_p`).

    >>> K, free = kernel_free_mod_p([[1, 2, 3, 4]], 7)
    >>> K2, free2 = shrink_kernel_free_mod_p(K, free, [[0, 1, 1, 0]], 7)
    >>> free2.tolist(), K2.T.tolist()
    ([2, 3], [[6.0, 6.0, 1.0, 0.0], [3.0, 0.0, 0.0, 1.0]])
    """
    import numpy as np
    free = np.asarray(free, dtype=np.int64)
    if K.shape[1] == 0 or len(R) == 0:
        return K, free
    rest = np.setdiff1d(np.arange(K.shape[0]), free)
    P2, free2, piv2 = shrink_kernel_rows_mod_p(K[rest], free, rest, R, p, check)
    if len(free2) == len(free):                     # R K = 0: K unchanged
        return K, free
    return expand_kernel(P2, free2, piv2, K.shape[0]), free2


def shrink_kernel_rows_mod_p(P, free, piv, R, p: int, check=None):
    """The compact kernel basis ``(P, free, piv)`` of :func:`kernel_rows_mod_p` cut down by the
    new integer rows *R*: ``(P', free', piv')`` with ``free'`` a subset of *free* (increasing;
    all of it when R K = 0) and ``piv'`` the old *piv* then the columns of *free* that
    became pivots.

    The identity rows are never multiplied: R K = R[:, free] + R[:, piv] P, and with
    ``(P2, free2, piv2)`` the compact kernel of R K, K K2 is the identity on ``free[free2]``,
    P2 on ``free[piv2]`` and P[:, free2] + P[:, piv2] P2 on *piv*: rows · rank · f + rank ·
    |piv2| · f' operations, where the product K K2 costs ncols · f · f' (a 16-60-60-8 net on a
    ball, rank ~200 of 5 168: 15 s of 38 s before the identity rows were skipped).

    >>> P, free, piv = kernel_rows_mod_p([[1, 2, 3, 4]], 7)
    >>> P2, free2, piv2 = shrink_kernel_rows_mod_p(P, free, piv, [[0, 1, 1, 0]], 7)
    >>> P2.tolist(), free2.tolist(), piv2.tolist()
    ([[6.0, 3.0], [6.0, 0.0]], [2, 3], [0, 1])
    """
    import numpy as np
    free = np.asarray(free, dtype=np.int64)
    piv = np.asarray(piv, dtype=np.int64)
    R = np.asarray(R)
    if free.size == 0 or len(R) == 0:
        return P, free, piv
    RK = np.mod(np.asarray(R[:, free], dtype=np.int64), p).astype(np.float64)
    if piv.size:
        RK = np.mod(RK + matmul_mod_p(R[:, piv], P, p, check=check), p)
    if not RK.any():
        return P, free, piv
    P2, free2, piv2 = kernel_rows_mod_p(RK.astype(np.int64), p, check=check)
    top = P[:, free2]
    if piv.size and piv2.size:
        top = np.mod(top + matmul_mod_p(P[:, piv2], P2, p, check=check), p)
    return np.vstack([top, P2]), free[free2], np.concatenate([piv, free[piv2]])


MATMUL_ROWS = 512
"""Rows of A per product in :func:`matmul_mod_p` when a *check* is given (a bounded piece of
work between two checks: 512 x 4 801 times 4 801 x 4 801 is ~2e10 operations)."""


_WORD_PRIMES: list[int] = []


def word_primes(count: int) -> list[int]:
    """The *count* largest primes below 2^61 (FLINT ``nmod_mat``'s word size), largest first.

    >>> word_primes(2) == [PRIME_61, word_primes(2)[1]] and is_prime(word_primes(2)[1])
    True
    """
    cand = (_WORD_PRIMES[-1] - 2) if _WORD_PRIMES else PRIME_61
    while len(_WORD_PRIMES) < count:
        if is_prime(cand):
            _WORD_PRIMES.append(cand)
        cand -= 2
    return _WORD_PRIMES[:count]


PRODUCT_PRIMES_MAX = 96
"""The most word primes :func:`product_is_zero` multiplies modulo (about 5 800 bits of entries);
past it, the exact product over Q decides."""


def product_is_zero(L: QMatrix, R: QMatrix, check=None) -> bool:
    """Whether ``L @ R`` is the zero matrix, exactly.

    With ``L = N_L / δ_L`` and ``R = N_R / δ_R`` (integer numerators over common denominators),
    ``L @ R = 0`` iff the integer matrix ``X = N_L @ N_R`` is 0.  Every entry of X has
    ``|X_ij| <= k max|N_L| max|N_R| =: B`` (k the inner dimension), so ``X ≡ 0`` modulo primes
    whose product exceeds B forces ``X = 0`` (the Chinese remainder theorem); a non-zero residue
    modulo any prime proves ``X ≠ 0``.  The products modulo word primes are FLINT ``nmod_mat``
    products, one per prime (*check*, if given, is called between them and may raise); a bound
    needing more than :data:`PRODUCT_PRIMES_MAX` primes falls back to the product over Q, in
    blocks of rows.  (A 256-1024-256 canonical path's linear refactor compares two 256 x 256
    linear maps of 2 048 neurons: minutes over Q, seconds this way; session 40.)

    >>> L = QMatrix.from_rows([[1, "1/2"], [2, 1], ["-1/3", "-1/6"]])
    >>> product_is_zero(L, QMatrix.from_rows([[1, 0], [-2, 0]]))
    True
    >>> product_is_zero(L, QMatrix.from_rows([[1, 0], [-2, "1e-30"]]))
    False
    """
    if L.ncols != R.nrows:
        raise ValueError(f"cannot multiply {L.shape} by {R.shape}")
    if L.nrows == 0 or R.ncols == 0 or L.ncols == 0:
        return True
    cap = PRODUCT_PRIMES_MAX * 60
    # the bound's bits before any numerator matrix is formed: with many distinct denominators
    # (rows over distinct primes) one common denominator has ~K log(den) bits and the cleared
    # matrix m K^2 log(den) bits (2.7 GB on a valid 200 x 1 800 refactor: s40 forge audit F4)
    sizes = [_cleared_bits(M, cap) for M in (L, R)]
    bits = None if None in sizes else sizes[0] + sizes[1] + L.ncols.bit_length() + 1
    primes, total = [], 0
    for p in word_primes(PRODUCT_PRIMES_MAX) if bits is not None else ():
        if total > bits:
            break
        primes.append(p)
        total += p.bit_length() - 1                  # (p >= 2^(bitlen - 1))
    if bits is None or total <= bits:                # too many primes: the product over Q
        step = max(1, 2_000_000 // max(1, L.ncols * R.ncols))
        rows = L.to_rows()
        for k in range(0, len(rows), step):
            if check is not None:
                check()
            if not (QMatrix.from_rows(rows[k:k + step], ncols=L.ncols) @ R).is_zero():
                return False
        return True
    NL, _ = L.numer_denom()
    NR, _ = R.numer_denom()
    for p in primes:
        if check is not None:
            check()
        if any(int(x) for x in (nmod_mat(NL, p) * nmod_mat(NR, p)).entries()):
            return False
    return True


def _cleared_bits(M: QMatrix, cap: int) -> int | None:
    """An upper bound on the bits of the largest entry of ``δ M`` (δ the lcm of M's
    denominators, as :meth:`QMatrix.numer_denom` clears them): the bits of the largest
    numerator plus those of δ; None past *cap* (δ's lcm stopped as soon as it passes it)."""
    import math
    dens, top = set(), 0
    for row in M.to_rows():
        for x in row:
            dens.add(int(x.q))
            top = max(top, abs(int(x.p)).bit_length())
    lcm = 1
    for q in dens:
        lcm = math.lcm(lcm, q)
        if lcm.bit_length() + top > cap:
            return None
    return lcm.bit_length() + top


def matmul_mod_p(A, B, p: int, chunk: int = 4096, check=None):
    """A @ B mod p, exact in float64: symmetric representatives (< 2^20) and sums of at most
    *chunk* products (< 2^52).  *check* (or None) is called between blocks of
    :data:`MATMUL_ROWS` rows of A and may raise to stop."""
    _require_float64_route(p, chunk)
    import numpy as np
    A, B = reduce_mod_p(np.asarray(A, dtype=np.float64), p), reduce_mod_p(np.asarray(B, dtype=np.float64), p)
    out = np.zeros((A.shape[0], B.shape[1]))
    step = A.shape[0] if check is None else MATMUL_ROWS
    for a in range(0, A.shape[0], max(1, step)):
        if check is not None:
            check()
        for c in range(0, A.shape[1], chunk):
            out[a:a + step] = np.mod(out[a:a + step] + A[a:a + step, c:c + chunk] @ B[c:c + chunk], p)
    return out


def reduce_mod_p(X, p):
    """An exact representative of X mod p with |entry| <= p/2 + 1 (X integral, |X| < 2^52: the
    float quotient is within 2^-20 of X/p, and X - q p is an exact integer subtraction)."""
    import numpy as np
    return X - np.rint(X * (1.0 / p)) * p


def inverse_mod_p(S, p):
    """Inverse mod p of an invertible square matrix (Gauss-Jordan; the pivot column and row are
    reduced before use, the rest lazily: entries grow by < 2^39 per step, k <= 2^12 steps)."""
    _require_float64_route(p, max(1, S.shape[0]))
    import numpy as np
    k = S.shape[0]
    A = np.hstack([np.mod(S, p), np.eye(k)])
    for j in range(k):
        col = np.mod(A[:, j], p)
        i = j + np.flatnonzero(col[j:])[0]
        if i != j:
            A[[i, j]] = A[[j, i]]
            col[[i, j]] = col[[j, i]]
        A[j] = reduce_mod_p(np.mod(np.mod(A[j], p) * pow(int(col[j]), p - 2, p), p), p)
        col[j] = 0
        A -= np.outer(col, A[j])
    return np.mod(A[:, k:], p)


class BlockSpan:
    """Rank mod a prime *p* < 2^20 (default :data:`PRIME`) of rows added batch by batch (block
    echelon form, numpy), stoppable.

    A modular rank is at most the rational rank: a certified lower bound of the rank over Q
    (module docstring).  *check* (or None) is called before each panel of 64 columns and before
    each group of :data:`GROUP` blocks in the reduction of new rows; it may raise to stop: the
    span then stays as it was before the call (nothing partial is kept).  So a long elimination
    never needs its time reserved in advance: a budget check stops it within one panel or one
    group (on 1 000 rows of 13 305 columns: ~0.1-0.3 s, ~0.5-1.5 s).

    >>> span = BlockSpan(3)
    >>> span.add_residues([[1, 2, 3], [2, 4, 6]]), span.add_residues([[0, 1, 1], [1, 3, 4]]), span.rank
    (1, 1, 2)
    """

    GROUP = 8
    """Blocks whose multipliers are applied to new rows in one product (inner dimension
    <= 8 * 64 = 512 terms of |v| <= 2^38: sums < 2^47, exact in float64; one such product is
    the longest step between two checks: 1 000 rows of 13 305 columns, ~0.5-1.5 s)."""

    def __init__(self, n: int, check=None, p: int = PRIME):
        _require_float64_route(p)
        self.n, self.check, self.P = n, check, p
        self._buf = None               # echelon rows (first `rank` rows), entries |v| <= P/2 + 1
        self.blocks: list = []         # (row0, pivot columns, inverse) per elimination step
        self.piv: tuple[int, ...] = ()
        self.skipped = 0

    @property
    def rank(self) -> int:
        return len(self.piv)

    @property
    def E(self):
        """The echelon rows held (``rank x n``; None before the first row)."""
        return None if self._buf is None else self._buf[:self.rank]

    def residues(self, M: QMatrix):
        """The residues of *M* mod :data:`PRIME` (None when its denominator is not invertible)."""
        try:
            return residues_array(M, self.P)
        except ZeroDivisionError:
            self.skipped += M.nrows
            return None

    def reduce(self, X):
        """Rows *X* (float64, entries |v| <= P/2 + 1) minus their combination of the rows held
        that vanishes on every pivot column (block forward substitution), reduced the same way.

        Each group of :data:`GROUP` blocks: the multipliers ``C_k = X_k[:, cols_k] inv_k`` are
        found on the group's pivot columns alone (``X_k``: X after the blocks before k), then
        ``X -= [C_1 ... C_g] [E_1; ...; E_g]`` is one product of inner dimension <= 512, instead
        of one pass over X per block.  Each product adds < 2^47 to an entry: X is reduced
        (:func:`reduce_mod_p`, valid below 2^52) every 8 groups, its group columns before use."""
        import numpy as np
        P, E = self.P, self.E
        for n_g, g0 in enumerate(range(0, len(self.blocks), self.GROUP)):
            if self.check is not None:
                self.check()
            group = self.blocks[g0:g0 + self.GROUP]
            gcols = np.concatenate([cols for _, cols, _ in group])
            Xg = reduce_mod_p(X[:, gcols], P)
            Cs, off = [], 0
            for r0, cols, inv in group:
                k = len(cols)
                C = reduce_mod_p(np.mod(Xg[:, off:off + k] @ inv, P), P)
                if off + k < len(gcols):
                    Xg[:, off + k:] = reduce_mod_p(Xg[:, off + k:] - C @ E[r0:r0 + k][:, gcols[off + k:]], P)
                Cs.append(C)
                off += k
            r0 = group[0][0]
            X -= np.hstack(Cs) @ E[r0:r0 + off]
            if n_g % 8 == 7:
                X = reduce_mod_p(X, P)
        return reduce_mod_p(X, P)

    def add_residues(self, R) -> int:
        """Add integer rows (an array, entries of absolute value < 2^53); returns the rank
        gained.  The rows are first reduced by the rows held (:meth:`reduce`: rows · rank · n
        operations), then only the remainder is eliminated (:func:`echelon_mod_p`) and its
        blocks appended.  Every float64 product is of entries reduced to |v| <= P/2 over at most
        512 terms: exact (see ``echelon_mod_p``)."""
        import numpy as np
        if R is None or len(R) == 0:
            return 0
        P = self.P
        X = self.reduce(reduce_mod_p(np.mod(np.asarray(R, dtype=np.float64), P), P))
        keep = np.flatnonzero(X.any(axis=1))      # |v| <= P/2 + 1 < P: zero exactly when 0 mod P
        if keep.size == 0:
            return 0
        r, Enew, blocks = echelon_mod_p(X[keep], P, 64, self.check)
        if r == 0:
            return 0
        base = self.rank
        if self._buf is None or self._buf.shape[0] < base + r:     # capacity grows by a quarter at least
            buf = np.empty((max(base + r, base + base // 4), self.n))
            if base:
                buf[:base] = self._buf[:base]
            self._buf = buf
        self._buf[base:base + r] = reduce_mod_p(Enew, P)
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


_FLINT_RANK_MAX = 512
"""Above this many rows, :func:`outer_products_rank` ranks by :func:`echelon_mod_p` (as fast
from ~1 000 rows on, and interruptible) instead of one flint call."""


def outer_products_rank(W: QMatrix, V: QMatrix, extra: int = 8, seed: int = 0) -> int:
    """A lower bound of the rank over Q of the n matrices ``V[:, i] W[i, :]`` (W n x d, V m x n),
    without forming them (n x md numbers: 784-1 024-10 took 59 s and 1.8 GB): each is paired with
    k = n + *extra* random rank-one functionals, ``<a b^T, v w^T> = (a·v)(b·w)``, mod a prime
    below 2^20 (exact float64 products, :func:`matmul_mod_p`), and the rank of that n x k matrix
    mod p is taken (a projection cannot raise the rank, nor can reduction mod p).  The best of two
    primes; a denominator divisible by one skips it (0 when both do).

    >>> W = QMatrix.from_rows([[1, 0], [0, 1], [1, 1]])
    >>> outer_products_rank(W, QMatrix.from_rows([[1, 2, 3], [0, 1, 1]]))
    3
    >>> outer_products_rank(QMatrix.from_rows([[1, 0], [1, 0], [0, 1]]), QMatrix.from_rows([[1, -1, 2]]))
    2
    """
    import numpy as np
    n, d = W.shape
    m = V.nrows
    if n == 0:
        return 0
    k = n + extra
    best = 0
    for p in (PRIME, 1048571):
        rng = np.random.default_rng([seed, p])
        try:
            w, v = residues_array(W, p), residues_array(V, p)
        except ZeroDivisionError:
            continue
        a = rng.integers(0, p, size=(k, m))
        b = rng.integers(0, p, size=(k, d))
        av = matmul_mod_p(a, v, p).astype(np.int64)          # k x n: a_j . v_i
        bw = matmul_mod_p(b, w.T, p).astype(np.int64)        # k x n: b_j . w_i
        P = (av * bw) % p                                     # products < 2^40
        # flint for small n; above, the blocked elimination, which returns to Python between
        # panels (a caller's alarm can stop it): flint's rank of 3072 x 3080 is one 7-12 s call
        # that no signal interrupts (identify of a 768-3072-768 block overran --timeout 20 by
        # 4 s; session 39)
        best = max(best, nmod_mat(n, k, P.T.ravel().tolist(), p).rank() if n <= _FLINT_RANK_MAX
                   else echelon_mod_p(P.T, p)[0])
        if best == n:
            break
    return best


def outer_products_ranks_modulo(W: QMatrix, V: QMatrix, U: QMatrix, extra: int = 8,
                                seed: int = 0, check=None) -> tuple[int, list[int]]:
    """Lower bounds over Q of (1) the rank of the n matrices ``B_k = V[:, k] W[k, :]`` (W n x d,
    V m x n) and, when they are independent, (2) for each row u of U the rank of the m matrices
    ``e_o uᵀ`` modulo their span (three-layer-fibers R42's independence test).  As
    :func:`outer_products_rank`: every matrix paired with k = n + m + *extra* random rank-one
    functionals ``a_j b_jᵀ`` mod a prime below 2^20; a kernel K of the base's k-vectors gives
    the rank of a group modulo the base as the rank of its k-vectors times K (a projection or a
    reduction mod p cannot raise a rank).  (2) is ``[]`` unless (1) is n.  The best of two primes.
    *check* (or None) is called between blocks of the products and eliminations and may raise.

    >>> W = QMatrix.from_rows([[1, 0, 0], [0, 1, 0]])
    >>> outer_products_ranks_modulo(W, QMatrix.from_rows([[1, 0], [0, 1]]), QMatrix.from_rows([[0, 0, 1], [1, 0, 0]]))
    (2, [2, 1])
    """
    import numpy as np
    n, d = W.shape
    m, g = V.nrows, U.nrows
    k = n + m + extra
    best_base, best = 0, [0] * g
    for p in (PRIME, 1048571):
        rng = np.random.default_rng([seed, p, 42])
        try:
            w, v, u = residues_array(W, p), residues_array(V, p), residues_array(U, p)
        except ZeroDivisionError:
            continue
        a = rng.integers(0, p, size=(k, m))
        b = rng.integers(0, p, size=(k, d))
        av = matmul_mod_p(a, v, p, check=check).astype(np.int64)          # k x n: a_j . v_i
        bw = matmul_mod_p(b, w.T, p, check=check).astype(np.int64)        # k x n: b_j . w_i
        P = (av * bw) % p                                     # k x n, products < 2^40
        if n:
            K = kernel_mod_p(P.T, p, check=check)             # k x (k - rank): P.T K = 0
            rank = k - K.shape[1]
        else:
            K, rank = np.eye(k), 0
        best_base = max(best_base, rank)
        if rank < n:
            continue
        bu = matmul_mod_p(b, u.T, p, check=check).astype(np.int64)         # k x g: b_j . u_q
        X = [matmul_mod_p((a[:, o:o + 1] * bu % p).T, K, p, check=check).astype(np.int64)
             for o in range(m)]
        f = K.shape[1]
        for q in range(g):
            if check is not None and q % 64 == 0:
                check()
            if best[q] == m:
                continue
            rows = [x[q] for x in X]                           # m x f
            r = nmod_mat(m, f, np.concatenate(rows).tolist(), p).rank() if f else 0
            best[q] = max(best[q], r)
        if all(r >= m - 1 for r in best):
            break
    return best_base, (best if best_base == n else [])
