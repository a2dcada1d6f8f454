"""The "not absorbable" obstruction witnesses of ``absorption`` certificates (schema:
:mod:`semialgebraic.verify.absorption`): ``degree`` (R5), ``jacobian`` (R6), ``bounded`` (R18),
``left_null`` and ``linear_system`` (no 0/1 solution of Σ_{i∈S} a_i w_iᵀ = -M) and
``exhausted_search`` (R15), with the block helpers the yes-witnesses share.
"""

from __future__ import annotations

import itertools
import math

from algebra.blocks import Block
from algebra.exceptions import InputError
from algebra.io.native import parse_number
from algebra.linalg.evaluation import row_gcds
from algebra.linalg import QMatrix, nmod_rank
from algebra.linalg.gfp import residues_array
from algebra.rationals import Q

__all__: list[str] = []

_MAX_FREE = 22


# -- helpers ------------------------------------------------------------------------------------
def _skip(b: Block) -> QMatrix:
    if b.skip == "identity":
        return QMatrix.identity(b.d)
    if b.skip == "none":
        return QMatrix.zeros(b.d, b.d)
    return b.skip


def _nonzero_bias(b: Block) -> bool:
    return any(v is not None and any(x != 0 for x in v) for v in (b.b_up, b.b_down, b.b_gate))


def _entry(w, m: QMatrix) -> tuple[bool, str]:
    entry = w.get("entry", [None, None])
    if not isinstance(entry, list) or len(entry) != 2:
        raise InputError("witness 'entry' must be [i, j] inside the skip matrix")
    i, j = entry
    if not isinstance(i, int) or not isinstance(j, int) or not (0 <= i < m.nrows and 0 <= j < m.ncols):
        raise InputError("witness 'entry' must be [i, j] inside the skip matrix")
    val = parse_number(w.get("value"), "witness.value")
    if m[i, j] != val:
        return False, f"skip entry ({i}, {j}) is {m[i, j]}, not the claimed {val}"
    if val == 0:
        return False, "the claimed skip entry is zero"
    return True, ""


def _canon(b: Block, affine: bool | None = None):
    """Own canonical form: (2M + W_down W_up, constant or None, {class: coefficient})."""
    name = b.activation.name
    biased = _nonzero_bias(b) if affine is None else affine
    if name in ("silu", "gelu_tanh") and not biased:   # σ(z) − σ(−z) = z: GELU's algebra (the
        name = "gelu"                                   # form of a sufficiency witness only)
    if name not in ("relu", "gelu") or (biased and name == "gelu"):
        raise InputError(f"no canonical form for {name}{' with biases' if biased else ''}")
    d, k = b.d, b.k
    lin = _skip(b).scale(2) + b.w_down @ b.w_up
    bu = list(b.b_up) if b.b_up is not None else [Q(0)] * k
    const = [2 * x for x in (b.b_down or [Q(0)] * d)] if biased else None
    classes: dict = {}
    W, A = b.w_up.to_rows(), b.w_down.T.to_rows()
    for i in range(k):
        nz = [x for x in W[i] if x != 0]
        if not any(x != 0 for x in A[i]):
            continue
        if not nz:
            if biased and bu[i] > 0:
                const = [c + 2 * a * bu[i] for c, a in zip(const, A[i])]
            continue
        if biased:
            const = [c + a * bu[i] for c, a in zip(const, A[i])]
        l0 = nz[0]
        if name == "relu":
            key, scale = tuple(x / l0 for x in W[i]) + (bu[i] / l0,), abs(l0)
        else:
            key, scale = tuple(x if l0 > 0 else -x for x in W[i]) + (Q(0),), Q(1)
        old = classes.get(key, [Q(0)] * d)
        classes[key] = [o + scale * a for o, a in zip(old, A[i])]
    classes = {key: tuple(v) for key, v in classes.items() if any(x != 0 for x in v)}
    return lin, None if const is None else tuple(const), classes


