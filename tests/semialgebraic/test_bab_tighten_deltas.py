"""LP-tightened paired δ intervals (issue 15, differential bounds): every tightened δ of a pair
``(z_a − z_b)`` contains the exact range (z3's optimum, exact evaluation at grid points), is
never looser than the symbolic NeuroDiff δ, and is re-proved by the checker from its dual
multipliers (with the pair rows' ``gamma``, ``eta``); the checker replays the same δ of every
layer; mutated pair records are refused."""

from __future__ import annotations

import copy
import json
import random

import pytest

from algebra.exceptions import InputError
from algebra.kernel import difference_network
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
import semialgebraic.bab.tighten as tighten
from semialgebraic.bab import diff_bounds
from semialgebraic.bab.search import Engine
from semialgebraic.budget import Budget
from semialgebraic.certificates import jsonable
from semialgebraic.verify import verify
from semialgebraic.verify.bab_bound import _leaf_value
from semialgebraic.verify.bab_intermediate import leaf_deltas, leaf_intervals

ZERO = Q(0)


def _near_pair(seed, widths=(2, 6, 6, 6, 1), step=Q(1, 64)):
    """A net with dyadic weights and a copy whose weights moved by at most *step*."""
    rng = random.Random(seed)
    ws, bs, ws2, bs2 = [], [], [], []
    for i in range(len(widths) - 1):
        W = [[Q(rng.randint(-8, 8), 4) for _ in range(widths[i])] for _ in range(widths[i + 1])]
        b = [Q(rng.randint(-4, 4), 8) for _ in range(widths[i + 1])]
        ws.append(W); bs.append(b)
        ws2.append([[v + step * rng.randint(-1, 1) for v in row] for row in W])
        bs2.append([v + step * rng.randint(-1, 1) for v in b])
    return Network.from_rows(ws, bs), Network.from_rows(ws2, bs2)


def _layers(net):
    return [W.to_rows() for W in net.weights], [list(v) for v in net.biases]


def _trace(Ws, bs, x):
    out, h = [], list(x)
    for W, b in zip(Ws, bs):
        z = [sum((w * v for w, v in zip(row, h)), ZERO) + bj for row, bj in zip(W, b)]
        out.append(z)
        h = [max(v, ZERO) for v in z]
    return out


def _net_dict(Ws, bs):
    return {"rows": Ws, "biases": bs, "mats": [QMatrix.from_rows(W, ncols=len(W[0])) for W in Ws],
            "halfspaces": [], "intermediate": [], "neurodiff": True, "paired": True}


def _json(c):
    return json.loads(json.dumps(jsonable(c)))


def _z3_delta_range(Ws, bs, box, l, j):
    """The exact [min, max] of z_{l,j} − z_{l,n+j} over the box (z3)."""
    z3 = pytest.importorskip("z3")
    out = []
    for sense in ("min", "max"):
        opt = z3.Optimize()
        xs = [z3.Real(f"x{k}") for k in range(len(box))]
        for v, (lo, hi) in zip(xs, box):
            opt.add(v >= z3.RealVal(str(lo)), v <= z3.RealVal(str(hi)))
        h = xs
        for k in range(l + 1):
            z = [sum((z3.RealVal(str(w)) * v for w, v in zip(row, h) if w != 0), z3.RealVal(str(bj)))
                 for row, bj in zip(Ws[k], bs[k])]
            h = [z3.If(v > 0, v, z3.RealVal(0)) for v in z]
        target = z[j] - z[len(z) // 2 + j]
        goal = opt.minimize(target) if sense == "min" else opt.maximize(target)
        assert opt.check() == z3.sat
        val = opt.upper(goal) if sense == "max" else opt.lower(goal)
        out.append(Q(val.as_long()) if z3.is_int_value(val) else
                   Q(val.numerator_as_long(), val.denominator_as_long()))
    return out


def _root(seed, delta_cap=64, cap=0):
    a, b = _near_pair(seed)
    Ws, bs = _layers(difference_network(a, b))
    box = [(Q(-1), Q(1))] * 2
    e = Engine(Ws, bs, paired=True, tighten=cap if cap else 1)
    e.tightener.cap = cap
    e.tightener.delta_cap = delta_cap                    # (off by default: tighten.DELTA_CAP)
    ivs, _ = e.node(list(box), {})
    state = e._state[e._key(list(box), {})][1]
    return Ws, bs, box, e, ivs, state[0], e.tightened(list(box), {})


@pytest.mark.parametrize("seed", range(0, 24, 3))
def test_tightened_deltas_replay_and_contain_the_exact_range(seed):
    Ws, bs, box, e, ivs, deltas, records = _root(seed)
    plain = e.diff.deltas(box, ivs)                      # the same node without δ records
    pairs = [r for r in records if "pair" in r]
    net = _net_dict(Ws, bs)
    recs = _json(records)
    replay_ivs = leaf_intervals(net, box, {}, recs, _leaf_value)
    assert replay_ivs == ivs
    assert leaf_deltas(net, box, ivs, recs, _leaf_value) == deltas   # every layer, the same numbers
    if pairs:                                            # the same below the first record's
        first = min(r["pair"][0] for r in pairs)         # layer, never looser on it
        assert deltas[:first] == plain[:first]
        assert all(plo <= lo <= hi <= phi for (lo, hi), (plo, phi) in zip(deltas[first], plain[first]))
    for rec in pairs[:2]:                                # the exact range lies inside
        l, j = rec["pair"]
        lo, hi = _z3_delta_range(Ws, bs, box, l, j)
        assert deltas[l][j][0] <= lo <= hi <= deltas[l][j][1]
    rng = random.Random(seed)
    for _ in range(80):                                  # and every layer's δ at sampled points
        x = [lo + (hi - lo) * Q(rng.randrange(65), 64) for lo, hi in box]
        z = _trace(Ws, bs, x)
        for l in range(len(Ws) - 1):
            n = len(z[l]) // 2
            for j in range(n):
                assert deltas[l][j][0] <= z[l][j] - z[l][n + j] <= deltas[l][j][1]
        assert all(lo <= v <= hi for (lo, hi), v in zip(deltas[-1], z[-1]))


def test_some_deltas_are_tightened():
    """The LPs beat the symbolic δ on these pairs (else the tests above test nothing)."""
    got = 0
    for seed in range(0, 24, 3):
        *_, records = _root(seed)
        got += sum(1 for r in records if "pair" in r)
    assert got >= 4


@pytest.fixture(scope="module")
def pair_cert():
    with pytest.MonkeyPatch.context() as mp:             # δ LPs are off by default (tighten.py)
        mp.setattr(tighten, "DELTA_CAP", 8)
        for seed in range(0, 24, 3):
            a, b = _near_pair(seed)
            r = diff_bounds(a, b, (-1, 1), input_splits=False, budget=Budget(None, 6))
            c = _json(r.certificate)
            if any("pair" in rec for rec in c.get("intermediate", [])):
                return c, r, (a, b)
    pytest.fail("no certificate with pair records")


def _rejected(c):
    try:
        return not verify(c)[0]
    except InputError:
        return True


def test_certificate_with_pair_records_verifies(pair_cert):
    c, r, (a, b) = pair_cert
    assert verify(c)[0]
    assert r.lower <= r.upper
    # the truth lies inside: a grid of exact evaluations never exceeds the certified upper
    for k in range(17):
        for m in range(17):
            x = [Q(k, 8) - 1, Q(m, 8) - 1]
            assert max(abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x))) <= r.upper


