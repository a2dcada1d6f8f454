"""Domains of branch and bound (issue 15): box ∩ half-spaces in the LP and its certificate;
unbounded domains decided by three-layer-fibers R28 (+∞ with a ray, or a finite certified
interval); ``upper`` None (not +∞) when the budget ends before a root bound; the in-process
re-check through ``require_valid`` under the budget.  Values against planted truths, exact
Fraction evaluation and z3's optimum on small cases."""

from __future__ import annotations

import copy
import json
import random
import sys
import time
from fractions import Fraction

import pytest

from algebra.exceptions import InputError
from algebra.kernel import difference_network
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds, epsilon_equivalent
from semialgebraic.bab.recession import cone_domain, deviation_bound, ray_start
from semialgebraic.budget import Budget
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import max_deviation
from semialgebraic.exceptions import CertificateError
from semialgebraic.verify import verify
from tests.cases.bab_domains import ABS, HALF, SHIFT, SHIFT2

# a(x, y) = relu(1 - x) + relu(y - x); b = 0.  On the orthant a grows along y; on the orthant
# cut by y <= x the biases-free a is 0 on the cone and sup a = 1 (at x = 0).
CONE_A = Network.from_rows([[[-1, 0], [-1, 1]], [[1, 1]]], [[1, 0], [0]])
ZERO2 = Network.from_rows([[[1, 0]], [[0]]], [[0], [0]])
WEDGE = Domain.orthant(2).with_halfspaces([([Q(-1), Q(1)], Q(0))])          # y - x <= 0


def _fdev(a, b, x):
    return max(abs(Fraction(str(u)) - Fraction(str(v))) for u, v in zip(a.evaluate(x), b.evaluate(x)))


def test_R28_unbounded_on_the_orthant_with_a_checked_ray():
    r = diff_bounds(ABS, HALF, Domain.orthant(1))            # ABS - HALF = relu(x)/2
    assert r.unbounded and r.complete and r.checked
    j = r.to_json()
    assert (j["lower"], j["upper"], j["max_deviation"]) == ("inf", "inf", "inf")
    assert r.certificate["type"] == "bab_recession" and verify(r.certificate)[0]
    x0 = [Q(v) for v in r.ray["x0"]]
    d = [Q(v) for v in r.ray["direction"]]
    assert d[0] > 0 and Fraction(r.ray["slope"]) == Fraction(1, 2) * Fraction(str(d[0]))
    for t in (10 ** 3, 10 ** 9):                              # the oracle: exact evaluation
        x = [x0[0] + t * d[0]]
        assert _fdev(ABS, HALF, x) == Fraction(str(x[0])) / 2


def test_R28_same_pair_bounded_where_the_cone_misses_the_growth():
    # relu(x)/2 vanishes for x <= 0: on {x <= 0} (hi finite, lo open) the sup is 0, exactly
    r = diff_bounds(ABS, HALF, Domain([None], [Q(0)]))
    assert not r.unbounded and (r.lower, r.upper, r.complete) == (0, 0, True)
    assert r.certificate["claim"].startswith("max_o sup_x") and verify(r.certificate)[0]


def test_R28_bounded_on_R_with_the_bias_bound():
    # ABS - SHIFT2 = 0, x, 1 on x <= 0, [0, 1], x >= 1 (other weights: R28's cone, bias bound 2,
    # then R29's stable cells: the body [-R, R] and the two tail cells, where a − b is 0 and 1)
    assert max(deviation_bound(difference_network(ABS, SHIFT2), [(Q(0), Q(0))])) == 2
    r = diff_bounds(ABS, SHIFT2, Domain.whole(1))
    assert not r.unbounded and r.lower == 1 and r.upper == 1 and r.complete
    assert _fdev(ABS, SHIFT2, r.point) == 1 and "tail" in r.certificate
    j = r.to_json()
    assert (j["lower"], j["upper"], j["complete"]) == ("1", "1", True)
    assert verify(r.certificate)[0]
    r = diff_bounds(ABS, SHIFT, Domain.whole(1))              # 1 for x <= -1, -x on [-1, 0], 0 after
    assert (r.lower, r.upper, r.complete) == (1, 1, True) and "tail" in r.certificate   # R29


def test_R28_planted_wedge_bounded_exact_and_orthant_unbounded():
    r = diff_bounds(CONE_A, ZERO2, WEDGE)
    assert (r.lower, r.upper, r.complete, r.unbounded) == (1, 1, True, False)
    assert verify(r.certificate)[0]
    u = diff_bounds(CONE_A, ZERO2, Domain.orthant(2))
    assert u.unbounded and verify(u.certificate)[0]
    x0, d = [Q(v) for v in u.ray["x0"]], [Q(v) for v in u.ray["direction"]]
    assert WEDGE.contains(x0) or Domain.orthant(2).contains(x0)
    vals = [_fdev(CONE_A, ZERO2, [a + t * b for a, b in zip(x0, d)]) for t in (10 ** 6, 2 * 10 ** 6)]
    assert vals[1] - vals[0] == Fraction(10 ** 6) * abs(Fraction(u.ray["slope"]))


