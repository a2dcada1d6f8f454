"""The separating point of the one-hidden-layer fast paths, built and evaluated on integer
arrays (semialgebraic.shallow.equivalence._SparseNet): values against the FLINT evaluation of
the network and against Fraction arithmetic, the shortening against
certificates.shorter_point, ε against the exact hyperplane crossings, and the verdicts' points
(int64 decimal nets, float64 files, nets without arrays) re-checked by the certificate checker."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from algebra.io.arrays import network_from_tensors
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.certificates import shorter_point
from semialgebraic.shallow import canonical_form, equivalent_shallow
from semialgebraic.shallow.equivalence import (_epsilon_exponent, _shorter_sparse, _SparseNet,
                                               _sparse_candidates)
from semialgebraic.verify import verify


def fraction_value(W, b, V, c, x):
    """Oracle: V relu(W x + b) + c in Fractions (x dense)."""
    h = [sum((Fraction(w) * xi for w, xi in zip(row, x)), Fraction(0)) + Fraction(bi)
         for row, bi in zip(W, b)]
    r = [max(v, Fraction(0)) for v in h]
    return tuple(sum((Fraction(v) * ri for v, ri in zip(row, r)), Fraction(0)) + Fraction(ci)
                 for row, ci in zip(V, c))


def to_fraction(q):
    return Fraction(int(q.p), int(q.q))


def rational_parts(rng, d, n, m):
    def q():
        return Fraction(rng.randint(-9, 9), rng.choice([1, 2, 3, 10, 7]))
    return ([[q() for _ in range(d)] for _ in range(n)], [q() for _ in range(n)],
            [[q() for _ in range(n)] for _ in range(m)], [q() for _ in range(m)])


def kinds_of_net(rng, d, n, m):
    """The same function as a rational net (no arrays: FLINT columns), a decimal net kept as
    int64 arrays N / 10^4, and a float64 file (int64 arrays over a power of two)."""
    W, b, V, c = rational_parts(rng, d, n, m)
    qs = lambda rows: [[Q(x.numerator, x.denominator) for x in r] for r in rows]   # noqa: E731
    rational = Network.from_rows([qs(W), qs(V)],
                             [[Q(x.numerator, x.denominator) for x in v] for v in (b, c)])
    Wi = np.array([[rng.randint(-9999, 9999) for _ in range(d)] for _ in range(n)], np.int64)
    Vi = np.array([[rng.randint(-9999, 9999) for _ in range(n)] for _ in range(m)], np.int64)
    bi, ci = [Q(rng.randint(-99, 99), 100) for _ in range(n)], [Q(rng.randint(-9, 9), 3) for _ in range(m)]
    decimal = Network._from_integer_arrays([(Wi, 10 ** 4), (Vi, 10 ** 4)], [bi, ci])
    nprng = np.random.default_rng(rng.randrange(2 ** 32))
    f = {"0.weight": nprng.standard_normal((n, d)) / 7, "0.bias": nprng.standard_normal(n),
         "2.weight": nprng.standard_normal((m, n)), "2.bias": nprng.standard_normal(m)}
    return rational, decimal, network_from_tensors(f)


def parts_of(net):
    (W, b), (V, c) = net.layer(0), net.layer(1)
    return ([[to_fraction(x) for x in r] for r in W.to_rows()], [to_fraction(x) for x in b],
            [[to_fraction(x) for x in r] for r in V.to_rows()], [to_fraction(x) for x in c])


def sparse_point(rng, d):
    k = rng.randint(0, min(d, 3))
    return {j: Q(rng.randint(-50, 50), rng.choice([1, 3, 8, 1000, 2 ** 60 + 1]))
            for j in rng.sample(range(d), k)}


def dense(x, d):
    return tuple(x.get(j, Q(0)) for j in range(d))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_sparse_values_match_flint_and_fractions(seed):
    rng = random.Random(seed)
    d, n, m = rng.randint(1, 6), rng.randint(1, 7), rng.randint(1, 3)
    for net in kinds_of_net(rng, d, n, m):
        ev = _SparseNet(net)
        parts = parts_of(net)
        for _ in range(3):
            x = sparse_point(rng, d)
            got = ev(x)
            assert got == tuple(net(dense(x, d)))                     # FLINT evaluation
            want = fraction_value(*parts, [to_fraction(v) for v in dense(x, d)])
            assert tuple(to_fraction(v) for v in got) == want          # Fraction arithmetic
            H, T = ev.hidden(x)
            assert [Fraction(int(h), T) for h in H] == [
                sum((w * to_fraction(v) for w, v in zip(row, dense(x, d))), Fraction(0)) + bb
                for row, bb in zip(parts[0], parts[1])]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_shortening_equals_shorter_point(seed):
    rng = random.Random(seed)
    d, n, m = rng.randint(1, 5), rng.randint(1, 6), rng.randint(1, 2)
    a, _, _ = kinds_of_net(rng, d, n, m)
    b = a.with_parameter("b2[0]", a.biases[1][0] + Q(1, rng.choice([7, 10 ** 9, 2 ** 70])))
    nets = (_SparseNet(a), _SparseNet(b))
    x = {j: v + Q(1, 3 ** 30) for j, v in sparse_point(rng, d).items()}
    got = _shorter_sparse(nets, x)
    assert dense(got, d) == shorter_point(a, b, dense(x, d), None)
    assert a(dense(got, d)) != b(dense(got, d))


@pytest.mark.parametrize("seed", range(12))
def test_epsilon_crosses_no_other_hyperplane(seed):
    """x0 ± 2^-e along e_j: every neuron not on H keeps its sign (Fractions), or None when a
    neuron of another hyperplane passes through x0 (small integer weights make that happen)."""
    rng = random.Random(seed)
    d, n = rng.randint(2, 3), rng.randint(2, 6)
    rows = [[Q(rng.randint(-2, 2)) for _ in range(d)] for _ in range(n)]
    rows[0][0] = Q(1)                                               # H: neuron 0, lead coordinate 0
    bs = [Q(rng.randint(-2, 2)) for _ in range(n)]
    net = Network.from_rows([rows, [[Q(1)] * n]], [bs, [Q(0)]])
    u, beta, j = tuple(rows[0]), bs[0], 0
    nets = (_SparseNet(net), _SparseNet(net))
    for r in range(1, 5):
        x0 = {1: Q(r, 3)}
        x0[0] = -(beta + u[1] * x0[1])
        e = _epsilon_exponent(nets, x0, j, u, beta)
        h0 = [sum((to_fraction(w) * to_fraction(x0.get(k, Q(0))) for k, w in enumerate(row)),
                  Fraction(0)) + to_fraction(bb) for row, bb in zip(rows, bs)]
        on_h = [all(w == rows[i][0] * y for w, y in zip(rows[i], u)) and bs[i] == rows[i][0] * beta
                for i in range(n)]
        if e is None:
            assert any(h == 0 and not on and rows[i][0] != 0
                       for i, (h, on) in enumerate(zip(h0, on_h)))
            continue
        for sgn in (1, -1):
            for i in range(n):
                h = h0[i] + sgn * to_fraction(rows[i][0]) * Fraction(1, 2 ** e)
                if not on_h[i] and rows[i][0] != 0:
                    assert h != 0 and (h > 0) == (h0[i] > 0)


def _check_point(a, b, path):
    v = equivalent_shallow(a, b)
    assert v.answer is False and path in v.details
    x = v.details["point"]
    assert a(x) != b(x)                                 # FLINT evaluation of the whole nets
    assert v.certificate["type"] == "counterexample" and verify(v.certificate)[0]
    assert canonical_form(a) != canonical_form(b)
    return x


@pytest.mark.parametrize("seed", range(4))
def test_near_miss_points_of_int64_and_float64_nets(seed):
    rng = np.random.default_rng(seed)
    d, n, m = 7, 12, 2
    Wi, Vi = rng.integers(-9999, 10000, (n, d)), rng.integers(-9999, 10000, (m, n))
    bq = [Q(int(x), 10 ** 4) for x in rng.integers(-9999, 10000, n)]
    cq = [Q(int(x), 100) for x in rng.integers(-99, 100, m)]
    lam15 = rng.choice([3, 5, 9, 25, 45, 75], n)
    perm = rng.permutation(n)
    a = Network._from_integer_arrays([(Wi, 10 ** 4), (Vi, 10 ** 4)], [bq, cq])
    Wb = np.ascontiguousarray((Wi * lam15[:, None])[perm])
    Vb = np.ascontiguousarray((Vi * (225 // lam15)[None, :])[:, perm])
    bb = [bq[p] * Q(int(lam15[p]), 15) for p in perm]
    b = Network._from_integer_arrays([(Wb, 15 * 10 ** 4), (Vb, 15 * 10 ** 4)], [bb, cq])
    assert equivalent_shallow(a, b).answer is True
    off = Network._from_integer_arrays([(Wb, 15 * 10 ** 4), (Vb, 15 * 10 ** 4)],
                                       [[bb[0] + Q(1, 10 ** 9)] + bb[1:], cq])
    _check_point(a, off, "integer_path")
    Wc = Wb.copy()
    Wc[1, 2] += 1
    _check_point(a, Network._from_integer_arrays([(Wc, 15 * 10 ** 4), (Vb, 15 * 10 ** 4)],
                                                 [bb, cq]), "integer_path")
    W = rng.uniform(0.5, 1.0, (n, d)) * rng.choice([-1.0, 1.0], (n, d))
    t = {"0.weight": W, "0.bias": rng.uniform(-1, 1, n), "2.weight": rng.uniform(-1, 1, (m, n)),
         "2.bias": rng.uniform(-1, 1, m)}
    fa = network_from_tensors(t)
    t2 = {k: v.copy() for k, v in t.items()}
    t2["0.weight"][0, 1] = np.nextafter(t2["0.weight"][0, 1], 2.0)
    x = _check_point(fa, network_from_tensors(t2), "float64_path")
    assert sum(v != 0 for v in x) <= 2                  # a sparse point: two coordinates at most


def test_candidates_without_a_hyperplane_are_zero_and_unit_vectors():
    a = Network.from_rows([[[1, 2], [3, -1]], [[1, 1]]], [[0, 1], [5]])
    nets = (_SparseNet(a), _SparseNet(a))
    pts = [x for x, _, _ in _sparse_candidates(nets, 2, None)]
    assert pts == [{}, {0: Q(1)}, {1: Q(1)}]
