"""Activation registry: the exact properties used by skip absorption (skip-absorption R5, R6,
R9, R18, §9 pitfalls 1 and 9)."""

import pytest

from algebra.activations import get_activation, supported_activations
from algebra.exceptions import InputError
from algebra.rationals import to_q


@pytest.mark.parametrize("name,p", [("relu", 1), ("relu2", 2), ("relu^2", 2), ("relu^5", 5),
                                    ("reglu", 2), ("bilinear", 2), ("gelu", None), ("silu", None),
                                    ("swiglu", None), ("tanh", None)])
def test_homogeneity_degree(name, p):
    assert get_activation(name).homogeneity == p


@pytest.mark.parametrize("name,odd", [("relu", True), ("gelu", True), ("silu", True),
                                      ("gelu_tanh", True), ("tanh", False), ("relu2", False),
                                      ("sigmoid", False), ("swiglu", False)])
def test_odd_identity(name, odd):
    # sigma(z) - sigma(-z) = z: the flip certificate R9
    assert get_activation(name).is_odd_identity is odd


def test_gates():
    assert get_activation("swiglu").is_gate_flat and get_activation("geglu").is_gate_flat
    assert get_activation("reglu").is_gate_flat and get_activation("bilinear").is_gate_flat
    glu = get_activation("glu")
    assert glu.is_gated and not glu.is_gate_flat          # sigmoid gate: g(0) = 1/2, not covered
    assert not get_activation("relu").is_gated


def test_bounded_and_rational():
    assert get_activation("tanh").is_bounded and get_activation("sigmoid").is_bounded
    assert not get_activation("relu").is_bounded and not get_activation("gelu").is_bounded
    for name in ("relu", "relu^3", "reglu", "bilinear"):
        assert get_activation(name).is_rational
    for name in ("gelu", "silu", "gelu_tanh", "tanh", "sigmoid", "swiglu", "geglu", "glu"):
        assert not get_activation(name).is_rational
        with pytest.raises(InputError, match="cannot be evaluated exactly"):
            get_activation(name).evaluate(1)


def test_exact_values():
    assert get_activation("relu").evaluate(to_q("-1/3")) == 0
    assert get_activation("relu").evaluate(to_q("2/3")) == to_q("2/3")
    assert get_activation("relu^3").evaluate(to_q("-2")) == 0
    assert get_activation("relu^3").evaluate(to_q("1/2")) == to_q("1/8")
    assert get_activation("bilinear").evaluate(-5) == -5
    assert get_activation("reglu").evaluate(-5) == 0


def test_theorem_scope():
    assert [n for n in ("relu", "gelu", "silu", "relu2") if get_activation(n).is_theorem_8_10] == ["relu", "gelu"]


def test_unknown_lists_supported():
    with pytest.raises(InputError) as exc:
        get_activation("softplus")
    msg = str(exc.value)
    assert "softplus" in msg
    for name in ("relu", "gelu", "swiglu", "glu", "relu^p"):
        assert name in msg
    assert "relu^p" in supported_activations()
    with pytest.raises(InputError, match="2 <= p <= 64"):
        get_activation("relu^0")
    assert get_activation(" ReLU ").name == "relu" and get_activation("relu^1").name == "relu"
