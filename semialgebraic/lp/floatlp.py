r"""Float (HiGHS) guesses for the exact LP, turned into exact points and certificates.

HiGHS (imported lazily) maximises a slack ``t <= 1`` on the strict rows, each row scaled by its
Euclidean norm (a Chebyshev-like centre, so the guessed point is well inside).  The guess is
made exact and *verified over Q* (:func:`guess_and_verify`): a point by rounding its coordinates
to small denominators (or, when non-strict rows are active, by solving the active rows exactly
and rounding the remaining free coordinates); an infeasible verdict by solving for the
multipliers exactly on the support of HiGHS's dual vector (or dual ray) and checking the
Motzkin conditions (:mod:`semialgebraic.lp.certificates`).  Nothing here decides: a guess that
does not verify returns None and the exact simplex decides.

:class:`FloatLP` keeps one float model ``A x <= b`` and re-solves it for many objectives (the
region walk uses its duals to guess supports of Farkas multipliers, then solves them exactly).

HiGHS's thread scheduler is global to the process and built by the first run: a later instance
whose ``threads`` option differs (e.g. ``threads=1`` for a one-thread benchmark after any other
HiGHS run) makes ``run()`` return ``kError`` with model status ``kNotset`` and nothing else
("the scheduler has already been initialized", ERGO-Code/HiGHS pull request 715) -- callers that
only read the model status then see a silent failure.  Every model here is made by
:func:`new_highs` and run by :func:`run_highs`, which recognises that error, resets the global
scheduler (``resetGlobalScheduler(True)``) and runs again.  :func:`set_highs_threads` sets a
process-wide ``threads`` value for every later :func:`new_highs` model (the Dask worker plugin
sets 1: one thread per worker process, :func:`semialgebraic.distributed.cluster.limit_threads`).
"""

from __future__ import annotations

from fractions import Fraction

from algebra.linalg import QMatrix
from algebra.rationals import Q

from .certificates import add_vectors, dot

__all__ = ["guess_and_verify", "guess_basis_le", "FloatLP", "new_highs", "run_highs", "dense_max",
           "set_highs_threads", "highs_threads"]

_ZERO = Q(0)


# ------------------------------------------------------------------------------------------------
# HiGHS instances
# ------------------------------------------------------------------------------------------------
_THREADS = None        # the process-wide HiGHS ``threads`` of new models (None: HiGHS's default)


def set_highs_threads(n: int | None) -> int | None:
    """Every later :func:`new_highs` model gets ``threads=n`` (None: HiGHS's default again,
    unless the model's own options say otherwise); returns the previous value.

    >>> old = set_highs_threads(1); highs_threads(), set_highs_threads(old)
    (1, 1)
    """
    global _THREADS
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise ValueError(f"HiGHS threads must be a positive integer or None, not {n!r}")
    old, _THREADS = _THREADS, n
    return old


def highs_threads() -> int | None:
    """The process-wide ``threads`` of new HiGHS models (:func:`set_highs_threads`), or None."""
    return _THREADS


def new_highs(**options):
    """A silent HiGHS instance (presolve off: small dense LPs) with extra *options* set, e.g.
    ``new_highs(threads=1)`` (without ``threads``: the process-wide value of
    :func:`set_highs_threads`, when set); run it with :func:`run_highs`."""
    from highspy import _core as hc
    h = hc._Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")   # small dense LPs: presolve costs more than it saves
    if _THREADS is not None and "threads" not in options:
        h.setOptionValue("threads", _THREADS)
    for key, value in options.items():
        h.setOptionValue(key, value)
    return h


