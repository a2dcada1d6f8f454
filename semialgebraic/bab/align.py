"""Align ``b``'s hidden neurons with ``a``'s before the differential bounds (issue 15).

The differential bounds (:mod:`.differential`) pair neuron ``j`` of ``a`` with neuron ``j`` of
``b``.  When ``b`` is a permuted and rescaled copy of a near copy of ``a`` (planted symmetries,
a re-ordered checkpoint), that pairing is meaningless and ``a − b`` is bounded as loosely as two
unrelated networks: a 2-4-2 pair whose exact maximum is ``7/400000`` stayed open at ``[1.75e-5,
5.6e-3]`` after 1 800 nodes.  :func:`alignment` proposes (in floats) a permutation (S1) and
positive rescaling (S2) of each hidden layer of ``b`` that brings its neurons onto ``a``'s; both
are symmetries of every ReLU network (three-layer-fibers R8, R9), so the aligned ``b'``
computes exactly ``b``'s function, whatever the floats proposed: the alignment can cost
tightness, never soundness.  The certificate carries the steps (``"b_aligned_by"``) and the
checker applies them itself (each step checked: a permutation, factors > 0).

Factors are exact where the planted scaling is exact: the quotient of the two rows' entries of
largest magnitude (taken however close to 1 when the rows are exactly proportional).  Steps that change nothing (identity permutation, all factors 1) are left out,
so near copies (float16, quantised) keep ``b`` untouched.
"""

from __future__ import annotations

import numpy as np

from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.elementary import Permute, Scale
from algebra.symmetries.step import apply_path

__all__ = ["alignment", "aligned"]

_MATCH = 0.9          # cosine below which two rows are not taken for the same neuron
_SAME = 0.99          # every row this close to its own: the layer is already aligned
_WIDE = 2048          # wider layers are not matched (an O(n²) float matrix)
_NEAR_ONE = Q(1, 8)   # factors this close to 1 stay 1 (near copies keep their exact numbers)


def _rows(net: Network, l: int):
    W, b = net.layer(l)
    return [list(r) + [c] for r, c in zip(W.to_rows(), b)]


def _factor(ra, rb):
    """``λ > 0`` with ``λ·rb ≈ ra``: the exact quotient at ``ra``'s largest entry when that is
    positive and either the rows are exactly proportional (a planted scaling, however close to
    1: a 4-10-3 pair rescaled by 9/8 at one neuron stayed open at [0, 4.0] after 30 s) or it is
    not within ``_NEAR_ONE`` of 1 (a near copy keeps its exact numbers), else 1."""
    k = max(range(len(ra)), key=lambda i: abs(ra[i]))
    if ra[k] == 0 or rb[k] == 0:
        return Q(1)
    lam = Q(ra[k]) / Q(rb[k])
    if lam <= 0:
        return Q(1)
    if abs(lam - 1) > _NEAR_ONE or all(Q(x) == lam * Q(y) for x, y in zip(ra, rb)):
        return lam
    return Q(1)


def _pairing(ra, rb):
    """``perm[i]`` = the row of *rb* put at position ``i``: the identity when every row already
    meets its own (near copies: O(n·d)), else a greedy matching by cosine above ``_MATCH`` (the
    rest in order); None when the layer is too wide for the O(n²) matching (``_WIDE``)."""
    if not ra:                  # a hidden layer of width 0 (pruned): nothing to pair
        return []
    def units(rows):
        M = np.array([[float(x) for x in r] for r in rows], dtype=float)
        n = np.linalg.norm(M, axis=1)
        return M / np.where(n > 0, n, 1.0)[:, None], n > 0
    UA, oka = units(ra)
    UB, okb = units(rb)
    n = len(ra)
    if np.all(np.sum(UA * UB, axis=1)[oka & okb] >= _SAME) and np.array_equal(oka, okb):
        return list(range(n))
    if n > _WIDE:
        return None
    cos = UA @ UB.T
    cos[~oka, :] = -2.0
    cos[:, ~okb] = -2.0
    perm: list = [None] * n
    used = set()
    for flat in np.argsort(-cos, axis=None, kind="stable"):
        i, j = divmod(int(flat), n)
        if cos[i, j] < _MATCH:
            break
        if perm[i] is None and j not in used:
            perm[i] = j
            used.add(j)
    rest = iter(j for j in range(n) if j not in used)
    return [p if p is not None else next(rest) for p in perm]


def alignment(a: Network, b: Network) -> list:
    """Symmetry steps (S1, S2) taking ``b`` to a network whose neuron ``j`` of each hidden layer
    is the one most like ``a``'s neuron ``j``; ``[]`` when the shapes differ or nothing moves
    (the steps found below a layer wider than ``_WIDE`` that needs a matching: none there)."""
    if a.widths != b.widths:
        return []
    steps: list = []
    cur = b
    for l in range(len(a.widths) - 2):
        ra, rb = _rows(a, l), _rows(cur, l)
        perm = _pairing(ra, rb)
        if perm is None:
            break
        n = len(ra)
        layer_steps = []
        if perm != list(range(n)):
            layer_steps.append(Permute(l, perm))
        factors = [_factor(ra[i], rb[perm[i]]) for i in range(n)]
        if any(f != 1 for f in factors):
            layer_steps.append(Scale(l, factors))
        if layer_steps:
            cur = apply_path(cur, layer_steps)
            steps += layer_steps
    return steps


def aligned(a: Network, b: Network):
    """``(b', steps)``: ``b`` with :func:`alignment`'s steps applied (``b`` itself when none)."""
    steps = alignment(a, b)
    return (apply_path(b, steps) if steps else b), steps


def path_onto(a: Network, b: Network, alignment=None) -> list | None:
    """The S1/S2 steps carrying *a* exactly to *b* (:func:`aligned`'s steps inverted), when
    aligning *b*'s hidden neurons with *a*'s gives *a* exactly; else None (other widths, a
    pairing that fails, or a *b* that is not such a copy).  *alignment*: :func:`aligned`'s
    result when the caller has it already."""
    if a.widths != b.widths:
        return None
    try:
        b2, steps = alignment if alignment is not None else aligned(a, b)
    except (ValueError, ArithmeticError):
        return None
    if b2 != a:
        return None
    return [st.inverse() for st in reversed(steps)]
