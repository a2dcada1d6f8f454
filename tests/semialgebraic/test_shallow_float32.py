"""The float32 fast path of one-hidden-layer equivalence (semialgebraic.shallow.float32_exact) against
the FLINT canonical forms (semialgebraic.shallow.canonical), on random float32 nets with planted
symmetries, degenerate rows and one-ulp perturbations (three-layer-fibers S1–S5)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from algebra.dyadic import exact_float64, exact_float64_vector, is_float32_exact, network_float32_layers
from algebra.io.arrays import network_from_tensors
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.shallow import canonical_form, compare_float32, equivalent_shallow
from semialgebraic.verify import verify

F32 = np.float32


def net_of(W, b, V, c):
    return network_from_tensors({"0.weight": np.asarray(W, F32), "0.bias": np.asarray(b, F32),
                                 "2.weight": np.asarray(V, F32), "2.bias": np.asarray(c, F32)})


def flint_copy(net):
    """The same exact network without the reader's integer arrays (the FLINT path decides)."""
    return Network(list(net.weights), list(net.biases))


def random_parts(rng, d, n, m, degenerate=True):
    vals = lambda *s: rng.standard_normal(s).astype(F32)  # noqa: E731
    W, b, V, c = vals(n, d), vals(n), vals(m, n), vals(m)
    if degenerate and n >= 2:
        kind = rng.integers(0, 6)
        i, j = rng.choice(n, 2, replace=False)
        if kind == 0:
            W[i] = 0                                   # constant neuron V σ(b)
        elif kind == 1:
            V[:, i] = 0                                # no output
        elif kind == 2:
            W[i], b[i] = W[j] * F32(2.0), b[j] * F32(2.0)   # duplicate hyperplane
        elif kind == 3:
            W[i], b[i] = -W[j], -b[j]                  # antiparallel pair
        elif kind == 4:
            W[i], b[i], V[:, i] = -W[j], -b[j], V[:, j]     # |h|
        else:
            W[i] = np.where(rng.random(d) < 0.5, 0, W[i])  # sparse row
    return W, b, V, c


def planted(rng, parts):
    """An exactly equivalent float32 net: permutation, power-of-two scalings, a split neuron,
    an inserted zero-output neuron and a cancelling antiparallel quadruple."""
    W, b, V, c = (x.copy() for x in parts)
    n, d = W.shape
    lam = (2.0 ** rng.integers(-3, 4, n)).astype(F32)
    W, b, V = W * lam[:, None], b * lam, V / lam[None, :]
    if n and rng.random() < 0.5:                       # split neuron 0 into two halves
        W = np.vstack([W, W[:1] * F32(4.0)])
        b = np.concatenate([b, b[:1] * F32(4.0)])
        V = np.hstack([V, V[:, :1] / F32(8.0)])
        V[:, 0] = V[:, 0] / F32(2.0)
    if rng.random() < 0.5:                             # zero-output neuron
        W = np.vstack([W, rng.standard_normal((1, d)).astype(F32)])
        b = np.concatenate([b, F32([1.5])])
        V = np.hstack([V, np.zeros((V.shape[0], 1), F32)])
    if rng.random() < 0.5:  # v σ(wx+1) − v σ(−wx−1) − (v/2) σ(2wx) + (v/2) σ(−2wx) − v σ(1) = 0
        w = rng.integers(-3, 4, d).astype(F32)
        if w.any():
            v = rng.integers(-3, 4, V.shape[0]).astype(F32)
            W = np.vstack([W, w, -w, 2 * w, -2 * w, 0 * w])
            b = np.concatenate([b, F32([1.0, -1.0, 0.0, 0.0, 1.0])])
            V = np.hstack([V, v[:, None], -v[:, None], -v[:, None] / 2, v[:, None] / 2, -v[:, None]])
    perm = rng.permutation(W.shape[0])
    return W[perm], b[perm], V[:, perm], c


def check_pair(a, b):
    fast = compare_float32(a, b)
    if fast.answer is None:   # only when a weight matrix spans > 62 bits (no integer array kept)
        assert network_float32_layers(a) is None or network_float32_layers(b) is None, fast.reason
    same = canonical_form(flint_copy(a)) == canonical_form(flint_copy(b))
    assert fast.answer in (None, same)
    v = equivalent_shallow(a, b)
    assert v.answer == same and ("float32_path" in v.details) == (fast.answer is not None)
    ok, why = verify(v.certificate)
    assert ok, why
    if not same:
        x = v.details["point"]
        assert a(x) != b(x)
    return same


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 6), st.integers(1, 3))
def test_planted_symmetries_are_equivalent(seed, d, n, m):
    rng = np.random.default_rng(seed)
    parts = random_parts(rng, d, n, m)
    a, b = net_of(*parts), net_of(*planted(rng, parts))
    assert check_pair(a, b) is True


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 6), st.integers(1, 3))
def test_one_ulp_perturbations_agree_with_flint(seed, d, n, m):
    rng = np.random.default_rng(seed)
    parts = random_parts(rng, d, n, m)
    W, b, V, c = planted(rng, parts)
    which = rng.integers(0, 4)
    arr = [W, b, V, c][which]
    k = rng.integers(0, arr.size)
    flat = arr.reshape(-1)
    flat[k] = np.nextafter(flat[k], F32(np.inf))      # one float32 ulp: a thin-slab change
    check_pair(net_of(*parts), net_of(W, b, V, c))