@pytest.mark.parametrize("mutation", ["none", "hi_below", "lo_above", "gamma_negative", "gamma_scaled",
                                      "off_grid", "bad_pair", "no_gamma", "twice", "paired_only"])
def test_mutated_pair_records_are_rejected(pair_cert, mutation):
    c = copy.deepcopy(pair_cert[0])
    table = c["intermediate"]
    k = next(i for i, rec in enumerate(table) if "pair" in rec)
    rec = table[k]
    side, mult = ("hi", "upper") if "hi" in rec else ("lo", "lower")
    if mutation == "none":
        assert verify(c)[0]
        return
    if mutation == "hi_below":
        if "hi" not in rec:
            pytest.skip("no upper side")
        rec["hi"] = str(Q(rec["hi"]) - Q(1, 2 ** 20))
    elif mutation == "lo_above":
        rec2 = next((r for r in table if "pair" in r and "lo" in r), None)
        if rec2 is None:
            pytest.skip("no lower side")
        rec2["lo"] = str(Q(rec2["lo"]) + Q(1, 2 ** 20))
    elif mutation == "gamma_negative":
        rec[mult]["gamma"][0] = ["-1"] * len(rec[mult]["gamma"][0])
    elif mutation == "gamma_scaled":
        rows = rec[mult]["gamma"]
        l, i = max(((l, i) for l in range(len(rows)) for i in range(len(rows[l]))),
                   key=lambda t: abs(Q(rows[t[0]][t[1]])))
        if Q(rows[l][i]) == 0:
            rows[l][i] = "1000"
        else:
            rows[l][i] = str(Q(rows[l][i]) * 7 + 1)
    elif mutation == "off_grid":
        rec[side] = str(Q(rec[side]) + (1 if side == "hi" else -1) * Q(1, 3 * 2 ** 41))
    elif mutation == "bad_pair":
        rec["pair"] = [rec["pair"][0], 10 ** 3]
    elif mutation == "no_gamma":
        del rec[mult]["gamma"]
    elif mutation == "twice":
        leaf = next(t for t in _leaves(c) if k in t.get("tightened", []))
        table.append(copy.deepcopy(rec))
        leaf["tightened"].append(len(table) - 1)
    elif mutation == "paired_only":                     # pair records need the neurodiff bounds
        c["bounds"]["differential"] = "paired"
    assert _rejected(c)


def _leaves(c):
    out, stack = [], [ob["tree"] for ob in c["objectives"]]
    while stack:
        t = stack.pop()
        if "split" in t:
            stack += t["children"]
        else:
            out.append(t)
    return out


def test_objectives_stopped_before_the_root_lp_keep_the_root_bound(monkeypatch):
    """An objective whose root LP is cut by the budget (a short slice under load) keeps the
    root's symbolic/differential bound (with its tightened records, pair records included) as
    a one-leaf tree instead of no upper bound; the certificate verifies and the bound holds."""
    import semialgebraic.bab.search as search

    def stop(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(search, "_lp_bound", stop)
    monkeypatch.setattr(tighten, "DELTA_CAP", 8)
    for seed in range(0, 24, 3):
        a, b = _near_pair(seed)
        r = diff_bounds(a, b, (-1, 1), input_splits=False, verify=False)
        c = _json(r.certificate)
        if any("pair" in rec for rec in c.get("intermediate", [])):
            break
    assert r.upper is not None and not r.complete
    assert all(set(ob["tree"]) - {"tightened"} == {"bound", "by"} for ob in c["objectives"])
    assert verify(c)[0]
    for k in range(17):
        for m in range(17):
            x = [Q(k, 8) - 1, Q(m, 8) - 1]
            assert max(abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x))) <= r.upper
