"""Exact conversion of binary float and integer arrays to rationals.

Every stored binary float (float16, bfloat16, float32, float64) becomes the exact rational it
denotes (a dyadic rational, see :func:`~algebra.rationals.from_float`); integer tensors are exact
integers.  NaN and infinities are refused with one :class:`~algebra.exceptions.InputError` naming
the tensor and the index.  Used by the readers of :mod:`algebra.io.arrays`,
:mod:`algebra.io.torch`, :mod:`algebra.io.onnx` and :mod:`algebra.io.frameworks`.
"""

from __future__ import annotations

import math

from ..dyadic import FloatWeights
from ..exceptions import InputError, MissingDependencyError
from ..linalg import QMatrix
from ..rationals import Q, to_q

__all__ = ["check_dtype", "exact_qmatrix", "exact_parts", "dyadic_integer_array", "numpy_or_error",
           "float_weights", "refuse_nonfinite", "round_to_float", "rounded_network", "max_entries", "MAX_ENTRIES"]

MAX_ENTRIES = 200_000_000
"""The most array entries one file may declare where a reader would fill them before any check
(a Keras ``.h5`` dataset stored as its fill value, a compressed ``.npz`` member: a few kB can
declare a 200 000 x 200 000 kernel, 298 GB of zeros).  Stored ``.npz`` members and
``.safetensors`` tensors are memory maps whose size the file must hold, so they are not counted.
The same limit for every format (the Keras reader had 5 x 10^7, the others none: s49 huge audit
F18); 2 x 10^8 float32 entries are 800 MB, a LLaMA-7B MLP block 1.4 x 10^8.
``NETFIBERS_MAX_ENTRIES`` sets another limit."""


def max_entries() -> int:
    """:data:`MAX_ENTRIES`, or ``NETFIBERS_MAX_ENTRIES`` when it is set to an integer."""
    import os
    try:
        limit = int(os.environ.get("NETFIBERS_MAX_ENTRIES") or MAX_ENTRIES)
    except ValueError:
        return MAX_ENTRIES
    return limit if limit >= 0 else MAX_ENTRIES

# IEEE 754 binary formats: (significand bits with the hidden one, least normal exponent,
# largest exponent)
_FORMATS = {"float16": (11, -14, 15), "float32": (24, -126, 127), "float64": (53, -1022, 1023)}


def check_dtype(np, arr, name: str, source: str):
    """Accept real float and integer arrays; bfloat16 (ml_dtypes) is widened to float32 exactly."""
    if arr.dtype.name == "bfloat16":
        arr = arr.astype(np.float32)
    if arr.dtype.kind not in "fiu" or arr.dtype.itemsize > 8:
        raise InputError(f"unsupported dtype {arr.dtype} (expected float16/32/64, bfloat16 or an "
                         "integer type)", source, name)
    return arr


def exact_qmatrix(arr, name: str, source: str | None) -> QMatrix:
    """The exact rational matrix of a 2-D float or integer array (no per-entry ``fmpq`` work)."""
    return exact_parts(arr, name, source)[0]


