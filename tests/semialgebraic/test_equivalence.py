"""General exact equivalence: planted symmetries, perturbations, tiny regions,
domains, budgets, the dispatcher against the general method, exact deviation."""

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.exceptions import InputError
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.equivalence import (could_be_equivalent, equivalent, is_equivalent, max_deviation,
                                       refutation_points, simplify)
from semialgebraic.exceptions import UndecidedError
from semialgebraic.verify import verify
from tests.cases.general import permute_scale

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


# ------------------------------------------------------------------------------------------------
# random networks and planted symmetries
# ------------------------------------------------------------------------------------------------
def random_net(rng, widths, rational=True, zero_prob=0.15):
    def num():
        if rng.random() < zero_prob:
            return Q(0)
        return Q(rng.randint(-4, 4), rng.randint(1, 3) if rational else 1)
    W = [[[num() for _ in range(widths[l])] for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    b = [[num() for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    return Network(W, b)


def insert_dead(net, rng, layer=0):
    """A neuron with zero incoming weights and negative bias (dead everywhere), any outputs."""
    Ws = [w.to_rows() for w in net.weights]
    bs = [list(b) for b in net.biases]
    Ws[layer].append([Q(0)] * len(Ws[layer][0]))
    bs[layer].append(Q(-rng.randint(1, 5)))
    for row in Ws[layer + 1]:
        row.append(Q(rng.randint(-5, 5)))
    return Network(Ws, bs)


def split_neuron(net, rng, layer=0):
    """Neuron 0 of *layer* becomes two parallel neurons (rows λ r, outputs summing back)."""
    Ws = [w.to_rows() for w in net.weights]
    bs = [list(b) for b in net.biases]
    lam = Q(rng.randint(1, 4), rng.randint(1, 4))
    Ws[layer].append([lam * v for v in Ws[layer][0]])
    bs[layer].append(lam * bs[layer][0])
    t = Q(rng.randint(-3, 3), 2)
    for row in Ws[layer + 1]:
        row.append(t)
        row[0] = row[0] - t * lam
    return Network(Ws, bs)


def cancelling_pair(net, rng, layer=0):
    """Two identical new neurons with opposite outgoing weights (their kinks cancel)."""
    Ws = [w.to_rows() for w in net.weights]
    bs = [list(b) for b in net.biases]
    r = [Q(rng.randint(-3, 3)) for _ in Ws[layer][0]]
    c = Q(rng.randint(-3, 3))
    Ws[layer] += [r, list(r)]
    bs[layer] += [c, c]
    for row in Ws[layer + 1]:
        v = Q(rng.randint(1, 4))
        row += [v, -v]
    return Network(Ws, bs)


PLANTS = [permute_scale, insert_dead, split_neuron, cancelling_pair]


@st.composite
def nets(draw, max_width=4, depth=(2, 4)):
    seed = draw(st.integers(0, 10**6))
    rng = random.Random(seed)
    d = draw(st.integers(1, 3))
    L = draw(st.integers(*depth))
    widths = [d] + [draw(st.integers(1, max_width)) for _ in range(L - 1)] + [draw(st.integers(1, 2))]
    return random_net(rng, widths, rational=draw(st.booleans())), rng


def _assert_verified(v):
    ok, why = verify(v.certificate)
    assert ok, why


# ------------------------------------------------------------------------------------------------
@settings(max_examples=12, **SETTINGS)
@given(nets(), st.integers(0, len(PLANTS) - 1))
def test_planted_symmetries_are_equivalent(pair, which):
    a, rng = pair
    b = PLANTS[which](a, rng)
    v = equivalent(a, b, method="general")
    assert v.answer is True, v.reason
    assert v.certificate["type"] == "region_cover"
    _assert_verified(v)


@settings(max_examples=12, **SETTINGS)
@given(nets())
def test_output_bias_perturbation_is_refuted(pair):
    a, rng = pair
    b = a.with_parameter(f"b{a.depth}[0]", a.biases[-1][0] + Q(1, rng.randint(1, 9)))
    v = equivalent(a, b, method="general")
    assert v.answer is False
    _assert_verified(v)
    x = [Q(t) for t in v.certificate["x"]]
    assert a(x) != b(x)


@settings(max_examples=12, **SETTINGS)
@given(nets())
def test_any_perturbation_gives_a_verified_answer(pair):
    a, rng = pair
    k = rng.randrange(a.n_parameters)
    b = a.with_parameter(k, a.parameters()[k] + Q(rng.choice([-2, -1, 1, 2]), 3))
    v = equivalent(a, b, method="general", refutation_samples=0)
    assert v.answer in (True, False)
    _assert_verified(v)
    if v.answer:          # then no point may separate them
        assert could_be_equivalent(a, b, samples=64)


@settings(max_examples=10, **SETTINGS)
@given(nets(depth=(2, 3)), st.booleans())
def test_auto_and_general_agree(pair, planted):
    a, rng = pair
    b = permute_scale(a, rng) if planted else a.with_parameter(
        rng.randrange(a.n_parameters), Q(rng.randint(-3, 3)))
    va = equivalent(a, b, method="auto")
    vg = equivalent(a, b, method="general")
    assert va.answer == vg.answer
    _assert_verified(va)


def test_auto_dispatches_to_the_fast_paths():
    a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])
    b = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])
    v = equivalent(a, b)
    assert v.answer is True and v.method != "general"
    names = [h.name for h in v.hypotheses]
    assert "one hidden layer each" in names
    deep = Network.from_rows([[[1], [-1]], [[1, 1], [1, -1]], [[1, 1]]], [[0, 0], [0, 0], [0]])
    w = equivalent(deep, deep)                  # (no theorem's fast path: the exact alignment)
    assert w.answer is True and w.method == "symmetry" and w.reason == "b has the same weights as a"
    assert equivalent(deep, deep, method="general").method == "general"


