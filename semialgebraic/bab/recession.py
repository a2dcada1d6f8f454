r"""``sup |a − b|`` on an unbounded domain: finite or +∞, decided exactly (three-layer-fibers R28).

The domain ``P = {x : lo <= x <= hi (sides may be open), a_k·x <= b_k}`` has the recession cone
``C = {r : r_i >= 0 where lo_i is finite, r_i <= 0 where hi_i is finite, a_k·r <= 0}``.  The
bias-free difference ``f_0`` (every bias of ``D = a − b`` set to 0) is the recession function
of ``f = a − b``: ``sup_P |f| < ∞`` iff ``f_0 = 0`` on ``C`` (R28).  ``f_0`` is positively
homogeneous, so ``f_0 = 0`` on ``C`` iff ``max |f_0| = 0`` on the bounded ``C ∩ [−1, 1]^d``: one
branch-and-bound run (:func:`.diff.bounded_diff`, threshold 0) decides it, with a ``bab_bound``
certificate either way.

* ``f_0 = 0`` on C: finite.  Upper bound: ``P ⊆ B_q + C`` for a box ``B_q`` (the bounded sides of
  the box, one point per open side; or one point ``p`` with ``a·p + c <= 0`` for every row
  ``a·x + c >= 0`` of P when P has half-spaces), and ``|f(q + r)| <= E_L`` per output with
  ``E_0 = max_{q in B_q} |q|``, ``E_l = |W_l| E_{l−1} + |b_l|`` (relu is 1-Lipschitz, ``f_0(r) = 0``).
  Lower bound: exact values at points of P.  When that bound is loose (or leaves ε undecided):
  a body ``‖x‖∞ <= R`` by branch and bound and a tail cover of stable cells (R29 for any
  weights: a − b constant on each cell's tail), kept when tighter; networks of the same weights
  go there at once (R29's ρ rule).  Where the cover's bound stays above max(body, lower) (a
  kink running to infinity cuts cells that boxes over ``(u, s)`` cannot separate) or a cell
  stays unstable, the tail is bounded by branch and bound on the homogenised network instead
  (three-layer-fibers R33, :func:`homogenised_tail`): one bounded box per face ``u_i = ±1``.
* ``|f_0(r)| > 0`` at ``r in C``: +∞, with a ray ``x0 + t r`` (``x0 in P``) and the exact ``t1`` from
  which the activation pattern of ``D`` along the ray is fixed; ``D_o`` is then ``u + t v`` with
  slope ``v = f_{0,o}(r) != 0``.

The certificate is a ``bab_recession`` (:mod:`semialgebraic.verify.bab_recession`).
"""

from __future__ import annotations

import heapq
import re

from algebra.kernel import difference_network
from algebra.kernel.certificate_schemas import CLAIMS
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q

from ..budget import Budget
from .diff import BabResult, bounded_diff, domain_point

__all__ = ["cone_domain", "bias_free", "apex_box", "deviation_bound", "ray_start", "unbounded_diff",
           "same_weights", "same_weights_deepened", "tail_faces", "tail_cells", "tail_points", "body_domain"]

_Z = Q(0)
_TAIL_CELLS = 4000      # at most this many cells in the tail's cover (work, not the clock)


def cone_domain(dom: Domain) -> Domain:
    """``C ∩ [−1, 1]^d`` for the recession cone ``C`` of *dom*.

    >>> cone_domain(Domain.orthant(2)).to_json()["lo"], cone_domain(Domain.orthant(2)).to_json()["hi"]
    (['0', '0'], ['1', '1'])
    """
    lo = [_Z if v is not None else Q(-1) for v in dom.lo]
    hi = [_Z if v is not None else Q(1) for v in dom.hi]
    return Domain(lo, hi, [(a, _Z) for a, _ in dom.halfspaces])


def bias_free(net: Network) -> Network:
    """*net* with every bias 0 (its recession function)."""
    return Network(list(net.weights), [[_Z] * len(b) for b in net.biases])


def apex_box(dom: Domain):
    """A box ``B_q`` (list of ``(lo, hi)``) with ``dom ⊆ B_q + C``, or None when none is found.

    With half-spaces: ``[lo_i, hi_i]`` on the coordinates ``I`` bounded on both sides (where
    ``C`` has ``r_i = 0``) and one point ``p_J`` on the others, found by an exact LP with
    ``g_J·p_J <= −c − max_{x_I in box} g_I·x_I`` for every row ``g·x + c >= 0`` of the domain
    with ``g_J != 0``: then ``x = (x_I, p_J) + (0, x_J − p_J)`` with the second part in ``C``.
    None when that LP is infeasible (e.g. a slab ``|x_1 + x_2| <= 1``)."""
    if not dom.halfspaces:
        out = []
        for lo, hi in zip(dom.lo, dom.hi):
            if lo is not None and hi is not None:
                out.append((lo, hi))
            else:
                v = lo if lo is not None else hi if hi is not None else _Z
                out.append((v, v))
        return out
    from ..lp import feasible
    two = [lo is not None and hi is not None for lo, hi in zip(dom.lo, dom.hi)]
    A, rhs = [], []
    for r in dom.rows():
        g = [_Z if t else v for v, t in zip(r[:-1], two)]
        if all(v == 0 for v in g):
            continue                 # a row on I only: its cone row holds with r_I = 0
        top = sum((max(v * dom.lo[i], v * dom.hi[i]) for i, (v, t) in enumerate(zip(r[:-1], two))
                   if t and v != 0), _Z)
        A.append(g)
        rhs.append(-r[-1] - top)
    res = feasible(A_le=A, b_le=rhs, n=dom.dim) if A else None
    if res is not None and not res.feasible:
        return None
    p = res.point if res is not None else [_Z] * dom.dim
    return [(dom.lo[i], dom.hi[i]) if t else (p[i], p[i]) for i, t in enumerate(two)]


def deviation_bound(D: Network, qbox) -> list:
    """``E_L`` per output: ``|D(q + r) − D_0(r)| <= E_L`` for ``q in qbox`` and every ``r``."""
    e = [max(abs(lo), abs(hi)) for lo, hi in qbox]
    for W, b in zip(D.weights, D.biases):
        e = [sum((abs(w) * v for w, v in zip(row, e) if w != 0), _Z) + abs(bj)
             for row, bj in zip(W.to_rows(), b)]
    return e


def ray_start(D: Network, x0, r):
    """``(t1, u, v)``: from ``t = t1`` on, the activation pattern of ``D`` along ``x0 + t r`` is
    fixed and ``D(x0 + t r) = u + t v`` (exact; the rule the checker redoes)."""
    u, v = list(x0), list(r)
    t1 = _Z
    L = D.depth
    for l, (W, b) in enumerate(zip(D.weights, D.biases)):
        # (FLINT's products: rows of Python rationals took 4 s of a 784-2048-2048-10 D, s50)
        u = [uj + bj for uj, bj in zip(W.apply(u), b)]
        v = list(W.apply(v))
        if l == L - 1:
            break
        for uj, vj in zip(u, v):
            if vj != 0:
                t1 = max(t1, -uj / vj)
        on = [vj > 0 or (vj == 0 and uj >= 0) for uj, vj in zip(u, v)]
        u = [uj if o else _Z for uj, o in zip(u, on)]
        v = [vj if o else _Z for vj, o in zip(v, on)]
    return t1, u, v


