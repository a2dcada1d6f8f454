"""Exact equality decided by the region walk directly on a convex polyhedral domain (a box with
its own, possibly open, sides ∩ half-spaces): planted pairs (``tests/cases/general.planted_pair``)
on random cuts of the cube against z3 over exact reals; a pair equal on the domain but not just
outside it (a neuron active only beyond the half-space, which b drops) decided by the walk, not by
branch and bound; the ``region_cover`` checker's mutation tests on the polyhedral domain (a
dropped region, a wrong facet, a half-space removed or moved, a point outside)."""

from __future__ import annotations

import copy
import json
import random
from unittest import mock

import pytest

from algebra.exceptions import InputError
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import equivalent
from semialgebraic.verify import verify
from tests.cases.general import cut_cube_case, permute_scale, rational_net
from tests.oracles.z3 import z3_equivalent


def _cut_case(seed):
    """A planted pair and a random cut of its cube: 1-2 half-spaces, sometimes an open side."""
    return cut_cube_case(seed, always_cut=True)


def _json(cert):
    return json.loads(json.dumps(jsonable(cert)))


@pytest.mark.parametrize("seed", range(31000, 31024))
def test_the_walk_on_cut_cubes_matches_z3(seed):
    a, b, dom, kind = _cut_case(seed)
    v = equivalent(a, b, domain=dom, timeout=60)
    truth = z3_equivalent(a, b, dom)
    if v.method == "branch and bound":          # only a domain without interior skips the walk
        assert v.details["walk"] == "the domain has an empty interior"
    else:
        assert v.method == "general" and v.details["decided_by"] == "region walk"
    assert v.answer is truth, (kind, dom.to_json(), v.reason)
    cert = _json(v.certificate)
    assert verify(cert)[0]
    if v.method == "general":
        assert cert["domain"] == dom.to_json()          # the polyhedron itself, not its box
    if v.answer is False:
        x = tuple(Q(t) for t in cert["x"])
        assert dom.contains(x) and a(x) != b(x)


def beyond_pair(seed):
    """A 3-4-4-1 network a whose first neuron is relu(x0 + x1 + x2 - 1), active only beyond the
    half-space x0 + x1 + x2 <= 1, and b: a without that neuron, permuted and rescaled.  Equal on
    the cube [-1, 1]^3 cut by the half-space, different on the cube."""
    rng = random.Random(seed)
    a = rational_net(rng, [3, 4, 4, 1])
    W = [w.to_rows() for w in a.weights]
    bs = [list(v) for v in a.biases]
    W[0][0], bs[0][0] = [Q(1), Q(1), Q(1)], Q(-1)
    a = Network(W, bs)
    W2 = [W[0][1:], [r[1:] for r in W[1]], W[2]]
    b = permute_scale(Network(W2, [bs[0][1:], bs[1], bs[2]]), rng)
    dom = Domain.cube(3, Q(-1), Q(1)).with_halfspaces([([Q(1), Q(1), Q(1)], Q(1))])
    return a, b, dom


def _without_layer0_cover():
    """The general method without ``dead_cover`` steps: the walk of the regions must decide."""
    from semialgebraic.equivalence import general
    return mock.patch.object(general, "_DEAD_COVER_REGIONS", 0)


@pytest.mark.parametrize("seed", [0, 2])
def test_equal_on_the_cut_different_just_outside_is_decided_by_the_walk(seed):
    """The enclosing-box route found a counterexample outside the domain and left it to branch
    and bound (3.3 s and 13.1 s, 470 and 2 072 nodes, for these seeds).  On the polyhedron the
    first-layer neuron is proved dead by a ``dead_cover`` step at layer 0 (one region, the
    domain, and Farkas multipliers with the half-space's row), and a − b collapses: 0.02 s;
    without such steps the walk of a − b's regions decides it, 0.4 s / 0.15 s (11 / 29 regions)."""
    a, b, dom = beyond_pair(seed)
    assert a.widths == (3, 4, 4, 1) and b.widths == (3, 3, 4, 1)
    assert equivalent(a, b, domain=(Q(-1), Q(1))).answer is False        # not on the cube
    assert z3_equivalent(a, b, dom) is True
    v = equivalent(a, b, domain=dom, timeout=60)
    assert v.answer is True and v.method == "general" and v.details["decided_by"] == "region walk"
    cert = _json(v.certificate)
    assert cert["type"] == "region_cover" and cert["domain"]["halfspaces"] == [{"a": ["1", "1", "1"], "b": "1"}]
    assert [st["neurons"] for st in cert["reduction"] if st["step"] == "dead_cover" and st["layer"] == 0] == [[0]]
    assert verify(cert)[0]
    with _without_layer0_cover():
        v = equivalent(a, b, domain=dom, timeout=60)
    assert v.answer is True and v.details["decided_by"] == "region walk" and v.details["regions_checked"] > 0
    assert verify(_json(v.certificate))[0]


