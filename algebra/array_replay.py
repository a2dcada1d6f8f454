r"""Exact replay of permutation and scaling steps on integer weight arrays.

A symmetry path of a permuted and rescaled copy is ``[S2, S1]`` (three-layer-fibers R8, R9):
scale every hidden neuron by a positive rational, then permute.  Replaying it on FLINT matrices
touches every weight as a Python object; here the weights stay numpy integer arrays and the
steps only move rows and record factors:

**Representation.**  Layer *l* of a network is ``W_l = diag(r_l) · N_l · diag(c_l) / D_l`` with
``N_l`` an int64 array (from :meth:`algebra.network.Network.integer_weights`), ``D_l`` a positive
integer and ``r_l``, ``c_l`` exact rational row and column factors (None: all ones).  S1 at
hidden layer *l* takes rows of ``N_l``, ``r_l`` and the bias, and columns of ``N_{l+1}``,
``c_{l+1}``; S2 multiplies ``r_l`` and the bias by ``λ`` and ``c_{l+1}`` by ``1/λ``.  Both are
identities of the represented matrices, so the represented network is exactly the one the FLINT
replay would give.  A layer that would need both row and column factors (a hidden layer between
two scaled layers, in nets with two or more hidden layers) is not represented: the caller replays
on FLINT instead.

**Exact comparisons by residues.**  ``s_i · N_ij == t_i · M_ij`` for all ``i, j`` (N, M int64
arrays, ``s``, ``t`` integer row scalars) is decided modulo pairwise coprime moduli
``m_k < 2^31`` (:data:`MODULI`; residue products < 2^62 fit int64) whose product ``P`` exceeds
``B = max|s|·max|N| + max|t|·max|M|``: the integer ``X − Y`` has ``|X − Y| <= B < P`` and is
divisible by every ``m_k``, hence by ``P`` (Chinese remainder theorem), hence is 0.  So equal
residues prove equality; unequal residues disprove it.

**Digests.**  :func:`view_digest` computes :func:`algebra.kernel.network_digest` of the
represented network (the same string): ``W r`` for the fixed integer vector ``r`` is
``diag(r_l) (N (c ∘ r)) / D``; ``N r`` is summed exactly in 24-bit limbs (each limb product sum
stays below 2^63 for fewer than 2^22 columns).

>>> import numpy as np
>>> from algebra.network import Network
>>> N = np.array([[2, -4], [1, 3]], dtype=np.int64)
>>> V = np.array([[1, 5]], dtype=np.int64)
>>> a = Network._from_integer_arrays([(N, 4), (V, 1)], [[0, 1], [2]])
>>> v = array_view(a)
>>> w = apply_step(v, "S2", 0, factors=[Q(3), Q(1, 2)])
>>> w = apply_step(w, "S1", 0, perm=[1, 0])
>>> b = Network.from_rows([[["1/8", "3/8"], ["3/2", -3]], [[10, "1/3"]]], [["1/2", 0], [2]])
>>> view_equals(w, b), view_equals(w, b.with_parameter("W2[0,1]", "1/4"))
(True, False)
>>> from algebra.kernel import network_digest
>>> view_digest(w) == network_digest(b)
True
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace
from typing import Sequence

from .linalg import QMatrix
from .rationals import Q, q_str

__all__ = ["ArrayView", "array_view", "apply_step", "replay_path", "replay_step", "check_step",
           "replace_neurons", "view_neuron", "view_column", "view_digest", "view_equals", "scaled_rows_equal",
           "exact_row_dot", "MODULI", "ARRAY_STEPS"]

MODULI = (2147483647, 2147483629, 2147483587, 2147483579, 2147483563, 2147483549, 2147483543,
          2147483497, 2147483489, 2147483477, 2147483423, 2147483399, 2147483353, 2147483323,
          2147483269, 2147483249)
"""Pairwise coprime moduli below 2^31 (primes, checked in the tests; coprimality is all the
argument needs, and is checked here at import)."""

assert all(math.gcd(x, y) == 1 for i, x in enumerate(MODULI) for y in MODULI[i + 1:])


@dataclass(frozen=True)
class ArrayLayer:
    """``W = diag(r) · N · diag(c) / D`` (r, c: tuples of rationals or None for ones)."""

    N: object
    D: int
    r: tuple | None = None
    c: tuple | None = None


@dataclass(frozen=True)
class ArrayView:
    """A network as :class:`ArrayLayer` weights and exact biases (module docstring); has the
    ``depth`` and ``widths`` that the steps' ``check`` methods read."""

    layers: tuple
    biases: tuple

    @property
    def depth(self) -> int:
        return len(self.layers)

    @property
    def widths(self) -> tuple:
        return (int(self.layers[0].N.shape[1]),) + tuple(int(L.N.shape[0]) for L in self.layers)


