"""Issue 18, part 4: the fidelity gaps, each value checked against an independent oracle.

three-layer-fibers R19 (the paper's reading), R21 (black-box recovery), R5, G4, G7 and the
pitfalls P3, P4, P6, P8, P9, P11, P15.  The skip-absorption side is in
``test_absorption_fidelity.py``.
"""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from algebra.io.native import network_from_dict
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bottleneck import (genericity, identifiability, jacobian_dimension,
                                      structure)
from semialgebraic.bottleneck.composition import (PAPER_EXAMPLE, first_two_identifiable,
                                                  last_two_identifiable,
                                                  paper_non_localizability_example)
from semialgebraic.equivalence import equivalent
from semialgebraic.recover import NetworkOracle, recover
from semialgebraic.shallow import fiber_shallow
from semialgebraic.verify import verify

EX = Path(__file__).resolve().parents[2] / "algebra" / "examples"


# -- Fraction oracles ---------------------------------------------------------------------------
def _relu(v):
    return v if v > 0 else Fraction(0)


def _eval(net: Network, x) -> list:
    """Exact evaluation with Fraction, independent of Network.evaluate."""
    v = [Fraction(str(a)) for a in x]
    L = net.depth
    for l in range(L):
        W, b = net.layer(l)
        v = [sum((Fraction(str(W[i, j])) * v[j] for j in range(W.ncols)), Fraction(0)) + Fraction(str(b[i]))
             for i in range(W.nrows)]
        if l < L - 1:
            v = [_relu(t) for t in v]
    return v


def _points(d, n=40, seed=1, lo=-4, hi=4):
    rng = random.Random(seed)
    return [[Fraction(rng.randint(lo * 30, hi * 30), 30) for _ in range(d)] for _ in range(n)]


# =============================================================================================
# three-layer-fibers R19, the paper's reading
# =============================================================================================
def test_r19_paper_reading_three_claims():
    r = paper_non_localizability_example()
    assert (r["f2_f1_identifiable"], r["f3_f2_identifiable"], r["composite_identifiable"]) == (True, True, False)
    assert "linear" in r["composite_reason"]
    cert = r["certificate"]
    assert cert["type"] == "non_localizability" and verify(cert)[0]
    # the composite: the end point of the path has another b3 and the same function (Fraction oracle)
    b = network_from_dict(cert["composite"]["b"])
    assert b.layer(2)[1] != PAPER_EXAMPLE.layer(2)[1]
    assert all(_eval(b, x) == _eval(PAPER_EXAMPLE, x) for x in _points(2))
    # the bundled file holds the same weights
    assert network_from_dict(json.loads((EX / "r19_paper_reading.json").read_text())) == PAPER_EXAMPLE


def test_r19_bias_trade_is_not_a_symmetry_of_the_pairs():
    # the composite's freedom (S4 bias trade b2_0 -> b2_0 + t, b3 -> b3 - t) changes f2∘f1 (no b3
    # to compensate): output 0 of f2∘f1 moves by t at every x (Fraction oracle)
    (W1, b1), (W2, b2), _ = PAPER_EXAMPLE.layer(0), PAPER_EXAMPLE.layer(1), PAPER_EXAMPLE.layer(2)
    f21 = Network([W1, W2], [b1, b2])
    moved = Network([W1, W2], [b1, [b2[0] + 1, b2[1]]])
    x = [Fraction(1, 2), Fraction(-3)]
    assert [_relu(v) for v in _eval(f21, x)][0] + 1 == [_relu(v) for v in _eval(moved, x)][0]
    # f3∘f2 on R^2: the general exact method finds only the S1 + S2 orbit (dimension n2 = 2, one
    # flip class): an independent route to the criterion's answer
    tail = Network([W2, PAPER_EXAMPLE.layer(2)[0]], [b2, PAPER_EXAMPLE.layer(2)[1]])
    F = fiber_shallow(tail)
    assert F.dimension.value == 2 and F.number_of_orbits == 1