def same_weights(a: Network, b: Network) -> bool:
    """Whether *a* and *b* have the same widths and exactly the same weights (only the biases
    may differ): then ``a − b`` is bounded on all of R^d (three-layer-fibers R29)."""
    return a.widths == b.widths and all(Wa == Wb for Wa, Wb in zip(a.weights, b.weights))


def same_weights_deepened(a: Network, b: Network) -> bool:
    """Whether *a* and *b*, the shallower one deepened to the other's depth by carrying its
    output as ``relu(y), relu(−y)`` (:func:`_face_rows`, R33), have exactly the same weights
    (only the biases may differ): then ``a − b`` is bounded on all of R^d (R29 for the deepened
    pair, which computes the same functions), with no branch and bound on the recession cone."""
    if a.signature != b.signature:
        return False
    L = max(a.depth, b.depth)
    return all([r for r, _ in _face_rows(a, l, L)] == [r for r, _ in _face_rows(b, l, L)] for l in range(L))


def body_domain(dom: Domain, radius) -> Domain:
    """The body ``dom ∩ {‖x‖∞ <= radius}`` as a bounded domain: every open side closed at
    ``∓ radius`` (finite sides and half-spaces kept)."""
    return Domain([-radius if v is None else v for v in dom.lo],
                  [radius if v is None else v for v in dom.hi], dom.halfspaces)


def tail_faces(dom: Domain, sigma) -> list:
    """The ``2d`` root cells of the tail (R29), in the order ``(0, +1), (0, −1), (1, +1), …``:
    the box of directions ``u`` with ``u_i = ±1`` and, per coordinate ``j``, ``u_j`` within
    ``[max(−1, min(0, lo_j σ)), min(1, max(0, hi_j σ))]``; None when ``±1`` is outside coordinate
    i's range (no point of the domain has that face)."""
    rng = []
    for lo, hi in zip(dom.lo, dom.hi):
        rng.append((Q(-1) if lo is None else max(Q(-1), min(_Z, lo * sigma)),
                    Q(1) if hi is None else min(Q(1), max(_Z, hi * sigma))))
    out = []
    for i in range(dom.dim):
        for v in (Q(1), Q(-1)):
            if rng[i][0] <= v <= rng[i][1]:
                out.append(rng[:i] + [(v, v)] + rng[i + 1:])
            else:
                out.append(None)
    return out



def _row_interval(row, ivs, c):
    """The exact interval of ``c + row · v`` for ``v`` in the box *ivs* (pairs ``(lo, hi)``)."""
    lo = hi = c
    for w, (p, q) in zip(row, ivs):
        if w > 0:
            lo, hi = lo + w * p, hi + w * q
        elif w < 0:
            lo, hi = lo + w * q, hi + w * p
    return lo, hi

class _Tail:
    """The exact bound of ``|a − b|`` on one cell of the tail (R29): intervals of the
    homogenised ``a`` and ``b`` (biases times ``s in [0, σ]``) give each neuron a sign on the
    cell.  Same weights: the difference ``ρ = z_a − z_b`` (at the point ``x = u/s`` itself) runs
    through the layers by ``ρ ↦ W·g + Δβ`` with ``g = ρ`` (both active), ``0`` (both inactive),
    else the hull of ``0`` and ``ρ``.  Any weights (R29's stable cells): when every hidden neuron
    of ``a`` and ``b`` has one sign on the cell, ``a − b = M x + c`` there, and when ``M u = 0``
    on the cell's box ``|a − b| = |c|`` on the cell's tail; the bound is the smaller of the two
    rules that apply (None: neither, an unstable cell of networks of different weights)."""

    def __init__(self, a: Network, b: Network, dom: Domain, sigma):
        self.Wa = [W.to_rows() for W in a.weights]
        self.Wb = [W.to_rows() for W in b.weights]
        self.same = self.Wa == self.Wb
        self.ba = [list(v) for v in a.biases]
        self.bb = [list(v) for v in b.biases]
        self.sigma = sigma
        self.rows = [(r[:-1], r[-1]) for r in dom.rows()[len(dom.rows()) - len(dom.halfspaces):]]

    def empty(self, box):
        """The index of a half-space row no direction of *box* satisfies (``max g·u + max(0,
        c·σ) < 0``), or None."""
        for k, (g, c) in enumerate(self.rows):
            top = sum(((gi * (hi if gi > 0 else lo)) for gi, (lo, hi) in zip(g, box) if gi != 0), _Z)
            if top + max(_Z, c * self.sigma) < 0:
                return k
        return None

    def _signs(self, Ws, bias, box):
        """Per hidden layer, the homogenised pre-activation intervals of one network on *box*."""
        sig, h, out = self.sigma, list(box), []
        for l, W in enumerate(Ws[:-1]):
            z = []
            for row, c in zip(W, bias[l]):
                lo, hi = _row_interval(row, h, _Z)
                z.append((lo + min(_Z, c * sig), hi + max(_Z, c * sig)))
            out.append(z)
            h = [(max(p, _Z), max(q, _Z)) for p, q in z]
        return out

    def bound(self, box):
        """An exact upper bound of ``max_o |a_o − b_o|`` on the cell's tail, or None."""
        best = _stable_bound(self.Wa, self.ba, self.Wb, self.bb, box, self.sigma)
        if self.same:
            za, zb = self._signs(self.Wa, self.ba, box), self._signs(self.Wb, self.bb, box)
            t = _rho_bound(self.Wa, self.ba, self.bb, za, zb,
                           _caps(self.Wa, self.ba, box, self.sigma), _caps(self.Wb, self.bb, box, self.sigma))
            best = t if best is None else min(best, t)
        return best


def _caps(Ws, bias, box, sigma):
    """Per hidden layer, an upper bound of each neuron's output ``relu(z)`` at the points
    ``x = u/s`` of the cell's tail (None: none found).  The homogenised pre-activation is kept
    as two intervals, ``z_h(u, s) in [P_lo + s Q_lo, P_hi + s Q_hi]`` (``P`` from ``u``, ``Q``
    from the biases): a neuron of one sign keeps them (or is 0), one of both signs gets ``[0,
    relu(P_hi)]`` and ``[0, relu(Q_hi)]`` (``relu(p + s q) <= relu(p) + s relu(q)``).  Since
    ``relu(z) = relu(z_h)/s``, ``P_hi <= 0`` gives ``relu(z) <= relu(Q_hi)`` however far out."""
    P, Qv, out = list(box), [(_Z, _Z)] * len(box), []
    for l, W in enumerate(Ws[:-1]):
        nP, nQ, cap = [], [], []
        for row, c in zip(W, bias[l]):
            pl, ph = _row_interval(row, P, _Z)
            ql, qh = _row_interval(row, Qv, c)
            if pl + min(_Z, ql * sigma) >= 0:
                nP.append((pl, ph)); nQ.append((ql, qh))
            elif ph + max(_Z, qh * sigma) <= 0:
                nP.append((_Z, _Z)); nQ.append((_Z, _Z))
            else:
                nP.append((_Z, max(_Z, ph))); nQ.append((_Z, max(_Z, qh)))
            cap.append(max(_Z, nQ[-1][1]) if nP[-1][1] <= 0 else None)
        out.append(cap)
        P, Qv = nP, nQ
    return out


