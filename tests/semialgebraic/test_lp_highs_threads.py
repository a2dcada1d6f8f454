"""Regression: a HiGHS run with ``threads=1`` after another HiGHS run in the same process.

HiGHS builds one global thread scheduler at the first run; an instance whose ``threads``
option differs then fails silently (``run()`` gives ``kError``, model status ``kNotset``), so an
LP of :mod:`semialgebraic.lp.floatlp` returned "no guess" without a word.  ``run_highs`` resets
the scheduler and runs again.  Each case runs in a fresh interpreter (the scheduler is global).
Oracle: the exact optimum (min -x over the triangle x, y <= 1, x + y >= 0 is -1 at x = 1).
"""

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("highspy")

_SCRIPT = textwrap.dedent("""
    import numpy as np
    from highspy import _core as hc
    from semialgebraic.lp.floatlp import FloatLP, new_highs, run_highs

    first = FloatLP([[1, 0], [0, 1], [-1, -1]], [1, 1, 0])   # builds the global scheduler
    assert first.minimize([-1, 0])[0] == -1.0
    h = new_highs(threads=1)
    lp = hc.HighsLp()
    lp.num_col_, lp.num_row_ = 1, 0
    lp.col_cost_ = np.array([1.0])
    lp.col_lower_, lp.col_upper_ = np.array([2.0]), np.array([5.0])
    h.passModel(lp)
    h.run()                                                   # the bug: refused, silently
    print(h.getModelStatus() == hc.HighsModelStatus.kOptimal)
    run_highs(h)                                              # the fix
    print(h.getModelStatus() == hc.HighsModelStatus.kOptimal, h.getInfo().objective_function_value)
    again = FloatLP([[1, 0], [0, 1], [-1, -1]], [1, 1, 0], highs=new_highs(threads=1))
    print(again.minimize([-1, 0])[0], first.minimize([0, -1])[0])
""")


def test_threads_one_after_another_run_solves():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    plain, ok, value, again, first = out.stdout.split()
    assert ok == "True" and float(value) == 2.0            # min x over [2, 5]
    assert float(again) == -1.0 and float(first) == -1.0
    # the plain run() is what failed, silently (a HiGHS release that stops refusing a second
    # scheduler size makes only this line fail: then run_highs's retry is no longer needed)
    assert plain == "False"


# one thread for every later model (set_highs_threads, the Dask worker's setting) after a run
# with HiGHS's default threads: a branch-and-bound difference (its node LPs are HiGHS models of
# semialgebraic.bab.relaxation) and an exact LP (HiGHS guess verified over Q) still solve, and
# HiGHS itself answers (the node LPs report "optimal", the LP's method is "highs+exact").
# Oracles: the region walk's exact maximum deviation of the pair (A2, B2 of test_bab; 11/6 on
# [-2, 2]: at x = -2, A2 = 2 + 3 = 5 and B2 = 7/3 + 9/2 = 41/6, by hand); the point
# (1/2, 1/2) is the only one HiGHS's centre can round to on x + y = 1, x, y > 0.
_SCRIPT_BAB = textwrap.dedent("""
    from algebra.network import Network
    from semialgebraic.bab import diff_bounds, search
    from semialgebraic.equivalence import max_deviation
    from semialgebraic.lp import feasible
    from semialgebraic.lp.floatlp import FloatLP, highs_threads, new_highs, set_highs_threads

    first = FloatLP([[1, 0], [0, 1], [-1, -1]], [1, 1, 0])   # default threads build the scheduler
    assert first.minimize([-1, 0])[0] == -1.0
    assert set_highs_threads(1) is None and highs_threads() == 1
    print(new_highs().getOptionValue("threads")[1], new_highs(threads=2).getOptionValue("threads")[1])
    seen, orig = [], search.float_duals

    def recorded(*args, **kwargs):
        out = orig(*args, **kwargs)
        seen.append(out[0])
        return out
    search.float_duals = recorded
    A2 = Network.from_rows([[[1], [-1], [1], [-1]], [[1, 1, 1, 1]]], [[0, 0, -1, 1], [0]])
    B2 = Network.from_rows([[[1], [-1], [2], [-1]], [["1/2", 1, 1, "3/2"]]],
                           [[0, "1/3", -1, 1], [0]])
    r = diff_bounds(A2, B2, (-2, 2))
    exact = max_deviation(A2, B2, (-2, 2)).value          # the region walk, also on HiGHS
    print(r.lower, r.upper, exact, r.complete, ",".join(seen))
    f = feasible(A_eq=[[1, 1]], b_eq=[1], A_lt=[[-1, 0], [0, -1]], b_lt=[0, 0])
    print(f.feasible, f.method, ",".join(map(str, f.point)))
    print(first.minimize([0, -1])[0])                      # the default-threads model again
""")