def run_highs(h):
    """``h.run()``; when HiGHS refuses to run because its global thread scheduler was built
    for another ``threads`` value (status ``kError``, model status ``kNotset``), reset the
    scheduler and run once more.  Returns the run's status.

    Under an active budget with a wall-clock timeout the run gets the seconds left as its
    ``time_limit`` (one LP of a 784-input region took 15 s past a 5 s ``--timeout``: HiGHS does
    not see signals); a run stopped by that limit raises
    :class:`~semialgebraic.budget.BudgetExhausted`, never returns a non-optimal status a caller
    could read as "infeasible".  The instance's own ``time_limit`` is restored afterwards."""
    from highspy import _core as hc
    from ..budget import BudgetExhausted, wall_seconds_left
    left = wall_seconds_left()
    own = None
    if left is not None:
        # HiGHS (< 2.0) compares time_limit with the instance's run time summed over all its
        # runs (ERGO-Code/HiGHS#1477): an instance reused for many LPs would stop at once,
        # long before the budget ends (a 5 s conserved walk read as interrupted); so the limit
        # is the run time so far plus the seconds left
        own = h.getOptionValue("time_limit")[1]
        limit = h.getRunTime() + max(0.01, left)
        if limit < own:
            h.setOptionValue("time_limit", limit)
        else:
            own = None
    try:
        status = h.run()
        if status == hc.HighsStatus.kError and h.getModelStatus() == hc.HighsModelStatus.kNotset:
            hc._Highs.resetGlobalScheduler(True)
            status = h.run()
    finally:
        if own is not None:
            h.setOptionValue("time_limit", own)
    if own is not None and h.getModelStatus() == hc.HighsModelStatus.kTimeLimit:
        raise BudgetExhausted(f"timeout reached (inside an LP, after {left:.3g} s)")
    return status


def dense_max(A, r, cost, lo, hi):
    """HiGHS (floats, a hint only): ``max cost·x`` subject to the dense rows ``A x <= r`` and
    ``lo <= x <= hi`` (numpy arrays); ``(x, objective)`` at the optimum, else None."""
    import numpy as np
    from highspy import _core as hc
    n = len(cost)
    lp = hc.HighsLp()
    lp.num_col_, lp.num_row_ = n, len(r)
    lp.col_cost_ = cost
    lp.col_lower_, lp.col_upper_ = lo, hi
    lp.row_lower_ = np.full(len(r), -hc.kHighsInf)
    lp.row_upper_ = r
    lp.sense_ = hc.ObjSense.kMaximize
    M = lp.a_matrix_
    M.format_ = hc.MatrixFormat.kRowwise
    M.start_ = np.arange(0, A.size + 1, max(n, 1), dtype=np.int32)[:len(r) + 1]
    M.index_ = np.tile(np.arange(n, dtype=np.int32), len(r))
    M.value_ = A.ravel()
    M.num_col_, M.num_row_ = n, len(r)
    hs = new_highs()
    hs.passModel(lp)
    run_highs(hs)
    if str(hs.getModelStatus()).rsplit(".", 1)[-1] != "kOptimal":
        return None
    return np.array(hs.getSolution().col_value), hs.getInfo().objective_function_value


# ------------------------------------------------------------------------------------------------
# HiGHS guess + exact verification
# ------------------------------------------------------------------------------------------------
def _floats(M: QMatrix):
    import numpy as np
    return np.array([float(v) for v in M.entries()], dtype=float).reshape(M.nrows, M.ncols)


def _guess_float(v) -> float:
    """``float(v)``, or ±inf beyond float64's range: the guesses below then see a non-finite
    number and give none, and the exact method decides (``feasible(A_le=[[10**400, 1], ...])``
    with method "auto" raised OverflowError; s52 delta audit F4)."""
    try:
        return float(v)
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def _guess_floats(M: QMatrix):
    import numpy as np
    return np.array([_guess_float(v) for v in M.entries()], dtype=float).reshape(M.nrows, M.ncols)