def _rho_bound(Ws, ba, bb, za, zb, ca=None, cb=None):
    """R29's rule for networks of the same weights *Ws*: ``max_o |ρ_o|`` on the cell; with the
    caps *ca*, *cb* of :func:`_caps`, ``relu(z_a) − relu(z_b)`` also lies in ``[−cap_b,
    cap_a]``."""
    rho = None
    for l, W in enumerate(Ws):
        db = [p - q for p, q in zip(ba[l], bb[l])]
        rho = [(c, c) for c in db] if rho is None else [_row_interval(row, rho, c) for row, c in zip(W, db)]
        if l == len(Ws) - 1:
            break
        g = []
        for j, ((pa, qa), (pb, qb), (p, q)) in enumerate(zip(za[l], zb[l], rho)):
            if pa >= 0 and pb >= 0:
                g.append((p, q))
            elif qa <= 0 and qb <= 0:
                g.append((_Z, _Z))
            else:
                g.append((min(_Z, p), max(_Z, q)))
            if ca is not None and g[-1] != (_Z, _Z):
                p, q = g[-1]
                u, v = ca[l][j], cb[l][j]
                g[-1] = (p if v is None else max(p, -v), q if u is None else min(q, u))
        rho = g
    return max(max(abs(p), abs(q)) for p, q in rho)


def _affine(Ws, bias, box, sigma):
    """``(M, c)`` with ``net(x) = M x + c`` on the tail of the cell *box*, when every hidden
    neuron has one sign there, else None.  Under a fixed pattern the homogenised pre-activation
    is ``M_l u + c_l s`` exactly, so each neuron's sign is read from that affine form's exact
    range over the cell and ``s in [0, σ]`` (lo >= 0 active, hi <= 0 inactive), not from the
    layers' intervals (which lose the cancellations: a neuron whose ``M_l u`` is 0 far out)."""
    M, c = None, None
    for l, W in enumerate(Ws):
        if M is None:
            M, c = [list(row) for row in W], list(bias[l])
        else:
            M = [[sum((w * M[k][i] for k, w in enumerate(row) if w != 0), _Z) for i in range(len(box))]
                 for row in W]      # (len(box) columns: M has no row after a layer of width 0)
            c = [sum((w * c[k] for k, w in enumerate(row) if w != 0), _Z) + bj for row, bj in zip(W, bias[l])]
        if l == len(Ws) - 1:
            return M, c
        on = []
        for row, cj in zip(M, c):
            lo, hi = _row_interval(row, box, _Z)
            lo, hi = lo + min(_Z, cj * sigma), hi + max(_Z, cj * sigma)
            if lo >= 0:
                on.append(True)
            elif hi <= 0:
                on.append(False)
            else:
                return None
        M = [row if t else [_Z] * len(row) for row, t in zip(M, on)]
        c = [v if t else _Z for v, t in zip(c, on)]
    return None


def _stable_bound(Wa, ba, Wb, bb, box, sigma):
    """R29's stable cells: ``max_o |c_o|`` when both patterns are fixed on the cell and
    ``a − b = M x + c`` has ``M u = 0`` for every ``u`` of *box*; else None."""
    fa, fb = _affine(Wa, ba, box, sigma), _affine(Wb, bb, box, sigma)
    if fa is None or fb is None:
        return None
    for ra, rb in zip(fa[0], fb[0]):
        if _row_interval([p - q for p, q in zip(ra, rb)], box, _Z) != (_Z, _Z):
            return None
    return max(abs(p - q) for p, q in zip(fa[1], fb[1]))


def tail_cells(a: Network, b: Network, dom: Domain, radius, budget: Budget, target=None,
               max_cells: int = _TAIL_CELLS, stats: dict | None = None):
    """``(bound, faces)``: ``|a − b| <= bound`` at every point of *dom* with ``‖x‖∞ >= radius``
    (R29), or ``(None, faces)`` when a cell stays unbounded (networks of different weights: a
    cell where a neuron changes sign, or ``a − b`` grows).  *faces* is the cover's tree per root cell of
    :func:`tail_faces` (None: no such face): leaves ``{"bound": t}`` or ``{"empty": k}`` (the
    domain's half-space k), inner nodes ``{"split": [k, mid], "children": [u_k <= mid,
    u_k >= mid]}``.  Best first: the cell of largest bound is halved on its widest coordinate
    until the bound is ``<= target`` (or ``<=`` 0), the cells run out, the bound has not
    dropped for ``max(64, 4d)`` splits, or the budget ends.  *stats* (a dict), when given, gets
    ``"stop"``: ``"target"``, ``"stall"`` (the bound stopped dropping), ``"cells"``
    (*max_cells*), ``"budget"``, ``"point"`` (a cell shrunk to a point) or ``"done"`` (no cell
    left), and ``"cells"``: the cover's size."""
    sigma = 1 / Q(radius)
    tail = _Tail(a, b, dom, sigma)
    heap, faces, n = [], [], 0

    def leaf(box, holder):
        nonlocal n
        k = tail.empty(box)
        if k is not None:
            holder["empty"] = k
            return
        t = tail.bound(box)
        holder["bound"] = t
        n += 1
        heapq.heappush(heap, ((0, _Z) if t is None else (1, -t), n, box, holder))
    for box in tail_faces(dom, sigma):
        if box is None:
            faces.append(None)
            continue
        faces.append({})
        leaf(box, faces[-1])
    last, stale, first = None, 0, True
    stop = "done"
    while heap:
        if n >= max_cells or budget.exhausted():
            stop = "cells" if n >= max_cells else "budget"
            break
        t = None if heap[0][0][0] == 0 else -heap[0][0][1]
        if t is not None and (t <= 0 or (target is not None and t <= target)):
            stop = "target"
            break
        # (None: unbounded so far, no better than the last; the first cell is no repeat)
        stale = stale + 1 if not first and (t is None or (last is not None and t >= last)) else 0
        last, first = t, False
        if stale > max(64, 4 * dom.dim):     # the cover no longer tightens: interval stability
            stop = "stall"                   # in high dimension (work, not the clock)
            break
        _, _, box, holder = heapq.heappop(heap)
        k = max(range(len(box)), key=lambda i: box[i][1] - box[i][0])
        lo, hi = box[k]
        if hi == lo:
            heapq.heappush(heap, ((0, _Z) if t is None else (1, -t), 0, box, holder))
            stop = "point"
            break
        mid = (lo + hi) / 2
        kids = [{}, {}]
        leaf(box[:k] + [(lo, mid)] + box[k + 1:], kids[0])
        leaf(box[:k] + [(mid, hi)] + box[k + 1:], kids[1])
        holder.clear()
        holder.update({"split": [k, mid], "children": kids})
    if stats is not None:
        stats.update({"stop": stop, "cells": _count(faces)})
    if not heap:
        return _Z, faces
    return (None if heap[0][0][0] == 0 else -heap[0][0][1]), faces


_PROBE_LEAVES = 64      # the tail's cells probed for points (largest bound first)
_PROBE_SCALES = (1, 2, 4, 16, 256)


