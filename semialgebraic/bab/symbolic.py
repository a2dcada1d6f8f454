r"""Symbolic linear bounds (DeepPoly/CROWN style), exact over Q on integer matrices.

The pre-activation intervals of every layer of a network ``D`` on a box, with splits: layer 0 is
the exact interval image of the box; the bound of every later pre-activation ``z_l[i]`` (and of
``−z_l[i]``) is the back-substitution of its row through the linear relaxations of the earlier
layers down to the input box.  Everything is exact; to keep the integers small every interval is
rounded *outward* to the grid ``2^-GRID_BITS`` and every back-substituted coefficient on a
post-activation ``h_k`` is rounded *down* to that grid, the difference ``(λ − λ')·h_k <= (λ −
λ')·max(hi_k, 0)`` added to the constant (valid since ``h_k`` lies in ``[0, max(hi_k, 0)]``).
The procedure is deterministic; :mod:`semialgebraic.verify.bab_bound` recomputes it (its own code)
and so rebuilds every relaxation of a certificate.

Relaxation of a hidden neuron with interval ``[lo, hi]`` (after its split clipped it at 0):
active (``lo >= 0``) ``h = z``; inactive (``hi <= 0``) ``h = 0``; unstable ``sl·z <= h <= su·(z −
lo)``, ``su = up(hi / (hi − lo))`` (rounded up to the grid: the line stays above ``relu`` on
``[lo, hi]``), ``sl = 1`` when ``hi > −lo`` else ``0``.  A positive coefficient uses the upper
line, a negative one the lower.

The matrix products run on :class:`algebra.linalg.IntMatrix` (FLINT ``fmpz_mat``): each
coefficient matrix is integers over one power of two, the weights integers over one denominator.
"""

from __future__ import annotations

import numpy as np

from algebra.linalg import IntMatrix, interval_image
from algebra.rationals import Q

from ..budget import checkpoint

__all__ = ["GRID_BITS", "IntLayers", "SymbolicNet", "back_substitute", "relu_lines", "down", "up",
           "clip"]

GRID_BITS = 40
_G = 1 << GRID_BITS
_ZERO = Q(0)


def down(q) -> Q:
    """The largest multiple of ``2^-GRID_BITS`` at most *q*."""
    return Q(int((q * _G).floor()), _G)


def up(q) -> Q:
    """The smallest multiple of ``2^-GRID_BITS`` at least *q*."""
    return Q(int((q * _G).ceil()), _G)


def clip(lo, hi, side):
    """The interval ``[lo, hi]`` intersected with ``z >= 0`` (side 1) or ``z <= 0`` (side 0)."""
    if side == 1 and lo < 0:
        lo = _ZERO
    elif side == 0 and hi > 0:
        hi = _ZERO
    return lo, hi


def _lcm_den(values):
    d = 1
    for v in values:
        q = int(v.q)
        d = d * q // _gcd(d, q)
    return d


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


class IntLayers:
    """Affine layers (rows *Ws*, biases *bs*, exact) in integer form, converted once: per layer
    ``N`` (FLINT ``fmpz_mat``) and ``Nrows`` (numpy object array) with ``W = N / den``, and
    ``b = bnum / bden``."""

    def __init__(self, Ws, bs):
        self.Ws, self.bs = Ws, bs
        self.L = len(Ws)
        self.N, self.Nrows, self.den, self.bnum, self.bden = [], [], [], [], []
        for W, b in zip(Ws, bs):
            d = _lcm_den(v for row in W for v in row)
            self.den.append(d)
            ints = [[int(v * d) for v in row] for row in W]
            self.N.append(IntMatrix.from_rows(ints))
            self.Nrows.append(np.array(ints, dtype=object).reshape(len(ints), -1))
            e = _lcm_den(b)
            self.bden.append(e)
            self.bnum.append(np.array([int(v * e) for v in b], dtype=object))

    def rows_of(self, l, rows):
        """``(λ, scale, const)``: the rows *rows* of layer *l* and their negations, ready for
        :func:`back_substitute` (``λ / scale`` on the post-activations of layer ``l − 1``)."""
        Nl = self.Nrows[l][rows]
        bl = [Q(int(self.bnum[l][j]), self.bden[l]) for j in rows]
        return np.concatenate([Nl, -Nl]), self.den[l], bl + [-v for v in bl]


def back_substitute(lay, top, lines, caps, box, lam, scale, const, cancel=checkpoint):
    """Upper bounds of ``λ_i / scale · h_top + const_i`` over a node, going down the linear
    relaxations of layers ``top … 0`` of *lay* (an :class:`IntLayers`) to the box.

    ``lines[k] = (su, sl, tu, tl)``: per neuron of layer ``k`` the post-activation lies between
    ``sl·z + tl`` and ``su·z + tu`` (slopes times ``2^P``, constants times ``2^(2P)``, integer
    arrays; ``tl`` None when all zero); ``caps[k]``: an upper bound of each post-activation of
    layer ``k`` times ``2^P``, used to round the coefficients down to the grid (the module
    docstring).  Exact; returns a list of ``Q``."""
    const = list(const)
    for k in range(top, -1, -1):
        cancel()
        su, sl, tu, tl = lines[k]
        pos = lam > 0
        M = np.where(pos, lam * su, lam * sl)                 # scale: scale · 2^P
        lift = np.where(pos, lam, 0).dot(tu)                  # scale: scale · 2^(2P)
        if tl is not None:
            lift = lift + np.where(pos, 0, lam).dot(tl)
        for i, v in enumerate(lift):
            if v:
                const[i] += Q(int(v), scale * _G * _G)
        MN = _int_array(IntMatrix.from_rows(M.tolist()) * lay.N[k], M.shape[0])
        bterm = M.dot(lay.bnum[k])                            # scale: scale · 2^P · bden_k
        s2 = scale * _G * lay.den[k]                          # the scale of MN
        for i, v in enumerate(bterm):
            if v:
                const[i] += Q(int(v), scale * _G * lay.bden[k])
        if k > 0:
            q = scale * lay.den[k]
            lam2 = MN // q                                    # floor: grid 2^-P
            rem = MN - lam2 * q                               # >= 0, scale s2
            for i, v in enumerate(rem.dot(caps[k - 1])):
                if v:
                    const[i] += Q(int(v), s2 * _G)
            lam, scale = lam2, _G
        else:
            lam, scale = MN, s2
    # maximise over the box: every coordinate an integer over one denominator
    bd = _lcm_den(v for pair in box for v in pair)
    blo = np.array([int(lo * bd) for lo, _ in box], dtype=object)
    bhi = np.array([int(hi * bd) for _, hi in box], dtype=object)
    tot = np.where(lam > 0, lam * bhi, lam * blo).sum(axis=1) if lam.shape[1] else [0] * lam.shape[0]
    return [const[i] + Q(int(tot[i]), scale * bd) for i in range(lam.shape[0])]


