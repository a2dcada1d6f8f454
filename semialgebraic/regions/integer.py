r"""Exact integer arithmetic of one region's classes (the batched exact work of the walk).

Every class of coinciding hyperplanes of a region (:mod:`semialgebraic.regions.walk`) is named
by its primitive integer vector ``K_t = s_t (a_t, c_t)`` (``s_t > 0`` rational), so the sign of
``ℓ_t`` at a rational point ``y = (y_1 … y_d)`` is the sign of the integer ``K_t · (D y, D)`` for
any common denominator ``D > 0`` of y.  :class:`ClassInts` holds K once per pattern and answers
with integer matrix products: the signs at a point (:meth:`ClassInts.inside`), every foot of
the perpendicular from a point at once (:meth:`ClassInts.feet`, with the Gram matrix of the
normals) and the closure proofs over a basis of d classes (:meth:`ClassInts.certify`, one exact
inverse of a d x d integer matrix, then integer products for every class tested).

Products run on numpy ``int64`` only when a bound proves that no entry can overflow
(``max_i Σ_k |A_ik| · max |B| < 2^63``, :func:`int_matmul`); otherwise on Python integers
(numpy object arrays).  No float is involved.

>>> from algebra.rationals import Q
>>> C = ClassInts([(1, 0, 0), (0, 1, 0), (-1, -1, 2)])     # x > 0, y > 0, x + y < 2
>>> C.inside((Q(1, 2), Q(1, 2))), C.inside((Q(2), Q(1)))
(True, False)
>>> [t for t, y in enumerate(C.feet((Q(1, 2), Q(1, 2)))) if y is not None]
[0, 1, 2]
"""

from __future__ import annotations

from math import gcd, lcm
from operator import mul

import numpy as np

from algebra.exceptions import SingularMatrixError
from algebra.linalg import QMatrix
from algebra.rationals import Q

__all__ = ["ClassInts", "basis_inverse", "int_matmul", "int_point"]

_LIMIT = 2 ** 63 - 1
_CACHE = 200000       # inverses kept (a vertex's 2^d regions are far apart in the breadth-first order)


def _as_object(A):
    """*A* as an array of Python integers (never numpy scalars, which could overflow)."""
    return A if A.dtype == object else A.astype(object)


def _max_abs(A) -> int:
    if A.dtype != object:
        return int(np.abs(A).max(initial=0)) if A.size else 0
    from ..budget import checkpoint         # Python integers (numpy's object loops, ~3x a
    flat = A.reshape(-1)                    # generator's pace), the budget checked between blocks
    best = 0
    for k in range(0, flat.size, 1 << 16):
        checkpoint()
        best = max(best, int(np.abs(flat[k:k + (1 << 16)]).max()))
    return int(best)


