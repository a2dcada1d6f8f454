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

__all__ = ["exact_float64", "exact_float64_vector", "is_float32_exact", "network_float32_layers"]


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
        b = exact_float64_vector(net.biases[l])
        if W is None or b is None or not (is_float32_exact(W) and is_float32_exact(b)):
            return None
        layers.append((W, b))
    return layers


def _np():
    import numpy
    return numpy
