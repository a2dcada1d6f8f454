"""Single-neuron cuts in the branch and bound (Anderson et al. 2020; three-layer-fibers R30, R31):
values against the region walk, every emitted cut valid by brute force, mutations rejected."""

from __future__ import annotations

import copy
import itertools
import json
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.exceptions import InputError
from algebra.kernel import difference_network
from algebra.kernel.knapsack import relu_cut_rhs
from algebra.network import Network
from algebra.rationals import Q, from_float, to_q
from algebra.symmetries import apply_path, path_from_json
import semialgebraic.bab.cuts as cuts_module
from semialgebraic.bab import diff_bounds
from semialgebraic.bab.search import Engine, _lp_bound
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import max_deviation
from semialgebraic.verify import verify
from .test_bab import _net   # (random small integer networks)


def _json(c):
    return json.loads(json.dumps(jsonable(c)))


def _float_pair(widths, seed):
    """A float32 network and its float16 copy (exact rationals), normal weights."""
    rng = np.random.default_rng(seed)
    Ws = [rng.normal(0, 1, (widths[i + 1], widths[i])).astype(np.float32) for i in range(len(widths) - 1)]
    bs = [(0.3 * rng.normal(size=widths[i + 1])).astype(np.float32) for i in range(len(widths) - 1)]

    def net(dt):
        return Network.from_rows([[[from_float(v) for v in row.astype(dt)] for row in W] for W in Ws],
                                 [[from_float(v) for v in b.astype(dt)] for b in bs])
    return net(np.float32), net(np.float16)


def _leaves_with_cuts(cert):
    """``(leaf, box, splits)`` of every leaf holding cuts (input splits replayed)."""
    out = []
    box0 = [(to_q(lo), to_q(hi)) for lo, hi in cert["box"]]
    for ob in cert["objectives"]:
        stack = [(ob["tree"], box0, {})]
        while stack:
            t, box, splits = stack.pop()
            if "split" in t:
                sp = t["split"]
                for side, ch in enumerate(t["children"]):
                    if sp[0] == "x":
                        sub = list(box)
                        lo, hi = box[sp[1]]
                        mid = to_q(sp[2])
                        sub[sp[1]] = (lo, mid) if side == 0 else (mid, hi)
                        stack.append((ch, sub, splits))
                    else:
                        stack.append((ch, box, {**splits, tuple(sp): side}))
            elif "cuts" in t:
                out.append((t, box, splits))
    return out


def _layers(a, b, cert):
    """The rows of D = a − b', b' = b after the certificate's alignment (its trees' network)."""
    b = apply_path(b, path_from_json(cert.get("b_aligned_by", [])))
    D = difference_network(a, b)
    return ([[[F(str(v)) for v in row] for row in W.to_rows()] for W in D.weights],
            [[F(str(v)) for v in bv] for bv in D.biases])


def _forward(Ws, bs, x):
    """Every layer's pre-activations at *x* (Fractions)."""
    h, out = list(x), []
    for l, (W, b) in enumerate(zip(Ws, bs)):
        z = [sum(w * v for w, v in zip(row, h)) + bj for row, bj in zip(W, b)]
        out.append(z)
        h = [max(v, F(0)) for v in z]
    return out


def _resolved(cert, ent):
    """The cut of a leaf's entry (an index into the certificate's table, or inline)."""
    return cert["cuts"][ent["cut"]] if type(ent["cut"]) is int else ent["cut"]


def _brute_valid(cut, Ws, bs, box, splits, samples):
    """The cut holds at every box vertex (layer 0: the exact maximum of the convex ``α·x +
    relu(w·x + b)``, β = 1 >= 0) and at every sample of the leaf (its splits' signs)."""
    l, j = cut["at"]
    alpha = {k: F(str(v)) for k, v in cut["alpha"]}
    beta, delta = F(str(cut["beta"])), F(str(cut["delta"]))
    j2, beta2 = (cut["pair"][0], F(str(cut["pair"][1]))) if "pair" in cut else (None, F(0))
    if l == 0 and beta >= 0 and j2 is None:
        for v in itertools.product(*[(F(str(lo)), F(str(hi))) for lo, hi in box]):
            y = max(sum(w * x for w, x in zip(Ws[0][j], v)) + bs[0][j], F(0))
            if sum(a * v[k] for k, a in alpha.items()) + beta * y > delta:
                return False
    for x in samples:
        if not all(F(str(lo)) <= xi <= F(str(hi)) for xi, (lo, hi) in zip(x, box)):
            continue
        zs = _forward(Ws, bs, x)
        if any((zs[sl][sj] >= 0) != (side == 1) and zs[sl][sj] != 0 for (sl, sj), side in splits.items()):
            continue
        prev = list(x) if l == 0 else [max(v, F(0)) for v in zs[l - 1]]
        other = beta2 * max(zs[l][j2], F(0)) if j2 is not None else F(0)
        if sum(a * prev[k] for k, a in alpha.items()) + beta * max(zs[l][j], F(0)) + other > delta:
            return False
    return True