def _leaves(dom: Domain, radius, faces):
    """``(bound, box)`` for the leaves of the tail's cover (*faces* from :func:`tail_cells`;
    bound None: an unstable cell), the cells rebuilt from their splits."""
    out, todo = [], [(f, box) for f, box in zip(faces, tail_faces(dom, 1 / Q(radius)))
                     if f is not None and box is not None]
    while todo:
        node, box = todo.pop()
        if "split" in node:
            k, mid = node["split"]
            lo, hi = box[k]
            todo.append((node["children"][0], box[:k] + [(lo, mid)] + box[k + 1:]))
            todo.append((node["children"][1], box[:k] + [(mid, hi)] + box[k + 1:]))
        elif "bound" in node:
            out.append((node["bound"], box))
    return out


def tail_points(a: Network, b: Network, dom: Domain, radius, faces, above=None):
    """The primal side of the tail: the best exact ``(dev, x, o, devs)`` (``dev = max_o |a_o −
    b_o|`` at ``x``) over points ``x = k R u`` of the domain, ``u`` the centre and (``d <= 3``)
    the corners of a cell of the cover, ``k`` in :data:`_PROBE_SCALES` (all in the tail:
    ``‖u‖∞ = 1``); the :data:`_PROBE_LEAVES` cells of largest bound above *above* (unstable cells
    first); None when no
    such point lies in the domain.  Exact evaluations only: a lower bound wherever it is found."""
    R = Q(radius)
    cells = sorted((c for c in _leaves(dom, R, faces) if c[0] is None or above is None or c[0] > above),
                   key=lambda c: (c[0] is not None, -(c[0] or 0)))[:_PROBE_LEAVES]
    best, seen = None, set()
    for _, box in cells:
        dirs = [tuple((lo + hi) / 2 for lo, hi in box)]
        if dom.dim <= 3:
            dirs += [tuple(box[i][(k >> i) & 1] for i in range(dom.dim)) for k in range(2 ** dom.dim)]
        for u in dirs:
            for k in _PROBE_SCALES:
                x = tuple(k * R * v for v in u)
                if x in seen or not dom.contains(x):
                    continue
                seen.add(x)
                devs = _devs(a, b, x)
                o = max(range(len(devs)), key=devs.__getitem__)
                if best is None or devs[o] > best[0]:
                    best = (devs[o], x, o, devs)
    return best


def _devs(a, b, x):
    return [abs(p - q) for p, q in zip(a.evaluate(x), b.evaluate(x))]


def _primal(a, b, dom: Domain, x0, cone: Domain, budget: Budget | None = None, extra=()):
    """The best exact value of ``max_o |a_o − b_o|`` at a few points of the domain: *x0*, the
    points *extra* and ``x0 + t r`` for the corners ``r`` of ``C ∩ [−1, 1]^d`` (when in C),
    ``t = 1, 10, 100``; *x0* and *extra* only once *budget* is spent (exact evaluations of a
    784-64-10 pair: 257 of them took 20 s past a 5 s timeout)."""
    cands = [tuple(x0)] + [tuple(x) for x in extra]
    d = dom.dim
    corners = [tuple(cone.hi[i] if (k >> i) & 1 else cone.lo[i] for i in range(d))
               for k in range(2 ** min(d, 6))]
    for r in corners:
        if cone.contains(r):
            cands += [tuple(x + t * ri for x, ri in zip(x0, r)) for t in (1, 10, 100)]
    best = None
    for k, x in enumerate(cands):
        if k > len(extra) and budget is not None and budget.exhausted():
            break
        if dom.contains(x):
            devs = _devs(a, b, x)
            o = max(range(len(devs)), key=devs.__getitem__)
            if best is None or devs[o] > best[0]:
                best = (devs[o], x, o, devs)
    return best


REFUTE_PARAMETERS = 10 ** 5
"""Pairs of at most this many parameters (together) get equivalence's cheap refutation as a
lower-bound point on an unbounded domain (:func:`_refuting_point`)."""


def _refuting_point(a, b, dom: Domain, budget: Budget) -> list:
    """``[x]``: a point where a and b differ, from equivalence's cheap refutation (short-
    denominator random batches: :func:`~semialgebraic.equivalence.refutation.refute_random`),
    or ``[]``.  Taken before the recession cone's search, which can spend the whole budget: a
    4-9-3-3-1 pair on R^4 differing on a sliver had lower bound 0 at x = 0 after 30 s, where
    `equiv` found a point at once (s47 equivalence audit F2)."""
    if a.n_parameters + b.n_parameters > REFUTE_PARAMETERS or budget.exhausted():
        return []
    from ..budget import BudgetExhausted
    from ..equivalence.refutation import refute_random
    try:
        x = refute_random(a, b, dom, 32, 0)
    except BudgetExhausted:
        return []
    return [] if x is None else [x]


class _Probed:
    """Stands for the cone's search when a probe found ``f_0(r) != 0`` at a point *r* of ``C``:
    ``lower > 0``, no node (the ray branch needs only the point)."""

    def __init__(self, r):
        self.point, self.lower, self.upper, self.nodes = r, Q(1), None, 0
        self.reason, self.certificate = "a probe of the cone", None


CONE_PROBES = 8
"""Pseudo-random points of ``C ∩ [−1, 1]^d`` (after its centre) where the biases-free ``a − b``
is evaluated before the cone's search (:func:`_cone_probe`)."""


def _cone_probe(a0: Network, b0: Network, cone: Domain, budget: Budget):
    """A point ``r`` of ``C ∩ [−1, 1]^d`` where the biases-free networks differ, from a few exact
    evaluations (the centre, then :data:`CONE_PROBES` seeded points with denominators 64), or
    None.  Where ``f_0`` is not 0 on an open part of the cone (two copies of other weights, a
    float16 copy), a probe decides at once what the search on the cone found only after its
    engine (a 784-1024-1024-10 pair on the orthant: > 100 s without --timeout, s50); when the
    probes miss (f_0 = 0 on C, or not 0 on a sliver only) the search runs as before.  The ray
    branch needs ``f_0(r) != 0`` only, and recomputes it exactly (:func:`ray_start`)."""
    import random
    rng = random.Random(0)
    points = [[(lo + hi) / 2 for lo, hi in zip(cone.lo, cone.hi)]]
    points += [[lo + Q(rng.randint(1, 63), 64) * (hi - lo) for lo, hi in zip(cone.lo, cone.hi)]
               for _ in range(CONE_PROBES)]
    for x in points:
        if budget.exhausted():
            return None
        if any(x) and cone.contains(x) and a0.evaluate(x) != b0.evaluate(x):
            return x
    return None


