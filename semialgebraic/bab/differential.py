r"""Differential bounds for near copies (the idea of ReluDiff/NeuroDiff), exact over Q.

On the difference network ``D = a − b`` (:func:`algebra.kernel.difference_network`: a's neurons
first, then b's, in every hidden layer) the neuron ``j`` of ``a`` is paired with the neuron ``j``
of ``b`` and the difference ``δ_l = z_{a,l} − z_{b,l}`` is bounded layer by layer:

* ``δ_0 = (A_0 − B_0) x + (α_0 − β_0)`` over the box (exact interval image);
* ``Δh = relu(z_a) − relu(z_b)`` lies in ``[min(0, δlo), max(0, δhi)]`` and in ``[relu(la) −
  relu(ub), relu(ua) − relu(lb)]``; when ``z_a >= 0``, ``Δh = min(δ, z_a)``; when ``z_b >= 0``,
  ``Δh = max(δ, −z_b)`` (these intersections are taken in that order, each skipped when it
  would empty the interval);
* ``δ_{l+1} = A_{l+1} Δh + (A_{l+1} − B_{l+1}) relu(z_b) + (α − β)`` by interval arithmetic,
  intersected with ``[la − ub, ua − lb]`` from the node's intervals (skipped when it would empty
  the interval), and rounded outward to the grid of :mod:`.symbolic`.

With the back-substitution (``symbolic``) each layer's δ is also kept inside the plain chain's
(the interval rules alone, from the plain δ below: :meth:`DifferentialNet.state`), or replaced by
it when the two are disjoint.  On a non-empty node the rules are monotone in δ, so this only acts
on nodes that are empty (a rule's intersection would be empty and is skipped, which is sound but
can leave the symbolic δ outside the plain one): the symbolic δ is never looser than the plain.

The last δ is ``a − b`` itself: its interval bounds ``± (a_o − b_o)`` on the node.  A float16 copy
has a small ``A − B``, so δ stays small where the plain intervals of ``D`` are wide.

Where it stops biting (measured 2026-12-03 on ACAS Xu's full normalised box against its float16
copy, no LP tightening; sampled: 50 000 uniform points).  Per hidden layer 2..6 the symbolic
intervals of ``z`` (the first layer's: 1.05×) are wider than the sampled ranges by 2, 8, 30, 130,
940× (mean widths 11.9, 79.6, 468, 3.8e3, 2.5e4) and δ's by 3.6, 16, 74, 330, 2 000× (largest |δ|
9.5e-3, 0.15, 2.3, 37, 603 against 5.7e-3, 1.3e-2, 5.1e-2, 0.19, 0.70): the term ``(A − B) h_b``
carries the loose ``h_b`` and ``A Δh`` multiplies the loose δ below, each layer.  On cubes of
relative width ``w`` around the float maximiser (200 000 samples and their ascents: |a_2 − b_2| =
1.82e-2 at (−0.3162, −0.2379, −0.3577, 0.4881, 0.4866); exact lower bound of the search 1.8971e-2),
clipped to the box, the last δ's largest end is 88, 38, 18, 6.8, 2.6, 1.4, 1.09, 0.43, 0.069,
0.026, 0.021, 0.018 for ``w = 1, 1/2, …, 1/2048`` (symbolic output intervals 2 911 … 0.12; interval
rules alone 987 … 0.020; 0.17–0.33 CPU s a cell): within twice the maximum from ``w = 1/512``,
512^5 ≈ 3.5·10^13 cells if all of the box needed that width.

What does not bite (measured 2026-12-03 in floats by ``benchmarks/probe_acas.py``, the same
chain in torch without the plain-chain meet: 155.8 at the full box's root; load 4–6).  The
looseness is in the δ chain itself, not in the intermediate ``z`` bounds: fed with the *sampled*
ranges of ``z`` (unsound, a ceiling for any z tightening) the last hidden layer's largest |δ| is
603 -> 129 on the full box, 65.8 -> 14.6 and 9.5 -> 3.6 on the cubes 1/4 and 1/16 around the
maximiser, against sampled 0.71, 0.81, 0.34 (still 180×, 18×, 10×).  α-CROWN lower slopes (any
slope in [0, 1], one per neuron and bound target, 20–60 projected Adam steps) for the z
intervals of ``D`` and for ``h_b`` in the δ network: objective 155.8 -> 133.9 (full box), 17.7 ->
14.4 (1/4), 2.63 -> 1.82 (1/16), at 6–12 CPU s of floats a cell against 0.2–0.9 for DeepPoly
(the exact node: 0.17–0.33); one slope per neuron shared by every target, optimised end to end
on the objective: ≤ 4 %.  CROWN's parallel lower slope (``sl = su``) instead of DeepPoly's 0/1:
worse (88.0 -> 97.1 on the cube 1/1 clipped around the maximiser, 2.63 -> 3.66 at 1/16).
Input-split axis by a lookahead (the axis whose larger half has the least float bound, 10
bounds a split) against the smear of :meth:`.search.Engine.smear_axis`, best-first on the
largest leaf, 64 splits: 51.3 against 49.4 (widest 54.7; smear 31.5 after 256): no better at
6× the bounds.  Exact, the LP tightening of :mod:`.tighten` at one node (``Engine(…,
tighten_above=None)``, load 3): the default cap (16 LPs, ×4 at a root) changes nothing on the
cubes 1/4 and 1/16 (last δ 17.68, 2.625: the float probe's figures exactly); 400 z LPs: 17.68 ->
14.58 (28 CPU s) and 2.625 -> 1.544 (9.3 CPU s, a node 0.2); on the cube 1/64 the default cap
1.094 -> 0.687 (0.8 CPU s); with δ LPs on too (``delta_cap`` 100 or 400) the cube 1/16 reads
1.722, *above* 1.544: a tighter δ interval can pick looser lines (:func:`delta_lines` chooses
at the interval's middle), sound but not monotone.  None of these comes within 10^2 of the
~2000× missing on the full box.
"""

