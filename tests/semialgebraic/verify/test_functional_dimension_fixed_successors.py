"""``fixed_successors`` upper-direction entries: a rare neuron whose successors have a fixed sign
wherever it is active (the argument in :mod:`semialgebraic.verify.functional_dimension`; its
Jacobian columns W_{l+1}[j, i] are then h_l[i] times fixed combinations of δ_{l+2}, so the
kernel of C = W_{l+2}[:, F]·diag([s_j > 0]) gives directions; three-layer-fibers R22 for the
dimension itself).

The planted net: on the box [-1, 1]^2 the first-layer neuron a = relu(x1 - 1/2) is active on
x1 > 1/2 only; there its successors (2, 0) and (2, 1) are always active, (2, 2) never, and (2, 3)
switches with x2.  So W2[0, 0] and W2[1, 0] (1-based layer names) have proportional columns
(output weights 1 and 2): the direction 2·e(W2[0,0]) − e(W2[1,0]) is a kernel direction no other
entry kind proves.  Values asserted: the exact functional dimension 27 (N = 37), equal to the
exact rank of the Jacobian rows at 120 random inputs, and to the complete region walk's value;
without the entry the certified upper bound is 28.  Tampered entries are rejected.
"""

import copy
import json
import random

import pytest

from algebra.exceptions import InputError
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import exact_jacobian_rows, exact_rank, functional_dimension, \
    functional_dimension_certificate
from semialgebraic.dimension.suspects import fixed_successor_candidates, prove_suspects
from semialgebraic.dimension.upper import checked_directions_bound, fixed_successor_vectors
from semialgebraic.budget import Budget
from semialgebraic.verify import verify


def _planted() -> Network:
    h = Q(1, 2)
    W0 = [[1, 0], [1, Q(1, 4)], [-Q(1, 3), 1], [Q(1, 5), -1]]
    b0 = [-h, 0, 0, Q(1, 10)]
    W1 = [[1, 1, Q(1, 16), -Q(1, 16)], [1, 2, 1, Q(1, 8)], [1, -2, Q(1, 16), Q(1, 32)], [1, Q(1, 3), 1, -1]]
    b1 = [-Q(1, 8), -h, Q(1, 4), 0]
    return Network.from_rows([W0, W1, [[1, 2, 3, 1]]], [b0, b1, [0]])


BOX = (-1, 1)


@pytest.fixture(scope="module")
def planted():
    net = _planted()
    fd = functional_dimension(net, domain=BOX, max_regions=1)   # no complete walk: the sandwich
    cert = json.loads(json.dumps(functional_dimension_certificate(net, fd, domain=BOX)))
    return net, fd, cert


def test_planted_rare_neuron_gives_the_exact_dimension(planted):
    net, fd, cert = planted
    assert (net.n_parameters, fd.lower, fd.upper, fd.exact) == (37, 27, 27, True)
    assert any("(1, 0): 3 of its successors have a fixed sign" in d for d in fd.deficits)
    entries = [e for e in cert["upper_directions"] if e[0] == "fixed_successors"]
    assert [e[:4] for e in entries] == [["fixed_successors", 0, 0, [1, 1, -1, 0]]]
    assert entries[0][4] == {"shared": 0} and cert["shared_proofs"][0]["conditioned_on"] == "shallow"
    ok, why = verify(cert)
    assert ok and "exact: 27" in why
    # cross-checks: the exact rank of the rows at random inputs, and the complete region walk
    rng = random.Random(3)
    X = [[Q(rng.randint(-999, 999), 1000) for _ in range(2)] for _ in range(120)]
    assert exact_rank(net, X) == 27
    assert functional_dimension(net, domain=BOX).value == 27


def test_planted_directions_are_in_the_kernel_of_the_rows(planted):
    net, _, _ = planted
    vs = fixed_successor_vectors(net, 0, 0, [1, 1, -1, 0])
    offs = 4 * 2 + 4                                     # W2 (1-based) starts at parameter 12
    assert [sorted((k - offs, str(w)) for k, w in v.items()) for v in vs] == [[(0, '1'), (4, '-1/2')], [(8, '1')]]
    rng = random.Random(5)
    X = [[Q(rng.randint(-999, 999), 1000) for _ in range(2)] for _ in range(60)]
    for row in exact_jacobian_rows(net, X):
        for v in vs:
            assert sum((row[k] * w for k, w in v.items()), Q(0)) == 0


def test_without_the_entry_the_upper_bound_is_28(planted):
    net, _, cert = planted
    entries = [e for e in cert["upper_directions"] if e[0] != "fixed_successors"]
    assert checked_directions_bound(net, entries, BOX, cert["inputs"][:1]) == 28


def test_decider_finds_the_candidate_and_its_signs():
    net = _planted()
    assert fixed_successor_candidates(net, {"missing": [[12, 16]]}) == [(0, 0)]
    proven, _, _ = prove_suspects(net, BOX, {"missing": [[12, 16]]}, Budget(None))
    fact = proven["fixed_successors"][(0, 0)]
    assert fact["signs"] == [1, 1, -1, 0]
    assert fact["proof"]["shallow"] == [0, 0, 1]
    assert fact["proof"]["deeper"] == [[1, 0, -1], [1, 1, -1], [1, 2, 1]]


def _mutated(cert, change):
    c = copy.deepcopy(cert)
    e = next(e for e in c["upper_directions"] if e[0] == "fixed_successors")
    change(c, e)
    return c


def test_mutations_are_rejected(planted):
    _, _, cert = planted
    assert verify(cert)[0]

    def flip(c, e):                  # (2, 2) claimed always active: its proof is about "never"
        e[3][2] = 1

    def drop(c, e):                  # (2, 0) left out: one direction fewer, the bound is 28
        e[3][0] = 0

    def switching(c, e):             # (2, 3) switches on the active set: no proof of a sign
        e[3][3] = 1

    def not_orthogonal(c, e):        # a claimed bound one lower: as if 2·e0 − e1 were not needed
        c["upper"] -= 1              # to be orthogonal to c = (1, 2): rejected by the rank
        c["lower"] = min(c["lower"], c["upper"])

    def wrong_ref(c, e):             # a shared proof of another neuron
        c["shared_proofs"][0]["shallow"] = [0, 1, 1]

    for change in (flip, drop, switching, not_orthogonal, wrong_ref):
        ok, why = verify(_mutated(cert, change))
        assert not ok, change.__name__
    assert "does not show that neuron (1, 2) has sign +1" in verify(_mutated(cert, flip))[1]
    assert "N - rank of the listed directions is 28" in verify(_mutated(cert, drop))[1]

    def bad_index(c, e):
        e[4] = {"shared": 7}

    def bad_signs(c, e):
        e[3] = e[3][:3]

    def last_layer(c, e):
        e[1] = 1
    for change in (bad_index, bad_signs, last_layer):
        with pytest.raises(InputError):
            verify(_mutated(cert, change))