def test_r19_t1_reading_kept_and_criteria_negative_controls():
    # T1 weights: f2∘f1's second output is σ(-2σ(x1) - σ(x2) - 3) ≡ 0, so the criterion refuses
    T1 = network_from_dict(json.loads((EX / "t1_masked.json").read_text()))
    (W1, b1), (W2, b2), (W3, b3) = T1.layer(0), T1.layer(1), T1.layer(2)
    ok, why = first_two_identifiable(W1, b1, W2, b2)
    assert not ok and "no positive entry" in why
    assert all(_relu(_eval(Network([W1, W2], [b1, b2]), x)[1]) == 0 for x in _points(2))
    assert paper_non_localizability_example(T1)["certificate"] is None
    # a cancelling flip set makes f3∘f2 non-identifiable on R^n1
    ok, why = last_two_identifiable(QMatrix.from_rows([[1, 2], [1, 2]]), [1, -1], QMatrix.from_rows([[1, -1]]))
    assert not ok
    ok, why = last_two_identifiable(QMatrix.from_rows([[1, 2], [2, 1]]), [1, -1], QMatrix.from_rows([[2, -4]]))
    assert ok


# =============================================================================================
# three-layer-fibers R21: black-box recovery
# =============================================================================================
class CountingOracle:
    """Exposes only __call__ (exact outputs) and the number of queries."""

    __slots__ = ("_net", "count")

    def __init__(self, net):
        self._net, self.count = net, 0

    def __call__(self, x):
        self.count += 1
        return tuple(_eval(self._net, x))


def _normalised(net):
    out = set()
    W, b = net.layer(0)
    for i in range(W.nrows):
        row = [Fraction(str(x)) for x in W.row_at(i)] + [Fraction(str(b[i]))]
        lead = next(x for x in row if x != 0)
        out.add(tuple(x / lead for x in row))
    return out


@pytest.mark.parametrize("seed,d,n,m", [(1, 2, 3, 1), (2, 3, 4, 2), (3, 2, 5, 1)])
def test_r21_recovers_planted_bends_and_network(seed, d, n, m):
    rng = random.Random(seed)
    W1 = [[rng.choice([-3, -2, -1, 1, 2, 3]) for _ in range(d)] for _ in range(n)]
    b1 = [rng.randint(-4, 4) for _ in range(n)]
    W2 = [[rng.choice([-2, -1, 1, 2, 3]) for _ in range(n)] for _ in range(m)]
    net = Network.from_rows([W1, W2], [b1, [rng.randint(-3, 3) for _ in range(m)]])
    oracle = CountingOracle(net)
    r = recover(oracle, d, m, seed=seed)
    assert r.queries == oracle.count > 0
    got = {tuple(Fraction(str(x)) for x in w) + (Fraction(str(c)),) for w, c in r.hyperplanes}
    assert got == _normalised(net) and all(r.first_layer)
    assert r.network is not None
    v = equivalent(r.network, net)
    assert v.answer is True and verify(v.certificate)[0]


def test_r21_deeper_network_reports_first_layer_bends_only():
    T1 = network_from_dict(json.loads((EX / "t6_control.json").read_text()))
    r = recover(NetworkOracle(T1), 2, T1.n_outputs)
    assert r.network is None and not all(r.first_layer)
    first = {tuple(Fraction(str(x)) for x in w) + (Fraction(str(c)),)
             for (w, c), whole in zip(r.hyperplanes, r.first_layer) if whole}
    assert first <= _normalised(T1)


def test_r21_bad_oracle_is_an_input_error():
    from algebra.exceptions import InputError
    with pytest.raises(InputError):
        recover(lambda x: (1, 2), 2, 1)


# =============================================================================================
# three-layer-fibers G4, G7, R5; pitfalls
# =============================================================================================
def test_G7_two_linear_rows_with_gamma_0_m1():
    # two linear rows, Γ = (1,1) - (1,2) = (0, -1): G1–G6 hold, G7 fails; R17 would give
    # 2 + 2·(2+1+1) - 1·(2+1-1) = 8, the exact Jacobian rank (R22) gives 10: R17 is wrong here
    net = Network.from_rows([[[1, 0], [0, 1]], [[1, 1], [1, 2]], [[1, -1]]], [[0, 0], [1, 1], [0]])
    hyps = {h.name[:2]: h for h in genericity(net)}
    assert all(hyps[g].holds for g in ("G0", "G1", "G2", "G3", "G4", "G5", "G6"))
    assert hyps["G7"].holds is False and hyps["G7"].witness["column"] == 0
    naive = 2 + 2 * (2 + 1 + 1) - 1 * (2 + 1 - 1)
    assert naive == 8 and jacobian_dimension(net) == 10
    assert identifiability(net).answer is None          # refused, not guessed