def test_a_moved_half_space_breaks_the_layer0_dead_cover():
    a, b, dom = beyond_pair(2)
    cert = _json(equivalent(a, b, domain=dom).certificate)
    bad = copy.deepcopy(cert)
    bad["domain"]["halfspaces"][0]["b"] = "2"
    for st in bad["reduction"]:
        for reg in st.get("regions", []):
            reg["inequalities"][-1][-1] = "2"
    assert _rejected(bad)


# ------------------------------------------------------------------------------------------------
# the checker on a polyhedral domain: mutations are rejected
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def walked():
    """The certificate of the seed-2 pair without dead_cover steps: 29 regions, some with the
    half-space as a facet."""
    a, b, dom = beyond_pair(2)
    with _without_layer0_cover():
        v = equivalent(a, b, domain=dom)
    cert = _json(v.certificate)
    n = len(cert["regions"][0]["pattern"])
    hs = n + 6                          # the rows: 6 box sides, then the half-space
    on_cut = [r for r, reg in enumerate(cert["regions"]) if hs in reg["facets"]]
    assert verify(cert)[0] and on_cut
    return cert, n, hs, on_cut


def _rejected(cert) -> bool:
    try:
        return not verify(cert)[0]
    except InputError:
        return True


def test_checker_rejects_a_dropped_region(walked):
    cert, _, _, on_cut = walked
    for r in (0, on_cut[0], len(cert["regions"]) - 1):
        bad = copy.deepcopy(cert)
        del bad["regions"][r]
        bad["regions"] = [{**reg, "neighbours": [None if q is None else q - (q > r) for q in reg["neighbours"]]}
                          for reg in bad["regions"]]
        assert _rejected(bad), r


def test_checker_rejects_a_wrong_facet(walked):
    cert, n, hs, on_cut = walked
    bad = copy.deepcopy(cert)
    reg = bad["regions"][on_cut[0]]
    k = reg["facets"].index(hs)
    other = next(j for j in range(n, hs) if j not in reg["facets"])      # a box side, not a facet
    reg["facets"][k] = other
    assert _rejected(bad)
    bad = copy.deepcopy(cert)                                          # the half-space left out
    reg = bad["regions"][on_cut[0]]
    k = reg["facets"].index(hs)
    del reg["facets"][k], reg["neighbours"][k]
    reg["redundant"] = {key: [l0, ls[:k] + ls[k + 1:]] for key, (l0, ls) in reg["redundant"].items()}
    assert _rejected(bad)


def test_checker_rejects_a_half_space_removed_or_moved(walked):
    cert, n, hs, on_cut = walked
    bad = copy.deepcopy(cert)
    bad["domain"]["halfspaces"] = []                   # its rows no longer match: malformed
    assert _rejected(bad)
    bad = copy.deepcopy(cert)                          # removed, and its row from every region
    bad["domain"]["halfspaces"] = []
    for reg in bad["regions"]:
        del reg["inequalities"][hs]
        if hs in reg["facets"]:
            k = reg["facets"].index(hs)
            del reg["facets"][k], reg["neighbours"][k]
            reg["redundant"] = {key: [l0, ls[:k] + ls[k + 1:]] for key, (l0, ls) in reg["redundant"].items()}
        reg["redundant"].pop(str(hs), None)
    assert _rejected(bad)            # (a = b is false on the cube: no cover of it may pass)
    for c in ("2", "0"):                                # moved out (a claim now false) or in
        bad = copy.deepcopy(cert)
        bad["domain"]["halfspaces"][0]["b"] = c
        for reg in bad["regions"]:
            reg["inequalities"][hs][-1] = c
        assert _rejected(bad), c