def _samples(box, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        out.append([F(str(lo)) + (F(str(hi)) - F(str(lo))) * F(int(rng.integers(0, 65)), 64) for lo, hi in box])
    return out


@pytest.fixture(scope="module")
def deferred_runs():
    """The 3-6-6-1 near copy searched with cuts at every node, once with the exact δ made
    eagerly and once deferred (the default, :data:`LAZY_DELTA`): ``{lazy: (a, b, r, calls of
    relu_cut_rhs, certificate JSON)}``.  Shared by :func:`cut_cert` (the deferred run) and
    :func:`test_deferred_delta_same_search_and_certificate`; tests deep-copy before mutating.
    (The 3-8-6-1 pair of the pair-cut tests took 1.6 s more here; on this one deferring still
    computes fewer exact right-hand sides, every mutation is still rejected.)"""
    a, b = _float_pair([3, 6, 6, 1], 2)
    box = [(Q(-1), Q(1))] * 3
    out = {}
    for lazy in (False, True):
        calls = [0]
        real = cuts_module.relu_cut_rhs

        def counted(*xs, _real=real, _calls=calls):
            _calls[0] += 1
            return _real(*xs)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(cuts_module, "PAY_GAIN", 0.0)          # cuts below the root whatever the root gained
            mp.setattr(cuts_module, "LAZY_DELTA", lazy)
            mp.setattr(cuts_module, "relu_cut_rhs", counted)
            r = diff_bounds(a, b, box, input_splits=False)
        out[lazy] = (a, b, r, calls[0], _json(r.certificate))
    return out


@pytest.fixture(scope="module")
def cut_cert(deferred_runs):
    assert cuts_module.LAZY_DELTA                          # the default: the deferred run is the plain search
    a, b, r, _, cert = deferred_runs[True]
    assert r.complete
    return a, b, r, cert


def test_cuts_tighten_the_root_bound():
    """Digits-like near copy, one objective: the root's certified LP bound with cut rounds is
    below the triangle LP's (values asserted)."""
    a, b = _float_pair([4, 12, 8, 2], 0)
    D = difference_network(a, b)
    Ws = [W.to_rows() for W in D.weights]
    bs = [list(v) for v in D.biases]
    box = [(Q(-1), Q(1))] * 4
    c = [Q(1), Q(0)]
    plain = Engine(Ws, bs, paired=True, cuts=False)
    cut = Engine(Ws, bs, paired=True, cuts=True)
    ivs = plain.node(box, {})[0]
    assert cut.node(box, {})[0] == ivs
    kw = dict(template=plain.template, lines=plain.pair_lines(box, {}), memo={})
    without = _lp_bound(Ws, bs, box, ivs, c, plain.sym, **kw)
    withcuts = _lp_bound(Ws, bs, box, ivs, c, cut.sym, separator=cut.separator, root=True, **kw)
    assert withcuts[0] < without[0]
    assert len(withcuts[1]) == 7 and withcuts[1][6]          # the cut part of the multipliers
    assert all(ent["rho"] > 0 for ent in withcuts[1][6])


def test_certificate_with_cuts_verifies_and_cuts_are_valid(cut_cert):
    a, b, r, cert = cut_cert
    assert r.lower == r.upper and r.complete            # (the walk's value: the hypothesis test below)
    ok, why = verify(cert)
    assert ok, why
    leaves = _leaves_with_cuts(cert)
    assert leaves
    layers = {_resolved(cert, ent)["at"][0] for leaf, _, _ in leaves for ent in leaf["cuts"]}
    assert layers == {0, 1}                                   # cuts of both hidden layers
    assert len(cert["cuts"]) < sum(len(leaf["cuts"]) for leaf, _, _ in leaves)   # one table entry per cut
    Ws, bs = _layers(a, b, cert)
    samples = _samples(cert["box"], 10, 0)
    for leaf, box, splits in leaves[:4]:
        for ent in leaf["cuts"]:
            assert ent["rho"] != "0" and not str(ent["rho"]).startswith("-")
            assert _brute_valid(_resolved(cert, ent), Ws, bs, box, splits, samples)


def _rejected(c):
    try:
        return not verify(c)[0]
    except InputError:
        return True


def _layer0_cut(cert):
    """``(leaf index, entry index)`` of a cut of layer 0 (its box is the certificate's)."""
    for i, (leaf, _, _) in enumerate(_leaves_with_cuts(cert)):
        for k, ent in enumerate(leaf["cuts"]):
            if _resolved(cert, ent)["at"][0] == 0 and "pair" not in _resolved(cert, ent):
                return i, k
    raise AssertionError("no layer-0 cut")


def _entry(c, where):
    i, k = where
    return _leaves_with_cuts(c)[i][0]["cuts"][k]


def _cut_at(c, where):
    return _resolved(c, _entry(c, where))


def test_mutations_rejected(cut_cert):
    a, b, _, cert = cut_cert
    Ws, bs = _layers(a, b, cert)
    box = [(to_q(lo), to_q(hi)) for lo, hi in cert["box"]]
    where = _layer0_cut(cert)
    base = _cut_at(cert, where)
    l, j = base["at"]
    n = len(box)
    alpha = [Q(0)] * n
    for k, v in base["alpha"]:
        alpha[k] = to_q(v)
    row = [Q(int(v.numerator), int(v.denominator)) for v in Ws[0][j]]
    bias = Q(int(bs[0][j].numerator), int(bs[0][j].denominator))
    least = relu_cut_rhs(alpha, to_q(base["beta"]), row, bias, box)
    assert least == to_q(base["delta"])              # the search's δ is the least valid one
    # δ lowered
    c = copy.deepcopy(cert)
    _cut_at(c, where)["delta"] = str(least - Q(1, 10 ** 6))
    assert _rejected(c)
    # α changed (towards the maximiser's vertex: the least valid δ grows)
    grown = False
    for k in range(n):
        for step in (Q(1), Q(-1)):
            trial = list(alpha)
            trial[k] += step
            if relu_cut_rhs(trial, to_q(base["beta"]), row, bias, box) > least:
                c = copy.deepcopy(cert)
                _cut_at(c, where)["alpha"] = [[kk, str(v)] for kk, v in enumerate(trial) if v != 0]
                assert _rejected(c)
                grown = True
                break
        if grown:
            break
    assert grown
    # attached to the wrong neuron (one whose least valid δ is larger)
    moved = False
    for jj in range(len(Ws[0])):
        other = [Q(int(v.numerator), int(v.denominator)) for v in Ws[0][jj]]
        ob = Q(int(bs[0][jj].numerator), int(bs[0][jj].denominator))
        if jj != j and relu_cut_rhs(alpha, to_q(base["beta"]), other, ob, box) > least:
            c = copy.deepcopy(cert)
            _cut_at(c, where)["at"] = [0, jj]
            assert _rejected(c)
            moved = True
            break
    assert moved
    # the box widened: δ made on a narrower box than the leaf's is not valid on the leaf
    narrow = [(lo / 2, hi / 2) for lo, hi in box]
    small = relu_cut_rhs(alpha, to_q(base["beta"]), row, bias, narrow)
    assert small < least
    c = copy.deepcopy(cert)
    _cut_at(c, where)["delta"] = str(small)
    assert _rejected(c)
    # a negative multiplier; malformed cuts
    c = copy.deepcopy(cert)
    _entry(c, where)["rho"] = "-1/1000"
    assert _rejected(c)
    c = copy.deepcopy(cert)
    _entry(c, where)["cut"] = len(c["cuts"])                  # an index out of the table
    assert _rejected(c)
    for bad in ({"at": [5, 0]}, {"alpha": [[99, "1"]]}, {"beta": 0.5}, {"extra": 1}):
        c = copy.deepcopy(cert)
        _cut_at(c, where).update(bad)
        assert _rejected(c)
    # unchanged: accepted
    assert verify(copy.deepcopy(cert))[0]


@st.composite
def pairs(draw):
    d = draw(st.integers(1, 3))
    hidden = draw(st.lists(st.integers(2, 4), min_size=1, max_size=2))
    widths = [d] + hidden + [1]
    return _net(draw, widths), _net(draw, widths), (draw(st.integers(-2, 0)), draw(st.integers(1, 2)))


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs())
def test_bab_with_cuts_equals_region_walk(case):
    """With cuts (the default): the branch-and-bound maximum is the region walk's exact value,
    the certificate verifies and every cut it holds is valid by brute force.  (Five draws in
    the fast suite; the slow twin below draws twenty.)"""
    _cuts_equal_the_walk(case)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs())