def _highs_solve(G, h, n_strict, weights, cost, t_col, sense_max=True, lower_t=None,
                 basis_out=None):
    """Run HiGHS on  G w <= h  (rows), free columns except t <= 1; returns (status, x, dual, ray).

    With a list *basis_out*, an optimal solve appends ``(nonbasic rows, t nonbasic, number of
    nonbasic columns, nonbasic columns)`` of HiGHS's final basis (a guess for the exact
    simplex's warm start)."""
    import numpy as np
    from highspy import _core as hc
    m, ncol = G.shape
    h_ = new_highs()
    lp = hc.HighsLp()
    lp.num_col_ = ncol
    lp.num_row_ = m
    inf = hc.kHighsInf
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lo = np.full(ncol, -inf)
    up = np.full(ncol, inf)
    if t_col is not None:
        up[t_col] = 1.0
    lp.col_lower_ = lo
    lp.col_upper_ = up
    lp.row_lower_ = np.full(m, -inf)
    lp.row_upper_ = np.asarray(h, dtype=float)
    lp.sense_ = hc.ObjSense.kMaximize if sense_max else hc.ObjSense.kMinimize
    lp.a_matrix_.format_ = hc.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.arange(0, m * ncol + 1, ncol, dtype=np.int32)
    lp.a_matrix_.index_ = np.tile(np.arange(ncol, dtype=np.int32), m)
    lp.a_matrix_.value_ = G.ravel()
    h_.passModel(lp)
    run_highs(h_)
    st = h_.getModelStatus()
    sol = h_.getSolution()
    name = str(st).rsplit(".", 1)[-1]
    if name == "kOptimal":
        if basis_out is not None:
            basis = h_.getBasis()
            basic = hc.HighsBasisStatus.kBasic
            rows = [i for i, v in enumerate(basis.row_status) if v != basic]
            cols = [j for j, v in enumerate(basis.col_status) if v != basic]
            basis_out.append((rows, t_col in cols, len(cols), cols))
        return "optimal", np.array(sol.col_value), np.array(sol.row_dual), None
    if name == "kInfeasible":
        ok, ray = _dual_ray(h_, m)
        return "infeasible", None, None, ray if ok else None
    if name in ("kUnbounded", "kUnboundedOrInfeasible"):
        return "unbounded", None, None, None
    return "unknown", None, None, None


def _dual_ray(h_, m):
    import numpy as np
    try:
        out = h_.getDualRay()
    except Exception:  # pragma: no cover - API differences
        return False, None
    if isinstance(out, tuple):
        if len(out) == 3:
            _, exists, ray = out
        else:
            exists, ray = out[-2], out[-1]
    else:  # pragma: no cover
        return False, None
    if not exists:
        return False, None
    return True, np.array(ray[:m], dtype=float)


def guess_and_verify(G_lt, h_lt, G_le, h_le, hint=None):
    """Decide ``G_lt z < h_lt, G_le z <= h_le`` by a HiGHS guess verified exactly.

    Returns ``(True, z)`` with an exact point, ``(False, (y_lt, y_le))`` with exact Motzkin
    multipliers, or None when the guess cannot be verified (the caller then decides exactly;
    with a list *hint*, HiGHS's optimal basis is appended to it for the exact warm start).
    """
    import numpy as np
    k = G_lt.ncols
    m_lt, m_le = G_lt.nrows, G_le.nrows
    A_lt = _guess_floats(G_lt) if m_lt else np.zeros((0, k))
    A_le = _guess_floats(G_le) if m_le else np.zeros((0, k))
    f_lt = np.array([_guess_float(v) for v in h_lt]) if m_lt else np.zeros(0)
    f_le = np.array([_guess_float(v) for v in h_le]) if m_le else np.zeros(0)
    if not (np.all(np.isfinite(A_lt)) and np.all(np.isfinite(A_le))):
        return None
    if m_lt:
        with np.errstate(over="ignore"):        # (rows near 1e200: their squares overflow)
            w = np.linalg.norm(A_lt, axis=1)
        if not np.all(np.isfinite(w)):
            return None                         # no float guess: the exact method decides
        w[w == 0] = 1.0
        G = np.vstack([np.c_[A_lt, w], np.c_[A_le, np.zeros(m_le)]])
        cost = np.r_[np.zeros(k), 1.0]
        t_col = k
    else:
        G = A_le
        cost = np.zeros(k)
        t_col = None
    h = np.r_[f_lt, f_le]
    if not np.all(np.isfinite(G)) or not np.all(np.isfinite(h)):
        return None
    status, x, dual, ray = _highs_solve(G, h, m_lt, None, cost, t_col,
                                        basis_out=hint if m_lt else None)
    if m_lt and status in ("optimal", "unknown"):
        z = None
        if status == "optimal" and x[k] > 1e-9:
            z = _exact_point(G_lt, h_lt, G_le, h_le, A_le, f_le, x[:k], x[k])
        if z is None and (status == "unknown" or x[k] > 1e-9):
            z = _point_without_tiny_columns(G_lt, h_lt, G_le, h_le, A_le, f_le, G, h, cost)
        if z is not None:
            return True, z
    if status == "optimal":
        t = x[k] if m_lt else 1.0
        if t > 1e-9 and not m_lt:
            z = _exact_point(G_lt, h_lt, G_le, h_le, A_le, f_le, x[:k], t)
            if z is not None:
                return True, z
        if m_lt and t < 1e-7:
            y = _exact_multipliers(G_lt, h_lt, G_le, h_le, np.abs(dual), strict_needed=True)
            if y is not None:
                return False, y
        return None
    if status == "infeasible" and ray is not None:
        y = np.abs(ray)
        if m_lt:
            y[:m_lt] = 0.0
        y = _exact_multipliers(G_lt, h_lt, G_le, h_le, y, strict_needed=False)
        if y is not None:
            return False, y
    if not m_lt and m_le and hint is not None:
        # the exact simplex decides non-strict rows by max t s.t. G z + t <= h (t >= 0:
        # feasible; lp.exact._exact_inequalities, closed): HiGHS's basis of that LP to start from
        w = np.linalg.norm(A_le, axis=1)
        w[w == 0] = 1.0
        _highs_solve(np.c_[A_le, w], f_le, m_le, None, np.r_[np.zeros(k), 1.0], k,
                     basis_out=hint)
    return None


