"""The float convex hull of the region walk (:mod:`semialgebraic.regions.hull`) changes nothing
but speed.

Oracles: the walk with the hull switched off (the previous walk: feet, warm HiGHS guesses,
exact facet LPs), plain ``Fraction`` arithmetic for every facet point and closure identity the
hull pass claims, and the exact count of cells of a line arrangement (one hidden layer in R^2:
``1 + L + Σ_p (m_p - 1)`` over the intersection points p of the L distinct lines, m_p lines
through p) on planted degenerate rows: duplicate rows, zero rows, parallel hyperplanes, several
lines through one point, a neuron dead on the box, lines through a vertex of the box.  A hull
that guesses wrong (garbage points and bases) must not change the walk either.
"""

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic import Polyhedron, regions
from semialgebraic.regions import hull as hull_module
from semialgebraic.regions import walk as walk_module
from semialgebraic.regions.hull import have_hull, hull_pass
from semialgebraic.regions.integer import ClassInts
from tests.cases.general import hostile_net

pytestmark = pytest.mark.skipif(not have_hull(), reason="scipy (Qhull) not installed")


def _structure(rs):
    return [(r.pattern, r.facets, r.facet_classes, r.neighbours) for r in rs]


def _walk(net, domain=None, multipliers=False):
    return list(regions(net, domain=domain, progress=False, multipliers=multipliers))


def _without_hull(net, domain=None, multipliers=False, monkeypatch=None):
    with monkeypatch.context() as m:
        m.setattr(walk_module, "hull_pass", lambda *a: False)
        return _walk(net, domain, multipliers)


def _counting(monkeypatch):
    """Count the hull passes that ran (so that a test cannot pass vacuously)."""
    calls = {"ran": 0}

    def counted(*a):
        ok = hull_pass(*a)
        calls["ran"] += bool(ok)
        return ok
    monkeypatch.setattr(walk_module, "hull_pass", counted)
    return calls


def _frac(v):
    return Fraction(int(v.p), int(v.q))


def _ell(key, y):
    return sum((Fraction(k) * _frac(v) for k, v in zip(key, y)), Fraction(0)) + key[-1]


def _check_claims(keys, point, witnesses, certified, scales):
    """Every claim of a hull pass, re-checked with Fractions."""
    for t, y in witnesses.items():
        assert _ell(keys[t], y) == 0
        assert all(_ell(k, y) > 0 for u, k in enumerate(keys) if u != t)
    for u, (support, lam, lam0) in certified.items():
        assert lam0 is not None and lam0 > 0 and all(v >= 0 for v in lam)
        # ℓ_u = Σ λ_f ℓ_f + λ_0 in the classes' own rows: K_t = s_t (a_t, c_t)
        for col in range(len(keys[u])):
            lhs = Fraction(keys[u][col]) / _frac(scales[u])
            rhs = sum((_frac(v) * Fraction(keys[f][col]) / _frac(scales[f])
                       for f, v in zip(support, lam)), Fraction(0))
            rhs += _frac(lam0) if col == len(keys[u]) - 1 else 0
            assert lhs == rhs
        assert u not in witnesses
    assert all(_ell(k, point) > 0 for k in keys)


def test_hull_pass_on_a_square_with_redundant_rows():
    # 0 < x < 2, 0 < y < 2, x + y < 5 (redundant), x - y < 3 (redundant)
    keys = [(1, 0, 0), (0, 1, 0), (-1, 0, 2), (0, -1, 2), (-1, -1, 5), (-1, 1, 3)]
    C = ClassInts(keys)
    wit, cert = {}, {}
    scales = [Q(1)] * len(keys)
    assert hull_pass((Q(1, 3), Q(1, 2)), C, scales, wit, cert, True)
    assert sorted(wit) == [0, 1, 2, 3] and sorted(cert) == [4, 5]
    _check_claims(keys, (Q(1, 3), Q(1, 2)), wit, cert, scales)


def test_hull_pass_leaves_a_row_through_a_vertex_undecided():
    # x + y > 0 touches the square [0, 2]^2 at its vertex (0, 0): neither a facet nor a closure
    # proof with λ_0 > 0 exists; the pass must claim nothing about it
    keys = [(1, 0, 0), (0, 1, 0), (-1, 0, 2), (0, -1, 2), (1, 1, 0)]
    C = ClassInts(keys)
    wit, cert = {}, {}
    hull_pass((Q(1), Q(1)), C, [Q(1)] * 5, wit, cert, True)
    assert 4 not in wit and 4 not in cert
    assert sorted(wit) == [0, 1, 2, 3]