# -- no -----------------------------------------------------------------------------------------
def _check_degree(b: Block, w) -> tuple[bool, str]:
    p = b.activation.homogeneity
    if _nonzero_bias(b):
        return False, "the degree obstruction needs a block without biases"
    if p is None or p == 1 or w.get("p") != p:
        return False, f"{b.activation.name} is not homogeneous of the claimed degree {w.get('p')} != 1"
    j = w.get("j")
    if not isinstance(j, int) or not 0 <= j < b.d:
        raise InputError("witness 'j' must be an input index")
    e = [Q(1) if i == j else Q(0) for i in range(b.d)]
    fe, f2e = b(e), b([2 * x for x in e])
    if not isinstance(w.get("f_e", []), list) or not isinstance(w.get("f_2e", []), list):
        raise InputError("witness 'f_e' and 'f_2e' must be lists of numbers")
    ce = [parse_number(x, "witness.f_e") for x in w.get("f_e", [])]
    c2 = [parse_number(x, "witness.f_2e") for x in w.get("f_2e", [])]
    if list(fe) != ce or list(f2e) != c2:
        return False, "claimed values f(e_j), f(2e_j) are not the exact values"
    if all(y == 2 ** p * x for x, y in zip(fe, f2e)):
        return False, "f(2e_j) = 2^p f(e_j): no obstruction at e_j"
    return True, f"f(2e_{j}) - 2^{p} f(e_{j}) != 0 while degree-{p} blocks give 0 (R5)"


def _check_jacobian(b: Block, w) -> tuple[bool, str]:
    a = b.activation
    if _nonzero_bias(b):
        return False, "the linearization obstruction needs a block without biases"
    if not (a.is_gate_flat or (a.homogeneity is not None and a.homogeneity > 1)):
        return False, f"{a.name}: the residual-free Jacobian at 0 need not vanish"
    ok, why = _entry(w, _skip(b))
    return (ok, why) if not ok else (True, "J_f(0) = M != 0 while every competitor has J(0) = 0 (R6)")


def _check_bounded(b: Block, w) -> tuple[bool, str]:
    if not b.activation.is_bounded:
        return False, f"{b.activation.name} is not bounded"
    ok, why = _entry(w, _skip(b))
    return (ok, why) if not ok else (True, "bounded activation and M != 0 (R18)")


