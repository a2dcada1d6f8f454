"""The exact simplex warm-started from HiGHS's basis decides exactly as the cold start.

``_exact_inequalities`` (the exact fallback of :func:`semialgebraic.lp.feasible`) solves the
dual standard form; with HiGHS's optimal basis of the primal as a hint it starts from the
matching dual basis when that is exactly non-singular and feasible
(:func:`semialgebraic.lp.simplex.warm_std`), else cold.  Oracles: the cold exact simplex and the
exact check of the point or Motzkin certificate; a wrong or useless hint must change nothing.
"""

import random

from hypothesis import given, settings, strategies as st

from algebra.linalg import QMatrix
from algebra.rationals import Q
from semialgebraic.lp import exact as lp_exact
from semialgebraic.lp import feasible, simplex
from semialgebraic.lp.floatlp import guess_and_verify

small = st.integers(-4, 4)


def _system(rng, k, m_lt, m_le):
    G_lt = QMatrix.from_rows([[Q(rng.randint(-4, 4)) for _ in range(k)] for _ in range(m_lt)], ncols=k)
    G_le = QMatrix.from_rows([[Q(rng.randint(-4, 4)) for _ in range(k)] for _ in range(m_le)], ncols=k)
    h_lt = [Q(rng.randint(-3, 5), rng.randint(1, 3)) for _ in range(m_lt)]
    h_le = [Q(rng.randint(-3, 5), rng.randint(1, 3)) for _ in range(m_le)]
    return G_lt, h_lt, G_le, h_le


def _holds(G_lt, h_lt, G_le, h_le, verdict):
    ok, payload = verdict
    if ok:
        return (all(a < b for a, b in zip(G_lt.apply(payload), h_lt))
                and all(a <= b for a, b in zip(G_le.apply(payload), h_le)))
    y_lt, y_le = payload
    n = G_lt.ncols
    comb = [sum((y * G_lt[i, j] for i, y in enumerate(y_lt)), Q(0))
            + sum((y * G_le[i, j] for i, y in enumerate(y_le)), Q(0)) for j in range(n)]
    beta = sum((y * h for y, h in zip(y_lt, h_lt)), Q(0)) + sum((y * h for y, h in zip(y_le, h_le)), Q(0))
    return (all(v == 0 for v in comb) and all(y >= 0 for y in (*y_lt, *y_le))
            and (beta < 0 or (beta == 0 and any(y > 0 for y in y_lt))))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_warm_start_from_highs_agrees_with_cold_start(seed):
    rng = random.Random(seed)
    k = rng.randint(1, 3)
    G_lt, h_lt, G_le, h_le = _system(rng, k, rng.randint(1, 6), rng.randint(0, 3))
    hint: list = []
    guess_and_verify(G_lt, h_lt, G_le, h_le, hint)
    warm = lp_exact._exact_inequalities(G_lt, h_lt, G_le, h_le, hint[0] if hint else None)
    cold = lp_exact._exact_inequalities(G_lt, h_lt, G_le, h_le)
    assert warm[0] == cold[0]
    assert _holds(G_lt, h_lt, G_le, h_le, warm) and _holds(G_lt, h_lt, G_le, h_le, cold)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10 ** 6), junk=st.lists(st.integers(-2, 12), max_size=5),
       t=st.booleans(), ncols=st.integers(0, 2))
def test_wrong_hints_change_nothing(seed, junk, t, ncols):
    rng = random.Random(seed)
    k = rng.randint(1, 3)
    G_lt, h_lt, G_le, h_le = _system(rng, k, rng.randint(1, 5), rng.randint(0, 2))
    cold = lp_exact._exact_inequalities(G_lt, h_lt, G_le, h_le)
    bad = lp_exact._exact_inequalities(G_lt, h_lt, G_le, h_le, (junk, t, ncols))
    assert bad[0] == cold[0] and _holds(G_lt, h_lt, G_le, h_le, bad)


def test_warm_start_is_taken_and_needs_few_pivots(monkeypatch):
    """Planted: a well-posed feasible system whose HiGHS basis is exactly feasible; the warm
    start is used (counted) and gives the cold start's verdict."""
    used = []
    real = simplex.warm_std

    def counting(*args):
        got = real(*args)
        used.append(got is not None)
        return got
    monkeypatch.setattr(lp_exact, "warm_std", counting)
    G_lt = QMatrix.from_rows([[1, 0], [0, 1], [-1, -1], [1, 1]], ncols=2)
    h_lt = [Q(1), Q(1), Q(0), Q(3, 2)]
    hint: list = []
    assert guess_and_verify(G_lt, h_lt, QMatrix.zeros(0, 2), [], hint) is not None
    verdict = lp_exact._exact_inequalities(G_lt, h_lt, QMatrix.zeros(0, 2), [], hint[0])
    assert used == [True] and verdict[0] is True
    assert _holds(G_lt, h_lt, QMatrix.zeros(0, 2), [], verdict)


def test_warm_std_matches_revised_std_from_a_feasible_basis():
    """max x1 + x2 s.t. x1 + s1 = 2, x2 + s2 = 3 (x, s >= 0): optimum 5 from the slack basis
    (cold, unit columns) and from the basis {x1, s2} (warm), with the same duals (1, 1)."""
    rows = [[Q(1), Q(0), Q(1), Q(0)], [Q(0), Q(1), Q(0), Q(1)]]
    rhs, cost = [Q(2), Q(3)], [Q(1), Q(1), Q(0), Q(0)]
    cold = simplex.revised_std(rows, rhs, cost, [2, 3])
    warm = simplex.warm_std(rows, rhs, cost, [0, 3])
    assert cold == warm == ("optimal", [Q(2), Q(3), Q(0), Q(0)], [Q(1), Q(1)])
    assert simplex.warm_std(rows, rhs, cost, [0, 2]) is None          # singular
    assert simplex.warm_std(rows, [Q(-1), Q(3)], cost, [0, 3]) is None  # infeasible: x1 = -1
    assert feasible(A_lt=[[1], [-1]], b_lt=[1, 0]).feasible            # the public door still decides