def exact_parts(arr, name: str, source: str | None):
    """``(QMatrix, (N, D) or None)``: the exact matrix and, when the integers fit in int64, a
    numpy integer array N and an int D with ``matrix == N / D``.

    A float array is split as ``M * 2**E`` with integer significands ``M`` read from its IEEE 754
    bit fields and rewritten over one power of two; the integers then go to FLINT in one call.
    """
    np = numpy_or_error()
    n, m = (int(s) for s in arr.shape)
    if arr.size == 0:
        return QMatrix.zeros(n, m), None
    kind = arr.dtype.kind
    if kind in "iu":
        hint = (arr.astype(np.int64), 1) if kind == "i" or arr.dtype.itemsize < 8 else None
        return QMatrix.from_integer_rows(arr.reshape(n, m).tolist(), m), hint
    if kind != "f":
        raise InputError(f"unsupported dtype {arr.dtype}", source, name)
    bad = ~np.isfinite(arr)
    if bad.any():
        raise _nonfinite(np, arr, int(np.argmax(bad.reshape(-1))), name, source)
    flat = np.ascontiguousarray(arr.reshape(-1)).astype(arr.dtype.newbyteorder("="), copy=False)
    M, E = _significands(np, flat)
    nonzero = M != 0
    if not nonzero.any():
        return QMatrix.zeros(n, m), (np.zeros((n, m), dtype=np.int64), 1)
    emin = int(E[nonzero].min())
    shift = np.where(nonzero, E - emin, 0)
    bits = int(np.abs(M).max()).bit_length()
    if int(shift.max()) + bits > 62:  # strip trailing zero bits (M & -M is the lowest set bit)
        low = np.frexp(np.where(nonzero, M & -M, 1).astype(np.float64))[1].astype(np.int64) - 1
        M, E = M >> low, E + low
        bits = int(np.abs(M).max()).bit_length()
        emin = int(E[nonzero].min())
        shift = np.where(nonzero, E - emin, 0)
    span = int(shift.max()) + bits
    if span <= 62:
        I = (M.astype(np.int64) << shift).reshape(n, m)
        ints = I.tolist()
    else:  # huge exponent range: Python integers
        flat = [int(a) << int(s) for a, s in zip(M.tolist(), shift.tolist())]
        ints = [flat[i * m:(i + 1) * m] for i in range(n)]
    if emin >= 0:
        hint = (I << emin, 1) if span + emin <= 62 else None
        return QMatrix.from_integer_rows([[v << emin for v in r] for r in ints], m), hint
    hint = (I, 1 << -emin) if span <= 62 else None
    return QMatrix.from_integer_rows(ints, m, den=1 << -emin), hint


def dyadic_integer_array(arr, name: str, source: str | None, *, chunk: int = 1 << 16):
    """``(N, D)``: an int64 array N of the shape of the 2-D float or integer array *arr* and an
    int D (a power of two) with ``arr == N / D`` exactly, or None when the integers would not
    fit in int64 (exponents spread too far; the caller falls back to rationals).

    Why it is exact: a non-zero binary float x is ``M * 2**E`` with an integer significand
    ``|M| < 2**(p)`` (p = 11, 24, 53 bits) and E its unit in the last place, which never
    decreases as ``|x|`` grows; so the smallest non-zero ``|x|`` has the smallest E, called e.
    With ``e0 = min(e, 0)`` and ``D = 2**-e0`` every ``x * D`` is an integer, of magnitude below
    ``2**(E_max - e0 + p)``, checked ``<= 2**62`` first.  Scaling a float by a power of two up
    (no overflow by that bound, subnormals included) is exact, and so is turning an integral float into
    an int64.  Work is done in chunks of *chunk* entries (little memory beyond N); NaN and
    infinities are refused, the first one named by its index.
    """
    np = numpy_or_error()
    if arr.ndim != 2:
        return None
    kind = arr.dtype.kind
    if kind in "iu":
        if kind == "u" and arr.dtype.itemsize == 8:
            return None
        return arr.astype(np.int64), 1
    if kind != "f" or arr.dtype.itemsize not in _IEEE:
        return None
    flat = arr.reshape(-1)
    if not arr.dtype.isnative:
        flat = flat.astype(arr.dtype.newbyteorder("="))
    work = np.float32 if flat.dtype.itemsize == 2 else flat.dtype.type   # float16 is widened
    total = flat.shape[0]
    amax, amin = 0.0, math.inf
    for s in range(0, total, chunk):
        c = flat[s:s + chunk]
        finite = np.isfinite(c)
        if not finite.all():
            raise _nonfinite(np, arr, s + int(np.argmin(finite)), name, source)
        mag = np.abs(c)
        amax = max(amax, float(mag.max()))
        mag[mag == 0] = np.inf
        amin = min(amin, float(mag.min()))
    N = np.zeros(arr.shape, dtype=np.int64)
    if amax == 0:
        return N, 1
    mb = _IEEE[flat.dtype.itemsize][0]
    e = _ulp_exponent(np, flat.dtype, amin)
    e0 = min(e, 0)
    if _ulp_exponent(np, flat.dtype, amax) - e0 + mb + 1 > 62:
        return None
    out = N.reshape(-1)
    factors, r = [], -e0                  # 2**-e0 as powers of two that are finite in *work*
    while r > 0:
        factors.append(work(2.0 ** min(r, 100)))
        r -= min(r, 100)
    for s in range(0, total, chunk):
        x = flat[s:s + chunk].astype(work, copy=False)
        for f in factors:
            x = x * f                     # exact: a power of two, no overflow by the bound
        out[s:s + chunk] = x              # integral floats below 2**62: exact as int64
    return N, 1 << -e0