def test_hull_pass_unbounded_region_and_huge_rows():
    # an unbounded wedge x > 0, y > 0 with rows of size 2^70 (Python-integer route)
    big = 2 ** 70
    keys = [(1, 0, 0), (0, 1, 0), (big, big + 1, 1), (-1, 3, 7 * big)]
    C = ClassInts(keys)
    wit, cert = {}, {}
    point = (Q(1, 5), Q(2, 7))
    scales = [Q(1)] * 4
    hull_pass(point, C, scales, wit, cert, True)
    _check_claims(keys, point, wit, cert, scales)
    assert {0, 1} <= set(wit) and 2 in cert


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(-9, 9), st.integers(-9, 9), st.integers(-9, 9),
                          st.integers(1, 20)), min_size=3, max_size=12),
       st.sampled_from([2, 3]))
def test_hull_pass_claims_are_true(rows, d):
    """Random regions around the origin (every constant > 0): whatever the pass claims holds
    in Fractions."""
    keys = []
    for r in rows:
        a = list(r[:d])
        if any(a):
            key = tuple(a) + (r[3],)
            if key not in keys:
                keys.append(key)
    if len(keys) < 2:
        return
    C = ClassInts(keys)
    point = (Q(0),) * d
    wit, cert = {}, {}
    scales = [Q(1)] * len(keys)
    hull_pass(point, C, scales, wit, cert, True)
    _check_claims(keys, point, wit, cert, scales)


def _arrangement_count(lines):
    """Cells of the arrangement of distinct lines a x + b y + c = 0 (Fractions)."""
    distinct = []
    for a, b, c in lines:
        if a == 0 and b == 0:
            continue
        g = next(v for v in (a, b) if v != 0)
        key = (Fraction(a, g), Fraction(b, g), Fraction(c, g))
        if key not in distinct:
            distinct.append(key)
    points = {}
    for i in range(len(distinct)):
        for j in range(i + 1, len(distinct)):
            (a1, b1, c1), (a2, b2, c2) = distinct[i], distinct[j]
            det = a1 * b2 - a2 * b1
            if det == 0:
                continue
            p = ((b1 * c2 - b2 * c1) / det, (c1 * a2 - c2 * a1) / det)
            points.setdefault(p, set()).update({i, j})
    return 1 + len(distinct) + sum(len(s) - 1 for s in points.values())


PLANTED = {
    "duplicate rows": [(1, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, -1)],
    "zero rows": [(0, 0, 0), (1, 2, 0), (0, 0, 3), (-1, 1, 1)],
    "parallel hyperplanes": [(1, 1, 0), (1, 1, -1), (2, 2, 3), (-1, -1, 2), (1, -1, 0)],
    "three lines through a point": [(1, 0, 0), (0, 1, 0), (1, 1, 0), (1, -1, 0)],
    "all through one point, scaled": [(2, 0, -2), (0, 3, -3), (1, 1, -2), (-4, 4, 0)],
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_planted_degenerate_rows_on_the_plane(name, monkeypatch):
    lines = PLANTED[name]
    net = Network.from_rows([[[a, b] for a, b, _ in lines], [[1] * len(lines)]],
                            [[c for _, _, c in lines], [0]])
    calls = _counting(monkeypatch)
    got = _walk(net)
    assert len(got) == _arrangement_count(lines)
    assert calls["ran"] > 0
    assert _structure(got) == _structure(_without_hull(net, monkeypatch=monkeypatch))


@pytest.mark.parametrize("rows,count", [
    # a neuron dead on the box [-1, 1]^2 (x + y + 5 < 0 never), one line through the box
    ([(1, 1, 5), (1, -1, 0)], 2),
    # lines through the box's vertex (1, 1) and the opposite one, and the diagonal through both
    ([(1, -1, 0), (1, 1, -2), (1, 1, 2), (2, -1, -1)], None),
    # three lines through the vertex (1, 1) only
    ([(1, 0, -1), (0, 1, -1), (1, 1, -2), (1, 2, -3)], 1),
])
def test_planted_rows_on_the_box(rows, count, monkeypatch):
    net = Network.from_rows([[[a, b] for a, b, _ in rows], [[1] * len(rows)]],
                            [[c for _, _, c in rows], [0]])
    box = Polyhedron.box(2, Q(-1), Q(1))
    calls = _counting(monkeypatch)
    got = _walk(net, box, multipliers=True)
    assert calls["ran"] > 0
    if count is not None:
        assert len(got) == count
    want = _without_hull(net, box, multipliers=True, monkeypatch=monkeypatch)
    assert _structure(got) == _structure(want)
    for r in got:
        assert r.redundant is not None
        for k, (lam0, lam) in r.redundant.items():      # ℓ_k = λ_0 + Σ λ_f ℓ_f, exactly
            a, c = r.inequalities[k]
            assert lam0 >= 0 and all(v >= 0 for v in lam)
            fa = [sum((lam[p] * r.inequalities[f][0][i] for p, f in enumerate(r.facets)), Q(0))
                  for i in range(2)]
            fc = lam0 + sum((lam[p] * r.inequalities[f][1] for p, f in enumerate(r.facets)), Q(0))
            assert list(a) == fa and c == fc


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10 ** 6))
def test_hull_walk_equals_the_previous_walk(seed, monkeypatch):
    """Random hostile nets (rationals of every size, zero rows, parallel copies), d = 2 or 3,
    on R^d, a box and the orthant: the same regions, facets and neighbours as the walk without
    the hull (and the same multipliers' support)."""
    rng = random.Random(seed)
    d = rng.randint(2, 3)
    widths = [d] + [rng.randint(1, 4) for _ in range(rng.randint(1, 2))] + [1]
    net = hostile_net(rng, widths)
    domain = [None, Polyhedron.box(d, Q(-1), Q(2)), Polyhedron.orthant(d)][seed % 3]
    mult = seed % 2 == 0
    got = _walk(net, domain, mult)
    want = _without_hull(net, domain, mult, monkeypatch)
    assert _structure(got) == _structure(want)
    if mult:
        assert [sorted(r.redundant) for r in got] == [sorted(r.redundant) for r in want]
    for r in got:
        assert r.contains(r.point) and net.activation_pattern(r.point) == r.pattern


