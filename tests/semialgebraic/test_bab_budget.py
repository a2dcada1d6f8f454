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


def test_self_check_stops_even_when_the_first_alarm_is_swallowed(monkeypatch):
    """The alarm that stops the self-check repeats until the check has stopped: a checker that
    swallows the first raise (as a ``__del__`` or a callback does) still stops within a
    fraction of a second of the budget (budget findings 2026-12-03: digits 64-32-10 ``diff
    --timeout 600`` took 647 s wall; one alarm is one chance), and never claims the check."""
    a, b = near_pair([2, 4, 1], 3)
    cert = diff_bounds(a, b, [(Q(-1), Q(1))] * 2).certificate
    swallowed = []

    def deaf_then_slow(c):
        try:
            time.sleep(5)
        except KeyboardInterrupt:
            swallowed.append(True)                          # the first alarm lost
        time.sleep(5)
        return True, "never reached"
    monkeypatch.setattr(sys.modules["semialgebraic.verify"], "verify", deaf_then_slow)
    t = time.monotonic()
    assert _self_check(cert, Budget(timeout=0.3)) is None
    assert swallowed and time.monotonic() - t < 0.3 + 4 * 0.25 + 0.5


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


def _root_bound(D, box, o, s):
    """The bound an objective keeps when the budget is spent before its search starts (the
    root's symbolic and differential intervals, no LP): what the sequential order left the
    objectives after the first."""
    from semialgebraic.bab.search import Engine, bound_objective
    Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
    c = [Q(0)] * D.n_outputs
    c[o] = Q(s)
    ob = bound_objective(Ws, bs, box, c, lambda x: s * D.evaluate(x)[o], budget=Budget(max_regions=0),
                         engine=Engine(Ws, bs, paired=True))
    assert ob.tree.get("by") in ("symbolic", "differential")
    return Fraction(str(ob.upper))


def test_a_timeout_is_shared_by_every_objective():
    """With a timeout too small to close the first objective (which the sequential order spent
    whole, leaving the others their root bounds: 0.0043 and 0.0083 here), every objective
    ``± (a_o − b_o)`` gets branch-and-bound work: its upper bound is below its root bound; the
    partial certificate verifies.  The timeout is 2 s of CPU (what the work needs, whatever else
    the machine runs: 4 s of wall time at load 5 on 2 cores bought 0.66 s of CPU, and the
    objectives ended barely below their root bounds; on CPU time 0.7 s already puts each
    objective 6e-4 or more below its root bound, 2026-12-03); the wall clock's own budgets are the
    subprocess tests of ``tests/cli/test_budgets.py``."""
    a, b = near_pair([4, 16, 16, 2], 0)
    box = [(Q(-1), Q(1))] * 4
    r = diff_bounds(a, b, box, budget=Budget(timeout=2, clock=time.process_time))
    assert not r.complete and r.upper is not None and "timeout of 2 s" in r.reason
    D = difference_network(a, b)
    objs = r.certificate["objectives"]
    assert sorted((ob["output"], ob["sign"]) for ob in objs) == [(0, -1), (0, 1), (1, -1), (1, 1)]
    for ob in objs:
        assert "by" not in ob["tree"]                  # LP multipliers or a split
        assert Fraction(ob["upper"]) < _root_bound(D, box, ob["output"], ob["sign"])
    assert [Fraction(str(hi)) for _, hi in r.per_output] == [max(Fraction(ob["upper"]) for ob in objs if ob["output"] == o)
                                               for o in range(2)]
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]
    x = r.point
    assert 0 <= r.lower == max(abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x)))


