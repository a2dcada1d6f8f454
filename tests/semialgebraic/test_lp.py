"""Exact LP: points satisfy the system exactly, certificates re-check, verdicts agree with z3."""

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.exceptions import DimensionMismatchError
from algebra.linalg import QMatrix
from algebra.rationals import Q
from semialgebraic.lp import (LPResult, check_infeasibility_certificate, feasible, is_feasible,
                              optimize)

from tests.oracles.z3 import z3_feasible


def satisfies(point, A_eq, b_eq, A_lt, b_lt, A_le, b_le):
    """Plain-Python exact check of a point (independent of lp.py)."""
    def dot(r):
        return sum((Q(v) * p for v, p in zip(r, point)), Q(0))
    return (all(dot(r) == Q(b) for r, b in zip(A_eq, b_eq))
            and all(dot(r) < Q(b) for r, b in zip(A_lt, b_lt))
            and all(dot(r) <= Q(b) for r, b in zip(A_le, b_le)))


def motzkin_ok(cert, A_eq, b_eq, A_lt, b_lt, A_le, b_le, n):
    """Plain-Python re-check of the Motzkin conditions of lp.py's docstring."""
    y_eq, y_lt, y_le = cert["y_eq"], cert["y_lt"], cert["y_le"]
    if any(v < 0 for v in y_lt) or any(v < 0 for v in y_le):
        return False
    for j in range(n):
        s = sum((Q(r[j]) * y for r, y in zip(A_eq, y_eq)), Q(0))
        s += sum((Q(r[j]) * y for r, y in zip(A_lt, y_lt)), Q(0))
        s += sum((Q(r[j]) * y for r, y in zip(A_le, y_le)), Q(0))
        if s != 0:
            return False
    beta = (sum((Q(b) * y for b, y in zip(b_eq, y_eq)), Q(0))
            + sum((Q(b) * y for b, y in zip(b_lt, y_lt)), Q(0))
            + sum((Q(b) * y for b, y in zip(b_le, y_le)), Q(0)))
    return beta < 0 or (beta <= 0 and any(v > 0 for v in y_lt))


rationals = st.builds(lambda p, q: Q(p, q), st.integers(-4, 4), st.integers(1, 3))


@st.composite
def systems(draw, max_n=4, max_rows=5):
    n = draw(st.integers(0, max_n))
    blocks = []
    for cap in (2, max_rows, max_rows):
        m = draw(st.integers(0, cap))
        A = [[draw(rationals) for _ in range(n)] for _ in range(m)]
        b = [draw(rationals) for _ in range(m)]
        blocks += [A, b]
    return (*blocks, n)


@st.composite
def planted_infeasible(draw):
    """A random system plus a contradicting pair of rows (strict or not)."""
    A_eq, b_eq, A_lt, b_lt, A_le, b_le, n = draw(systems(max_n=3, max_rows=3))
    n = max(n, 1)
    fix = lambda A: [list(r) + [Q(0)] * (n - len(r)) for r in A]
    A_eq, A_lt, A_le = fix(A_eq), fix(A_lt), fix(A_le)
    row = [draw(rationals) for _ in range(n)]
    c = draw(rationals)
    kind = draw(st.sampled_from(["lt-lt", "lt-le", "le-le"]))
    if kind == "lt-lt":      # r x < c and -r x < -c
        A_lt, b_lt = A_lt + [row, [-v for v in row]], b_lt + [c, -c]
    elif kind == "lt-le":    # r x < c and -r x <= -c
        A_lt, b_lt = A_lt + [row], b_lt + [c]
        A_le, b_le = A_le + [[-v for v in row]], b_le + [-c]
    else:                    # r x <= c and -r x <= -c - 1
        A_le, b_le = A_le + [row, [-v for v in row]], b_le + [c, -c - 1]
    return A_eq, b_eq, A_lt, b_lt, A_le, b_le, n


def run_all(system, method):
    A_eq, b_eq, A_lt, b_lt, A_le, b_le, n = system
    r = feasible(A_eq, b_eq, A_lt, b_lt, A_le, b_le, n=n, method=method)
    assert r.check()
    if r.feasible:
        assert satisfies(r.point, *system[:6])
    else:
        assert motzkin_ok(r.certificate, *system)
    return r


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems())
def test_random_systems_agree_with_z3(system):
    expected = z3_feasible(*system)
    for method in ("auto", "exact"):
        assert run_all(system, method).feasible == expected