def test_bab_with_cuts_equals_region_walk_many(case):
    _cuts_equal_the_walk(case)


def _cuts_equal_the_walk(case):
    a, b, box = case
    exact = max_deviation(a, b, box).value
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cuts_module, "PAY_GAIN", 0.0)          # cuts at every node
        r = diff_bounds(a, b, box, input_splits=False)
    assert r.lower == exact == r.upper and r.complete
    cert = _json(r.certificate)
    assert verify(cert)[0]
    Ws, bs = _layers(a, b, cert)
    samples = _samples(cert["box"], 12, 1)
    for leaf, lbox, splits in _leaves_with_cuts(cert):
        for ent in leaf["cuts"]:
            assert _brute_valid(_resolved(cert, ent), Ws, bs, lbox, splits, samples)


# ---- pair cuts (rows of a neuron of a and its copy in b: the input-space hull of the pair) ----

from algebra.kernel.knapsack import PAIR_REGIONS, pair_cut_rhs, pair_region_max   # noqa: E402


def _pair_lhs(alpha, ba, bb, wa, ca, wb, cb, x):
    za = sum(w * v for w, v in zip(wa, x)) + ca
    zb = sum(w * v for w, v in zip(wb, x)) + cb
    return sum(a * v for a, v in zip(alpha, x)) + ba * max(za, 0) + bb * max(zb, 0)


