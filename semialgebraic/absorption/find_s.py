"""FIND-S (skip-absorption R16): every index set S with W_down[:,S] W_up[S,:] = target.

A ξ = vec(target), A's column i = vec(a_i w_iᵀ), is solved for its 0/1 solutions exactly over
Q for small systems (d²·k ≤ :data:`EXACT_LIMIT`); for large ones modulo a prime on k + 8
selected rows of A (a superset of the 0/1 solutions), every candidate S checked exactly over Q;
a "no" is certified by a vector Y (mod p) with a_iᵀ Y w_i ≡ 0 for all i and ⟨Y, target⟩ ≢ 0:
any 0/1 solution would reduce mod p to a contradiction, so the certificate is an exact proof
(checked by :mod:`semialgebraic.verify.absorption`).  Used by the dispatcher
(:mod:`semialgebraic.absorption.decide`) and by ABSORB-GENERAL's linear sign searches
(:mod:`semialgebraic.absorption.canon`).  The modular route runs on numpy arrays: the residues
of the weights (:func:`algebra.linalg.gfp.residues_array`), then the blocked float64 elimination
of :func:`algebra.linalg.gfp.kernel_free_mod_p` (BLAS products, every one an exact integer
operation for primes below 2^20: the six largest, from :data:`algebra.linalg.PRIME` down), for
the left-kernel vector Y and for the solution space alike; no FLINT matrix is built from Python
integers, so d = 1024, k = 4096 takes minutes, not hours.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field

from algebra.linalg.evaluation import row_gcds
from algebra.linalg import PRIME, QMatrix, is_prime, matmul_mod_p
from algebra.linalg.gfp import kernel_free_mod_p, residues_array
from algebra.rationals import Q

from ..budget import Budget, BudgetExhausted

__all__ = ["find_s", "FindS", "EXACT_LIMIT", "int_rows", "primitive_row", "degenerate_units"]

NO_PRIME = "no prime with invertible denominators"

FALLBACK_LIMIT = 50_000
"""d²·k up to which FIND-S falls back to the exact route when no prime of the modular one works."""

EXACT_LIMIT = 1_000
"""FIND-S works over Q when d²·k is at most this, modulo a prime otherwise (rational elimination
of float-derived weights is ~1000x slower than the modular route already at d = 24, k = 96)."""


@dataclass
class FindS:
    """Result of :func:`find_s`: every valid S (0-based), completeness and the NO witness."""

    subsets: list
    complete: bool
    witness: dict | None
    rank: int | None = None
    nullity: int | None = None
    modulus: int | None = None
    reason: str = ""
    candidates: int = 0
    details: dict = field(default_factory=dict)


def find_s(w_up: QMatrix, w_down: QMatrix, target: QMatrix, *, max_nullity: int = 16,
           budget: Budget | None = None, exact: bool | None = None, seed: int = 0) -> FindS:
    """All S ⊆ {0..k−1} with W_down[:,S] W_up[S,:] = target (R16, FIND-S).

    Exact over Q when d²·k ≤ :data:`EXACT_LIMIT` (or *exact* is True); otherwise modulo a prime
    on selected rows, every candidate re-checked over Q.  *w_up* and *w_down* may be integer
    views (:class:`algebra.blocks.IntegerArray`): the modular route reduces them without FLINT
    and builds a rational matrix only to re-check a candidate.  When no S exists and the search is
    complete, ``witness`` is a ``left_null`` (Y) or ``linear_system`` record.

    >>> r = find_s(QMatrix.from_rows([[1, 0], [0, 1], [1, 1], [1, -1], [1, 2]]),
    ...            QMatrix.from_rows([[-1, 0, 1, 0, 1], [0, -1, 0, 1, 1]]), -QMatrix.identity(2))
    >>> r.subsets, r.rank, r.nullity                                            # example H
    ([(0, 1)], 4, 1)
    """
    budget = budget or Budget()
    k, d = w_up.shape
    if exact is None:
        exact = target.nrows * target.ncols * k <= EXACT_LIMIT
    if exact:
        return _find_s_exact(_rational(w_up), _rational(w_down), target, max_nullity, budget)
    try:
        got = _find_s_modular(w_up, w_down, target, max_nullity, budget, seed)
    except BudgetExhausted as exc:              # raised by _budget_check (issue 15: a budget that holds)
        budget.interrupt()                      # (keeps the reason of a spent limit)
        return FindS([], False, None, None, None, None, budget.reason or str(exc))
    if got.rank is None and got.reason == NO_PRIME and target.nrows * target.ncols * k <= FALLBACK_LIMIT \
            and not budget.exhausted():
        # every prime of the modular route divides a denominator (weights built on them): the
        # exact route, where it stays small (a d = 6, k = 30 block said "undecided" where the
        # exact solve decides at once: s47 absorb audit F3)
        return _find_s_exact(_rational(w_up), _rational(w_down), target, max_nullity, budget)
    return got


def _budget_check(budget: Budget):
    """A callable raising :class:`BudgetExhausted` once *budget* is spent: the modular
    elimination (:func:`~algebra.linalg.gfp.echelon_mod_p`) calls it between panels, so a large
    block (d = 768, k = 3072: 9 s of elimination) stops at the timeout."""
    def check() -> None:
        if budget.exhausted():
            raise BudgetExhausted(budget.reason)
    return check


# ----------------------------------------------------------------------------------------------
# private
# ----------------------------------------------------------------------------------------------
def _find_s_exact(w_up, w_down, target, max_nullity, budget) -> FindS:
    k = w_up.nrows
    do, di = target.shape                      # d x d for a block; d x dim in ABSORB-GENERAL
    U, V, Z = w_up.to_rows(), w_down.to_rows(), target.to_rows()
    A = [[V[p][i] * U[i][q] for i in range(k)] for p in range(do) for q in range(di)]
    b = [Z[p][q] for p in range(do) for q in range(di)]
    R, piv = QMatrix.from_rows([row + [bb] for row, bb in zip(A, b)], ncols=k + 1).rref()
    if k in piv:  # inconsistent: Y with Aᵀ y = 0, bᵀ y = 1 (a particular, sparse solution)
        n = do * di
        rows = [[A[r][i] for r in range(n)] + [Q(0)] for i in range(k)] + [b + [Q(1)]]
        R2, piv2 = QMatrix.from_rows(rows, ncols=n + 1).rref()
        y = [Q(0)] * n
        for j, p in enumerate(piv2):
            y[p] = R2[j, n]
        Y = [[r // di, r % di, y[r]] for r in range(n) if y[r] != 0]
        return FindS([], True, {"kind": "left_null", "modulus": None, "Y": Y}, len(piv) - 1, None, None,
                     "the linear system A xi = vec(-M) is inconsistent (left-null vector Y)")
    rank = len(piv)
    free = [j for j in range(k) if j not in set(piv)]
    x0 = [Q(0)] * k
    for j, p in enumerate(piv):
        x0[p] = R[j, k]
    basis = []
    for f in free:
        v = [Q(0)] * k
        v[f] = Q(1)
        for j, p in enumerate(piv):
            v[p] = -R[j, f]
        basis.append(v)
    if len(free) > max_nullity:
        return FindS([], False, None, rank, len(free), None,
                     f"nullity {len(free)} > max_nullity {max_nullity}: 2^{len(free)} assignments not enumerated")
    coef = [[R[j, f] for f in free] for j in range(rank)]
    rhs = [R[j, k] for j in range(rank)]
    subsets, complete, tried = [], True, 0
    for z in itertools.product((0, 1), repeat=len(free)):
        if budget.exhausted():
            complete = False
            break
        tried += 1
        vals = []
        for j in range(rank):
            val = rhs[j] - sum((c for c, zz in zip(coef[j], z) if zz), Q(0))
            if val != 0 and val != 1:
                break
            vals.append(val)
        else:
            xi = [0] * k
            for f, zz in zip(free, z):
                xi[f] = zz
            for p, val in zip(piv, vals):
                xi[p] = int(val)
            subsets.append(tuple(i for i in range(k) if xi[i] == 1))
    subsets.sort(key=lambda s: (len(s), s))
    witness = None
    if not subsets and complete:
        witness = {"kind": "linear_system", "modulus": None, "rows": None, "rank": rank, "free": free,
                   "x0": x0, "basis": basis, "rejected": []}
    why = ("unique solution" if not free else f"{2 ** len(free)} assignments of {len(free)} free variables")
    if not complete:       # (it read as a full search: "…: no 0/1 solution(s)", s47 absorb audit F2)
        return FindS(subsets, False, None, rank, len(free), None,
                     f"{budget.reason}; rank A = {rank}, {why}: {tried} enumerated, "
                     f"{len(subsets)} 0/1 solution(s) among them")
    return FindS(subsets, complete, witness, rank, len(free), None,
                 f"rank A = {rank}, {why}: {'no' if not subsets else len(subsets)} 0/1 solution(s)")


def _float_route_primes() -> tuple:
    """The primes of the modular route: the six largest below 2^20 (:data:`algebra.linalg.PRIME`
    and the primes below it), so that the blocked float64 elimination of
    :func:`algebra.linalg.gfp.kernel_free_mod_p` is exact."""
    if not _PRIMES:
        cand = PRIME
        while len(_PRIMES) < 6:
            if is_prime(cand):
                _PRIMES.append(cand)
            cand -= 1
    return tuple(_PRIMES)


_PRIMES: list = []


def _rational(m) -> QMatrix:
    """*m* as a QMatrix (an integer view made rational)."""
    return m if isinstance(m, QMatrix) else m.to_qmatrix()


def _find_s_modular(w_up, w_down, target, max_nullity, budget, seed) -> FindS:
    import numpy as np  # optional dependency, only for large blocks
    k = w_up.shape[0]
    exact = []                                          # the rational (w_up, w_down), made once
    do, di = target.shape
    n = do * di
    last = NO_PRIME
    check = _budget_check(budget)
    for p in _float_route_primes():
        check()
        try:
            V = residues_array(w_down, p)
            U = residues_array(w_up, p)
            Z = residues_array(target, p)
        except ZeroDivisionError:
            continue
        rng = random.Random(seed)
        extra = 8
        for attempt in range(3):
            m = min(n, k + extra)
            support = [int(r) for r in np.flatnonzero(Z.ravel())][: max(1, m // 2)]
            chosen = set(support)
            rest = [r for r in rng.sample(range(n), min(n, m + len(chosen))) if r not in chosen]
            rows = support + rest[: m - len(support)]
            pi = np.array([r // di for r in rows], dtype=np.int64)
            qi = np.array([r % di for r in rows], dtype=np.int64)
            AEb = np.empty((m, k + 1), dtype=np.int64)   # [A_E | b_E], filled in row chunks
            for i in range(0, m, 256):
                check()
                AEb[i:i + 256, :k] = V[pi[i:i + 256], :] * U[:, qi[i:i + 256]].T % p
            AEb[:, k] = bE = Z[pi, qi]
            AE = AEb[:, :k]                                # m × k (a view)
            # Y-system: A_Eᵀ y = 0 (a left-kernel basis), b_Eᵀ y ≠ 0 for one of its vectors
            KY, _ = kernel_free_mod_p(AE.T, p, check=check)
            if KY.shape[1]:
                hits = np.flatnonzero(matmul_mod_p(bE[None, :], KY, p)[0])
                if hits.size:
                    y = [int(v) for v in KY[:, int(hits[0])]]
                    Y = [[rows[r] // di, rows[r] % di, y[r]] for r in range(m) if y[r]]
                    return FindS([], True, {"kind": "left_null", "modulus": p, "Y": Y}, None, None, p,
                                 f"A xi = vec(-M) has no solution mod {p} on {m} selected rows "
                                 "(left-null vector Y mod p)")
            # consistent mod p: the solutions from the kernel of [A_E | b_E]
            del KY, AE
            K, free_all = kernel_free_mod_p(AEb, p, check=check)
            del AEb
            free = [int(f) for f in free_all if f < k]
            if len(free) <= max_nullity or attempt == 2:
                break
            extra += k
        if free_all.size == 0 or int(free_all[-1]) != k:   # b_E a pivot: not once Y failed
            last = f"inconsistent elimination mod {p}"
            continue
        piv = [c for c in range(k) if c not in set(free)]
        rank = len(piv)
        if len(free) > max_nullity:
            return FindS([], False, None, rank, len(free), p,
                         f"nullity mod {p} is {len(free)} > max_nullity {max_nullity}")
        Kp = (-K[piv, :].astype(np.int64)) % p         # RREF entries at the free columns
        Cf, x0 = Kp[:, :-1], Kp[:, -1]                 # the last free column is the rhs, k
        subsets, rejected, complete = [], [], True
        r = len(free)
        total = 1 << r
        chunk = 1024
        for start in range(0, total, chunk):
            if budget.exhausted():
                complete = False
                break
            ns = np.arange(start, min(total, start + chunk), dtype=np.int64)
            zs = (ns[:, None] >> np.arange(r, dtype=np.int64)[None, :]) & 1
            vals = (x0[None, :] - zs @ Cf.T) % p
            okmask = np.all((vals == 0) | (vals == 1), axis=1)
            for idx in np.flatnonzero(okmask):
                xi = np.zeros(k, dtype=np.int64)
                xi[free] = zs[idx]
                xi[list(piv)] = vals[idx]
                S = tuple(int(i) for i in np.flatnonzero(xi))
                check()                                 # the rational matrices (d = 768,
                if not exact:                           # k = 3072: 1.6 s) and the exact
                    exact.extend((_rational(w_up), _rational(w_down)))
                    check()                             # re-check (0.6 s): budget checks between
                if _flip_product(exact[0], exact[1], S) == target:
                    subsets.append(S)
                else:
                    rejected.append(list(S))
        subsets.sort(key=lambda s: (len(s), s))
        witness = None
        if not subsets and complete:
            basis = []
            for fi, f in enumerate(free):
                v = [0] * k
                v[f] = 1
                for j, pc in enumerate(piv):
                    v[pc] = int(-Cf[j, fi] % p)
                basis.append(v)
            xfull = [0] * k
            for j, pc in enumerate(piv):
                xfull[pc] = int(x0[j])
            witness = {"kind": "linear_system", "modulus": p, "rows": [[rr // di, rr % di] for rr in rows],
                       "rank": rank, "free": free, "x0": xfull, "basis": basis, "rejected": rejected}
        return FindS(subsets, complete, witness, rank, r, p,
                     ("" if complete else f"{budget.reason}; ") +
                     f"rank mod {p} = {rank}, nullity {r}: {len(subsets)} valid S "
                     f"({len(rejected)} modular candidate(s) rejected over Q)")
    return FindS([], False, None, None, None, None, last)


def degenerate_units(w_up: QMatrix, w_down: QMatrix, dcols: int):
    """``(zero_row, pair, zero_col)`` of the nondegeneracy conditions (N1)–(N3): the first row of
    *w_up* vanishing on its first *dcols* columns, the first pair ``(j, i)``, j < i, of such
    non-zero rows that are collinear (i the smallest index repeating an earlier direction, j
    the first row with that direction), the first zero column of *w_down* (each None if none).

    Exact on the integer numerators (one common denominator per matrix): collinear rows have
    equal primitive rows (divided by the gcd, first non-zero of the first *dcols* entries
    positive).  On numpy int64 arrays when the numerators fit (*w_up*, *w_down* may be integer
    views, :class:`algebra.blocks.IntegerArray`), else on Python integers.

    >>> degenerate_units(QMatrix.from_rows([[0, 0], [2, 4], [1, 3], [-1, -2]]),
    ...                  QMatrix.from_rows([[1, 0, 2, 0], [0, 0, 1, 3]]), 2)
    (0, (1, 3), 1)
    """
    import numpy as np
    try:
        N = w_up.N if not isinstance(w_up, QMatrix) else \
            np.array(w_up.numer_denom()[0].tolist(), dtype=np.int64).reshape(w_up.shape)
        V = w_down.N if not isinstance(w_down, QMatrix) else \
            np.array(w_down.numer_denom()[0].tolist(), dtype=np.int64).reshape(w_down.shape)
    except OverflowError:
        return _degenerate_units_python(_rational(w_up), _rational(w_down), dcols)
    if (N == np.iinfo(np.int64).min).any():    # gcd and // overflow at -2^63 (absorb audit)
        return _degenerate_units_python(_rational(w_up), _rational(w_down), dcols)
    live = N[:, :dcols].any(axis=1)
    dead = np.flatnonzero(~live)
    zero_row = int(dead[0]) if dead.size else None
    cols = np.flatnonzero(~V.any(axis=0)) if V.size else np.zeros(0, dtype=np.int64)
    zero_col = int(cols[0]) if cols.size else None
    idx = np.flatnonzero(live)
    pair = None
    if idx.size > 1:
        R = N[idx]
        g = row_gcds(R)
        lead = R[np.arange(R.shape[0]), np.argmax(R[:, :dcols] != 0, axis=1)]
        keys = R // (g * np.sign(lead))[:, None]          # exact: g divides every entry
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        firsts = first[inverse.reshape(-1)]
        repeat = np.flatnonzero(firsts != np.arange(R.shape[0]))
        if repeat.size:
            i = int(repeat[0])
            pair = (int(idx[firsts[i]]), int(idx[i]))
    return zero_row, pair, zero_col


def _degenerate_units_python(w_up: QMatrix, w_down: QMatrix, dcols: int):
    ints = int_rows(w_up)
    zero_row = next((i for i, r in enumerate(ints) if not any(r[:dcols])), None)
    seen: dict = {}
    pair = None
    for i, r in enumerate(ints):
        if not any(r[:dcols]):
            continue
        key = primitive_row(r, dcols)
        if key in seen:
            pair = (seen[key], i)
            break
        seen[key] = i
    zero_col = next((i for i, c in enumerate(int_rows(w_down.T)) if not any(c)), None)
    return zero_row, pair, zero_col


def int_rows(m: QMatrix) -> list:
    """Rows of the integer matrix N with m = N / D (collinearity and zero tests only)."""
    num, _ = m.numer_denom()
    ints = [int(x) for x in num.entries()]
    c = m.ncols
    return [ints[i * c:(i + 1) * c] for i in range(m.nrows)]


def primitive_row(row: list, dcols: int) -> tuple:
    """The row divided by its gcd, signed so that its first non-zero entry (among the first
    *dcols*) is positive: equal for two rows iff they are collinear."""
    g = math.gcd(*row)
    lead_entry = next(x for x in row[:dcols] if x)
    if lead_entry < 0:
        g = -g
    return tuple(x // g for x in row)


def _flip_product(w_up: QMatrix, w_down: QMatrix, S) -> QMatrix:
    if not S:
        return QMatrix.zeros(w_down.nrows, w_up.ncols)
    return w_down.submatrix(cols=list(S)) @ w_up.submatrix(rows=list(S))