def test_ray_start_and_deviation_bound_by_hand():
    from algebra.kernel import difference_network
    D = difference_network(CONE_A, ZERO2)
    t1, u, v = ray_start(D, [Q(2), Q(0)], [Q(0), Q(1)])       # along y from (2, 0): relu(y - 2)
    assert (t1, u[0], v[0]) == (2, -2, 1)
    assert deviation_bound(D, [(Q(0), Q(0)), (Q(0), Q(0))]) == [1]
    assert deviation_bound(D, [(Q(-1), Q(1)), (Q(0), Q(0))]) == [3]   # |1 - x| + |x| <= 1 + 1 + 1
    c = cone_domain(WEDGE)
    assert (c.lo, c.hi, c.halfspaces) == ((0, 0), (1, 1), (((-1, 1), 0),))


def test_epsilon_on_unbounded_and_bounded_domains():
    ans, r = epsilon_equivalent(ABS, HALF, Domain.orthant(1), 5)
    assert ans is False and _fdev(ABS, HALF, r.point) > 5 and Domain.orthant(1).contains(r.point)
    ans, r = epsilon_equivalent(CONE_A, ZERO2, WEDGE, 1)
    assert ans is True and r.upper == 1
    ans, r = epsilon_equivalent(CONE_A, ZERO2, WEDGE, Q(1, 2))
    assert ans is False and _fdev(CONE_A, ZERO2, r.point) > Fraction(1, 2)


def test_halfspace_rows_enter_the_lp_and_the_certificate():
    dom = Domain.cube(1, Q(-1), Q(2)).with_halfspaces([([Q(1)], Q(1))])    # [-1, 1]
    r = diff_bounds(ABS, HALF, dom)
    assert (r.lower, r.upper) == (Q(1, 2), Q(1, 2)) and r.point == (1,)
    cert = r.certificate
    assert cert["halfspaces"] == [{"a": [1], "b": 1}] and verify(cert)[0]
    bad = dict(cert, halfspaces=[{"a": [1], "b": 2}])       # the domain grows: max 1 > 1/2
    assert verify(bad)[0] is False
    assert diff_bounds(ABS, HALF, Domain.cube(1, Q(-1), Q(2))).upper == 1


# two networks of one shape (the NeuroDiff pair rows apply) with a kink at x = -1/3 and x = 1/2
PA = Network.from_rows([[[1], [-1], [1], [-1]], [[1, 1, 1, 1]]], [[0, 0, -1, 1], [0]])
PB = Network.from_rows([[[1], [-1], [2], [-1]], [["1/2", 1, 1, "3/2"]]], [[0, "1/3", -1, 1], [0]])


def _leaves_of(cert):
    out, stack = [], [ob["tree"] for ob in cert["objectives"]]
    while stack:
        t = stack.pop()
        stack += t.get("children", [])
        if "children" not in t:
            out.append(t)
    return out


@pytest.mark.parametrize("b, truth", [(Q(1), Q(4, 3)), (Q(1, 2), Q(13, 12))])
def test_halfspace_rows_with_pair_rows(b, truth):
    """Box [-2, 2] ∩ {-x <= b}: the truth is the region walk's maximum on [-b, 2] (11/6 on the
    whole box).  An LP leaf carries the pair rows' gamma, eta and the half-space's kappa at once;
    the checker recomputes its bound exactly (1e-12 less is rejected), and rejects a negative or
    missing kappa, kappa without the half-space, and a point outside the half-space."""
    assert max_deviation(PA, PB, (-b, Q(2))).value == truth
    r = diff_bounds(PA, PB, Domain.cube(1, Q(-2), Q(2)).with_halfspaces([([Q(-1)], b)]),
                    input_splits=True)      # input splits: an LP leaf with kappa and the pair rows
    assert (r.lower, r.upper, r.complete) == (truth, truth, True)
    cert = json.loads(json.dumps(jsonable(r.certificate)))
    assert cert["bounds"]["differential"] == "neurodiff" and verify(cert)[0]

    def both(c):
        return [t for t in _leaves_of(c) if "gamma" in t and "eta" in t and "kappa" in t
                and any(Q(v) != 0 for v in t["kappa"])]

    def rejected(c):
        try:
            return not verify(c)[0]
        except InputError:
            return True
    assert both(cert)
    for change in ("negative", "missing", "tighter"):
        m = copy.deepcopy(cert)
        leaf = both(m)[0]
        if change == "negative":
            leaf["kappa"] = [str(-Q(leaf["kappa"][0]))]
        elif change == "missing":
            del leaf["kappa"]
        else:
            leaf["bound"] = str(Q(leaf["bound"]) - Q(1, 10 ** 12))
        assert rejected(m), change
    m = copy.deepcopy(cert)
    del m["halfspaces"]
    assert rejected(m)
    m = copy.deepcopy(cert)
    m["point"] = [str(-b - 1)]                   # in the box, outside the half-space
    assert rejected(m)


