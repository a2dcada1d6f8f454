"""The float fast paths of the region walk change nothing but speed.

Every fast path of :mod:`semialgebraic.regions` (the float convex hull guessing every facet and
closure basis, the region's centre and facet centres from one warm HiGHS model, the float
forward pass guessing the pattern across a facet) is only a guess
checked exactly.  With every guess switched off, the exact paths alone (the exact LP of
:func:`semialgebraic.lp.feasible`, the exact forward pass) must give the same regions, facets, facet classes and neighbours, and
the points of both walks must be exact interior/facet points.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.rationals import Q
from semialgebraic import Polyhedron, regions
from semialgebraic.regions import walk as walk_module
from tests.cases.general import hostile_net


def _structure(rs):
    return [(r.pattern, r.facets, r.facet_classes, r.neighbours) for r in rs]


def _exact_only(monkeypatch):
    monkeypatch.setattr(walk_module, "hull_pass", lambda *a: False)
    monkeypatch.setattr(walk_module, "centre_point", lambda *a: None)
    monkeypatch.setattr(walk_module, "facet_point", lambda *a: None)
    monkeypatch.setattr(walk_module._Engine, "_float_patterns", lambda self, pts: [None] * len(pts))


def _check_points(net, rs):
    for r in rs:
        assert r.contains(r.point) and net.activation_pattern(r.point) == r.pattern
        for i, y in zip(r.facets, r.facet_points):
            a, c = r.inequalities[i]
            assert sum(u * v for u, v in zip(a, y)) + c == 0
            others = [k for k in range(len(r.inequalities)) if k not in r.facet_classes[r.facets.index(i)]]
            assert all(sum(u * v for u, v in zip(r.inequalities[k][0], y)) + r.inequalities[k][1] > 0
                       for k in others if any(v != 0 for v in r.inequalities[k][0]))


def _walk(net, domain, multipliers):
    return list(regions(net, domain=domain, progress=False, multipliers=multipliers))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10 ** 6))
def test_fast_paths_give_the_exact_walk(seed, monkeypatch):
    rng = random.Random(seed)
    d = rng.randint(1, 3)
    widths = [d] + [rng.randint(1, 4) for _ in range(rng.randint(1, 2))] + [1]
    net = hostile_net(rng, widths)
    domain = [None, Polyhedron.box(d, Q(-1), Q(2)), Polyhedron.orthant(d)][seed % 3]
    fast = _walk(net, domain, multipliers=seed % 2 == 0)
    with monkeypatch.context() as m:
        _exact_only(m)
        exact = _walk(net, domain, multipliers=seed % 2 == 0)
    assert _structure(fast) == _structure(exact)
    _check_points(net, fast)
    _check_points(net, exact)


@pytest.mark.parametrize("widths,seed", [((2, 4, 4, 1), 0),
                                         pytest.param((2, 8, 8, 1), 0, marks=pytest.mark.slow),
                                         pytest.param((3, 6, 5, 1), 1, marks=pytest.mark.slow)])
def test_fast_paths_on_the_benchmark_nets(widths, seed, monkeypatch):
    """Dyadic nets of the kind of ``benchmarks/bench_regions.py`` (weights multiples of 1/64),
    walked over all of R^d: the exact paths alone give the same regions."""
    import numpy as np
    from algebra.network import Network
    from algebra.rationals import from_float
    rng = np.random.default_rng(seed)
    ws = []
    for i in range(len(widths) - 1):
        ws.append((np.round(rng.standard_normal((widths[i + 1], widths[i])) * 64) / 64,
                   np.round(rng.standard_normal(widths[i + 1]) * 64) / 64))
    net = Network([[[from_float(v) for v in row] for row in W] for W, _ in ws],
                  [[from_float(v) for v in b] for _, b in ws])
    fast = _walk(net, None, multipliers=False)
    with monkeypatch.context() as m:
        _exact_only(m)
        exact = _walk(net, None, multipliers=False)
    assert _structure(fast) == _structure(exact)
    _check_points(net, fast)