def guess_basis_le(G, h, c):
    """HiGHS's optimal basis of ``max c·w`` s.t. ``G w <= h`` (w free), as a guess for the
    exact simplex (:func:`~semialgebraic.lp.simplex.simplex_free_le` with ``warm=``):
    ``(basic columns with the sign of their value, basic rows)``, or None (no optimum, or a
    non-finite float)."""
    import numpy as np
    Gf = _guess_floats(G) if G.nrows else np.zeros((0, G.ncols))
    hf = np.array([_guess_float(v) for v in h], dtype=float)
    cf = np.array([_guess_float(v) for v in c], dtype=float)
    if not (np.all(np.isfinite(Gf)) and np.all(np.isfinite(hf)) and np.all(np.isfinite(cf))):
        return None
    out: list = []
    status, x, _, _ = _highs_solve(Gf, hf, 0, None, cf, None, basis_out=out)
    if status != "optimal" or not out:
        return None
    nonbasic_rows, _, _, nonbasic_cols = out[0]
    cols = [(j, 1 if x[j] >= 0 else -1) for j in range(G.ncols) if j not in set(nonbasic_cols)]
    rows = [i for i in range(G.nrows) if i not in set(nonbasic_rows)]
    return cols, rows


def _round_vector(v, D):
    return tuple(Q(f.numerator, f.denominator) for f in
                 (Fraction(float(t)).limit_denominator(D) for t in v))


def _holds(G_lt, h_lt, G_le, h_le, z) -> bool:
    if G_lt.nrows and any(not a < b for a, b in zip(G_lt.apply(z), h_lt)):
        return False
    if G_le.nrows and any(a > b for a, b in zip(G_le.apply(z), h_le)):
        return False
    return True


def _point_without_tiny_columns(G_lt, h_lt, G_le, h_le, A_le, f_le, G, h, cost):
    """A second guess of a strictly feasible point, or None: HiGHS again with the variables
    whose column is tiny against the largest entry (below 1e-6 of it) held at 0.  A trained net
    on R^64 (an input pixel always 0: its weights ~1e-15) gave facet LPs whose optimal float
    point used those coordinates at ~1e9 and violated rows by ~0.1 (or HiGHS's status was
    "unknown"): the cold exact simplex decided 8 of 13 facets a region, ~2.5 s.  Only a
    guess: the point is checked exactly."""
    import numpy as np
    k = G.shape[1] - 1                              # the last column is t
    size = np.abs(G[:, :k]).max(axis=0) if G.shape[0] else np.zeros(k)
    keep = np.flatnonzero(size >= 1e-6 * max(size.max(initial=0.0), 1e-300))
    if len(keep) in (0, k):
        return None
    cols = np.r_[keep, k]
    status, x, _, _ = _highs_solve(np.ascontiguousarray(G[:, cols]), h, G_lt.nrows, None,
                                   cost[cols], len(keep))
    if status != "optimal" or x[-1] <= 1e-9:
        return None
    zf = np.zeros(k)
    zf[keep] = x[:-1]
    return _exact_point(G_lt, h_lt, G_le, h_le, A_le, f_le, zf, x[-1])


