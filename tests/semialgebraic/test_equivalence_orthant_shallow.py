"""The dispatcher's shallow fast path on the closed orthant (three-layer-fibers R2/R3: the tail of
a bottleneck net sees only the orthant) agrees with the general method on the orthant, and its
certificates verify."""

import random

from hypothesis import given, settings, strategies as st

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.equivalence import equivalent
from semialgebraic.verify import verify


def _net(rng, d, n, m):
    def q():
        return Q(rng.randint(-4, 4), rng.randint(1, 3))
    return Network([[[q() for _ in range(d)] for _ in range(n)], [[q() for _ in range(n)] for _ in range(m)]],
                   [[q() for _ in range(n)], [q() for _ in range(m)]])


def _orthant_copy(net, rng):
    """Add a neuron dead on the orthant (w <= 0, b <= 0), then permute and rescale."""
    W, b = net.layer(0)
    V, c = net.layer(1)
    rows = [list(r) for r in W.to_rows()] + [[-Q(rng.randint(0, 3)) for _ in range(W.ncols)]]
    bias = list(b) + [-Q(rng.randint(0, 2))]
    cols = [list(r) for r in V.T.to_rows()] + [[Q(rng.randint(-3, 3)) for _ in range(V.nrows)]]
    perm = list(range(len(rows)))
    rng.shuffle(perm)
    lam = [Q(rng.randint(1, 4), rng.randint(1, 4)) for _ in perm]
    W2 = [[lam[k] * x for x in rows[p]] for k, p in enumerate(perm)]
    b2 = [lam[k] * bias[p] for k, p in enumerate(perm)]
    V2 = [[cols[p][o] / lam[k] for k, p in enumerate(perm)] for o in range(V.nrows)]
    return Network([W2, V2], [b2, list(c)])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(1, 3), st.integers(1, 4), st.integers(1, 2),
       st.booleans())
def test_orthant_auto_matches_general(seed, d, n, m, perturb):
    rng = random.Random(seed)
    a = _net(rng, d, n, m)
    b = _orthant_copy(a, rng)
    if perturb:
        k = rng.randrange(b.n_parameters)
        b = b.with_parameter(k, b.parameters()[k] + Q(1, 997))
    auto = equivalent(a, b, domain="orthant")
    general = equivalent(a, b, method="general", domain="orthant")
    assert auto.answer == general.answer
    assert auto.method.startswith("shallow-canonical-orthant")
    assert verify(auto.certificate)[0]
    if not perturb:
        assert auto.answer is True


def test_dead_on_orthant_neuron_is_irrelevant_only_on_the_orthant():
    a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    b = Network.from_rows([[[1], [-1]], [[1, 5]]], [[0, 0], [0]])     # + 5 σ(−x)
    assert equivalent(a, b, domain="orthant").answer is True
    assert equivalent(a, b).answer is False
