"""The primal side's sampling stages (``bab/primal.py`` ``sampled_candidates``, ``bab/diff.py``
``_FIRST_STAGES``/``_STAGE_NODES``): deterministic proposals, and a lower bound that never falls
when the budget grows (issue 15: ACAS Xu's full box gave 1.8971e-2 at 120 s, 7.0323e-3 at 600 s
with the clocked gap rounds)."""

from __future__ import annotations

import json

import pytest

from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff as diff_mod
from semialgebraic.bab import diff_bounds, primal
from semialgebraic.budget import Budget
from semialgebraic.certificates import jsonable
from semialgebraic.verify import verify

_W = Q(1, 25)                       # the bump's height and half-width
_C = (Q(3, 10), Q(-7, 10))          # its centre in (x_0, x_1)
_BOX = [(Q(-1), Q(1))] * 5


def _bump_pair():
    """``a − b`` is a bump of height ``_W`` on a small diamond around ``_C`` in ``[-1, 1]^5``
    (``relu(hat(x_0) + hat(x_1) − w)``, each hat ``relu(t + w) − 2 relu(t) + relu(t − w)``),
    and 0 elsewhere: zero gradient off the diamond (about 8e-4 of the box)."""
    rows, bias = [], []
    for i, c in enumerate(_C):
        for k in (-1, 0, 1):
            rows.append([Q(1) if j == i else Q(0) for j in range(5)])
            bias.append(-c - k * _W)
    hats = [[Q(1), Q(-2), Q(1), Q(1), Q(-2), Q(1)]]

    def net(out):
        return Network.from_rows([rows, hats, [[out]]], [bias, [-_W], [Q(0)]])
    return net(Q(1)), net(Q(0))


def test_sampled_candidates_are_deterministic_and_find_the_bump():
    """Same seed, same proposals (exact points of the box); three stages (seeds 0, 1, 2) hit
    the bump and their walks climb to its top ``_W`` (exactly evaluated)."""
    a, b = _bump_pair()
    D = difference_network(a, b)
    Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
    one = primal.sampled_candidates(Ws, bs, _BOX, 0)
    assert one == primal.sampled_candidates(Ws, bs, _BOX, 0)
    assert all(lo <= v <= hi for _, _, p in one for v, (lo, hi) in zip(p, _BOX))
    best = max(s * D.evaluate(p)[o] for seed in range(3) for o, s, p in primal.sampled_candidates(Ws, bs, _BOX, seed))
    assert _W * Q(99, 100) <= best <= _W


@pytest.mark.slow       # (6 s at load 8)
def test_the_lower_bound_never_falls_when_the_budget_grows(monkeypatch):
    """Budgets of 1, 4, 16, 64 nodes (work counts, deterministic): the certified lower bound
    on max |a − b| is non-decreasing in the budget, reaches the bump's height (the first stages
    run before the search) and every interval holds the maximum ``_W``; the certificate of the
    largest budget checks."""
    monkeypatch.setattr(diff_mod, "_STAGE_HIDDEN", 0)    # (stages on for this small pair)
    a, b = _bump_pair()
    lowers = []
    for k in range(0, 7, 2):
        r = diff_bounds(a, b, _BOX, budget=Budget(max_regions=2 ** k), verify=False)
        assert r.lower <= _W and (r.upper is None or _W <= r.upper)
        lowers.append(r.lower)
    assert lowers == sorted(lowers), lowers
    assert lowers[0] >= _W * Q(99, 100)
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]