_small = st.integers(-4, 4).map(lambda v: Q(v, 2))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3).flatmap(lambda d: st.tuples(
    st.lists(_small, min_size=d, max_size=d), _small, _small,
    st.lists(_small, min_size=d, max_size=d), _small, st.lists(_small, min_size=d, max_size=d), _small,
    st.lists(st.integers(0, 8).map(lambda v: Q(v, 4)), min_size=4, max_size=4))))
def test_pair_cut_rhs_bounds_every_point(case):
    """pair_cut_rhs (any μ >= 0, three-layer-fibers R32) is at least the row's value at every point of a grid of the
    box, and every region's bound with μ = 0 is at least the region's grid maximum."""
    alpha, ba, bb, wa, ca, wb, cb, mus = case
    d = len(alpha)
    box = [(Q(-1), Q(1))] * d
    bound = pair_cut_rhs(alpha, ba, bb, wa, ca, wb, cb, box, mus)
    grid = list(itertools.product(*[[Q(k, 4) for k in range(-4, 5)]] * d))
    assert all(_pair_lhs(alpha, ba, bb, wa, ca, wb, cb, x) <= bound for x in grid)
    for region in PAIR_REGIONS:
        inside = [x for x in grid
                  if ((sum(w * v for w, v in zip(wa, x)) + ca >= 0) == bool(region[0]) or sum(w * v for w, v in zip(wa, x)) + ca == 0)
                  and ((sum(w * v for w, v in zip(wb, x)) + cb >= 0) == bool(region[1]) or sum(w * v for w, v in zip(wb, x)) + cb == 0)]
        got = pair_region_max(alpha, ba, bb, wa, ca, wb, cb, box, region, Q(0))
        if inside:
            assert got is not None and got >= max(_pair_lhs(alpha, ba, bb, wa, ca, wb, cb, x) for x in inside)
    with pytest.raises(ValueError):
        pair_cut_rhs(alpha, ba, bb, wa, ca, wb, cb, box, [Q(-1, 8)] + mus[1:])


def test_pair_cut_rhs_values():
    """relu(x) − relu(x − 1/2) on [−1, 1]: its maximum 1/2 with the right multipliers, a valid
    but larger bound with none (μ = 0 drops the second neuron's half-space)."""
    box = [(Q(-1), Q(1))]
    args = ([Q(0)], Q(1), Q(-1), [Q(1)], Q(0), [Q(1)], Q(-1, 2), box)
    assert pair_cut_rhs(*args, [Q(0), Q(1), Q(2), Q(0)]) == Q(1, 2)
    assert pair_cut_rhs(*args, [Q(0)] * 4) == Q(3, 2)