from __future__ import annotations


from algebra.rationals import Q

from ..budget import checkpoint
from .symbolic import GRID_BITS, IntLayers, _grid, back_substitute, down, relu_lines, up

__all__ = ["DifferentialNet", "delta_lines", "relu_difference"]

_ZERO, _ONE = Q(0), Q(1)
_G = 1 << GRID_BITS


def _relu(v):
    return v if v > 0 else _ZERO


def _meet(cur, lo, hi):
    """``cur ∩ [lo, hi]``, or *cur* when that is empty."""
    lo2, hi2 = max(cur[0], lo), min(cur[1], hi)
    return cur if lo2 > hi2 else (lo2, hi2)


def _within(cur, plain):
    """``cur ∩ plain``, or *plain* when that is empty (then the node is empty)."""
    lo2, hi2 = max(cur[0], plain[0]), min(cur[1], plain[1])
    return plain if lo2 > hi2 else (lo2, hi2)


def relu_difference(za, zb, d):
    """Bounds of ``relu(z_a) − relu(z_b)`` from the intervals of ``z_a``, ``z_b`` and ``δ``."""
    (la, ua), (lb, ub), (dl, du) = za, zb, d
    cur = (min(_ZERO, dl), max(_ZERO, du))
    cur = _meet(cur, _relu(la) - _relu(ub), _relu(ua) - _relu(lb))
    if la >= 0:
        cur = _meet(cur, min(dl, la), min(du, ua))
    if lb >= 0:
        cur = _meet(cur, max(dl, -ub), max(du, -lb))
    return cur


def _narrowed(za, zb, d):
    (la, ua), (lb, ub), (dl, du) = za, zb, d
    na, nb = (max(la, lb + dl), min(ua, ub + du)), (max(lb, la - du), min(ub, ua - dl))
    if na[0] > na[1] or nb[0] > nb[1]:
        return za, zb
    return na, nb