def test_empty_domain_is_an_input_error():
    dom = Domain.cube(1, Q(0), Q(1)).with_halfspaces([([Q(1)], Q(-1))])      # x <= -1
    with pytest.raises(InputError, match="empty"):
        diff_bounds(ABS, HALF, dom)


def _z3_max(a, b, dom, bound=None):
    """z3's optimum of max_o |a_o - b_o| over the domain (exact rationals)."""
    z3 = pytest.importorskip("z3")
    xs = [z3.Real(f"x{i}") for i in range(a.n_inputs)]

    def net(n):
        h = xs
        for l, (W, bias) in enumerate(zip(n.weights, n.biases)):
            z = [sum((z3.RealVal(str(w)) * v for w, v in zip(row, h)), z3.RealVal(str(c)))
                 for row, c in zip(W.to_rows(), bias)]
            h = z if l == n.depth - 1 else [z3.If(v > 0, v, 0) for v in z]
        return h
    best = None
    for fa, fb in zip(net(a), net(b)):
        for s in (1, -1):
            opt = z3.Optimize()
            for row in dom.rows():
                opt.add(sum((z3.RealVal(str(c)) * v for c, v in zip(row[:-1], xs)), z3.RealVal(str(row[-1]))) >= 0)
            h = opt.maximize(s * (fa - fb))
            assert opt.check() == z3.sat
            val = opt.upper(h)
            assert z3.is_rational_value(val) or z3.is_int_value(val), val   # bounded: a number
            v = Fraction(str(val.as_fraction())) if z3.is_rational_value(val) else Fraction(val.as_long())
            best = v if best is None or v > best else best
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_halfspace_domain_against_z3(seed):
    rng = random.Random(seed)

    def rnd(shape):
        return [[Fraction(rng.randint(-4, 4), 2) for _ in range(shape[1])] for _ in range(shape[0])]
    W1, W2 = rnd((3, 2)), rnd((1, 3))
    a = Network.from_rows([W1, W2], [[Fraction(rng.randint(-2, 2), 2) for _ in range(3)], [0]])
    W1b = [row[:] for row in W1]
    W1b[0][0] += Fraction(1, 4)
    b = Network.from_rows([W1b, W2], [[Fraction(rng.randint(-2, 2), 2) for _ in range(3)], [0]])
    dom = Domain.cube(2, Q(-1), Q(1)).with_halfspaces([([Q(1), Q(1)], Q(1, 2)), ([Q(-1), Q(2)], Q(1))])
    r = diff_bounds(a, b, dom)
    truth = _z3_max(a, b, dom)
    assert r.lower <= Q(truth.numerator, truth.denominator) <= r.upper
    assert dom.contains(r.point) and verify(r.certificate)[0]
    if r.complete:
        assert r.lower == Q(truth.numerator, truth.denominator)


def test_no_upper_bound_within_the_budget_is_null_not_inf():
    r = diff_bounds(ABS, HALF, (-1, 2), budget=Budget(timeout=0.0), verify=False)
    j = r.to_json()
    assert r.upper is None and j["upper"] is None and not r.unbounded
    assert "no upper bound within the budget" in j["reason"] and j["complete"] is False


def test_self_check_goes_through_require_valid(monkeypatch):
    v = sys.modules["semialgebraic.verify"]
    monkeypatch.setattr(v, "verify", lambda cert: (False, "planted"))
    with pytest.raises(CertificateError, match="planted"):
        diff_bounds(ABS, HALF, (-1, 2))


def test_self_check_honours_the_budget(monkeypatch):
    v = sys.modules["semialgebraic.verify"]

    def slow(cert):
        time.sleep(30)
        return True, "late"
    monkeypatch.setattr(v, "verify", slow)
    start = time.monotonic()
    r = diff_bounds(ABS, HALF, (-1, 2), timeout=1.5)
    assert time.monotonic() - start < 10 and r.checked is None and r.upper == 1


# relu(x + y + 1) - relu(y) (other weights than b): the biases-free difference relu(r1 + r2) -
# relu(r2) is 0 on the recession cone {r1 = 0, r2 >= 0} of the mixed domain below (x in [-1, 1]
# on both sides, y >= -3 open above, and the half-space x + y >= -1), not on R^2
MIX_A = Network.from_rows([[[1, 1]], [[1]]], [[1], [0]])
MIX_B = Network.from_rows([[[0, 1]], [[1]]], [[0], [0]])
MIXED = Domain([Q(-1), Q(-3)], [Q(1), None]).with_halfspaces([([Q(-1), Q(-1)], Q(1))])