def _nonfinite(np, arr, k: int, name: str, source: str | None) -> InputError:
    """The error for the non-finite entry *k* (row-major) of *arr*, named by its index in
    *arr*'s own shape."""
    idx = np.unravel_index(k, arr.shape)
    value = arr.reshape(-1)[k]
    return InputError(f"{'NaN' if value != value else 'infinity'} at index "
                      f"[{','.join(str(int(i)) for i in idx)}] has no exact value", source, name)


def refuse_nonfinite(arr, name: str, source: str | None, *, chunk: int = 1 << 16) -> None:
    """Refuse a float array holding a NaN or an infinity, the first one named by its index in
    the array *as stored* (the readers call this before a transpose or a reshape: an sklearn
    ``coefs_[0]`` NaN stored at [3,5] was named [5,3], a bias entry [2] as [0,2]; s51 audit
    F3).  In chunks: no array of the tensor's size is made."""
    np = numpy_or_error()
    if getattr(arr, "dtype", None) is None or arr.dtype.kind != "f" or arr.size == 0:
        return
    flat = arr.reshape(-1)
    for s in range(0, flat.shape[0], chunk):
        finite = np.isfinite(flat[s:s + chunk])
        if not finite.all():
            raise _nonfinite(np, arr, s + int(np.argmin(finite)), name, source)


def float_weights(arr, name: str, source: str | None):
    """The 2-D float16/32/64 array *arr* kept as exact weights (:class:`~algebra.dyadic.FloatWeights`),
    or None for other arrays.  One pass over the bit fields checks every entry finite (a NaN or
    an infinity is refused, named by its index) and records the bit sizes; the integer and
    rational forms are made later, only if an algorithm asks."""
    if arr.ndim != 2 or arr.dtype.kind != "f" or arr.dtype.itemsize not in _IEEE:
        return None
    fw = FloatWeights(arr, lambda a: dyadic_integer_array(a, name, source),
                      lambda a: exact_parts(a, name, source)[0])
    try:
        fw.bit_sizes()
    except ValueError:
        dyadic_integer_array(arr, name, source)         # names the first NaN or infinity
        raise InputError("a NaN or an infinity has no exact value", source, name) from None
    return fw


def kept_weights(w, name: str, source: str | None):
    """The 2-D array *w* kept exactly as the readers keep a weight: the float array itself
    (:class:`~algebra.dyadic.FloatWeights`), else integers ``(N, D)`` with ``w == N / D``, else
    its exact :class:`QMatrix` (nothing is made rational for a float array)."""
    W = float_weights(w, name, source)
    if W is None:
        ints = dyadic_integer_array(w, name, source)
        W = ints if ints is not None else exact_parts(w, name, source)[0]
    return W


def _ulp_exponent(np, dtype, value: float) -> int:
    """E of ``value = M * 2**E`` (the float's unit in the last place) for a positive finite
    *value* of float *dtype*, read from its IEEE 754 bit fields."""
    size = dtype.itemsize
    mb, eb = _IEEE[size]
    bits = int(np.array([value], dtype=dtype).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[size])[0])
    field = (bits >> mb) & ((1 << eb) - 1)
    return max(field, 1) - (((1 << (eb - 1)) - 1) + mb)


_IEEE = {2: (10, 5), 4: (23, 8), 8: (52, 11)}  # float itemsize -> (mantissa bits, exponent bits)