def delta_lines(za, zb, d):
    """Lines ``(su, tu)``, ``(sl, tl)`` with ``sl·δ + tl <= relu(z_a) − relu(z_b) <= su·δ + tu``
    on the node (NeuroDiff-style), from the intervals of ``z_a``, ``z_b`` and ``δ`` (grid
    numbers), and the interval ``(lo, hi)`` of :func:`relu_difference`.

    Candidates for the upper line: the constant ``hi``; ``δ`` when ``z_a >= 0`` (then ``Δh = δ
    + min(z_b, 0)``); ``δ + max(−la, 0)`` when ``z_b >= 0`` (then ``Δh = δ + max(−z_a, 0)``); the
    chord of ``max(0, δ)`` on ``[dl, du]`` (slope rounded up to the grid).  For the lower line:
    ``lo``; ``δ + min(lb, 0)`` when ``z_a >= 0``; ``δ`` when ``z_b >= 0``; the chord of ``min(0,
    δ)`` (``s·(δ − du)``, ``s`` rounded up).  The line of least (greatest) value at the middle of
    ``[dl, du]`` is taken, the first on a tie (the checker makes the same choice).  The
    intervals are first narrowed by each other: ``z_a ∈ z_b + δ``, ``z_b ∈ z_a − δ`` (from the
    values before; skipped when that empties one)."""
    za, zb = _narrowed(za, zb, d)
    (la, _), (lb, _), (dl, du) = za, zb, d
    lo, hi = relu_difference(za, zb, d)
    ups, lows = [(_ZERO, hi)], [(_ZERO, lo)]
    if la >= 0:
        ups.append((_ONE, _ZERO)); lows.append((_ONE, min(lb, _ZERO)))
    if lb >= 0:
        ups.append((_ONE, max(-la, _ZERO))); lows.append((_ONE, _ZERO))
    if dl >= 0:
        ups.append((_ONE, _ZERO)); lows.append((_ZERO, _ZERO))
    elif du <= 0:
        ups.append((_ZERO, _ZERO)); lows.append((_ONE, _ZERO))
    else:
        s = up(du / (du - dl))
        ups.append((s, -s * dl))
        s = up(-dl / (du - dl))
        lows.append((s, -s * du))
    mid = (dl + du) / 2
    best_u = min(ups, key=lambda st: st[0] * mid + st[1])
    best_l = max(lows, key=lambda st: st[0] * mid + st[1])
    return best_u, best_l, (lo, hi)


