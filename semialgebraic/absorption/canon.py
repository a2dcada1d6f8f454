"""Canonical form (skip-absorption R14) of a ReLU/GELU block and ABSORB-GENERAL (R15).

``2 f(x) = Λ x + κ + Σ_q v_q e_q(x)`` with Λ = 2M + W_down W_up, hyperplane classes (also
affine ones for ReLU with biases, R19).  ABSORB-GENERAL searches sets T of paired classes and
signs τ so that a residual-free block of width k has the same canonical form; sign searches
with no free pair left are linear and decided by FIND-S
(:mod:`semialgebraic.absorption.find_s`), the others are tried in Gray-code order (at most
2^:data:`MAX_BRUTE_SIGNS` signs in a checkable "no").
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from algebra.blocks import Block
from algebra.exceptions import InputError
from algebra.linalg.evaluation import row_gcds
from algebra.linalg import PRIME, QMatrix
from algebra.linalg.gfp import matmul_mod_p, rank_mod_p, residues_array
from algebra.rationals import Q, lead, q_json, sign

from ..budget import Budget
from ..canonical import json_fingerprint
from .find_s import find_s

__all__ = ["AbsorptionCanon", "canonical_form", "absorb_general", "MAX_BRUTE_SIGNS"]

MAX_BRUTE_SIGNS = 16
"""Largest number of signs tried by brute force (2^16) in a "not absorbable" answer of
ABSORB-GENERAL; sign searches with no free pair left are linear and decided by FIND-S instead,
with their witnesses recorded in the certificate."""


@dataclass(frozen=True)
class AbsorptionCanon:
    """Canonical form (R14) of a ReLU/GELU block: ``2 f(x) = Λ x + κ + Σ_q v_q e_q(x)``.

    ``linear`` is Λ = 2M + W_down W_up, ``constant`` κ (ReLU with biases, else None), ``classes``
    a sorted tuple of (u, β, v): ReLU — hyperplane {u·x + β = 0} with lead(u) = 1 and
    e_q = |u·x + β|; GELU — u = ±w with lead(u) > 0, β = 0, e_q = 2 e(u·x).
    """

    activation: str
    linear: QMatrix
    constant: tuple | None
    classes: tuple

    def to_json(self) -> dict:
        return {"activation": self.activation, "linear": self.linear.to_json(),
                "constant": None if self.constant is None else [q_json(x) for x in self.constant],
                "classes": [{"u": [q_json(x) for x in u], "beta": q_json(b), "v": [q_json(x) for x in v]}
                            for u, b, v in self.classes]}

    def fingerprint(self) -> str:
        """First 16 hex digits of the SHA-256 of the canonical JSON (stable across runs)."""
        return json_fingerprint(self.to_json())


def canonical_form(block: Block) -> AbsorptionCanon:
    """Canonical form R14 (ReLU, also with biases: affine hyperplanes; GELU without biases).

    >>> from algebra.blocks import Block
    >>> c = canonical_form(Block("relu", [[1], [2]], [[1, 1]]))          # example D
    >>> c.linear, [(u, v) for u, b, v in c.classes]
    (QMatrix([[5]]), [((1,), (3,))])
    """
    act = block.activation.name
    if act not in ("relu", "gelu") or block.activation.is_gated:
        raise InputError(f"canonical forms exist for relu and gelu blocks, not {act!r}")
    biased = block.has_nonzero_biases
    if biased and act == "gelu":
        raise InputError("no canonical form for GELU blocks with biases (outside the theory)")
    d, k = block.d, block.k
    lin = block.skip_matrix.scale(2) + block.w_down @ block.w_up
    if not biased:
        views = block.integer_matrix("w_up"), block.integer_matrix("w_down")
        classes = _classes_from_views(act, *views) if None not in views else None
        if classes is not None:
            return AbsorptionCanon(act, lin, None, classes)
    return _canonical_form_rational(block, lin)


def _canonical_form_rational(block: Block, lin: QMatrix) -> AbsorptionCanon:
    """R14 unit by unit over Q (blocks with biases, or without integer views; the reference the
    integer-view route is tested against)."""
    act = block.activation.name
    biased = block.has_nonzero_biases
    d, k = block.d, block.k
    up, down = block.w_up.to_rows(), block.w_down.T.to_rows()
    b_up = block.b_up or (Q(0),) * k
    const = [Q(0)] * d
    if biased:
        c = block.b_down or (Q(0),) * d
        const = [2 * x for x in c]
    classes: dict = {}
    for i in range(k):
        w, a, b = up[i], down[i], b_up[i]
        if all(x == 0 for x in a):
            continue
        lam = lead(w)
        if lam is None:
            if biased and b > 0:
                const = [x + 2 * ai * b for x, ai in zip(const, a)]
            continue
        if biased:
            const = [x + ai * b for x, ai in zip(const, a)]
        if act == "relu":
            u, beta, s = tuple(x / lam for x in w), b / lam, abs(lam)
        else:
            sg = sign(lam)
            u, beta, s = tuple(sg * x for x in w), Q(0), Q(1)
        key = (u, beta)
        acc = classes.get(key)
        classes[key] = [s * x for x in a] if acc is None else [y + s * x for y, x in zip(acc, a)]
    items = tuple(sorted(((u, beta, tuple(v)) for (u, beta), v in classes.items()
                          if any(x != 0 for x in v)),
                         key=lambda t: (t[0], t[1])))      # exact rationals, lexicographic
    return AbsorptionCanon(act, lin, tuple(const) if biased else None, items)


def _classes_from_views(act: str, up, down) -> tuple | None:
    """The sorted classes (u, 0, v) of a bias-free block from the int64 views of W_up (N_u / D_u)
    and W_down (N_d / D_d): units grouped on numpy by their primitive rows (ReLU: u = w / lead(w),
    equal for collinear rows of either sign; GELU: u = ±w, equal for w' = ±w), dead units (w = 0
    or a = 0) dropped, v_q = Σ s_i a_i with s_i = |lead(w_i)| (ReLU) or 1 (GELU) summed in Python
    integers over D_u D_d, so the result is the rational route's exactly.  None when a numerator
    is -2^63 (no int64 absolute value)."""
    import numpy as np
    U, V = up.N, down.N
    k = U.shape[0]
    nonzero = U != 0
    live = np.flatnonzero(nonzero.any(axis=1) & (V != 0).any(axis=0))
    if live.size == 0:
        return ()
    U = U[live]
    if (U == np.iinfo(np.int64).min).any():    # no int64 negation (-U or U * -1 stays -2^63:
        return None                            # a GELU class got the wrong sign, absorb audit)
    lead_val = U[np.arange(live.size), nonzero[live].argmax(axis=1)]
    sgn = np.sign(lead_val)
    if act == "relu":
        g = row_gcds(U)
        keys = U // (g * sgn)[:, None]                      # exact: g divides the row
        scale, den = np.abs(lead_val), up.den * down.den
    else:
        keys, scale, den = U * sgn[:, None], np.ones(live.size, dtype=np.int64), down.den
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = np.ravel(inverse)
    members: dict = {}
    for pos, cl in enumerate(inverse.tolist()):
        members.setdefault(cl, []).append(pos)
    out = []
    for cl, pos in members.items():
        row = keys[first[cl]].tolist()
        if act == "relu":
            lead_int = next(x for x in row if x)            # > 0 after the sign normalisation
            u = tuple(Q(x, lead_int) for x in row)
        else:
            u = tuple(Q(x, up.den) for x in row)
        acc = [0] * V.shape[0]
        for i in pos:
            s_i, col = int(scale[i]), V[:, live[i]].tolist()
            acc = [a + s_i * c for a, c in zip(acc, col)]
        if any(acc):
            out.append((u, Q(0), tuple(Q(a, den) for a in acc)))
    return tuple(sorted(out, key=lambda t: t[0]))


def absorb_general(block: Block, *, budget: Budget | None = None, modular: bool = True,
                   max_nullity: int = 16):
    """ABSORB-GENERAL (R15) on the canonical form, also with ReLU biases (affine classes).

    Returns ``(True, absorbing_block)``, ``(False, {"canon": AbsorptionCanon, "per_T": [...]})`` (exhausted
    search; ``per_T`` holds the FIND-S witnesses of the linear sign searches) or
    ``(None, reason)`` when the budget ran out.  *modular* False ranks every sign vector over Q
    (the FLINT reference route) instead of filtering modulo a prime first.

    >>> from algebra.blocks import Block
    >>> ok, g = absorb_general(Block("relu", [[1], [2]], [[1, 1]]))         # example D
    >>> ok, canonical_form(g) == canonical_form(Block("relu", [[1], [2]], [[1, 1]]))
    (True, True)
    >>> absorb_general(Block("gelu", [[1], [2]], [[1, 1]]))[0]
    False
    """
    budget = budget or Budget()
    canon = canonical_form(block)
    record: list = []
    found = _search_tau(canon, block.k, block.d, budget, record=record, modular=modular,
                        max_nullity=max_nullity)
    if found is None:
        return None, f"search stopped ({budget.reason or 'budget'})"
    if found is False:
        if any("unchecked" in r for r in record):
            return None, (f"no assignment fits, but some sign search has more than 2^{MAX_BRUTE_SIGNS} "
                          "cases: too large for a checkable certificate")
        return False, {"canon": canon, "per_T": record}
    return True, _build_general_block(block, canon, *found)


# ----------------------------------------------------------------------------------------------
# private
# ----------------------------------------------------------------------------------------------
def _search_tau(canon: AbsorptionCanon, k: int, d: int, budget: Budget, max_tests: int = 50_000,
                record: list | None = None, modular: bool = True, max_nullity: int = 16):
    """Find (T, signs) of R15, False when none exists, None when the budget ran out.

    For each set T of paired classes: when no free pair is left (Fp = 0) the sign condition is
    linear, Σ_{q∈S} v_q u_qᵀ N_T = (Σ_q v_q u_qᵀ N_T − Λ N_T)/2 with S = {q : τ_q = −1}, and
    FIND-S lists its 0/1 solutions; otherwise the 2^(c−|T|) signs are tried in Gray-code order:
    R = Λ N_T − Σ_q τ_q v_q u_qᵀ N_T is kept modulo a prime on numpy arrays (a flip is a rank-one
    update; the rank mod p, a lower bound of the rank over Q, by the exact float64 elimination of
    :func:`algebra.linalg.gfp.rank_mod_p`), and only a sign vector that passes this filter gets
    its exact rank over Q (FLINT).  With *modular* False every sign vector is ranked over Q (the
    reference route of the tests).
    """
    cls = canon.classes
    c = len(cls)
    if c > k:
        return False
    lam = canon.linear
    tests = 0
    for t in range(0, min(c, k - c) + 1):
        fp = (k - c - t) // 2
        for T in itertools.combinations(range(c), t):
            if budget.exhausted():
                return None
            if T:
                NT = QMatrix.from_rows([list(cls[q][0]) for q in T]).nullspace().T
            else:
                NT = QMatrix.identity(d)
            rest = [q for q in range(c) if q not in T]
            if NT.ncols == 0 or fp >= min(d, NT.ncols):
                return T, {q: 1 for q in rest}
            base = lam @ NT
            if rest:   # R N_T = 0 is linear in the signs: FIND-S (decides when Fp = 0)
                ups = QMatrix.from_rows([list(cls[q][0]) for q in rest]) @ NT        # |rest| × dim
                downs = QMatrix.from_rows([list(cls[q][2]) for q in rest]).T          # d × |rest|
                target = ((downs @ ups) - base).scale(Q(1, 2))
                res = find_s(ups, downs, target, budget=budget, max_nullity=max_nullity)
                if res.subsets:
                    neg = {rest[i] for i in res.subsets[0]}
                    return T, {q: (-1 if q in neg else 1) for q in rest}
                if res.complete and fp == 0:
                    if record is not None:
                        record.append({"T": [list(cls[q][0]) + [cls[q][1]] for q in T],
                                       "order": [list(cls[q][0]) + [cls[q][1]] for q in rest],
                                       "witness": res.witness})
                    continue
            if record is not None and len(rest) > MAX_BRUTE_SIGNS:
                record.append({"unchecked": len(rest)})
            V = QMatrix.from_rows([list(cls[q][2]) for q in rest]).T if rest else QMatrix.zeros(d, 0)
            UN = QMatrix.from_rows([list(cls[q][0]) for q in rest]) @ NT if rest else \
                QMatrix.zeros(0, NT.ncols)                                        # |rest| × dim
            mod = _ModRank.of(base, V, UN) if modular else None   # rank mod p <= rank over Q
            signs = {q: 1 for q in rest}
            for step in range(1 << len(rest)):
                if step:
                    bit = (step & -step).bit_length() - 1   # Gray code: flip one sign
                    q = rest[bit]
                    if mod is not None:
                        mod.flip(bit, signs[q])
                    signs[q] = -signs[q]
                tests += 1
                if tests > max_tests:
                    budget.reason = budget.reason or f"more than {max_tests} rank tests"
                    return None
                if step % 256 == 0 and budget.exhausted():
                    return None
                if mod is not None and mod.rank() > fp:
                    continue
                cur = base - V @ QMatrix.diagonal([signs[q] for q in rest]) @ UN   # exact, over Q
                if cur.rank() <= fp:
                    return T, dict(signs)
    return False


class _ModRank:
    """R = Λ N_T − V diag(τ) U N_T modulo the prime :data:`algebra.linalg.PRIME` on numpy arrays:
    a sign flip is the rank-one update ``R += 2 τ_q v_q (u_q N_T)ᵀ``, the rank is the exact
    float64-route rank mod p (never more than the rank over Q of the rational R)."""

    __slots__ = ("p", "cur", "V", "U")

    @classmethod
    def of(cls, base: QMatrix, V: QMatrix, UN: QMatrix):
        """All signs +1: R = base − V UN; None when a denominator is not invertible mod p."""
        obj = cls()
        obj.p = PRIME
        try:
            B, obj.V, obj.U = (residues_array(m, obj.p) for m in (base, V, UN))
        except ZeroDivisionError:
            return None
        obj.cur = (B - matmul_mod_p(obj.V, obj.U, obj.p).astype(B.dtype)) % obj.p
        return obj

    def flip(self, i: int, old_sign: int) -> None:
        import numpy as np
        p = self.p
        self.cur = (self.cur + np.outer((2 * old_sign * self.V[:, i]) % p, self.U[i]) % p) % p

    def rank(self) -> int:
        return rank_mod_p(self.cur, self.p) if self.cur.size else 0


def _build_general_block(block: Block, canon: AbsorptionCanon, T, signs) -> Block:
    d, k = block.d, block.k
    cls = canon.classes
    units = []  # (w', b', a')
    R = canon.linear
    for q, s in signs.items():
        u, beta, v = cls[q]
        units.append(([s * x for x in u], s * beta, list(v)))
        R = R - QMatrix.column(v) @ QMatrix.row(u).scale(s)
    if T:
        indep = []
        for q in T:
            cand = indep + [q]
            if QMatrix.from_rows([list(cls[i][0]) for i in cand]).rank() == len(cand):
                indep = cand
        Pm = QMatrix.from_rows([list(cls[q][0]) for q in indep]).T       # d × |P|
        H = (R @ Pm) @ (Pm.T @ Pm).inverse()
        h = {q: H.col_at(i) for i, q in enumerate(indep)}
        for q in T:
            u, beta, v = cls[q]
            hq = h.get(q, (Q(0),) * d)
            units.append((list(u), beta, [(a + b) / 2 for a, b in zip(v, hq)]))
            units.append(([-x for x in u], -beta, [(a - b) / 2 for a, b in zip(v, hq)]))
            R = R - QMatrix.column(hq) @ QMatrix.row(u)
    Rr, piv = R.rref()
    for f, pc in enumerate(piv):
        hf, uf = R.col_at(pc), Rr.row_at(f)
        units.append((list(uf), Q(0), [x / 2 for x in hf]))
        units.append(([-x for x in uf], Q(0), [-x / 2 for x in hf]))
    if len(units) > k:
        raise AssertionError("ABSORB-GENERAL built too many units")  # pragma: no cover
    while len(units) < k:
        units.append(([Q(0)] * d, Q(0), [Q(0)] * d))
    w_up = [u[0] for u in units]
    w_down = QMatrix.from_rows([u[2] for u in units]).T
    if canon.constant is None:
        return Block(block.activation, w_up, w_down, skip="none")
    b_up = [u[1] for u in units]
    kappa = list(canon.constant)
    for w, b, a in units:
        if any(x != 0 for x in w):
            kappa = [x - ai * b for x, ai in zip(kappa, a)]
    return Block(block.activation, w_up, w_down, skip="none", b_up=b_up, b_down=[x / 2 for x in kappa])
