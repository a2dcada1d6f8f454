"""Polyhedra: constructors, exact membership, interior points, JSON round trip."""

import pytest

from algebra.exceptions import DimensionMismatchError, InputError
from algebra.rationals import Q
from semialgebraic.sets import Polyhedron


def test_box():
    P = Polyhedron.box(3, -1, "1/2")
    assert P.dim_ambient == 3 and P.number_of_inequalities == 6
    assert P.contains([-1, "1/2", 0]) and not P.contains([-1, Q(3, 5), 0])
    x = P.interior_point()
    assert P.contains_interior(x)


def test_orthant_and_whole():
    O = Polyhedron.orthant(2)
    assert O.contains([0, 0]) and not O.contains_interior([0, 1]) and not O.contains([-1, 0])
    assert all(v > 0 for v in O.interior_point())
    W = Polyhedron.whole(4)
    assert W.number_of_inequalities == 0 and W.contains([1, 2, 3, 4])
    assert len(W.interior_point()) == 4


def test_lower_dimensional_and_empty():
    seg = Polyhedron([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 1, 1])   # x = 0, |y| <= 1
    assert seg.interior_point() is None and not seg.is_empty()
    lp = seg.interior_lp()
    assert not lp.feasible and lp.check()
    empty = Polyhedron([[1], [-1]], [0, -1])
    assert empty.is_empty() and empty.interior_point() is None


def test_inequalities_and_intersection():
    P = Polyhedron.box(1, 0, 2).intersect(Polyhedron([[1]], [1]))
    assert P.inequalities() == [((-1,), 2), ((1,), 0), ((-1,), 1)]
    assert P.interior_point() == (Q(1, 2),)


def test_json_round_trip():
    P = Polyhedron([[1, "1/3"], [0, -1]], ["2/7", 0])
    data = P.to_json()
    assert data == {"type": "polyhedron", "d": 2, "A": [[1, "1/3"], [0, -1]], "b": ["2/7", 0]}
    assert Polyhedron.from_json(data) == P
    W = Polyhedron.whole(2)
    assert Polyhedron.from_json(W.to_json()) == W


def test_polyhedron_exceptions():
    with pytest.raises(InputError):
        Polyhedron.box(2, 1, 0)
    with pytest.raises(DimensionMismatchError):
        Polyhedron([[1, 2]], [1, 2])
    with pytest.raises(DimensionMismatchError):
        Polyhedron.box(2, 0, 1).contains([0])
    with pytest.raises(InputError):
        Polyhedron.from_json({"A": []})
    with pytest.raises(TypeError):
        Polyhedron([[0.5]], [1])
