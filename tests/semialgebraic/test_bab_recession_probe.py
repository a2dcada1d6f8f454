"""``diff`` on unbounded domains: the tail's cover probes exact points (a real lower bound), and
its reason says why an answer is open (three-layer-fibers R28, R29).  Oracles that share nothing
with netfibers: an exact piecewise-linear walk on R (d = 1, fractions only), z3 with unbounded
reals (d = 2)."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds, epsilon_equivalent
from semialgebraic.certificates import jsonable
from semialgebraic.verify import verify

from .test_bab_recession import _z3_max

EXAMPLES = Path(__file__).resolve().parents[2] / "algebra" / "examples"


def _raw(path):
    """(weights, biases) as Fractions, read from the JSON file itself (no netfibers loader)."""
    d = json.loads(path.read_text())
    return [([[Fraction(str(w)) for w in row] for row in L["weight"]], [Fraction(str(c)) for c in L["bias"]])
            for L in d["layers"]]


def _eval(layers, x):
    """The network at *x*, in fractions (the oracle's own evaluation)."""
    h = [Fraction(str(v)) for v in x]
    for k, (W, b) in enumerate(layers):
        h = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + c for row, c in zip(W, b)]
        if k < len(layers) - 1:
            h = [max(v, Fraction(0)) for v in h]
    return h


def _dev(la, lb, x):
    return max(abs(p - q) for p, q in zip(_eval(la, x), _eval(lb, x)))


def _js(cert):
    return json.loads(json.dumps(jsonable(cert)))


def _q(f: Fraction):
    return Q(f.numerator, f.denominator)


# ---- the audit's example: t1_masked vs t1_translated_2 on all of R^2 (sup |a - b| = 1) ----

def _t1_pair():
    from algebra.io import load
    return (load(str(EXAMPLES / "t1_masked.json")), load(str(EXAMPLES / "t1_translated_2.json")),
            _raw(EXAMPLES / "t1_masked.json"), _raw(EXAMPLES / "t1_translated_2.json"))


def test_audit_t1_translated_2_on_R2_has_lower_bound_one():
    a, b, la, lb = _t1_pair()
    assert _dev(la, lb, (-3, -3)) == 1                       # the audit's point
    r = diff_bounds(a, b, Domain.whole(2))
    assert not r.unbounded and r.checked
    assert r.lower == 1 and _dev(la, lb, r.point) == 1       # attained at the returned point
    assert r.upper == 1 and r.complete                        # the tail's caps: exact (R29)
    cert = _js(r.certificate)
    assert cert["type"] == "bab_recession" and verify(cert)[0]
    bad = copy.deepcopy(cert)
    bad["lower"] = "3/2"                                     # above the point's value
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["point"] = ["0", "0"]                                # |a - b| = 0 there
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)                                # a tail leaf below the caps' bound
    stack = [f for f in bad["tail"]["faces"] if f is not None]
    while stack:
        node = stack.pop()
        if "bound" in node and Fraction(str(node["bound"])) == 1:
            node["bound"] = "1/2"
            break
        stack.extend(node.get("children", []))
    else:
        pytest.fail("no leaf of bound 1")
    ok, why = verify(bad)                                    # only that leaf claims less
    assert not ok and "1/2" in why, why


def test_audit_t1_translated_2_max_by_z3():
    a, b, _, _ = _t1_pair()
    assert _z3_max(a, b, Domain.whole(2)) == 1               # the exact max (z3, unbounded reals)


def test_tail_caps_make_the_t1_tail_bound_one():
    # without the caps the ρ rule's hull stays at 4 on the cells where a's neuron is off and
    # b's twin on both sides (the second neuron of layer 2); the caps bound relu(z_b) by 1
    from semialgebraic.bab.recession import tail_cells
    from semialgebraic.budget import Budget
    a, b, _, _ = _t1_pair()
    for R in (1, 8, 1000):
        st = {}
        t, faces = tail_cells(a, b, Domain.whole(2), Q(R), Budget(None), target=Q(0), stats=st)
        assert t == 1 and st["stop"] == "stall"


def test_stalled_tail_is_closed_by_the_homogenised_tail():
    # seed 9 of the d = 2 sweep on the orthant: R29's cover stalls at 17/4 above the max 4
    # (test_bab_recession_homog); the homogenised tail (three-layer-fibers R33) proves 4
    rng = random.Random(109)
    widths = (2, 3, 2, 1)
    Ws = [[[Fraction(rng.randint(-4, 4), 2) for _ in range(p)] for _ in range(q)] for p, q in zip(widths, widths[1:])]
    bs = [[Fraction(rng.randint(-4, 4), 2) for _ in range(q)] for q in widths[1:]]
    bs2 = [[v + Fraction(rng.randint(-4, 4), 2) for v in bv] for bv in bs]
    a, b = Network.from_rows(Ws, bs), Network.from_rows(Ws, bs2)
    r = diff_bounds(a, b, Domain.orthant(2))
    assert (r.lower, r.upper, r.complete) == (4, 4, True) and r.reason == "lower = upper"
    assert _dev(list(zip(Ws, bs)), list(zip(Ws, bs2)), r.point) == 4
    assert _z3_max(a, b, Domain.orthant(2)) == 4             # the truth (skipped without z3)


