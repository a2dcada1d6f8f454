"""Budgets that hold in the branch and bound (issue 15 part 5): the root intervals stop between
layers, a split interrupted keeps its node as a leaf (the interval stays certified), the
in-process self-check of the certificate gets only what is left and never claims a check that
did not run."""

from __future__ import annotations

import json
import sys
import time
from fractions import Fraction

import numpy as np
import pytest

from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab.diff import _self_check
from semialgebraic.bab.symbolic import SymbolicNet
from semialgebraic.budget import Budget, BudgetExhausted
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import max_deviation
from semialgebraic.verify import verify


def near_pair(widths, seed):
    """A He-normal net (float32) and its float16 copy, exact."""
    rng = np.random.default_rng(seed)
    ws = [rng.normal(0, (2 / a) ** 0.5, (b, a)) for a, b in zip(widths, widths[1:])]
    bs = [rng.normal(0, 0.01, b) for b in widths[1:]]

    def net(dtype):
        return Network.from_rows([[[Fraction(float(v)) for v in row] for row in w.astype(dtype)] for w in ws],
                                 [[Fraction(float(v)) for v in b.astype(dtype)] for b in bs])
    return net(np.float32), net(np.float16)


def test_root_intervals_stop_at_an_active_exhausted_budget():
    a, b = near_pair([4, 8, 8, 2], 0)
    D = difference_network(a, b)
    sym = SymbolicNet([W.to_rows() for W in D.weights], [list(v) for v in D.biases])
    box = [(Q(-1), Q(1))] * 4
    assert len(sym.intervals(box, {})) == 3                      # no active budget: runs
    calls = []
    with pytest.raises(BudgetExhausted):
        sym.intervals(box, {}, cancel=lambda: calls.append(1) or (len(calls) > 2 and _raise()))
    assert len(calls) == 3
    with Budget(timeout=0).active(), pytest.raises(BudgetExhausted):
        sym.intervals(box, {})


def _raise():
    raise BudgetExhausted("stop")


def test_budget_before_the_root_gives_only_a_certified_lower_bound():
    a, b = near_pair([4, 8, 8, 2], 1)
    r = diff_bounds(a, b, [(Q(-1), Q(1))] * 4, budget=Budget(timeout=0))
    assert r.upper is None and not r.complete and r.checked is None
    js = r.to_json()
    assert js["upper"] is None and js["complete"] is False and js["certificate_checked"] is False
    assert "no upper bound within the budget" in js["reason"]      # "inf" only when unbounded
    x = r.point                                             # the lower bound is attained exactly
    assert r.lower == max(abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x)))
    cert = json.loads(json.dumps(jsonable(r.certificate)))
    assert cert["claim"].endswith(">= lower on the box") and verify(cert)[0]


def test_interrupted_search_keeps_a_certified_interval():
    """Stopped after a few nodes (max_regions counts nodes): the certificate of the partial
    interval verifies and the interval contains the exact value (the region walk's)."""
    a, b = near_pair([2, 4, 4, 1], 2)
    box = [(Q(-1), Q(1))] * 2
    exact = max_deviation(a, b, (Q(-1), Q(1)))
    assert exact.complete
    part = diff_bounds(a, b, box, budget=Budget(max_regions=2))
    assert part.lower <= exact.value <= part.upper and not part.complete
    assert verify(json.loads(json.dumps(jsonable(part.certificate))))[0]


def test_self_check_gets_only_what_is_left(monkeypatch):
    a, b = near_pair([2, 4, 1], 3)
    r = diff_bounds(a, b, [(Q(-1), Q(1))] * 2)
    assert r.checked is True and r.complete
    cert = r.certificate

    def slow(c):
        time.sleep(5)
        return True, "never reached"
    monkeypatch.setattr(sys.modules["semialgebraic.verify"], "verify", slow)
    outer = Budget(timeout=0.4)
    t = time.monotonic()
    assert _self_check(cert, outer) is None                 # stopped by the alarm, not trusted
    assert time.monotonic() - t < 2
    assert _self_check(cert, Budget(timeout=0)) is None     # nothing left: not run

    def wrong(c):
        return False, "planted"
    monkeypatch.setattr(sys.modules["semialgebraic.verify"], "verify", wrong)
    from semialgebraic.exceptions import CertificateError
    with pytest.raises(CertificateError):
        _self_check(cert, Budget(timeout=30))


@pytest.mark.parametrize("seed", range(4))
def test_integer_lp_correction_equals_the_entry_by_entry_one(seed):
    """The vectorised Neumaier–Shcherbina bound (integer products) is the same exact number as
    the entry-by-entry reference, for projected random multipliers on a node with splits."""
    import random
    from semialgebraic.bab.relaxation import exact_bound, exact_bound_int, project
    a, b = near_pair([3, 7, 5, 2], seed)
    D = difference_network(a, b)
    Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
    sym = SymbolicNet(Ws, bs)
    box = [(Q(-1, 3), Q(1, 2)), (Q(-1), Q(1)), (Q(0), Q(2, 7))]
    ivs = sym.intervals(box, {(0, 1): 1})
    assert any(lo < 0 < hi for layer in ivs[:-1] for lo, hi in layer)     # slopes exercised
    rng = random.Random(seed)

    def rnd():
        return Q(rng.randint(-40, 40), rng.choice([1, 3, 7, 1024, 10 ** 6])) if rng.random() < 0.8 else Q(0)
    mu = [[rnd() for _ in W] for W in Ws]
    alpha = [[rnd() for _ in W] for W in Ws[:-1]]
    beta = [[rnd() for _ in W] for W in Ws[:-1]]
    mu, alpha, beta = project(ivs, mu, alpha, beta)
    for c in ([Q(1), Q(0)], [Q(0), Q(-1)], [Q(0), Q(0)]):
        assert exact_bound_int(sym, box, ivs, c, mu, alpha, beta) == \
            exact_bound(Ws, bs, box, ivs, c, mu, alpha, beta)
