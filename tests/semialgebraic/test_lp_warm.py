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
from semialgebraic.lp import feasible, optimize, simplex
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


def test_an_infeasible_guess_is_repaired_by_pivots_not_a_cold_start():
    """max x1 + 2 x2 s.t. x1 + x2 + s1 = 2, x1 - x2 + s2 = 1 (all >= 0): the guess {x2, s1}
    is non-singular but x2 = -1 there; the repair pivots to a feasible basis and the warm run
    ends at the cold start's optimum 4 at (0, 2) with duals (2, 0)."""
    rows = [[Q(1), Q(1), Q(1), Q(0)], [Q(1), Q(-1), Q(0), Q(1)]]
    rhs, cost = [Q(2), Q(1)], [Q(1), Q(2), Q(0), Q(0)]
    A = QMatrix.from_rows(rows)
    xB = A.submatrix(cols=[1, 2]).solve(QMatrix.column(rhs)).col_at(0)
    assert xB == (Q(-1), Q(3))                               # the guess is infeasible
    repaired = simplex.repair_primal(A, rhs, [1, 2], xB)
    xR = A.submatrix(cols=repaired).solve(QMatrix.column(rhs)).col_at(0)
    assert all(v >= 0 for v in xR)                           # ... and the repair is feasible
    cold = simplex.revised_std(rows, rhs, cost, [2, 3])
    warm = simplex.warm_std(rows, rhs, cost, [1, 2])
    assert cold == warm == ("optimal", [Q(0), Q(2), Q(0), Q(3)], [Q(2), Q(0)])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_warm_std_from_any_nonsingular_basis_agrees_with_the_cold_start(seed):
    """Random standard-form LPs and random bases (feasible or not): the warm start, repaired
    when needed, reaches the cold optimum; oracle: exact primal feasibility, dual feasibility
    (yᵀA >= c) and equal objectives b·y = c·x, or the same 'unbounded' verdict."""
    rng = random.Random(seed)
    m, n = rng.randint(1, 3), rng.randint(1, 4)
    rows = [[Q(rng.randint(-3, 3)) for _ in range(n)] + [Q(1) if j == i else Q(0) for j in range(m)]
            for i in range(m)]
    rhs = [Q(rng.randint(0, 4)) for _ in range(m)]
    cost = [Q(rng.randint(-2, 3)) for _ in range(n)] + [Q(0)] * m
    basis = rng.sample(range(n + m), m)
    cold = simplex.revised_std(rows, rhs, cost, [n + i for i in range(m)])
    warm = simplex.warm_std(rows, rhs, cost, basis)
    if warm is None:                 # singular guess only (the slack basis is feasible)
        assert QMatrix.from_rows(rows).submatrix(cols=basis).rank() < m
        return
    assert warm[0] == cold[0]
    if warm[0] != "optimal":
        return
    x, y = warm[1], warm[2]
    assert all(v >= 0 for v in x)
    assert all(sum((r[j] * x[j] for j in range(n + m)), Q(0)) == b for r, b in zip(rows, rhs))
    assert all(sum((y[i] * rows[i][j] for i in range(m)), Q(0)) >= cost[j] for j in range(n + m))
    value = sum((c * v for c, v in zip(cost, x)), Q(0))
    assert value == sum((a * b for a, b in zip(y, rhs)), Q(0))
    assert value == sum((c * v for c, v in zip(cost, cold[1])), Q(0))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_optimize_warm_start_agrees_with_the_cold_exact_simplex(seed):
    """``optimize`` (warm from HiGHS's basis) and ``optimize(method="exact")`` (cold) give the
    same status and the same exact optimum, each with a certificate that checks."""
    rng = random.Random(seed)
    k = rng.randint(1, 3)
    A = [[Q(rng.randint(-4, 4)) for _ in range(k)] for _ in range(rng.randint(1, 6))]
    b = [Q(rng.randint(-2, 6), rng.randint(1, 3)) for _ in A]
    c = [Q(rng.randint(-3, 3)) for _ in range(k)]
    maximize = rng.random() < 0.5
    warm = optimize(c, maximize=maximize, A_le=A, b_le=b)
    cold = optimize(c, maximize=maximize, A_le=A, b_le=b, method="exact")
    assert warm.status == cold.status and warm.check() and cold.check()
    if warm.status == "optimal":
        assert warm.value == cold.value


def test_optimize_takes_the_warm_start(monkeypatch):
    """Planted: max x + y over the square [0, 1]^2 cut by x + y <= 3/2: HiGHS's basis is used
    (counted) and the optimum is exactly 3/2 with a checked dual."""
    used = []
    real = simplex._warm_free_le

    def counting(*args):
        got = real(*args)
        used.append(got is not None)
        return got
    monkeypatch.setattr(simplex, "_warm_free_le", counting)
    o = optimize([1, 1], A_le=[[1, 0], [0, 1], [-1, 0], [0, -1], [1, 1]], b_le=[1, 1, 0, 0, Q(3, 2)])
    assert used == [True] and o.status == "optimal" and o.value == Q(3, 2) and o.check()
