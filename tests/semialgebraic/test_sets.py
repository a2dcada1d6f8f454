"""Semi-algebraic sets: membership, dimension (exact or labelled bounds), printing, JSON."""

import json
import random

import pytest

from algebra.exceptions import DimensionMismatchError, IncompatibleRingError, InputError
from algebra.polynomials import Ring
from algebra.rationals import Q
from semialgebraic.sets import BasicSet, Dimension, SemialgebraicSet, random_batch


@pytest.fixture
def R2():
    return Ring.get(("x", "y"))


@pytest.fixture
def R3():
    return Ring.get(("x", "y", "z"))


def test_circle_and_half_plane(R2):
    x, y = R2.gens()
    S = BasicSet(R2, equalities=[x**2 + y**2 - 1], positive=[y])
    assert S.contains({"x": 0, "y": 1}) and S.contains(["3/5", "4/5"])
    assert not S.contains([Q(3, 5), Q(-4, 5)])          # on the circle, wrong half
    assert not S.contains([1, 0])                         # y > 0 fails on the boundary
    assert not S.contains([0, Q(1, 2)])                   # inside the disc, not on the circle
    d = S.local_dimension(["3/5", "4/5"])
    assert d.exact and d.value == 1
    D = S.dimension()
    assert D.exact and D.value == 1 and "regular point" in D.reason
    assert S.contains(S.sample())


def test_cone_apex_is_labelled_a_bound(R3):
    x, y, z = R3.gens()
    cone = BasicSet(R3, equalities=[x**2 + y**2 - z**2])
    apex = cone.local_dimension([0, 0, 0])
    assert not apex.exact and apex.lower == 0 and apex.upper == 2
    assert "singular" in apex.reason
    side = cone.local_dimension([3, 4, 5])
    assert side.exact and side.value == 2
    assert cone.dimension() == Dimension.of(2, cone.dimension().reason) and cone.dimension().exact
    upper_nappe = cone.intersect(BasicSet(R3, nonnegative=[z]))
    assert upper_nappe.contains([0, 0, 0]) and not upper_nappe.contains([3, 4, -5])
    assert upper_nappe.dimension().value == 2


def test_union_of_a_line_and_a_plane(R3):
    x, y, z = R3.gens()
    line = BasicSet(R3, equalities=[x, y])
    plane = BasicSet(R3, equalities=[z])
    U = SemialgebraicSet([line, plane])
    assert U.number_of_components == 2
    assert U.contains([0, 0, 7]) and U.contains([1, 2, 0]) and not U.contains([1, 0, 1])
    assert U.dimension().value == 2 and U.dimension().exact
    assert U.local_dimension([0, 0, 7]).value == 1
    assert U.local_dimension([0, 0, 0]).value == 2
    assert U.local_dimension([5, 5, 0]).value == 2
    with pytest.raises(InputError):
        U.local_dimension([1, 1, 1])


def test_union_closure_widens_the_local_bound(R2):
    x, y = R2.gens()
    line = BasicSet(R2, equalities=[y])
    open_half = BasicSet(R2, positive=[y])
    U = SemialgebraicSet([line, open_half])
    d = U.local_dimension([0, 0])          # the open half-plane reaches the point
    assert not d.exact and d.lower == 1 and d.upper == 2


def test_open_and_empty_sets(R2):
    x, y = R2.gens()
    assert BasicSet(R2, positive=[x, y]).dimension().value == 2
    assert BasicSet(R2, positive=[x, -x]).dimension().value == -1
    assert BasicSet(R2, equalities=[x, x - 1]).dimension().value == -1
    assert BasicSet(R2, equalities=[x**2 + 1]).dimension().value == -1 or \
        BasicSet(R2, equalities=[x**2 + 1]).dimension().upper <= 1
    assert BasicSet(R2, equalities=[x * y - 1, x - y]).dimension().value == 0
    pt = BasicSet(R2, equalities=[x**2 + y**2]).dimension()   # a single real point
    assert pt.lower == 0 and pt.upper == 1 and not pt.exact
    nz = BasicSet(R2, nonzero=[x - y])
    assert nz.dimension().value == 2 and nz.contains(nz.sample())
    assert BasicSet(R2).dimension().value == 2
    corner = BasicSet(R2, nonnegative=[x, y, -x - y])   # the point (0, 0)
    assert corner.dimension().value in (0, None) and corner.dimension().upper == 2