@pytest.fixture(scope="module")
def pair_cert():
    a, b = _float_pair([3, 8, 6, 1], 2)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cuts_module, "PAY_GAIN", 0.0)
        mp.setattr(cuts_module, "PAIR_CUTS", True)        # (off by default)
        r = diff_bounds(a, b, [(Q(-1), Q(1))] * 3, input_splits=False)
    assert r.complete
    return a, b, r, _json(r.certificate)


def _pair_cut_where(cert):
    for i, (leaf, _, _) in enumerate(_leaves_with_cuts(cert)):
        for k, ent in enumerate(leaf["cuts"]):
            cut = _resolved(cert, ent)
            if "pair" in cut and cut["at"][0] == 0 and ent["rho"] != "0":
                return i, k
    raise AssertionError("no pair cut of layer 0 with a positive multiplier")


def test_pair_cuts_in_certificate_valid_and_mutations_rejected(pair_cert):
    """The search's certificate of a near copy holds pair cuts, each valid by
    brute force; the checker rejects a δ below the bound its μ prove, a negative μ, a pair
    naming the neuron itself or missing its μ, and a β_2 that makes the row invalid."""
    a, b, r, cert = pair_cert
    assert r.lower == r.upper
    assert verify(copy.deepcopy(cert))[0]
    Ws, bs = _layers(a, b, cert)
    leaves = _leaves_with_cuts(cert)
    pairs = [(_resolved(cert, e), lbox, sp) for leaf, lbox, sp in leaves for e in leaf["cuts"]
             if "pair" in _resolved(cert, e)]
    assert pairs and 0 in {c["at"][0] for c, _, _ in pairs}
    samples = _samples(cert["box"], 12, 3)
    for cut, lbox, sp in pairs[:12]:
        assert cut["pair"][0] == cut["at"][1] + len(Ws[cut["at"][0]]) // 2     # its copy in b
        assert _brute_valid(cut, Ws, bs, lbox, sp, samples)
    where = _pair_cut_where(cert)
    base = _cut_at(cert, where)
    box = [(to_q(lo), to_q(hi)) for lo, hi in cert["box"]]
    l, j = base["at"]
    n = len(box)
    alpha = [Q(0)] * n
    for k, v in base["alpha"]:
        alpha[k] = to_q(v)
    row = lambda jj: ([Q(int(v.numerator), int(v.denominator)) for v in Ws[0][jj]],
                      Q(int(bs[0][jj].numerator), int(bs[0][jj].denominator)))
    mus = [to_q(v) for v in base["mu"]]
    j2, b2 = base["pair"][0], to_q(base["pair"][1])
    proved = pair_cut_rhs(alpha, to_q(base["beta"]), b2, *row(j), *row(j2), box, mus)
    assert proved == to_q(base["delta"])
    c = copy.deepcopy(cert)
    _cut_at(c, where)["delta"] = str(proved - Q(1, 10 ** 9))
    assert _rejected(c)
    c = copy.deepcopy(cert)
    _cut_at(c, where)["mu"] = ["-1/1000"] + base["mu"][1:]
    assert _rejected(c)
    for bad in ({"pair": [j, base["pair"][1]]}, {"pair": [99, base["pair"][1]]}, {"mu": base["mu"][:3]}):
        c = copy.deepcopy(cert)
        _cut_at(c, where).update(bad)
        assert _rejected(c)
    c = copy.deepcopy(cert)
    del _cut_at(c, where)["mu"]
    assert _rejected(c)
    grown = False
    for step in (Q(1, 2), Q(-1, 2), Q(2), Q(-2)):
        if pair_cut_rhs(alpha, to_q(base["beta"]), b2 + step, *row(j), *row(j2), box, mus) > proved:
            c = copy.deepcopy(cert)
            _cut_at(c, where)["pair"] = [j2, str(b2 + step)]
            assert _rejected(c)
            grown = True
            break
    assert grown


def test_pair_cuts_tighten_the_root_bound():
    """Digits-like near copy, one objective: the certified root bound with pair cuts is below
    the one with the single-neuron cuts alone (values asserted)."""
    a, b = _float_pair([6, 16, 2], 4)
    D = difference_network(a, b)
    Ws = [W.to_rows() for W in D.weights]
    bs = [list(v) for v in D.biases]
    box = [(Q(-1), Q(1))] * 6
    c = [Q(1), Q(0)]
    got = {}
    for on in (False, True):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(cuts_module, "PAIR_CUTS", on)
            eng = Engine(Ws, bs, paired=True, cuts=True)
            ivs = eng.node(box, {})[0]
            got[on] = _lp_bound(Ws, bs, box, ivs, c, eng.sym, template=eng.template, lines=eng.pair_lines(box, {}),
                                memo={}, separator=eng.separator, root=True)
    assert got[True][0] < got[False][0]
    assert any("pair" in ent["cut"] for ent in got[True][1][6])
    assert not any("pair" in ent["cut"] for ent in (got[False][1][6] or []))