def test_checker_rejects_a_point_outside(walked):
    cert, _, _, on_cut = walked
    bad = copy.deepcopy(cert)
    bad["regions"][on_cut[0]]["point"] = ["1", "1", "1"]          # beyond x0 + x1 + x2 <= 1
    assert _rejected(bad)


def test_counterexample_outside_the_polyhedral_domain_is_rejected():
    a, b, dom = beyond_pair(0)
    v = equivalent(a, b, domain=Domain.cube(3, Q(-1), Q(1)).with_halfspaces([([Q(1), Q(1), Q(1)], Q(2))]))
    assert v.answer is False
    cert = _json(v.certificate)
    x = [Q(t) for t in cert["x"]]
    assert cert["domain"]["halfspaces"] == [{"a": ["1", "1", "1"], "b": "2"}] and 1 < sum(x) <= 2
    assert verify(cert)[0]
    bad = copy.deepcopy(cert)
    bad["domain"]["halfspaces"][0]["b"] = "1"                     # x is not in this domain
    assert not verify(bad)[0]
    bad["domain"]["extra"] = 1
    with pytest.raises(InputError):
        verify(bad)


def test_old_certificate_forms_still_check():
    """R^d, the orthant and the cube keep their forms ({"box": [lo, hi]}, {"orthant": true})."""
    rng = random.Random(5)
    a = rational_net(rng, [2, 3, 3, 1])
    b = permute_scale(a, rng)
    for dom, spec in ((None, None), ("orthant", {"orthant": True}), ((Q(-1), Q(1)), {"box": [-1, 1]})):
        v = equivalent(a, b, domain=dom, method="general")
        cert = _json(v.certificate)
        assert v.answer is True and cert["domain"] == spec and verify(cert)[0]


def test_an_empty_interior_goes_to_branch_and_bound_and_fixed_methods_are_refused():
    a, b, dom = beyond_pair(3)
    flat = dom.with_halfspaces([([Q(-1), Q(-1), Q(-1)], Q(-1))])            # the plane sum = 1
    v = equivalent(a, b, domain=flat)                    # no interior: no walk, branch and bound
    assert v.answer is True and v.details["decided_by"] == "branch and bound"
    assert v.details["walk"] == "the domain has an empty interior" and verify(_json(v.certificate))[0]
    for method in ("general", "shallow"):
        with pytest.raises(InputError, match="half-spaces"):
            equivalent(a, b, domain=dom, method=method)


@pytest.mark.parametrize("seed", [31001, 31002, 31005])
def test_max_deviation_walks_a_bounded_polyhedron_as_branch_and_bound_bounds_it(seed):
    """``max_deviation`` (``diff --method walk``) on a cut cube: the exact maximum, the same as
    branch and bound's certified interval; an open side is refused."""
    from semialgebraic.bab import diff_bounds
    from semialgebraic.equivalence import max_deviation
    rng = random.Random(seed)
    a = rational_net(rng, [2, 3, 3, 1])
    b = rational_net(rng, [2, 3, 1])
    dom = Domain.cube(2, Q(-1), Q(2)).with_halfspaces([([Q(1), Q(2)], Q(1)), ([Q(-1), Q(1)], Q(1, 2))])
    dev = max_deviation(a, b, dom)
    assert dev.complete and dom.contains(dev.point)
    assert max(abs(u - v) for u, v in zip(a(dev.point), b(dev.point))) == dev.value
    r = diff_bounds(a, b, dom, timeout=60)
    assert r.complete and r.lower == r.upper == dev.value
    with pytest.raises(InputError, match="bounded"):
        max_deviation(a, b, Domain([Q(-1), None], [Q(1), Q(1)], dom.halfspaces))
