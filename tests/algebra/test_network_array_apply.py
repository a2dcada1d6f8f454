"""``Network.evaluate`` on a reader's integer arrays (session 43): a large layer not yet made a
QMatrix is applied as ``N · p / (D q)`` in Python integers; the same exact numbers as the
QMatrix product, which the rest of the code (and the checkers) used alone before."""

from __future__ import annotations

import random

import numpy as np
import pytest

from algebra.io import network_from_tensors
from algebra.network import Network
from algebra.rationals import Q


def _materialised(net: Network) -> Network:
    for l in range(net.depth):
        net._weight(l)
    return net


@pytest.mark.parametrize("seed", range(3))
def test_array_apply_equals_the_qmatrix_product(seed):
    rng = np.random.default_rng(seed)
    widths = [130, 128, 129, 3]
    arrays = {}
    for l, (n_in, n_out) in enumerate(zip(widths, widths[1:]), start=1):
        dtype = np.float32 if l == 1 else (np.float16, np.float64)[(seed + l) % 2]
        arrays[f"W{l}"] = (rng.standard_normal((n_out, n_in)) * 10.0 ** rng.integers(-8, 3)).astype(dtype)
        arrays[f"b{l}"] = rng.standard_normal(n_out).astype(dtype)
    arrays["W2"][5] = 0                                              # a zero row
    fast, slow = network_from_tensors(arrays), _materialised(network_from_tensors(arrays))
    assert fast._wq[0] is None and fast.n_inputs * fast.widths[1] >= Network._ARRAY_APPLY
    r = random.Random(seed)
    x = [Q(r.randint(-3, 3), 2) for _ in range(130)]    # small numerators: the int64 product
    assert network_from_tensors(arrays).preactivations(x) == slow.preactivations(x)   # (s49)
    for x in ([Q(0)] * 130, [Q(r.randint(-10**6, 10**6), r.randint(1, 10**4)) for _ in range(130)]):
        assert fast.preactivations(x) == slow.preactivations(x)
    assert fast._wq[0] is None                                       # still no QMatrix made
    for l in range(fast.depth):    # (float64 entries whose integers overflow int64: the QMatrix)
        assert (fast._wq[l] is None) == (fast.integer_weights(l) is not None
                                         and fast._shapes[l][0] * fast._shapes[l][1] >= Network._ARRAY_APPLY)
    x = [Q(r.choice([-1, 1]), 3 ** r.randint(0, 40)) for _ in range(130)]
    assert fast.preactivations(x) == slow.preactivations(x)           # a third evaluation: the
    assert fast._wq[0] is not None                                   # QMatrix, made once


def test_integer_array_layers_too():
    rng = np.random.default_rng(7)
    N1 = rng.integers(-2**40, 2**40, (128, 200), dtype=np.int64)
    N2 = rng.integers(-9, 9, (2, 128), dtype=np.int64)
    b1 = [Q(int(v), 7) for v in rng.integers(-50, 50, 128)]
    b2 = [Q(1, 3), Q(-2)]
    fast = Network._from_integer_arrays([(N1, 2**45), (N2, 5)], [b1, b2])
    slow = _materialised(Network._from_integer_arrays([(N1.copy(), 2**45), (N2.copy(), 5)], [b1, b2]))
    x = [Q(int(v), int(d)) for v, d in zip(rng.integers(-99, 99, 200), rng.integers(1, 30, 200))]
    assert fast.evaluate(x) == slow.evaluate(x)


def test_extreme_int64_weights_are_applied_exactly():
    """The int64 product is taken only when every partial sum provably fits: a weight -2**63
    (whose numpy absolute value is -2**63 again) goes through Python integers (s49)."""
    rows, cols = 130, 130
    N = np.ones((rows, cols), dtype=np.int64)
    N[0, 0] = N[0, 1] = np.iinfo(np.int64).min         # row 0 sums to -2**64 + 128
    fast = Network._from_integer_arrays([(N, 1)], [[Q(0)] * rows])
    slow = _materialised(Network._from_integer_arrays([(N.copy(), 1)], [[Q(0)] * rows]))
    x = [Q(1)] * cols
    assert fast.evaluate(x)[0] == -2**64 + 128
    assert fast.evaluate(x) == slow.evaluate(x)
