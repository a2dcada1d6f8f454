r"""Exact maximum of a linear function over a box cut by one half-space (a fractional knapsack),
and the right-hand side of a valid inequality of one ReLU neuron over a box.

``max c·x`` over ``{lo <= x <= hi, a·x + b <= 0}`` is a linear programme with one row: start at
the box's maximiser of ``c`` (on a coordinate with ``c_k = 0`` the end of smaller ``a_k x_k``),
and, while the row is violated, move the coordinates towards their other end in the order of
the objective lost per unit of ``a·x`` gained (the greedy of the fractional knapsack, optimal
by the exchange argument: Dantzig 1957), the last one partly.  Exact over Q, ``O(n log n)``.
The order comes from float ratios and is then proved exactly (every item moved has a ratio at
most the critical item's ``r``, every other at least ``r``: ``r`` is then an optimal dual
multiplier of the row, so the greedy point is optimal); when that proof fails (floats misordered
near-equal ratios) the items are sorted by their exact ratios.  A float only orders, never
decides; the value is the same either way.

:func:`relu_cut_rhs` is the least ``δ`` such that ``α·x + β·y <= δ`` holds for every ``x`` in
the box and ``y = relu(w·x + b)``: the larger of the two knapsacks ``max {α·x : x in box, w·x +
b <= 0}`` (``y = 0``) and ``max {(α + βw)·x + βb : x in box, w·x + b >= 0}`` (``y = w·x + b``).
:func:`pair_cut_rhs` does the same for a row ``α·x + β_a·relu(w_a·x + b_a) + β_b·relu(w_b·x +
b_b) <= δ`` of two neurons with the same inputs (a neuron of ``a`` and its copy in ``b``): per
sign region of the two pre-activations a knapsack with the first neuron's half-space, the
second's taken into the objective with a given multiplier ``μ >= 0`` (weak duality: an upper
bound of the region's maximum for every ``μ >= 0``, equal to it at the best ``μ``).
It is how the branch-and-bound search makes a cut separated in floats valid (the convex-hull
cuts of one neuron of Anderson et al., "Strong mixed-integer programming formulations for
trained neural networks", Math. Prog. 183 (2020)), and how the
checker of ``bab_bound`` certificates re-proves one, with no trust in where it came from
(three-layer-fibers R31).

>>> from algebra.rationals import Q
>>> box = [(Q(0), Q(1)), (Q(0), Q(1))]
>>> max_over_box_halfspace([Q(1), Q(1)], box, [Q(1), Q(1)], Q(-1))     # x + y <= 1
1
>>> relu_cut_rhs([Q(-1), Q(0)], Q(1), [Q(1), Q(1)], Q(-1), box)        # y - x_0 <= δ
0
"""

from __future__ import annotations

import math

from algebra.rationals import Q

__all__ = ["max_over_box_halfspace", "relu_cut_rhs", "pair_cut_rhs", "pair_region_max", "PAIR_REGIONS"]

_Z = Q(0)


def max_over_box_halfspace(c, box, a, b):
    """``max {c·x : lo <= x <= hi, a·x + b <= 0}`` exactly, or None when that set is empty.

    *c*, *a* are lists of rationals, *box* a list of ``(lo, hi)`` (``lo <= hi``), *b* a
    rational.

    >>> from algebra.rationals import Q
    >>> max_over_box_halfspace([Q(1)], [(Q(0), Q(4))], [Q(2)], Q(-3))    # 2x <= 3
    3/2
    >>> max_over_box_halfspace([Q(1)], [(Q(2), Q(4))], [Q(1)], Q(0)) is None
    True
    """
    x, total, row = [], _Z, b
    for ck, ak, (lo, hi) in zip(c, a, box):
        if ck > 0 or (ck == 0 and ak < 0):
            v = hi
        else:
            v = lo
        x.append(v)
        total += ck * v
        row += ak * v
    if row <= 0:
        return total
    items = []                     # (objective lost when x_k moves fully to its other end, row gain)
    for k, (ck, ak, (lo, hi)) in enumerate(zip(c, a, box)):
        other = lo if x[k] == hi else hi
        gain = ak * (x[k] - other)     # the decrease of a·x when x_k moves fully to *other*
        if gain > 0:
            items.append((abs(ck * (x[k] - other)), gain))
    got = _greedy_by_floats(items, total, row)
    return _greedy_exact(items, total, row) if got is False else got


def _greedy_exact(items, total, row):
    """The greedy of :func:`max_over_box_halfspace` on *items* ``(cost, gain)`` (``gain > 0``)
    sorted by their exact ratios ``cost/gain``: the maximum ``total − (cost of moving until the
    row's excess *row* is gone)``, or None when every item together does not remove it."""
    for ratio, gain in sorted(((cost / gain, gain) for cost, gain in items), key=lambda t: t[0]):
        if gain >= row:
            return total - ratio * row
        total -= ratio * gain
        row -= gain
    return None


