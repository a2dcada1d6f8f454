r"""Exact equivalence of one-hidden-layer nets with general rational weights, on int64 arrays.

The decision of :func:`semialgebraic.shallow.canonical_form` ("equal forms ⇔ equal functions",
proved in :mod:`semialgebraic.shallow.canonical`) for weights that are not all float32 values
(float64 files, JSON decimals, any rationals whose integers fit), computed with exact integer
arithmetic on numpy int64 arrays instead of FLINT rationals.  No float is used anywhere.

With ``W = N / D`` (N an int64 array, one denominator for the matrix) and ``b_i = p_i / q_i``:

1. *Row scaling to integers* (three-layer-fibers R9: positive rescaling of a neuron is a symmetry;
   :mod:`~semialgebraic.shallow.canonical`: ``σ(λ s) = λ σ(s)`` for ``λ > 0`` and
   ``σ(s) = s + σ(−s)``).  With ``L_i = lcm(D, q_i)`` the row ``(w_i, b_i)`` equals
   ``R_i / L_i`` with the integer row ``R_i = ((L_i/D) N_i, (L_i/q_i) p_i)`` (checked to fit:
   every entry below 2^62).  Dividing by the row's gcd ``g_i`` and by the sign of its lead
   gives the *primitive* integer row ``P_i`` (lead > 0) with ``(w_i, b_i) = t_i P_i``,
   ``t_i = ±g_i / L_i``.  Two neurons lie on the same
   hyperplane iff their primitive rows are equal (a hyperplane has exactly one primitive integer
   normal-offset vector with positive lead), so the groups are the classes of equal integer
   rows: exact, no collision possible (the bytes of equal int64 rows are equal).
2. *Kinks.*  Neuron *i* adds the kink vector ``|t_i| V_i`` to its hyperplane's ``P`` (a positive
   multiple, ``lead(P)``, of the lead-1 kink of the canonical form: equal for both nets).  For a
   group with one member in each net, ``|t_a| V_a = |t_b| V_b`` is the integer identity
   ``g_a L_b E_b M_a = g_b L_a E_a M_b`` on the output columns (``V = M / E``), decided
   exactly by residues (:func:`algebra.array_replay.scaled_rows_equal`).
3. *Affine part* as in :mod:`semialgebraic.shallow.float32_exact`: a one-plus-one group with
   equal kinks and equal signs of ``t`` adds no affine difference; the other groups, the
   constant neurons (``w = 0``) and ``c`` are summed in exact rationals
   (:func:`~semialgebraic.shallow.float32_exact.finish_exact`).

The answer is True/False (with the first differing hyperplane, lead-1 normalised) or None when a
weight matrix's integers do not fit int64 — never a guess.

>>> from algebra.network import Network
>>> a = Network.from_rows([[["0.1", "0.2"], ["-0.3", "0.05"]], [["1.5", "-2"]]], [["0.5", "1"], [0]])
>>> b = Network.from_rows([[["-0.6", "0.1"], ["0.3", "0.6"]], [["-1", "0.5"]]], [["2", "1.5"], [0]])
>>> compare_integer(a, b).answer
True
>>> compare_integer(a, b.with_parameter("W2[0,1]", "0.51")).answer
False
"""

from __future__ import annotations

import math

from algebra.array_replay import scaled_rows_equal
from algebra.network import Network
from algebra.rationals import Q

from ..verdict import Hypothesis
from .float32_exact import Float32Comparison, constant_terms, finish_exact, one_plus_one, row_ids

__all__ = ["compare_integer", "integer_matrix"]

_LIMIT = 1 << 62