def array_view(net, convert: bool = False) -> ArrayView | None:
    """The network as an :class:`ArrayView`, or None unless every layer is kept as an int64
    array by a reader (:meth:`~algebra.network.Network.integer_weights`); with *convert*, a
    layer held as FLINT rationals is converted (entry by entry) when its integers fit int64."""
    np = _np()
    layers = []
    for l in range(net.depth):
        hint = net.integer_weights(l)
        if hint is None and convert:
            N, D = net.layer(l)[0].numer_denom()
            rows = [[int(x) for x in r] for r in N.tolist()]
            if any(abs(x) >= 1 << 63 for r in rows for x in r):
                return None
            shape = net._shapes[l]
            hint = (np.array(rows, dtype=np.int64).reshape(shape), int(D))
        if hint is None or hint[0].dtype.kind != "i" or hint[0].dtype.itemsize != 8:
            return None
        layers.append(ArrayLayer(hint[0], int(hint[1])))
    return ArrayView(tuple(layers), tuple(tuple(b) for b in net.biases))


def apply_step(view: ArrayView, name: str, layer: int, *, perm: Sequence[int] | None = None,
               factors: Sequence[Q] | None = None) -> ArrayView | None:
    """The view after the step S1 (*perm*: ``new[k] = old[perm[k]]``) or S2 (*factors*) at hidden
    layer *layer*, or None when the result cannot be represented (module docstring).  The step
    must have passed its ``check`` on *view* (a permutation of the right length, positive
    factors)."""
    np = _np()
    L, nxt = view.layers[layer], view.layers[layer + 1]
    bias = list(view.biases)
    if name == "S1":
        p = np.asarray(perm, dtype=np.int64)
        L = replace(L, N=L.N[p], r=None if L.r is None else tuple(L.r[k] for k in perm))
        nxt = replace(nxt, N=np.ascontiguousarray(nxt.N[:, p]),
                      c=None if nxt.c is None else tuple(nxt.c[k] for k in perm))
        bias[layer] = tuple(bias[layer][k] for k in perm)
    elif name == "S2":
        f = [Q(x) for x in factors]
        r = f if L.r is None else [x * y for x, y in zip(L.r, f)]
        c = [1 / x for x in f] if nxt.c is None else [x / y for x, y in zip(nxt.c, f)]
        L, nxt = replace(L, r=tuple(r)), replace(nxt, c=tuple(c))
        bias[layer] = tuple(x * y for x, y in zip(bias[layer], f))
    else:
        return None
    L, nxt = _fold(L), _fold(nxt)
    if L is None or nxt is None:
        return None
    layers = list(view.layers)
    layers[layer], layers[layer + 1] = L, nxt
    return ArrayView(tuple(layers), tuple(bias))


