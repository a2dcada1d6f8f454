"""Exact simplex over Q: the fallback solver of :mod:`semialgebraic.lp.exact`.

Dense tableau with Bland's rule (no cycling) and whole-matrix rank-1 updates, and a revised
variant that starts from a given basis.  Everything is over ``fmpq``; no tolerance anywhere.
HiGHS only ever *guesses* (:mod:`semialgebraic.lp.floatlp`); when a guess cannot be verified
exactly, these routines decide.

* :func:`simplex_free_le` — ``max c·w`` s.t. ``A w <= b`` with ``w`` free, with the row duals
  (a Farkas/optimality witness) or an unbounded ray;
* :func:`simplex_std` — ``max c·x`` s.t. ``A x = b``, ``x >= 0`` (phase one with artificials when
  no basis is given);
* :func:`revised_std` — the same from a feasible basis (warm start);
* :func:`warm_std` — the same from a guessed basis (HiGHS's) when it is exactly non-singular,
  repaired by exact pivots (:func:`repair_primal`) when it is not primal feasible.

>>> from algebra.rationals import Q
>>> status, w, y = simplex_free_le([[Q(1)], [Q(-1)]], [Q(2), Q(0)], [Q(1)])
>>> status, w, y
('optimal', (2,), (1, 0))
"""

from __future__ import annotations

from algebra.linalg import QMatrix
from algebra.rationals import Q

from ..budget import checkpoint

__all__ = ["simplex_free_le", "simplex_std", "revised_std", "warm_std", "repair_primal"]

_ZERO = Q(0)
_ONE = Q(1)


# ------------------------------------------------------------------------------------------------
def simplex_free_le(rows, rhs, cost, warm=None):
    """max cost·w s.t. rows·w <= rhs, w free.

    Returns ("optimal", w, y) with y >= 0 the row duals (yᵀ rows = cost, y·rhs = optimum),
    ("unbounded", w, r) with rows·r <= 0 and cost·r > 0, or ("infeasible", None, None).

    *warm*: a guessed basis ``(basic columns (j, sign), basic rows)`` (HiGHS's,
    :func:`~semialgebraic.lp.floatlp.guess_basis_le`): the standard form's basis of ``w_j^±``
    and the slacks of the basic rows is solved exactly and repaired by exact pivots
    (:func:`warm_std`); unusable guesses fall back to the cold start.
    """
    m = len(rows)
    k = len(cost)
    if warm is not None and m:
        got = _warm_free_le(rows, rhs, cost, warm)
        if got is not None:
            return got
    # columns: w+ (k), w- (k), s (m)
    std_rows, std_rhs, basis = [], [], []
    for i in range(m):
        sgn = _ONE if rhs[i] >= 0 else Q(-1)
        r = [sgn * v for v in rows[i]]
        std_rows.append(r + [-v for v in r] + [sgn if j == i else _ZERO for j in range(m)])
        std_rhs.append(sgn * rhs[i])
        basis.append(2 * k + i if sgn == 1 else None)
    std_cost = list(cost) + [-v for v in cost] + [_ZERO] * m
    status, x, extra = simplex_std(std_rows, std_rhs, std_cost, basis, want_dual=True)
    if status == "infeasible":
        return status, None, None
    w = tuple(x[j] - x[k + j] for j in range(k))
    if status == "unbounded":
        r = tuple(extra[j] - extra[k + j] for j in range(k))
        return status, w, r
    # extra = dual of the standard rows; undo the sign flips
    y = tuple(extra[i] if rhs[i] >= 0 else -extra[i] for i in range(m))
    return status, w, y


def _warm_free_le(rows, rhs, cost, warm):
    """:func:`simplex_free_le` from the guessed basis *warm*, or None when it is unusable."""
    m, k = len(rows), len(cost)
    cols, basic_rows = warm
    basis = [j if sgn >= 0 else k + j for j, sgn in cols] + [2 * k + i for i in basic_rows]
    if len(basis) != m:
        return None
    std_rows = [list(rows[i]) + [-v for v in rows[i]] + [_ONE if j == i else _ZERO for j in range(m)]
                for i in range(m)]
    got = warm_std(std_rows, list(rhs), list(cost) + [-v for v in cost] + [_ZERO] * m, basis)
    if got is None:
        return None
    status, x, extra = got
    w = tuple(x[j] - x[k + j] for j in range(k))
    if status == "unbounded":
        return status, w, tuple(extra[j] - extra[k + j] for j in range(k))
    return status, w, tuple(extra)


