"""Interval reductions on box ∩ half-spaces over the polyhedron's exact bounding box.

:func:`semialgebraic.sets.tighten` proves each side of the bounding box by an exact LP's dual
multipliers (``y >= 0`` over the domain rows with ``Σ y_i a_i = ±e_k``,
:func:`algebra.kernel.domains.side_bound`); ``equiv`` on a polyhedron takes its interval bounds
over that box, and the ``region_cover`` certificate carries the sides (``bounds``), which the
checker verifies before it uses them.  Mutation tests: a side moved inward by 1/1000, a wrong
multiplier, a negative multiplier; old certificates (box part only) stay valid; verdicts against
z3 over exact reals."""

from __future__ import annotations

import copy
import json
import random
from unittest import mock

import pytest

from algebra.exceptions import InputError
from algebra.kernel.domains import Domain, side_bound
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import equivalent
from semialgebraic.equivalence.reduction import preactivation_bounds
from semialgebraic.sets import tighten
from semialgebraic.verify import verify
from tests.cases.general import cut_cube_case, rational_net
from tests.oracles.z3 import z3_equivalent

def _empty(dom):
    from semialgebraic.lp import feasible
    rows = dom.rows()
    return not feasible(A_le=[[-v for v in r[:-1]] for r in rows], b_le=[r[-1] for r in rows], n=dom.dim).feasible


SIMPLEX = Domain([0, 0], [None, None], [([1, 1], 1)])


def _json(cert):
    return json.loads(json.dumps(jsonable(cert)))


def _deep_dead(seed, dom):
    """(a, b): b is a with one more second-layer neuron, dead on *dom* by interval bounds over
    its exact bounding box (not over its box part when a side is open)."""
    rng = random.Random(seed)
    a = rational_net(rng, [2, 5, 5, 1])
    box = Domain.from_box(tighten(dom).intervals())
    hi = max(max(h, Q(0)) for _, h in preactivation_bounds(a, domain=box)[0])
    Ws = [[list(r) for r in W.to_rows()] for W in a.weights]
    bs = [list(v) for v in a.biases]
    Ws[1].append([Q(1)] * len(Ws[0]))
    bs[1].append(-len(Ws[0]) * hi - Q(1, 3))
    for r in Ws[2]:
        r.append(Q(2))
    return a, Network(Ws, bs)


def test_side_bound_proves_each_side_of_the_simplex():
    rows = SIMPLEX.rows()                       # x >= 0, y >= 0, 1 - x - y >= 0
    assert side_bound(rows, 0, "hi", [0, 1, 1]) == 1
    assert side_bound(rows, 1, "lo", [0, 1, 0]) == 0
    for bad, why in (([0, 1, -1], "negative"), ([1, 1, 1], "not -x_0"), ([0, 1], "2 multipliers")):
        with pytest.raises(ValueError, match=why):
            side_bound(rows, 0, "hi", bad)


def test_tighten_gives_the_exact_bounding_box():
    T = tighten(SIMPLEX)
    assert [tuple(b) for b in T.intervals()] == [(0, 1), (0, 1)]
    assert T == SIMPLEX and T.to_json() == SIMPLEX.to_json()       # the same set
    assert [(s["coordinate"], s["side"], s["value"]) for s in T.sides()] == [(0, "hi", "1"), (1, "hi", "1")]
    # a box with one open side closed by a half-space, and a thin slab cut from a box
    open_side = Domain([-1, -1], [1, None], [([-1, 1], 0)])       # y <= x <= 1
    assert [tuple(b) for b in tighten(open_side).intervals()] == [(-1, 1), (-1, 1)]
    slab = Domain([-1, -1], [1, 1], [([1, 0], Q(1, 100)), ([-1, 0], 0)])
    assert [tuple(b) for b in tighten(slab).intervals()] == [(0, Q(1, 100)), (-1, 1)]
    # no half-space: nothing to tighten (the box part is the bounding box, or a side is open)
    assert tighten(Domain.orthant(2)).sides() == [] and tighten(Domain.orthant(2)).intervals()[0] == (0, None)
    # a cone the half-spaces do not close keeps its open side
    cone = Domain([0, 0], [None, None], [([-1, 1], 0)])           # y <= x
    assert tighten(cone).intervals() == [(0, None), (0, None)]