def integer_matrix(net: Network, l: int):
    """``(N, D)`` with ``W_l == N / D`` exactly (N an int64 array), from the reader's arrays or
    from the rational matrix; None when the integers do not fit int64."""
    import numpy as np
    hint = net.integer_weights(l)
    if hint is not None and hint[0].dtype == np.int64:
        return hint[0], int(hint[1])
    Nf, D = net.layer(l)[0].numer_denom()
    r, c = net._shapes[l]
    try:                                              # entry by entry: the slow route
        N = np.fromiter(map(int, Nf.entries()), dtype=np.int64, count=r * c).reshape(r, c)
    except OverflowError:
        return None
    if N.size and int(np.abs(N).max()) >= _LIMIT:     # |−2^63| wraps negative: also refused
        return None
    if N.size and int(N.min()) < -_LIMIT:
        return None
    return N, int(D)


def compare_integer(a: Network, b: Network) -> Float32Comparison:
    """Decide on R^d whether two one-hidden-layer nets compute the same function with exact
    int64 arithmetic (module docstring); None as the answer when the integers do not fit."""
    if a.depth != 2 or b.depth != 2 or a.signature != b.signature:
        return Float32Comparison(None, "needs one hidden layer each and equal signatures")
    import numpy as np
    mats = [[integer_matrix(net, l) for l in range(2)] for net in (a, b)]
    parts = [_neurons(np, net, m) if None not in m else None for net, m in zip((a, b), mats)]
    h = Hypothesis("every weight matrix is N / D with N fitting int64 (rows scaled to integers "
                   "below 2^62)", None not in parts, {"a": parts[0] is not None,
                                                       "b": parts[1] is not None})
    if not h.holds:
        return Float32Comparison(None, "the integers do not fit int64", (h,))
    hyps = (h,)
    P = np.vstack([p["P"] for p in parts])
    src = np.concatenate([np.full(len(p["idx"]), s, np.int8) for s, p in enumerate(parts)])
    local = np.concatenate([p["idx"] for p in parts])
    total = len(local)
    special: list = []
    ngroups = 0
    if total:
        ids = row_ids(np, P)
        order = np.argsort(ids, kind="stable")
        sid = ids[order]
        start = np.concatenate([[True], sid[1:] != sid[:-1]])
        gid = np.cumsum(start) - 1
        ngroups, pair, pa, pb = one_plus_one(np, order, start, gid, src)
        fast = pair.copy()
        cand = np.flatnonzero(pair)
        if len(cand):
            ia, ib = local[pa[cand]], local[pb[cand]]              # neuron indices in a and b
            A, B = parts
            same_sign = A["neg"][ia] == B["neg"][ib]
            sa = [int(x) for x in A["num"][ia].tolist()]            # |t| = num / den, exact
            sb = [int(x) for x in B["num"][ib].tolist()]
            da = [A["den"][i] for i in ia.tolist()]
            db = [B["den"][i] for i in ib.tolist()]
            Ma, Mb = A["cols"][ia], B["cols"][ib]
            eq = _rows_equal(np, Ma, [x * y * B["E"] for x, y in zip(sa, db)],
                             Mb, [x * y * A["E"] for x, y in zip(sb, da)])
            fast[cand] = same_sign & eq
        special = np.flatnonzero(~fast).tolist()
    members: dict = {}
    if special:
        want = set(special)
        for p_, g in enumerate(gid.tolist()):
            if g in want:
                members.setdefault(g, []).append(int(order[p_]))

    def neuron(k):
        side = int(src[k])
        part = parts[side]
        i = int(local[k])
        t = Q(int(part["num"][i]), part["den"][i]) * (-1 if part["neg"][i] else 1)
        v = [Q(int(y), part["E"]) for y in part["cols"][i].tolist()]
        row = [Q(int(x)) for x in P[k].tolist()]
        return side, t, v, tuple(row[:-1]), row[-1]
    constants = [[v for _, v in constant_terms(net, p)] for net, p in zip((a, b), parts)]
    details = {"groups": ngroups, "exact_groups": len(special), "neurons": total}
    return finish_exact(a, b, special, members, neuron, constants, hyps, details,
                        "canonical forms are equal (exact int64 arithmetic on integer rows)")


