"""Red team (session 3): ``region_cover`` certificates with ``"regions": []`` (collapsed
difference).

Bug found: when the contractions remove every hidden layer of a and b, the reduced difference
D' has no hidden layer and is the affine map x ↦ W x + b_L, not the constant b_L.  The checker
(``is_collapsed``) and the decider (``live_neurons == 0``) looked at the output bias only, so
``relu(x + 10)`` and ``relu(2x + 10)`` on [0, 1] (x + 10 versus 2x + 10) were certified equal,
and ``equivalent(..., refutation_samples=0)`` answered True.
"""

import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from algebra.io.native import network_from_dict
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.certificates import region_cover_certificate
from semialgebraic.equivalence import equivalent
from semialgebraic.verify import verify
from semialgebraic.verify.region_cover import is_collapsed

from test_redteam_s2_oracle import z3_equivalent
from test_redteam_s3_equivalence import _planted_pair, _random_net


def _cert(a, b, domain, contract, reduction=()):
    return json.loads(json.dumps(region_cover_certificate(a, b, domain=domain, contract=contract,
                                                          reduction=list(reduction))))


A = Network.from_rows([[[1]], [[1]]], [[10], [0]])          # x + 10 on [0, 1]
B = Network.from_rows([[[2]], [[1]]], [[10], [0]])          # 2x + 10 on [0, 1]
C = Network.from_rows([[[1]], [[2]]], [[10], [-10]])        # 2(x + 10) - 10 = 2x + 10


def test_fully_contracted_pair_with_equal_bias_is_rejected():
    assert A([1]) != B([1])
    cert = _cert(A, B, {"box": [0, 1]}, [{"net": "a", "layer": 0}, {"net": "b", "layer": 0}])
    ok, why = verify(cert)
    assert ok is False


def test_fully_contracted_equal_pair_is_accepted():
    cert = _cert(B, C, {"box": [0, 1]}, [{"net": "a", "layer": 0}, {"net": "b", "layer": 0}])
    assert verify(cert)[0] is True


def test_is_collapsed_without_hidden_layer_needs_zero_weights():
    assert is_collapsed(Network.from_rows([[[2, 0]]], [[0]])) is False
    assert is_collapsed(Network.from_rows([[[0, 0]]], [[5]])) is True
    assert is_collapsed(Network.from_rows([[[0]], [[3]]], [[0], [1]])) is True     # relu(0): constant


@pytest.mark.parametrize("samples", [0, 32])
def test_equivalent_does_not_answer_true_on_different_affine_maps(samples):
    v = equivalent(A, B, method="general", domain=(0, 1), refutation_samples=samples)
    assert v.answer is False
    x = [Q(v) for v in v.certificate["point"]] if "point" in v.certificate else None
    assert verify(v.certificate)[0] is True
    if x is not None:
        assert A(x) != B(x)
    assert equivalent(B, C, method="general", domain=(0, 1), refutation_samples=samples).answer is True


def _affine_layer_net(rng, d, w, m):
    """A two-hidden-layer net whose hidden neurons are all always active on [0, 1] (large
    positive biases, non-negative first-layer weights): it contracts to an affine map."""
    W1 = [[Q(rng.randint(0, 3)) for _ in range(d)] for _ in range(w)]
    b1 = [Q(rng.randint(1, 3)) for _ in range(w)]
    W2 = [[Q(rng.randint(0, 2)) for _ in range(w)] for _ in range(w)]
    b2 = [Q(rng.randint(1, 3)) for _ in range(w)]
    W3 = [[Q(rng.randint(-2, 2)) for _ in range(w)] for _ in range(m)]
    b3 = [Q(rng.randint(-2, 2)) for _ in range(m)]
    return Network.from_rows([W1, W2, W3], [b1, b2, b3])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_contracted_pairs_verdict_matches_affine_maps(seed):
    """Both nets contract to affine maps on [0, 1]^d; equivalent (with and without random
    refutation) answers exactly whether the affine maps agree, and the certificate checks."""
    rng = random.Random(seed)
    d, w, m = rng.randint(1, 2), rng.randint(1, 3), rng.randint(1, 2)
    a = _affine_layer_net(rng, d, w, m)
    b = _affine_layer_net(rng, d, w, m)
    if rng.random() < 0.7:             # plant equal constant terms: only the linear parts may differ
        _, ca = a.affine_map(tuple([1] * a.n_hidden))
        _, cb = b.affine_map(tuple([1] * b.n_hidden))
        b = Network([*b.weights], [*b.biases[:-1], [v + u - t for v, u, t in zip(b.biases[-1], ca, cb)]])
    Ja, ca = a.affine_map(tuple([1] * a.n_hidden))
    Jb, cb = b.affine_map(tuple([1] * b.n_hidden))
    truth = Ja == Jb and tuple(ca) == tuple(cb)
    for samples in (0, 32):
        v = equivalent(a, b, method="general", domain=(0, 1), refutation_samples=samples)
        assert v.answer is truth
        assert verify(v.certificate)[0] is True
    if not truth and tuple(ca) == tuple(cb):
        # the forged collapsed certificate (biases agree, linear parts differ) is rejected
        cert = _cert(a, b, {"box": [0, 1]}, [{"net": "a", "layer": 1}, {"net": "a", "layer": 0},
                                              {"net": "b", "layer": 1}, {"net": "b", "layer": 0}])
        assert verify(cert)[0] is False


def test_affine_networks_without_contraction():
    """Two networks without hidden layers (a - b = (W_a - W_b) x + (b_a - b_b)) and regions []."""
    a = Network.from_rows([[[2, 1]]], [[3]])
    b = Network.from_rows([[[3, 1]]], [[3]])
    for dom in (None, {"orthant": True}, {"box": [-1, 1]}):
        assert verify(_cert(a, b, dom, []))[0] is False
        assert verify(_cert(a, a, dom, []))[0] is True
        assert equivalent(a, b, method="general", domain=None if dom is None else
                          ("orthant" if "orthant" in dom else (-1, 1)), refutation_samples=0).answer is False


def _mutated(cert, rng):
    """The certificate with one weight or bias of a or b moved by 1, 1/7 or 1e-5."""
    c = json.loads(json.dumps(cert))
    layer = rng.choice(c[rng.choice(["a", "b"])]["layers"])
    delta = Q(1, rng.choice([1, 7, 10 ** 5]))
    if rng.random() < 0.5:
        W = layer["weight"]
        i, k = rng.randrange(len(W)), rng.randrange(len(W[0]))
        W[i][k] = str(Q(W[i][k]) + delta)
    else:
        i = rng.randrange(len(layer["bias"]))
        layer["bias"][i] = str(Q(layer["bias"][i]) + delta)
    return c


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_tampered_equal_certificates_are_accepted_only_for_equal_pairs(seed):
    """Honest 'equal' certificates of planted pairs (mostly collapsed, regions []) with one
    parameter tampered: the checker may accept only when the pair is still equal (z3)."""
    rng = random.Random(seed)
    a = _random_net(rng)
    dom = rng.choice([None, "orthant", (Q(0), Q(1)), (Q(-1), Q(2))])
    b, _ = _planted_pair(rng, a, dom)
    v = equivalent(a, b, method="general", domain=dom, timeout=30)
    if v.answer is not True:
        return
    for _ in range(4):
        c = _mutated(v.certificate, rng)
        try:
            ok = verify(c)[0]
        except Exception:                # malformed after tampering (e.g. a zero factor)
            continue
        if ok:
            assert z3_equivalent(network_from_dict(c["a"]), network_from_dict(c["b"]), dom) is True
