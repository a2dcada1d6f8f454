"""The ``bab_bound`` checker's fast paths (issue 15 part 2: the check at or below the search's
cost) agree with the plain definitions: a proof of a table record remembered in one context
(box, intervals below) is never reused in another."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.rationals import Q
from semialgebraic.bab.symbolic import SymbolicNet
from semialgebraic.bab.tighten import Tightener
from semialgebraic.certificates import jsonable
from semialgebraic.verify.bab_bound import _leaf_value, _qlist
from semialgebraic.verify.bab_intermediate import leaf_intervals


ZERO = Q(0)


def _net(seed, widths=(2, 6, 6, 6, 1)):
    rng = random.Random(seed)
    Ws = [[[Q(rng.randint(-8, 8), 4) for _ in range(widths[i])] for _ in range(widths[i + 1])]
          for i in range(len(widths) - 1)]
    bs = [[Q(rng.randint(-4, 4), 8) for _ in range(widths[i + 1])] for i in range(len(widths) - 1)]
    return Ws, bs


def _net_dict(Ws, bs, table):
    return {"rows": Ws, "biases": bs, "mats": [QMatrix.from_rows(W, ncols=len(W[0])) for W in Ws],
            "halfspaces": [], "intermediate": table}


def test_record_proofs_are_not_reused_across_contexts():
    """Records proved on a small box, then referenced by a leaf on a larger box: the check
    that remembered the first proofs gives what a fresh check gives (here: refused, on most
    nets), never the remembered acceptance."""
    small, large = [(Q(-1, 4), Q(1, 4))] * 2, [(Q(-1), Q(1))] * 2
    refused = 0
    for seed in range(12):
        Ws, bs = _net(seed)
        sym = SymbolicNet(Ws, bs)
        tight, records = Tightener(Ws, bs, sym, cap=64).node(small, {}, sym.intervals(small, {}))
        if not records:
            continue
        table = json.loads(json.dumps(jsonable(records)))
        refs = list(range(len(table)))
        used = _net_dict(Ws, bs, table)
        assert leaf_intervals(used, small, {}, refs, _leaf_value) == tight     # proved, remembered
        again = leaf_intervals(used, large, {}, refs, _leaf_value)
        fresh = leaf_intervals(_net_dict(Ws, bs, table), large, {}, refs, _leaf_value)
        assert again == fresh
        refused += isinstance(fresh, str)
        assert leaf_intervals(used, small, {}, refs, _leaf_value) == tight     # and still accepted
    assert refused >= 3


# -- the leaf bound on integers (bab_bound._leaf_value) against the plain rational definition --

def _plain_leaf_value(Ws, bs, box, ivs, c, leaf, pair_lines=None, halfspaces=()):
    """The Neumaier–Shcherbina bound of a leaf as the module docstring of
    :mod:`semialgebraic.verify.bab_bound` states it, term by term on rationals (the checker's
    code before it moved to integers): the oracle of the fast path."""
    L = len(Ws)
    keys = set(leaf) - {"kappa"}
    if keys not in ({"bound", "mu", "alpha", "beta"}, {"bound", "mu", "alpha", "beta", "gamma", "eta"}) or (
            "kappa" in leaf and not halfspaces):
        raise InputError("malformed leaf")
    xs, kconst = [ZERO] * len(box), ZERO
    if "kappa" in leaf:
        g = _qlist(leaf["kappa"], len(halfspaces), "kappa")
        for gi, (a, b) in zip(g, halfspaces):
            if gi < 0:
                return "a negative half-space multiplier"
            xs = [x - gi * ak for x, ak in zip(xs, a)]
            kconst += gi * b
    for key, n in (("mu", L), ("alpha", L - 1), ("beta", L - 1)):
        if not isinstance(leaf[key], list) or len(leaf[key]) != n:
            raise InputError("layers")
    mu = [_qlist(leaf["mu"][l], len(Ws[l]), "mu") for l in range(L)]
    al = [_qlist(leaf["alpha"][l], len(Ws[l]), "alpha") for l in range(L - 1)]
    be = [_qlist(leaf["beta"][l], len(Ws[l]), "beta") for l in range(L - 1)]
    const = sum((mu[l][j] * bs[l][j] for l in range(L) for j in range(len(Ws[l]))), ZERO) + kconst
    zpair = hpair = None
    if "gamma" in keys:
        rows = pair_lines()
        zpair, hpair = [], []
        for l in range(L - 1):
            half = len(ivs[l]) // 2
            g = _qlist(leaf["gamma"][l], half, "gamma")
            e = _qlist(leaf["eta"][l], half, "eta")
            zr, hr = [ZERO] * (2 * half), [ZERO] * (2 * half)
            for j in range(half):
                if g[j] < 0 or e[j] < 0:
                    return f"negative pair multiplier at ({l}, {j})"
                su, tu, sl, tl = rows[l][j]
                zr[j], zr[half + j] = su * g[j] - sl * e[j], sl * e[j] - su * g[j]
                hr[j], hr[half + j] = e[j] - g[j], g[j] - e[j]
                const += g[j] * tu - e[j] * tl
            zpair.append(zr)
            hpair.append(hr)

    def mu_w(l, n):
        return [sum((mu[l][i] * Ws[l][i][k] for i in range(len(Ws[l]))), ZERO) for k in range(n)]
    terms = [(x + w, b) for x, w, b in zip(xs, mu_w(0, len(box)), box)]
    for l in range(L):
        up = mu_w(l + 1, len(ivs[l])) if l < L - 1 else None
        for j, (lo, hi) in enumerate(ivs[l]):
            zco = -mu[l][j] + (c[j] if l == L - 1 else ZERO)
            if l < L - 1:
                a, b = al[l][j], be[l][j]
                if lo < 0 < hi:
                    if a < 0 or b < 0:
                        return f"negative triangle multiplier at neuron ({l}, {j})"
                    s = hi / (hi - lo)
                    zco += -a + s * b
                    const += -b * s * lo
                elif lo >= 0:
                    if b != 0:
                        return f"beta on the stable active neuron ({l}, {j})"
                    zco += -a
                elif a != 0 or b != 0:
                    return f"multiplier on the stable inactive neuron ({l}, {j})"
                hco = a - b + up[j] + (hpair[l][j] if hpair else ZERO)
                zco += zpair[l][j] if zpair else ZERO
                terms.append((hco, (max(lo, ZERO), max(hi, ZERO))))
            terms.append((zco, (lo, hi)))
    return const + sum(((co * hi if co > 0 else co * lo) for co, (lo, hi) in terms), ZERO)


def _num(draw, lo=-9, hi=9, dens=(1, 2, 3, 4, 5, 7, 8, 1024)):
    return Q(draw(st.integers(lo, hi)), draw(st.sampled_from(dens)))


def _spelled(draw, v):
    """*v* as a certificate spells it: canonical ``"p/q"`` or an int, sometimes another
    spelling of the same number (read through ``to_q``)."""
    kind = draw(st.integers(0, 5))
    if kind == 0 and v.q == 1:
        return int(v.p)
    if kind == 1:
        return f"{int(v.p) * 3}/{int(v.q) * 3}"
    if kind == 2 and v.q == 1:
        return f" {int(v.p)} "
    return str(v)


@st.composite
def leaf_cases(draw):
    d = draw(st.integers(1, 3))
    widths = [d] + [2 * draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 2)))] + [draw(st.integers(1, 2))]
    L = len(widths) - 1
    Ws = [[[_num(draw) for _ in range(widths[i])] for _ in range(widths[i + 1])] for i in range(L)]
    bs = [[_num(draw) for _ in range(widths[i + 1])] for i in range(L)]
    box = []
    for _ in range(d):
        lo = _num(draw)
        box.append((lo, lo + abs(_num(draw, 0, 9))))
    ivs = []
    for l in range(L):
        layer = []
        for _ in range(widths[l + 1]):
            kind = draw(st.integers(0, 3))
            a, b = abs(_num(draw, 0, 9)), abs(_num(draw, 0, 9))
            layer.append(((-a - Q(1, 8), b + Q(1, 8)), (a, a + b), (-a - b, -a), (ZERO, ZERO))[kind])
        ivs.append(layer)
    c = [Q(draw(st.integers(-1, 1))) for _ in range(widths[-1])]
    bad = draw(st.integers(0, 6)) == 0                   # sometimes a wrong sign somewhere

    def mult(lo, hi, which):
        if bad and draw(st.booleans()):
            return _num(draw)
        if lo < 0 < hi:
            return abs(_num(draw))
        if lo >= 0 and which == "alpha":
            return _num(draw)
        return ZERO
    leaf = {"bound": 0,
            "mu": [[_spelled(draw, _num(draw)) for _ in range(widths[l + 1])] for l in range(L)],
            "alpha": [[_spelled(draw, mult(lo, hi, "alpha")) for lo, hi in ivs[l]] for l in range(L - 1)],
            "beta": [[_spelled(draw, mult(lo, hi, "beta")) for lo, hi in ivs[l]] for l in range(L - 1)]}
    rows = None
    if draw(st.booleans()):
        leaf["gamma"] = [[_spelled(draw, abs(_num(draw)) * (-1 if bad and draw(st.booleans()) else 1))
                          for _ in range(widths[l + 1] // 2)] for l in range(L - 1)]
        leaf["eta"] = [[_spelled(draw, abs(_num(draw))) for _ in range(widths[l + 1] // 2)] for l in range(L - 1)]
        rows = [[tuple(_num(draw) for _ in range(4)) for _ in range(widths[l + 1] // 2)] for l in range(L - 1)]
    halfspaces = ()
    if draw(st.booleans()):
        halfspaces = [([_num(draw) for _ in range(d)], _num(draw)) for _ in range(draw(st.integers(1, 2)))]
        leaf["kappa"] = [_spelled(draw, abs(_num(draw)) * (-1 if bad and draw(st.booleans()) else 1))
                         for _ in halfspaces]
    return Ws, bs, box, ivs, c, leaf, rows, halfspaces


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(leaf_cases())
def test_integer_leaf_bound_is_the_plain_rational_one(case):
    """The checker's leaf bound on integers (unstable terms merged with their constants, one
    denominator per vector) is the same exact number as the plain definition, and refuses the
    same multipliers with the same reason, on random leaves (non-dyadic numbers, other
    spellings, wrong signs, pair rows, half-spaces)."""
    Ws, bs, box, ivs, c, leaf, rows, halfspaces = case
    lines = (lambda: rows) if rows is not None else None    # noqa: E731
    got = _leaf_value(Ws, bs, box, ivs, c, leaf, lines, halfspaces)
    want = _plain_leaf_value(Ws, bs, box, ivs, c, leaf, lines, halfspaces)
    assert got == want
    assert isinstance(got, str) or got.q >= 1
