"""Network evaluation against an independent ``fractions.Fraction`` implementation, on random
rational networks (hypothesis), including huge and non-dyadic entries."""

import pickle
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from algebra.exceptions import DimensionMismatchError, InputError
from algebra.linalg import QMatrix
from algebra.network import Network

FAST = settings(max_examples=60, deadline=None)


def frac(q):
    return Fraction(int(q.p), int(q.q))


def fraction_forward(weights, biases, x):
    """Independent reference: lists of Fractions, ReLU between layers, not after the last."""
    pre = []
    h = list(x)
    for l, (W, b) in enumerate(zip(weights, biases)):
        z = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + bi for row, bi in zip(W, b)]
        pre.append(z)
        h = [max(v, Fraction(0)) for v in z] if l < len(weights) - 1 else z
    return pre


ENTRY = st.one_of(
    st.integers(-5, 5),
    st.fractions(-4, 4, max_denominator=12),
    st.sampled_from([Fraction(10 ** 100), Fraction(-1, 10 ** 100), Fraction(7, 2 ** 60), Fraction(0)]),
)


@st.composite
def networks(draw, max_width=4, max_depth=4):
    widths = draw(st.lists(st.integers(1, max_width), min_size=2, max_size=max_depth + 1))
    Ws, bs = [], []
    for a, b in zip(widths, widths[1:]):
        Ws.append([[Fraction(draw(ENTRY)) for _ in range(a)] for _ in range(b)])
        bs.append([Fraction(draw(ENTRY)) for _ in range(b)])
    return widths, Ws, bs


@FAST
@given(networks(), st.data())
def test_evaluation_matches_fraction_reference(data, more):
    widths, Ws, bs = data
    net = Network(Ws, bs)
    assert net.widths == tuple(widths)
    xs = [[Fraction(more.draw(ENTRY)) for _ in range(widths[0])] for _ in range(more.draw(st.integers(1, 4)))]
    for x in xs:
        pre = fraction_forward(Ws, bs, x)
        assert [frac(v) for v in net(x)] == pre[-1]
        assert [[frac(v) for v in layer] for layer in net.preactivations(x)] == pre
        pattern = tuple((v > 0) - (v < 0) for layer in pre[:-1] for v in layer)
        assert net.activation_pattern(x) == pattern
        J, c = net.affine_map(pattern)  # the region's affine piece reproduces the output
        assert [frac(a) + frac(b) for a, b in zip(J.apply(x), c)] == pre[-1]
    for method in ("auto", "flint", "limbs"):
        Y = net.evaluate_batch(xs, method=method)
        assert [[frac(v) for v in r] for r in Y.to_rows()] == [fraction_forward(Ws, bs, x)[-1] for x in xs]


@FAST
@given(networks())
def test_parameters_roundtrip_and_names(data):
    widths, Ws, bs = data
    net = Network(Ws, bs)
    params = net.parameters()
    flat = []
    for W, b in zip(Ws, bs):
        flat += [x for r in W for x in r] + b
    assert [frac(p) for p in params] == flat
    assert net.n_parameters == len(flat) == len(net.parameter_names())
    assert Network.from_parameters(net.widths, params) == net
    assert pickle.loads(pickle.dumps(net)) == net
    assert hash(Network(Ws, bs)) == hash(net)
    names = net.parameter_names()
    assert names[0] == "W1[0,0]" and names[widths[1] * widths[0]] == "b1[0]"
    assert len(set(names)) == len(names)


def test_evaluate_batch_on_a_wide_network_uses_limbs_and_agrees():
    import random
    rng = random.Random(3)
    d, h = 40, 40
    Ws = [[[Fraction(rng.randint(-2 ** 23, 2 ** 23), 2 ** rng.randint(20, 40)) for _ in range(d)] for _ in range(h)],
          [[Fraction(rng.randint(-2 ** 23, 2 ** 23), 2 ** 30) for _ in range(h)] for _ in range(h)],
          [[Fraction(rng.randint(-9, 9), 5) for _ in range(h)] for _ in range(3)]]
    bs = [[Fraction(rng.randint(-99, 99), 2 ** 10) for _ in range(h)], [Fraction(1, 3)] * h, [0, 1, 2]]
    net = Network(Ws, bs)
    X = [[Fraction(rng.randint(-2 ** 24, 2 ** 24), 2 ** 24) for _ in range(d)] for _ in range(64)]
    expected = [fraction_forward(Ws, bs, x)[-1] for x in X]
    for method in ("auto", "limbs", "flint"):
        Y = net.evaluate_batch(QMatrix.from_rows(X), method=method)
        assert [[frac(v) for v in r] for r in Y.to_rows()] == expected


def test_known_values():
    net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])  # relu(x) + relu(1 - x)
    assert net([3]) == (3,) and frac(net(["-1/2"])[0]) == Fraction(3, 2) and net(["1/2"]) == (1,)
    assert net.activation_pattern([1]) == (1, 0)
    assert net.hidden_widths == (2,) and net.depth == 2 and net.signature == (1, 1)
    assert net.evaluate_batch([]).shape == (0, 1)
    assert repr(net) == "Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])"
    assert net.to_dict()["layers"][0] == {"weight": [[1], [-1]], "bias": [0, 1]}


def test_network_errors():
    with pytest.raises(InputError, match="at least one layer"):
        Network([], [])
    with pytest.raises(InputError, match="W1 has 2 rows but b1 has 1"):
        Network([[[1], [2]]], [[0]])
    with pytest.raises(InputError, match="W2 has 3 columns"):
        Network([[[1], [2]], [[1, 1, 1]]], [[0, 0], [0]])
    with pytest.raises(InputError, match="2 weight matrices but 1 bias"):
        Network([[[1]], [[1]]], [[0]])
    net = Network([[[1, 2]]], [[0]])
    with pytest.raises(DimensionMismatchError):
        net([1])
    with pytest.raises(DimensionMismatchError):
        net.evaluate_batch([[1, 2, 3]])
    with pytest.raises(DimensionMismatchError):
        net.affine_map([1])
    with pytest.raises(TypeError):
        net([0.5, 1])  # floats are refused
