"""The trusted kernel's knapsack (:mod:`algebra.kernel.knapsack`, three-layer-fibers R31) against brute force.

The oracle enumerates, with :class:`fractions.Fraction` only, every vertex of ``{lo <= x <= hi,
a·x + b <= 0}``: a vertex has every coordinate at an end of its interval except at most one,
which then solves ``a·x + b = 0`` (an LP over a polytope attains its maximum at a vertex).
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

from hypothesis import given, settings, strategies as st

from algebra.kernel.knapsack import max_over_box_halfspace, relu_cut_rhs
from algebra.rationals import Q


def _vertices(box, a, b):
    """Every vertex of ``box ∩ {a·x + b <= 0}`` (Fractions)."""
    n = len(box)
    out = []
    for free in [None] + list(range(n)):
        fixed = [k for k in range(n) if k != free]
        for ends in itertools.product((0, 1), repeat=len(fixed)):
            x = [None] * n
            for k, e in zip(fixed, ends):
                x[k] = box[k][e]
            if free is not None:
                if a[free] == 0:
                    continue
                rest = b + sum(a[k] * x[k] for k in fixed)
                v = -rest / a[free]
                if not box[free][0] <= v <= box[free][1]:
                    continue
                x[free] = v
            if sum(ak * xk for ak, xk in zip(a, x)) + b <= 0:
                out.append(x)
    return out


def _brute_max(c, box, a, b):
    vals = [sum(ck * xk for ck, xk in zip(c, x)) for x in _vertices(box, a, b)]
    return max(vals) if vals else None


def _q(v):
    return Q(v.numerator, v.denominator)


def _f(v):
    return F(int(v.p), int(v.q))


num = st.fractions(min_value=-4, max_value=4, max_denominator=4)


@st.composite
def instances(draw):
    n = draw(st.integers(1, 4))
    box = []
    for _ in range(n):
        lo, hi = sorted((draw(num), draw(num)))
        box.append((lo, hi))
    c = [draw(num) for _ in range(n)]
    a = [draw(num) for _ in range(n)]
    return c, box, a, draw(num)


@settings(max_examples=100, deadline=None)
@given(instances())
def test_knapsack_equals_vertex_enumeration(case):
    c, box, a, b = case
    got = max_over_box_halfspace([_q(v) for v in c], [(_q(lo), _q(hi)) for lo, hi in box], [_q(v) for v in a], _q(b))
    want = _brute_max(c, box, a, b)
    assert (got is None) == (want is None)
    if want is not None:
        assert _f(got) == want


@settings(max_examples=80, deadline=None)
@given(instances(), num)
def test_relu_cut_rhs_equals_brute_force(case, beta):
    """``max α·x + β·relu(w·x + b)`` over the box: the vertices of its two linear pieces."""
    alpha, box, w, b = case
    off = _brute_max(alpha, box, w, b)
    on = _brute_max([u + beta * v for u, v in zip(alpha, w)], box, [-v for v in w], -b)
    on = None if on is None else on + beta * b
    want = max(v for v in (off, on) if v is not None)
    got = relu_cut_rhs([_q(v) for v in alpha], _q(beta), [_q(v) for v in w], _q(b),
                       [(_q(lo), _q(hi)) for lo, hi in box])
    assert _f(got) == want


def test_knapsack_cases():
    box = [(Q(0), Q(1))] * 3
    # max x0 + x1 + x2 with x0 + 2 x1 + 4 x2 <= 2: take x0, then x1 (ratio 1/2), x2 last
    assert max_over_box_halfspace([Q(1)] * 3, box, [Q(1), Q(2), Q(4)], Q(-2)) == Q(3, 2)
    assert max_over_box_halfspace([Q(1)], [(Q(1), Q(2))], [Q(1)], Q(0)) is None       # x <= 0 misses [1, 2]
    # relu(x0 - x1) <= 1 on the unit box; x0 - relu(x0 - x1) <= 1 (at x0 = x1 = 1)
    assert relu_cut_rhs([Q(0), Q(0)], Q(1), [Q(1), Q(-1)], Q(0), box[:2]) == 1
    assert relu_cut_rhs([Q(1), Q(0)], Q(-1), [Q(1), Q(-1)], Q(0), box[:2]) == 1


def _near_ties(draw):
    """Items ``(cost, gain)`` whose ratios differ by ``2^-80`` relative (the same float), or are
    equal, or whose gain underflows a float, and a row excess among their partial sums."""
    base = draw(st.fractions(min_value=F(1, 8), max_value=8, max_denominator=8))
    items = []
    for _ in range(draw(st.integers(2, 6))):
        gain = draw(st.sampled_from([F(1), F(1, 3), F(7, 2), F(1, 2 ** 1100)]))
        r = base * (1 + F(draw(st.integers(-3, 3)), 2 ** 80))
        items.append((r * gain, gain))
    total = sum(g for _, g in items)
    row = total * draw(st.fractions(min_value=F(1, 16), max_value=F(17, 16), max_denominator=16))
    return [(_q(c), _q(g)) for c, g in items], _q(row)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_greedy_in_float_order_equals_exact_order(data):
    """The float-ordered greedy (its order proved exactly afterwards) gives the exact greedy's
    value or defers to it (False): near ties, equal ratios, underflowing gains."""
    from algebra.kernel.knapsack import _greedy_by_floats, _greedy_exact
    items, row = _near_ties(data.draw)
    want = _greedy_exact(items, Q(5), row)
    got = _greedy_by_floats(items, Q(5), row)
    assert got is False or got == want


def test_greedy_in_float_order_defers_when_the_floats_misorder():
    """Two items whose ratios 1 and 1 + 2^-80 are one float: the float order may put the dearer
    one first; the exact check then defers (False) and the exact greedy takes the cheaper one."""
    from algebra.kernel.knapsack import _greedy_by_floats, _greedy_exact
    dear, cheap = (Q(2 ** 80 + 1, 2 ** 80), Q(1)), (Q(1), Q(1))
    want = _greedy_exact([dear, cheap], Q(0), Q(1, 2))
    assert want == Q(-1, 2)                          # half of the cheap item
    assert _greedy_by_floats([dear, cheap], Q(0), Q(1, 2)) in (False, want)
    assert _greedy_by_floats([dear, cheap], Q(0), Q(1, 2)) is False     # (the stable sort keeps dear first)
    # through the public function: x_0 costs 1 + 2^-80 per unit of row, x_1 costs 1
    box = [(Q(0), Q(1))] * 2
    assert max_over_box_halfspace([Q(2 ** 80 + 1, 2 ** 80), Q(1)], box, [Q(1), Q(1)], Q(-3, 2)) == Q(
        2 ** 80 + 1, 2 ** 80) + Q(1, 2)                       # x_1 moved down first: x = (1, 1/2)
    assert _greedy_exact([dear, cheap], Q(0), Q(3)) is None       # the row excess exceeds every gain
    assert _greedy_by_floats([dear, cheap], Q(0), Q(3)) is None


def test_greedy_in_float_order_takes_rationals_beyond_the_floats():
    """``float()`` of a rational above ~1e308 raises OverflowError (python-flint): the float
    order must not crash the kernel (the checker calls it on certificate numbers) and the value
    must equal the exact sort's (found at merge review)."""
    import random
    from algebra.kernel import knapsack as K
    big, rng = Q(10) ** 400, random.Random(1)
    for _ in range(200):
        c = [Q(rng.randint(-5, 5)) * (big if rng.random() < 0.3 else 1) for _ in range(4)]
        a = [Q(rng.randint(-5, 5)) * (big if rng.random() < 0.3 else 1) for _ in range(4)]
        box, b = [(Q(-1), Q(1))] * 4, Q(rng.randint(-3, 3))
        items_exact = K._greedy_by_floats
        try:
            K._greedy_by_floats = lambda *_: False
            want = K.max_over_box_halfspace(c, box, a, b)
        finally:
            K._greedy_by_floats = items_exact
        assert K.max_over_box_halfspace(c, box, a, b) == want