def _row_bound(A) -> int:
    """``max_i Σ_k |A_ik|`` as a Python integer (exact for object arrays)."""
    if not A.size:
        return 0
    A = A.reshape(A.shape[0], -1)
    if A.dtype == np.int64 and _max_abs(A) * A.shape[1] <= _LIMIT:   # no sum can overflow
        return int(np.abs(A).sum(axis=1).max())
    from ..budget import checkpoint
    A = _as_object(A)
    step = max(1, (1 << 16) // A.shape[1])
    best = 0
    for r in range(0, A.shape[0], step):        # (Python integers: exact sums)
        checkpoint()
        best = max(best, int(np.abs(A[r:r + step]).sum(axis=1).max()))
    return best


def int_matmul(A, B, row_bound=None, big=False):
    """``A @ B`` of integer arrays, exactly: int64 when the bound ``max_i Σ_k |A_ik| · max|B|``
    is below 2^63 (*row_bound*: that row sum, when known), Python integers otherwise (at once
    when *big*: the caller's bound already says int64 may overflow)."""
    if A.size and B.size:
        rb = mb = None
        if not big:
            rb = _row_bound(A) if row_bound is None else row_bound
            mb = _max_abs(B)
            if rb * mb <= _LIMIT and rb <= _LIMIT and mb <= _LIMIT:   # (each factor: a zero one)
                return A.astype(np.int64) @ B.astype(np.int64)
        # the work: products times their size (a product of two 10^5-bit integers costs about
        # 1 000 of two 128-bit ones; 60 x 60 x 9 of them in numpy's object loop, where signals
        # are held, ran minutes past a 5 s budget: s54, a net of 12-digit weights times 10^±25)
        bits = (_max_abs(A) if rb is None else rb).bit_length() + (_max_abs(B) if mb is None else mb).bit_length()
        per = A.shape[1] * B.shape[1] * max(1, bits // 128)
        if A.shape[0] * per > _FLINT_FROM:
            return _flint_matmul(A, B, max(1, min(64, _FLINT_FROM // per)))
    from ..budget import signals_after
    with signals_after():       # (an exception raised inside numpy's object matmul loop at an
        return _as_object(A) @ _as_object(B)    # element's first product frees the element
                                                # before it, still in the output: numpy 2.4)


_FLINT_FROM = 10 ** 6
"""Past this many products (each counted once per 128 bits of its factors), big-integer matrix
products go to FLINT's fmpz_mat in blocks of rows of about this much work each (numpy's object
arrays took 48 s for one 1 034 x 785 Gram matrix of the first region of a 784-1024-10 net, in
one call no budget could stop)."""


_FLINT_GRAM = 10 ** 7
"""Up to this many products a region's Gram matrix of big-integer rows is one FLINT call
(~0.1 s at most); past it, blocks of rows between budget checks (:func:`_flint_matmul`)."""


def _flint_matmul(A, B, rows: int = 64):
    """``A @ B`` for integer arrays with FLINT (:func:`algebra.linalg.evaluation.int_matmul_blocks`),
    *rows* rows of A at a time, the active budget checked between blocks
    (:func:`semialgebraic.budget.checkpoint`)."""
    from algebra.linalg.evaluation import int_matmul_blocks
    from ..budget import checkpoint
    return int_matmul_blocks(A, B, rows, checkpoint)


def int_signs(K64, kb, cols):
    """Signs (-1, 0, 1; an int64 array, one column per vector) of ``K64 @ cols``, exactly, for
    an int64 matrix whose row sums of absolute values are at most *kb* (< 2^54) and integer
    vectors *cols* (lists of Python integers, each of length ``K64.shape[1]``) of any size.

    Each vector is split into limbs of s bits, ``v = Σ_j v_j 2^(s j)`` (``0 <= v_j < 2^s``
    below the top limb), with ``kb · 2^s <= 2^62``, so every limb product ``K64 @ v_j`` is exact
    in int64; the carries are then propagated from the lowest limb up (each step exact in
    int64: a limb product plus a carry below 2^(63 - s)).  With the low limbs reduced to
    ``[0, 2^s)``, the sign of the sum is the sign of the top limb, or, when it is zero, 0 if
    every low limb is 0 and 1 otherwise.  No float is involved."""
    k = len(cols)
    s = 62 - max(1, kb).bit_length()
    if s < 8:
        raise ValueError("int_signs: rows too large for int64 limbs")
    flat = [v for col in cols for v in col]
    top = max(max(flat, default=0).bit_length(), (-min(flat, default=0)).bit_length())
    L = max(1, -(-top // s))
    n = K64.shape[1]
    if L == 1:
        return np.sign(K64 @ np.array(cols, dtype=np.int64).reshape(k, n).T)
    mask = (1 << s) - 1
    limbs = []                                       # limb j of every entry, j = 0 .. L - 1
    for j in range(L - 1):
        sh = s * j
        limbs.extend([(v >> sh) & mask for v in flat])
    sh = s * (L - 1)
    limbs.extend([v >> sh for v in flat])
    # B[:, j * k + c]: limb j of vector c
    B = np.array(limbs, dtype=np.int64).reshape(L * k, n).T
    A = K64 @ B
    carry = np.zeros((K64.shape[0], k), dtype=np.int64)
    low = np.zeros((K64.shape[0], k), dtype=bool)    # some low limb is non-zero
    for j in range(L - 1):
        t = A[:, j * k:(j + 1) * k] + carry
        low |= (t & mask) != 0
        carry = t >> s
    t = A[:, (L - 1) * k:] + carry
    return np.where(t != 0, np.sign(t), low.astype(np.int64))


def int_point(y) -> list:
    """``[D y_1, …, D y_d, D]`` for the least common denominator D > 0 of the rational point."""
    qs = [int(v.q) for v in y]
    D = lcm(*qs) if qs else 1
    return [int(v.p) * (D // q) for v, q in zip(y, qs)] + [D]


def _adjugate(a):
    """``(adj(a), det(a))`` of a square integer matrix of size 1 to 4 (lists of Python
    integers), by cofactor expansion: ``a⁻¹ = adj / det`` when ``det != 0``.  In R^d with
    d <= 4 this is several times cheaper than a rational inverse and its conversion back
    to integers; ``tests/semialgebraic/test_regions_integer.py`` checks ``a · adj = det I``."""
    n = len(a)
    if n == 1:
        return [[1]], a[0][0]
    if n == 2:
        return [[a[1][1], -a[0][1]], [-a[1][0], a[0][0]]], a[0][0] * a[1][1] - a[0][1] * a[1][0]
    if n == 3:
        adj = [[a[1][1] * a[2][2] - a[1][2] * a[2][1], a[0][2] * a[2][1] - a[0][1] * a[2][2],
                a[0][1] * a[1][2] - a[0][2] * a[1][1]],
               [a[1][2] * a[2][0] - a[1][0] * a[2][2], a[0][0] * a[2][2] - a[0][2] * a[2][0],
                a[0][2] * a[1][0] - a[0][0] * a[1][2]],
               [a[1][0] * a[2][1] - a[1][1] * a[2][0], a[0][1] * a[2][0] - a[0][0] * a[2][1],
                a[0][0] * a[1][1] - a[0][1] * a[1][0]]]
        return adj, a[0][0] * adj[0][0] + a[0][1] * adj[1][0] + a[0][2] * adj[2][0]
    (a00, a01, a02, a03), (a10, a11, a12, a13), (a20, a21, a22, a23), (a30, a31, a32, a33) = a
    s0, s1, s2 = a00 * a11 - a10 * a01, a00 * a12 - a10 * a02, a00 * a13 - a10 * a03
    s3, s4, s5 = a01 * a12 - a11 * a02, a01 * a13 - a11 * a03, a02 * a13 - a12 * a03
    c5, c4, c3 = a22 * a33 - a32 * a23, a21 * a33 - a31 * a23, a21 * a32 - a31 * a22
    c2, c1, c0 = a20 * a33 - a30 * a23, a20 * a32 - a30 * a22, a20 * a31 - a30 * a21
    det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
    adj = [[a11 * c5 - a12 * c4 + a13 * c3, -a01 * c5 + a02 * c4 - a03 * c3,
            a31 * s5 - a32 * s4 + a33 * s3, -a21 * s5 + a22 * s4 - a23 * s3],
           [-a10 * c5 + a12 * c2 - a13 * c1, a00 * c5 - a02 * c2 + a03 * c1,
            -a30 * s5 + a32 * s2 - a33 * s1, a20 * s5 - a22 * s2 + a23 * s1],
           [a10 * c4 - a11 * c2 + a13 * c0, -a00 * c4 + a01 * c2 - a03 * c0,
            a30 * s4 - a31 * s2 + a33 * s0, -a20 * s4 + a21 * s2 - a23 * s0],
           [-a10 * c3 + a11 * c1 - a12 * c0, a00 * c3 - a01 * c1 + a02 * c0,
            -a30 * s3 + a31 * s1 - a32 * s0, a20 * s3 - a21 * s1 + a22 * s0]]
    return adj, det


def _small_inverse(rows):
    """``(P, den)`` with ``P / den`` the inverse of the transpose of the integer *rows* (d <= 4;
    P integer, den > 0, in lowest terms: the form of :func:`basis_inverse`), or None."""
    adj, det = _adjugate([list(col) for col in zip(*rows)])
    if det == 0:
        return None
    if det < 0:
        adj, det = [[-v for v in r] for r in adj], -det
    g = gcd(det, *(v for r in adj for v in r))
    return np.array([[v // g for v in r] for r in adj], dtype=object), det // g


def basis_inverse(K, support, cache=None):
    """``(P, den)`` with ``P / den`` the inverse of ``Ka[support]ᵀ`` (P integer, den > 0), or
    None when singular.  The rows are primitive integer vectors that name hyperplanes, so the
    same basis in a neighbouring region (the same keys) has the same inverse: *cache* (a dict,
    keyed by the rows) reuses it."""
    d = K.shape[1] - 1
    rows = tuple(tuple(int(v) for v in K[f, :d]) for f in support)
    if cache is not None and rows in cache:
        return cache[rows]
    if d <= 4:
        got = _small_inverse(rows)
    else:
        M = QMatrix.from_integer_rows(rows, ncols=d).T
        try:
            ents = M.inverse().entries()
        except SingularMatrixError:
            got = None
        else:
            den = lcm(*(int(v.q) for v in ents))
            got = (np.array([int(v.p) * (den // int(v.q)) for v in ents],
                            dtype=object).reshape(d, d), den)
    if cache is not None:
        if len(cache) > _CACHE:
            cache.clear()
        cache[rows] = got
    return got


def _inverse(K, support, cache=None):
    """:func:`basis_inverse` with the int64 copy of P (or None) and its row bound.

    Cached by the basis's hyperplanes up to order and orientation: with rows ``R_i = s_i
    C_{π(i)}`` (C the sorted rows, each with its first non-zero entry > 0, s_i = ±1), row i
    of the inverse of ``Rᵀ`` is s_i times row π(i) of the inverse of ``Cᵀ``, so the regions
    around one vertex, which see its hyperplanes with other orientations, share one inverse."""
    got = _inverse_parts(K, support, cache)
    if got is None:
        return None
    P, den, P64, rb, pos, sv = got
    return (P[pos] * sv.astype(object), den, P64, rb)


def _inverse_parts(K, support, cache=None, K64=None, rows=None):
    """``(P, den, Q, rb, pos, sv)``: the cached inverse of the canonical basis (P, object
    integers; :func:`_inverse`), Q the int64 inverse of the basis itself (rows permuted
    and signed, or None), and the permutation and signs that give the basis's own object
    inverse ``P[pos] * sv``; None when singular.  *K64*: the int64 copy of K, when there is
    one; *rows*: the rows of the basis as lists of Python integers, when the caller has them
    (the canonical form is then found in plain Python)."""
    d = K.shape[1] - 1
    if K64 is not None and rows is None:
        R = K64[support, :d]
        first = R[np.arange(d), np.argmax(R != 0, axis=1)]
        sv = np.where(first < 0, -1, 1)[:, None]
        C = R * sv
        order = np.lexsort(C.T[::-1])
        pos = np.empty(d, dtype=np.intp)
        pos[order] = np.arange(d)
        pos = pos.tolist()
        key = ("canon", tuple(map(tuple, C[order].tolist())))
    else:
        if rows is None:
            rows = K[list(support), :d].tolist()
        signs, canon = [], []
        for r in rows:
            r = r[:d]
            first = next((v for v in r if v != 0), 0)
            sgn = -1 if first < 0 else 1
            signs.append(sgn)
            canon.append(tuple(-v for v in r) if sgn < 0 else tuple(r))
        order = sorted(range(d), key=canon.__getitem__)
        pos = [0] * d
        for j, i in enumerate(order):
            pos[i] = j
        key = ("canon", tuple(canon[i] for i in order))
        sv = np.array(signs, dtype=np.int64)[:, None]
    got = cache.get(key, False) if cache is not None else False
    if got is False:
        got = _small_inverse(key[1]) if d <= 4 else \
            basis_inverse(np.array([list(c) + [0] for c in key[1]], dtype=object), list(range(d)))
        if got is not None:
            P, den = got
            rb = _row_bound(P)
            got = (P, den, P.astype(np.int64) if rb <= _LIMIT else None, rb)
        _remember(cache, key, got)
    if got is None:
        return None
    P, den, P64, rb = got
    return (P, den, None if P64 is None else P64[pos] * sv, rb, pos, sv)


def _oriented_inverse(rows, d, cache=None):
    """``(R, den)`` with ``R[i] / den`` row i of the inverse of the transpose of the basis
    *rows* (sequences of Python integers, of which the first d entries count; d <= 4), R as
    tuples of Python integers, or None when singular.

    Cached by the basis's hyperplanes up to order and orientation, as :func:`_inverse_parts`:
    with ``rows_i = s_i C_{π(i)}`` (C sorted, each row's first non-zero entry > 0), row i of
    the inverse is s_i times row π(i) of the inverse of ``Cᵀ``."""
    canon, signs = [], []
    for r in rows:
        a = tuple(r[:d])
        for v in a:
            if v:
                break
        if v < 0:
            canon.append(tuple([-x for x in a]))
            signs.append(-1)
        else:
            canon.append(a)
            signs.append(1)
    order = sorted(range(d), key=canon.__getitem__)
    key = ("rows", tuple([canon[i] for i in order]))
    got = cache.get(key, False) if cache is not None else False
    if got is False:
        inv = _small_inverse(key[1])
        got = None if inv is None else \
            (tuple(tuple(int(v) for v in row) for row in inv[0].tolist()), int(inv[1]))
        _remember(cache, key, got)
    if got is None:
        return None
    P, den = got
    pos = [0] * d
    for j, i in enumerate(order):
        pos[i] = j
    return [P[pos[i]] if signs[i] > 0 else tuple([-v for v in P[pos[i]]]) for i in range(d)], den


class ClassInts:
    """The primitive integer rows ``K`` (one per class, ``(a, c)`` scaled) of a region.

    *keys*: the primitive integer vectors, in class order (length ``d + 1`` each).
    """

    __slots__ = ("_K", "d", "_kl", "_gram", "_norms", "_K64", "_kb", "_ka_max", "_Kf",
                 "_norms_f", "_sq", "_m", "_Kz", "_Kf_shift")

    def __init__(self, keys, arr=None):
        keys = list(keys)
        self.d = len(keys[0]) - 1 if keys else 0
        shape = (len(keys), self.d + 1)
        if arr is None or arr.dtype != np.int64:      # (*arr*: the keys as an int64 array)
            arr = np.array(keys) if keys else None
        self._m = shape[0]
        absmax = int(np.abs(arr).max(initial=0)) if arr is not None and arr.dtype == np.int64 \
            and arr.shape == shape else None
        if absmax is not None and absmax < 2 ** 62:   # every key fits: bounds on int64
            self._K = None                            # (the object copy, built when asked for)
            self._kb = _row_bound(arr)                # max row sum of |K|, exact
            self._ka_max = _max_abs(arr[:, :self.d])
            self._K64 = arr if self._kb <= _LIMIT else None
            if self._K64 is None:
                self._K = arr.astype(object)
        else:
            self._K = np.array([list(k) for k in keys], dtype=object).reshape(shape)
            top = _max_abs(self._K)
            if top > _LIMIT:
                # some row already past int64: every use of these bounds (int64 products, limbs)
                # is ruled out by any bound above 2^63, so an upper bound will do
                self._kb = self._ka_max = top * shape[1]
                self._K64 = None
            else:
                self._kb = _row_bound(self._K)
                self._ka_max = _max_abs(self._K[:, :self.d])
                self._K64 = self._K.astype(np.int64) if self._kb <= _LIMIT else None
        self._gram = None
        self._Kz = None
        self._kl = keys
        self._norms = None
        self._Kf = None
        self._norms_f = None
        self._Kf_shift = None
        self._sq = {}

    @property
    def K(self):
        """The rows as an array of Python integers."""
        if self._K is None:
            self._K = self._K64.astype(object)
        return self._K

    @property
    def Ka(self):
        return self.K[:, :self.d]

    @property
    def Kc(self):
        return self.K[:, self.d]

    def trim(self) -> None:
        """Drop what only the region's own exact work uses (Gram matrix, float copies, norms),
        keeping the rows for the neighbour proofs of other regions (memory)."""
        self._gram = self._norms = self._Kf = self._norms_f = self._kl = self._Kz = None
        self._Kf_shift = None
        self._sq = {}
        if self._K64 is not None:
            self._K = None

    def _rows(self) -> list:
        """The rows of K as Python integers (the keys, when given)."""
        if self._kl is None:
            self._kl = (self._K64 if self._K64 is not None else self.K).tolist()
        return self._kl

    @property
    def Kf(self):
        """Float copy of K (for float guesses only), each row past 2^500 divided by a power of
        two, ``2^Kf_shift[t]`` (the same hyperplane; ``float()`` of a row past 1e308 raised
        OverflowError: a 1-5-3-1 net of 25-digit rationals, s53 delta audit F2)."""
        if self._Kf is None:
            if self._K64 is not None:
                self._Kf, self._Kf_shift = self._K64.astype(float), np.zeros(self._m, dtype=np.int64)
            else:
                rows, shifts = [], []
                for row in self._rows():
                    top = max((abs(int(v)) for v in row), default=0).bit_length()
                    sh = max(0, top - 500)
                    shifts.append(sh)
                    rows.append([int(v) / (1 << sh) if sh else float(v) for v in row])
                self._Kf = np.array(rows, dtype=float).reshape(self._m, self.d + 1)
                self._Kf_shift = np.array(shifts, dtype=np.int64)
        return self._Kf

    @property
    def Kf_shift(self):
        """The power of two each row of :attr:`Kf` was divided by."""
        self.Kf
        return self._Kf_shift

    @property
    def norms_f(self):
        """Float Euclidean norms of the rows of Ka (float guesses only)."""
        if self._norms_f is None:
            Ka = self.Kf[:, :self.d]
            self._norms_f = np.sqrt(np.einsum("ij,ij->i", Ka, Ka))
        return self._norms_f

    def products(self, B):
        """``K @ B`` for an integer array B (d + 1 rows), exactly (int64 when proven safe)."""
        return int_matmul(self.K if self._K64 is None else self._K64, B, self._kb)

    def norm(self, t) -> int:
        """``|Ka_t|^2``, exact."""
        got = self._sq.get(t)
        if got is None:
            got = self._sq[t] = sum(v * v for v in self._rows()[t][:self.d])
        return got

    def values(self, y):
        """``K · (D y, D)`` (the signs of every ``ℓ_t(y)``), an integer array."""
        p = int_point(y)
        if self._K64 is not None and self._kb * max(map(abs, p)) <= _LIMIT:
            return self._K64 @ np.array(p, dtype=np.int64)
        from ..budget import signals_after
        with signals_after():           # (numpy's object matmul and a Ctrl-C: see int_matmul)
            return self.K @ np.array(p, dtype=object)

    def signs(self, points):
        """Signs of every ``ℓ_t`` at each rational point of *points* (an int64 array, one
        column per point), exactly (:meth:`col_signs` of the points ``(D y, D)``)."""
        return self.col_signs([int_point(y) for y in points])

    def inside(self, y, skip=None) -> bool:
        """Exactly: every class (but *skip*) is > 0 at the rational point *y*."""
        ok = self.signs([y])[:, 0] > 0
        if skip is not None:
            ok[skip] = True
        return bool(ok.all())

    def nonneg(self, y) -> bool:
        """Exactly: every class is >= 0 at *y*."""
        return bool((self.signs([y]) >= 0).all())

    def inside_and_nonneg(self, y2, y) -> bool:
        """Exactly: every class is > 0 at *y2* and >= 0 at *y* (one product for both)."""
        S = self.signs([y2, y])
        return bool((S[:, 0] > 0).all() and (S[:, 1] >= 0).all())

    def col_signs(self, cols):
        """Signs of ``K @ col`` for integer vectors *cols* (lists of Python integers of length
        d + 1), exactly (an int64 array, one column per vector)."""
        kb = self._kb
        if self._K64 is not None and kb < 2 ** 54:
            if kb * max((abs(v) for c in cols for v in c), default=0) <= _LIMIT:
                return np.sign(self._K64 @ np.array(cols, dtype=np.int64).T)
            return int_signs(self._K64, kb, cols)
        return self._flint_signs(cols)

    def _flint(self):
        """K as a FLINT ``fmpz_mat`` (rows past int64: products of big integers in C, ~5x
        numpy's object loops on a digits classifier's 150-bit rows), built once."""
        if self._Kz is None:
            from algebra.linalg.evaluation import IntRows
            self._Kz = IntRows(self._rows())
        return self._Kz

    def _flint_signs(self, cols, block: int = 64):
        """Signs of ``K @ col`` for each of *cols*, by FLINT products of at most *block*
        columns and about 10^7 products (each a short call), the active budget checked between
        them."""
        from ..budget import checkpoint
        Kz = self._flint()
        m, k = self._m, len(cols)
        block = max(1, min(block, 10 ** 7 // max(1, m * (self.d + 1))))
        out = np.empty((m, k), dtype=np.int64)
        for c0 in range(0, k, block):
            checkpoint()
            part = cols[c0:c0 + block]
            out[:, c0:c0 + len(part)] = np.array(Kz.signs(part), dtype=np.int64).reshape(m, len(part))
        return out

    def gram(self):
        """``Ka Kaᵀ`` (exact integers), computed once."""
        if self._gram is None:
            if self._K64 is None and self.d and self._m * self._m * self.d <= _FLINT_GRAM:
                from algebra.linalg.evaluation import int_gram   # (one FLINT call: bounded by
                self._gram = np.array(int_gram(self._rows(), self.d),   # _FLINT_GRAM products)
                                      dtype=object).reshape(self._m, self._m)
            else:
                self._gram = int_matmul(self.Ka, self.Ka.T)
            self._norms = [int(self._gram[t, t]) for t in range(self._gram.shape[0])]
        return self._gram

    def feet(self, point):
        """For each class t: the foot of the perpendicular from *point* (inside the region)
        onto its hyperplane when every other class is > 0 there (a facet witness), else None.

        With ``V = K·(D p, D)`` and the Gram matrix G, class j at the foot of t has the sign of
        ``n_t V_j - V_t G_jt`` (``n_t = G_tt > 0``): one integer matrix for every pair."""
        m = self.K.shape[0]
        if m == 0:
            return []
        G = self.gram()
        V = self.values(point)
        n = np.array(self._norms, dtype=object)
        Vo = _as_object(V)
        bound = _max_abs(Vo) * (_max_abs(n) + _max_abs(G))
        if bound <= _LIMIT:
            X = (np.outer(V.astype(np.int64), n.astype(np.int64))
                 - G.astype(np.int64) * V.astype(np.int64)[None, :])
        else:
            X = np.outer(Vo, n) - _as_object(G) * Vo[None, :]
        np.fill_diagonal(X, 1)
        good = np.all(X > 0, axis=0)
        D = int_point(point)[-1]
        out = []
        for t in range(m):
            if not good[t]:
                out.append(None)
                continue
            r = Q(int(V[t])) / (D * int(self._norms[t]))
            out.append(tuple(p - r * int(k) for p, k in zip(point, self.Ka[t])))
        return out

    def certify(self, support, todo, want_values=False, scales=None, cache=None):
        """Closure proofs over the basis *support* (d classes): for each class u of *todo*,
        ``K_u = Σ μ_f K_f + μ_0`` with ``μ >= 0, μ_0 > 0`` (so ``ℓ_u > 0`` on the closure).

        Returns ``{u: None}`` for the certified classes, or with *want_values* (and *scales*,
        the rationals ``s_t`` with ``K_t = s_t (a_t, c_t)``) ``{u: (λ, λ_0)}`` in the classes'
        own rows: ``ℓ_u = Σ λ_f ℓ_f + λ_0``.  None when the basis is singular.  *cache*: a
        dict shared between regions for :func:`basis_inverse`."""
        d = self.d
        if len(support) != d or not todo:
            return {}
        if d <= 4:
            return self._certify_small(list(support), todo, want_values, scales, cache)
        support = list(support)
        kl = self._rows()
        got = _inverse_parts(self.K, support, cache, self._K64, [kl[f] for f in support])
        if got is None:
            return None
        P, den, P64, rb, pos, sv = got
        todo = list(todo)
        L0 = None
        if P64 is not None and self._K64 is not None and rb * self._ka_max <= _LIMIT:
            Num = P64 @ self._K64[todo, :d].T                # den · μ, column per class
            cmax = int(np.abs(self._K64[:, d]).max(initial=0))
            nmax = int(np.abs(Num).max(initial=0))
            if cmax * den <= _LIMIT // 2 and d * cmax * nmax <= _LIMIT // 2:
                L0 = self._K64[todo, d] * den - self._K64[support, d] @ Num
        else:                  # big integers: plain Python beats numpy's object arrays here
            return self._certify_big(support, todo, P, den, pos, sv, want_values, scales)
        if L0 is None:
            Num = _as_object(Num)
            L0 = self.Kc[todo] * den - self.Kc[support] @ Num
        ok = np.all(Num >= 0, axis=0) & (L0 > 0)
        out = {}
        for col, u in enumerate(todo):
            if not ok[col]:
                continue
            if not want_values:
                out[u] = None
                continue
            su = scales[u]
            lam = [Q(int(Num[r, col]), den) * scales[f] / su for r, f in enumerate(support)]
            out[u] = (lam, Q(int(L0[col]), den) / su)
        return out

    def _certify_small(self, support, todo, want_values, scales, cache):
        """:meth:`certify` for d <= 4 in plain Python integers: the inverse of the basis from
        :func:`_oriented_inverse` (cached up to order and orientation), then ``den · μ`` and
        ``den · μ_0`` of each class by integer dot products (numpy's fixed costs exceed the
        work of a few 4-vectors)."""
        d = self.d
        kl = self._rows()
        got = _oriented_inverse([kl[f] for f in support], d, cache)
        if got is None:
            return None
        rows, den = got
        return _certify_rows(kl, d, rows, den, support, todo, want_values, scales)

    def _certify_big(self, support, todo, P, den, pos, sv, want_values, scales):
        """:meth:`certify` on Python integers: ``μ = P_u K_u[:d] / den`` with the basis's own
        inverse rows ``sv_i P[pos_i]``, ``μ_0 = (den K_u[d] - Σ K_f[d] den μ_f) / den``."""
        d = self.d
        kl = self._rows()
        rows = [[s * v for v in P[p].tolist()] for p, s in zip(pos, sv.ravel().tolist())]
        return _certify_rows(kl, d, rows, den, support, todo, want_values, scales)


def _certify_rows(kl, d, rows, den, support, todo, want_values, scales):
    """The closure proofs of the classes *todo* from the integer inverse rows *rows* of the
    basis *support* (``den`` times the inverse): ``den · μ = rows · K_u[:d]`` must be ``>= 0``
    and ``den · μ_0 = den K_u[d] − Σ_f K_f[d] den μ_f`` ``> 0`` (plain Python integers)."""
    cs = [kl[f][d] for f in support]
    out = {}
    for u in todo:
        a = kl[u]
        num = [sum(map(mul, r, a)) for r in rows]                   # den · μ
        if min(num) < 0:
            continue
        l0 = a[d] * den - sum(map(mul, cs, num))                    # den · μ_0
        if l0 <= 0:
            continue
        if not want_values:
            out[u] = None
            continue
        su = scales[u]
        out[u] = ([Q(n, den) * scales[f] / su for n, f in zip(num, support)], Q(l0, den) / su)
    return out


def _remember(cache, key, value) -> None:
    """Store *value* under *key* in the bounded inverse cache (cleared past ``_CACHE`` keys);
    no cache (None): nothing."""
    if cache is not None:
        if len(cache) > _CACHE:
            cache.clear()
        cache[key] = value
