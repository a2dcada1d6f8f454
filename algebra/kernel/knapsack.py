r"""Exact maximum of a linear function over a box cut by one half-space (a fractional knapsack),
and the right-hand side of a valid inequality of one ReLU neuron over a box.

``max c·x`` over ``{lo <= x <= hi, a·x + b <= 0}`` is a linear programme with one row: start at
the box's maximiser of ``c`` (on a coordinate with ``c_k = 0`` the end of smaller ``a_k x_k``),
and, while the row is violated, move the coordinates towards their other end in the order of
the objective lost per unit of ``a·x`` gained (the greedy of the fractional knapsack, optimal
by the exchange argument: Dantzig 1957), the last one partly.  Exact over Q, ``O(n log n)``.

:func:`relu_cut_rhs` is the least ``δ`` such that ``α·x + β·y <= δ`` holds for every ``x`` in
the box and ``y = relu(w·x + b)``: the larger of the two knapsacks ``max {α·x : x in box, w·x +
b <= 0}`` (``y = 0``) and ``max {(α + βw)·x + βb : x in box, w·x + b >= 0}`` (``y = w·x + b``).
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

from algebra.rationals import Q

__all__ = ["max_over_box_halfspace", "relu_cut_rhs"]

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
    items = []                     # (objective lost per unit of row, row gain available, cost per unit)
    for k, (ck, ak, (lo, hi)) in enumerate(zip(c, a, box)):
        other = lo if x[k] == hi else hi
        gain = ak * (x[k] - other)     # the decrease of a·x when x_k moves fully to *other*
        if gain > 0:
            items.append((abs(ck * (x[k] - other)) / gain, gain))
    items.sort(key=lambda t: t[0])
    for ratio, gain in items:
        if gain >= row:
            return total - ratio * row
        total -= ratio * gain
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
