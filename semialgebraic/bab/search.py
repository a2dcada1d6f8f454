r"""Exact branch and bound on a linear objective of a ReLU network's output over a box.

Best-first on the certified upper bound of each open node (:mod:`.relaxation`: interval
propagation, then the triangle LP relaxation guessed by HiGHS and bounded exactly by the
Neumaier–Shcherbina correction); branching on the unstable neuron of the earliest layer with the
largest triangle area (children ``z <= 0`` then ``z >= 0``); the primal side evaluates candidate
points exactly (box centre, LP solutions rounded into the box).  Anytime: the certified interval
``[lower, upper]`` and a point attaining ``lower`` are known after every node; a budget stop
returns them with ``complete`` False.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from fractions import Fraction

from algebra.rationals import Q

from ..budget import Budget
from .relaxation import exact_bound, float_duals, node_intervals, project, to_rational

__all__ = ["ObjectiveBound", "bound_objective"]

_ZERO = Q(0)


@dataclass
class ObjectiveBound:
    """Certified ``lower <= max_{x in box} c·D(x) <= upper`` (``point`` attains ``lower``)."""

    lower: Q
    upper: Q
    point: tuple
    tree: dict
    nodes: int
    complete: bool
    reason: str = ""
    extra: dict = field(default_factory=dict)


def _zeros(Ws):
    return [[_ZERO] * len(W) for W in Ws]


def _leaf_bound(Ws, bs, box, ivs, c, lp=True):
    """(bound, (mu, alpha, beta), float point or None) of a node with intervals *ivs*
    (the interval bound only, zero multipliers, when *lp* is False)."""
    L = len(Ws)
    zero = (_zeros(Ws), _zeros(Ws[:-1]), _zeros(Ws[:-1]))
    best = (exact_bound(Ws, bs, box, ivs, c, *zero), zero)
    if not lp:
        return best[0], best[1], None
    if all(lo >= 0 or hi <= 0 for layer in ivs[:-1] for lo, hi in layer) and L == 1:
        return best[0], best[1], None
    status, x, duals = float_duals(Ws, bs, box, ivs, c)
    if status == "infeasible" and duals is not None:
        zc = [_ZERO] * len(c)
        for den in (10 ** 6, None):
            for sgn in (1, -1):
                y = project(ivs, *[[[to_rational(sgn * v, den) for v in row] for row in part]
                                   for part in duals])
                if exact_bound(Ws, bs, box, ivs, zc, *y) < 0:
                    return None, y, None          # the node is empty (Farkas-type proof)
        return best[0], best[1], None
    if status != "optimal":
        return best[0], best[1], None
    for den in (10 ** 6, None):
        for sgn in (1, -1):
            mu = [[to_rational(sgn * v, den) for v in row] for row in duals[0]]
            al = [[to_rational(sgn * v, den) for v in row] for row in duals[1]]
            be = [[to_rational(sgn * v, den) for v in row] for row in duals[2]]
            y = project(ivs, mu, al, be)
            val = exact_bound(Ws, bs, box, ivs, c, *y)
            if val < best[0]:
                best = (val, y)
    return best[0], best[1], x


def _choose(ivs):
    for l, layer in enumerate(ivs[:-1]):
        best, arg = None, None
        for j, (lo, hi) in enumerate(layer):
            if lo < 0 < hi:
                score = -lo * hi / (hi - lo)
                if best is None or score > best:
                    best, arg = score, (l, j)
        if arg is not None:
            return arg
    return None


def _round_into(x, box):
    out = []
    for v, (lo, hi) in zip(x, box):
        fr = Fraction(v).limit_denominator(10 ** 6)
        q = Q(fr.numerator, fr.denominator)
        out.append(min(max(q, lo), hi))
    return tuple(out)


def bound_objective(Ws, bs, box, c, value, *, budget: Budget | None = None,
                    stop_above=None, prune_at=None, start=None) -> ObjectiveBound:
    """Certified bounds of ``max_{x in box} c · D(x)`` for the network ``D`` of layers *Ws*, *bs*.

    Parameters
    ----------
    Ws, bs : lists of rows (exact), lists of bias lists
    box : list of (lo, hi)
        Exact bounds per coordinate.
    c : list of Q
        Objective on the outputs of ``D``.
    value : callable
        ``value(x) -> c · D(x)`` exactly (the primal side's evaluation).
    budget : Budget, optional
        Checked at every node.
    stop_above : Q, optional
        Stop as soon as ``lower > stop_above`` (a counterexample for ε-equivalence).
    prune_at : Q, optional
        Nodes whose bound is ``<= prune_at`` are closed even above ``lower`` (ε-equivalence).
    start : list of points, optional
        Extra candidate points for the lower bound.

    Returns
    -------
    ObjectiveBound
        With ``tree``: nested ``{"split": [l, j], "children": [le0, ge0]}`` nodes and leaves
        ``{"bound": b, "mu": ..., "alpha": ..., "beta": ...}`` or ``{"empty": "interval"}``.
    """
    budget = budget or Budget()
    cands = [tuple(lo for lo, _ in box), tuple((lo + hi) / 2 for lo, hi in box),
             tuple(hi for _, hi in box)] + [tuple(p) for p in (start or [])]
    lower, point = None, None
    for p in cands:
        v = value(p)
        if lower is None or v > lower:
            lower, point = v, p
    counter = 0
    heap: list = []
    leaves: list = []

    def open_node(splits, holder):
        nonlocal lower, point, counter
        ivs = node_intervals(Ws, bs, box, splits)
        if ivs is None:
            holder.update({"empty": "interval"})
            return
        bnd, y, x = _leaf_bound(Ws, bs, box, ivs, c, lp=not budget.exhausted())
        if bnd is None:
            holder.update({"empty": "dual", "mu": y[0], "alpha": y[1], "beta": y[2]})
            return
        holder.update({"bound": bnd, "mu": y[0], "alpha": y[1], "beta": y[2]})
        leaves.append(holder)
        if x is not None:
            p = _round_into(x, box)
            v = value(p)
            if v > lower:
                lower, point = v, p
        counter += 1
        heapq.heappush(heap, (-bnd, counter, splits, holder, ivs))

    root: dict = {}
    open_node({}, root)
    nodes, reason, complete = 1, "", False
    final = []            # leaves that cannot be split further (their LP is exact)
    while True:
        if stop_above is not None and lower > stop_above:
            reason = "a point above the threshold"
            break
        if not heap:
            complete = True
            break
        neg, _, splits, holder, ivs = heap[0]
        bnd = -neg
        cut = lower if prune_at is None else max(lower, prune_at)
        if bnd <= cut:
            complete = True
            break
        if budget.exhausted():
            reason = str(budget.reason)
            break
        heapq.heappop(heap)
        arg = _choose(ivs)
        if arg is None:
            final.append(holder)
            continue
        for key in ("bound", "mu", "alpha", "beta"):
            del holder[key]
        leaves.remove(holder)
        holder["split"] = list(arg)
        holder["children"] = [{}, {}]
        for side in (0, 1):
            open_node({**splits, arg: side}, holder["children"][side])
        nodes += 2
        budget.count()
    bounds = [lf["bound"] for lf in leaves]
    upper = max(bounds) if bounds else lower
    if not bounds:          # every leaf is empty: the box has no point (cannot happen on a box)
        upper = lower
    if upper < lower:
        raise AssertionError("certified upper below an attained value: a bug")
    complete = complete and upper == lower if prune_at is None else complete
    return ObjectiveBound(lower, upper, point, root, nodes, complete and (upper == lower or prune_at is not None),
                          reason or ("lower = upper" if upper == lower else
                                     "leaves without unstable neurons left a gap of dual rounding"))