@pytest.mark.slow
def test_pair_cuts_below_the_root_certified():
    """Pair cuts at the nodes of at most ``PAIR_DEPTH`` splits (their ``μ`` the duals of the
    extended formulation, ``PAIR_DUAL_MU``): the search separates them below the root too
    (more extended-formulation LPs than with the root alone), finds the same exact maximum and
    its certificate verifies; with μ from the per-region LPs instead, the same maximum."""
    a, b = _float_pair([3, 8, 6, 1], 2)
    box = [(Q(-1), Q(1))] * 3
    got = {}
    for depth, dual_mu in ((0, True), (3, True), (3, False)):
        calls = []
        real = cuts_module.CutSeparator.pair_hull_cuts

        def spy(self, box, ivs, *rest, _real=real, _calls=calls):
            _calls.append(len(box))
            return _real(self, box, ivs, *rest)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(cuts_module, "PAY_GAIN", 0.0)
            mp.setattr(cuts_module, "PAIR_CUTS", True)
            mp.setattr(cuts_module, "PAIR_DEPTH", depth)
            mp.setattr(cuts_module, "PAIR_DUAL_MU", dual_mu)
            mp.setattr(cuts_module.CutSeparator, "pair_hull_cuts", spy)
            r = diff_bounds(a, b, box, input_splits=False)
        assert r.complete and r.lower == r.upper
        assert verify(copy.deepcopy(_json(r.certificate)))[0]
        got[depth, dual_mu] = (r.upper, len(calls))
    assert got[0, True][0] == got[3, True][0] == got[3, False][0]
    assert got[3, True][1] > got[0, True][1] > 0

# ---- deferred δ (cuts.LAZY_DELTA): HiGHS gets a float guess, the exact δ is made on first use ----

@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_float_cut_rhs_guesses_the_exact_rhs(seed):
    """The float guess of a cut's right-hand side is the exact :func:`relu_cut_rhs` to float
    accuracy, and a deferred cut's exact δ is that same exact value."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    lo = [Q(int(v), 4) for v in rng.integers(-8, 4, n)]
    box = [(v, v + Q(int(rng.integers(0, 9)), 4)) for v in lo]
    w = [Q(int(v), 8) for v in rng.integers(-9, 10, n)]
    alpha = [Q(int(v), 16) if rng.random() < 0.6 else Q(0) for v in rng.integers(-20, 21, n)]
    beta, b = Q(int(rng.integers(-3, 4)), 2), Q(int(rng.integers(-9, 10)), 4)
    want = relu_cut_rhs(alpha, beta, w, b, box)
    got = cuts_module._float_cut_rhs(np.array([float(v) for v in alpha]), float(beta),
                                     np.array([float(v) for v in w]), float(b), box)
    assert abs(got - float(want)) <= 1e-9 * (1 + abs(float(want)))
    idx = [k for k in range(n) if alpha[k] != 0]
    cut = cuts_module.Cut((0, 0), idx, [alpha[k] for k in idx], beta, None, ("t", seed), box,
                          row=(w, b), fdelta=got)
    assert cut._delta is None and cut.fdelta == got
    assert cut.delta == want and cut._delta == want and cut._row is None      # made once


def test_deferred_delta_same_search_and_certificate(deferred_runs):
    """Digits-like near copy with cuts at every node: deferring the exact δ changes neither the
    exact maximum nor the certificate's bound; every cut the certificate holds has its exact δ
    (the checker re-proves it), and fewer exact right-hand sides are computed."""
    out = {}
    for lazy in (False, True):
        _, _, r, calls, cert = deferred_runs[lazy]
        assert verify(cert)[0]                            # (the checker reads only)
        out[lazy] = (r.lower, r.upper, r.complete, calls, cert)
    assert out[True][:3] == out[False][:3] and out[True][2]
    assert out[True][3] < out[False][3]
    held = [ent for leaf, _, _ in _leaves_with_cuts(out[True][4]) for ent in leaf["cuts"]]
    assert held and all(_resolved(out[True][4], ent)["delta"] is not None for ent in held)