def unbounded_diff(a: Network, b: Network, dom: Domain, budget: Budget, eps=None,
                   input_splits: bool | None = None) -> BabResult:
    """:class:`BabResult` on an unbounded domain (no self-check): +∞ with a certified ray, a
    certified finite interval, or (budget) the lower bound with ``upper`` None."""
    from ..certificates.bab_recession import bab_recession_certificate
    x0 = domain_point(dom)
    if same_weights(a, b) or same_weights_deepened(a, b):
        # (a deepened copy of the other with other biases: bounded, R29; its tail by stable
        # cells or the homogenised network, R33, with no proof on the recession cone)
        return _body_and_tail(a, b, dom, x0, budget, eps, input_splits)
    cone = cone_domain(dom)
    D = difference_network(a, b)
    seen = _refuting_point(a, b, dom, budget)
    if eps is not None and seen:
        devs = _devs(a, b, seen[0])
        o = max(range(len(devs)), key=devs.__getitem__)
        if devs[o] > eps:            # decided: a point above the threshold (no search needed)
            cert = bab_recession_certificate(a, b, dom, lower=devs[o], point=tuple(seen[0]), output=o)
            return BabResult(devs[o], None, tuple(seen[0]), o, [(dk, None) for dk in devs], 0,
                             True, "a point above the threshold", cert)
    a0, b0 = bias_free(a), bias_free(b)
    probe = _cone_probe(a0, b0, cone, budget)
    sub = (_Probed(probe) if probe is not None else
           bounded_diff(a0, b0, cone, budget, Q(0), input_splits))
    if sub.lower <= 0:     # (the ray's own point is the lower bound's: 192 exact evaluations
        lower, point, out, devs = _primal(a, b, dom, x0, cone, budget, seen)   # of a pair of
    if sub.lower > 0:      # f_0 != 0 on C: unbounded                # 1.8 M weights took 24 s)
        r = sub.point
        t1, u, v = ray_start(D, x0, r)
        o = max(range(len(v)), key=lambda k: abs(v[k]))
        t = t1 if eps is None else max(t1, (eps + abs(u[o])) / abs(v[o]) + 1)
        t = max(t, (abs(u[o]) + 1) / abs(v[o]))             # a point where |a_o - b_o| >= 1
        point = tuple(x + t * ri for x, ri in zip(x0, r))
        devs = _devs(a, b, point)
        ray = {"x0": list(x0), "direction": list(r), "t1": t1, "output": o}
        cert = bab_recession_certificate(a, b, dom, ray=ray, lower=devs[o], point=point, output=o)
        from ..certificates._json import jsonable
        return BabResult(devs[o], None, point, o, [("inf", "inf") if k == o else (dk, None)
                                                   for k, dk in enumerate(devs)],
                         sub.nodes, True,
                         f"|a_{o} - b_{o}| grows without bound along the ray x0 + t·r, t >= t1 "
                         f"(the biases-free a - b is not 0 on the recession cone, R28)",
                         cert, unbounded=True,
                         ray={**jsonable(ray), "slope": str(v[o]), "constant": str(u[o])})
    if sub.upper is not None and sub.upper <= 0 and sub.lower <= 0:   # f_0 = 0 on C: bounded
        qbox = apex_box(dom)
        if qbox is not None:
            E = deviation_bound(D, qbox)
            upper = max(max(E), lower)
            tighter = ""                     # why the body and tail did not tighten it
            if lower < upper and not budget.exhausted() and (eps is None or lower <= eps < upper):
                # the |W| bound is loose (or leaves ε undecided): a body and a tail of stable
                # cells (R29 for any weights), kept when tighter
                fine = _body_and_tail(a, b, dom, x0, budget, eps, input_splits,
                                      radius=_kink_radius(D, dom, x0, cone))
                if (fine.upper is not None and fine.upper < upper) or (eps is not None and fine.lower > eps):
                    fine.nodes += sub.nodes
                    return fine
                if fine.lower > lower:       # its point, for the |W| bound's certificate
                    lower, point, out = fine.lower, fine.point, fine.output
                    devs = [max(p, q) for p, q in zip(devs, _devs(a, b, point))]
                # (the text said only where the bound came from, not that the budget stopped the
                # tighter search: s51 audit 2 F3, [0, 3226] at --timeout 10 where the truth is 1e-12)
                tighter = ("; the body and tail search (R29) found no tighter bound"
                           + (f" ({_outer_reason(fine.reason, budget)})" if fine.reason else ""))
            cert = bab_recession_certificate(a, b, dom, cone=sub.certificate, decomposition=qbox,
                                             upper=upper, lower=lower, point=point, output=out)
            # with ε, as _body_and_tail says it (s39 near-miss audit: a refuted ε gave the
            # upper bound's provenance as its reason)
            return BabResult(lower, upper, point, out, list(zip(devs, E)), sub.nodes,
                             lower == upper if eps is None else (upper <= eps or lower > eps),
                             "lower = upper" if lower == upper else
                             "a point above the threshold" if eps is not None and lower > eps else
                             "the bound holds" if eps is not None and upper <= eps else
                             "bounded (the biases-free a - b is 0 on the recession cone, R28); "
                             "upper bound from the biases propagated through |W|" + tighter,
                             cert)
        reason = ("bounded (the biases-free a - b is 0 on the recession cone, R28), but no box "
                  "B_q with the domain inside B_q + C was found (a slab of half-spaces)")
    else:
        reason = f"boundedness not decided ({sub.reason}); no upper bound within the budget"
    cert = bab_recession_certificate(a, b, dom, lower=lower, point=point, output=out)
    return BabResult(lower, None, point, out, [(dk, None) for dk in devs], sub.nodes, False,
                     reason, cert)


_FAR_NODES = 400        # nodes of the far body searched for the lower side only
_HOMOG_FIRST = True     # the homogenised tail (R33) at the first radius when the cover stays above
                        # the body (the 15 stalled sweep cases: 17.3 CPU s, 19.4 s after the radii)
_TAIL_SHARE = 0.25      # of a timeout, kept for the tail's cover; the body's search gets the rest


def _kink_radius(D: Network, dom: Domain, x0, cone: Domain):
    """The tail's first radius for networks of different weights: :func:`_radius`, and twice
    ``‖x0 + t1 r‖∞`` for the corners ``r`` of ``C ∩ [−1, 1]^d`` in ``C`` (the first ``2^6``),
    ``t1`` from where the pattern along the ray is fixed (:func:`ray_start`): on one input the
    tail's one cell is then stable (its kinks all inside the body)."""
    R = _radius(dom, x0)
    d = dom.dim
    for k in range(2 ** min(d, 6)):
        r = tuple(cone.hi[i] if (k >> i) & 1 else cone.lo[i] for i in range(d))
        if any(r) and cone.contains(r):
            t1 = ray_start(D, x0, r)[0]
            R = max(R, 2 * max(abs(x + t1 * ri) for x, ri in zip(x0, r)))
    return R


def _radius(dom: Domain, x0):
    """The body's radius: at least 1, twice every finite bound and twice the domain point's
    largest coordinate (so the body holds *x0*)."""
    vals = [abs(v) for v in dom.lo + dom.hi if v is not None] + [abs(v) for v in x0]
    return max([Q(1)] + [2 * v for v in vals])


