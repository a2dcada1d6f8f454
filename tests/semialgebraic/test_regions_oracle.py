"""``regions`` against z3 over exact reals: the listed regions have distinct patterns, each
region's point, pattern, Jacobian and offset agree with direct evaluation, and no point of the
open domain lies outside every listed region (a region left out is noticed)."""

import random

import pytest

from algebra.rationals import Q
from semialgebraic import Polyhedron, regions
from tests.cases.general import hostile_net
from tests.oracles.z3 import z3_uncovered_point


@pytest.mark.parametrize("seed", range(12))
def test_regions_are_complete_disjoint_and_exact(seed):
    rng = random.Random(seed)
    d = rng.randint(1, 2)
    widths = [d] + [rng.randint(1, 4) for _ in range(rng.randint(1, 3))] + [rng.randint(1, 2)]
    net = hostile_net(rng, widths)
    domain = [None, "orthant", (Q(-1), Q(2))][seed % 3]
    poly = {None: None, "orthant": Polyhedron.orthant(d)}.get(domain) if not isinstance(domain, tuple) \
        else Polyhedron.box(d, *domain)
    rs = list(regions(net, domain=poly))
    assert len({r.pattern for r in rs}) == len(rs) >= 1
    for r in rs:
        assert net.activation_pattern(r.point) == r.pattern
        J, c = net.affine_map(r.pattern)
        assert J == r.jacobian and tuple(c) == tuple(r.offset)
        assert poly is None or poly.contains(r.point)
    assert not z3_uncovered_point(net, rs, domain)
    # a missing region is noticed by the oracle
    if len(rs) > 1:
        assert z3_uncovered_point(net, rs[1:], domain)
