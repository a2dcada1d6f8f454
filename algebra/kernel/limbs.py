r"""Exact integer arrays as int64 limbs: the matrix products of the symbolic bounds without FLINT.

A *limb array* ``X`` (any shape) is a list ``[L_0, …, L_t]`` of int64 numpy arrays with
``X = Σ L_i 2^(B i)``, ``0 <= L_i < 2^B`` below the top and ``−2^B <= L_t < 2^B`` (the form of
:mod:`algebra.linalg.evaluation`, whose splitting, carry and trimming helpers are reused here).
Then ``X > 0`` iff ``L_t > 0`` or (``L_t = 0`` and some lower limb is non-zero), and ``X < 0``
iff ``L_t < 0`` (the lower limbs sum to less than ``2^(B t)``).

Why every operation is exact (``B = (53 − bitlength(K)) // 2`` for the largest inner dimension
``K`` of a product, :class:`LimbArith`):

* a product of two limbs has absolute value at most ``2^(2B)``, so a float64 matrix product of
  two limb matrices with inner dimension ``k <= K`` has partial sums of absolute value at most
  ``k·2^(2B) < 2^53`` (``K < 2^bitlength(K)``): integers that float64 holds exactly, in any
  summation order (the BLAS may reorder); the checks ``k << 2B <= 2^53`` are made per product;
* these (or elementwise int64 limb products, at most ``2^(2B) <= 2^53`` each) are summed into
  int64 accumulators, at most :data:`MAX_TERMS` ``= 256`` terms per accumulator (checked): below
  ``2^61``, and the carry propagation adds less than ``2^(61 − B) + 1``: no int64 overflow;
* a floor division by ``2^s`` of a normalized limb array is a shift of its limbs (lower limbs
  are non-negative, the top one shifts arithmetically, i.e. rounds toward −∞); the remainder is
  the low ``s`` bits, in ``[0, 2^s)``; by an odd ``m < 2^(62 − B)``, a long division from the
  top limb down (each partial ``r·2^B + limb`` with ``0 <= r < m`` is below ``2^62``; numpy's
  ``//`` floors the signed top); any other divisor goes through Python integers.

The numpy module is passed in (the kernel imports no third-party module).
"""

from __future__ import annotations

from algebra.linalg.evaluation import _limb_bits, _normalize_limbs, _split_limbs, _trim_limbs

__all__ = ["LimbArith", "MAX_TERMS", "ONE_THREAD"]

MAX_TERMS = 256
# Each float64 product is kept below this many multiply-adds, the size under which OpenBLAS
# stays on one thread: its threads spin, and on a loaded machine a 200×100×202 product took
# 15.6 ms of CPU on two threads against 0.55 ms on one (speed only: any size is exact).
ONE_THREAD = 1 << 18


def _nothing():
    return None