@settings(max_examples=40, deadline=None)
@given(planted_infeasible())
def test_planted_infeasible_systems_have_certificates(system):
    for method in ("auto", "exact"):
        r = run_all(system, method)
        assert not r.feasible


@settings(max_examples=40, deadline=None)
@given(systems(max_n=4, max_rows=6), st.lists(rationals, min_size=4, max_size=4))
def test_planted_feasible_systems_have_points(system, x0):
    """Shift every right-hand side so that x0 satisfies the system strictly."""
    A_eq, b_eq, A_lt, b_lt, A_le, b_le, n = system
    x0 = x0[:n]
    val = lambda r: sum((v * p for v, p in zip(r, x0)), Q(0))
    b_eq = [val(r) for r in A_eq]
    b_lt = [val(r) + Q(1, 100) for r in A_lt]
    b_le = [val(r) for r in A_le]
    for method in ("auto", "exact"):
        assert run_all((A_eq, b_eq, A_lt, b_lt, A_le, b_le, n), method).feasible


def test_both_verdicts_exercised_on_a_fixed_sample():
    rng = random.Random(7)
    seen = set()
    for _ in range(60):
        n = rng.randint(1, 3)
        R = lambda: Q(rng.randint(-3, 3), rng.randint(1, 2))
        A_lt = [[R() for _ in range(n)] for _ in range(rng.randint(1, 5))]
        b_lt = [R() for _ in A_lt]
        r = feasible(A_lt=A_lt, b_lt=b_lt)
        assert r.feasible == z3_feasible([], [], A_lt, b_lt, [], [], n)
        seen.add(r.feasible)
    assert seen == {True, False}