@pytest.mark.parametrize("seed", range(6))
def test_the_tightened_box_contains_the_polyhedron(seed):
    """Each proved side is the exact min / max of the coordinate: a vertex attains it, and no
    point of the domain drawn at random is outside the box."""
    rng = random.Random(seed)
    d = 3
    dom = Domain([rng.choice([None, -2]) for _ in range(d)], [rng.choice([None, 2]) for _ in range(d)],
                 [([Q(rng.randint(-3, 3)) for _ in range(d)], Q(rng.randint(1, 4))) for _ in range(3)]
                 + [([Q(1)] * d, Q(3)), ([Q(-1)] * d, Q(3))])
    T = tighten(dom)
    box = T.intervals()
    for _ in range(300):
        x = [Q(rng.randint(-4000, 4000), 1000) for _ in range(d)]
        if dom.contains(x):
            assert all((lo is None or lo <= v) and (hi is None or v <= hi) for v, (lo, hi) in zip(x, box))


def test_the_simplex_walk_proves_deep_neurons_dead_and_certifies_the_box():
    a, b = _deep_dead(3, SIMPLEX)
    v = equivalent(a, b, domain=SIMPLEX, timeout=60)
    assert v.answer is True and v.details["decided_by"] == "region walk"
    assert z3_equivalent(a, b, SIMPLEX) is True
    cert = _json(v.certificate)
    assert [(s["coordinate"], s["side"], s["value"]) for s in cert["bounds"]] == [(0, "hi", "1"), (1, "hi", "1")]
    assert cert["domain"] == _json(SIMPLEX.to_json())               # the user's polyhedron
    assert v.details["reduction"]["dead"] >= 1
    assert verify(cert)[0] is True
    # without the bounds, the interval steps that need them fail (the checker uses only what
    # it verified)
    bare = copy.deepcopy(cert)
    del bare["bounds"]
    assert verify(bare)[0] is False
    # before: the same pair without the tightening (box part only) needs a longer proof
    with mock.patch("semialgebraic.equivalence.dispatch.tighten", lambda dom, budget=None: dom):
        old = equivalent(a, b, domain=SIMPLEX, timeout=60)
    assert old.answer is True and "bounds" not in old.certificate
    assert verify(_json(old.certificate))[0] is True                # old certificates stay valid
    assert old.details["reduction"]["dead"] < v.details["reduction"]["dead"]


@pytest.mark.parametrize("mutate, message", [
    ("inward", "prove"), ("multiplier", "not -x_0"), ("negative", "negative")])
def test_a_broken_side_is_rejected(mutate, message):
    a, b = _deep_dead(3, SIMPLEX)
    cert = _json(equivalent(a, b, domain=SIMPLEX, timeout=60).certificate)
    side = cert["bounds"][0]
    assert (side["coordinate"], side["side"], side["multipliers"]) == (0, "hi", ["0", "1", "1"])
    if mutate == "inward":
        side["value"] = str(Q(side["value"]) - Q(1, 1000))
    elif mutate == "multiplier":
        side["multipliers"][0] = "1"
    else:
        side["multipliers"] = ["0", "-1", "1"]
    ok, why = verify(cert)
    assert ok is False and why.startswith("bounds:") and message in why


def test_malformed_bounds_are_input_errors():
    a, b = _deep_dead(3, SIMPLEX)
    cert = _json(equivalent(a, b, domain=SIMPLEX, timeout=60).certificate)
    for key, value in (("coordinate", 5), ("side", "up"), ("multipliers", "1")):
        bad = copy.deepcopy(cert)
        bad["bounds"][0][key] = value
        with pytest.raises(InputError):
            verify(bad)
    box = _json(equivalent(a, a, domain=(0, 1), method="general", timeout=60).certificate)
    box["bounds"] = []
    with pytest.raises(InputError, match="polyhedral"):
        verify(box)


