"""Symmetry generators S1–S5 and the R^d moves (three-layer-fibers R8–R12): each step preserves
the function exactly where ``check`` says it is valid, refuses with a reason where it is not,
round-trips through JSON, and has an inverse; continuous steps have tangent generators."""

import random

import pytest

from algebra.exceptions import InputError, InvalidStepError
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries import (Composite, DeadNeuron, FlipAbsorbed, InsertNeuron, LinearBlock,
                                LinearRefactor, Permute, Regroup, RemoveNeuron, Scale,
                                affine_contribution, apply_path, hidden_neurons, path_from_json,
                                path_to_json, step_from_json)

NET = Network.from_rows([[[1, 2], [-1, 1], [2, -3]], [[1, -2, 3], [0, 1, 1]]],
                        [[1, 0, -1], [0, "1/2"]])
# tail of three-layer-fibers T6 (W1 = I): switching neuron 0, linear neuron 1 on the orthant
T6 = Network.from_rows([[[1, -1], [3, 4]], [[1, 1]]], [[-1, 1], [0]])
DEEP = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [3, 4]], [[1, 1]]], [[0, 0], [-1, 1], [0]])


def points(d, k=25, seed=0, orthant=False):
    rng = random.Random(seed)
    return [[Q(rng.randint(0 if orthant else -20, 20), rng.randint(1, 4)) for _ in range(d)]
            for _ in range(k)]


def same_function(a, b, orthant=False):
    return all(a(x) == b(x) for x in points(a.n_inputs, orthant=orthant))


def roundtrip(step):
    again = step_from_json(step.to_json())
    assert again.to_json() == step.to_json()
    return again


VALID = [
    (NET, Permute(0, [2, 0, 1]), False),
    (NET, Scale(0, [2, "1/3", 5]), False),
    (NET, Regroup(0, [([0], [1, 2], 1, [(2, ["1/2", 0]), (-1, [1, 0]), (-1, [-1, 0])])]), False),
    (Network.from_rows([[[1], [-1]], [[1, -1]]], [[0, 0], [0]]),
     LinearRefactor(0, [0, 1], [((2,), 1, ("1/2",)), ((-2,), -1, ("-1/2",))], ["-1/2"]), False),
    (NET, InsertNeuron(0, 1, [5, 5], 2, [0, 0]), False),
    (NET, InsertNeuron(0, 3, [0, 0], 2, [1, 1]), False),
    (T6, DeadNeuron(0, 0, [-1, -1], -1, [0, 0][:1], "orthant"), None),   # invalid: not dead
    (T6, FlipAbsorbed(0, 0, [1], [((4, 3), 1, (1,))], [-1], "orthant"), True),
    (T6, LinearBlock(0, [1], [((6, 8), 2, ("1/2",))], [0], "orthant"), True),
    (DEEP, FlipAbsorbed(1, 0, [1], [((4, 3), 1, (1,))], [-1]), "deep"),
]


@pytest.mark.parametrize("net, step, orthant", [v for v in VALID if v[2] is not None],
                         ids=lambda v: getattr(v, "name", None))
def test_valid_steps_preserve_the_function(net, step, orthant):
    ok, why = step.check(net)
    assert ok, why
    out = step.apply(net)
    assert same_function(net, out, orthant=orthant is True)
    out2 = roundtrip(step).apply(net)
    assert out2 == out
    inv = step.inverse(net)
    assert inv.apply(out) == net
    assert roundtrip(inv).apply(out) == net


def test_T6_flip_gives_the_reference_parameters():
    out = FlipAbsorbed(0, 0, [1], [((4, 3), 1, (1,))], [-1], "orthant").apply(T6)
    assert out == Network.from_rows([[[-1, 1], [4, 3]], [[1, 1]]], [[1, 1], [-1]])


@pytest.mark.parametrize("net, step, reason", [
    (NET, Permute(0, [0, 0, 1]), "not a permutation"),
    (NET, Scale(0, [1, 0, 1]), "not > 0"),
    (NET, Scale(0, [1, 1]), "factors"),
    (NET, Permute(1, [0, 1]), "does not exist"),
    (NET, Regroup(0, [([0], [1, 2], 1, [(1, [2, 0])])]), "kink vectors differ"),
    (NET, Regroup(0, [([0, 1], [1, 2], 1, [(1, [1, 0])])]), "not on the hyperplane"),
    (NET, Regroup(0, [([0], [1, 2], 1, [(-1, [1, 0])])]), "linear remainders differ"),
    (NET, RemoveNeuron(0, 0), "not dead"),
    (NET, InsertNeuron(0, 0, [1, 0], 0, [1, 0]), "not dead"),
    (T6, DeadNeuron(0, 0, [-1, -1], -1, [0]), "orthant hypothesis"),
    (T6, DeadNeuron(0, 0, [-1, -1], -1, [0], "orthant"), "not dead"),
    (Network.from_rows([[[-1, -1]], [[1]]], [[0], [0]]),
     DeadNeuron(0, 0, [1, -1], -1, [3], "orthant"), "new row is not dead"),
    (T6, LinearBlock(0, [1], [((6, 8), 2, ("1/2",))], [0]), "orthant hypothesis"),
    (T6, LinearBlock(0, [0], [((1, 1), 1, (1,))], [0], "orthant"), "not linear"),
    (T6, LinearBlock(0, [1], [((6, 8), 2, (1,))], [0], "orthant"), "linear parts differ"),
    (T6, FlipAbsorbed(0, 0, [1], [((3, 4), 1, (1,))], [0], "orthant"), "does not carry"),
    (T6, FlipAbsorbed(0, 0, [1], [((4, 3), 1, (1,))], [0], "orthant"), "bias_change"),
    (NET, LinearRefactor(0, [0], [], None), "do not form an affine map"),
])
def test_invalid_steps_refused_with_reason(net, step, reason):
    ok, why = step.check(net)
    assert not ok and reason in why, why
    with pytest.raises(InvalidStepError):
        step.apply(net)