def simplex_std(rows, rhs, cost, basis=None, want_dual=False):
    """max cost·x s.t. rows·x = rhs (rhs >= 0 required if basis given), x >= 0.

    *basis*: per row a column that is the unit vector of that row, or None (an artificial is
    added).  Returns (status, x, extra) with extra the duals (optimal) or a ray (unbounded).
    """
    m = len(rows)
    N = len(cost)
    if basis is None:
        rows = [list(r) for r in rows]
        rhs = list(rhs)
        for i in range(m):
            if rhs[i] < 0:
                rows[i] = [-v for v in rows[i]]
                rhs[i] = -rhs[i]
        basis = [None] * m
    art = [i for i in range(m) if basis[i] is None]
    n_art = len(art)
    total = N + n_art
    full = []
    for i in range(m):
        extra = [_ZERO] * n_art
        if basis[i] is None:
            extra[art.index(i)] = _ONE
        full.append(list(rows[i]) + extra + [rhs[i]])
    basis = list(basis)
    for a_idx, i in enumerate(art):
        basis[i] = N + a_idx
    if m == 0:
        # no constraints: x = 0 optimal iff cost <= 0
        pos = [j for j in range(N) if cost[j] > 0]
        if pos:
            r = [_ZERO] * N
            r[pos[0]] = _ONE
            return "unbounded", [_ZERO] * N, r
        return "optimal", [_ZERO] * N, []
    T = QMatrix.from_rows(full + [[_ZERO] * (total + 1)])
    if n_art:
        c1 = [_ZERO] * N + [Q(-1)] * n_art
        T = _set_objective(T, basis, c1, m)
        T, basis, st = _run(T, basis, m, total, allowed=total)
        if T[m, total] != 0:  # min Σ artificials > 0
            return "infeasible", None, None
        # drive artificials out of the basis
        keep_rows, redundant = [], set()
        for i in range(m):
            if basis[i] >= N:
                row = T.row_at(i)
                j = next((j for j in range(N) if row[j] != 0), None)
                if j is None:
                    # tableau row i is 0 = 0; the redundant original row is this artificial's
                    # own (row i of B⁻¹ is 1 there), not row i: phase one may have moved the
                    # artificial (the duals' basis matrix was singular, s51 audit F1)
                    redundant.add(art[basis[i] - N])
                    continue
                T = _pivot(T, i, j)
                basis[i] = j
            keep_rows.append(i)
        if len(keep_rows) < m:
            T = T.submatrix(rows=keep_rows + [m])
            basis = [basis[i] for i in keep_rows]
            removed = sorted(redundant)
            keep_rows = [i for i in range(m) if i not in redundant]   # original rows
        else:
            removed = []
        m2 = len(keep_rows)
        T = T.submatrix(cols=list(range(N)) + [total])
    else:
        removed, m2, keep_rows = [], m, list(range(m))
    T = _set_objective(T, basis, list(cost), m2)
    T, basis, st = _run(T, basis, m2, N, allowed=N)
    x = [_ZERO] * N
    for i, b in enumerate(basis):
        x[b] = T[i, N]
    if st != "optimal":
        j = st
        col = T.col_at(j)
        r = [_ZERO] * N
        r[j] = _ONE
        for i, b in enumerate(basis):
            r[b] = -col[i]
        return "unbounded", x, r
    duals = None
    if want_dual:
        # y = c_B B^{-1}: for an original unit column e_i (slack of row i) the reduced cost is y_i
        duals = _duals(T, basis, cost, rows, keep_rows, removed, m, N, m2)
    return "optimal", x, duals


def revised_std(rows, rhs, cost, basis):
    """Revised simplex over Q for  max cost·x, rows·x = rhs (>= 0), x >= 0.

    *basis* gives, per row, a column that is that row's unit vector, or None (an artificial is
    added).  Every iteration solves with the basis matrix exactly (FLINT's fraction-free
    solver), prices all columns with one product and pivots (Dantzig's rule, Bland's after a
    run of degenerate pivots).  Same results as :func:`simplex_std` with ``want_dual=True``.
    """
    m, N = len(rows), len(cost)
    art = [i for i in range(m) if basis[i] is None]
    full = [list(rows[i]) + [_ONE if art and i == a else _ZERO for a in art] for i in range(m)]
    A = QMatrix.from_rows(full, ncols=N + len(art))
    b = list(rhs)
    basis = [basis[i] if basis[i] is not None else N + art.index(i) for i in range(m)]
    live = list(range(m))
    if art:
        c1 = [_ZERO] * N + [Q(-1)] * len(art)
        st, basis, xB, _, _ = _revised_run(A, b, c1, basis, N + len(art))
        if sum((xB[i] for i in range(m) if basis[i] >= N), _ZERO) != 0:
            return "infeasible", None, None
        # drive the (zero) artificials out of the basis; drop redundant rows
        i = 0
        while i < len(basis):
            if basis[i] < N:
                i += 1
                continue
            B = A.submatrix(rows=live, cols=basis)
            e = QMatrix.column([_ONE if t == i else _ZERO for t in range(len(basis))])
            rowi = (B.T.solve(e).T @ A.submatrix(rows=live, cols=range(N))).row_at(0)
            j = next((j for j in range(N) if rowi[j] != 0 and j not in basis), None)
            if j is None:
                # row i of B⁻¹ (y) is 0 on every original column: yᵀA = 0, and y is 1 on the
                # row of this artificial (its column is that row's unit vector), so that row is
                # redundant (and yᵀb = 0: the artificial is 0); the basis without the artificial
                # and that row stays non-singular.  Row i of B is another row: dropping it
                # instead made B singular after phase one had moved the artificials (a trained
                # 64-12-8-10 on R^64 crashed `regions` and `conserved`; s51 audit F1), or
                # dropped a row that is not redundant
                del live[live.index(art[basis[i] - N])]
                del basis[i]
                continue
            basis[i] = j
            i += 1
        A = A.submatrix(rows=live, cols=range(N))
        b = [rhs[i] for i in live]
    return _result(_revised_run(A, b, list(cost), basis, N), N, m, live)