def test_the_distributed_parts_check_the_bounds_too():
    from semialgebraic.verify import verify_part
    a, b = _deep_dead(3, Domain([-1, -1], [1, None], [([-1, 1], 0)]))
    dom = Domain([-1, -1], [1, None], [([-1, 1], 0)])
    cert = _json(equivalent(a, b, domain=dom, timeout=60).certificate)
    assert cert.get("bounds") and verify_part(cert, "cover")[0] is True
    cert["bounds"][0]["value"] = str(Q(cert["bounds"][0]["value"]) - Q(1, 1000))
    assert verify_part(cert, "cover")[0] is False


@pytest.mark.parametrize("seed", range(32000, 32012))
def test_cut_cubes_with_the_bounding_box_match_z3(seed):
    a, b, dom, kind = cut_cube_case(seed, always_cut=True)
    if not tighten(dom).sides() and dom.halfspaces and _empty(dom):
        with pytest.raises(InputError, match="empty"):          # (as before: an empty domain)
            equivalent(a, b, domain=dom, timeout=60)
        return
    v = equivalent(a, b, domain=dom, timeout=60)
    z = z3_equivalent(a, b, dom)
    assert v.answer is not None and v.answer == z, (kind, v.reason)
    if v.answer and v.certificate.get("type") == "region_cover":
        assert verify(_json(v.certificate))[0] is True


def test_the_float_screen_only_chooses_which_sides_to_prove():
    """The float LP only picks the sides whose exact LP runs: told "yes" everywhere, the exact
    LPs give the same box; told "no", the box part is kept (sound, not tight); a coordinate no
    half-space involves gets no LP at all."""
    import semialgebraic.sets.domains as sd
    dom = Domain([-1, -1, -1], [1, None, 1], [([1, 2, 0], 1), ([0, -1, 0], 2)])     # x_2 free of cuts
    want = tighten(dom)
    assert [tuple(b) for b in want.intervals()] == [(-1, 1), (-1, 1), (-1, 1)]      # y <= (1 - x)/2 <= 1
    with mock.patch.object(sd._FloatScreen, "may_tighten", lambda self, k, mx, g: True):
        assert tighten(dom).intervals() == want.intervals()
    with mock.patch.object(sd._FloatScreen, "may_tighten", lambda self, k, mx, g: False):
        assert tighten(dom).intervals() == dom.intervals()
    calls = []
    real = sd.optimize
    with mock.patch.object(sd, "optimize", lambda *a, **k: calls.append(a[0]) or real(*a, **k)):
        tighten(dom)
    assert calls and all(c[2] == 0 for c in calls)          # never an LP of x_2


@pytest.mark.parametrize("seed", range(3))
def test_max_deviation_on_a_cut_box_reduces_over_the_bounding_box(seed):
    """``diff --method walk`` (max_deviation) on box ∩ half-spaces: its reductions take the
    tightened box (the same value as branch and bound, exactly)."""
    from semialgebraic.bab import diff_bounds
    from semialgebraic.equivalence.deviation import max_deviation
    rng = random.Random(seed)
    a = rational_net(rng, [2, 5, 4, 1])
    b = rational_net(rng, [2, 4, 4, 1])
    dom = Domain([-1, -1], [1, 1], [([1, 1], Q(1, 2)), ([1, -1], 0)])
    seen = []
    import semialgebraic.equivalence.deviation as dv
    real = dv.reduced_difference
    with mock.patch.object(dv, "reduced_difference", lambda *x, **k: seen.append(k["domain"]) or real(*x, **k)):
        dev = max_deviation(a, b, dom, timeout=60)
    assert dev.complete and seen and seen[0].intervals() == [(-1, Q(1, 4)), (-1, 1)]     # x <= y, x + y <= 1/2
    r = diff_bounds(a, b, dom, timeout=60)
    assert r.complete and dev.value == r.upper == r.lower
