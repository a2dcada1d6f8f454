"""The region walk in R^4 and its bounded memory (issue 15 part 4).

* In R^4 the closure proofs use the closed-form integer inverse of a 4 x 4 basis
  (:func:`semialgebraic.regions.integer._small_inverse`); the walk must give the same regions,
  facets, facet classes and neighbours when every basis is inverted by flint's rational inverse
  instead (an independent exact route), and when every float guess is off.
* The walk keeps the forms of the regions of the last breadth-first layers only and trims a
  pattern's caches once its region is built: a pattern asked for again is rebuilt identically.
"""

import math

import numpy as np
import pytest

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.regions import integer as integer_module
from semialgebraic.regions import regions
from semialgebraic.regions import walk as walk_module


def _net(widths, seed):
    rng = np.random.default_rng(seed)
    Ws, bs = [], []
    for i in range(len(widths) - 1):
        Ws.append([[Q(int(round(v * 16)), 16) for v in row]
                   for row in rng.standard_normal((widths[i + 1], widths[i]))])
        bs.append([Q(int(round(v * 16)), 16) for v in rng.standard_normal(widths[i + 1])])
    return Network(Ws, bs)


def _structure(rs):
    return [(r.pattern, r.facets, r.facet_classes, r.neighbours) for r in rs]


def _flint_inverse(rows):
    """The lowest-terms integer inverse of the transpose of *rows* from flint's rational
    inverse (the route :func:`_small_inverse` replaces for d <= 4)."""
    d = len(rows)
    M = QMatrix.from_integer_rows([list(r) for r in rows], ncols=d).T
    if M.rank() < d:
        return None
    ents = M.inverse().entries()
    den = math.lcm(*(int(v.q) for v in ents))
    P = np.array([int(v.p) * (den // int(v.q)) for v in ents], dtype=object).reshape(d, d)
    return P, den


@pytest.mark.parametrize("seed", [1])
def test_r4_walk_is_the_same_with_flint_inverses(seed, monkeypatch):
    net = _net([4, 6, 4, 1], seed)
    fast = list(regions(net, progress=False))
    assert len(fast) > 30
    with monkeypatch.context() as m:
        m.setattr(integer_module, "_small_inverse", _flint_inverse)
        slow = list(regions(net, progress=False))
    assert _structure(fast) == _structure(slow)
    for r in fast:
        assert r.contains(r.point) and tuple(net.activation_pattern(r.point)) == r.pattern


@pytest.mark.slow
def test_r4_walk_is_the_same_with_exact_paths_only(monkeypatch):
    net = _net([4, 6, 4, 1], 0)
    fast = list(regions(net, progress=False))
    with monkeypatch.context() as m:
        m.setattr(walk_module, "hull_pass", lambda *a: False)
        m.setattr(walk_module, "centre_point", lambda *a: None)
        m.setattr(walk_module, "facet_point", lambda *a: None)
        m.setattr(walk_module._Engine, "_float_patterns", lambda self, pts: [None] * len(pts))
        exact = list(regions(net, progress=False))
    assert sorted(_structure(fast)) == sorted(_structure(exact))


def test_forms_cache_is_bounded_and_trimmed_patterns_rebuild_identically():
    net = _net([2, 8, 8, 1], 3)
    walk = regions(net, progress=False)
    rs = list(walk)
    eng = walk._engine
    assert walk.complete and len(rs) > 100
    assert len(eng.cache) < len(rs)            # the early layers' forms were dropped
    for r in rs[::17]:                         # dropped or trimmed: rebuilt, the same region
        again = eng.region(r.pattern, r.point)
        assert (again.pattern, again.facets, again.facet_classes, again.neighbours,
                again.inequalities, again.offset) == \
            (r.pattern, r.facets, r.facet_classes, r.neighbours, r.inequalities, r.offset)


@pytest.mark.parametrize("widths,seed", [([2, 8, 8, 1], 3), ([3, 6, 5, 1], 1)])
def test_a_walk_keeping_one_form_is_the_same_walk(widths, seed, monkeypatch):
    """The forms kept are bounded (FORMS_BYTES; the digits 64-32-10 walk had grown by ~7 MB a
    region, its breadth-first frontier's forms): with room for one form only, every form is
    rebuilt when asked for again, and the walk is the same, region for region."""
    net = _net(widths, seed)
    walk = regions(net, progress=False)
    full = list(walk)
    assert walk._engine.cache.limit >= walk_module.FORMS_MIN
    with monkeypatch.context() as m:
        m.setattr(walk_module, "FORMS_BYTES", 0)
        m.setattr(walk_module, "FORMS_MIN", 1)
        small = regions(net, progress=False)
        one = list(small)
        assert small.complete and small._engine.cache.limit == 1 and len(small._engine.cache) <= 1
    assert [r.to_json() for r in one] == [r.to_json() for r in full]


def test_form_bytes_estimates_the_integer_rows():
    """The estimate grows with the integers' digits (float32 weights: hundreds of bits)."""
    def _bytes(den):
        net = Network([[[Q(1 + i + j, den ** j) for j in range(3)] for i in range(4)], [[Q(1)] * 4]],
                      [[Q(-1, den)] * 4, [Q(0)]])
        f = walk_module._Engine(net, None).forms((1, 1, 1, 1))
        assert walk_module._form_bytes(f) >= 3 * 28 * (f.H.size + f._Jint.size)
        return walk_module._form_bytes(f)
    assert _bytes(2 ** 300) > _bytes(1) + 3 * 16 * 20