def test_a_wrong_hull_changes_nothing(monkeypatch):
    """Garbage guesses (random points, random bases): every claim is re-checked exactly, so
    the walk is the walk without the hull."""
    rng = np.random.default_rng(3)
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1], [1, -2]], [[1, -1, 1, 1]]],
                            [[0, 0, -1, Q(1, 3)], [0]])
    want = _without_hull(net, monkeypatch=monkeypatch)

    def garbage(point, kints):
        m, d = kints.K.shape[0], kints.d
        points = {t: rng.standard_normal(d) for t in range(m)}
        bases = {tuple(int(v) for v in rng.choice(m, d, replace=False)): list(range(m))}
        return points, bases
    with monkeypatch.context() as m:
        m.setattr(hull_module, "_guess", garbage)
        got = _walk(net, multipliers=True)
    assert _structure(got) == _structure(want)


def test_without_scipy_the_walk_is_unchanged(monkeypatch):
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, 1]]], [[0, 0, -1], [0]])
    want = _walk(net)
    with monkeypatch.context() as m:
        m.setattr(hull_module, "_qhull", lambda: None)
        assert not hull_module.have_hull()
        got = _walk(net)
    assert _structure(got) == _structure(want) and len(got) == 7


def test_benchmark_net_same_output(monkeypatch):
    """A dyadic net of ``bench_regions.py``'s kind over R^3: the same regions as without the
    hull, with the hull deciding every class of most regions (no LP)."""
    from algebra.rationals import from_float
    rng = np.random.default_rng(0)
    widths = (3, 4, 3, 1)
    ws = [(np.round(rng.standard_normal((widths[i + 1], widths[i])) * 64) / 64,
           np.round(rng.standard_normal(widths[i + 1]) * 64) / 64) for i in range(3)]
    net = Network([[[from_float(v) for v in row] for row in W] for W, _ in ws],
                  [[from_float(v) for v in b] for _, b in ws])
    calls = _counting(monkeypatch)
    models = {"n": 0}
    orig = walk_module._Engine._float_model

    def counted(self, *a):
        models["n"] += 1
        return orig(self, *a)
    monkeypatch.setattr(walk_module._Engine, "_float_model", counted)
    got = _walk(net)
    assert calls["ran"] == len(got)
    assert models["n"] <= len(got) // 4
    monkeypatch.undo()
    assert _structure(got) == _structure(_without_hull(net, monkeypatch=monkeypatch))


def test_huge_denominators_fall_back(monkeypatch):
    """A point whose denominator overflows a float: the pass guesses nothing (no exception)
    and the walk's other paths decide."""
    C = ClassInts([(1, 0, 0), (0, 1, 0), (-1, -1, 2)])
    tiny = Q(1, 2 ** 1100)
    wit, cert = {}, {}
    assert hull_pass((Q(1, 2) + tiny, Q(1, 2)), C, [Q(1)] * 3, wit, cert) in (True, False)
    _check_claims([(1, 0, 0), (0, 1, 0), (-1, -1, 2)], (Q(1, 2) + tiny, Q(1, 2)), wit, cert,
                  [Q(1)] * 3)


def test_no_hull_above_the_dimension_cap():
    """Qhull's output grows like m^(d/2) and one call never sees the budget (regions of the
    digits 64-32-10 net, --timeout 10, ran 9 min in one call): above ``_MAX_D`` inputs no hull is
    asked and nothing is claimed; at the cap the simplex's facets are all proved."""
    for d, asked in ((hull_module._MAX_D, True), (hull_module._MAX_D + 1, False)):
        rows = [tuple(1 if j == i else 0 for j in range(d)) + (0,) for i in range(d)]
        rows.append(tuple([-1] * d) + (1,))                       # the simplex x >= 0, Σx <= 1
        wit, cert = {}, {}
        point = tuple([Q(1, 2 * d)] * d)
        assert hull_pass(point, ClassInts(rows), [Q(1)] * (d + 1), wit, cert) is asked
        assert sorted(wit) == (list(range(d + 1)) if asked else []) and cert == {}
