"""The int64 path (semialgebraic.shallow.integer_exact) and the float64-limb path
(compare_float64) of one-hidden-layer equivalence against the FLINT canonical forms, on random
rational nets (hypothesis), planted permutation/scaling pairs with non-dyadic factors, float64
weights, degenerate rows and near misses (one weight off by 1e-9, one ulp)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from algebra.io.arrays import network_from_tensors
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.shallow import canonical_form, equivalent_shallow
from semialgebraic.shallow.float32_exact import compare_float64
from semialgebraic.shallow.integer_exact import compare_integer
from semialgebraic.verify import verify


def rational_net(rng, d, n, m, degenerate=True):
    def q():
        return Q(rng.randint(-30, 30), rng.choice([1, 2, 3, 7, 10, 1000]))
    W = [[q() if rng.random() < 0.85 else Q(0) for _ in range(d)] for _ in range(n)]
    b = [q() for _ in range(n)]
    V = [[q() for _ in range(n)] for _ in range(m)]
    c = [q() for _ in range(m)]
    if degenerate and n >= 2:
        i, j = rng.sample(range(n), 2)
        kind = rng.randrange(5)
        if kind == 0:
            W[i] = [Q(0)] * d
        elif kind == 1:
            for row in V:
                row[i] = Q(0)
        elif kind == 2:
            W[i], b[i] = [x * Q(5, 3) for x in W[j]], b[j] * Q(5, 3)
        elif kind == 3:
            W[i], b[i] = [-x for x in W[j]], -b[j]
        else:
            W[i], b[i] = [-x for x in W[j]], -b[j]
            for row in V:
                row[i] = row[j]
    return W, b, V, c


def net(W, b, V, c):
    return Network.from_rows([W, V], [b, c])


def planted(rng, W, b, V, c):
    """Equivalent: rational positive scalings (not powers of two) and a permutation."""
    n = len(W)
    lam = [Q(rng.randint(1, 9), rng.randint(1, 9)) for _ in range(n)]
    W2 = [[x * l for x in row] for row, l in zip(W, lam)]
    b2 = [x * l for x, l in zip(b, lam)]
    V2 = [[x / l for x, l in zip(row, lam)] for row in V]
    perm = list(range(n))
    rng.shuffle(perm)
    return ([W2[p] for p in perm], [b2[p] for p in perm], [[row[p] for p in perm] for row in V2], c)


def oracle(a, b):
    return canonical_form(a) == canonical_form(b)


def check(a, b, compare=compare_integer, path="integer_path"):
    r = compare(a, b)
    assert r.answer is not None, r.reason
    flint = [Network(list(n.weights), list(n.biases)) for n in (a, b)]
    assert r.answer == oracle(*flint)
    v = equivalent_shallow(a, b)
    # the dispatcher tries float32, float64, then integer rows: dyadic weights (e.g. -29/2,
    # -29/4) are decided by an earlier exact path, which is as good
    earlier = {"integer_path": ("float32_path", "float64_path"), "float64_path": ("float32_path",)}
    assert v.answer == r.answer
    assert any(p in v.details for p in (path,) + earlier.get(path, ()))
    assert verify(v.certificate)[0]
    return r.answer


@pytest.mark.parametrize("seed", range(10))
def test_planted_rational_pairs_and_near_misses(seed):
    rng = random.Random(seed)
    d, n, m = rng.randint(1, 5), rng.randint(1, 7), rng.randint(1, 3)
    parts = rational_net(rng, d, n, m)
    a = net(*parts)
    W2, b2, V2, c2 = planted(rng, *parts)
    assert check(a, net(W2, b2, V2, c2)) is True
    # a near miss: one weight of the copy off by 1e-9 (relative: tiny)
    which = rng.randrange(3)
    if which == 0 and any(any(r) for r in W2):
        i = next(k for k, r in enumerate(W2) if any(r))
        W2[i] = list(W2[i])
        W2[i][0] += Q(1, 10 ** 9)
    elif which == 1:
        b2[0] += Q(1, 10 ** 9)
    else:
        V2[0] = list(V2[0])
        V2[0][0] += Q(1, 10 ** 9)
    other = net(W2, b2, V2, c2)
    assert check(a, other) == oracle(a, other)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 6), st.booleans())
@example(149, True)        # all weights dyadic: the float64 path decides
def test_random_rational_nets_agree_with_canonical_forms(seed, related):
    rng = random.Random(seed)
    d, n, m = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 2)
    parts = rational_net(rng, d, n, m)
    other = planted(rng, *parts) if related else rational_net(rng, d, n, m)
    check(net(*parts), net(*other))


def _f64(rng, shape):
    return rng.standard_normal(shape) / 7          # float64 values, mostly not float32


@pytest.mark.parametrize("seed", range(4))
def test_float64_files_planted_and_one_ulp_off(seed):
    rng = np.random.default_rng(seed)
    d, n, m = 6, 9, 2
    W, b, V, c = _f64(rng, (n, d)), _f64(rng, n), _f64(rng, (m, n)), _f64(rng, m)
    s = 2.0 ** rng.integers(-2, 3, n)
    perm = rng.permutation(n)
    a = network_from_tensors({"0.weight": W, "0.bias": b, "2.weight": V, "2.bias": c})
    tb = {"0.weight": (W * s[:, None])[perm], "0.bias": (b * s)[perm],
          "2.weight": (V / s[None, :])[:, perm], "2.bias": c}
    bb = network_from_tensors({k: np.ascontiguousarray(v) for k, v in tb.items()})
    f64 = dict(compare=compare_float64, path="float64_path")
    assert check(a, bb, **f64) is True
    tb["2.weight"] = tb["2.weight"].copy()
    tb["2.weight"][0, 0] = np.nextafter(tb["2.weight"][0, 0], 1.0)
    cc = network_from_tensors({k: np.ascontiguousarray(v) for k, v in tb.items()})
    assert check(a, cc, **f64) is False
    tb["2.weight"][0, 0] = np.nextafter(tb["2.weight"][0, 0], -1.0)
    tb["0.weight"] = tb["0.weight"].copy()
    tb["0.weight"][1, 2] = np.nextafter(tb["0.weight"][1, 2], 1.0)    # one ulp in W
    dd = network_from_tensors({k: np.ascontiguousarray(v) for k, v in tb.items()})
    assert check(a, dd, **f64) is False


def test_float64_limb_path_on_degenerate_rows():
    rng = np.random.default_rng(7)
    W, b, V = _f64(rng, (6, 3)), _f64(rng, 6), _f64(rng, (2, 6))
    W[1], b[1] = -W[0] * 3.0, -b[0] * 3.0                 # antiparallel: the exact sums decide
    W[2] = 0.0                                             # constant neuron
    a = network_from_tensors({"0.weight": W, "0.bias": b, "2.weight": V, "2.bias": np.zeros(2)})
    V2 = V.copy()
    V2[:, 0] += V[:, 1] * 3.0                              # |h| split differently: not equal
    b2 = network_from_tensors({"0.weight": W, "0.bias": b, "2.weight": V2, "2.bias": np.zeros(2)})
    assert check(a, a, compare_float64, "float64_path") is True
    assert check(a, b2, compare_float64, "float64_path") is (compare_float64(a, b2).answer)
    assert compare_float64(Network.from_rows([[["1/3"]], [[1]]], [[0], [0]]),
                           Network.from_rows([[["1/3"]], [[1]]], [[0], [0]])).answer is None


def test_integers_beyond_int64_are_not_decided_here():
    a = Network.from_rows([[[Q(1, 3 ** 40)], [1]], [[1, 1]]], [[0, 0], [0]])
    assert compare_integer(a, a).answer is None
    assert equivalent_shallow(a, a).answer is True        # the FLINT path decides


def test_hyperplane_of_a_difference_is_lead_one():
    a = Network.from_rows([[["0.2", "0.4"]], [[1]]], [["0.6"], [0]])
    b = Network.from_rows([[["0.2", "0.4"]], [[2]]], [["0.6"], [0]])
    r = compare_integer(a, b)
    assert r.answer is False and r.hyperplane == ((Q(1), Q(2)), Q(3))


@pytest.mark.parametrize("seed", range(6))
def test_row_gcds_match_math_gcd(seed):
    import math
    from functools import reduce

    from semialgebraic.shallow.integer_exact import _row_gcds
    rng = np.random.default_rng(seed)
    width = int(rng.integers(1, 9))
    R = rng.integers(-50, 50, (40, width)) * rng.choice([1, 2, 6, 35], (40, 1))
    R[R[:, :].any(axis=1) == 0, 0] = 7                     # no all-zero row
    R[3, :] = 0
    R[3, -1] = 12
    R = R.astype(np.int64)
    assert _row_gcds(np, R).tolist() == [reduce(math.gcd, map(int, row)) for row in R]