def relu_lines(layer):
    """The DeepPoly lines of every neuron of *layer* (intervals, grid numbers) in the integer
    form of :func:`back_substitute`, and the caps ``max(hi, 0) · 2^P``."""
    su, sl, tu = _relaxation(layer)
    caps = np.array([int(max(hi, _ZERO) * _G) for _, hi in layer], dtype=object)
    return (su, sl, tu, None), caps


class SymbolicNet(IntLayers):
    """A network ``D`` (rows *Ws*, biases *bs*) prepared for repeated symbolic bounds."""

    # -- one node -------------------------------------------------------------------------
    def intervals(self, box, splits, cancel=None, parent=None, layer=None):
        """Pre-activation intervals of every layer (grid numbers), or None when a split empties
        one.  *splits* maps ``(l, j)`` to a side; *cancel* (default
        :func:`semialgebraic.budget.checkpoint`: an active exhausted budget raises
        ``BudgetExhausted``) is called between layers and between the back-substitution steps.
        With *parent* (the intervals of the same box under the splits minus some splits of
        layer *layer*), the layers below *layer* are reused (they do not depend on splits at or
        above it: the same numbers)."""
        L = self.L
        cancel = cancel or checkpoint
        ivs = [] if parent is None else [list(v) for v in parent[:layer]]
        lines, caps = [], []
        for k in range(len(ivs)):
            ln, cp = relu_lines(ivs[k])
            lines.append(ln); caps.append(cp)
        for l in range(len(ivs), L):
            prev = box if l == 0 else [(max(lo, _ZERO), max(hi, _ZERO)) for lo, hi in ivs[-1]]
            cur = [(down(lo), up(hi)) for lo, hi in interval_image(self.Ws[l], prev, self.bs[l])]
            if l > 0:
                rows = [j for j, (lo, hi) in enumerate(cur) if l == L - 1 or lo < 0 < hi]
                if rows:
                    lam, scale, const = self.rows_of(l, rows)
                    ub = back_substitute(self, l - 1, lines, caps, box, lam, scale, const, cancel)
                    n = len(rows)
                    for t, j in enumerate(rows):
                        cur[j] = (max(cur[j][0], down(-ub[n + t])), min(cur[j][1], up(ub[t])))
            if l < L - 1:
                cur = [clip(lo, hi, splits.get((l, j))) for j, (lo, hi) in enumerate(cur)]
                if any(lo > hi for lo, hi in cur):
                    return None
                ln, cp = relu_lines(cur)
                lines.append(ln); caps.append(cp)
            ivs.append(cur)
            cancel()
        return ivs


def _int_array(m, rows):
    return np.array([int(e) for e in m.entries()], dtype=object).reshape(rows, -1)


def _relaxation(layer):
    """Integer slopes (``su``, ``sl`` times ``2^P``) and the upper lines' constants ``−su·lo``
    times ``2^(2P)`` (intervals are grid numbers, so all three are integers)."""
    su, sl, tu = [], [], []
    for lo, hi in layer:
        if lo >= 0:
            su.append(_G); sl.append(_G); tu.append(0)
        elif hi <= 0:
            su.append(0); sl.append(0); tu.append(0)
        else:
            s = int((hi / (hi - lo) * _G).ceil())
            su.append(s)
            sl.append(_G if hi > -lo else 0)
            tu.append(s * int(-lo * _G))
    return (np.array(su, dtype=object), np.array(sl, dtype=object), np.array(tu, dtype=object))


def affine_bound(Ws, bs, box, ivs, c):
    """On a node without unstable neurons ``c · D`` is affine on the box: its exact maximum and a
    vertex attaining it (``None`` when some neuron is unstable)."""
    L = len(Ws)
    if any(lo < 0 < hi for layer in ivs[:-1] for lo, hi in layer):
        return None
    r = list(c)
    const = _ZERO
    for k in range(L - 1, -1, -1):
        if k < L - 1:
            r = [v if ivs[k][j][0] >= 0 else _ZERO for j, v in enumerate(r)]
        const += sum((v * bk for v, bk in zip(r, bs[k]) if v != 0), _ZERO)
        nxt = [_ZERO] * len(Ws[k][0]) if Ws[k] else []
        for v, row in zip(r, Ws[k]):
            if v != 0:
                for i, w in enumerate(row):
                    if w != 0:
                        nxt[i] += v * w
        r = nxt
    vertex = tuple(hi if v > 0 else lo for v, (lo, hi) in zip(r, box))
    return const + sum((v * x for v, x in zip(r, vertex) if v != 0), _ZERO), vertex
