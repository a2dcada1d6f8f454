"""The homogenised tail (three-layer-fibers R33) for networks of different depths: the shallower
network's output is carried to the deeper one's depth as ``relu(y), relu(−y)`` and recombined as
``y = relu(y) − relu(−y)``; the face network is ``s·(a − b)(u/s)`` exactly for any pair of
depths, decider and checker build the same one by different routes, ``diff`` on R^2 and the
orthant is exact against z3 (a − b bounded: b is a deepened copy of a with shifted biases), and
the certificate's mutations are refused."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction

import pytest

from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab.recession import face_network
from semialgebraic.certificates import jsonable
from semialgebraic.verify import verify
from semialgebraic.verify.bab_recession import _homogenised

from .test_bab_recession import _z3_max


def _js(cert):
    return json.loads(json.dumps(jsonable(cert)))


def _q(f: Fraction):
    return Q(f.numerator, f.denominator)


def _rnd(rng, widths):
    Ws = [[[Fraction(rng.randint(-4, 4), 2) for _ in range(p)] for _ in range(q)] for p, q in zip(widths, widths[1:])]
    bs = [[Fraction(rng.randint(-4, 4), 2) for _ in range(q)] for q in widths[1:]]
    return Network.from_rows(Ws, bs)


def _eval(net, x):
    """The network at *x* in fractions (the test's own evaluation)."""
    h = [Fraction(str(v)) for v in x]
    for k, (W, b) in enumerate(zip(net.weights, net.biases)):
        h = [sum((Fraction(str(w)) * v for w, v in zip(row, h)), Fraction(0)) + Fraction(str(c))
             for row, c in zip(W.to_rows(), b)]
        if k < net.depth - 1:
            h = [max(v, Fraction(0)) for v in h]
    return h


def deepened(rng, a, extra):
    """*a* with *extra* more layers, its output ``y`` carried as ``relu(y + c) − relu(−y + c')
    + c''`` and every bias shifted by a random half: a "distillation" of a of another depth
    whose difference to a is bounded on R^d (the same recession function, R28)."""
    rows = [[[Fraction(str(w)) for w in r] for r in W.to_rows()] for W in a.weights]
    bias = [[Fraction(str(v)) + Fraction(rng.randint(-2, 2), 2) for v in bv] for bv in a.biases]
    for _ in range(extra):
        W, c = rows.pop(), bias.pop()
        m = len(W)
        rows += [[list(r) for r in W] + [[-v for v in r] for r in W],
                 [[1 if k == o else -1 if k == m + o else 0 for k in range(2 * m)] for o in range(m)]]
        bias += [list(c) + [-v + Fraction(rng.randint(-2, 2), 2) for v in c],
                 [Fraction(rng.randint(-2, 2), 2) for _ in range(m)]]
    return Network.from_rows(rows, bias)


# ---- the face network of two depths ----

@pytest.mark.parametrize("da,db", [(1, 2), (2, 1), (1, 3), (2, 3), (3, 2), (2, 4)])
def test_face_network_of_two_depths_is_the_homogenised_difference(da, db):
    # A_o(u_{-i}, s) = relu(s f_o - M s) + relu(-s f_o - M s), f = a - b at x = u/s (R33),
    # a and b of independent random weights (the identity holds for any pair)
    rng = random.Random(10 * da + db)
    d, m = 2, 2
    hidden = lambda n: tuple(rng.randint(1, 3) for _ in range(n - 1))   # noqa: E731
    a, b = _rnd(rng, (d, *hidden(da), m)), _rnd(rng, (d, *hidden(db), m))
    assert (a.depth, b.depth) == (da, db)
    for i in range(d):
        for sign in (1, -1):
            M = Fraction(rng.randint(0, 8), 3)
            A, B = face_network(a, b, i, sign, _q(M))
            assert A.depth == B.depth == max(da, db) + 1
            for _ in range(8):
                w, s = Fraction(rng.randint(-8, 8), 8), Fraction(rng.randint(1, 8), 8)
                u = [w, w]
                u[i] = Fraction(sign)
                x = [v / s for v in u]
                f = [p - q for p, q in zip(_eval(a, x), _eval(b, x))]
                want = [max(s * v - M * s, 0) + max(-s * v - M * s, 0) for v in f]
                assert _eval(A, [w, s]) == want and _eval(B, [w, s]) == [0] * m


@pytest.mark.parametrize("wa,wb", [((2, 1), (2, 3, 1)), ((2, 3, 2), (2, 2)), ((3, 1), (3, 2, 2, 1)),
                                   ((2, 3, 2, 2), (2, 2, 2)), ((3, 3, 2), (3, 2, 2, 2, 2))])
def test_the_checker_deepens_and_rebuilds_the_same_face_network(wa, wb):
    # the decider carries the pair per layer (_face_rows), the checker deepens the shallower
    # network first (_deepened) and runs the equal-depth construction: the same exact network
    rng = random.Random(len(wa) + 7 * len(wb))
    a, b = _rnd(rng, wa), _rnd(rng, wb)
    for i in range(wa[0]):
        for sign in (1, -1):
            A, B = face_network(a, b, i, sign, Q(5, 2))
            want, zero = _homogenised(a, b, i, Q(sign), Q(5, 2))
            for net, layers in ((A, want), (B, zero)):
                assert [(W.to_rows(), list(c)) for W, c in zip(net.weights, net.biases)] == \
                    [(rows, list(c)) for rows, c in layers]


def test_the_carried_pair_is_plus_minus_the_output():
    # a = x_0 - x_1 + 1 (depth 1) against a depth-3 b: face (0, +1), layer 0 holds a's output
    # and its negation (u_0 = 1 folded into the constant), layer 1 carries relu(y), relu(-y)
    a = Network.from_rows([[[1, -1]]], [[1]])
    b = Network.from_rows([[[1, 0]], [[1]], [[1]]], [[0], [0], [0]])
    A, _ = face_network(a, b, 0, 1, Q(0))
    assert [W.to_rows() for W in A.weights[:2]] == [
        [[-1, 1], [1, -1], [0, 0], [0, 1]],            # y = -u_1 + s + 1, -y, b's neuron, s
        [[1, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]]
    assert [list(c) for c in A.biases[:2]] == [[1, -1, 1, 0], [0, 0, 0, 0]]


# ---- end to end: a deepened copy of a, exact against z3 ----

def depth_pair(seed):
    """``(a, b)``: a of depth 2 or 3 (d = 2), b :func:`deepened` by 1 or 2 layers; swapped
    (the deeper first) for odd seeds // 2."""
    rng = random.Random(seed)
    a = _rnd(rng, (2, 3, 1) if seed % 2 else (2, 3, 2, 1))
    b = deepened(rng, a, 1 + seed % 3 // 2)
    return (b, a) if (seed // 2) % 2 else (a, b)


def affine_pair(seed):
    """a affine (depth 1), b its deepened copy (depth 2 or 3)."""
    rng = random.Random(1000 + seed)
    a = _rnd(rng, (2, 1))
    return a, deepened(rng, a, 1 + seed % 2)


# (pair, seed, domain, depths, the exact max (z3 agrees)); before: R28's |W| bound only, e.g.
# depth_pair(1) on R^2 [9/4, 26], depth_pair(2) [5/2, 126] ("needs a and b of one depth")
CASES = [("depth", 1, "whole", (2, 3), Fraction(9, 4)), ("depth", 1, "orthant", (2, 3), Fraction(3, 2)),
         ("depth", 3, "whole", (3, 2), Fraction(2)), ("depth", 3, "orthant", (3, 2), Fraction(2)),
         ("depth", 2, "whole", (5, 3), Fraction(5, 2)), ("depth", 5, "orthant", (2, 4), Fraction(4)),
         ("affine", 0, "whole", (1, 2), None), ("affine", 1, "orthant", (1, 3), None)]
FAST = {("depth", 1, "orthant"), ("depth", 3, "orthant"), ("affine", 0, "whole")}


def _dom(name):
    return Domain.whole(2) if name == "whole" else Domain.orthant(2)


@pytest.mark.parametrize("kind,seed,name,depths,truth", [
    c if c[:3] in FAST else pytest.param(*c, marks=pytest.mark.slow) for c in CASES])
def test_different_depths_are_exact_against_z3(kind, seed, name, depths, truth):
    a, b = (depth_pair if kind == "depth" else affine_pair)(seed)
    assert (a.depth, b.depth) == depths
    dom = _dom(name)
    r = diff_bounds(a, b, dom)
    assert r.checked and r.complete and r.lower == r.upper, r.reason
    cert = _js(r.certificate)
    assert verify(cert)[0]
    assert max(abs(p - q) for p, q in zip(_eval(a, r.point), _eval(b, r.point))) == Fraction(str(r.upper))
    if truth is not None:
        assert r.upper == _q(truth) and cert["tail"]["kind"] == "homogenised"
    assert _z3_max(a, b, dom) == Fraction(str(r.upper))        # the oracle (skipped without z3)


# ---- mutations ----

def _cert():
    a, b = depth_pair(3)                           # depths 3 and 2, max 2 on the orthant
    r = diff_bounds(a, b, Domain.orthant(2))
    cert = _js(r.certificate)
    assert cert["tail"]["kind"] == "homogenised" and verify(cert)[0] and r.upper == 2
    return cert


def test_mutations_of_a_two_depth_homogenised_tail_are_refused():
    cert = _cert()
    k = next(n for n, f in enumerate(cert["tail"]["faces"]) if f is not None)
    face = cert["tail"]["faces"][k]

    bad = copy.deepcopy(cert)                      # M lowered below the max (2)
    bad["tail"]["faces"][k]["M"] = "3/2"
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)                      # a face dropped
    bad["tail"]["faces"][k] = None
    assert not verify(bad)[0]
    # a carried weight changed.  a has depth 3 (hidden widths 3, 2), b depth 2 (hidden 3): the
    # face network's hidden layer 1 holds a's 2 neurons, b's output carried as relu(y),
    # relu(-y) (rows 2 and 3: b's output row and its negation) and s; hidden layer 2 recombines
    # b's pair as -(relu(y) - relu(-y)) in X (columns 2 and 3: -1, +1)
    A = face["certificate"]["a"]["layers"]
    assert [len(lay["weight"]) for lay in A] == [7, 5, 2, 1]
    assert [Fraction(str(v)) for v in A[2]["weight"][0][2:4]] == [-1, 1]
    for layer, row, col, new in ((1, 2, 3, 1), (1, 3, 4, 0), (2, 0, 2, -2), (2, 1, 3, 0)):
        bad = copy.deepcopy(cert)
        w = bad["tail"]["faces"][k]["certificate"]["a"]["layers"][layer]["weight"][row]
        assert Fraction(str(w[col])) != new
        w[col] = new
        ok, why = verify(bad)
        assert not ok and "not the homogenised face network" in why, (layer, row, col)
    bad = copy.deepcopy(cert)                      # the deeper network's carry layer changed
    for lay in bad["b"]["layers"][-1:]:
        lay["bias"] = [str(Fraction(str(v)) + 1) for v in lay["bias"]]
    assert not verify(bad)[0]


def test_a_budget_in_the_two_depth_tail_says_where_it_stopped():
    # depths 3 and 2 on the orthant (max 2): 20 nodes prove the body, not the faces (R33);
    # the reason names the unbounded tail, not the body's "lower = upper"; 40 nodes: exact
    from semialgebraic.budget import Budget
    a, b = depth_pair(3)
    r = diff_bounds(a, b, Domain.orthant(2), budget=Budget(None, 20))
    assert (r.lower, r.upper, r.complete, r.checked) == (2, None, False, True)
    assert r.reason == ("no bound on the tail ‖x‖∞ >= 1 (the body's branch and bound: lower = upper); "
                        "the budget ended in the homogenised tail (R33)")
    r = diff_bounds(a, b, Domain.orthant(2), budget=Budget(None, 40))
    assert (r.lower, r.upper, r.complete) == (2, 2, True)