class DifferentialNet:
    """The blocks ``A_l`` (of a) and ``B_l`` (of b) of a difference network, ``A_l − B_l``, and
    the network of ``(δ_l, z_{b,l})`` for the symbolic δ bounds (the module docstring)."""

    def __init__(self, Ws, bs):
        L = len(Ws)
        self.ok = L >= 2
        if not self.ok:
            return
        self.A, self.E, self.bias = [], [], []
        Tw, Tb = [], []
        m_prev = None
        for l, (W, b) in enumerate(zip(Ws, bs)):
            checkpoint()
            if l == 0:
                n = len(W) // 2
                A, B = W[:n], W[n:]
                bias = [u - v for u, v in zip(b[:n], b[n:])]
            elif l < L - 1:
                n = len(W) // 2
                A = [row[:m_prev] for row in W[:n]]
                B = [row[m_prev:] for row in W[n:]]
                bias = [u - v for u, v in zip(b[:n], b[n:])]
            else:
                A = [row[:m_prev] for row in W]
                B = [[-v for v in row[m_prev:]] for row in W]
                bias = list(b)
            E = [[u - v for u, v in zip(ra, rb)] for ra, rb in zip(A, B)]
            self.A.append(A)
            self.E.append(E)
            self.bias.append(bias)
            if l == 0:
                Tw.append(E + B); Tb.append(bias + list(b[n:]))
            elif l < L - 1:
                Tw.append([ra + re for ra, re in zip(A, E)] + [[_ZERO] * m_prev + rb for rb in B])
                Tb.append(bias + list(b[n:]))
            else:
                Tw.append([ra + re for ra, re in zip(A, E)]); Tb.append(bias)
            m_prev = len(A)
        self.T = IntLayers(Tw, Tb)

    def deltas(self, box, ivs, symbolic=True, parent=None, layer=0):
        """The δ interval of every layer (the last is ``a − b`` on the node); with *symbolic*
        each layer's interval rules are intersected with the back-substitution of ``± δ``.
        With *parent* (the :meth:`state` of the same box under fewer splits, none below layer
        *layer*) the layers below *layer* are reused (the same numbers)."""
        return self.state(box, ivs, symbolic, parent, layer)[0]

    def state(self, box, ivs, symbolic=True, parent=None, layer=0, hook=None):
        """``(deltas, lines, plain)``: :meth:`deltas`, the δ network's relaxations (limb form,
        :meth:`.symbolic.IntLayers.relax`) and, with *symbolic*, the plain δ chain (interval
        rules alone) that bounds every layer's δ (module docstring; None without *symbolic*).  *hook* (LP tightening, :meth:`.tighten.Tightener.
        deltas`) maps ``(l, δ of hidden layer l, δ of the layers below)`` to layer *l*'s final δ
        (intersected with certified bounds) before its lines are made."""
        L = len(self.A)
        if parent is None:
            layer = 0
        out = [] if parent is None else list(parent[0][:layer])
        lines = [] if parent is None else list(parent[1][:layer])
        plain = None if not symbolic else [] if parent is None else list(parent[2][:layer])
        for l in range(layer, L):
            checkpoint()
            d = self._rules(l, box, ivs, out[-1] if l else None)
            if symbolic:
                p = d if l == 0 else self._rules(l, box, ivs, plain[-1])
                plain.append(p)
            if symbolic and l > 0:
                lam, scale, const, cden = self.T.rows_of(l, list(range(len(d))))
                num, D = back_substitute(self.T, l - 1, lines, box, lam, scale, const, cden)
                ub = [Q(v, _G) for v in (-((-num * _G) // D)).tolist()]   # up(num / D)
                k = len(d)
                d = [_within(_meet(dj, -ub[k + j], ub[j]), pj) for j, (dj, pj) in enumerate(zip(d, p))]
            if hook is not None and l < L - 1:
                d = hook(l, d, out)
            out.append(d)
            if symbolic and l < L - 1:
                lines.append(self.T.relax(*_paired_lines(ivs[l], d)))
        return out, lines, plain

    def _rules(self, l, box, ivs, below):
        """Layer *l*'s δ by the interval rules (module docstring) from the δ of layer ``l − 1``
        (*below*), intersected with the node's intervals and rounded outward to the grid."""
        if l == 0:
            lo, hi, E = self.T.box_ints(box)
        else:
            prev, n = ivs[l - 1], len(ivs[l - 1]) // 2
            dh = _grid([relu_difference(prev[j], prev[n + j], below[j]) for j in range(n)])
            hb = [(max(a, 0), max(b, 0)) for a, b in _grid(prev[n:])]
            lo, hi, E = [a for a, _ in dh + hb], [b for _, b in dh + hb], _G
        # the δ rows of the δ network: A_l Δh + (A_l − B_l) h_b + (α_l − β_l), exact
        k = len(self.A[l])
        low, upp, F = self.T.images[l].bounds(lo, hi, E)
        e = self.T.bden[l]
        b = self.T.bnum[l] * F
        d = [(Q(u, F * e), Q(v, F * e)) for u, v in zip((low * e + b)[:k].tolist(), (upp * e + b)[:k].tolist())]
        cur = ivs[l]
        if l < len(self.A) - 1:
            n = len(cur) // 2
            d = [_meet(dj, cur[j][0] - cur[n + j][1], cur[j][1] - cur[n + j][0])
                 for j, dj in enumerate(d)]
        else:
            d = [_meet(dj, lo, hi) for dj, (lo, hi) in zip(d, cur)]
        return [(down(lo), up(hi)) for lo, hi in d]

    def bound(self, box, ivs, c):
        """Upper bound of ``c · (a − b)`` on the node (c a signed unit vector or any vector)."""
        last = self.deltas(box, ivs)[-1]
        return sum(((cj * hi if cj > 0 else cj * lo) for cj, (lo, hi) in zip(c, last) if cj != 0),
                   _ZERO)


def _paired_lines(cur, d):
    """The lines of layer ``(Δh, h_b)`` of the δ network in :func:`back_substitute`'s integer
    form (Δh: :func:`delta_lines`; h_b: DeepPoly) and its caps: ``(su, sl, tu, tl, caps)``."""
    n = len(d)
    su_b, sl_b, tu_b, _, cap_b = relu_lines(_grid(cur[n:]))
    su, sl, tu, tl, cap = [], [], [], [], []
    for j in range(n):
        (a, t), (b, r), (_, hi) = delta_lines(cur[j], cur[n + j], d[j])
        su.append(int(a * _G)); tu.append(int(t * _G * _G))
        sl.append(int(b * _G)); tl.append(int(r * _G * _G))
        cap.append(int(hi * _G))
    return su + su_b, sl + sl_b, tu + tu_b, tl + [0] * n, cap + cap_b