def test_one_ulp_in_a_wide_layer_is_found_exactly():
    rng = np.random.default_rng(7)
    parts = random_parts(rng, 40, 64, 3, degenerate=False)
    W, b, V, c = planted(rng, parts)
    W[5, 17] = np.nextafter(W[5, 17], F32(np.inf))
    a, bb = net_of(*parts), net_of(W, b, V, c)
    r = compare_float32(a, bb)
    assert r.answer is False and r.hyperplane is not None
    v = equivalent_shallow(a, bb, certify=False)
    x = v.details["point"]
    assert v.answer is False and a(x) != bb(x)


def test_rows_equal_on_the_bucket_columns_are_regrouped():
    # rows that agree on the columns used for bucketing but differ elsewhere
    d = 9
    W = np.ones((3, d), F32)
    W[1, 0] = F32(1.5)
    W[2, 1] = F32(0.5)
    a = net_of(W, [0, 0, 0], [[1, 1, 1]], [0])
    b = net_of(W[[2, 0, 1]] * F32(2), [0, 0, 0], [[0.5, 0.5, 0.5]], [0])
    assert compare_float32(a, b).answer is True
    W2 = W.copy()
    W2[1, 0] = F32(1.25)
    c = net_of(W2, [0, 0, 0], [[1, 1, 1]], [0])
    assert compare_float32(a, c).answer is False


def test_kinks_cancelling_in_a_group_and_affine_differences():
    # σ(x) − σ(−x) = x: no kink, the affine part carries it
    a = net_of([[1], [-1]], [0, 0], [[1, -1]], [0])
    lin = net_of([[2], [-2]], [0, 0], [[0.5, -0.5]], [0])
    assert compare_float32(a, lin).answer is True
    shifted = net_of([[1], [-1]], [0, 0], [[1, -1]], [0.5])
    r = compare_float32(a, shifted)
    assert r.answer is False and r.hyperplane is None
    v = equivalent_shallow(a, shifted)
    assert v.answer is False and verify(v.certificate)[0]


def test_constant_neurons():
    a = net_of([[0, 0], [1, 0]], [2, 0], [[3, 1]], [0])          # 3 σ(2) = 6
    b = net_of([[1, 0]], [0], [[1]], [6])
    c = net_of([[0, 0], [1, 0]], [-2, 0], [[3, 1]], [0])          # σ(−2) = 0
    assert compare_float32(a, b).answer is True
    assert compare_float32(a, c).answer is False
    assert equivalent_shallow(a, c).answer is False


def test_hypotheses_fail_on_non_float32_nets():
    a = Network.from_rows([[["1/10"]], [[1]]], [[0], [0]])      # 1/10: not a float
    assert compare_float32(a, a).answer is None
    f64 = network_from_tensors({"0.weight": np.array([[0.1]]), "0.bias": np.zeros(1),
                                "2.weight": np.ones((1, 1)), "2.bias": np.zeros(1)})
    r = compare_float32(f64, f64)
    assert r.answer is None and not r.hypotheses[0].holds    # 0.1 as float64 is not a float32
    assert equivalent_shallow(f64, f64).answer is True        # the FLINT path decides


def test_exact_views():
    F = exact_float64(np.array([[1, -3], [2**60 + 1, 0]], dtype=np.int64), 2)
    assert F is None                                         # 2**60 + 1 is not a float64
    F = exact_float64(np.array([[1, -3]], dtype=np.int64), 8)
    assert F.tolist() == [[0.125, -0.375]] and is_float32_exact(F)
    assert exact_float64(np.array([[1]]), 3) is None         # not a power of two
    assert exact_float64_vector([Q(1, 2**80)]).tolist() == [2.0 ** -80]
    assert exact_float64_vector([Q(2**60 + 1)]) is None
    a = net_of([[1.5]], [0.25], [[2]], [0])
    layers = network_float32_layers(a)
    assert [x.tolist() for x in layers[0]] == [[[1.5]], [0.25]]
    assert network_float32_layers(flint_copy(a)) is None     # no integer arrays kept


def test_integer_arrays_are_read_only():
    a = net_of([[1.5]], [0.25], [[2]], [0])
    N, _ = a.integer_weights(0)
    with pytest.raises(ValueError):
        N[0, 0] = 7


def test_zero_neurons_do_not_block_the_fast_separating_point():
    # a zero neuron (w = 0, b = 0) passes through every point; it must not send the decision
    # to the slow path
    W = np.array([[0, 0], [1, 2], [-1, 0.5]], F32)
    a = net_of(W, [0, 0.25, -10], [[3, 1, 1]], [0])     # the differing kink is 0 at 0, e_1, e_2
    b = net_of(W, [0, 0.25, -10], [[3, 1, 1.5]], [0])
    v = equivalent_shallow(a, b, certify=False)
    assert v.answer is False and "float32_path" in v.details
    x = v.details["point"]
    assert a(x) != b(x)