def test_audit_t1_translated_2_epsilon_half_refuted_with_a_point():
    a, b, la, lb = _t1_pair()
    ans, r = epsilon_equivalent(a, b, Domain.whole(2), Q(1, 2))
    assert ans is False and _dev(la, lb, r.point) > Fraction(1, 2)
    assert verify(_js(r.certificate))[0]
    ans, r = epsilon_equivalent(a, b, Domain.whole(2), Q(99, 100))
    assert ans is False and _dev(la, lb, r.point) == 1


# ---- d = 1: an exact walk over the breakpoints (fractions only) ----

def _pwl(layers, lo=None):
    """sup |f| of the 1-D network difference is read off its knots; returns the knots' set of
    every neuron of *layers* (each pre-activation is affine between them)."""
    knots = set()
    # each neuron's pre-activation is piecewise linear: walk layer by layer, adding its zeros
    # between known knots and on the two rays
    for depth in range(len(layers) - 1):
        pts = sorted(knots)
        probes = ([pts[0] - 1] if pts else [Fraction(-1)]) + pts + ([pts[-1] + 1] if pts else [Fraction(1)])
        # on each piece [p, q] (and the rays) the layer-depth pre-activations are affine
        pieces = list(zip(probes, probes[1:]))
        for p, q in pieces:
            zp = _pre(layers, depth, p)
            zq = _pre(layers, depth, q)
            for u, v in zip(zp, zq):
                if u != v:
                    t = p + (q - p) * u / (u - v)                 # the line's zero
                    inside = (p <= t <= q or (p == probes[0] and t < p) or (q == probes[-1] and t > q))
                    if inside:
                        knots.add(t)
    return knots


def _pre(layers, depth, x):
    h = [Fraction(x)]
    for k, (W, b) in enumerate(layers[:depth + 1]):
        h = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + c for row, c in zip(W, b)]
        if k < depth:
            h = [max(v, Fraction(0)) for v in h]
    return h


def _walk_max(la, lb, lo=None):
    """The exact sup of |a - b| over R (or [lo, oo)), or None when it is +oo."""
    knots = sorted(k for k in _pwl(la) | _pwl(lb) if lo is None or k >= lo)
    if lo is not None:
        knots = [Fraction(lo)] + knots
    if not knots:
        knots = [Fraction(0)]
    left, right = knots[0] - 1, knots[-1] + 1
    far = [right] + ([] if lo is not None else [left])
    for x in far:                                  # beyond every knot: affine, bounded iff flat
        y = x + (1 if x == right else -1)
        if any((p - q) != (pp - qq) for p, q, pp, qq in
               zip(_eval(la, [x]), _eval(lb, [x]), _eval(la, [y]), _eval(lb, [y]))):
            return None
    return max(_dev(la, lb, [x]) for x in knots + far)


def _random_1d(rng, same=True):
    widths = (1, rng.randint(1, 3), rng.randint(1, 3), 1)
    Ws = [[[Fraction(rng.randint(-4, 4), 2) for _ in range(p)] for _ in range(q)] for p, q in zip(widths, widths[1:])]
    bs = [[Fraction(rng.randint(-4, 4), 2) for _ in range(q)] for q in widths[1:]]
    bs2 = [[v + Fraction(rng.randint(-4, 4), 4) for v in bv] for bv in bs]
    Ws2 = copy.deepcopy(Ws) if same else [[[w + Fraction(rng.randint(-1, 1), 4) for w in row] for row in W] for W in Ws]
    return list(zip(Ws, bs)), list(zip(Ws2, bs2))


def _check_1d(la, lb, dom, lo=None):
    a = Network.from_rows([W for W, _ in la], [b for _, b in la])
    b = Network.from_rows([W for W, _ in lb], [b for _, b in lb])
    truth = _walk_max(la, lb, lo)
    r = diff_bounds(a, b, dom)
    if truth is None:
        assert r.unbounded and r.complete
        return r
    assert not r.unbounded and dom.contains(r.point)
    assert _dev(la, lb, r.point) == Fraction(str(r.lower))          # lower attained
    assert r.lower <= _q(truth) and (r.upper is None or _q(truth) <= r.upper)
    if r.complete:
        assert r.lower == _q(truth)
    assert verify(_js(r.certificate))[0]
    return r