def test_tiny_region_difference_is_found_by_the_walk():
    """b = a + a bump supported on (0, 2e-6): kinks in a box of width 2e-6."""
    delta = Q(1, 2 * 10**6)
    a = Network.from_rows([[[1], [-1], [1]], [[1, 1, -1]]], [[0, 1, -2], [0]])
    Wb = [[1], [-1], [1], [1], [1], [1]]
    bb = [0, 1, -2, 0, -delta, -2 * delta]
    b = Network.from_rows([Wb, [[1, 1, -1, 1, -2, 1]]], [bb, [0]])
    assert a([delta]) != b([delta]) and a([2 * delta]) == b([2 * delta])
    v = equivalent(a, b, method="general", refutation_samples=0)
    assert v.answer is False
    _assert_verified(v)
    x = Q(v.certificate["x"][0])
    assert 0 < x < 2 * delta
    assert equivalent(a, b, method="general").answer is False


def test_tiny_slab_in_two_dimensions():
    delta = Q(1, 10**6)
    a = Network.from_rows([[[1, 2], [-1, 1]], [[1, 1]]], [[0, 1], [0]])
    W = [[1, 2], [-1, 1], [3, -1], [3, -1], [3, -1]]
    b = Network.from_rows([W, [[1, 1, 1, -2, 1]]], [[0, 1, 5, 5 - delta, 5 - 2 * delta], [0]])
    v = equivalent(a, b, method="general", refutation_samples=0)
    assert v.answer is False
    _assert_verified(v)


def test_domains():
    relu = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    ident = Network.from_rows([[[1], [-1]], [[1, -1]]], [[0, 0], [0]])   # relu(x) - relu(-x) = x
    assert equivalent(relu, ident, method="general").answer is False
    v = equivalent(relu, ident, method="general", domain="orthant")
    assert v.answer is True
    _assert_verified(v)
    assert v.certificate["domain"] == {"orthant": True}
    v = equivalent(relu, ident, method="general", domain=("1/2", 3))
    assert v.answer is True
    _assert_verified(v)
    v = equivalent(relu, ident, method="general", domain=(-1, 3))
    assert v.answer is False
    x = Q(v.certificate["x"][0])
    assert -1 <= x < 0
    v = equivalent(relu, ident, method="general", domain=(2, 2))
    assert v.answer is True
    _assert_verified(v)


KINKS = [[1, 0], [0, 1], [1, -1]]
ALWAYS_A = Network.from_rows([KINKS, [[1, 0, 0], [0, 1, 1]], [[1, 1]]], [[0, 0, 0], [1, 1], [-2]])
ALWAYS_B = Network.from_rows([KINKS, [[1, 1, 1]]], [[0, 0, 0], [0]])
# non-collapsing: NC_A's neuron relu(h1 - h2 + 2) is always active but interval bounds cannot
# show it, so no layer contracts and the walk has to visit the 6 regions
NC_A = Network.from_rows([[[1, 0], [1, 0], [0, 1]], [[1, -1, 0], [0, 0, 1]], [[1, 1]]],
                         [[0, -1, 0], [2, 0], [-2]])
NC_B = Network.from_rows([[[1, 0], [1, 0], [0, 1]], [[1, -1, 1]]], [[0, -1, 0], [0]])


def test_collapsing_and_non_collapsing_certificates():
    rng = random.Random(4)
    a = random_net(rng, [2, 4, 4, 1], zero_prob=0)
    v = equivalent(a, permute_scale(a, rng), method="general")
    assert v.answer is True and v.certificate["regions"] == []            # collapsed: no walk
    assert v.details["live_neurons"] == 0
    v = equivalent(NC_A, NC_B, method="general")
    assert v.answer is True and len(v.certificate["regions"]) == 6
    _assert_verified(v)
    v = equivalent(ALWAYS_A, ALWAYS_B, method="general")     # a's second layer contracts
    assert v.answer is True and v.certificate["regions"] == []
    assert v.certificate["contract"] == [{"net": "a", "layer": 1}]
    _assert_verified(v)


