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

The last δ is ``a − b`` itself: its interval bounds ``± (a_o − b_o)`` on the node.  A float16 copy
has a small ``A − B``, so δ stays small where the plain intervals of ``D`` are wide.
"""

from __future__ import annotations

from algebra.linalg import interval_image
from algebra.rationals import Q

from ..budget import checkpoint
from .symbolic import down, up

__all__ = ["DifferentialNet", "relu_difference"]

_ZERO = Q(0)


def _relu(v):
    return v if v > 0 else _ZERO


def _meet(cur, lo, hi):
    lo2, hi2 = max(cur[0], lo), min(cur[1], hi)
    return cur if lo2 > hi2 else (lo2, hi2)


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


class DifferentialNet:
    """The blocks ``A_l`` (of a) and ``B_l`` (of b) of a difference network, and ``A_l − B_l``."""

    def __init__(self, Ws, bs):
        L = len(Ws)
        self.ok = L >= 2
        if not self.ok:
            return
        self.A, self.E, self.bias = [], [], []
        m_prev = None
        for l, (W, b) in enumerate(zip(Ws, bs)):
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
            self.A.append(A)
            self.E.append([[u - v for u, v in zip(ra, rb)] for ra, rb in zip(A, B)])
            self.bias.append(bias)
            m_prev = len(A)

    def deltas(self, box, ivs):
        """The δ interval of every layer (the last is ``a − b`` on the node)."""
        out = []
        L = len(self.A)
        d = interval_image(self.E[0], box, self.bias[0])
        for l in range(L):
            checkpoint()
            if l > 0:
                prev, n = ivs[l - 1], len(ivs[l - 1]) // 2
                dh = [relu_difference(prev[j], prev[n + j], out[-1][j]) for j in range(n)]
                hb = [(_relu(lo), _relu(hi)) for lo, hi in prev[n:]]
                u = interval_image(self.A[l], dh, [_ZERO] * len(self.A[l]))
                v = interval_image(self.E[l], hb, self.bias[l])
                d = [(p[0] + q[0], p[1] + q[1]) for p, q in zip(u, v)]
            cur = ivs[l]
            if l < L - 1:
                n = len(cur) // 2
                d = [_meet(dj, cur[j][0] - cur[n + j][1], cur[j][1] - cur[n + j][0])
                     for j, dj in enumerate(d)]
            else:
                d = [_meet(dj, lo, hi) for dj, (lo, hi) in zip(d, cur)]
            out.append([(down(lo), up(hi)) for lo, hi in d])
        return out

    def bound(self, box, ivs, c):
        """Upper bound of ``c · (a − b)`` on the node (c a signed unit vector or any vector)."""
        last = self.deltas(box, ivs)[-1]
        return sum(((cj * hi if cj > 0 else cj * lo) for cj, (lo, hi) in zip(c, last) if cj != 0),
                   _ZERO)
