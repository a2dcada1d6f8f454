"""``sup |a − b|`` on the orthant for networks of *different* weights whose bias-free difference
is 0 on the recession cone (three-layer-fibers R28: bounded), tightened by a body and a tail of
stable cells (R29's stable-cell rule: both patterns fixed on a cell of directions and ``a − b =
M x + c`` with ``M u = 0`` there, so ``|a − b| = |c|`` on the cell's tail).  Values against the
exact one-input oracle of ``tests/fuzz/bab_paths.py`` (Fractions, no netfibers code), ε at the
exact sup and 1e-30 below, certificates re-checked and mutated into false claims."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction as F

import pytest

from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds, epsilon_equivalent
from semialgebraic.bab.recession import _Tail, tail_cells, tail_faces
from semialgebraic.budget import Budget
from semialgebraic.certificates import jsonable
from semialgebraic.verify import verify
from tests.fuzz.bab_paths import sup_orthant_1d

# a = min(relu(x − 1), 1), b = relu(2x − 11/5)/2 − relu(x − 2): different weights, the same
# recession function 0; |a − b| = 1/10 on [11/10, ∞) (and below it on [1, 11/10])
CAP_A = Network.from_rows([[[1], [1]], [[1, -1]]], [[-1, -2], [0]])
CAP_B = Network.from_rows([[[2], [1]], [["1/2", -1]]], [["-11/5", -2], [0]])


def _js(cert):
    return json.loads(json.dumps(jsonable(cert)))


def _rows(net):
    return [([[F(str(v)) for v in row] for row in W.to_rows()], [F(str(v)) for v in bias])
            for W, bias in zip(net.weights, net.biases)]


def _rescaled_pair(seed):
    """A random one-input net with two hidden layers and a copy of it with every first-layer
    neuron rescaled by a positive factor (in-weights and bias times λ, out-weights over λ: the
    same function, different weights) and then every bias moved: ``a − b`` is bounded (R28:
    the bias-free copies are equal) but the weights differ."""
    rng = random.Random(seed)
    w = [1, 3, 3, 1]
    Ws = [[[F(rng.randint(-4, 4), 2) for _ in range(p)] for _ in range(q)] for p, q in zip(w, w[1:])]
    bs = [[F(rng.randint(-4, 4), 2) for _ in range(q)] for q in w[1:]]
    lam = [F(rng.randint(1, 4), rng.randint(1, 4)) for _ in range(3)]
    Ws2 = copy.deepcopy(Ws)
    bs2 = [[v + F(rng.randint(-2, 2), 8) for v in bv] for bv in bs]
    for j, l_ in enumerate(lam):
        Ws2[0][j] = [v * l_ for v in Ws2[0][j]]
        bs2[0][j] *= l_
        Ws2[1] = [[v / l_ if k == j else v for k, v in enumerate(row)] for row in Ws2[1]]
    return Network.from_rows(Ws, bs), Network.from_rows(Ws2, bs2)


def test_R29_stable_cells_make_the_capped_pair_exact():
    dom = Domain.orthant(1)
    r = diff_bounds(CAP_A, CAP_B, dom, timeout=60)
    assert (r.lower, r.upper, r.complete) == (Q(1, 10), Q(1, 10), True)
    assert r.checked is True and "tail" in r.certificate
    assert verify(_js(r.certificate))[0]
    ans, rr = epsilon_equivalent(CAP_A, CAP_B, dom, "1/10", timeout=60)
    assert ans is True and verify(_js(rr.certificate))[0]
    ans, rr = epsilon_equivalent(CAP_A, CAP_B, dom, Q(1, 10) - Q(1, 10**30), timeout=60)
    assert ans is False and abs(CAP_A.evaluate(rr.point)[0] - CAP_B.evaluate(rr.point)[0]) > Q(1, 10) - Q(1, 10**30)


def test_R29_stable_cell_rule_on_one_cell():
    # far out (R = 4) the one cell u = 1 is stable and a − b is the constant 1/10 there
    dom = Domain.orthant(1)
    cell = tail_faces(dom, Q(1, 4))[0]
    assert _Tail(CAP_A, CAP_B, dom, Q(1, 4)).bound(cell) == Q(1, 10)
    # at R = 1 the kinks x = 1, 11/10 and 2 reach into the tail: no bound
    assert _Tail(CAP_A, CAP_B, dom, Q(1)).bound(tail_faces(dom, Q(1))[0]) is None
    t, faces = tail_cells(CAP_A, CAP_B, dom, Q(1), Budget(None))
    assert t is None and faces[0] == {"bound": None}
    # a − b growing (slopes 1 and 2): never a bound, however far
    grow = Network.from_rows([[[2]], [[1]]], [[0], [0]])
    lin = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    assert _Tail(grow, lin, dom, Q(1, 10**6)).bound(tail_faces(dom, Q(1, 10**6))[0]) is None


@pytest.mark.parametrize("seed", range(6))
def test_R29_rescaled_pairs_exact_against_the_oracle(seed):
    a, b = _rescaled_pair(seed)
    truth = sup_orthant_1d(_rows(a), _rows(b))
    truth = None if truth is None else Q(truth.numerator, truth.denominator)
    assert truth is not None                          # bounded: the same recession function
    dom = Domain.orthant(1)
    r = diff_bounds(a, b, dom, timeout=60)
    assert r.lower <= truth <= r.upper
    assert r.lower == r.upper == truth, (seed, r.reason)
    assert r.checked is True and verify(_js(r.certificate))[0]
    for e, want in ((truth, True), (truth - Q(1, 10**30), False)):
        if e < 0:
            continue
        ans, rr = epsilon_equivalent(a, b, dom, e, timeout=60)
        assert ans is want, (seed, e, rr.reason)
        assert verify(_js(rr.certificate))[0]


def _mutants(cert):
    tail = cert["tail"]
    yield "tail bound below its leaf", {**cert, "tail": {**tail, "bound": "1/20"}}
    faces = copy.deepcopy(tail["faces"])
    faces[0] = {"bound": "1/20"}
    yield "leaf bound below the cell's", {**cert, "tail": {**tail, "faces": faces, "bound": "1/20"}, "upper": "1/10"}
    yield "radius inside the kinks", {**cert, "tail": {**tail, "radius": "1"}}
    c = copy.deepcopy(cert)
    c["b"]["layers"][0]["weight"][0][0] = "3"         # a − b now grows: no cell is bounded
    yield "b's weight moved", c
    yield "upper below the truth", {**cert, "upper": "1/20"}


def test_R29_stable_cell_certificates_mutated_are_refused():
    r = diff_bounds(CAP_A, CAP_B, Domain.orthant(1), timeout=60)
    cert = _js(r.certificate)
    assert verify(cert)[0]
    n = 0
    for name, bad in _mutants(cert):
        n += 1
        try:
            ok, _ = verify(bad)
        except Exception:               # an InputError (malformed) is a refusal too
            ok = False
        assert ok is False, name
    assert n >= 4


@pytest.mark.parametrize("seed", range(4))
def test_R29_stable_cell_claim_holds_far_out(seed):
    # the claim relied on: on a stable cell's tail a − b is the constant c^a − c^b; checked by
    # exact evaluation at ‖x‖∞ = N for N from R to 10^12·R along the cell's direction
    a, b = _rescaled_pair(seed)
    dom = Domain.orthant(1)
    r = diff_bounds(a, b, dom, timeout=60)
    tail = r.certificate["tail"]
    R, leaf = Q(tail["radius"]), tail["faces"][0]
    assert "bound" in leaf                       # one input: the one cell u = 1, not split
    vals = {abs(a.evaluate([N])[0] - b.evaluate([N])[0]) for N in (R, 3 * R, 10 ** 6 * R, 10 ** 12 * R)}
    assert vals == {Q(leaf["bound"])}