def _body_and_tail(a, b, dom: Domain, x0, budget: Budget, eps, input_splits, radius=None) -> BabResult:
    """R29: ``sup |a − b| <= max(body, tail)``, the body ``dom ∩
    {‖x‖∞ <= R}`` by branch and bound (a ``bab_bound`` certificate; with a timeout, 3/4 of what
    is left), the tail ``‖x‖∞ >= R`` by the cover of :func:`tail_cells` refined down to the
    body's upper bound (or ε); while the tail's bound is the larger, the radius grows (×8, at
    most 3 times) as long as the farther tail's bound is smaller and the budget lasts (or, for
    networks of different weights, while a tail cell stays unstable).  *radius*: the first R
    (default :func:`_radius`)."""
    from ..certificates.bab_recession import bab_recession_certificate
    from .diff import _Share
    R = _radius(dom, x0) if radius is None else radius

    def body_at(R):
        share = _Share(budget, 1 - _TAIL_SHARE) if budget.timeout is not None else budget
        body = bounded_diff(a, b, body_domain(dom, R), share, eps, input_splits)
        if share.interrupted:
            budget.interrupt()
        return body

    def decided(up, body):
        return budget.exhausted() or (eps is not None and (up <= eps or body.lower > eps))
    body = body_at(R)
    best, first, extra = None, None, None      # extra: a tail point of the homogenised search
    hwhy = ""                                  # why the homogenised tail was not proven
    if body.upper is not None:
        # the tail need not go below the body's bound (or below ε)
        st = {}
        t, faces = tail_cells(a, b, dom, R, budget, target=body.upper if eps is None else eps, stats=st)
        first = (R, faces)
        if t is not None:
            best = (max(body.upper, t, body.lower), R, t, faces, body, st)
        if _HOMOG_FIRST and best is not None and t > max(body.upper, body.lower) and not budget.exhausted() \
                and (eps is None or body.lower <= eps < best[0]):
            # the cover stays above the body: the homogenised tail at this radius (R33), not
            # farther radii
            probe = tail_points(a, b, dom, R, faces, above=body.lower)
            top = body.lower if probe is None else max(body.lower, probe[0])
            ht, extra, hwhy = _homog(a, b, dom, R, max(body.upper, top), budget, eps, input_splits)
            if ht is not None and ht["bound"] < t:
                best = (max(body.upper, ht["bound"], top), R, ht["bound"], faces, body, st, ht)
    low = [body]                             # every body's point is a lower bound
    far = R
    for _ in range(3):
        top = max(low, key=lambda r: r.lower).lower
        if body.upper is None or budget.exhausted() or (best is not None and (
                len(best) > 6 or
                best[2] <= max(best[4].upper, best[4].lower) or top >= best[0]
                or decided(best[0], best[4]) or (eps is not None and top > eps))):
            break
        far = 8 * far                        # a farther tail: worth a new body only if tighter
        ref = body if best is None else best[4]
        st2 = {}
        t2, faces2 = tail_cells(a, b, dom, far, budget, target=ref.upper if eps is None else eps,
                                stats=st2)
        if t2 is None:
            continue                         # (different weights) a cell still unstable: farther
        if best is not None and t2 >= best[2]:
            # no tighter farther out: the tail's bound may be attained in the shell R <= ‖x‖∞
            # <= 8R, so one larger body for the lower side, then stop
            body2 = body_at(far)
            low.append(body2)
            break
        body2 = body_at(far)
        low.append(body2)
        if body2.upper is None:
            break
        up2 = max(body2.upper, t2, body2.lower)
        if best is None or up2 < best[0]:
            best = (up2, far, t2, faces2, body2, st2)
    if best is None and first is not None and not budget.exhausted():
        # (different weights) a tail cell stays unstable: the homogenised network's branch and
        # bound (R33) at the first radius instead of the cover
        top = max(low, key=lambda r: r.lower)
        ht, pt, hwhy = _homog(a, b, dom, first[0], max(body.upper, top.lower), budget, eps, input_splits)
        if pt is not None and pt[0] > top.lower:
            extra = pt
        if ht is not None:
            best = (max(body.upper, ht["bound"], top.lower), first[0], ht["bound"], None, body,
                    {"stop": "homogenised"}, ht)
    if best is None:
        top = max(low, key=lambda r: r.lower)
        lower, point, out = top.lower, top.point, top.output
        per_lower = [max(los) for los in zip(*[[lo for lo, _ in r.per_output] for r in low])]
        probe = None if first is None else tail_points(a, b, dom, first[0], first[1], above=lower)
        if extra is not None and (probe is None or extra[0] > probe[0]):
            probe = extra
        if probe is not None and probe[0] > lower:
            lower, point, out = probe[0], probe[1], probe[2]
            per_lower = [max(p, q) for p, q in zip(per_lower, probe[3])]
        cert = bab_recession_certificate(a, b, dom, lower=lower, point=point, output=out)
        return BabResult(lower, None, point, out, [(lo, None) for lo in per_lower], body.nodes,
                         eps is not None and lower > eps,
                         "a point above the threshold" if eps is not None and lower > eps else
                         _outer_reason(body.reason, budget) + hwhy if first is None else
                         f"no bound on the tail ‖x‖∞ >= {first[0]} (the body's branch and bound: "
                         f"{_outer_reason(body.reason, budget)})" + hwhy, cert)
    upper, R, t, faces, body, st = best[:6]
    hom = best[6] if len(best) > 6 else None
    tail = hom or {"radius": R, "faces": faces, "bound": t}

    def best_lower():
        top = max(low, key=lambda r: r.lower)
        got = (top.lower, top.point, top.output,
               [max(los) for los in zip(*[[lo for lo, _ in r.per_output] for r in low])])
        probe = None if faces is None else tail_points(a, b, dom, R, faces, above=got[0])
        for p in (probe, extra):         # the tail's primal side
            if p is not None and p[0] > got[0]:
                got = (p[0], p[1], p[2], [max(u, v) for u, v in zip(got[3], p[3])])
        return got
    lower, point, out, per_lower = best_lower()
    if hom is None and t > max(body.upper, lower) and not budget.exhausted() and (
            eps is None or lower <= eps < upper):
        # the cover's interval bounds stay loose: the homogenised network's branch and bound
        # at the threshold max(body, lower) (or ε), R33
        ht, pt, hwhy = _homog(a, b, dom, R, max(body.upper, lower), budget, eps, input_splits)
        if pt is not None and (extra is None or pt[0] > extra[0]):
            extra = pt                   # (a first search's point is kept: O1 of the s37 audit)
        if ht is not None and ht["bound"] < t:
            tail, t, hom = ht, ht["bound"], ht
        lower, point, out, per_lower = best_lower()
        upper = max(body.upper, t, lower)
    if t > max(body.upper, lower) and not budget.exhausted() and (
            eps is None or lower <= eps < upper):
        # the tail decides the upper bound: its max may lie past every body tried, so one more
        # body 16 times farther out, for its points only (a few nodes, or half what is left)
        share = _Share(budget, 1 / 2) if budget.timeout is not None else Budget(None, _FAR_NODES)
        low.append(bounded_diff(a, b, body_domain(dom, 16 * far), share, eps, input_splits))
        if share.interrupted:
            budget.interrupt()
        lower, point, out, per_lower = best_lower()
    if body.certificate["claim"] == CLAIMS["bab_bound"][0]:
        cert = bab_recession_certificate(a, b, dom, body=body.certificate, tail=tail, upper=upper,
                                         lower=lower, point=point, output=out)
    else:                            # a refutation (point above ε): only the lower bound is claimed
        cert = bab_recession_certificate(a, b, dom, lower=lower, point=point, output=out)
    complete = lower == upper if eps is None else (upper <= eps or lower > eps)
    reason = ("lower = upper" if eps is None and complete else
              "a point above the threshold" if eps is not None and lower > eps else
              "the bound holds" if eps is not None and upper <= eps else
              f"bounded ({'a and b differ only in their biases' if same_weights(a, b) else 'stable tail cells'}, "
              f"R29): body ‖x‖∞ <= {R} by branch "
              f"and bound ({_outer_reason(body.reason, budget)}), tail by "
              + (f"branch and bound on the homogenised network (R33) at {t}" if hom is not None else
                 f"{_count(faces)} cells" + (_tail_reason(st, t, R, far) + hwhy if t > max(body.upper, lower) else "")))
    per_output = [(lo, None if hi is None else max(hi, t)) for lo, (_, hi) in zip(per_lower, body.per_output)]
    return BabResult(lower, upper, point, out, per_output, body.nodes, complete, reason, cert)