def test_G4_implied_by_G1():
    # G4 (no two proportional rows of [W1 | b1]) holds whenever G1 (rank W1 = n1) does; with
    # proportional rows G1 fails first and G4 is not evaluated
    rng = random.Random(4)
    for _ in range(30):
        W1 = [[rng.randint(-3, 3) for _ in range(3)] for _ in range(2)]
        net = Network.from_rows([W1, [[1, -1], [-1, 2]], [[1, 1]]], [[rng.randint(-2, 2), 1], [1, -1], [0]])
        h = {x.name[:2]: x for x in genericity(net)}
        if h["G1"].holds:
            assert h["G4"].holds is True
    bad = Network.from_rows([[[1, 2], [2, 4]], [[1, -1], [-1, 2]], [[1, 1]]], [[1, 2], [1, -1], [0]])
    h = {x.name[:2]: x for x in genericity(bad)}
    assert h["G1"].holds is False and h["G4"].holds is None


def _masked_columns(rows):
    """Own count (R4): columns i such that every non-dead row has the masking pattern for i."""
    live = [r for r in rows if not all(x < 0 for x in r)]
    if not live:
        return None
    n1 = len(rows[0]) - 1
    return [i for i in range(n1) if all(r[-1] < 0 and r[i] > 0 and all(r[k] < 0 for k in range(n1) if k != i)
                                        for r in live)]