def _rows_equal(np, Ma, s, Mb, t):
    """Per row: ``s_i Ma_i == t_i Mb_i`` exactly (a boolean array)."""
    out = np.zeros(Ma.shape[0], dtype=bool)
    # rows compared one block at a time by residues; a block with a difference is split
    stack = [(0, Ma.shape[0])]
    while stack:
        lo, hi = stack.pop()
        if lo >= hi:
            continue
        if scaled_rows_equal(Ma[lo:hi], s[lo:hi], Mb[lo:hi], t[lo:hi]):
            out[lo:hi] = True
        elif hi - lo > 1:
            mid = (lo + hi) // 2
            stack += [(lo, mid), (mid, hi)]
    return out


def _neurons(np, net, mats):
    """The kinked neurons (w ≠ 0, V column ≠ 0) of *net*: primitive rows ``P``, ``|t| = num/den``
    (``num`` an int64 gcd, ``den = lcm(D, q)`` a Python int), the sign of ``t``, the output columns
    ``M_i`` over ``E``; and the constant neurons (w = 0).  None when a row does not fit."""
    (N, D), (M, E) = mats
    n = N.shape[0]
    live = (M != 0).any(axis=0)
    has = (N != 0).any(axis=1)
    idx = np.flatnonzero(live & has)
    bias = net.biases[0]
    L = [D * int(bias[i].q) // math.gcd(D, int(bias[i].q)) for i in idx.tolist()]   # lcm(D, q_i)
    k = [x // D for x in L]
    p = [int(bias[i].p) * (x // int(bias[i].q)) for i, x in zip(idx.tolist(), L)]
    rowmax = np.abs(N[idx]).max(axis=1).tolist() if len(idx) else []
    if any(x * y >= _LIMIT for x, y in zip(k, rowmax)) or any(abs(x) >= _LIMIT for x in p):
        return None
    R = np.empty((len(idx), N.shape[1] + 1), dtype=np.int64)
    R[:, :-1] = N[idx]
    if any(x != 1 for x in k):
        R[:, :-1] *= np.array(k, dtype=np.int64)[:, None]
    R[:, -1] = np.array(p, dtype=np.int64)
    g = _row_gcds(np, R)
    lead = R[np.arange(len(idx)), (R[:, :-1] != 0).argmax(axis=1)] if len(idx) else g
    neg = lead < 0
    P = R
    sel = np.flatnonzero(neg | (g != 1))
    if len(sel):                                      # only rows that are not yet primitive
        P = R.copy()
        P[sel] = R[sel] // np.where(neg, -g, g)[sel, None]
    full = np.zeros(n, dtype=np.int64)
    full[idx] = g
    dens = [0] * n
    for i, x in zip(idx.tolist(), L):
        dens[i] = x
    negs = np.zeros(n, dtype=bool)
    negs[idx] = neg
    return {"P": P, "idx": idx, "num": full, "den": dens, "neg": negs,
            "cols": np.ascontiguousarray(M.T), "E": int(E),
            "constant": np.flatnonzero(live & ~has)}


def _row_gcds(np, R):
    """The gcd of every row of the int64 array *R* (rows not all zero), exactly: the gcd ``g0``
    of a few columns first (1 settles the row: the row's gcd divides it); a row that ``g0``
    divides entirely has gcd ``g0``; the full reduction for the rest."""
    width = R.shape[1]
    sample = sorted({0, 1 % width, width // 2, width - 2 if width > 1 else 0, width - 1})
    g = np.gcd.reduce(R[:, sample], axis=1)
    rest = np.flatnonzero(g != 1)
    if len(rest):
        g0 = g[rest]
        ok = g0 > 0
        sub = rest[ok]
        if len(sub):
            div = (R[sub] % g0[ok][:, None] == 0).all(axis=1)
            rest = np.concatenate([sub[~div], rest[~ok]])
        if len(rest):
            g[rest] = np.gcd.reduce(R[rest], axis=1)
    return g