def test_lower_bound_is_never_negative():
    """``a − b = −1`` everywhere: the objective ``+ (a − b)`` alone is −1 at every point, but the
    reported lower bound is ``max |a − b|`` at an evaluated domain point, 1, attained exactly."""
    a = Network.from_rows([[[1, -1], [2, 1]], [[1, 1]]], [[0, 0], [0]])
    b = Network.from_rows([[[1, -1], [2, 1]], [[1, 1]]], [[0, 0], [1]])
    box = [(Q(-1), Q(1))] * 2
    for budget in (Budget(max_regions=0), Budget(timeout=0)):
        r = diff_bounds(a, b, box, budget=budget)
        assert r.lower == 1 and r.upper is None and r.output == 0
        assert abs(a.evaluate(r.point)[0] - b.evaluate(r.point)[0]) == 1
        assert all(-1 <= v <= 1 for v in r.point)
        cert = json.loads(json.dumps(jsonable(r.certificate)))
        assert verify(cert)[0] and Fraction(cert["lower"]) == 1
    assert diff_bounds(a, b, box).lower == 1


@pytest.mark.parametrize("widths,seed", [([2, 3, 3, 1], 0),
                                         pytest.param([2, 4, 4, 1], 3, marks=pytest.mark.slow),
                                         pytest.param([2, 5, 3, 2], 4, marks=pytest.mark.slow)])
def test_shared_timeout_gives_the_sequential_answer(widths, seed):
    """When every objective finishes, the rounds give exactly the sequential answer (no
    timeout), which is the region walk's exact maximum.  (120 s of CPU: on a loaded machine 120 s
    of wall time may not be enough to finish.)  The fast pair's two objectives both branch (29
    nodes each, 0.35 s; the slow 2-4-4-1 pair: 247 and 19 nodes, 2 s)."""
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1))] * 2
    seq = diff_bounds(a, b, box)
    shared = diff_bounds(a, b, box, budget=Budget(timeout=120, clock=time.process_time))
    exact = max_deviation(a, b, (Q(-1), Q(1)))
    assert exact.complete and seq.complete and shared.complete
    assert sum("split" in ob["tree"] for ob in seq.certificate["objectives"]) >= 2   # two objectives branch
    assert shared.lower == shared.upper == seq.lower == seq.upper == exact.value
    assert (shared.point, shared.output, shared.per_output) == (seq.point, seq.output, seq.per_output)
    assert shared.checked is True


def test_shares_and_slices_take_the_clock_of_their_budget():
    """A CPU-time budget stays one in the search's shares and slices (a fake clock here: one tick
    a read); the slice's seconds are what the outer budget has left on that clock."""
    from semialgebraic.bab.diff import _Share, _Slice
    ticks = iter(range(10 ** 6))

    def clock():
        return float(next(ticks))
    outer = Budget(timeout=100, clock=clock)                     # start = 0
    share, sl = _Share(outer, 0.5), _Slice(outer, 1000)
    assert share.clock is clock is sl.clock
    assert share.timeout == 0.5 * (100 - 1) and sl.timeout == 100 - 3
    assert not sl.exhausted() and outer.elapsed() < 100


def test_without_the_self_check_the_search_leaves_time_for_the_certificate(monkeypatch):
    """``verify=False`` with a timeout (the benchmarks): the search stops at ``_ASSEMBLY_SHARE``
    of it, the rest for assembling the certificate, which no budget stops (digits 64-32-10 at
    600 s: 21 s after the search at load 2; with the whole timeout for the search a run took
    647 s at load 8.6).  A budget counting nodes (a distributed task's) is kept whole."""
    from semialgebraic.bab import diff as bdiff
    from semialgebraic.certificates import bab_bound as bb
    a, b = near_pair([20, 40, 40, 5], 0)
    real, at = bb.bab_bound_certificate, []
    monkeypatch.setattr(bb, "bab_bound_certificate",
                        lambda *args, **kw: at.append(time.monotonic()) or real(*args, **kw))
    assert 0.9 <= bdiff._ASSEMBLY_SHARE < 0.95
    monkeypatch.setattr(bdiff, "_ASSEMBLY_SHARE", 0.5)     # (a share the clock tells apart)
    t = time.monotonic()
    r = diff_bounds(a, b, [(Q(0), Q(1))] * 20, timeout=3, verify=False)
    assert not r.complete and r.reason.startswith("timeout of 3 s reached") and r.checked is None
    # (below the whole timeout of 3 s with room for a loaded runner's last node: the search
    # stops at the share, not at the end)
    assert 1.5 - 0.3 <= at[0] - t <= 1.5 + 1.1


