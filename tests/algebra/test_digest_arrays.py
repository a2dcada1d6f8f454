"""Issue 16 (second round), item 2: ``network_digest`` of a network kept as exact integer / float
arrays is computed from the arrays, equals the digest of the same network built from rationals
exactly, and builds no rational matrix."""

from __future__ import annotations

import hashlib
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algebra.kernel import network_digest
from algebra.network import Network
from algebra.rationals import Q

np = pytest.importorskip("numpy")


def _rational_copy(net: Network) -> Network:
    return Network(list(net.weights), list(net.biases))


def _oracle(widths, layers, biases) -> str:
    """The digest's definition in Fraction arithmetic (independent of FLINT and the limbs)."""
    def s(x: Fraction) -> str:
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    parts = [",".join(map(str, widths))]
    for rows, b in zip(layers, biases):
        r = [(j * 40503 + 7) % 65521 + 1 for j in range(len(rows[0]))]
        parts.append(",".join(s(sum((x * y for x, y in zip(row, r)), Fraction(0))) for row in rows))
        parts.append(",".join(s(x) for x in b))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([1, 3, 2 ** 20, 10 ** 4, 2 ** 62]),
       st.sampled_from([3, 40, 62]))
def test_integer_array_digest_equals_rational_and_fraction_oracle(seed, den, bits):
    rng = np.random.default_rng(seed)
    lim = 2 ** bits
    N1 = rng.integers(-lim, lim, (5, 3), dtype=np.int64)
    N2 = rng.integers(-lim, lim, (2, 5), dtype=np.int64)
    N2[0, 0] = -2 ** 63 if bits == 62 else N2[0, 0]        # the int64 extreme: limbs, not overflow
    b1 = [Q(int(x), 7) for x in rng.integers(-9, 10, 5)]
    b2 = [Q(int(x)) for x in rng.integers(-9, 10, 2)]
    net = Network._from_integer_arrays([(N1, den), (N2, 1)], [b1, b2])
    got = network_digest(net)
    assert all(w is None for w in net._wq)                  # no rational matrix was built
    assert got == network_digest(_rational_copy(net))
    frac = [[[Fraction(int(x), den) for x in r] for r in N1.tolist()],
            [[Fraction(int(x)) for x in r] for r in N2.tolist()]]
    bf = [[Fraction(int(x.p), int(x.q)) for x in b] for b in (b1, b2)]
    assert got == _oracle((3, 5, 2), frac, bf)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_file_network_digest_from_arrays(tmp_path, dtype):
    from algebra.io import load
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    rng = np.random.default_rng(3)
    t = {"0.weight": rng.standard_normal((7, 4)).astype(dtype),
         "0.bias": rng.standard_normal(7).astype(dtype),
         "2.weight": (rng.standard_normal((2, 7)) * 1e-3).astype(dtype),
         "2.bias": rng.standard_normal(2).astype(dtype)}
    path = tmp_path / "m.safetensors"
    safetensors_numpy.save_file(t, str(path))
    net = load(path)
    got = network_digest(net)
    assert all(w is None for w in net._wq)
    assert got == network_digest(_rational_copy(net))
    planted = Network.from_rows([[[Fraction(float(x)) for x in r] for r in t["0.weight"].tolist()],
                                 [[Fraction(float(x)) for x in r] for r in t["2.weight"].tolist()]],
                                [[Fraction(float(x)) for x in t["0.bias"].tolist()],
                                 [Fraction(float(x)) for x in t["2.bias"].tolist()]])
    assert got == network_digest(planted)
    w2 = planted.weights[1]
    changed = Network([planted.weights[0], w2.with_entry(0, 0, w2[0, 0] + Q(1, 2 ** 40))],
                      list(planted.biases))
    assert network_digest(changed) != got
