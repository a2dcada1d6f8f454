"""Exact float views of dyadic rationals: numpy arrays that *equal* exact values.

A binary float denotes a dyadic rational (:func:`algebra.rationals.from_float`).  When the
weights of a network were read from a float file, its matrices are known as numpy integer arrays
``N / 2**k`` (:meth:`algebra.network.Network.integer_weights`), and this module turns them into
float64 arrays that are *equal* to the exact values, with a hypothesis under which some float64
operations are exact:

**Float32 hypothesis.**  Every entry is exactly a float32 value.  Then the float64 product of two
entries is exact: each significand has at most 24 bits (the product at most 48 <= 53) and each
magnitude lies in ``[2**-149, 2**128)`` (the product in ``[2**-298, 2**256)``, inside the normal
float64 range).  So for such entries ``x*y == z*t`` in float64 decides the rational identity
``x y = z t``, and ``x*y`` is the exact rational product.  IEEE 754 division is correctly
rounded, so *equal* rational quotients give equal float64 quotients (unequal ones may
collide: quotients are only ever used as hash keys, never as values).

Everything here is a check or an exact conversion: a function that cannot prove its claim
returns None.

>>> import numpy as np
>>> F = exact_float64(np.array([[3, -1], [0, 8]]), 4)
>>> F.tolist(), is_float32_exact(F)
([[0.75, -0.25], [0.0, 2.0]], True)
>>> from algebra.rationals import Q
>>> exact_float64_vector([Q(1, 2), Q(-3)]).tolist(), exact_float64_vector([Q(1, 3)])
([0.5, -3.0], None)
>>> is_float32_exact(np.array([0.1]))          # 0.1 as a float64 is not a float32
False
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["exact_float64", "exact_float64_vector", "is_float32_exact", "network_float32_layers",
           "bit_lengths", "dyadic_bit_sizes", "network_bit_sizes", "two_product",
           "is_float64_product_safe", "network_float64_layers", "FloatWeights", "float_bit_sizes",
           "exact_float_array"]


def exact_float64(N, D: int):
    """float64 array equal to ``N / D`` entrywise (N a numpy integer array, D a positive power
    of two), or None when some entry is not exactly a float64 (too many significant bits,
    underflow) or D is not a power of two."""
    np = _np()
    D = int(D)
    if D <= 0 or D & (D - 1):
        return None
    N = np.asarray(N)
    if N.dtype.kind not in "iu":
        return None
    F = N.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if N.size and not (np.abs(F).max() < 2.0 ** 62 and (F.astype(N.dtype) == N).all()):
            return None                       # a conversion was inexact (the round trip differs)
    k = D.bit_length() - 1
    if k > 1022:
        return None
    if k:
        F *= 2.0 ** -k                        # exact: every non-zero |N| >= 1, so no underflow
    return F


def exact_float64_vector(values: Sequence[object]):
    """float64 array equal to the exact rationals *values* (``fmpq``), or None when one of them
    is not a dyadic rational with at most 53 significant bits."""
    np = _np()
    out = []
    for x in values:
        p, q = int(x.p), int(x.q)
        if q & (q - 1) or abs(p).bit_length() > 53 or q.bit_length() > 1000:
            return None
        f = p / q                              # correctly rounded, exact here unless it underflows
        if f.as_integer_ratio() != (p, q):
            return None
        out.append(f)
    return np.array(out, dtype=np.float64)


def is_float32_exact(F) -> bool:
    """True iff every entry of the float64 array *F* is exactly a float32 value (the
    hypothesis of the module docstring)."""
    np = _np()
    with np.errstate(over="ignore"):
        return bool((F.astype(np.float32).astype(np.float64) == F).all())


def network_float32_layers(net):
    """``[(W_l, b_l), …]`` as float64 arrays equal to the network's exact parameters and all
    exactly float32 values, or None (weights not kept as integers by a reader, a value that is
    not a float32, …).  Cheap: no FLINT entry is read for the weights."""
    layers = []
    for l in range(net.depth):
        fw = net.float_weights(l)
        if fw is not None:                    # the float array read: widened exactly
            W = fw.float_array("float64")
        else:
            hint = net.integer_weights(l)
            if hint is None:
                return None
            W = exact_float64(*hint)
        if W is None or not is_float32_exact(W):
            return None                     # refused before the biases are converted one by one
        b = exact_float64_vector(net.biases[l])
        if b is None or not is_float32_exact(b):
            return None
        layers.append((W, b))
    return layers


def bit_lengths(A):
    """``int.bit_length`` of every entry of the int64 array *A* (of ``|A|``), exactly, as an
    int64 array: six shift-and-test passes, no floats.

    >>> import numpy as np
    >>> bit_lengths(np.array([0, 1, -2, 3, 2 ** 62, -(2 ** 63) + 1, -(2 ** 63)])).tolist()
    [0, 1, 2, 2, 63, 63, 64]
    """
    np = _np()
    x = np.abs(np.asarray(A, dtype=np.int64)).view(np.uint64)   # |-2**63| wraps; as uint64: 2**63
    n = np.zeros(x.shape, dtype=np.int64)
    for s in (32, 16, 8, 4, 2, 1):
        big = x >= np.uint64(1 << s)
        np.right_shift(x, np.uint64(s), out=x, where=big)
        n += big * s
    n += x != 0
    return n


def dyadic_bit_sizes(N, D: int, chunk: int = 1 << 16) -> tuple[int, int]:
    """``(max numerator bits, max denominator bits)`` over the reduced fractions ``N_ij / D``
    (N an int64 array, D a power of two), exactly as :func:`algebra.rationals.bit_size` of
    each entry would give them (0 is ``0/1``: 0 and 1 bits).

    An entry ``N = u * 2**t`` (u odd) over ``D = 2**k`` reduces to ``u / 2**(k - min(t, k))``
    times ``2**max(t - k, 0)``: numerator bits ``bitlen|N| - min(t, k)``, denominator bits
    ``k - min(t, k) + 1``.

    >>> import numpy as np
    >>> dyadic_bit_sizes(np.array([[0, 6, -8]]), 16)    # 0, 3/8, -1/2
    (2, 4)
    """
    np = _np()
    D = int(D)
    if D <= 0 or D & (D - 1):
        raise ValueError("dyadic_bit_sizes: D must be a positive power of two")
    k = D.bit_length() - 1
    flat = np.asarray(N).reshape(-1)
    num, den = 0, 1 if flat.size else 0
    for s in range(0, flat.shape[0], chunk):
        x = flat[s:s + chunk]
        lengths = _float_bit_lengths(np, x)
        if lengths is None:                            # beyond 2**53: the integer passes
            lengths = bit_lengths(x)
        t = _float_bit_lengths(np, x & -x, exact=True) - 1   # trailing zeros (lowest set bit)
        r = np.minimum(t, k)
        nz = x != 0
        if nz.any():
            num = max(num, int(np.where(nz, lengths - r, 0).max()))
            den = max(den, int(np.where(nz, k - r, 0).max()) + 1)
    return num, den


def _float_bit_lengths(np, x, exact: bool = False):
    """``bit_length`` of ``|x|`` for the int64 array *x*, read from the exponent field of its
    float64 value (a non-zero integer ``2**(e-1) <= |v| < 2**e`` has biased exponent
    ``e - 1 + 1023``), or None unless every entry converts exactly (``|x| <= 2**53``, checked;
    *exact* = True when the caller knows every entry is 0 or ``±2**j``, which always convert
    exactly)."""
    if not exact and x.size and not (-2 ** 53 <= int(x.min()) and int(x.max()) <= 2 ** 53):
        return None                                     # |x| <= 2**53 converts exactly
    F = x.astype(np.float64)
    e = (F.view(np.int64) >> 52) & 0x7FF
    e -= 1022
    return np.where(x == 0, 0, e)


def network_bit_sizes(net) -> tuple[int, int]:
    """``(max numerator bits, max denominator bits)`` over all parameters of *net*: on the
    integer arrays of layers kept as arrays (:meth:`~algebra.network.Network.integer_weights`),
    entry by entry elsewhere (biases, layers held as rationals)."""
    from .rationals import bit_size
    num = den = 0
    for l in range(net.depth):
        fw = net.float_weights(l)
        hint = net.integer_weights(l) if fw is None else None
        if fw is not None:
            a, b = fw.bit_sizes()
        elif hint is not None and int(hint[1]) & (int(hint[1]) - 1) == 0:
            a, b = dyadic_bit_sizes(*hint)
        else:
            sizes = [bit_size(q) for q in net.layer(l)[0].entries()]
            a, b = max((x for x, _ in sizes), default=0), max((y for _, y in sizes), default=0)
        num, den = max(num, a), max(den, b)
        for q in net.biases[l]:
            x, y = bit_size(q)
            num, den = max(num, x), max(den, y)
    return num, den


# -- exact products of two float64 values (float64 limbs) ------------------------------------

_SAFE = 2.0 ** 450


def two_product(x, y):
    """The exact product ``x * y`` of float64 arrays as a canonical pair of float64 limbs
    ``[p, e]`` concatenated along the last axis: ``p = fl(x y)`` (round to nearest) and
    ``e = x y − p`` exactly (Dekker's TwoProduct with Veltkamp's split into 26-bit halves).
    Both limbs are functions of the exact product alone, so equal pairs ⇔ equal products.
    Exact when every non-zero factor lies in ``[2^-450, 2^450]`` in magnitude
    (:func:`is_float64_product_safe`): no split overflows and no partial product underflows.

    >>> import numpy as np
    >>> x, y = np.array([1 + 2.0 ** -52]), np.array([1 - 2.0 ** -53])
    >>> two_product(x, y).tolist()        # (1 + 2^-52)(1 - 2^-53) = 1 + 2^-53 - 2^-105
    [1.0, 1.1102230246251563e-16]
    """
    np = _np()
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    c = 134217729.0                                  # 2^27 + 1
    t = c * x
    xh = t - (t - x)
    xl = x - xh
    t = c * y
    yh = t - (t - y)
    yl = y - yh
    p = x * y
    e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
    return np.concatenate([p, e + 0.0], axis=-1)


def is_float64_product_safe(F) -> bool:
    """True iff every non-zero entry of the float64 array *F* has magnitude in
    ``[2^-450, 2^450]`` (the hypothesis of :func:`two_product`)."""
    np = _np()
    A = np.abs(np.asarray(F, dtype=np.float64))
    return bool(((A == 0) | ((A >= 1 / _SAFE) & (A <= _SAFE))).all())


def network_float64_layers(net):
    """``[(W_l, b_l), …]`` as float64 arrays equal to the network's exact parameters, every
    non-zero entry within :func:`is_float64_product_safe`'s range; or None.  The weights come
    from the float array a reader kept (``net.float_weights``, when the network has it) or
    from the integer arrays (:meth:`~algebra.network.Network.integer_weights`), else entry by
    entry from the rational matrix (a float64 file whose integers did not fit int64)."""
    layers = []
    for l in range(net.depth):
        b = exact_float64_vector(net.biases[l])
        if b is None:                                 # cheap refusal first (decimal biases)
            return None
        W = None
        kept = getattr(net, "float_weights", None)
        fw = kept(l) if kept is not None else None
        if fw is not None:
            W = fw.float_array("float64")
        if W is None:
            hint = net.integer_weights(l)
            W = exact_float64(*hint) if hint is not None else None
        if W is None and (fw is None and net.integer_weights(l) is None):
            M = net.layer(l)[0]                       # rationals only: entry by entry (slow)
            W = exact_float64_vector(M.entries())
            W = W.reshape(M.shape) if W is not None else None
        if W is None or not (is_float64_product_safe(W) and is_float64_product_safe(b)):
            return None
        layers.append((W, b))
    return layers


# -- weights kept as the binary float array they were read as ------------------------------------------------
_IEEE = {2: (10, 5), 4: (23, 8), 8: (52, 11)}  # float itemsize -> (mantissa bits, exponent bits)


class FloatWeights:
    """Exact weights held as the binary float array a reader found (float16/32/64; bfloat16 arrives
    widened to float32): IEEE 754 packs each entry's integer significand and exponent, so the
    array *is* an exact mantissa/exponent array, of the file's size and often a read-only memory
    map of it.  The other exact forms are made from it only when asked, once:

    * :meth:`integers`: ``(N, D)`` int64 numerators over a power of two (what
      :meth:`~algebra.network.Network.integer_weights` returns), or None when the exponents
      spread too far for int64 (the network then falls back to rationals for that layer);
    * :meth:`bit_sizes`: the largest numerator/denominator bits of the reduced fractions, read
      from the bit fields (:func:`float_bit_sizes`), no integer array made;
    * :meth:`float_array`: the same values as float32/float64, checked exact.

    *to_integers* and *to_rational* are the reader's exact conversions (``array -> (N, D) or
    None`` and ``array -> QMatrix``); the reader has checked that every entry is finite.

    >>> import numpy as np
    >>> fw = FloatWeights(np.array([[0.75, -2.0], [0.0, 3.0]], dtype=np.float32),
    ...                   lambda a: ((a * 4).astype(np.int64), 4), None)
    >>> fw.shape, fw.bit_sizes(), fw.integers()[0].tolist()
    ((2, 2), (2, 3), [[3, -8], [0, 12]])
    >>> fw.float_array("float64").dtype.name, fw.float_array("float32") is fw.array
    ('float64', True)
    """

    __slots__ = ("array", "_to_integers", "_to_rational", "_integers", "_bits")

    def __init__(self, array, to_integers, to_rational):
        if array.ndim != 2 or array.dtype.kind != "f" or array.dtype.itemsize not in _IEEE:
            raise ValueError("FloatWeights: a 2-D float16/32/64 array is needed")
        self.array = array
        self._to_integers, self._to_rational = to_integers, to_rational
        self._integers = self._bits = None

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.array.shape[0]), int(self.array.shape[1])

    def integers(self):
        """``(N, D)`` with ``array == N / D`` exactly (N int64, read-only; D a power of two), or
        None when the integers would not fit in int64."""
        if self._integers is None:
            hint = self._to_integers(self.array)
            if hint is not None:
                hint[0].flags.writeable = False
            self._integers = (hint,)
        return self._integers[0]

    def rational(self):
        """The exact :class:`~algebra.linalg.QMatrix` (through the integers when they fit)."""
        hint = self.integers()
        if hint is None:
            return self._to_rational(self.array)
        from .linalg import QMatrix
        N, D = hint
        return QMatrix.from_integer_rows(N.tolist(), int(N.shape[1]), den=int(D))

    def bit_sizes(self) -> tuple[int, int]:
        """``(max numerator bits, max denominator bits)`` of the reduced fractions, as
        :func:`algebra.rationals.bit_size` gives them (:func:`float_bit_sizes`)."""
        if self._bits is None:
            bits = float_bit_sizes(self.array)
            if bits is None:
                raise ValueError("FloatWeights: a non-finite entry")   # readers refuse these first
            self._bits = bits
        return self._bits

    def float_array(self, dtype: str):
        """The array as *dtype* (``"float32"``/``"float64"``), equal entrywise to the exact
        values, or None when some entry is not exactly a value of *dtype* (checked by the round
        trip back to the source, which is exact)."""
        np = _np()
        A = self.array
        target = np.dtype(dtype)
        if A.dtype == target and A.dtype.isnative:
            return A
        if A.dtype.itemsize <= target.itemsize:
            return A.astype(target)                      # widening a binary float is exact
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            out = A.astype(target)
            ok = bool((out.astype(A.dtype) == A).all())  # overflow (inf) or rounding: unequal
        return out if ok else None


def float_bit_sizes(F, chunk: int = 1 << 20):
    """``(max numerator bits, max denominator bits)`` over the reduced fractions equal to the
    entries of the float16/32/64 array *F* (0 is ``0/1``: 0 and 1 bits; an empty array gives
    ``(0, 0)``), or None when some entry is NaN or infinite.  Read from the IEEE 754 bit fields,
    in chunks, with integer arithmetic only.

    A non-zero entry is ``m * 2**(e - bias - p)`` with the significand ``m`` (``p`` = 10, 23, 52
    stored bits, the leading bit implicit for normal numbers) and the exponent field ``e``
    (1 for subnormals).  With ``t`` the trailing zeros of ``m`` the reduced value is the odd
    integer ``m >> t`` times ``2**E``, ``E = e - bias - p + t``: numerator bits
    ``bitlen(m) - t + max(E, 0)``, denominator bits ``max(-E, 0) + 1``.  ``t`` and ``bitlen(m)``
    are read from the exponent field of ``m & -m`` and ``m`` converted to a float, exact since
    ``m`` has at most p + 1 <= 53 bits (24 for float16/32 in float32).

    >>> import numpy as np
    >>> float_bit_sizes(np.array([0.0, 0.375, -4.0, 6.0, 2.0 ** -149], dtype=np.float32))
    (3, 150)
    >>> float_bit_sizes(np.array([0.0], dtype=np.float16)), float_bit_sizes(np.array([np.nan]))
    ((0, 1), None)
    """
    np = _np()
    F = np.asarray(F)
    size = F.dtype.itemsize
    if F.dtype.kind != "f" or size not in _IEEE:
        raise ValueError("float_bit_sizes: a float16/32/64 array is needed")
    flat = F.reshape(-1)
    if not flat.dtype.isnative:
        flat = flat.astype(flat.dtype.newbyteorder("="))
    if flat.shape[0] == 0:
        return 0, 0
    mb, eb = _IEEE[size]
    emask, bias = (1 << eb) - 1, (1 << (eb - 1)) - 1
    U = {2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    I = np.int64 if size == 8 else np.int32
    FT, FU, fmb, fbias = ((np.float64, np.uint64, 52, 1023) if size == 8
                          else (np.float32, np.uint32, 23, 127))
    num, den = 0, 1
    for s in range(0, flat.shape[0], chunk):
        bits = flat[s:s + chunk].view(U)
        field = ((bits >> U(mb)) & U(emask)).astype(I)
        if (field == emask).any():
            return None
        m = (bits & U((1 << mb) - 1)).astype(FU)
        m |= (field != 0).astype(FU) << FU(mb)          # the implicit leading bit
        nz = m != 0
        if not nz.any():
            continue
        m = m[nz]
        field = field[nz]
        low = m & (~m + FU(1))                          # the lowest set bit of m
        t = (low.astype(FT).view(FU) >> FU(fmb)).astype(I) - I(fbias)
        length = (m.astype(FT).view(FU) >> FU(fmb)).astype(I) - I(fbias - 1)
        E = np.maximum(field, 1) - I(bias + mb) + t
        num = max(num, int((length - t + np.maximum(E, 0)).max()))
        den = max(den, int(np.maximum(-E, 0).max()) + 1)
    return num, den


def exact_float_array(net, l: int, dtype: str):
    """The weight of layer *l* of *net* as a float array of *dtype* equal to the exact values,
    or None (not kept as floats or integers by a reader, or not exactly representable).  From
    the float array read when the network keeps it, else from its integer arrays."""
    np = _np()
    fw = net.float_weights(l)
    if fw is not None:
        return fw.float_array(dtype)
    hint = net.integer_weights(l)
    if hint is None:
        return None
    F = exact_float64(*hint)
    if F is None or dtype == "float64":
        return F
    if not is_float32_exact(F):
        return None
    with np.errstate(over="ignore"):
        return F.astype(np.float32)


def _np():
    import numpy
    return numpy