def _significands(np, flat):
    """Integer significands M and exponents E (int64) with ``flat == M * 2**E`` exactly, read
    from the IEEE 754 bit fields (float16/32/64; bfloat16 arrives widened to float32)."""
    size = flat.dtype.itemsize
    if size not in _IEEE:
        raise InputError(f"unsupported float dtype {flat.dtype}")
    mb, eb = _IEEE[size]
    work = np.int64 if size == 8 else np.int32  # int32 halves the memory traffic for f16/f32
    bits = flat.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
    field = ((bits >> mb) & ((1 << eb) - 1)).astype(work)
    M = (bits & ((1 << mb) - 1)).astype(work)
    M |= (field != 0).astype(work) << mb  # the implicit leading bit of normal numbers
    E = np.maximum(field, 1) - (((1 << (eb - 1)) - 1) + mb)  # subnormals share exponent 1
    negative = (bits >> (8 * size - 1)).astype(bool)
    np.negative(M, out=M, where=negative)
    return M, E


def numpy_or_error():
    try:
        import numpy
    except ImportError:
        raise MissingDependencyError("numpy", "io", "reading and writing binary weight files") from None
    return numpy


def round_to_float(q, dtype: str = "float16"):
    """The exact rational of the *dtype* float nearest to the rational *q*, ties to the even
    significand (IEEE 754 round-to-nearest-even, as ``numpy.float16(x)`` rounds a float64 or
    float32 *x*; subnormals included).  Rounded straight from the exact rational (no float64
    step, so no double rounding).  :class:`InputError` when the result overflows (|q| rounds
    past the largest finite value: numpy gives inf there).

    >>> round_to_float("1/3"), round_to_float(2049), round_to_float(2051)
    (1365/4096, 2048, 2052)
    >>> round_to_float(Q(1, 2 ** 26))     # below half the least subnormal 2^-24: zero
    0
    """
    fmpq = Q
    prec, emin, emax = _FORMATS[dtype]
    q = to_q(q)
    p, d = int(q.p), int(q.q)
    if p == 0:
        return fmpq(0)
    sign, p = (-1 if p < 0 else 1), abs(p)
    e = p.bit_length() - d.bit_length()          # 2^e <= p/d < 2^(e+1) after the correction
    if (p << -e if e < 0 else p) < (d << e if e > 0 else d):
        e -= 1
    shift = prec - 1 - max(e, emin)               # p/d * 2^shift: the significand in ulps
    num, den = (p << shift, d) if shift >= 0 else (p, d << -shift)
    n, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and n & 1):
        n += 1
    value = fmpq(n) * fmpq(2) ** (-shift) if shift >= 0 else fmpq(n * (1 << -shift))
    largest = (fmpq(2) ** (emax + 1)) * (1 - fmpq(1, 2 ** prec))
    if value > largest:
        raise InputError(f"{q} overflows {dtype} (largest finite value {largest})")
    return sign * value


def _rounded(v, dtype: str, name: str):
    try:
        return round_to_float(v, dtype)
    except InputError as exc:
        raise InputError(f"{name} = {exc.problem}") from None


def rounded_network(net, dtype: str = "float16"):
    """*net* with every weight and bias replaced by :func:`round_to_float` of it (the network a
    float16 copy computes, exactly).  :class:`InputError` naming the first parameter that
    overflows."""
    from ..network import Network
    ws, bs = [], []
    for l in range(net.depth):
        w, b = net.layer(l)
        flat, bias = [], []                   # (the parameter named, as the float32 refusal
        for k, v in enumerate(w.entries()):  # names it: s38 tools audit)
            flat.append(_rounded(v, dtype, f"W{l + 1}[{k // max(w.ncols, 1)},{k % max(w.ncols, 1)}]"))
        for k, v in enumerate(b):
            bias.append(_rounded(v, dtype, f"b{l + 1}[{k}]"))
        ws.append([flat[i * w.ncols:(i + 1) * w.ncols] for i in range(w.nrows)])
        bs.append(bias)
    return Network(ws, bs)