def _exact_point(G_lt, h_lt, G_le, h_le, A_le, f_le, zf, t):
    import numpy as np
    k = len(zf)
    active = []
    if len(f_le):
        slack = f_le - A_le @ zf
        tol = 1e-9 * (1.0 + np.abs(f_le) + np.abs(A_le) @ np.abs(zf))
        active = [i for i in range(len(f_le)) if slack[i] <= tol[i]]
    if not active:
        D0 = int(min(2 ** 60, max(1, 4 * np.sqrt(k) / max(t, 1e-300))))
        for D in (max(1, D0 // 64), D0, D0 * 1024):
            z = _round_vector(zf, D)
            if _holds(G_lt, h_lt, G_le, h_le, z):
                return z
        return None
    # active non-strict rows: solve them exactly, round the free part
    Gact = G_le.submatrix(rows=active)
    sol = Gact.solve_general([h_le[i] for i in active])
    if sol is None:
        return None
    z0, M = sol
    z0f = np.array([float(v) for v in z0])
    if M.nrows == 0:
        return z0 if _holds(G_lt, h_lt, G_le, h_le, z0) else None
    Mf = _floats(M)
    u, *_ = np.linalg.lstsq(Mf.T, zf - z0f, rcond=None)
    for D in (2 ** 10, 2 ** 30, 2 ** 50):
        uq = _round_vector(u, D)
        z = add_vectors(z0, M.T.apply(uq))
        if _holds(G_lt, h_lt, G_le, h_le, z):
            return z
    return None


def _exact_multipliers(G_lt, h_lt, G_le, h_le, yf, strict_needed):
    """Exact y >= 0 on the support of the float multipliers yf with yᵀ G = 0 and the β test."""
    import numpy as np
    m_lt = G_lt.nrows
    if yf is None or not np.all(np.isfinite(yf)) or yf.max(initial=0.0) <= 0:
        return None
    top = yf.max()
    support = [i for i in range(len(yf)) if yf[i] > 1e-9 * top]
    if not support:
        return None
    G = QMatrix.vstack([G_lt, G_le])
    h = list(h_lt) + list(h_le)
    GS = G.submatrix(rows=support)
    K = GS.left_nullspace()  # rows y with y GS = 0
    if K.nrows == 0:
        return None
    ys = yf[support]
    if K.nrows == 1:
        cands = [K.row_at(0)]
    else:
        Kf = _floats(K)
        u, *_ = np.linalg.lstsq(Kf.T, ys / top, rcond=None)
        cands = []
        for D in (2 ** 10, 2 ** 30):
            uq = _round_vector(u, D)
            cands.append(K.T.apply(uq))
    for y in cands:
        for sgn in (1, -1):
            yy = tuple(v if sgn == 1 else -v for v in y)
            if any(v < 0 for v in yy):
                continue
            full = [_ZERO] * len(h)
            for i, v in zip(support, yy):
                full[i] = v
            beta = dot(h, full)
            strict = any(v > 0 for v in full[:m_lt])
            if beta < 0 or (beta <= 0 and strict):
                return tuple(full[:m_lt]), tuple(full[m_lt:])
    return None


class FloatLP:
    """A float (HiGHS) model ``A x <= b``, x free, re-solved for many objectives (warm start).

    Only a *guess*: callers turn its answers into exact certificates and check them over Q.
    ``minimize(c)`` returns ``(value, x, duals)`` (numpy arrays; duals >= 0 with
    ``Aᵀ duals ≈ -c`` at a minimum) or None when HiGHS does not report an optimum.

    With ``centre=True`` the model carries one more column ``s`` (fixed at 0 for
    :meth:`minimize`) with coefficient ``‖A_i‖`` in row i, so that the same warm model also
    gives Chebyshev-like centres: :meth:`centre` (``max s`` subject to ``A x + ‖A_i‖ s <= b``,
    ``s <= 1``) and :meth:`centre_on` (the same inside the hyperplane ``A_i x = b_i``).
    *highs*: an instance of :func:`new_highs` to load the model into (reused across models, as
    the region walk does, to save building one per model).

    >>> F = FloatLP([[1, 0], [0, 1], [-1, -1]], [1, 1, 0])
    >>> round(F.minimize([-1, 0])[0], 9)
    -1.0
    >>> G = FloatLP([[1], [-1]], [2, 0], centre=True)
    >>> s, x = G.centre(); round(s, 9), round(float(x[0]), 9)
    (1.0, 1.0)
    """

    def __init__(self, A, b, centre: bool = False, highs=None):
        import numpy as np
        from highspy import _core as hc
        if isinstance(A, QMatrix):
            A = _floats(A)
        A = np.asarray(A, dtype=float)
        m, n = A.shape
        self.n, self.m = n, m
        self.A = A                     # the float model, for callers' float screens
        self._centre = centre
        ncol = n + 1 if centre else n
        if centre:
            w = np.linalg.norm(A, axis=1)
            w[w == 0] = 1.0
            self._w = w
            A = np.c_[A, w]
        h = highs if highs is not None else new_highs()   # a reused instance: a new model
        lp = hc.HighsLp()
        lp.num_col_, lp.num_row_ = ncol, m
        inf = hc.kHighsInf
        self._inf = inf
        lp.col_cost_ = np.zeros(ncol)
        lp.col_lower_ = np.full(ncol, -inf)
        lp.col_upper_ = np.full(ncol, inf)
        if centre:
            lp.col_lower_[n] = 0.0
            lp.col_upper_[n] = 0.0
        self._b = self.b = np.asarray([float(v) for v in b], dtype=float)
        lp.row_lower_ = np.full(m, -inf)
        lp.row_upper_ = self._b.copy()
        lp.a_matrix_.format_ = hc.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.arange(0, m * ncol + 1, ncol, dtype=np.int32)
        lp.a_matrix_.index_ = np.tile(np.arange(ncol, dtype=np.int32), m)
        lp.a_matrix_.value_ = A.ravel()
        h.passModel(lp)
        self._h = h
        self._optimal = hc.HighsModelStatus.kOptimal
        self._idx = np.arange(n, dtype=np.int32)
        self._np = np

    def minimize(self, c):
        np = self._np
        h = self._h
        cf = c if isinstance(c, np.ndarray) else np.asarray([float(v) for v in c], dtype=float)
        h.changeColsCost(self.n, self._idx, cf)
        run_highs(h)
        if h.getModelStatus() != self._optimal:
            return None
        sol = h.getSolution()
        x = np.array(sol.col_value)[:self.n]
        return float(np.dot(cf, x)), x, -np.array(sol.row_dual)

    def centre(self, row: int | None = None):
        """``(s, x)``: max s with ``A x + ‖A_i‖ s <= b`` and s <= 1 (with *row*: inside the
        hyperplane ``A_row x = b_row``, the other rows as before), or None when HiGHS reports
        no optimum.  Needs ``centre=True``; the model is restored afterwards."""
        np, h, n = self._np, self._h, self.n
        h.changeColsCost(self.n, self._idx, np.zeros(n))
        h.changeColCost(n, -1.0)
        h.changeColBounds(n, -self._inf, 1.0)
        if row is not None:
            h.changeCoeff(row, n, 0.0)
            h.changeRowBounds(row, self._b[row], self._b[row])
        try:
            run_highs(h)
            ok = h.getModelStatus() == self._optimal
            out = None
            if ok:
                x = np.array(h.getSolution().col_value)
                out = float(x[n]), x[:n]
        finally:
            if row is not None:
                h.changeCoeff(row, n, float(self._w[row]))
                h.changeRowBounds(row, -self._inf, self._b[row])
            h.changeColCost(n, 0.0)
            h.changeColBounds(n, 0.0, 0.0)
        return out

    def centre_on(self, row: int):
        """:meth:`centre` inside the hyperplane of *row*."""
        return self.centre(row)
