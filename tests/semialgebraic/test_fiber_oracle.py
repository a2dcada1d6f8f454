"""Fibers by brute force: component and orbit counts of irredundant one-hidden-layer nets from
their flip sets enumerated directly (each flipped member checked equal by z3), and on random
three-layer bottleneck nets ``identifiability``, ``fiber`` and ``functional_dimension`` agree
(dim fiber = N - functional dimension)."""

import itertools
import json
import math
import random

import pytest

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic import verify


# -- fibers and identifiability: counts by brute force, consistency between commands -------------
def _nonzero(rng):
    v = Q(rng.randint(1, 6), rng.randint(1, 4))
    return v if rng.random() < 0.5 else -v


@pytest.mark.parametrize("seed", range(16))
def test_shallow_fiber_counts_by_brute_force(seed):
    """Irredundant one-hidden-layer nets: number_of_components = n! · #S and number_of_orbits =
    #S, S ranging over the flip sets with Σ_{i∈S} v_i w_iᵀ = 0 (enumerated here directly), and
    every flipped member is in the fiber (z3)."""
    from semialgebraic import fiber
    from tests.oracles.z3 import z3_equivalent
    rng = random.Random(seed)
    d, m, n = rng.randint(1, 2), rng.randint(1, 2), rng.randint(1, 4)
    W = [[_nonzero(rng) for _ in range(d)] for _ in range(n)]
    b = [_nonzero(rng) for _ in range(n)]
    V = [[_nonzero(rng) for _ in range(n)] for _ in range(m)]
    if n >= 2 and seed % 2:                          # plant a cancelling pair on two hyperplanes
        s = Q(rng.randint(1, 3))
        W[1] = [-s * x for x in W[0]]
        b[1] = -s * b[0] + 1
        for o in range(m):
            V[o][1] = V[o][0] / s
    net = Network.from_rows([W, V], [b, [_nonzero(rng) for _ in range(m)]])
    flips = [S for r in range(n + 1) for S in itertools.combinations(range(n), r)
             if all(sum((V[o][i] * W[i][k] for i in S), Q(0)) == 0 for o in range(m) for k in range(d))]
    F = fiber(net)
    lines = {tuple(x / W[i][0] for x in W[i] + [b[i]]) for i in range(n)}   # hyperplanes
    if len(lines) < n:                                # two neurons on one hyperplane: not counted
        assert F.number_of_components is None and F.notes
        return
    assert (F.number_of_components, F.number_of_orbits) == (math.factorial(n) * len(flips), len(flips))
    assert F.dimension.exact and F.dimension.value == n
    for S in flips:
        W2 = [[-x for x in W[i]] if i in S else list(W[i]) for i in range(n)]
        b2 = [-b[i] if i in S else b[i] for i in range(n)]
        c2 = [net.biases[1][o] + sum((V[o][i] * b[i] for i in S), Q(0)) for o in range(m)]
        other = Network.from_rows([W2, V], [b2, c2])
        assert z3_equivalent(net, other) is True and F.contains(other) is True


@pytest.mark.parametrize("seed", range(16))
def test_identify_fiber_dim_agree_on_bottleneck_nets(seed):
    from semialgebraic import fiber, functional_dimension, identifiability
    rng = random.Random(seed)
    d = rng.randint(1, 3)
    n1, n2, m = rng.randint(1, d), rng.randint(1, 3), rng.randint(1, 2)
    W2 = [[_nonzero(rng) for _ in range(n1)] for _ in range(n2)]
    b2 = [_nonzero(rng) for _ in range(n2)]
    for j in range(n2):                               # plant dead / linear / masked rows
        t = rng.random()
        if t < 0.15:
            W2[j], b2[j] = [-abs(x) for x in W2[j]], -abs(b2[j])
        elif t < 0.3:
            W2[j], b2[j] = [abs(x) for x in W2[j]], abs(b2[j])
        elif t < 0.4:
            i = rng.randrange(n1)
            W2[j], b2[j] = [abs(x) if k == i else -abs(x) for k, x in enumerate(W2[j])], -abs(b2[j])
    net = Network.from_rows(
        [[[_nonzero(rng) for _ in range(d)] for _ in range(n1)], W2, [[_nonzero(rng) for _ in range(n2)] for _ in range(m)]],
        [[_nonzero(rng) for _ in range(n1)], b2, [_nonzero(rng) for _ in range(m)]])
    N = net.n_parameters
    v = identifiability(net)
    F = fiber(net)
    fd = functional_dimension(net, timeout=30)
    assert verify(json.loads(json.dumps(v.certificate)))[0] is True
    if F.dimension.exact and fd.exact:
        assert F.dimension.value == N - fd.value
    if v.answer is True:
        assert F.dimension.value == n1 + n2 and fd.value == N - n1 - n2
        assert F.graph.number_of_nodes() == 1
    elif v.answer is False:
        assert F.graph.number_of_nodes() > 1 or F.dimension.value > n1 + n2