def test_budget_gives_undecided_with_partial_report():
    a, b = NC_A, NC_B
    v = equivalent(a, b, method="general", max_regions=2)
    assert v.answer is None and v.exit_code() == 3
    assert v.details["regions_checked"] == 2 and "no counterexample" in v.reason
    with pytest.raises(UndecidedError):
        is_equivalent(a, b, method="general", max_regions=2)
    assert is_equivalent(a, b, method="general") is True


def test_fast_path_method_that_does_not_apply():
    deep = Network.from_rows([[[1], [-1]], [[1, 1], [1, -1]], [[1, 1]]], [[0, 0], [0, 0], [0]])
    v = equivalent(deep, deep, method="shallow")
    assert v.answer is None and v.exit_code() == 3


def test_equivalence_exceptions():
    a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    b = Network.from_rows([[[1, 1]], [[1]]], [[0], [0]])
    with pytest.raises(InputError):
        equivalent(a, b)
    with pytest.raises(InputError):
        equivalent(a, a, method="magic")
    with pytest.raises(InputError):
        equivalent(a, a, domain=(2, 1))
    with pytest.raises(InputError):
        equivalent(a, a, domain="sphere")
    with pytest.raises(InputError):
        max_deviation(a, a, None)


def test_could_be_equivalent_and_points():
    a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    assert could_be_equivalent(a, a)
    assert not could_be_equivalent(a, a.with_parameter("W1[1,0]", -2))
    pts = refutation_points([a], samples=3)
    assert len(pts) == 3 + 2 * 4                 # two hyperplanes, 4 points each
    assert all(len(p) == 1 for p in pts)


@settings(max_examples=10, **SETTINGS)
@given(nets(depth=(2, 3)))
def test_simplify_preserves_the_function(pair):
    a, rng = pair
    for plant in (insert_dead, split_neuron):
        b = plant(a, rng)
        s, report = simplify(b)
        assert s.n_hidden <= b.n_hidden
        assert equivalent(b, s, method="general").answer is True


def test_simplify_reports():
    net = Network.from_rows([[[1], [2], [0], [1]], [[1, 1, 5, 0]]], [[1, 2, -1, 3], [0]])
    s, rep = simplify(net)
    assert (rep["merged"], rep["dead"], rep["no_output"]) == (1, 1, 1)
    assert s.widths == (1, 1, 1)
    assert s([Q(-1, 2)]) == net([Q(-1, 2)]) == (Q(3, 2),)


# ------------------------------------------------------------------------------------------------
# exact deviation
# ------------------------------------------------------------------------------------------------
def test_max_deviation_values():
    a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    b = Network.from_rows([[[1]], [["1/2"]]], [[0], [0]])
    dev = max_deviation(a, b, (-1, 2))
    assert (dev.value, dev.point, dev.output, dev.complete) == (1, (2,), 0, True)
    two = Network.from_rows([[[1, 1], [1, -1]], [[1, 0], [0, 1]]], [[0, 0], [0, 0]])
    zero = Network.from_rows([[[0, 0]], [[0], [0]]], [[0], [0, 0]])
    dev = max_deviation(two, zero, (-1, 1))
    assert dev.value == 2 and dev.complete
    assert max(abs(v) for v in two(dev.point)) == 2
    dev = max_deviation(a, b, (3, 3))
    assert dev.value == Q(3, 2) and dev.point == (3,)


@settings(max_examples=8, **SETTINGS)
@given(nets(max_width=3, depth=(2, 3)))
def test_max_deviation_is_attained_and_bounds_samples(pair):
    a, rng = pair
    b = a.with_parameter(rng.randrange(a.n_parameters), Q(rng.randint(-3, 3), 2))
    dev = max_deviation(a, b, (-2, 2))
    assert dev.complete
    assert all(-2 <= v <= 2 for v in dev.point)
    diff = max(abs(u - v) for u, v in zip(a(dev.point), b(dev.point)))
    assert diff == dev.value
    for _ in range(20):
        x = [Q(rng.randint(-200, 200), 100) for _ in range(a.n_inputs)]
        assert max(abs(u - v) for u, v in zip(a(x), b(x))) <= dev.value


def test_different_depths():
    a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])                     # |x|
    b = Network.from_rows([[[1], [-1]], [[1, 1]], [[1]]], [[0, 0], [0], [0]])        # relu(|x|)
    v = equivalent(a, b, method="general")
    assert v.answer is True
    _assert_verified(v)
    c = Network.from_rows([[[1], [-1]], [[1, 1]], [[1]]], [[0, 0], [-1], [0]])       # relu(|x| - 1)
    v = equivalent(a, c)
    assert v.answer is False
    _assert_verified(v)