def test_given_points_keep_their_lower_bound_when_the_budget_stops_the_search_at_once():
    """``diff --method auto`` hands a walk it does not finish to branch and bound with the walk's
    best point (before, the interval dropped the walk's lower bound): a point of the domain is a
    candidate, evaluated exactly, and one outside it is ignored."""
    a, b = near_pair([2, 8, 8, 1], seed=4)
    box = (Q(-1), Q(1))
    exact = max_deviation(a, b, box)
    assert exact.complete
    r = diff_bounds(a, b, box, budget=Budget(None, 1), points=[exact.point, (Q(5), Q(0))])
    assert r.lower == exact.value and tuple(r.point) == tuple(exact.point)
    assert r.upper is None or r.upper >= exact.value
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]
    outside = diff_bounds(a, b, box, budget=Budget(None, 1), points=[(Q(5), Q(0))])
    assert all(-1 <= v <= 1 for v in outside.point)


def test_general_equivalence_rechecks_its_certificate_within_the_budget(monkeypatch):
    """The general method's certificate (here a region cover: t7's sign flip needs the walk) is
    re-checked in what the budget has left: a check that does not finish is stopped by the
    alarm and said (never trusted), the verdict keeps its certificate; without a timeout the
    check runs whole."""
    from algebra.io import load
    from semialgebraic.equivalence import equivalent, general
    a = load("algebra/examples/t7_signflip_a.json")
    b = load("algebra/examples/t7_signflip_b.json")
    v = equivalent(a, b, method="general", budget=Budget(timeout=60))
    assert v.answer is True and v.certificate["type"] == "region_cover"
    assert "not re-checked" not in v.reason and "certificate_checked" not in v.details

    def slow(c):
        time.sleep(5)
        return True, "never reached"
    monkeypatch.setattr(general, "verify", slow)
    t = time.monotonic()
    v = equivalent(a, b, method="general", budget=Budget(timeout=1.5))
    assert time.monotonic() - t < 4
    assert v.answer is True and v.certificate["type"] == "region_cover"
    assert "not re-checked in-process" in v.reason and v.details["certificate_checked"] is False


def _stalls(*args, **kwargs):
    """Exact work that sees no checkpoint (pure Python, as the 768-3072 pair's conversions)."""
    end = time.monotonic() + 30
    while time.monotonic() < end:
        sum(range(1000))
    raise AssertionError("never stopped")


@pytest.mark.parametrize("where, copies", [("difference_network", False), ("aligned", True),
                                           ("aligned", False)])
def test_preparation_before_the_search_stops_at_the_budget(monkeypatch, where, copies):
    """The exact work before the search (alignment, a − b, its reduction and rows) saw no
    checkpoint: ``diff --timeout 2`` on a 768-3072-768 pair returned after 18 s, 20 s at
    ``--timeout 5`` (session 43's budgets audit).  It stops at the deadline now, by an alarm,
    with the certified lower bound at a point of the domain and no upper bound; with ε, refuted
    when that value is above it."""
    import semialgebraic.bab.diff as bab_diff
    a, b = near_pair([3, 6, 2], 4)
    box = [(Q(-1), Q(1)), (Q(0), Q(2)), (Q(-1, 2), Q(1))]
    monkeypatch.setattr(bab_diff, where, _stalls)
    t = time.monotonic()
    r = diff_bounds(a, b, box, timeout=0.5, copies=copies)
    assert time.monotonic() - t < 2.5
    assert r.upper is None and not r.complete and r.nodes == 0
    assert r.reason == ("timeout of 0.5 s reached before the bounds were prepared; no upper "
                        "bound within the budget")            # the timeout, not the alarm's words
    assert r.point == (Q(0), Q(1), Q(1, 4))                       # the box's centre
    assert r.lower == max(abs(u - v) for u, v in zip(a.evaluate(r.point), b.evaluate(r.point)))
    cert = json.loads(json.dumps(jsonable(r.certificate)))
    assert "upper" not in cert and verify(cert)[0]
    low = diff_bounds(a, b, box, timeout=0.5, copies=copies, epsilon=r.lower / 2)
    cert = json.loads(json.dumps(jsonable(low.certificate)))
    assert low.lower == r.lower and Q(cert["epsilon"]) == r.lower / 2 and verify(cert)[0]
    assert "no upper bound" not in low.reason                      # refuted: the answer is known