def test_R5_at_most_one_masked_neuron_exhaustive():
    # three-layer-fibers R5 (pitfall P6): every sign pattern of [W2 | b2] with n1 = 3, n2 = 2
    rng = random.Random(5)
    worst = 0
    for signs in itertools.product((-1, 1), repeat=8):
        rows = [[s * rng.randint(1, 5) for s in signs[:4]], [s * rng.randint(1, 5) for s in signs[4:]]]
        cols = _masked_columns(rows)
        net = Network.from_rows([[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [r[:3] for r in rows], [[1, 2]]],
                                [[0, 0, 0], [r[3] for r in rows], [0]])
        s = structure(net)
        if cols is None:
            continue                                       # constant network (every row dead)
        worst = max(worst, len(cols))
        assert s.masked == (cols[0] if cols else None)
    assert worst == 1


def test_P3_P4_strict_signs_dead_and_linear_handled():
    # P3: a row with a zero entry is neither dead nor linear: refused (G2), never classified
    zero = Network.from_rows([[[1, 0], [0, 1]], [[0, -1], [1, -1]], [[1, 1]]], [[0, 0], [-1, -1], [0]])
    assert structure(zero).types is None
    # P4: dead and linear rows are handled (open conditions), with their fiber dimension
    net = Network.from_rows([[[1, 0], [0, 1]], [[-1, -2], [1, 2], [1, -1]], [[1, 1, 1]]],
                            [[0, 0], [-1, 1, -1], [0]])
    s = structure(net)
    assert list(s.types) == ["dead", "linear", "switching"]


def test_P8_sign_flip_with_dead_rows():
    # three-layer-fibers P8: S7 needs exactly one non-dead second-layer neuron, not n2 = 1; an
    # extra dead row does not interfere (Fraction oracle), a second non-dead row refuses the step
    from algebra.symmetries.bottleneck import SignFlip
    net = Network.from_rows([[[1, 0], [0, 1]], [[2, -1], [-1, -3]], [[1, 5]]], [[1, -1], [-1, -2], [0]])
    ok, why = SignFlip(0, [1]).check(net)
    assert ok, why
    out = SignFlip(0, [1]).apply(net)
    assert out != net and all(_eval(out, x) == _eval(net, x) for x in _points(2))
    two = Network.from_rows([[[1, 0], [0, 1]], [[2, -1], [3, -1]], [[1, 5]]], [[1, -1], [-1, -2], [0]])
    ok, why = SignFlip(0, [1]).check(two)
    assert not ok and "exactly one non-dead" in why


def test_P9_exact_normalisation_keeps_the_sign():
    # three-layer-fibers P9: CANON normalises by |lead| (rational), keeps the sign: a positive
    # rescaling by 1/3 gives the same form, a negative one a different function and form
    from semialgebraic.bottleneck import canonical_form
    net = Network.from_rows([[[1, 2], [3, 1]], [[1, -1], [-1, 2]], [[1, 1]]], [[1, -1], [1, -1], [0]])
    W1, b1 = net.layer(0)
    W2, b2 = net.layer(1)
    third = Network([W1.scale_rows([Q(1, 3), 1]), W2.T.scale_rows([3, 1]).T, net.layer(2)[0]],
                    [[b1[0] / 3, b1[1]], b2, net.layer(2)[1]])
    assert all(_eval(third, x) == _eval(net, x) for x in _points(2))
    assert canonical_form(third) == canonical_form(net)
    neg = Network([W1.scale_rows([-1, 1]), W2.T.scale_rows([-1, 1]).T, net.layer(2)[0]],
                  [[-b1[0], b1[1]], b2, net.layer(2)[1]])
    assert any(_eval(neg, x) != _eval(net, x) for x in _points(2))
    assert canonical_form(neg) != canonical_form(net)


def test_P11_flip_needs_linear_neurons_to_be_realised():
    # three-layer-fibers P11: moving V_j r_j into the affine part compares functions; realising it
    # needs linear neurons: T6's flip with the reference linear neuron is a valid step, and the
    # flipped net computes the same function on the orthant (Fraction oracle)
    from algebra.symmetries.orthant import FlipAbsorbed
    T6 = Network.from_rows([[[1, -1], [3, 4]], [[1, 1]]], [[-1, 1], [0]])
    step = FlipAbsorbed(0, 0, [1], [((4, 3), 1, (1,))], [-1], "orthant")
    assert step.check(T6)[0]
    out = step.apply(T6)
    assert all(_eval(out, x) == _eval(T6, x) for x in _points(2, lo=0))
    # a "new linear neuron" that is not linear on the orthant is refused (not realisable)
    bad = FlipAbsorbed(0, 0, [1], [((4, -3), 1, (1,))], [-1], "orthant")
    assert not bad.check(T6)[0]


def test_P15_bias_is_on_the_incoming_side():
    # three-layer-fibers P15: the rescaling law of a hidden neuron is ‖w_in‖² + b² − ‖w_out‖²
    from algebra.conservation import explicit_laws
    net = Network.from_rows([[[1, 2]], [[3]]], [[5], [0]])
    laws = [str(law.polynomial) for law in explicit_laws(net, [(1,)])]
    assert laws[0] == "W1[0,0]^2 + W1[0,1]^2 + b1[0]^2 - W2[0,0]^2"


def test_r21_a_deeper_bend_straight_in_one_region_is_not_called_whole():
    """Session 36 deep-net audit: on this 2-2-2-2-1 net the line x0 − 53/170 x1 + 73/170 = 0
    (a deeper bend, straight across one unbounded region of the first layer, affine across the
    line at half of its points) was labelled a whole first-layer hyperplane by 3 probes at scale
    64; the probes now spread over scales 64 to 2^18."""
    net = network_from_dict({"format": "netfibers.network", "version": 1, "activation": "relu",
                             "layers": [{"weight": [["5/3", "4/3"], ["6", "-3/2"]], "bias": ["3/2", "3"]},
                                        {"weight": [["-1", "5"], ["-6", "2"]], "bias": ["0", "-3"]},
                                        {"weight": [["1/4", "-2/3"], ["-3/2", "1"]], "bias": ["2", "2"]},
                                        {"weight": [["1/4", "-4"]], "bias": ["0"]}]})
    bad = (Fraction(1), Fraction(-53, 170), Fraction(73, 170))
    for seed in range(3):
        r = recover(NetworkOracle(net), 2, 1, seed=seed)
        whole = {tuple(Fraction(str(x)) for x in w) + (Fraction(str(c)),)
                 for (w, c), flag in zip(r.hyperplanes, r.first_layer) if flag}
        assert bad not in whole, seed
