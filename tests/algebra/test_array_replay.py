"""algebra.array_replay: S1/S2 replayed on integer arrays agree with the FLINT replay
(digests, final networks), and the residue comparison agrees with Python integers."""

from __future__ import annotations

import random

import pytest

from algebra.array_replay import (MODULI, apply_step, array_view, exact_row_dot, replay_path,
                                  scaled_rows_equal, view_digest, view_equals)
from algebra.kernel import network_digest
from algebra.linalg.gfp import is_prime
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.elementary import Permute, Scale

np = pytest.importorskip("numpy")


def _net(rng, widths, big=False):
    """A network kept as int64 arrays, entries up to 2^62 when *big*."""
    layers, biases = [], []
    for a, b in zip(widths, widths[1:]):
        hi = 2 ** 62 if big else 50
        N = np.array([[rng.randint(-hi, hi) if rng.random() < 0.8 else 0 for _ in range(a)]
                      for _ in range(b)], dtype=np.int64)
        layers.append((N, rng.choice([1, 3, 8, 2 ** 40])))
        biases.append([Q(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(b)])
    return Network._from_integer_arrays(layers, biases)


def _random_steps(rng, widths, k):
    steps = []
    for _ in range(k):
        layer = rng.randrange(len(widths) - 2)
        n = widths[layer + 1]
        if rng.random() < 0.5:
            perm = list(range(n))
            rng.shuffle(perm)
            steps.append(Permute(layer, perm))
        else:
            steps.append(Scale(layer, [Q(rng.randint(1, 40), rng.randint(1, 40)) for _ in range(n)]))
    return steps


def test_moduli_are_distinct_primes_below_2_31():
    assert len(set(MODULI)) == len(MODULI)
    assert all(m < 2 ** 31 and is_prime(m) for m in MODULI)


@pytest.mark.parametrize("seed", range(12))
def test_replay_matches_flint_digests_and_result(seed):
    rng = random.Random(seed)
    widths = (rng.randint(1, 5), rng.randint(1, 6), rng.randint(1, 4))
    big = seed % 3 == 0
    net = _net(rng, widths, big=big)
    steps = _random_steps(rng, widths, rng.randint(1, 4))
    out = replay_path(net, steps)
    assert out is not None and all(ok for ok, *_ in out)
    cur = net
    for s, (_, _, view, digest) in zip(steps, out):
        cur = s.apply(cur)                       # the FLINT replay: the oracle
        assert digest == network_digest(cur)
    # the FLINT result has no arrays: converted when its integers fit int64 (not so when big)
    assert view_equals(out[-1][2], cur) is (None if big else True)
    if not big:
        back = Network._from_integer_arrays([(L.N, L.D) for L in array_view(cur, convert=True).layers],
                                            cur.biases)
        assert view_equals(out[-1][2], back) is True


@pytest.mark.parametrize("seed", range(8))
def test_near_miss_is_unequal(seed):
    rng = random.Random(100 + seed)
    widths = (3, 4, 2)
    net = _net(rng, widths)
    steps = _random_steps(rng, widths, 2)
    end = replay_path(net, steps)[-1][2]
    cur = net
    for s in steps:
        cur = s.apply(cur)
    names = [n for n, x in zip(cur.parameter_names(), cur.parameters()) if n.startswith("W")]
    name = rng.choice(names)
    x = dict(zip(cur.parameter_names(), cur.parameters()))[name]
    other = cur.with_parameter(name, x + Q(1, 10 ** 9))
    assert view_equals(end, Network(other.weights, other.biases)) is False


def test_two_hidden_layers_scaled_on_both_sides_is_folded_into_the_integers():
    # a layer with row and column factors is multiplied out (one denominator): same digests
    rng = random.Random(5)
    net = _net(rng, (2, 3, 3, 1))
    steps = [Scale(0, [Q(2), Q(1, 3), Q(5)]), Scale(1, [Q(3), Q(1, 2), Q(7, 4)])]
    out = replay_path(net, steps)
    cur = net
    for s, (ok, _, view, digest) in zip(steps, out):
        cur = s.apply(cur)
        assert ok and digest == network_digest(cur)
    assert view_equals(out[-1][2], cur) is True


def test_a_failing_check_stops_the_replay():
    rng = random.Random(6)
    net = _net(rng, (2, 3, 1))
    out = replay_path(net, [Scale(0, [Q(2), Q(-1), Q(1)])])
    assert out == [(False, "factor of neuron 1 is -1, not > 0", None, None)]
    assert replay_path(Network.from_rows([[[1]], [[1]]], [[0], [0]]), []) is None


@pytest.mark.parametrize("seed", range(20))
def test_scaled_rows_equal_matches_python_integers(seed):
    rng = random.Random(seed)
    r, c = rng.randint(1, 4), rng.randint(1, 5)
    hi = rng.choice([10, 2 ** 40, 2 ** 58])
    N = np.array([[rng.randint(-hi, hi) for _ in range(c)] for _ in range(r)], dtype=np.int64)
    k = [rng.randint(1, 7) for _ in range(r)]                  # M = k N, s = k t: equal
    t = [rng.choice([1, 3, 2 ** 70 + 1, rng.randint(1, 2 ** 200)]) for _ in range(r)]
    s = [ki * ti for ki, ti in zip(k, t)]
    M = N * np.array(k, dtype=np.int64)[:, None]
    assert scaled_rows_equal(M, t, N, s) is True
    M2 = M.copy()
    i, j = rng.randrange(r), rng.randrange(c)
    M2[i, j] += rng.choice([1, -1])
    truth = all(t[a] * int(M2[a, b]) == s[a] * int(N[a, b]) for a in range(r) for b in range(c))
    assert truth is False
    assert scaled_rows_equal(M2, t, N, s) is False


def test_residues_alone_would_collide_but_the_bound_prevents_it():
    # s N - t M = P (product of the first two moduli): equal modulo both, but the bound asks
    # for more moduli, so the answer stays exact
    P = MODULI[0] * MODULI[1]
    N = np.array([[2 ** 62 - 1]], dtype=np.int64)
    s = [P + 1]
    M = np.array([[2 ** 62 - 1]], dtype=np.int64)
    t = [1 + P]
    assert scaled_rows_equal(N, s, M, t) is True
    assert scaled_rows_equal(N, [1 + 2 * P], M, [1 + P]) is False


@pytest.mark.parametrize("hi", [3, 2 ** 40, 2 ** 63 - 1])
def test_exact_row_dot_matches_python(hi):
    rng = random.Random(hi)
    N = np.array([[rng.randint(-hi, hi) for _ in range(50)] for _ in range(7)], dtype=np.int64)
    v = [rng.randrange(1 << 17) for _ in range(50)]
    assert exact_row_dot(N, v) == [sum(int(x) * y for x, y in zip(row, v)) for row in N.tolist()]
    with pytest.raises(ValueError):
        exact_row_dot(N, [1 << 17] * 50)


def test_view_of_a_network_without_arrays():
    net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    assert array_view(net) is None
    v = array_view(net, convert=True)
    assert view_digest(v) == network_digest(net)
    w = apply_step(v, "S2", 0, factors=[Q(2), Q(1, 3)])
    assert view_equals(w, Scale(0, [2, "1/3"]).apply(net)) is True