def test_ctrl_c_while_the_stopped_preparation_evaluates_keeps_the_report(monkeypatch):
    """A Ctrl-C landing while the stopped preparation evaluates its one point (after the
    deadline's alarm) lost the partial report: the command printed only the alarm's words
    (session 43's budgets audit, F7).  The point's evaluation is finished, the result kept."""
    import semialgebraic.bab.diff as bab_diff
    a, b = near_pair([3, 6, 2], 5)
    monkeypatch.setattr(bab_diff, "difference_network", _stalls)
    real, calls = Network.evaluate, []

    def interrupted_once(self, x):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(self, x)
    monkeypatch.setattr(Network, "evaluate", interrupted_once)
    r = diff_bounds(a, b, [(Q(-1), Q(1))] * 3, timeout=0.5)
    monkeypatch.setattr(Network, "evaluate", real)
    assert r.upper is None and r.point == (Q(0),) * 3 and len(calls) >= 3
    assert r.lower == max(abs(u - v) for u, v in zip(a.evaluate(r.point), b.evaluate(r.point)))
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]


def test_an_inner_alarm_puts_the_enclosing_one_back():
    """``alarm_at`` inside ``alarm_at`` (analyze's or identify's around a diff whose preparation
    and self-check have their own): the inner block's exit cancelled the process's one timer, so
    the enclosing deadline never fired (session 43).  It is put back with its time left."""
    from semialgebraic.budget import alarm_at
    t = time.monotonic()
    with pytest.raises(BudgetExhausted, match="the outer work"):
        with alarm_at(t + 0.4, "the outer work"):
            with alarm_at(t + 30, "the inner work"):
                pass                                          # left long before either deadline
            while time.monotonic() < t + 5:
                sum(range(1000))
    assert time.monotonic() - t < 1.5
    stopped = []                                              # the outer deadline inside the inner
    t = time.monotonic()
    with pytest.raises(BudgetExhausted, match="the outer work"):
        with alarm_at(time.monotonic() + 0.3, "the outer work"):
            try:
                with alarm_at(time.monotonic() + 30, "the inner work"):
                    while True:
                        sum(range(1000))
            except BudgetExhausted as exc:                    # (the inner handler raised it)
                stopped.append(str(exc))
            while True:
                sum(range(1000))
    assert stopped and time.monotonic() - t < 3
    import signal
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0      # nothing left armed


def test_an_alarm_due_as_a_ctrl_c_leaves_the_block_does_not_outlive_it():
    """A Ctrl-C just before diff's deadline: the alarm, due at the same moment, was raised inside
    contextlib's ``__exit__`` before the generator's cleanup, which never ran; the timer kept
    firing in the partial report and lost it (s43 budgets audit F7, 9 of 10 tries).  The alarm
    does not replace a stop already leaving, and the block's exit disarms it whole."""
    import signal
    from semialgebraic.budget import alarm_at
    block = alarm_at(time.monotonic() + 30, "the work")
    with block:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            block._alarm(signal.SIGALRM, None)             # a stop in flight: not replaced
        with pytest.raises(BudgetExhausted, match="the work"):
            block._alarm(signal.SIGALRM, None)             # otherwise: raised
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt) as info:
        with alarm_at(t + 0.2, "the work"):
            while time.monotonic() < t + 0.19:
                pass
            try:
                raise KeyboardInterrupt                        # the Ctrl-C, as the alarm is due
            finally:
                while time.monotonic() < t + 0.5:              # the alarm comes due in flight
                    pass
    assert not isinstance(info.value, BudgetExhausted)         # the Ctrl-C leaves, not the alarm
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0 and \
        signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.default_int_handler, None)
    end = time.monotonic() + 0.6                               # and nothing fires after the block
    while time.monotonic() < end:
        pass


