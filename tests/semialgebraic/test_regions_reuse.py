"""What the region walk reuses between regions changes nothing but speed (issue 15 part 4).

* A neighbour proved from one side is not stepped into again from the other
  (``_Engine.across``), and a closure proof found in one region certifies the same class in
  every region that has the classes of its basis (``hull_pass(..., proofs=...)``): with both
  switched off the walk gives the same regions, facets, facet classes and neighbours, and
  every reported neighbour is the region at a point just across the facet.
* :func:`semialgebraic.regions.integer.int_signs` (int64 limbs) gives the signs of the exact
  integer products.
* ``Region.inequalities`` built lazily from the integer rows equals the rational rows.
"""

import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from algebra.rationals import Q, from_float
from algebra.network import Network
from semialgebraic import Polyhedron, regions
from semialgebraic.regions import hull as hull_module
from semialgebraic.regions import walk as walk_module
from semialgebraic.regions.integer import int_signs
from tests.cases.general import hostile_net


def _structure(rs):
    return [(r.pattern, r.facets, r.facet_classes, r.neighbours) for r in rs]


def _no_reuse(m):
    real_init = walk_module.RegionWalk.__init__

    def init(self, *a, **k):
        real_init(self, *a, **k)
        self.keep_across = False

    m.setattr(walk_module.RegionWalk, "__init__", init)
    real_pass = hull_module.hull_pass
    m.setattr(walk_module, "hull_pass", lambda *a: real_pass(*a[:7]))


def _dyadic_net(widths, seed):
    rng = np.random.default_rng(seed)
    ws = [(np.round(rng.standard_normal((widths[i + 1], widths[i])) * 64) / 64,
           np.round(rng.standard_normal(widths[i + 1]) * 64) / 64) for i in range(len(widths) - 1)]
    return Network([[[from_float(v) for v in row] for row in W] for W, _ in ws],
                   [[from_float(v) for v in b] for _, b in ws])


def _neighbours_are_across(net, rs, domain=None):
    """Every neighbour pattern is the pattern at a point just across its facet."""
    for r in rs:
        for (i, q), y in zip(r.neighbours, r.facet_points):
            if q is None:
                continue
            a, _ = r.inequalities[i]
            eps = Q(1, 2 ** 20)
            while True:
                z = [u - eps * v for u, v in zip(y, a)]
                p = tuple(net.activation_pattern(z))
                if 0 not in p or p == q:
                    break
                eps /= 2
            if p != q:          # a smaller step: the first one may have crossed another hyperplane
                eps /= 2 ** 40
                p = tuple(net.activation_pattern([u - eps * v for u, v in zip(y, a)]))
            assert p == q


@pytest.mark.parametrize("widths,seed", [((2, 5, 4, 1), 0), ((3, 5, 4, 1), 1), ((4, 5, 3, 1), 2)])
def test_reuse_gives_the_same_walk_on_dyadic_nets(widths, seed, monkeypatch):
    net = _dyadic_net(widths, seed)
    fast = list(regions(net, progress=False))
    with monkeypatch.context() as m:
        _no_reuse(m)
        plain = list(regions(net, progress=False))
    assert len(fast) > 10
    assert _structure(fast) == _structure(plain)
    _neighbours_are_across(net, fast)
    for r in fast:
        assert r.contains(r.point) and tuple(net.activation_pattern(r.point)) == r.pattern


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_reuse_gives_the_same_walk_on_hostile_nets(seed):
    rng = random.Random(seed)
    d = rng.randint(2, 3)
    widths = [d] + [rng.randint(2, 4) for _ in range(rng.randint(1, 2))] + [1]
    net = hostile_net(rng, widths)
    domain = [None, Polyhedron.box(d, Q(-1), Q(2))][seed % 2]
    fast = list(regions(net, domain=domain, progress=False))
    with pytest.MonkeyPatch.context() as m:
        _no_reuse(m)
        plain = list(regions(net, domain=domain, progress=False))
    assert _structure(fast) == _structure(plain)


def test_lazy_inequalities_are_the_rational_rows():
    net = _dyadic_net((3, 5, 4, 1), 3)
    box = Polyhedron.box(3, Q(-2), Q(2))
    for dom in (None, box):
        for r in list(regions(net, domain=dom, progress=False))[:20]:
            ineq = r.inequalities
            eager = tuple(ineq)
            assert len(ineq) == len(eager) == net.n_hidden + (6 if dom is not None else 0)
            assert ineq == eager and hash(ineq) == hash(eager)
            for k, (a, c) in enumerate(eager):
                if k < net.n_hidden:
                    s = r.pattern[k]
                    # the oriented pre-activation of neuron k, evaluated at the region's point
                    assert s == 0 or (sum(u * v for u, v in zip(a, r.point)) + c) > 0
            assert r.contains(r.point)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_int_signs_are_the_signs_of_the_exact_products(data):
    m = data.draw(st.integers(1, 6))
    n = data.draw(st.integers(1, 5))
    k = data.draw(st.integers(1, 3))
    eb = data.draw(st.sampled_from([3, 20, 40]))
    K = np.array(data.draw(st.lists(st.lists(st.integers(-2 ** eb, 2 ** eb), min_size=n, max_size=n),
                                    min_size=m, max_size=m)), dtype=np.int64)
    bits = data.draw(st.sampled_from([5, 60, 100, 300]))
    cols = data.draw(st.lists(st.lists(st.integers(-2 ** bits, 2 ** bits), min_size=n, max_size=n),
                              min_size=k, max_size=k))
    r = [int(v) for v in K[0]]
    if r[-1] != 0 and data.draw(st.booleans()):          # an exact zero now and then
        s = sum(a * b for a, b in zip(r[:-1], cols[0][:-1]))
        if s % r[-1] == 0:
            cols[0][-1] = -s // r[-1]
    kb = int(np.abs(K).sum(axis=1).max())
    S = int_signs(K, kb, cols)
    for i in range(m):
        for c, col in enumerate(cols):
            v = sum(int(a) * b for a, b in zip(K[i], col))
            assert S[i, c] == (v > 0) - (v < 0)