def _greedy_by_floats(items, total, row):
    """The greedy of :func:`max_over_box_halfspace` on *items* ``(cost, gain)`` (``gain > 0``)
    ordered by the float ratios ``cost/gain``, the order proved exactly afterwards: the items
    moved fully before the critical one ``h`` must have ``cost_k <= r·gain_k`` and the others
    ``cost_k >= r·gain_k``, with ``r = cost_h/gain_h`` (then the greedy point is optimal
    whatever the order, ties included: the dual multiplier ``r`` proves it).  The exact value,
    None (the half-space misses the box), or False when the floats' order is not proved (the
    caller sorts exactly)."""
    def key(i):
        cost, gain = items[i]
        try:
            g = float(gain)
            return float(cost) / g if g > 0 else math.inf  # (an underflow: the order is checked)
        except OverflowError:                              # (a rational beyond the floats: the
            return math.inf                                #  order is checked all the same)

    order = sorted(range(len(items)), key=key)
    for m, i in enumerate(order):
        cost, gain = items[i]
        if gain >= row:
            r = cost / gain
            if all(items[k][0] <= r * items[k][1] for k in order[:m]) and all(
                    items[k][0] >= r * items[k][1] for k in order[m + 1:]):
                return total - r * row
            return False
        total -= cost
        row -= gain
    return None


def relu_cut_rhs(alpha, beta, w, b, box):
    """The least ``δ`` with ``α·x + β·relu(w·x + b) <= δ`` for every ``x`` in *box* (exact).

    >>> from algebra.rationals import Q
    >>> relu_cut_rhs([Q(0)], Q(1), [Q(1)], Q(0), [(Q(-1), Q(2))])       # relu(x) <= 2
    2
    """
    off = max_over_box_halfspace(alpha, box, w, b)
    on = max_over_box_halfspace([u + beta * v for u, v in zip(alpha, w)], box, [-v for v in w], -b)
    if on is not None:
        on += beta * b
    if off is None:
        return on
    return off if on is None or off >= on else on


# the four sign regions (a active, b active) of :func:`pair_cut_rhs`, in the order of its multipliers
PAIR_REGIONS = ((1, 1), (1, 0), (0, 1), (0, 0))


def pair_cut_rhs(alpha, beta_a, beta_b, wa, ba, wb, bb, box, mus):
    """A valid ``δ`` (exact) of ``α·x + β_a·relu(w_a·x + b_a) + β_b·relu(w_b·x + b_b) <= δ`` on
    *box* (three-layer-fibers R32): the largest over the four sign regions (:data:`PAIR_REGIONS`; *mus* one ``μ >= 0``
    per region) of ``max {c·x : x in box, σ_a (w_a·x + b_a) <= 0} + k``, where the region's
    linear function ``c·x + k`` is the row's left side there minus ``μ·σ_b (w_b·x + b_b)``
    (``σ = −1`` on an active side, ``+1`` on an inactive one): at least the row's maximum on the
    region for every ``μ >= 0`` (which is required: ValueError otherwise).  None when every
    region is empty (only for an empty box).

    >>> from algebra.rationals import Q
    >>> box = [(Q(-1), Q(1))]
    >>> mus = [Q(0), Q(1), Q(2), Q(0)]
    >>> pair_cut_rhs([Q(0)], Q(1), Q(-1), [Q(1)], Q(0), [Q(1)], Q(-1, 2), box, mus)  # relu(x) − relu(x − 1/2)
    1/2
    >>> pair_cut_rhs([Q(0)], Q(1), Q(-1), [Q(1)], Q(0), [Q(1)], Q(-1, 2), box, [Q(0)] * 4)  # valid, loose
    3/2
    """
    best = None
    for region, mu in zip(PAIR_REGIONS, mus):
        m = pair_region_max(alpha, beta_a, beta_b, wa, ba, wb, bb, box, region, mu)
        if m is not None and (best is None or m > best):
            best = m
    return best


def pair_region_max(alpha, beta_a, beta_b, wa, ba, wb, bb, box, region, mu):
    """The bound of :func:`pair_cut_rhs` on one sign region ``(a active, b active)`` with the
    multiplier *mu* ``>= 0`` (ValueError otherwise), or None when the box meets no point of
    the first neuron's side."""
    if mu < 0:
        raise ValueError("a pair cut's multiplier must be >= 0")
    act_a, act_b = region
    sa, sb = (-1 if act_a else 1), (-1 if act_b else 1)
    c, k = list(alpha), _Z
    if act_a:
        c = [u + beta_a * v for u, v in zip(c, wa)]
        k += beta_a * ba
    if act_b:
        c = [u + beta_b * v for u, v in zip(c, wb)]
        k += beta_b * bb
    if mu != 0:
        c = [u - mu * sb * v for u, v in zip(c, wb)]
        k -= mu * sb * bb
    m = max_over_box_halfspace(c, box, [sa * v for v in wa], sa * ba)
    return None if m is None else m + k
