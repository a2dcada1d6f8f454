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
           "is_float64_product_safe", "network_float64_layers"]


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
        hint = net.integer_weights(l)
        if hint is not None and int(hint[1]) & (int(hint[1]) - 1) == 0:
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


def _np():
    import numpy
    return numpy