def _fold(L: ArrayLayer, force: bool = False) -> ArrayLayer | None:
    """*L* with its row and column factors multiplied into ``N`` (one denominator) when it has
    both (or with *force*, any); None when the integers would not fit int64 (bound checked
    first: ``max|N| · max|row multiplier| · max|column multiplier| < 2^62``)."""
    if L.r is None and L.c is None or not force and (L.r is None or L.c is None):
        return L
    np = _np()
    mults, dens = [], []
    for fac in (L.r, L.c):
        if fac is None:
            mults.append(None)
            dens.append(1)
            continue
        den = math.lcm(*(int(f.q) for f in fac))
        mults.append([int(f.p) * (den // int(f.q)) for f in fac])
        dens.append(den)
    mag = max(abs(int(L.N.min())), abs(int(L.N.max()))) if L.N.size else 0
    bound = mag * max(map(abs, mults[0] or [1])) * max(map(abs, mults[1] or [1]))
    if bound >= 1 << 62:
        return None
    N = L.N
    if mults[0] is not None:
        N = N * np.array(mults[0], dtype=np.int64)[:, None]
    if mults[1] is not None:
        N = N * np.array(mults[1], dtype=np.int64)[None, :]
    return ArrayLayer(np.ascontiguousarray(N), L.D * dens[0] * dens[1])


# -- neuron moves on arrays (regroup, remove_neuron, insert_neuron) ---------------------------

def view_neuron(view: ArrayView, layer: int, i: int):
    """``(w, b, v)`` of neuron *i* of hidden layer *layer* as tuples of exact rationals (one row
    and one column: cheap even for wide layers)."""
    L, nxt = view.layers[layer], view.layers[layer + 1]
    r = Q(1) if L.r is None else L.r[i]
    row = L.N[i].tolist()
    if L.c is None:
        w = tuple(Q(int(x), L.D) * r for x in row)
    else:
        w = tuple(Q(int(x), L.D) * r * c for x, c in zip(row, L.c))
    return w, view.biases[layer][i], view_column(view, layer, i)


def view_column(view: ArrayView, layer: int, i: int) -> tuple:
    """The output column ``v`` of neuron *i* of hidden layer *layer* (exact rationals)."""
    nxt = view.layers[layer + 1]
    cf = Q(1) if nxt.c is None else nxt.c[i]
    col = nxt.N[:, i].tolist()
    if nxt.r is None:
        return tuple(Q(int(x), nxt.D) * cf for x in col)
    return tuple(Q(int(x), nxt.D) * cf * rr for x, rr in zip(col, nxt.r))


def _ints_over(vec):
    """``(X, den)`` with ``vec == X / den`` (X an int64 array), or None when X does not fit."""
    np = _np()
    den = math.lcm(*(int(x.q) for x in vec)) if len(vec) else 1
    X = [int(x.p) * (den // int(x.q)) for x in vec]
    if any(abs(x) >= 1 << 62 for x in X):
        return None
    return np.array(X, dtype=np.int64), den


def replace_neurons(view: ArrayView, layer: int, drop: Sequence[int], new, dc=None,
                    position: int | None = None) -> ArrayView | None:
    """The view after removing neurons *drop* of hidden layer *layer* and adding *new*
    (``(w, b, v)`` triples of rationals) after the kept ones (or at *position*), ``dc`` added to
    the next bias: :class:`algebra.symmetries.moves._Replace` on arrays.  None when a new row or
    column does not fit int64 (the caller replays on FLINT)."""
    np = _np()
    L, nxt = _fold(view.layers[layer], force=view.layers[layer].c is not None), view.layers[layer + 1]
    nxt = _fold(nxt, force=nxt.r is not None)
    if L is None or nxt is None:
        return None
    n = int(L.N.shape[0])
    gone = set(drop)
    keep = [i for i in range(n) if i not in gone]
    rows, rfac = [L.N[keep]], [(Q(1) if L.r is None else L.r[i]) for i in keep]
    cols, cfac = [nxt.N[:, keep]], [(Q(1) if nxt.c is None else nxt.c[i]) for i in keep]
    bias = [view.biases[layer][i] for i in keep]
    for w, b, v in new:
        wr, vc = _ints_over(w), _ints_over(v)
        if wr is None or vc is None:
            return None
        rows.append(wr[0][None, :])
        rfac.append(Q(L.D, wr[1]))
        cols.append(vc[0][:, None])
        cfac.append(Q(nxt.D, vc[1]))
        bias.append(b)
    N, M = np.vstack(rows), np.hstack(cols)
    if position is not None:                   # one new neuron, moved from the end to position
        order = list(range(position)) + [N.shape[0] - 1] + list(range(position, N.shape[0] - 1))
        N, M = N[order], M[:, order]
        rfac, cfac, bias = ([x[k] for k in order] for x in (rfac, cfac, bias))
    ones = all(f == 1 for f in rfac), all(f == 1 for f in cfac)
    L = ArrayLayer(np.ascontiguousarray(N), L.D, None if ones[0] else tuple(rfac))
    nxt = ArrayLayer(np.ascontiguousarray(M), nxt.D, nxt.r, None if ones[1] else tuple(cfac))
    biases = list(view.biases)
    biases[layer] = tuple(bias)
    if dc is not None:
        biases[layer + 1] = tuple(x + y for x, y in zip(biases[layer + 1], dc))
    layers = list(view.layers)
    layers[layer], layers[layer + 1] = L, nxt
    return ArrayView(tuple(layers), tuple(biases))


ARRAY_STEPS = ("S1", "S2", "regroup", "remove_neuron", "insert_neuron", "composite")
"""The steps :func:`replay_path` replays on arrays (a path with any other step: None)."""


def _replayable(step) -> bool:
    if step.name == "composite":
        return all(_replayable(s) for s in step.steps)
    return step.name in ARRAY_STEPS


def check_step(view: ArrayView, step) -> tuple[bool, str]:
    """The step's own validity check at the network *view* represents: S1, S2 and
    ``insert_neuron`` read only the shape (their ``check`` runs on the view itself); ``regroup``
    and ``remove_neuron`` read the neurons they name through :func:`view_neuron` (the same
    check code as on a :class:`~algebra.network.Network`)."""
    if step.name in ("regroup", "remove_neuron"):
        ok = 0 <= step.layer < view.depth - 1
        if not ok:
            return False, f"hidden layer {step.layer} does not exist ({view.depth - 1} hidden layers)"
        n, w = view.widths[step.layer + 1], view.widths

        def neuron(i):
            return view_neuron(view, step.layer, i)
        if step.name == "regroup":
            return step.check_neurons(neuron, n, w[step.layer], w[step.layer + 2])
        return step.check_neuron(view, neuron, n)
    return step.check(view)


def replay_step(view: ArrayView, step) -> tuple[ArrayView | None, tuple[bool, str]]:
    """``(view after step, (ok, why))``: the step checked at *view* (:func:`check_step`) then
    applied (a composite: each sub-step at its own intermediate view); the view is None when
    the check fails or the result cannot be represented."""
    if step.name == "composite":
        for k, sub in enumerate(step.steps):
            view, (ok, why) = replay_step(view, sub)
            if not ok or view is None:
                return None, (ok, f"sub-step {k} ({sub.name}): {why}" if not ok else why)
        return view, (True, "every sub-step is valid")
    ok, why = check_step(view, step)
    if not ok:
        return None, (ok, why)
    if step.name in ("S1", "S2"):
        return apply_step(view, step.name, step.layer, perm=getattr(step, "perm", None),
                          factors=getattr(step, "factors", None)), (ok, why)
    layer = step.layer
    if step.name == "regroup":
        flat = step._flat_replace()
        return replace_neurons(view, layer, flat.indices, flat.new), (ok, why)
    if step.name == "remove_neuron":
        w, b, v = view_neuron(view, layer, step.neuron)
        dc = tuple(x * b for x in v) if b > 0 and not any(w) else None
        return replace_neurons(view, layer, [step.neuron], [], dc), (ok, why)
    w, b, v = step.weight, step.bias, step.output              # insert_neuron
    dc = tuple(-x * b for x in v) if b > 0 and not any(w) else None
    return replace_neurons(view, layer, [], [(w, b, v)], dc, step.position), (ok, why)


def replay_path(net, steps, view: ArrayView | None = None, digests: bool = True):
    """Replay the symmetry *steps* (step objects) from *net* on arrays: the list of
    ``(ok, why, view, digest)`` after each step, stopping at the first step whose check
    fails (then ``view`` and ``digest`` are None); or None when *net* or a step cannot be
    represented (the caller replays on FLINT).  ``digest`` is :func:`view_digest` (None
    without *digests*: a path without checkpoints).  *view*: the array view of *net* when the
    caller has it."""
    view = array_view(net) if view is None else view
    if view is None or not all(_replayable(s) for s in steps):
        return None
    out = []
    for step in steps:
        view, (ok, why) = replay_step(view, step)
        if not ok:
            out.append((False, why, None, None))
            return out
        if view is None:
            return None
        out.append((True, why, view, view_digest(view) if digests else None))
    return out


def exact_row_dot(N, vec: Sequence[int]) -> list[int]:
    """``N @ vec`` exactly as Python ints (N an int64 array, *vec* small non-negative ints
    below 2^17, fewer than 2^22 columns): the sum over three 24-bit limbs of N."""
    np = _np()
    v = np.asarray(vec, dtype=np.int64)
    if N.shape[1] >= 1 << 22 or (v.size and (int(v.min()) < 0 or int(v.max()) >= 1 << 17)):
        raise ValueError("exact_row_dot: vector entries must lie in [0, 2^17), < 2^22 columns")
    mask = np.int64((1 << 24) - 1)
    lo = (N & mask) @ v                        # limbs in [0, 2^24): sums < 2^63
    mid = ((N >> 24) & mask) @ v
    hi = (N >> 48) @ v                         # |N >> 48| <= 2^15
    return [int(x) + (int(y) << 24) + (int(z) << 48)
            for x, y, z in zip(lo.tolist(), mid.tolist(), hi.tolist())]


def view_digest(view: ArrayView) -> str:
    """:func:`algebra.kernel.network_digest` of the network *view* represents (same string)."""
    parts = [",".join(map(str, view.widths))]
    for L, b in zip(view.layers, view.biases):
        ncols = int(L.N.shape[1])
        rvec = [(j * 40503 + 7) % 65521 + 1 for j in range(ncols)]
        if L.c is None:
            y = [Q(x, L.D) for x in exact_row_dot(L.N, rvec)]
        else:
            M = QMatrix.from_integer_rows(L.N.tolist(), ncols, den=L.D)
            y = list(M.apply([c * x for c, x in zip(L.c, rvec)]))
        if L.r is not None:
            y = [x * f for x, f in zip(y, L.r)]
        parts.append(",".join(q_str(x) for x in y))
        parts.append(",".join(q_str(x) for x in b))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def view_equals(view: ArrayView, net) -> bool | None:
    """Whether *view* represents exactly *net*; None when *net*'s weights are not int64
    arrays (the caller compares on FLINT)."""
    other = array_view(net, convert=sum(r * c for r, c in net._shapes) < 100_000)
    if other is None:
        return None
    if view.widths != other.widths or view.biases != other.biases:
        return False
    for L, M in zip(view.layers, other.layers):
        # r_i N_ij c_j / D == M_ij / E  ⇔  (p_i E) N_ij == (q_i D) M_ij, per row or per column
        fac, A, B = L.r, L.N, M.N
        if L.c is not None:
            fac, A, B = L.c, L.N.T, M.N.T
        if fac is None:
            s, t = [M.D] * A.shape[0], [L.D] * A.shape[0]
        else:
            s = [int(f.p) * M.D for f in fac]
            t = [int(f.q) * L.D for f in fac]
        if not scaled_rows_equal(A, s, B, t):
            return False
    return True


def scaled_rows_equal(N, s: Sequence[int], M, t: Sequence[int]) -> bool:
    """Exactly whether ``s_i · N_ij == t_i · M_ij`` for every entry (N, M int64 arrays of one
    shape, *s*, *t* Python ints per row), by residues (module docstring)."""
    np = _np()
    if N.shape != M.shape or len(s) != N.shape[0] or len(t) != N.shape[0]:
        raise ValueError("scaled_rows_equal: shapes differ")
    if N.size == 0:
        return True

    def mag(A):
        return max(abs(int(A.min())), abs(int(A.max())))
    bound = max(map(abs, s)) * mag(N) + max(map(abs, t)) * mag(M)
    if bound < 1 << 62:                            # both products fit int64: compare directly
        sv = np.array(list(s), dtype=np.int64)[:, None]
        tv = np.array(list(t), dtype=np.int64)[:, None]
        return bool((N * sv == M * tv).all())
    prod, used = 1, []
    for m in MODULI:
        if prod > bound:
            break
        prod *= m
        used.append(m)
    if prod <= bound:                              # beyond 16 moduli: Python integers
        So = np.array(list(s), dtype=object)[:, None]
        To = np.array(list(t), dtype=object)[:, None]
        return bool((N.astype(object) * So == M.astype(object) * To).all())
    for m in used:
        sm = np.array([x % m for x in s], dtype=np.int64)[:, None]
        tm = np.array([x % m for x in t], dtype=np.int64)[:, None]
        if not ((N % m) * sm % m == (M % m) * tm % m).all():
            return False
    return True


def _np():
    import numpy
    return numpy