@pytest.mark.parametrize("seed", range(6))
def test_d1_random_pairs_against_the_exact_walk(seed):
    rng = random.Random(seed)
    la, lb = _random_1d(rng, same=seed % 3 != 2)
    _check_1d(la, lb, Domain.whole(1))
    _check_1d(la, lb, Domain.orthant(1), lo=0)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10 ** 6), st.booleans())
def test_d1_hypothesis_pairs_against_the_exact_walk(seed, whole):
    la, lb = _random_1d(random.Random(seed))
    if whole:
        _check_1d(la, lb, Domain.whole(1))
    else:
        _check_1d(la, lb, Domain.orthant(1), lo=0)


# ---- d = 2: z3 with unbounded reals ----

@pytest.mark.parametrize("seed,name", [(0, "R^2"), (1, "orthant"), (2, "R^2"), (3, "orthant")])
def test_d2_bias_shifted_pairs_against_z3(seed, name):
    rng = random.Random(100 + seed)
    widths = (2, 3, 2, 1)
    Ws = [[[Fraction(rng.randint(-4, 4), 2) for _ in range(p)] for _ in range(q)] for p, q in zip(widths, widths[1:])]
    bs = [[Fraction(rng.randint(-4, 4), 2) for _ in range(q)] for q in widths[1:]]
    bs2 = [[v + Fraction(rng.randint(-4, 4), 2) for v in bv] for bv in bs]
    a, b = Network.from_rows(Ws, bs), Network.from_rows(Ws, bs2)
    la, lb = list(zip(Ws, bs)), list(zip(Ws, bs2))
    dom = Domain.whole(2) if name == "R^2" else Domain.orthant(2)
    truth = _z3_max(a, b, dom)
    r = diff_bounds(a, b, dom)
    assert not r.unbounded and dom.contains(r.point) and r.checked
    assert _dev(la, lb, r.point) == Fraction(str(r.lower))
    assert r.lower <= _q(truth) and (r.upper is None or _q(truth) <= r.upper)
    if r.complete:
        assert r.lower == _q(truth)
    assert verify(_js(r.certificate))[0]


def test_cli_audit_example_exact_and_refuted(capsys):
    """The audit's commands: ``diff`` on all of R^2 exits 0 with max 1, ``equiv --epsilon 1/2``
    exits 1 with a point where |a - b| > 1/2."""
    from semialgebraic.cli import main
    a, b = str(EXAMPLES / "t1_masked.json"), str(EXAMPLES / "t1_translated_2.json")
    code = main(["diff", a, b, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and (data["lower"], data["upper"], data["complete"]) == ("1", "1", True)
    la, lb = _raw(EXAMPLES / "t1_masked.json"), _raw(EXAMPLES / "t1_translated_2.json")
    assert _dev(la, lb, [Fraction(str(v)) for v in data["point"]]) == 1
    code = main(["equiv", a, b, "--epsilon", "1/2"])
    out = capsys.readouterr().out
    assert code == 1 and "> 1/2" in out


# ---- s37 eps audit O1: a tail point of the first homogenised search was dropped ----

def test_tail_point_of_a_first_homogenised_search_is_kept(monkeypatch):
    # the audit's pair (same weights, one bias moved; sup |a - b| = 18 on R^2, z3): `diff
    # --timeout 30` reported [0, 40] at (-1, -1): the homogenised tail at M = 0 found a point
    # of deviation 18, the second search (at M = 18, stopped by the budget) returned no point,
    # and its None replaced the first one.  Here the two searches are the budget's outcome,
    # replayed: the first stops with the point, the second with none (three-layer-fibers R33)
    import semialgebraic.bab.recession as rec
    from algebra.io import load
    cases = Path(__file__).resolve().parents[1] / "cases"
    pa, pb = cases / "bias_far_2_3_3_2_2_a.json", cases / "bias_far_2_3_3_2_2_b.json"
    a, b, la, lb = load(str(pa)), load(str(pb)), _raw(pa), _raw(pb)
    x = (Q(1001), Q(1000))
    assert _dev(la, lb, (1001, 1000)) == 18                  # the oracle's value there
    calls = []

    def homog(a_, b_, dom, radius, M, budget, eps=None, input_splits=None, stats=None):
        calls.append(Q(M))
        if stats is not None:
            stats["stop"] = "budget"
        devs = [abs(p - q) for p, q in zip(a_.evaluate(x), b_.evaluate(x))]
        return None, ((max(devs), x, devs.index(max(devs)), devs) if len(calls) == 1 else None)
    monkeypatch.setattr(rec, "homogenised_tail", homog)
    r = diff_bounds(a, b, Domain.whole(2))
    assert len(calls) >= 2 and calls[1] == 18                # the second search ran, at 18
    assert r.lower == 18 and _dev(la, lb, r.point) == 18
    assert r.upper is not None and r.upper >= 18 and r.certificate["type"] == "bab_recession"
    assert verify(_js(r.certificate))[0]