def warm_std(rows, rhs, cost, basis):
    """:func:`revised_std` warm-started from a guessed basis (e.g. HiGHS's optimal basis).

    *basis*: one column per row (any order).  The basis matrix is solved exactly; a singular
    guess is unusable.  When it is not exactly primal feasible (some ``(B⁻¹ rhs)_i < 0``, e.g.
    HiGHS stopped within its tolerances), it is repaired by exact pivots from there
    (:func:`repair_primal`: one artificial column, phase one warm-started from the guess), not
    by a cold start; the exact revised simplex then repairs dual infeasibility with exact
    pivots (usually a few).  Returns what :func:`revised_std` returns, or None when the guess
    is unusable (singular, or the repair found no feasible basis: the caller then starts cold
    and decides).
    """
    m, N = len(rows), len(cost)
    if len(basis) != m or len(set(basis)) != m or any(not 0 <= j < N for j in basis):
        return None
    A = QMatrix.from_rows([list(r) for r in rows], ncols=N)
    B = A.submatrix(cols=list(basis))
    if m and B.rank() < m:
        return None
    basis = list(basis)
    if m:
        xB = B.solve(QMatrix.column(list(rhs))).col_at(0)
        if any(v < 0 for v in xB):
            basis = repair_primal(A, list(rhs), basis, xB)
            if basis is None:
                return None
    return _result(_revised_run(A, list(rhs), list(cost), basis, N), N, m, range(m))


def repair_primal(A, b, basis, xB):
    """A primal feasible basis of ``A x = b, x >= 0`` reached by exact pivots from the
    non-singular basis *basis* (values *xB*, some negative), or None.

    One artificial column ``h = -B u`` (``u`` the indicator of the negative rows) enters at
    the most negative row r: ``B⁻¹h = -u`` has ``-1`` in row r, so the new basis is
    non-singular, and its values ``xB + θu`` (``θ = -xB_r``) are >= 0.  Phase one (minimise the
    artificial) runs from there with :func:`_revised_run`; the artificial must end at 0 and is
    pivoted out of the basis if it stays there degenerate.  None when the system is
    infeasible or the artificial cannot be pivoted out (the caller starts cold)."""
    m, N = A.nrows, A.ncols
    u = QMatrix.column([_ONE if v < 0 else _ZERO for v in xB])
    h = -(A.submatrix(cols=basis) @ u)
    Aext = QMatrix.hstack([A, h])
    r = min((i for i in range(m) if xB[i] < 0), key=lambda i: (xB[i], basis[i]))
    start = list(basis)
    start[r] = N
    _, basis2, xB2, _, _ = _revised_run(Aext, b, [_ZERO] * N + [Q(-1)], start, N + 1)
    if N not in basis2:
        return list(basis2)
    i = basis2.index(N)
    if xB2[i] != 0:
        return None                    # min artificial > 0: infeasible
    B2 = Aext.submatrix(cols=basis2)
    e = QMatrix.column([_ONE if t == i else _ZERO for t in range(m)])
    rowi = (B2.T.solve(e).T @ A).row_at(0)
    j = next((j for j in range(N) if rowi[j] != 0 and j not in basis2), None)
    if j is None:
        return None                    # a redundant row: left to the cold start
    basis2 = list(basis2)
    basis2[i] = j                      # degenerate pivot: the values stay >= 0
    return basis2