def test_R28_mixed_domain_gets_a_finite_bound_against_z3():
    """Half-spaces with a coordinate bounded on both sides (was ``upper: null``): B_q is
    [-1, 1] on x and one point on y; the interval contains z3's optimum (2, at x = 1)."""
    r = diff_bounds(MIX_A, MIX_B, MIXED)
    truth = _z3_max(MIX_A, MIX_B, MIXED)
    assert not r.unbounded and r.upper is not None and r.checked
    assert r.lower <= Q(truth.numerator, truth.denominator) <= r.upper and truth == 2
    # diff closes it by a body and the homogenised tail (three-layer-fibers R33, the domain's
    # rows homogenised in the faces): exact 2
    assert r.lower == r.upper == 2 and r.certificate["tail"]["kind"] == "homogenised"
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]
    # R28's certificate of the |W| bound, assembled from its parts
    from semialgebraic.bab.diff import bounded_diff
    from semialgebraic.bab.recession import apex_box, bias_free
    from semialgebraic.certificates.bab_recession import bab_recession_certificate
    sub = bounded_diff(bias_free(MIX_A), bias_free(MIX_B), cone_domain(MIXED), Budget(None), Q(0))
    qbox = apex_box(MIXED)
    E = deviation_bound(difference_network(MIX_A, MIX_B), qbox)
    cert = bab_recession_certificate(MIX_A, MIX_B, MIXED, cone=sub.certificate, decomposition=qbox,
                                     upper=max(max(E), r.lower), lower=r.lower, point=r.point,
                                     output=r.output)
    cert = json.loads(json.dumps(jsonable(cert)))
    assert "cone" in cert and verify(cert)[0]
    assert [Fraction(str(v)) for v in cert["decomposition"][0]] == [-1, 1]
    p = Fraction(str(cert["decomposition"][1][0]))
    assert p == Fraction(str(cert["decomposition"][1][1])) and p <= -2     # y: one point, x + y >= -1
    bad = copy.deepcopy(cert)
    bad["decomposition"][1] = ["0", "0"]      # -x - y <= 1 no longer forces y >= p on the cone
    assert verify(bad)[0] is False
    bad = copy.deepcopy(cert)
    bad["decomposition"][0] = ["0", "1"]      # misses x in [-1, 0)
    assert verify(bad)[0] is False
    assert diff_bounds(MIX_A, MIX_B, Domain.whole(2)).unbounded       # off the cone it grows


def test_R28_slab_has_no_decomposition_box():
    """A slab |x + y| <= 1 (lineality along x - y, where the difference is 0): bounded, but no
    box B_q with the slab inside B_q + C: the upper bound stays null, with the reason."""
    a = Network.from_rows([[[1, 1]], [[1]]], [[1], [0]])
    b = Network.from_rows([[[2, 2]], [["1/2"]]], [[0], [0]])
    slab = Domain.whole(2).with_halfspaces([([Q(1), Q(1)], Q(1)), ([Q(-1), Q(-1)], Q(1))])
    r = diff_bounds(a, b, slab)
    assert not r.unbounded and r.upper is None and "slab" in r.reason
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]


def test_no_timeout_still_ends_on_a_tiny_slope():
    """An outsider's 2-5-4-1 pair, every weight moved by ~1e-3 (session 31): on R^d the
    biases-free a − b has a slope of ~2e-7 on the recession cone.  Without a timeout the
    objectives ran one after another and the first never closed against ε = 0 (no answer in 600
    s; 14 s with ``--timeout 60``); in rounds of node slices the one with a point above 0 ends
    the search: +∞ with a certified ray in a few hundred nodes (a node budget keeps this test
    from hanging if that breaks)."""
    from algebra import load
    a, b = load("tests/cases/rd_slope_a.json"), load("tests/cases/rd_slope_b.json")
    r = diff_bounds(a, b, Domain([None] * 2, [None] * 2), budget=Budget(max_regions=20000))
    assert r.unbounded and r.complete and r.nodes < 5000, (r.nodes, r.reason)
    assert verify(jsonable(r.certificate))[0]
    ok, r = epsilon_equivalent(a, b, Domain([None] * 2, [None] * 2), 1, budget=Budget(max_regions=20000))
    assert ok is False and r.lower > 1
    # with a timeout the sign question on the cone (ε = 0) runs in node rounds too (session 32:
    # 14.0 s in time slices, 0.4 s in node rounds, at --timeout 60): work counted, not time
    r = diff_bounds(a, b, Domain([None] * 2, [None] * 2), timeout=600)
    assert r.unbounded and r.complete and r.nodes < 5000, (r.nodes, r.reason)
