"""``diff`` bounds the *reduced* a − b when the exact reduction (positively parallel neurons
merged, silent and dead ones zeroed, zero neurons dropped) removes at least ``REDUCE_FROM`` of
its hidden neurons: a permuted, rescaled or pruned copy with a change confined to a few neurons.
The certificate carries the steps (``"reduction"``) and the checker replays them.  Before, a
64-3072-64 block against such a copy with one neuron more, live only on a corner of the box where
it reaches 1e-6, stayed at [0, 2 189.9] after ``diff --timeout 60`` (the widths differ: no
alignment); now exact in 8 s."""

from __future__ import annotations

import copy
import random

import pytest

import semialgebraic.bab.diff as dmod
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.elementary import random_permute_scale
from semialgebraic.bab import diff_bounds
from semialgebraic.verify import verify


def _shallow(rng, d, n, m):
    W = [[Q(rng.randint(-6, 6), 4) for _ in range(d)] for _ in range(n)]
    b = [Q(rng.randint(-6, 6), 4) for _ in range(n)]
    V = [[Q(rng.randint(-6, 6), 4) for _ in range(n)] for _ in range(m)]
    return W, b, V, [Q(rng.randint(-3, 3), 4) for _ in range(m)]


def _bump_pair(seed, d=3, n=8, m=2):
    """a and a permuted, rescaled copy with one neuron more, c·relu(w·x − t), live on a corner
    of [-1, 1]^d only, where it reaches h (exact): max |a − b| = |c|·h."""
    rng = random.Random(seed)
    W, b, V, c = _shallow(rng, d, n, m)
    a = Network([W, V], [b, c])
    p = random_permute_scale(a, rng)
    W2, b2 = p.weights[0].to_rows(), list(p.biases[0])
    V2 = [list(r) for r in p.weights[1].to_rows()]
    w = [Q(rng.choice([-3, -1, 1, 2]), rng.randint(1, 3)) for _ in range(d)]
    h = Q(1, 10 ** rng.randint(1, 6))
    top = sum(abs(v) for v in w)                       # max of w·x on the box
    out, cf = rng.randrange(m), Q(rng.choice([-2, 1, 3]), 2)
    W2.append(w)
    b2.append(h - top)
    for o in range(m):
        V2[o].append(cf if o == out else Q(0))
    return a, Network([W2, V2], [b2, list(p.biases[1])]), abs(cf) * h


@pytest.mark.parametrize("seed", range(12))
def test_a_copy_with_a_neuron_more_gets_the_exact_maximum(seed):
    a, b, want = _bump_pair(seed)
    r = diff_bounds(a, b, (-1, 1), timeout=60)
    assert r.complete and r.lower == r.upper == want, (r.lower, r.upper, want)
    cert = r.certificate
    assert cert["reduction"] and verify(cert)[0]
    assert any(st["step"] == "merge" for st in cert["reduction"])


def test_a_structurally_pruned_deep_copy_agrees_with_the_unreduced_search(monkeypatch):
    """b: a 2-5-5-1 net with two neurons of its last hidden layer removed (structured pruning);
    the reduced search and the plain one (reduction off) agree where both are exact, and every
    bound holds the exact values at 400 points of the box."""
    rng = random.Random(4)
    Ws = [[[Q(rng.randint(-6, 6), 4) for _ in range(2)] for _ in range(5)],
          [[Q(rng.randint(-6, 6), 4) for _ in range(5)] for _ in range(5)],
          [[Q(rng.randint(-6, 6), 4) for _ in range(5)]]]
    bs = [[Q(rng.randint(-4, 4), 4) for _ in range(5)] for _ in range(2)] + [[Q(0)]]
    a = Network(Ws, bs)
    keep = [0, 2, 4]
    b = Network([Ws[0], [Ws[1][j] for j in keep], [[Ws[2][0][j] for j in keep]]],
                [bs[0], [bs[1][j] for j in keep], bs[2]])
    r = diff_bounds(a, b, (-1, 1), timeout=60)
    assert r.certificate.get("reduction") and verify(r.certificate)[0]
    monkeypatch.setattr(dmod, "REDUCE_FROM", Q(2))
    plain = diff_bounds(a, b, (-1, 1), timeout=60)
    assert "reduction" not in plain.certificate
    assert r.complete and plain.complete and r.upper == plain.upper
    for _ in range(400):
        x = [Q(rng.randint(-64, 64), 64) for _ in range(2)]
        assert abs(a(x)[0] - b(x)[0]) <= r.upper


def test_near_copies_keep_the_pairing():
    """A float16-style near copy (every weight moved a little): nothing merges, no reduction."""
    rng = random.Random(9)
    W, b, V, c = _shallow(rng, 2, 6, 1)
    a = Network([W, V], [b, c])
    W2 = [[v + Q(1, 2 ** 12) for v in r] for r in W]
    r = diff_bounds(a, Network([W2, V], [b, c]), (-1, 1), timeout=30)
    assert "reduction" not in r.certificate and verify(r.certificate)[0]


@pytest.mark.parametrize("name,change", [
    ("a merge factor changed", lambda s: next(st for st in s if st["step"] == "merge").update(factor="7/3")),
    ("a live neuron zeroed", lambda s: s.insert(0, {"step": "zero", "layer": 0, "neuron": 0})),
    ("a live neuron called dead", lambda s: s.insert(0, {"step": "dead", "layer": 0, "neuron": 0})),
    ("the steps dropped", lambda s: s.clear()),
])
def test_a_wrong_reduction_is_rejected(name, change):
    a, b, _ = _bump_pair(3)
    cert = copy.deepcopy(diff_bounds(a, b, (-1, 1), timeout=60).certificate)
    assert verify(cert)[0]
    change(cert["reduction"])
    assert verify(cert)[0] is False, name


@pytest.mark.parametrize("seed", range(3))
def test_the_distributed_search_reduces_in_every_cell(seed):
    """``search diff`` (distributed_diff) runs diff_bounds per cell, which reduces a − b there:
    the bump pair's exact maximum, the bab_cover certificate's cells carrying their reductions,
    checked part by part."""
    from semialgebraic.distributed.search import distributed_diff
    a, b, want = _bump_pair(seed)
    r = distributed_diff(a, b, [(Q(-1), Q(1))] * a.n_inputs, cells=4, workers=0, timeout=120)
    assert r.complete and r.verified and r.lower == r.upper == want
    assert any(cell.get("reduction") for cell in r.certificate["cells"])
    assert verify(r.certificate)[0]