def test_an_alarm_during_a_generator_close_is_not_raised_there():
    """A region walk dropped after its caller's budget ran out: the enclosing alarm fired in the
    generator's ``finally`` (its close, from the garbage collector), and Python printed
    'Exception ignored in RegionWalk._walk' with a traceback (a CI warning, session 52).  A
    generator being closed is a stop already leaving: the alarm is not raised in it, and it
    fires again once the close is done."""
    import signal
    from semialgebraic.budget import alarm_at

    def walk():
        try:
            yield 1
        finally:
            while time.monotonic() < t + 0.5:                 # the alarm comes due in here
                pass

    t = time.monotonic()
    gen = walk()
    next(gen)
    with pytest.raises(BudgetExhausted, match="the work"):
        with alarm_at(t + 0.2, "the work"):
            gen.close()                                        # no BudgetExhausted out of close
            closed = time.monotonic()
            while True:                                        # then it fires, after the close
                sum(range(1000))
    assert closed >= t + 0.5 and time.monotonic() - t < 2
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_the_public_api_raises_budget_exceeded_not_the_internal_interrupt():
    """s53 API audit F1: ``diff_bounds(timeout=0.0025)`` raised the internal BudgetExhausted (a
    KeyboardInterrupt: a notebook's ``except Exception`` missed it).  At the public boundary it is
    the documented BudgetExceededError; inside another public call (or a command) it goes on, so
    the enclosing one keeps its partial result; a real Ctrl-C goes on as it is."""
    from semialgebraic.budget import api_boundary
    from semialgebraic.exceptions import BudgetExceededError

    @api_boundary
    def spent():
        raise BudgetExhausted("timeout of 0.01 s reached")

    @api_boundary
    def outer():
        try:
            spent()
        except BudgetExhausted:
            return "partial"

    @api_boundary
    def ctrl_c():
        raise KeyboardInterrupt

    with pytest.raises(BudgetExceededError, match="timeout of 0.01 s reached"):
        spent()
    assert outer() == "partial"
    with pytest.raises(KeyboardInterrupt) as info:
        ctrl_c()
    assert not isinstance(info.value, BudgetExhausted)


def test_tiny_timeouts_of_the_api_leave_no_alarm_and_raise_no_interrupt():
    """Planted permuted and rescaled copies and a copy with one weight moved by 1e-9, under
    timeouts from 0.1 ms to 10 ms: every call returns or raises an ordinary exception, and no
    alarm is left armed (s53 API audit F2: a timer armed in ``alarm_at``'s ``__enter__`` as the
    alarm came due was never disarmed and fired in the caller's code 0.25 s later)."""
    import signal
    import netfibers as nf
    a = nf.Network.from_rows([[["3/5", "2/7"], [3, "5/3"], ["8/5", "-9/4"]], [[4, "7/4", "6/7"]]],
                             [[4, 4, "6/7"], [-3]])
    p = nf.Network.from_rows([[[3, "5/3"], ["6/5", "4/7"], ["8/5", "-9/4"]], [["7/4", 2, "6/7"]]],
                             [[4, 8, "6/7"], [-3]])
    q = nf.Network.from_rows([[["3/5", "2/7"], [3, "5/3"], ["8/5", "-9/4"]],
                              [[4, Q(7, 4) + Q(1, 10 ** 9), "6/7"]]], [[4, 4, "6/7"], [-3]])
    calls = [lambda T: nf.diff_bounds(a, q, (-1, 1), timeout=T),
             lambda T: nf.epsilon_equivalent(a, q, (-1, 1), Q(1, 10 ** 12), timeout=T),
             lambda T: nf.equivalent(a, p, timeout=T, method="general"),
             lambda T: nf.could_be_equivalent(a, q, timeout=T),
             lambda T: nf.max_deviation(a, q, (-1, 1), timeout=T),
             lambda T: nf.functional_dimension(a, timeout=T),
             lambda T: nf.identifiability(a, timeout=T)]
    for T in (1e-4, 1e-3, 3e-3, 1e-2):
        for call in calls:
            try:
                call(T)
            except Exception:
                pass
            assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
            assert getattr(signal.getsignal(signal.SIGALRM), "__self__", None) is None