def _tail_reason(st: dict, t, R, far) -> str:
    """Why the tail's bound *t* (the larger) stayed above the lower bound (*st* from
    :func:`tail_cells`; *R* the tail's radius, *far* the farthest radius tried)."""
    stop = st.get("stop")
    if stop == "budget":
        return f"; the budget ended while the tail's bound was {t}"
    if stop == "cells":
        return (f"; the tail's cover reached {_TAIL_CELLS} cells at bound {t} (a work limit, "
                f"not the clock)")
    if stop == "point":
        return (f"; the tail's cover stops at {t}, the bound of a cell of one direction (it cannot "
                f"be split)" + (f"; radii up to {far} did not help" if far > R else ""))
    return (f"; the tail's cover stopped dropping at {t} (not a budget stop): its interval "
            f"bounds stay loose, as a rule on the cells that a kink of a or b running to infinity "
            f"cuts (a neuron of a and its twin in b change sign on different sides of a strip)"
            + (f"; radii up to {far} did not help" if far > R else ""))


def _outer_reason(reason: str, budget: Budget) -> str:
    """*reason* with a share's timeout replaced by *budget*'s (the one the caller knows)."""
    if budget.timeout is None:
        return reason
    return re.sub(r"timeout of [0-9.e+-]+ s", f"timeout of {budget.timeout:g} s", reason)


def _count(faces) -> int:
    n, stack = 0, [f for f in faces if f is not None]
    while stack:
        node = stack.pop()
        n += 1
        stack.extend(node.get("children", ()))
    return n


# ---- the tail by branch and bound on the homogenised network (three-layer-fibers R33) ----

def _face_rows(net: Network, l: int, L: int):
    """The rows ``(w, beta)`` of *net*'s neurons in hidden layer *l* of the face network of depth
    ``L + 1`` (R33), ``w`` over *net*'s own neurons of the layer below (layer 0: over ``x``), and
    for ``l = L - 1`` the rows of its output form.  A network of depth ``L_n < L`` carries its
    output ``y`` from layer ``L_n − 1`` on as the pair ``relu(y), relu(−y)`` (rows ``[W; −W]``,
    biases ``[β; −β]``, then ``±(e_o − e_{m+o})``), recombined as ``y = relu(y) − relu(−y)`` in
    layer ``L − 1``: the layers of :func:`algebra.kernel.networks.difference_network`'s padding."""
    Ln, m = net.depth, net.n_outputs
    if l < Ln - 1 or (l == L - 1 and Ln == L):
        return [(list(r), c) for r, c in zip(net.weights[l].to_rows(), net.biases[l])]
    if l == Ln - 1:                                  # the output, split into its two signs
        rows = [(list(r), c) for r, c in zip(net.weights[l].to_rows(), net.biases[l])]
        return rows + [([-v for v in r], -c) for r, c in rows]
    pair = [[Q(int(k == o)) - Q(int(k == m + o)) for k in range(2 * m)] for o in range(m)]
    if l == L - 1:                                   # y = relu(y) - relu(-y)
        return [(r, _Z) for r in pair]
    return [(r, _Z) for r in pair] + [([-v for v in r], _Z) for r in pair]