def test_dead_neuron_and_removal_on_orthant():
    net = Network.from_rows([[[1, -1], [-1, -2]], [[1, 7]]], [[-1, -1], [0]])
    s = DeadNeuron(0, 1, [-5, "-1/3"], -2, [-100], "orthant")
    out = s.apply(net)
    assert same_function(net, out, orthant=True) and not same_function(net, out)
    r = RemoveNeuron(0, 1, "orthant")
    assert r.check(net)[0] and same_function(net, r.apply(net), orthant=True)
    assert not RemoveNeuron(0, 1).check(net)[0]
    assert r.inverse(net).apply(r.apply(net)) == net
    # at hidden layer 1 of a deep net the orthant hypothesis holds without a declaration
    deep = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-1, -2]], [[1, 7]]],
                             [[0, 0], [-1, -1], [0]])
    assert RemoveNeuron(1, 1).check(deep)[0]
    assert same_function(deep, RemoveNeuron(1, 1).apply(deep))


def test_composite_and_path_json():
    steps = [Scale(0, [2, 3, 4]), Permute(0, [1, 2, 0]), InsertNeuron(0, 0, [0, 0], 3, [1, 2])]
    out = apply_path(NET, steps)
    assert same_function(NET, out)
    again = path_from_json(path_to_json(steps))
    assert apply_path(NET, again) == out
    comp = Composite(steps)
    assert comp.apply(NET) == out
    assert comp.inverse(NET).apply(out) == NET
    assert roundtrip(comp).apply(NET) == out
    with pytest.raises(InvalidStepError, match="#1"):
        apply_path(NET, [Scale(0, [1, 1, 1]), Scale(0, [1, -1, 1])])


@pytest.mark.parametrize("bad", [
    {"step": "S1"}, {"step": "S1", "layer": 0, "perm": [0, "a"]}, {"step": "nope"}, [],
    {"step": "S2", "layer": 0, "factors": [0.5]}, {"step": "S2", "layer": True, "factors": [1]},
    {"step": "regroup", "layer": 0, "groups": 3}, {"step": "S3", "layer": 0, "neuron": 0,
                                                   "weight": [1], "bias": 1, "output": [1],
                                                   "domain": "sphere"},
])
def test_malformed_json_steps(bad):
    with pytest.raises(InputError):
        step_from_json(bad)


def _first_order_zero(net, g):
    """f(θ + t g) − f(θ) is O(t²) at sample points: D(2ε) = 4 D(ε) for the scalings and the
    linear-block directions (their curves are exactly quadratic or constant)."""
    eps = Q(1, 1000)
    p = net.parameters()
    f = lambda t: Network.from_parameters(net.widths, [a + t * b for a, b in zip(p, g)])  # noqa
    a1, a2 = f(eps), f(2 * eps)
    for x in points(net.n_inputs, k=8, orthant=True):
        d1 = [u - v for u, v in zip(a1(x), net(x))]
        d2 = [u - v for u, v in zip(a2(x), net(x))]
        assert d2 == [4 * u for u in d1]


def test_infinitesimal_generators():
    gens = Scale(0, [1, 1, 1]).generator(NET)
    assert len(gens) == 3
    for g in gens:
        _first_order_zero(NET, g)
    lin = Network.from_rows([[[1, 2], [3, 1]], [[1, -1]]], [[1, 2], [5]])     # T2 tail
    gens = LinearBlock(0, [0, 1], [], None, "orthant").generator(lin)
    assert len(gens) == 4
    for g in gens:
        _first_order_zero(lin, g)
    dead = Network.from_rows([[[1, -1], [-1, -2]], [[1, 7]]], [[-1, -1], [0]])
    gens = DeadNeuron(0, 1, [-1, -2], -1, [7], "orthant").generator(dead)
    assert len(gens) == 4


def test_affine_contribution():
    assert affine_contribution([((Q(1),), Q(0), (Q(1),)), ((Q(-1),), Q(0), (Q(-1),))]) == \
        (((Q(1),),), (Q(0),))
    assert affine_contribution([((Q(1),), Q(0), (Q(1),))]) is None
    assert affine_contribution([((Q(0),), Q(2), (Q(3),))]) == (((Q(0),),), (Q(6),))
    neurons, c = hidden_neurons(NET, 0)
    assert len(neurons) == 3 and c == (Q(0), Q(1, 2))