def _result(run, N, m, live):
    """Package a finished :func:`_revised_run` as :func:`revised_std` returns it."""
    st, basis, xB, pi, extra = run
    x = [_ZERO] * N
    for i, j in enumerate(basis):
        x[j] = xB[i]
    if st == "unbounded":
        j, u = extra
        r = [_ZERO] * N
        r[j] = _ONE
        for i, bj in enumerate(basis):
            r[bj] = -u[i]
        return "unbounded", x, r
    duals = [_ZERO] * m
    for i, v in zip(live, pi):
        duals[i] = v
    return "optimal", x, duals


def _revised_run(A, b, cost, basis, allowed):
    """Revised simplex iterations from a feasible basis; see :func:`revised_std`."""
    r = A.nrows
    bcol = QMatrix.column(b)
    crow = QMatrix.row(cost + [_ZERO] * (A.ncols - len(cost)))
    bland, degenerate = False, 0
    while True:
        checkpoint()                 # an active budget stops here (BudgetExhausted)
        B = A.submatrix(cols=basis)
        xB = B.solve(bcol).col_at(0) if r else ()
        pi = B.T.solve(QMatrix.column([crow[0, j] for j in basis])) if r else QMatrix.zeros(0, 1)
        red = (crow - pi.T @ A).row_at(0) if r else crow.row_at(0)
        inb = set(basis)
        if bland:
            j = next((j for j in range(allowed) if j not in inb and red[j] > 0), None)
        else:
            j, best = None, _ZERO
            for jj in range(allowed):
                if red[jj] > best and jj not in inb:
                    j, best = jj, red[jj]
        if j is None:
            return "optimal", basis, xB, pi.col_at(0) if r else (), None
        u = B.solve(A.submatrix(cols=[j])).col_at(0) if r else ()
        best_ratio, best_i = None, None
        for i in range(r):
            if u[i] > 0:
                ratio = xB[i] / u[i]
                if (best_ratio is None or ratio < best_ratio
                        or (ratio == best_ratio and basis[i] < basis[best_i])):
                    best_ratio, best_i = ratio, i
        if best_i is None:
            return "unbounded", basis, xB, None, (j, u)
        degenerate = degenerate + 1 if best_ratio == 0 else 0
        if degenerate > 2 * r + 10:
            bland = True
        basis = list(basis)
        basis[best_i] = j


def _duals(T, basis, cost, rows, keep_rows, removed, m, N, m2):
    """Row duals of the standard problem: solve y B = c_B on the final basis (exact)."""
    B = QMatrix.from_rows([[rows[i][b] for b in basis] for i in keep_rows], ncols=len(basis))
    cB = QMatrix.row([cost[b] for b in basis])
    if m2 == 0:
        yk = []
    else:
        yk = (B.T.solve(cB.T)).col_at(0)
    y = [_ZERO] * m
    for i, v in zip(keep_rows, yk):
        y[i] = v
    return y


def _set_objective(T, basis, cost, m):
    """Objective row (last row) = c_B · rows - c, rhs = current value."""
    ncol = T.ncols
    c_ext = list(cost) + [_ZERO] * (ncol - len(cost))
    cB = QMatrix.row([c_ext[b] for b in basis] + [_ZERO])
    obj = cB @ T - QMatrix.row(c_ext)
    body = T.submatrix(rows=range(m))
    return QMatrix.vstack([body, obj])


def _run(T, basis, m, ncols, allowed):
    """Simplex pivots until optimal; returns (T, basis, "optimal" or the entering column if
    unbounded).  Dantzig's rule (most negative reduced cost) while it makes progress; after
    ``2 m + 10`` degenerate pivots in a row, Bland's rule for good (which cannot cycle)."""
    rhs_col = T.ncols - 1
    bland = False
    degenerate = 0
    while True:
        checkpoint()                 # an active budget stops here (BudgetExhausted)
        obj = T.row_at(m)
        if bland:
            j = next((j for j in range(allowed) if obj[j] < 0), None)
        else:
            j, best_v = None, _ZERO
            for jj in range(allowed):
                if obj[jj] < best_v:
                    j, best_v = jj, obj[jj]
        if j is None:
            return T, basis, "optimal"
        col = T.col_at(j)
        rhs = T.col_at(rhs_col)
        best, best_i = None, None
        for i in range(m):
            a = col[i]
            if a > 0:
                ratio = rhs[i] / a
                if best is None or ratio < best or (ratio == best and basis[i] < basis[best_i]):
                    best, best_i = ratio, i
        if best_i is None:
            return T, basis, j
        degenerate = degenerate + 1 if best == 0 else 0
        if degenerate > 2 * m + 10:
            bland = True
        T = _pivot(T, best_i, j)
        basis[best_i] = j


def _pivot(T, r, j):
    p = T[r, j]
    col = list(T.col_at(j))
    col[r] = p - 1
    row = QMatrix.row([v / p for v in T.row_at(r)])
    return T - QMatrix.column(col) @ row


