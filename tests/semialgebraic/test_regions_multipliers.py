"""One region walk for regions and equivalence: exact redundancy multipliers
(``regions(..., multipliers=True)``) and the certificate view ``joint_regions``."""

import random

from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.equivalence import equivalent
from semialgebraic.regions import joint_regions
from semialgebraic.sets import Polyhedron
from semialgebraic.regions import regions
from semialgebraic.verify import verify


def _net(rng, widths, den=3):
    W = [[[Q(rng.randint(-4, 4), rng.randint(1, den)) for _ in range(widths[l])]
          for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    b = [[Q(rng.randint(-4, 4), rng.randint(1, den)) for _ in range(widths[l + 1])]
         for l in range(len(widths) - 1)]
    return Network(W, b)


def _check_multipliers(reg):
    """Every non-facet, non-trivial inequality is λ_0 + Σ λ_f ℓ_f with λ >= 0, exactly."""
    ineq = reg.inequalities
    d = len(reg.point)
    listed = set(reg.facets)
    need = {k for k, (a, c) in enumerate(ineq)
            if k not in listed and (any(v != 0 for v in a) or c != 0)}
    assert set(reg.redundant) == need
    for k, (l0, ls) in reg.redundant.items():
        assert l0 >= 0 and len(ls) == len(reg.facets) and all(v >= 0 for v in ls)
        a, c = ineq[k]
        comb_a = [sum((l * ineq[f][0][j] for l, f in zip(ls, reg.facets)), Q(0)) for j in range(d)]
        comb_c = l0 + sum((l * ineq[f][1] for l, f in zip(ls, reg.facets)), Q(0))
        assert tuple(comb_a) == tuple(a) and comb_c == c


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from([(2, 4, 1), (2, 3, 3, 1), (3, 5, 1)]),
       st.booleans())
def test_multipliers_are_exact_farkas_certificates(seed, widths, boxed):
    rng = random.Random(seed)
    net = _net(rng, widths)
    dom = Polyhedron.box(widths[0], -2, 2) if boxed else None
    plain = [r.pattern for r in regions(net, domain=dom, progress=False)]
    got = list(regions(net, domain=dom, progress=False, multipliers=True))
    assert sorted(r.pattern for r in got) == sorted(plain)   # same walk with or without
    for reg in got:
        _check_multipliers(reg)
    assert all(r.redundant is None for r in regions(net, domain=dom, progress=False))


def test_parallel_and_constant_rows_get_multipliers():
    # neurons 0 and 1 define the same hyperplane (x = 1, one scaled by 3), neuron 2 is the
    # constant 2 > 0, neuron 3 is identically zero (row 0, pattern 0): no multiplier for it
    net = Network.from_rows([[[1], [3], [0], [0]], [[1, 1, 1, 1]]], [[-1, -3, 2, 0], [0]])
    for reg in regions(net, multipliers=True, progress=False):
        assert reg.pattern[3] == 0 and 3 not in reg.redundant
        assert reg.redundant[2] == (Q(2), (Q(0),))
        assert reg.redundant[1] == (Q(0), (Q(3),)) and reg.facets == (0,)
        _check_multipliers(reg)


def test_joint_regions_lists_a_domain_row_for_a_hyperplane_shared_with_the_box():
    # neuron x + 1 = 0 is the box face x = -1: the facet must be the domain row (neighbour
    # null), the neuron row redundant with multiplier 1 on it
    net = Network.from_rows([[[1], [1]], [[1, 1]]], [[1, 0], [0]])
    state = {}
    regs = list(joint_regions([net], domain=(-1, 1), state=state))
    assert state["complete"] and len(regs) == 2
    (r,) = [r for r in regs if r.pattern == (1, -1)]          # -1 < x < 0
    assert 0 not in r.facets and 2 in r.facets
    assert r.neighbours[r.facets.index(2)] is None
    assert r.redundant[0] == (Q(0), [Q(1) if f == 2 else Q(0) for f in r.facets])


def test_equivalence_certificate_with_a_neuron_on_the_box_face():
    a = Network.from_rows([[[1], [1], [-1]], [[1, -1, 1]]], [[1, 0, "1/3"], [0]])
    # b: a followed by an identity layer relu(y + 1/2) - 1/2: y = relu(x+1) - relu(x) + relu(1/3-x)
    # >= 1 on the box, but its interval lower bound is -1, so the layer does not contract and a
    # walk is needed (the neuron x + 1 vanishes on the box face x = -1)
    b = Network([a.weights[0], a.weights[1], [[1]]], [a.biases[0], [a.biases[1][0] + Q(1, 2)], [Q(-1, 2)]])
    v = equivalent(a, b, method="general", domain=(-1, 1), refutation_samples=0)
    assert v.answer is True and v.certificate["type"] == "region_cover"
    assert v.certificate["contract"] == []
    assert len(v.certificate["regions"]) >= 3 and verify(v.certificate)[0]
    c = Network([a.weights[0], a.weights[1], [[1]]], [a.biases[0], [a.biases[1][0] + Q(1, 2)], [Q(1, 2)]])
    w = equivalent(a, c, method="general", domain=(-1, 1), refutation_samples=0)
    assert w.answer is False and verify(w.certificate)[0]


def test_joint_regions_of_two_networks_side_by_side():
    f = Network.from_rows([[[1, 0]], [[1]]], [[0], [0]])
    g = Network.from_rows([[[0, 1], [1, 1]], [[1, 1]]], [[0, -1], [0]])
    state = {}
    pats = sorted(r.pattern for r in joint_regions([f, g], state=state))
    assert state["complete"] and len(pats) == 7          # 3 lines in general position
    assert all(len(p) == 3 for p in pats)


def test_joint_region_indices_are_the_walk_order_and_neighbours_close():
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, 1]]], [[0, 0, -1], [0]])
    regs = list(joint_regions([net], domain=(-2, 2)))
    assert [r.index for r in regs] == list(range(len(regs))) and len(regs) == 7
    by_pattern = {r.pattern: r.index for r in regs}
    for r in regs:
        for (_, q), nb in zip(r.region.neighbours, r.neighbours):
            assert nb == (None if q is None else by_pattern[q])