class LimbArith:
    """Exact arithmetic on limb arrays of one base ``2^B``, fixed by the largest inner dimension
    *width* of the products to come.

    >>> import numpy as np
    >>> A = LimbArith(np, 3)
    >>> x = A.split(np.array([[2**70 + 5, -3, 0]], dtype=object))
    >>> y = A.split(np.array([[1], [2**40], [7]], dtype=object))
    >>> A.ints(A.matmul(x, A.prepare(y))).tolist() == [[2**70 + 5 - 3 * 2**40]]
    True
    >>> q, r = A.floor_div(x, 2**10)
    >>> A.ints(q).tolist(), A.ints(r).tolist() == [[5, 1021, 0]]
    ([[1152921504606846976, -1, 0]], True)
    """

    def __init__(self, np, width: int, check=None):
        """*check* (or None: nothing) is called between limbs in the loops whose length grows
        with the size of the integers (a caller's budget: the kernel knows none; a split of
        10^5-bit integers ran minutes, s53 delta audit F1)."""
        self.np = np
        self.check = check if check is not None else _nothing
        self.B = _limb_bits(max(int(width), 1))
        if self.B < 8:
            raise ValueError(f"inner dimension {width} too large for float64 limbs")
        self.width = max(int(width), 1)

    # -- conversions ------------------------------------------------------------------------
    def split(self, a) -> list:
        """The limb form of an integer array (int64 or Python integers in an object array)."""
        a = self.np.asarray(a)
        if a.dtype.kind not in "iuO":
            raise TypeError(f"integer array expected, got dtype {a.dtype}")
        if a.dtype.kind == "O" and a.size:
            hi = max(int(a.max()), -int(a.min()))
            if hi.bit_length() <= 62:
                a = a.astype(self.np.int64)
        return _split_limbs(self.np, a, self.B, self.check)

    def ints(self, x: list):
        """The integers of a limb array, as a numpy object array (Python integers)."""
        value = x[-1].astype(object)
        for h in reversed(x[:-1]):
            self.check()
            value = (value << self.B) + h.astype(object)
        return value

    # -- elementwise ------------------------------------------------------------------------
    def signs(self, x: list):
        """Boolean arrays ``(X > 0, X < 0)``."""
        top = x[-1]
        neg = top < 0
        pos = top > 0
        if len(x) > 1:
            low = x[0] != 0
            for h in x[1:-1]:
                low = low | (h != 0)
            pos = pos | ((top == 0) & low)
        return pos, neg

    def keep(self, x: list, mask) -> list:
        """``X`` where *mask*, else 0 (still a limb array: zeroing an entry in every limb)."""
        m = mask.astype(self.np.int64)
        return _trim_limbs([h * m for h in x])

    def neg(self, x: list) -> list:
        """``−X``."""
        return _normalize_limbs(self.np, [-h for h in x], self.B)

    def concat(self, xs: list) -> list:
        """The limb arrays *xs* stacked along axis 0 (padded to one number of limbs)."""
        n = max(len(x) for x in xs)
        xs = [self.pad(x, n) for x in xs]
        return _trim_limbs([self.np.concatenate([x[i] for x in xs]) for i in range(n)])

    def take(self, x: list, rows) -> list:
        """The rows *rows* (axis 0) of ``X``."""
        return _trim_limbs([h[rows] for h in x])

    def mul(self, x: list, y: list) -> list:
        """The elementwise product ``X · Y`` (numpy broadcasting, e.g. ``Y`` one row)."""
        if min(len(x), len(y)) > MAX_TERMS:
            return self._by_chunks(x, lambda part: self.mul(part, y))
        acc = [None] * (len(x) + len(y) - 1)
        for i, a in enumerate(x):
            self.check()
            for j, b in enumerate(y):
                p = a * b
                acc[i + j] = p if acc[i + j] is None else acc[i + j] + p
        return _normalize_limbs(self.np, acc, self.B)

    def add(self, x: list, y: list) -> list:
        """``X + Y`` (same shape)."""
        n = max(len(x), len(y))
        return _normalize_limbs(self.np, [self._limb(x, i) + self._limb(y, i) for i in range(n)], self.B)

    # -- products ---------------------------------------------------------------------------
    def prepare(self, y: list):
        """A right operand of :meth:`matmul` (a ``k × m`` limb array): its limbs side by side as
        float64 (each limb an integer of absolute value at most ``2^B``: exact)."""
        np = self.np
        return (np.hstack([h.astype(np.float64) for h in y]), len(y), y[0].shape[1], y[0].shape[0])

    def matmul(self, x: list, yp) -> list:
        """``X @ Y`` for a prepared ``Y`` (:meth:`prepare`): one float64 product per limb of
        ``X``, every partial sum an integer below ``2^53`` (the module docstring)."""
        np = self.np
        Yf, ny, m, k = yp
        if k << (2 * self.B) > 1 << 53:
            raise ValueError(f"inner dimension {k} exceeds the limb bound of {self.width}")
        if min(len(x), ny) > MAX_TERMS:
            return self._by_chunks(x, lambda part: self.matmul(part, yp))
        rows = x[0].shape[0]
        per = max(1, ONE_THREAD // max(1, k * Yf.shape[1]))     # rows per float64 product
        acc = [None] * (len(x) + ny - 1)
        for i, h in enumerate(x):
            if not h.any():
                continue
            self.check()
            hf = h.astype(np.float64)
            if rows <= per:
                P = (hf @ Yf).astype(np.int64)
            else:
                P = np.concatenate([hf[r:r + per] @ Yf for r in range(0, rows, per)]).astype(np.int64)
            for j in range(ny):
                part = P[:, j * m:(j + 1) * m]
                acc[i + j] = part if acc[i + j] is None else acc[i + j] + part
        acc = [np.zeros((rows, m), dtype=np.int64) if a is None else a for a in acc]
        return _normalize_limbs(np, acc, self.B)

    def floor_div(self, x: list, q: int):
        """``(⌊X / q⌋, X − q·⌊X / q⌋)`` for an integer ``q >= 1``; the remainder lies in
        ``[0, q)``.  A power of two shifts the limbs; ``q = 2^s·m`` with an odd ``m`` below
        ``2^61`` shifts, then divides by ``m`` from the top limb down, each limb in chunks of
        at most ``w = min(B, 62 − bitlength(m))`` bits (int64 long division: each partial
        ``r·2^w + chunk`` with ``0 <= r < m`` is below ``2^62``; numpy's ``//`` floors the
        signed top) — the denominators ``2^a·5^k`` of decimal weights, e.g. ACAS Xu's
        ``.nnet``, where Python integers took a third of a node, and their products (a layer's
        denominator times the next one's, up to ``2^61``: they went through Python integers,
        40 % of an ACAS Xu certificate's check, 2026-12-02); any other ``q`` goes through
        Python ints."""
        q = int(q)
        if q < 1:
            raise ValueError("the divisor must be positive")
        if q & (q - 1):
            s = (q & -q).bit_length() - 1          # q = 2^s · m, m odd
            m = q >> s
            if m.bit_length() > 61:
                v = self.ints(x)
                quo = v // q
                return self.split(quo), self.split(v - quo * q)
            # X = 2^s·X1 + low (a shift), X1 = m·Q + r (long division, top down: limb by limb,
            # each limb in chunks of w bits, top chunk first), so X = q·Q + (2^s·r + low)
            x1, r1 = self.floor_div(x, 1 << s) if s else (x, None)
            np = self.np
            B = self.B
            w = min(B, 62 - m.bit_length())
            chunks = [(B - w * (i + 1) if B - w * (i + 1) > 0 else 0) for i in range(-(-B // w))]
            quo, r = [None] * len(x1), None
            for i in range(len(x1) - 1, -1, -1):
                limb, top = x1[i], B
                for low in chunks:                      # bits [low, top) of the limb
                    part = limb >> low if top == B else (limb >> low) & ((1 << (top - low)) - 1)
                    cur = part if r is None else (r << (top - low)) + part
                    digit = cur // m                    # floor (toward −∞ on the signed top)
                    r = cur - digit * m                 # in [0, m)
                    quo[i] = digit << low if top == B else quo[i] + (digit << low)
                    top = low
            a_, b_ = divmod(s, B)
            mask = (1 << B) - 1
            rem = _normalize_limbs(np, [np.zeros_like(r)] * a_ + [(r & mask) << b_, (r >> B) << b_], B)
            if r1 is not None:
                rem = self.add(rem, r1)
            return _trim_limbs(quo), rem
        s = q.bit_length() - 1
        a, r = divmod(s, self.B)
        x = self.pad(x, a + 2)
        mask = (1 << r) - 1
        rem = list(x[:a]) + ([x[a] & mask] if r else [])
        if not rem:
            rem = [self.np.zeros_like(x[0])]
        hi = x[a:]
        if r:
            hi = [(h >> r) | ((nxt & mask) << (self.B - r)) for h, nxt in zip(hi, hi[1:])] + [hi[-1] >> r]
        return _trim_limbs(list(hi)), _trim_limbs(rem)

    # -- helpers ----------------------------------------------------------------------------
    def _limb(self, x, i):
        """Limb *i* of ``X`` (zero above the top: the value, not the form, is kept; callers
        normalize)."""
        if i < len(x):
            return x[i]
        return self.np.zeros_like(x[0])

    def pad(self, x: list, n: int) -> list:
        """``X`` with at least *n* limbs (the top one split into a non-negative limb and its
        carry, 0 or −1)."""
        x = list(x)
        while len(x) < n:
            top = x.pop()
            x.append(top & ((1 << self.B) - 1))
            x.append(top >> self.B)
        return x

    def _by_chunks(self, x, product) -> list:
        """``product(X)`` for a linear *product* when both operands have more than
        :data:`MAX_TERMS` limbs (numbers above ~5 000 bits): ``X`` cut into runs of MAX_TERMS
        limbs ``X_c`` (``X = Σ X_c 2^(B·MAX_TERMS·c)``), each product normalized, shifted by its
        limbs and added (every accumulator stays within MAX_TERMS terms)."""
        out = None
        for c in range(0, len(x), MAX_TERMS):
            part = product(x[c:c + MAX_TERMS])
            part = [self.np.zeros_like(part[0])] * c + part
            out = part if out is None else self.add(out, part)
        return out