def test_threads_one_for_every_model_after_a_default_run():
    out = subprocess.run([sys.executable, "-c", _SCRIPT_BAB], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[0].split() == ["1", "2"]                   # process-wide default; own option wins
    lower, upper, exact, complete, statuses = lines[1].split()
    assert lower == upper == exact == "11/6" and complete == "True"
    assert statuses and set(statuses.split(",")) == {"optimal"}
    assert lines[2].split() == ["True", "highs+exact", "1/2,1/2"]
    assert float(lines[3]) == -1.0


def test_set_highs_threads_validates_and_restores():
    from semialgebraic.lp.floatlp import highs_threads, set_highs_threads
    old = set_highs_threads(3)
    try:
        assert highs_threads() == 3
        for bad in (0, -1, 1.5, True, "1"):
            with pytest.raises(ValueError):
                set_highs_threads(bad)
        assert highs_threads() == 3
    finally:
        set_highs_threads(old)
    assert highs_threads() == old


def test_worker_plugin_sets_one_highs_thread():
    """The Dask worker plugin's setup (no cluster: called directly, in a fresh interpreter since
    it limits BLAS and FLINT too) sets HiGHS's threads to 1 for every later model."""
    pytest.importorskip("distributed")
    script = textwrap.dedent("""
        from semialgebraic.distributed.cluster import limit_threads
        from semialgebraic.distributed.worker_plugin import SingleThreaded
        from semialgebraic.lp.floatlp import FloatLP, highs_threads, new_highs
        print(highs_threads())
        SingleThreaded().setup(worker=None)
        print(highs_threads(), new_highs().getOptionValue("threads")[1], limit_threads()["highs"])
        print(FloatLP([[1, 0], [0, 1], [-1, -1]], [1, 1, 0]).minimize([-1, 0])[0])
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    before, after, option, reported, value = out.stdout.split()
    assert before == "None" and after == option == reported == "1" and float(value) == -1.0


def test_an_active_wall_clock_budget_limits_a_highs_run():
    """One HiGHS LP of a 784-input region ran 15 s past `regions --timeout 5` (new-user audit,
    session 36): under an active wall-clock budget a run gets the seconds left as its time
    limit, a run stopped by it raises BudgetExhausted (never a status read as "infeasible"),
    and the instance's own time limit is restored."""
    import numpy as np
    import pytest
    from semialgebraic.budget import Budget, BudgetExhausted
    from semialgebraic.lp.floatlp import dense_max, new_highs, run_highs
    rng = np.random.default_rng(0)
    n = 400
    A, r = rng.standard_normal((3 * n, n)), rng.random(3 * n) + 1
    with Budget(timeout=1e-9).active():
        with pytest.raises(BudgetExhausted):
            dense_max(A, r, rng.standard_normal(n), -np.ones(n), np.ones(n))
    h = new_highs()
    with Budget(timeout=1000).active():
        run_highs(h)
    assert h.getOptionValue("time_limit")[1] == float("inf")
    with Budget(timeout=1e-9, clock=__import__("time").process_time).active():   # CPU clock: not
        assert dense_max(A[:5, :3], r[:5], np.ones(3), -np.ones(3), np.ones(3)) is not None


def test_a_reused_highs_instance_is_not_stopped_by_its_past_run_time():
    """HiGHS compares time_limit with an instance's run time summed over all its runs
    (ERGO-Code/HiGHS#1477): a region walk's reused instance stopped at once under a budget
    with more seconds left than its past runs (CI, session 37: `conserved --timeout 5` read as
    "interrupted (Ctrl-C) during the region walk").  The limit handed over is the run time so
    far plus the seconds left."""
    import numpy as np
    from highspy import _core as hc
    from semialgebraic.budget import Budget
    from semialgebraic.lp.floatlp import new_highs, run_highs
    rng = np.random.default_rng(0)
    n, m = 300, 600
    h = new_highs(time_limit=0.2)
    h.passModel(_dense_lp(hc, rng.standard_normal((m, n)), np.ones(m), rng.standard_normal(n)))
    h.run()                                     # 0.2 s of run time, stopped by its own limit
    assert h.getRunTime() >= 0.2
    h.setOptionValue("time_limit", float("inf"))
    h.passModel(_dense_lp(hc, np.ones((1, 2)), np.ones(1), np.ones(2)))
    with Budget(timeout=0.15).active():        # fewer seconds left than the past run time
        run_highs(h)
    assert h.getModelStatus() == hc.HighsModelStatus.kOptimal
    assert h.getOptionValue("time_limit")[1] == float("inf")


def _dense_lp(hc, A, r, cost):
    """``min cost·x`` subject to ``A x <= r`` and ``-1 <= x <= 1`` as a HighsLp."""
    import numpy as np
    lp = hc.HighsLp()
    m, n = A.shape
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = cost, -np.ones(n), np.ones(n)
    lp.row_lower_, lp.row_upper_ = np.full(m, -np.inf), r
    lp.a_matrix_.format_ = hc.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.arange(0, m * n + 1, m)
    lp.a_matrix_.index_ = np.tile(np.arange(m), n)
    lp.a_matrix_.value_ = A.T.ravel()
    return lp