def _nondegenerate(b: Block) -> tuple[bool, str]:
    name = b.activation.name
    biased = _nonzero_bias(b)
    if name not in ("relu", "gelu") or b.activation.is_gated or (name == "gelu" and biased):
        return False, f"the criterion is an iff only for ReLU and bias-free GELU blocks, not {name}"
    aug = biased and b.b_up is not None
    if not aug:
        found = _nondegenerate_views(b.integer_matrix("w_up"), b.integer_matrix("w_down"))
        if found is not None:
            return found
    m = QMatrix.from_rows([list(r) + [x] for r, x in zip(b.w_up.to_rows(), b.b_up)]) if aug else b.w_up
    num, _ = m.numer_denom()
    flat = [int(x) for x in num.entries()]
    c, d = m.ncols, b.d
    seen = set()
    for i in range(b.k):
        r = flat[i * c:(i + 1) * c]
        first = next((x for x in r[:d] if x), 0)
        if not first:
            return False, f"(N1) fails: row {i} of W_up is zero"
        g = math.gcd(*r) * (1 if first > 0 else -1)
        key = tuple(x // g for x in r)
        if key in seen:
            return False, f"(N2) fails: row {i} of W_up is collinear with an earlier row"
        seen.add(key)
    num, _ = b.w_down.numer_denom()
    flat = [int(x) for x in num.entries()]
    k = b.k
    for i in range(k):
        if not any(flat[i::k]):
            return False, f"(N3) fails: column {i} of W_down is zero"
    return True, ""


def _nondegenerate_views(up, down):
    """(N1)-(N3) on the int64 numerator arrays of W_up and W_down (integer views of the block),
    the same verdicts and messages as the loop of :func:`_nondegenerate`; None when a view is
    missing or holds -2^63 (whose absolute value int64 cannot hold)."""
    if up is None or down is None:
        return None
    import numpy as np
    U, V = up.N, down.N
    if (U == np.iinfo(np.int64).min).any():
        return None
    k = U.shape[0]
    nonzero = U != 0
    empty = np.flatnonzero(~nonzero.any(axis=1))
    k = int(empty[0]) if empty.size else k          # the loop stops at the first zero row
    U, nonzero = U[:k], nonzero[:k]
    if k:
        lead_sign = np.sign(U[np.arange(k), nonzero.argmax(axis=1)])
        prim = U // (row_gcds(np.abs(U)) * lead_sign)[:, None]   # exact division
        _, where, back = np.unique(prim, axis=0, return_index=True, return_inverse=True)
        again = np.flatnonzero(where[np.ravel(back)] < np.arange(k))
        if again.size:
            return False, f"(N2) fails: row {int(again[0])} of W_up is collinear with an earlier row"
    if empty.size:
        return False, f"(N1) fails: row {k} of W_up is zero"
    dead = np.flatnonzero(~(V != 0).any(axis=0))
    if dead.size:
        return False, f"(N3) fails: column {int(dead[0])} of W_down is zero"
    return True, ""


def _view(b: Block, name: str):
    """The integer view of a block matrix, else the matrix itself."""
    view = b.integer_matrix(name)
    return view if view is not None else getattr(b, name)


def _rational(m) -> QMatrix:
    return m if isinstance(m, QMatrix) else m.to_qmatrix()


def _modulus(w):
    p = w.get("modulus")
    if p is None:
        return None
    if not isinstance(p, int) or isinstance(p, bool) or p < 2 or p >= 2 ** 31:
        raise InputError("modulus must be an integer 2 <= p < 2^31")
    if not _is_prime(p):
        raise InputError(f"modulus {p} is not a prime")
    return p


def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.4e14 (bases 2, 3, 5, 7, 11, 13, 17)."""
    if n < 2:
        return False
    for q in (2, 3, 5, 7, 11, 13, 17):
        if n % q == 0:
            return n == q
    dd, s = n - 1, 0
    while dd % 2 == 0:
        dd, s = dd // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17):
        x = pow(a, dd, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _check_left_null(b: Block, w) -> tuple[bool, str]:
    ok, why = _nondegenerate(b)
    if not ok:
        return False, why
    return _system_left_null(_view(b, "w_up"), _view(b, "w_down"), -_skip(b), w)


def _system_left_null(w_up: QMatrix, w_down: QMatrix, Z: QMatrix, w) -> tuple[bool, str]:
    """Y with a_iᵀ Y w_i = 0 (all i) and <Y, Z> != 0: Σ_{i∈S} a_i w_iᵀ = Z has no 0/1 solution.
    *w_up*, *w_down*: rational matrices or integer views (reduced mod p without FLINT)."""
    p = _modulus(w)
    k = w_up.shape[0]
    do, di = Z.shape
    entries = w.get("Y")
    if not isinstance(entries, list) or not entries:
        raise InputError("witness 'Y' must be a non-empty list of [i, j, value]")
    if p is None:
        Y = [[Q(0)] * di for _ in range(do)]
        for e in entries:
            i, j, v = _triple(e, do, di)
            Y[i][j] += parse_number(v, "witness.Y")
        Ym = QMatrix.from_rows(Y)
        T = (_rational(w_down).T @ Ym).to_rows()
        U = _rational(w_up).to_rows()
        for i in range(k):
            if sum((x * y for x, y in zip(T[i], U[i])), Q(0)) != 0:
                return False, f"a_{i}^T Y w_{i} != 0"
        inner = sum((Ym[i, j] * Z[i, j] for i in range(do) for j in range(di)), Q(0))
        if inner == 0:
            return False, "<Y, -M> = 0"
        return True, f"a_i^T Y w_i = 0 for all i and <Y, -M> = {inner} != 0: A xi = vec(-M) is inconsistent"
    try:
        Va = residues_array(w_down, p)           # int64 arrays: no Python int per entry
        Ua = residues_array(w_up, p)
        Zr = residues_array(Z, p)
    except ZeroDivisionError:
        return False, f"a weight's denominator is divisible by {p}"
    Y = {}
    for e in entries:
        i, j, v = _triple(e, do, di)
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError("modular Y entries must be integers")
        Y[(i, j)] = (Y.get((i, j), 0) + v) % p
    import numpy as np  # optional dependency, used for the O(k |Y|) check
    acc = np.zeros(k, dtype=np.int64)
    for (i, j), v in Y.items():
        if v:
            acc = (acc + v * (Va[i, :] * Ua[:, j] % p)) % p
    acc = acc.tolist()
    bad = next((u for u in range(k) if acc[u]), None)
    if bad is not None:
        return False, f"a_{bad}^T Y w_{bad} != 0 mod {p}"
    inner = sum(v * int(Zr[i, j]) for (i, j), v in Y.items()) % p
    if inner == 0:
        return False, f"<Y, -M> = 0 mod {p}"
    return True, (f"a_i^T Y w_i = 0 mod {p} for all i and <Y, -M> != 0 mod {p}: no p-integral, "
                  "hence no 0/1, solution")


def _triple(e, do, di):
    if not isinstance(e, list) or len(e) != 3 or not all(isinstance(t, int) for t in e[:2]):
        raise InputError("Y entries are [i, j, value]")
    i, j, v = e
    if not (0 <= i < do and 0 <= j < di):
        raise InputError("Y entry index out of range")
    return i, j, v


def _check_linear_system(b: Block, w) -> tuple[bool, str]:
    ok, why = _nondegenerate(b)
    if not ok:
        return False, why
    return _system_linear(b.w_up, b.w_down, -_skip(b), w)


def _system_linear(w_up: QMatrix, w_down: QMatrix, Z: QMatrix, w) -> tuple[bool, str]:
    """The solution space of Σ_i ξ_i a_i w_iᵀ = Z (over Q or mod p) has no 0/1 point."""
    p = _modulus(w)
    k = w_up.nrows
    do, di = Z.shape
    free, basis, rank = w.get("free"), w.get("basis"), w.get("rank")
    if not isinstance(free, list) or not isinstance(basis, list) or not isinstance(rank, int):
        raise InputError("linear_system witness needs 'free', 'basis', 'rank'")
    if len(free) > _MAX_FREE:
        return False, f"{len(free)} free variables: too many to re-enumerate"
    if any(not isinstance(f, int) or not 0 <= f < k for f in free) or len(set(free)) != len(free):
        raise InputError("'free' must list distinct unit indices")
    if len(basis) != len(free) or rank + len(free) != k:
        return False, "rank + number of free variables != k"
    pairs = w.get("rows")
    if pairs is None:
        pairs = [[i, j] for i in range(do) for j in range(di)]
    if not isinstance(pairs, list) or not all(isinstance(r, list) and len(r) == 2
                                              and all(isinstance(t, int) for t in r)
                                              and 0 <= r[0] < do and 0 <= r[1] < di for r in pairs):
        raise InputError("'rows' must list [i, j] entries of the target")
    V, U = w_down.to_rows(), w_up.to_rows()
    A = [[V[i][u] * U[u][j] for u in range(k)] for i, j in pairs]
    rhs = [Z[i, j] for i, j in pairs]
    if p is None:
        x0 = [parse_number(x, "witness.x0") for x in w.get("x0", [])]
        vecs = [[parse_number(x, "witness.basis") for x in v] for v in basis]
        reduce = lambda x: x  # noqa: E731
        if QMatrix.from_rows(A, ncols=k).rank() != rank:
            return False, f"rank A != {rank}"
    else:
        try:
            A = [[_mod(x, p) for x in row] for row in A]
            rhs = [_mod(x, p) for x in rhs]
        except ZeroDivisionError:
            return False, f"a weight's denominator is divisible by {p}"
        x0 = [int(x) % p for x in w.get("x0", [])]
        vecs = [[int(x) % p for x in v] for v in basis]
        reduce = lambda x: x % p  # noqa: E731
        if nmod_rank(len(A), k, [x for row in A for x in row], p) != rank:
            return False, f"rank of the selected rows mod {p} != {rank}"
    if len(x0) != k or any(len(v) != k for v in vecs):
        raise InputError("x0 and basis vectors must have k entries")
    for fi, v in enumerate(vecs):
        if any(reduce(v[f] - (1 if f == free[fi] else 0)) != 0 for f in free):
            return False, "basis is not the identity on the free coordinates"
    # every solution is then x0 + Σ_f ξ_f basis_f only when x0 is 0 on the free coordinates: a
    # shifted x0 would enumerate ξ_f = x0_f + z_f and miss the 0/1 points (session-33 absorb
    # audit: a forged "not absorbable" of an absorbable block was VALID)
    if any(reduce(x0[f]) != 0 for f in free):
        return False, "x0 is not 0 on the free coordinates"
    zero = Q(0) if p is None else 0
    for row, r in zip(A, rhs):
        if reduce(sum((a * x for a, x in zip(row, x0)), zero) - r) != 0:
            return False, "A x0 != vec(-M)"
        for v in vecs:
            if reduce(sum((a * x for a, x in zip(row, v)), zero)) != 0:
                return False, "a basis vector is not in the kernel of A"
    rejected = {tuple(sorted(s)) for s in w.get("rejected", [])}
    for xi in _zero_one_points(x0, vecs, free, k, reduce, zero, p):
        if all(x == 0 or x == 1 for x in xi):
            S = tuple(u for u in range(k) if xi[u] == 1)
            if p is None:
                return False, f"S = {list(S)} solves the system: the block is absorbable"
            if S not in rejected:
                return False, f"candidate S = {list(S)} (mod {p}) is not accounted for"
            prod = (w_down.submatrix(cols=S) @ w_up.submatrix(rows=S)) if S else QMatrix.zeros(do, di)
            if prod == Z:
                return False, f"S = {list(S)} is valid: the block is absorbable"
    where = "over Q" if p is None else f"mod {p}"
    return True, f"the solutions {where} form x0 + span(basis); none of the 2^{len(free)} 0/1 assignments works"


def _zero_one_points(x0, vecs, free, k, reduce, zero, p):
    """The points x0 + Σ_f z_f basis_f (z in {0, 1}^free) that may be 0/1, each as a list of k
    entries: all of them in Python, or, when the entries fit (mod p, or over Q scaled to int64
    integers by the common denominator), only those whose pivot entries are 0/1, found by numpy
    in chunks of 2^16 assignments (the absorb audit: 2^16 assignments took 9.8 s one by one)."""
    r = len(free)
    piv = [u for u in range(k) if u not in set(free)]
    try:
        import numpy as np
    except ImportError:                                 # pragma: no cover - numpy is optional
        np = None
    scaled = None
    if np is not None and r and piv:
        if p is not None:
            scaled = ([int(x0[u]) for u in piv], [[int(v[u]) for u in piv] for v in vecs], [0, 1], p)
        else:
            den = math.lcm(*(int(Q(x).q) for x in [x0[u] for u in piv] + [v[u] for v in vecs for u in piv]))
            X0 = [int(Q(x0[u]) * den) for u in piv]
            B = [[int(Q(v[u]) * den) for u in piv] for v in vecs]
            if max(map(abs, X0 + [x for row in B for x in row] + [den])) * (r + 2) < 2 ** 62:
                scaled = (X0, B, [0, den], None)
    if scaled is None:
        for z in itertools.product((0, 1), repeat=r):
            yield [reduce(x0[u] + sum((zz * v[u] for zz, v in zip(z, vecs)), zero)) for u in range(k)]
        return
    X0, B, (lo, hi), mod = scaled
    X0, B = np.array(X0, dtype=np.int64), np.array(B, dtype=np.int64).reshape(r, len(piv))
    bits = np.arange(r, dtype=np.int64)
    for start in range(0, 1 << r, 1 << 16):
        idx = np.arange(start, min(1 << r, start + (1 << 16)), dtype=np.int64)
        Z = (idx[:, None] >> bits) & 1
        vals = X0 + Z @ B
        if mod is not None:
            vals %= mod
        for t in np.flatnonzero(((vals == lo) | (vals == hi)).all(axis=1)).tolist():
            z = Z[t].tolist()
            yield [reduce(x0[u] + sum((zz * v[u] for zz, v in zip(z, vecs)), zero)) for u in range(k)]


def _mod(x, p):
    return int(x.p) % p * pow(int(x.q) % p, -1, p) % p


def _check_exhausted(b: Block, w) -> tuple[bool, str]:
    name = b.activation.name
    if name not in ("relu", "gelu") or b.activation.is_gated or (name == "gelu" and _nonzero_bias(b)):
        return False, f"the exhaustive search decides ReLU and bias-free GELU blocks, not {name}"
    lin, const, classes = _canon(b)
    rec = w.get("canonical_form")
    if not isinstance(rec, dict):
        raise InputError("exhausted_search needs the recorded 'canonical_form'")
    try:
        rlin = QMatrix.from_rows([[parse_number(x, "canonical_form.linear") for x in r] for r in rec["linear"]])
        rcls = {tuple(parse_number(x, "u") for x in c["u"]) + (parse_number(c["beta"], "beta"),):
                tuple(parse_number(x, "v") for x in c["v"]) for c in rec["classes"]}
    except (KeyError, TypeError, ValueError):       # ValueError: ragged rows
        raise InputError("malformed canonical_form") from None
    if rlin != lin or rcls != classes:
        return False, "the recorded canonical form is not the block's"
    keys = sorted(classes, key=str)
    c, k, d = len(keys), b.k, b.d
    per_t = {}
    for rec in w.get("per_T", []):
        try:
            key = frozenset(tuple(parse_number(x, "per_T.T") for x in u) for u in rec["T"])
            order = [tuple(parse_number(x, "per_T.order") for x in u) for u in rec["order"]]
        except (KeyError, TypeError):
            raise InputError("per_T entries need 'T', 'order' and 'witness'") from None
        per_t[key] = (order, rec.get("witness"))
    tests = 0
    for t in range(0, min(c, k - c) + 1):
        fp = (k - c - t) // 2
        for T in itertools.combinations(keys, t):
            NT = QMatrix.from_rows([list(q[:d]) for q in T]).nullspace().T if T else QMatrix.identity(d)
            rest = [q for q in keys if q not in T]
            if NT.ncols == 0 or fp >= min(d, NT.ncols):
                return False, f"pairing {len(T)} classes leaves room: the block is absorbable"
            base = lin @ NT
            if fp == 0 and rest and frozenset(T) in per_t:
                order, sub = per_t[frozenset(T)]
                if sorted(order, key=str) != sorted(rest, key=str) or len(order) != len(rest):
                    return False, "a recorded sign search lists the wrong classes"
                ups = QMatrix.from_rows([list(q[:d]) for q in order]) @ NT
                downs = QMatrix.from_rows([list(classes[q]) for q in order]).T
                target = ((downs @ ups) - base).scale(Q(1, 2))
                if not isinstance(sub, dict) or sub.get("kind") not in ("left_null", "linear_system"):
                    raise InputError("per_T witness must be a left_null or linear_system witness")
                ok, why = (_system_left_null if sub["kind"] == "left_null" else _system_linear)(ups, downs, target, sub)
                if not ok:
                    return False, f"sign search with {len(T)} paired classes: {why}"
                continue
            if len(rest) > 16:
                return False, f"{len(rest)} signs without a recorded linear witness: too many to re-check"
            P = [QMatrix.column(classes[q]) @ (QMatrix.row(list(q[:d])) @ NT) for q in rest]
            for tau in itertools.product((1, -1), repeat=len(rest)):
                R = base
                for s_, Pq in zip(tau, P):
                    R = R - Pq.scale(s_)
                tests += 1
                if R.rank() <= fp:
                    return False, f"an assignment with {len(T)} paired classes fits width {k}: absorbable"
    return True, f"no sign/pair assignment of the {c} classes fits width {k} (R15; {tests} rank tests)"
