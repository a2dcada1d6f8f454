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

The matrix products run on int64 limbs (:class:`algebra.kernel.limbs.LimbArith`: exact float64
products and int64 carries, no FLINT round trip): each coefficient matrix is integers over one
scale (a power of two after the first step), the weights integers over one denominator, the
interval endpoints grid integers (``2^P`` times the grid number) inside a node, each layer made
``Q`` once; every constant term is an integer over a known denominator, summed once per row.
Rounding a coefficient down to the grid is an exact floor (a shift of the limbs when the scale
is a power of two, Python integers otherwise).  A node costs about 5× less than with FLINT
round trips on the 5-50×6-5 difference networks (``tests/semialgebraic/test_bab_symbolic.py``
holds the old outputs bit for bit).
"""

from __future__ import annotations

from math import lcm

import numpy as np

from algebra.kernel.limbs import LimbArith
from algebra.rationals import Q

from ..budget import checkpoint

__all__ = ["GRID_BITS", "IntLayers", "SymbolicNet", "back_substitute", "relu_lines", "down", "up",
           "clip"]

GRID_BITS = 40
_G = 1 << GRID_BITS
_CHUNK = 1 << 22        # rows of one back-substitution chunk: about this many limb products each
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
        lo = 0 * lo
    elif side == 0 and hi > 0:
        hi = 0 * hi
    return lo, hi


def _lcm_den(values):
    return lcm(1, *(int(v.q) for v in values))


class IntLayers:
    """Affine layers (rows *Ws*, biases *bs*, exact) in integer form, converted once: per layer
    ``Nrows`` (numpy object array) with ``W = Nrows / den`` and ``b = bnum / bden``, and the
    same as int64 limbs (:class:`algebra.kernel.limbs.LimbArith`, one base for every product of
    the back-substitution: its largest inner dimension is the largest width)."""

    def __init__(self, Ws, bs):
        self.Ws, self.bs = Ws, bs
        self.L = len(Ws)
        self.Nrows, self.den, self.bnum, self.bden = [], [], [], []
        widths = [1] + [len(W) for W in Ws] + [len(W[0]) for W in Ws if W]
        self.arith = LimbArith(np, max(widths), checkpoint)
        self._limbs, self._right, self._boxes = [], [], None
        for W, b in zip(Ws, bs):        # (a checkpoint between the steps: a 100-1000-10
            checkpoint()                # pair of large common denominators takes seconds)
            d = _lcm_den(v for row in W for v in row)
            self.den.append(d)
            ints = [[int(v * d) for v in row] for row in W]
            self.Nrows.append(np.array(ints, dtype=object).reshape(len(ints), -1))
            e = _lcm_den(b)
            self.bden.append(e)
            self.bnum.append(np.array([int(v * e) for v in b], dtype=object))
            checkpoint()
            # the right operand of a step: [N | bnum], so M·N and M·bnum are one product
            self._limbs.append(self.arith.split(self.Nrows[-1]))
            checkpoint()
            both = np.concatenate([self.Nrows[-1], self.bnum[-1].reshape(-1, 1)], axis=1)
            self._right.append(self.arith.prepare(self.arith.split(both)))
        self.images = []
        for N, d in zip(self.Nrows, self.den):
            checkpoint()
            self.images.append(IntImage(self.arith, N, d))

    def box_ints(self, box):
        """``(lo, hi, E)``: the box as integer lists over one denominator ``E`` (remembered for
        the last box: compared by value, as hashing rationals costs more than converting)."""
        last = self._boxes
        if last is None or not (last[0] is box or last[0] == list(box)):
            E = _lcm_den(v for pair in box for v in pair)
            last = self._boxes = (list(box), ([int(a * E) for a, _ in box], [int(b * E) for _, b in box], E))
        return last[1]

    def image(self, l, lo, hi, E):
        """The pre-activations of layer *l* over the box ``[lo / E, hi / E]`` (integer lists)
        of its inputs, rounded outward to the grid: two lists of grid integers."""
        low, upp, F = self.images[l].bounds(lo, hi, E)
        e = self.bden[l]
        b = self.bnum[l] * F
        return _floor_div((low * e + b) * _G, F * e), _ceil_div((upp * e + b) * _G, F * e)

    def rows_of(self, l, rows):
        """``(λ, scale, const, cden)``: the rows *rows* of layer *l* and their negations, ready
        for :func:`back_substitute` (``λ / scale`` on the post-activations of layer ``l − 1``,
        λ as limbs; the constants ``const / cden``, an object array)."""
        A = self.arith
        Nl = A.take(self._limbs[l], rows)
        bl = self.bnum[l][rows]
        return A.concat([Nl, A.neg(Nl)]), self.den[l], np.concatenate([bl, -bl]), self.bden[l]

    def relax(self, su, sl, tu, tl, caps):
        """The limb form of one layer's lines (integer lists in the form of
        :func:`back_substitute`; *tl* None when all zero) and caps."""
        A = self.arith
        S = [A.split(_ints(v).reshape(1, -1)) for v in (su, sl)]
        n = max(len(S[0]), len(S[1]))
        S = (A.pad(S[0], n), A.pad(S[1], n))                 # one number of limbs: picked per entry
        col = lambda v: A.prepare(A.split(_ints(v).reshape(-1, 1)))  # noqa: E731
        return (S, col(tu), None if tl is None or not any(tl) else col(tl), col(caps))


class IntImage:
    """The exact interval image of boxes under one integer matrix ``N / den`` (limbs: its
    positive and negative parts side by side, transposed, prepared once)."""

    def __init__(self, A, N, den):
        self.A, self.den, self.n = A, den, N.shape[0]
        pos = np.where(N > 0, N, 0)
        self.right = A.prepare(A.split(np.concatenate([pos.T, (N - pos).T], axis=1)))

    def bounds(self, lo, hi, E):
        """``(low, up, F)``: per row the exact minimum ``low / F`` and maximum ``up / F`` of
        ``N / den · x`` over ``lo / E <= x <= hi / E`` (object arrays, ``F = den · E``)."""
        A, n = self.A, self.n
        if not len(lo):
            z = np.zeros(n, dtype=object)
            return z, z.copy(), self.den * E
        P = A.ints(A.matmul(A.split(np.array([list(hi), list(lo)], dtype=object)), self.right))
        return P[1, :n] + P[0, n:], P[0, :n] + P[1, n:], self.den * E


def back_substitute(lay, top, lines, box, lam, scale, const, cden, cancel=checkpoint):
    """Upper bounds of ``λ_i / scale · h_top + const_i / cden`` over a node, going down the
    linear relaxations of layers ``top … 0`` of *lay* (an :class:`IntLayers`) to the box.

    ``lines[k]`` (:meth:`IntLayers.relax`): per neuron of layer ``k`` the post-activation lies
    between ``sl·z + tl`` and ``su·z + tu`` (slopes times ``2^P``, constants times ``2^(2P)``,
    integers) and below its cap (times ``2^P``), used to round the coefficients down to the
    grid (the module docstring).  λ is a limb array (:mod:`algebra.kernel.limbs`); every
    product is exact (that module's bounds), the coefficients are floored to the grid exactly
    (:meth:`~algebra.kernel.limbs.LimbArith.floor_div`: a shift when ``scale · den_k`` is a
    power of two), every constant is an exact integer over a known denominator, summed once at
    the end.  The rows go in chunks (*cancel* is called between chunks and steps).  Exact;
    returns ``(num, D)``: the bounds are ``num / D`` (an object array, one integer ``D``)."""
    A = lay.arith
    R = lam[0].shape[0]
    widest = max([1] + [len(W) * (len(W[0]) + 1) if W else 1 for W in lay.Ws[:top + 1]])
    step = max(8, _CHUNK // widest)
    blo, bhi, bd = lay.box_ints(box)
    blo, bhi = (A.prepare(A.split(np.array(v, dtype=object).reshape(-1, 1))) for v in (blo, bhi))
    terms = [(const, cden)]
    parts = []
    for r0 in range(0, R, step):
        part = _substitute_rows(lay, top, lines, A.take(lam, slice(r0, r0 + step)), scale,
                                (blo, bhi, bd), cancel)
        parts.append(part)
    # one integer vector per denominator, chunks stacked
    for t in range(len(parts[0])):
        terms.append((np.concatenate([p[t][0] for p in parts]), parts[0][t][1]))
    D = 1
    for _, d in terms:
        D = lcm(D, d)
    return sum((v * (D // d) for v, d in terms[1:]), terms[0][0] * (D // terms[0][1])), D


def _substitute_rows(lay, top, lines, lam, scale, box, cancel):
    """:func:`back_substitute` of a chunk of rows: the list of ``(integer vector, denominator)``
    whose sum is each row's bound (the box maximum last)."""
    A = lay.arith
    out = []
    for k in range(top, -1, -1):
        cancel()
        S, tu, tl, _ = lines[k]
        pos, neg = A.signs(lam)
        lp = A.keep(lam, pos)
        out.append((_column(A, A.matmul(lp, tu)), scale * _G * _G))
        if tl is not None:
            out.append((_column(A, A.matmul(A.keep(lam, neg), tl)), scale * _G * _G))
        # M = λ·su where λ > 0, λ·sl elsewhere (scale · 2^P)
        M = A.mul(lam, [np.where(pos, u, v) for u, v in zip(*S)])
        MNb = A.matmul(M, lay._right[k])
        m = MNb[0].shape[1] - 1
        out.append((_column(A, [h[:, m:] for h in MNb]), scale * _G * lay.bden[k]))
        MN = _trim([h[:, :m] for h in MNb])
        s2 = scale * _G * lay.den[k]                          # the scale of MN
        if k > 0:
            lam, rem = A.floor_div(MN, scale * lay.den[k])    # floor: grid 2^-P; rem >= 0
            out.append((_column(A, A.matmul(rem, lines[k - 1][3])), s2 * _G))
            scale = _G
        else:
            lam, scale = MN, s2
    blo, bhi, bd = box
    pos, neg = A.signs(lam)
    tot = A.add(A.matmul(A.keep(lam, pos), bhi), A.matmul(A.keep(lam, neg), blo))
    out.append((_column(A, tot), scale * bd))
    return out


def _floor_div(a, d):
    return a // d


def _ceil_div(a, d):
    return -((-a) // d)


def _grid(pairs):
    """Grid numbers ``(lo, hi)`` as the integers ``(lo · 2^P, hi · 2^P)``."""
    return [(int(lo * _G), int(hi * _G)) for lo, hi in pairs]


def _column(A, x):
    return A.ints(x)[:, 0]


def _trim(x):
    while len(x) > 1 and not x[-1].any():
        x.pop()
    return x


def _ints(v):
    return np.array([int(t) for t in v], dtype=object)


def relu_lines(layer):
    """The DeepPoly lines of every neuron of *layer* (intervals as grid integers) in the integer
    form of :func:`back_substitute`, as lists ``(su, sl, tu, tl, caps)`` (caps ``max(hi, 0) ·
    2^P``; *tl* None: all zero); :meth:`IntLayers.relax` makes their limb form."""
    su, sl, tu = _relaxation(layer)
    return su, sl, tu, None, [max(hi, 0) for _, hi in layer]


class SymbolicNet(IntLayers):
    """A network ``D`` (rows *Ws*, biases *bs*) prepared for repeated symbolic bounds."""

    # -- one node -------------------------------------------------------------------------
    def intervals(self, box, splits, cancel=None, parent=None, layer=None, reuse_layer=True, upto=None):
        """Pre-activation intervals of every layer (grid numbers), or None when a split empties
        one.  *splits* maps ``(l, j)`` to a side; *cancel* (default
        :func:`semialgebraic.budget.checkpoint`: an active exhausted budget raises
        ``BudgetExhausted``) is called between layers and between the back-substitution steps.
        With *parent* (the intervals of the same box under the splits minus some splits of
        layer *layer*), the layers below *layer* are reused (they do not depend on splits at or
        above it: the same numbers), and so is layer *layer* before its clips (its numbers
        depend on the layers below only), clipped again — unless *reuse_layer* is False (the
        caller changed the layers below *layer*, e.g. LP tightening: layer *layer* is then
        recomputed from them).  With *upto* only the layers up to *upto* are returned (the
        incremental recomputation of :mod:`.tighten`: one layer at a time, each from the final
        layers below it).  The work is on grid integers (``2^P`` times the grid numbers), each
        layer turned into ``Q`` once."""
        L = self.L
        cancel = cancel or checkpoint
        ivs = [] if parent is None else [list(v) for v in parent[:layer]]
        if parent is not None and layer is not None and layer < L - 1 and reuse_layer:
            # layer *layer* itself before its clips is the parent's too (it depends on the layers
            # below only): the parent's clipped intervals, clipped again by these splits
            cur = [clip(lo, hi, splits.get((layer, j))) for j, (lo, hi) in enumerate(parent[layer])]
            if any(lo > hi for lo, hi in cur):
                return None
            ivs.append(cur)
        grid = [_grid(v) for v in ivs]
        lines = [self.relax(*relu_lines(g)) for g in grid]
        for l in range(len(ivs), L if upto is None else upto + 1):
            if l == 0:
                lo, hi = self.image(0, *self.box_ints(box))
            else:
                lo, hi = self.image(l, [max(a, 0) for a, _ in grid[-1]], [max(b, 0) for _, b in grid[-1]], _G)
            cur = list(zip(lo.tolist(), hi.tolist()))
            if l > 0:
                rows = [j for j, (a, b) in enumerate(cur) if l == L - 1 or a < 0 < b]
                if rows:
                    lam, scale, const, cden = self.rows_of(l, rows)
                    num, D = back_substitute(self, l - 1, lines, box, lam, scale, const, cden, cancel)
                    ub = _ceil_div(num * _G, D).tolist()
                    n = len(rows)
                    for t, j in enumerate(rows):
                        cur[j] = (max(cur[j][0], -ub[n + t]), min(cur[j][1], ub[t]))
            if l == L - 1 and any(a > b for a, b in cur):
                # an output's lower bound above its upper bound (each valid on the node): the
                # node is empty (an equivalent split pair on a box left a leaf of output interval
                # [8.03, 2^-40] with its upper bound 2^-40 > 0, and equiv undecided, 2026-12-04)
                return None
            if l < L - 1:
                cur = [clip(a, b, splits.get((l, j))) for j, (a, b) in enumerate(cur)]
                if any(a > b for a, b in cur):
                    return None
                lines.append(self.relax(*relu_lines(cur)))
            grid.append(cur)
            ivs.append([(Q(a, _G), Q(b, _G)) for a, b in cur])
            cancel()
        return ivs


def _relaxation(layer):
    """Integer slopes (``su``, ``sl`` times ``2^P``) and the upper lines' constants ``−su·lo``
    times ``2^(2P)`` of a layer given as grid integers (``lo · 2^P``, ``hi · 2^P``): the slope
    ``up(hi / (hi − lo))`` is the exact integer ceiling of ``hi · 2^P / (hi − lo)``."""
    su, sl, tu = [], [], []
    for lo, hi in layer:
        if lo >= 0:
            su.append(_G); sl.append(_G); tu.append(0)
        elif hi <= 0:
            su.append(0); sl.append(0); tu.append(0)
        else:
            s = -((-hi * _G) // (hi - lo))
            su.append(s)
            sl.append(_G if hi > -lo else 0)
            tu.append(s * -lo)
    return su, sl, tu


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