# -- named degenerate cases ---------------------------------------------------------------------
CASES = [
    # name, A_eq, b_eq, A_lt, b_lt, A_le, b_le, n, feasible
    ("x<0 and x>0", [], [], [[1], [-1]], [0, 0], [], [], 1, False),
    ("x<=0 and x>=0", [], [], [], [], [[1], [-1]], [0, 0], 1, True),
    ("x<0 and x>=0", [], [], [[1]], [0], [[-1]], [0], 1, False),
    ("0<0", [], [], [[0, 0]], [0], [], [], 2, False),
    ("0<=0", [], [], [], [], [[0, 0]], [0], 2, True),
    ("0<1", [], [], [[0, 0]], [1], [], [], 2, True),
    ("empty system", [], [], [], [], [], [], 3, True),
    ("no variables, 0=1", [[]], [1], [], [], [], [], 0, False),
    ("no variables, 0<1", [], [], [[]], [1], [], [], 0, True),
    ("inconsistent equalities", [[1, 1], [2, 2]], [1, 3], [], [], [], [], 2, False),
    ("duplicate rows", [], [], [[1, 1], [1, 1], [-1, -1]], [1, 1, 0], [], [], 2, True),
    ("segment open ends", [[1, 1]], [1], [[-1, 0], [0, -1]], [0, 0], [], [], 2, True),
    ("point equality vs strict", [[1, 0], [0, 1]], [0, 0], [[1, 1]], [0], [], [], 2, False),
    ("huge numbers", [], [], [[10**100, 1], [-10**100, -1]], [1, 10**-0], [], [], 2, True),
    ("thin slab", [], [], [[1], [-1]], [Q(1, 10**30), 0], [], [], 1, True),
    ("cube vertex", [], [], [], [], [[1, 0], [0, 1], [-1, -1]], [0, 0, 0], 2, True),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("method", ["auto", "exact"])
def test_named_cases(case, method):
    name, A_eq, b_eq, A_lt, b_lt, A_le, b_le, n, expected = case
    r = feasible(A_eq or None, b_eq or None, A_lt or None, b_lt or None, A_le or None,
                 b_le or None, n=n, method=method)
    assert r.feasible == expected, name
    assert r.check()
    if r.feasible:
        assert satisfies(r.point, A_eq, b_eq, A_lt, b_lt, A_le, b_le)
    else:
        assert motzkin_ok(r.certificate, A_eq, b_eq, A_lt, b_lt, A_le, b_le, n)
    assert r.feasible == z3_feasible(A_eq, b_eq, A_lt, b_lt, A_le, b_le, n)


def test_point_is_strictly_inside_and_centred():
    r = feasible(A_lt=[[1, 0], [-1, 0], [0, 1], [0, -1]], b_lt=[1, 1, 1, 1])
    assert r.point == (0, 0)
    r = feasible(A_lt=QMatrix.from_rows([[1], [-1]]), b_lt=[Q(1, 10**20), 0])
    assert 0 < r.point[0] < Q(1, 10**20)


def test_tampered_certificates_are_rejected():
    r = feasible(A_lt=[[1], [-1]], b_lt=[0, 0])
    S = r.system
    assert check_infeasibility_certificate(S, r.certificate)
    bad = dict(r.certificate, y_lt=[Q(1), Q(0)])
    assert not check_infeasibility_certificate(S, bad)
    bad = dict(r.certificate, y_lt=[Q(-1), Q(-1)])
    assert not check_infeasibility_certificate(S, bad)
    assert not check_infeasibility_certificate(S, {"y_eq": []})
    forged = LPResult(True, (Q(0),), None, "forged", S)
    assert not forged.check()


def test_lp_exceptions():
    with pytest.raises(DimensionMismatchError):
        feasible(A_lt=[[1, 2]], b_lt=[1, 2])
    with pytest.raises(DimensionMismatchError):
        feasible(A_lt=[[1, 2]], b_lt=[1], A_le=[[1]], b_le=[0])
    with pytest.raises(DimensionMismatchError):
        feasible()
    with pytest.raises(ValueError):
        feasible(n=1, method="simplex")
    with pytest.raises(TypeError):
        feasible(A_lt=[[0.5]], b_lt=[1])


def test_is_feasible():
    assert is_feasible(A_le=[[1]], b_le=[0])
    assert not is_feasible(A_eq=[[0]], b_eq=[1])


# -- optimisation -------------------------------------------------------------------------------
def brute_force_max(c, A_le, b_le, n):
    """Max over vertices of a bounded 2-D polytope (all pairs of tight rows)."""
    best = None
    for i, j in itertools.combinations(range(len(A_le)), 2):
        M = QMatrix.from_rows([A_le[i], A_le[j]])
        if M.rank() < n:
            continue
        x = M.solve(QMatrix.column([b_le[i], b_le[j]])).col_at(0)
        if satisfies(x, [], [], [], [], A_le, b_le):
            v = sum((Q(a) * b for a, b in zip(c, x)), Q(0))
            best = v if best is None or v > best else best
    return best


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(rationals, min_size=2, max_size=2), min_size=0, max_size=4),
       st.lists(rationals, min_size=2, max_size=2))
def test_optimize_matches_vertex_enumeration(extra_rows, c):
    box = [[1, 0], [-1, 0], [0, 1], [0, -1]]
    A_le = box + extra_rows
    b_le = [2, 2, 2, 2] + [Q(1)] * len(extra_rows)
    o = optimize(c, A_le=A_le, b_le=b_le)
    assert o.check()
    expected = brute_force_max(c, A_le, b_le, 2)
    if expected is None:
        assert o.status == "infeasible"
    else:
        assert o.status == "optimal" and o.value == expected
        mo = optimize(c, maximize=False, A_le=A_le, b_le=b_le)
        assert mo.check() and mo.value == -brute_force_max([-v for v in c], A_le, b_le, 2)


def test_optimize_statuses():
    o = optimize([1, 1], A_eq=[[1, -1]], b_eq=[0], A_le=[[1, 0]], b_le=[3])
    assert (o.status, o.value, o.point) == ("optimal", 6, (3, 3)) and o.check()
    o = optimize([1, 0], A_le=[[-1, 0]], b_le=[0])
    assert o.status == "unbounded" and o.check()
    o = optimize([1], A_lt=[[1], [-1]], b_lt=[0, 0])
    assert o.status == "infeasible" and o.check()
    o = optimize([1], maximize=False, A_lt=[[1]], b_lt=[5])
    assert o.status == "unbounded" and o.check()
    o = optimize([1], A_lt=[[1], [-1]], b_lt=[5, 0])
    assert (o.status, o.value, o.attained) == ("optimal", 5, False) and o.check()
    o = optimize([], n=0)
    assert o.status == "optimal" and o.value == 0
