"""The Python API as a notebook user meets it (session 39 API audit): in-memory mistakes are
InputErrors naming the problem, not raw TypeError/ValueError/AttributeError; a (0, d) numpy
weight keeps its d columns and a network of 0 inputs is refused (as the readers refuse it);
``diff_bounds`` takes the domain spellings ``equivalent`` takes; a fiber's ``contains`` answers
False for a network of other widths (one hidden layer and bottleneck alike) and takes a
parameter vector; ``from_float`` refuses strings (``"0.1"`` is 1/10 everywhere else) and
bools; one hint for numpy floats; ``identifiability(timeout=)``."""

from __future__ import annotations

import numpy as np
import pytest

import netfibers as nf
from algebra.exceptions import InexactInputError, InputError, ParseError
from algebra.kernel.domains import Domain

A = nf.Network.from_rows([[[1, 2], [-1, 1]], [[1, 1]]], [[0, 1], [0]])
B = nf.Network.from_rows([[[1, 2], [-1, 1]], [[1, 2]]], [[0, 1], [0]])


def test_empty_numpy_layer_keeps_its_columns_and_zero_inputs_are_refused():
    z = nf.Network([np.zeros((0, 2), dtype=int), np.zeros((1, 0), dtype=int)], [[], [5]])
    assert z.widths == (2, 0, 1) and z([1, 2]) == (5,)
    with pytest.raises(InputError, match="at least one input"):
        nf.Network([np.zeros((2, 0), dtype=int), [[1, 1]]], [[1, -1], [0]])


@pytest.mark.parametrize("weights, match", [
    ([np.array([1, 2]), [[1]]], r"W1 must be 2-D \(out, in\), got shape \(2,\)"),
    ([5, [[1]]], "W1 must be a matrix"),
    ([np.zeros((2, 2, 2), dtype=int), [[1, 1]]], r"got shape \(2, 2, 2\)"),
])
def test_malformed_in_memory_weights_are_input_errors(weights, match):
    with pytest.raises(InputError, match=match):
        nf.Network(weights, [[0] * (len(weights[0]) if hasattr(weights[0], "__len__") else 1), [0]])


def test_with_parameter_names_a_bad_key():
    assert A.with_parameter("W1[0,1]", 5).parameters()[1] == 5
    with pytest.raises(InputError, match="no parameter named 'W9"):
        A.with_parameter("W9[0,1]", 1)
    with pytest.raises(InputError, match="out of range"):
        A.with_parameter(99, 1)


def test_diff_bounds_takes_the_domain_spellings_of_equivalent():
    whole = nf.diff_bounds(A, B, Domain.whole(2), timeout=30)
    orth = nf.diff_bounds(A, B, Domain.orthant(2), timeout=30)
    for spelling, ref in ((None, whole), ("orthant", orth), ({"orthant": True}, orth)):
        r = nf.diff_bounds(A, B, spelling, timeout=30)
        assert (r.lower, r.upper, r.unbounded) == (ref.lower, ref.upper, ref.unbounded)
    cube = nf.diff_bounds(A, B, (-1, 1), timeout=30)
    assert (cube.lower, cube.upper) == (3, 3)
    for spelling in ({"box": [-1, 1]}, np.array([-1, 1]), [(-1, 1), (-1, 1)]):
        r = nf.diff_bounds(A, B, spelling, timeout=30)
        assert (r.lower, r.upper) == (3, 3)
    with pytest.raises(InputError, match="unknown domain 'ball'"):
        nf.diff_bounds(A, B, "ball")


def test_fiber_contains_other_widths_false_and_parameter_vectors():
    a = nf.load("algebra/examples/t5_perm_scale_a.json")              # a 2-2-2-1 bottleneck
    wider = nf.Network.from_rows([[[1, 2], [-1, 1]], [[1, -2], [-3, 1], [-1, -1]], [[1, -1, 7]]],
                                 [[1, -1], [1, 2, -1], [5]])
    F = nf.fiber(a)
    assert F.contains(wider) is False and F.contains(a) is True
    assert F.contains(a.parameters()) is True
    s = nf.Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    s2 = nf.Network.from_rows([[[1], [-1], [0]], [[1, 1, 5]]], [[0, 1, -1], [0]])
    assert nf.fiber(s).contains(s2) is False and nf.fiber(s).contains(list(s.parameters())) is True
    with pytest.raises(InputError):
        nf.fiber(s).contains("θ")


def test_from_float_refuses_text_and_bools_and_numpy_floats_get_one_hint():
    assert nf.from_float(np.float32(0.1)) == nf.Q(13421773, 134217728)
    for v in ("0.1", b"0.5", True):
        with pytest.raises(ParseError, match="not a floating-point value"):
            nf.from_float(v)
    for v in (np.float64(0.1), np.float32(0.1), np.float16(0.5)):
        with pytest.raises(InexactInputError, match="from_float"):
            nf.to_q(v)
    with pytest.raises(InexactInputError, match=r'pass "0.1" or Fraction\(1, 10\) for the decimal'):
        nf.to_q(0.1)


def test_equivalent_and_identifiability_arguments():
    with pytest.raises(InputError, match="b must be a Network, got str"):
        nf.equivalent(A, "b.json")
    with pytest.raises(InputError, match="timeout must be a number"):
        nf.equivalent(A, A, timeout="5")
    with pytest.raises(InputError, match="takes a Network, got Block"):
        nf.identifiability(nf.load("algebra/examples/block_B.json"))
    assert nf.identifiability(A, timeout=30).answer is True


def test_fiber_repr_is_readable():
    assert repr(nf.fiber(nf.load("algebra/examples/t5_perm_scale_a.json"))) == (
        "<BottleneckFiber of a 2-2-2-1 network on R^d: dimension 4, components 4, orbits 1>")
    s = nf.Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    assert repr(nf.fiber(s)).startswith("<ShallowFiber of a 1-2-1 network on R^d: dimension 2")
    assert "on the closed orthant" in repr(nf.fiber(s, domain="orthant"))


def test_fiber_takes_a_timeout():
    s = nf.Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    assert nf.fiber(s, timeout=60).dimension.value == nf.fiber(s).dimension.value
    with pytest.raises(nf.BudgetExceededError, match="timeout of 0 s"):
        nf.fiber(s, timeout=0)


def test_a_flat_list_is_not_a_weight_matrix():
    for w in ([1, 2], ["12"], [np.int64(3)]):
        with pytest.raises(InputError, match="W1 must be a matrix"):
            nf.Network([w, [[1]]], [[0], [0]])
    for w in ([[1, 2]], [np.array([1, 2])], [(1, 2)]):
        assert nf.Network([w, [[1]]], [[0], [0]]).widths == (2, 1, 1)