def test_subs_and_intersect(R3):
    x, y, z = R3.gens()
    cone = BasicSet(R3, equalities=[x**2 + y**2 - z**2])
    circle = cone.subs({"z": 1})
    assert circle.ring.names == ("x", "y")
    assert circle.contains([0, 1]) and not circle.contains([1, 1])
    assert circle.dimension().value == 1
    both = cone.intersect(BasicSet(R3, positive=[x]))
    assert both.contains([3, 4, 5]) and not both.contains([-3, 4, 5])
    with pytest.raises(IncompatibleRingError):
        cone.intersect(BasicSet(Ring.get(("x", "y")), positive=["x"]))


def test_known_points_are_used_and_checked(R2):
    x, y = R2.gens()
    curve = BasicSet(R2, equalities=[x**3 - 2 * y**3 - 11], points=[[3, 2], [0, 0]])
    assert curve.sample() == (3, 2)
    assert curve.dimension().value == 1


def test_printing_latex_json_sympy_round_trips(R2):
    x, y = R2.gens()
    S = BasicSet(R2, equalities=[x**2 + y**2 - 1], positive=[y], nonnegative=[x + Q(1, 2)],
                 nonzero=[x - y])
    assert str(S) == "{x^2 + y^2 - 1 = 0, y > 0, x + 1/2 >= 0, x - y != 0}"
    tex = S.to_latex()
    assert tex.startswith(r"\left\{") and r"\geq" in tex and r"\neq" in tex and "{x}^{2}" in tex
    assert S._repr_latex_() == f"${tex}$"
    data = json.loads(json.dumps(S.to_json()))
    assert BasicSet.from_json(data) == S
    U = SemialgebraicSet([S, BasicSet(R2, equalities=[x])])
    assert SemialgebraicSet.from_json(json.loads(json.dumps(U.to_json()))) == U
    assert r"\cup" in U.to_latex() and " ∪ " in str(U)
    import sympy
    e = S.to_sympy()
    sx, sy = sympy.symbols("x y")
    assert e.subs({sx: sympy.Rational(3, 5), sy: sympy.Rational(4, 5)}) == sympy.true
    assert e.subs({sx: 1, sy: 0}) == sympy.false


def test_parameter_names_in_json():
    R = Ring.get(("W1[0,0]", "W1[0,1]", "b1[0]"))
    w, v, b = R.gens()
    S = BasicSet(R, equalities=[w * v - b], positive=[w])
    assert BasicSet.from_json(S.to_json()) == S
    assert "W^{(1)}_{0,0}" in S.to_latex()


def test_sets_exceptions(R2):
    x, y = R2.gens()
    S = BasicSet(R2, positive=[x])
    with pytest.raises(DimensionMismatchError):
        S.contains([1])
    with pytest.raises(InputError):
        S.contains({"x": 1})
    with pytest.raises(InputError):
        S.local_dimension([-1, 0])
    with pytest.raises(InputError):
        BasicSet.from_json({"type": "polyhedron"})
    with pytest.raises(InputError):
        BasicSet("not a ring")
    with pytest.raises(ValueError):
        Dimension.between(3, 1)


# -- random_batch: random exact points strictly inside the domain ------------------------------
@pytest.mark.parametrize("dom", [None, "orthant", (Q(-1, 3), Q(5, 2)), (Q(2), Q(2))])
def test_random_batch_points_lie_in_the_domain(dom):
    X = random_batch(random.Random(1), 50, 3, dom)
    assert X.shape == (50, 3)
    for row in X.to_rows():
        if dom == "orthant":
            assert all(v > 0 for v in row)
        elif isinstance(dom, tuple):
            assert all(dom[0] <= v <= dom[1] for v in row)
            if dom[0] < dom[1]:
                assert all(dom[0] < v < dom[1] for v in row)