def test_an_alarm_armed_as_it_comes_due_is_disarmed_and_a_stray_one_after_a_call():
    import signal
    from semialgebraic import budget as B
    before = signal.getsignal(signal.SIGALRM)
    real = B.signal.setitimer
    calls = []

    def setitimer(which, seconds, interval=0.0):   # the alarm lands right after arming
        real(which, seconds, interval)
        if not calls:
            calls.append(seconds)
            raise BudgetExhausted("the budget ran out during the work")
    B.signal.setitimer = setitimer
    try:
        with pytest.raises(BudgetExhausted):
            with B.alarm_at(time.monotonic() + 30, "the work"):
                pass
    finally:
        B.signal.setitimer = real
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before
    stray = B.alarm_at(time.monotonic() + 30, "the work")   # a block left without its exit
    stray.__enter__()
    assert signal.getitimer(signal.ITIMER_REAL)[0] > 0

    @B.api_boundary
    def call():
        return 1
    assert call() == 1
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before


def test_an_alarm_never_breaks_an_import_off(tmp_path, monkeypatch):
    """An alarm during highspy's first import left its C module's initialisation broken for the
    whole process ("ImportError: initialization failed" from every later LP; s53 API audit F2).
    A module being imported finishes; the alarm fires after."""
    import importlib
    import sys
    from semialgebraic.budget import alarm_at
    (tmp_path / "slow_module_s53.py").write_text(
        "import time\nt = time.monotonic()\nwhile time.monotonic() < t + 0.5:\n    pass\nDONE = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    t = time.monotonic()
    with pytest.raises(BudgetExhausted):
        with alarm_at(t + 0.1, "the work"):
            mod = importlib.import_module("slow_module_s53")
            imported = time.monotonic()
            while True:
                sum(range(1000))
    assert mod.DONE and imported >= t + 0.5 and "slow_module_s53" in sys.modules
    sys.modules.pop("slow_module_s53", None)


def test_a_command_is_told_by_its_handler_and_a_callers_budget_by_being_active():
    """api_boundary leaves a stop be inside a command (its ``ctrl_c`` handler on SIGINT: a count
    kept in a ``finally`` was left at 1 by a test's Ctrl-C there, and later API calls of that
    pytest worker raised the internal interrupt) and inside a budget the caller made active."""
    from semialgebraic.budget import Budget, _in_command, api_boundary, ctrl_c
    from semialgebraic.exceptions import BudgetExceededError

    @api_boundary
    def spent():
        raise BudgetExhausted("timeout of 1 s reached")
    assert not _in_command()
    with ctrl_c(grace=5):
        assert _in_command()
        with pytest.raises(BudgetExhausted):
            spent()
    assert not _in_command()
    with Budget(timeout=1).active(), pytest.raises(BudgetExhausted) as info:
        spent()
    assert not isinstance(info.value, BudgetExceededError)
    with pytest.raises(BudgetExceededError):
        spent()
