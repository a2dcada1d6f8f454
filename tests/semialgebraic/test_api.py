"""The Python API as users call it — every ``to_json()`` is JSON-ready,
domains in every accepted spelling, degenerate architectures (no hidden layer, width 1, d = 1,
m > 1), and the exact values of the answers."""

import json

import pytest

from algebra.network import Network
from algebra.rationals import Q
import semialgebraic as S

ABS = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])                       # |x|
ABS2 = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])             # |x| again
LINEAR = Network.from_rows([[[1]]], [[0]])                                            # x, no hidden layer
LINEAR_SHALLOW = Network.from_rows([[[1], [-1]], [[1, -1]]], [[0, 0], [0]])          # relu(x) - relu(-x)
LINEAR_DEEP = Network.from_rows([[[1], [-1]], [[1, 0], [0, 1]], [[1, -1]]], [[0, 0], [0, 0], [0]])
BOTTLENECK = Network.from_rows([[[1, 2], [-1, 1]], [[1, -2], [-3, 1]], [[1, -1]]], [[1, -1], [1, 2], [5]])


@pytest.mark.parametrize("make", [
    lambda: S.identifiability(BOTTLENECK).to_json(),
    lambda: S.fiber(BOTTLENECK).to_json(),
    lambda: S.fiber(ABS).to_json(),
    lambda: S.fiber(ABS, domain="orthant").to_json(),
    lambda: S.functional_dimension(BOTTLENECK).to_json(),
    lambda: [r.to_json() for r in S.regions(BOTTLENECK)],
    lambda: S.equivalent(BOTTLENECK, BOTTLENECK).to_json(),
    lambda: S.equivalent(BOTTLENECK, BOTTLENECK, method="general").to_json(),
    lambda: S.canonical_form(ABS).to_json(),
    lambda: S.Polyhedron.box(2, -1, 1).to_json(),
])
def test_to_json_is_json_ready(make):
    data = make()
    assert json.loads(json.dumps(data)) == data


def test_deviation_to_json_is_json_ready():
    dev = S.max_deviation(ABS, LINEAR, (-1, 2))
    data = json.loads(json.dumps(dev.to_json()))
    # the keys and exact strings of `netfibers diff --json` (max_deviation = lower)
    assert (data["lower"], data["upper"], data["max_deviation"]) == ("2", "2", "2")
    assert data["point"] == [-1] and data["complete"] is True and data["method"] == "region walk"
    assert data["per_output"] == [{"lower": "2", "upper": "2"}]


def test_max_deviation_values():
    dev = S.max_deviation(ABS, LINEAR, (-1, 2))          # |x| - x = 2 at x = -1
    assert (dev.value, dev.point, dev.complete) == (2, (Q(-1),), True)
    dev = S.max_deviation(ABS, ABS2, (-3, 5))
    assert dev.value == 0 and dev.complete


@pytest.mark.parametrize("a, b", [(LINEAR, LINEAR_SHALLOW), (LINEAR_SHALLOW, LINEAR),
                                  (LINEAR, LINEAR_DEEP), (LINEAR_DEEP, LINEAR_SHALLOW)])
@pytest.mark.parametrize("method", ["auto", "general"])
@pytest.mark.parametrize("domain", [None, "orthant", (-1, 1), {"box": ["-1/2", "1/3"]}])
def test_depths_differ_equivalent(a, b, method, domain):
    v = S.equivalent(a, b, method=method, domain=domain)
    assert v.answer is True
    assert S.verify(json.loads(json.dumps(v.certificate)))[0] is True


@pytest.mark.parametrize("domain, expected", [(None, False), ("orthant", True), ((0, 5), True),
                                              ((-1, 0), False), (("-1/1000000", 0), False)])
def test_abs_vs_identity_on_domains(domain, expected):
    v = S.equivalent(ABS, LINEAR, domain=domain)
    assert v.answer is expected
    assert S.verify(json.loads(json.dumps(v.certificate)))[0] is True
    if not expected:
        x = [Q(t) for t in v.certificate["x"]]
        assert ABS(x) != LINEAR(x)


def test_polyhedron_and_r_d_are_domains_too():
    # (s48 API audit: a Polyhedron was refused by every function but regions, "R^d" by equivalent)
    cube, whole = S.equivalent(ABS, ABS2, domain=(-1, 1)), S.equivalent(ABS, ABS2)
    assert S.equivalent(ABS, ABS2, domain=S.Polyhedron.box(1, -1, 1)).answer is cube.answer
    assert S.equivalent(ABS, ABS2, domain="R^d").answer is whole.answer


@pytest.mark.parametrize("domain", ["orthants", (1, 0), (0.5, 1), {"box": [-1, 1], "x": 1},
                                    S.Polyhedron.box(2, -1, 1)])
def test_unsupported_domains_are_input_errors(domain):
    with pytest.raises((S.SemialgebraicError, ValueError, TypeError)):
        S.equivalent(ABS, ABS2, domain=domain)


def test_signature_mismatch_is_input_error():
    two_out = Network.from_rows([[[1]], [[1], [2]]], [[0], [0, 0]])
    with pytest.raises(ValueError):
        S.equivalent(ABS, two_out)


def test_m_greater_than_one_differs_in_one_output_only():
    a = Network.from_rows([[[1, 0], [0, 1]], [[1, 1], [1, -1]]], [[0, 0], [0, 0]])
    b = a.with_parameter("W2[1,1]", Q(-1) + Q(1, 10**12))
    for method in ("auto", "general"):
        v = S.equivalent(a, b, method=method)
        assert v.answer is False
        x = [Q(t) for t in v.certificate["x"]]
        assert a(x)[0] == b(x)[0] and a(x)[1] != b(x)[1]


def test_width_zero_hidden_layer_end_to_end():
    from algebra.exceptions import InputError
    from algebra.linalg import QMatrix
    try:
        pruned = Network([QMatrix.zeros(0, 2), QMatrix.zeros(1, 0)], [[], [1]])
    except InputError:
        return
    constant = Network.from_rows([[[0, 0]], [[0]]], [[0], [1]])
    v = S.equivalent(pruned, constant)
    assert v.answer is True and S.verify(json.loads(json.dumps(v.certificate)))[0]


def test_numpy_float_hint_is_a_number_string():
    """Bug (fixed in algebra/rationals.py): the hint for a numpy float said
    'pass "np.float64(0.5)"' (its repr) instead of 'pass "0.5"'."""
    np = pytest.importorskip("numpy")
    from algebra.exceptions import InexactInputError
    with pytest.raises(InexactInputError) as info:
        Network.from_rows([np.array([[0.5, 2.0]]), np.array([[3.0]])], [[0], [1]])
    assert 'pass "0.5"' in str(info.value)
    net = Network.from_rows([np.array([[1, 2]]), np.array([[3]])], [np.array([0]), [1]])
    assert net([1, 1]) == (Q(10),)                    # numpy integers are exact