def face_network(a: Network, b: Network, i: int, sign, M):
    """``(A, B)`` of the tail's face ``u_i = sign`` (R33): ``A`` takes ``v = (u_{−i}, s)``
    (the directions ``u`` without coordinate ``i``, then ``s``) and gives, per output ``o``,
    ``relu(X_o − M s) + relu(−X_o − M s)`` with ``X = s·(a − b)(u/s)`` the homogenised
    difference: every bias times ``s``, ``s`` carried through each hidden layer by one neuron
    ``relu(s) = s`` (last), ``u_i = sign`` folded into the first layer's constant.  *a* and *b*
    may differ in depth: the shallower one's output is carried to the depth ``L`` of the deeper
    as ``relu(y), relu(−y)`` (:func:`_face_rows`).  ``B`` is 0 (widths ``1`` per hidden layer;
    ``A`` and ``B`` have depth ``L + 1``).  So ``max_o |A_o − B_o| <= 0`` on the face's box iff
    ``|a_o − b_o| <= M`` at every point ``x = u/s`` (``s > 0``) of it."""
    d, m = a.n_inputs, a.n_outputs
    L = max(a.depth, b.depth)
    keep = [j for j in range(d) if j != i]
    sign, M = Q(sign), Q(M)
    Ws, bs = [], []
    na = nb = 0                                          # a's and b's widths in the layer below
    for l in range(L):
        ra, rb = _face_rows(a, l, L), _face_rows(b, l, L)
        if l == 0:
            def first(row, c):
                return [row[j] for j in keep] + [c], sign * row[i]
            rows_a = [first(r, c) for r, c in ra]
            rows_b = [first(r, c) for r, c in rb]
            width = d                                   # (u_{-i}, s): s at index d - 1
        else:
            rows_a = [(r + [_Z] * nb + [c], _Z) for r, c in ra]
            rows_b = [([_Z] * na + r + [c], _Z) for r, c in rb]
            width = na + nb + 1                          # previous layer: a's, b's, the carrier
        if l < L - 1:
            carrier = ([_Z] * (width - 1) + [Q(1)], _Z)
            rows = rows_a + rows_b + [carrier]
            na, nb = len(ra), len(rb)
        else:
            rows = []
            for (xa, ka), (xb, kb) in zip(rows_a, rows_b):
                x = [p - q for p, q in zip(xa, xb)]
                k = ka - kb
                rows.append((x[:-1] + [x[-1] - M], k))
                rows.append(([-v for v in x[:-1]] + [-x[-1] - M], -k))
        Ws.append([r for r, _ in rows])
        bs.append([k for _, k in rows])
    Ws.append([[Q(int(k // 2 == o)) for k in range(2 * m)] for o in range(m)])
    bs.append([_Z] * m)
    A = Network(Ws, bs)
    B = Network([[[_Z] * d]] + [[[_Z]] for _ in range(L - 1)] + [[[_Z]] * m],
                [[_Z] for _ in range(L)] + [[_Z] * m])
    return A, B


def face_domain(dom: Domain, radius, i: int, sign):
    """The face ``u_i = sign`` of the tail ``‖x‖∞ >= radius`` as a bounded domain over ``v =
    (u_{−i}, s)`` (R33): the box of :func:`tail_faces` without coordinate ``i``, ``s in [0,
    1/radius]``, and every row ``g·x + c >= 0`` of *dom* homogenised, ``g·u + c s >= 0``, as a
    half-space unless the box implies it; None when the domain has no such face."""
    sigma = 1 / Q(radius)
    box = tail_faces(dom, sigma)[2 * i + (0 if sign > 0 else 1)]
    if box is None:
        return None
    keep = [j for j in range(dom.dim) if j != i]
    lo = [box[j][0] for j in keep] + [_Z]
    hi = [box[j][1] for j in keep] + [sigma]
    hs = []
    for r in dom.rows():
        coef = [r[j] for j in keep] + [r[-1]]
        const = r[i] * sign
        low = _row_interval(coef, list(zip(lo, hi)), const)[0]
        if low < 0:                                  # g·u + c s + g_i·sign >= 0, not implied
            hs.append(([-v for v in coef], const))
    return Domain(lo, hi, hs)


_HOMOG_RAISES = 32      # at most this many raises of M (each at a point of the tail above it)


def homogenised_tail(a: Network, b: Network, dom: Domain, radius, M, budget: Budget, eps=None,
                     input_splits: bool | None = None, stats: dict | None = None):
    """The tail ``‖x‖∞ >= radius`` of *dom* by branch and bound on the homogenised network
    (R33): ``(faces, best)``.  Each face of :func:`face_domain` is searched by
    :func:`.diff.bounded_diff` on :func:`face_network` at threshold 0; a point ``(u_{−i}, s)``
    with ``s > 0`` above it gives ``x = u/s`` in the tail with ``|a − b| > M``: *M* becomes that
    exact value and the face is searched again (faces already proven keep their own, smaller
    ``M``).  *faces*: ``2d`` entries (None where the domain has no face), each ``{"i", "sign",
    "M", "certificate"}`` (a ``bab_bound`` certificate of ``max |A − B| <= 0``, re-checked by
    the independent checker at once), or None when a face was not proven (budget,
    :data:`_HOMOG_RAISES`, a certificate the checker refuses, or with *eps* a point above it);
    *best*: ``(dev, x, o, devs)`` of the best tail point found (or None).  *stats* (a dict),
    when given, gets ``"stop"``: ``"done"``, ``"budget"``, ``"raises"``, ``"check"`` (a face
    certificate refused), ``"above"`` (a point above ε) or ``"open"`` (a face neither proven
    nor given a tail point above M)."""
    from ..verify import verify as _verify
    M = Q(M)
    faces, best = [], None
    raises = 0
    stats = {} if stats is None else stats
    stats["stop"] = "done"
    for i in range(dom.dim):
        for sign in (1, -1):
            fdom = face_domain(dom, radius, i, sign)
            if fdom is None:
                faces.append(None)
                continue
            y = _empty_face(fdom)
            if y is not None:         # the domain's rows leave no point on this face (s38 math
                faces.append({"i": i, "sign": sign, "empty": y})    # audit: "the domain is
                continue              # empty" was raised on a non-empty half-plane)
            while True:
                if budget.exhausted() or raises > _HOMOG_RAISES:
                    stats["stop"] = "budget" if budget.exhausted() else "raises"
                    return None, best
                A, B = face_network(a, b, i, sign, M)
                r = bounded_diff(A, B, fdom, budget, _Z, input_splits)
                if r.upper is not None and r.upper <= 0 and r.certificate["claim"] == CLAIMS["bab_bound"][0]:
                    if not _verify(r.certificate)[0]:
                        # a safety net: a node emptied by its parent's LP-tightened intervals
                        # once held none of their records, and the checker refused it (seed 0 of
                        # the sweep at R = 8; fixed in search.Engine.node: 7 of 141 face checks
                        # refused before, 0 of 130 after); kept, it costs ~2 % of the 42 sweep
                        # cases that reach this tail (38.97 against 38.36 CPU s, 2026-12-03)
                        stats["stop"] = "check"
                        return None, best
                    faces.append({"i": i, "sign": sign, "M": M, "certificate": r.certificate})
                    break
                s = r.point[-1] if r.lower > 0 else _Z
                if s <= 0:                             # (budget, or no tail point above M)
                    stats["stop"] = "budget" if budget.exhausted() else "open"
                    return None, best
                u = list(r.point[:-1])
                u.insert(i, Q(sign))
                x = tuple(v / s for v in u)
                if not dom.contains(x):
                    stats["stop"] = "open"
                    return None, best
                devs = _devs(a, b, x)
                o = max(range(len(devs)), key=devs.__getitem__)
                if best is None or devs[o] > best[0]:
                    best = (devs[o], x, o, devs)
                if devs[o] <= M or (eps is not None and devs[o] > eps):
                    stats["stop"] = "above" if devs[o] > M else "open"
                    return None, best                  # (a refutation: the caller's point)
                M, raises = devs[o], raises + 1
    return faces, best


def _empty_face(fdom: Domain):
    """None when the face's box and half-spaces have a common point, else multipliers ``y >= 0``
    of its half-spaces ``a·v <= b`` with ``y·b < min_{v in box} (Σ_j y_j a_j)·v`` (an exact
    Farkas vector: no point of the box satisfies them all)."""
    from ..lp import feasible
    if not fdom.halfspaces:
        return None
    hs = [(list(a), Q(c)) for a, c in fdom.halfspaces]
    d = fdom.dim
    unit = [[Q(int(k == j)) for k in range(d)] for j in range(d)]
    res = feasible(A_le=[a for a, _ in hs] + unit + [[-v for v in u] for u in unit],
                   b_le=[c for _, c in hs] + list(fdom.hi) + [-v for v in fdom.lo], n=d)
    if res.feasible:
        return None
    return [Q(v) for v in res.certificate["y_le"][:len(hs)]]


def _homog(a, b, dom: Domain, radius, M, budget: Budget, eps, input_splits):
    """``(tail, best, why)``: :func:`homogenised_tail` at *M* (or ε) with half of a timeout (7/8
    with ε: a second call would ask the same question; the s38 review's slab of R^3 was undecided
    at 1.01 x its maximum in 20 s, decided at the maximum), the
    certificate's tail ``{"kind": "homogenised", "radius", "faces", "bound"}`` (None: not
    proven; a and b may differ in depth), its best tail point and, when not
    proven, why (a clause for the reason; "" when proven)."""
    from .diff import _Share
    part = 7 / 8 if eps is not None else 1 / 2       # (with ε both calls ask one question)
    share = _Share(budget, part) if budget.timeout is not None else budget
    st = {}
    faces, best = homogenised_tail(a, b, dom, radius, M if eps is None else eps, share, eps, input_splits,
                                   stats=st)
    if share.interrupted:
        budget.interrupt()
    if faces is None:
        return None, best, _HOMOG_WHY.get(st.get("stop"), "")
    bound = max([f["M"] for f in faces if f is not None and "M" in f], default=_Z)
    return {"kind": "homogenised", "radius": Q(radius), "faces": faces, "bound": bound}, best, ""


_HOMOG_WHY = {"budget": "; the budget ended in the homogenised tail (R33)",
              "raises": f"; the homogenised tail (R33) raised its M {_HOMOG_RAISES} times",
              "check": "; the homogenised tail (R33) left a face whose certificate the checker refuses",
              "open": "; the homogenised tail (R33) left a face open"}
