"""Exact interval images and bounds (``algebra.linalg.interval_image``,
``algebra.kernel.interval_bounds``) against a naive loop, ``QMatrix.hstack`` against row-wise
concatenation, and ``to_q_list`` / ``QMatrix.from_rows`` refusing floats, bools and nan."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from algebra.exceptions import AlgebraError
from algebra.kernel import interval_bounds
from algebra.linalg import QMatrix, interval_image, to_q_list
from algebra.rationals import Q


# -- exact interval bounds ----------------------------------------------------------------------
def _naive_image(rows, box, offset):
    out = []
    for r, c in zip(rows, offset):
        lo = hi = c
        for w, (a, b) in zip(r, box):
            if w == 0:
                continue
            lo_t, hi_t = (a, b) if w > 0 else (b, a)
            lo = None if lo is None or lo_t is None else lo + w * lo_t
            hi = None if hi is None or hi_t is None else hi + w * hi_t
        out.append((lo, hi))
    return out


_VALS = [0, 0, 1, -1, 2, Q(1, 3), Q(-5, 7)]


_SIDE = st.one_of(st.none(), st.fractions(min_value=-3, max_value=3, max_denominator=5))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_interval_image_matches_naive_loop(n, c, data):
    rows = [[Q(data.draw(st.sampled_from(_VALS))) for _ in range(c)] for _ in range(n)]
    offset = [Q(data.draw(st.sampled_from(_VALS))) for _ in range(n)]
    box = []
    for _ in range(c):
        a, b = data.draw(_SIDE), data.draw(_SIDE)
        a = None if a is None else Q(a.numerator, a.denominator)
        b = None if b is None else Q(b.numerator, b.denominator)
        if a is not None and b is not None and a > b:
            a, b = b, a
        box.append((a, b))
    assert interval_image(rows, box, offset) == _naive_image(rows, box, offset)


def _naive_bounds(Ws, bs, d, lo_hi):
    box = [(None, None)] * d if lo_hi is None else [(Q(0), None)] * d if lo_hi == "orthant" else [lo_hi] * d
    out = []
    for W, b in zip(Ws, bs):
        layer = _naive_image(W, box, b)
        out.append(layer)
        box = [(Q(0) if lo is None or lo < 0 else lo, None if hi is None else max(hi, Q(0))) for lo, hi in layer]
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_interval_bounds_with_start_match_from_scratch(seed):
    rng = random.Random(seed)
    d = rng.randint(1, 3)
    widths = [d] + [rng.randint(1, 3) for _ in range(rng.randint(1, 4))]
    Ws = [[[Q(rng.choice(_VALS)) for _ in range(widths[l])] for _ in range(widths[l + 1])]
          for l in range(len(widths) - 1)]
    bs = [[Q(rng.choice(_VALS)) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    dom = rng.choice([None, "orthant", (Q(-1), Q(2)), (Q(1, 2), Q(1, 2))])
    full = interval_bounds(Ws, bs, d, dom)
    assert full == _naive_bounds(Ws, bs, d, dom)
    k = rng.randint(1, len(Ws) - 1) if len(Ws) > 1 else None
    if k is not None:
        assert full[:k] + interval_bounds(Ws[k:], bs[k:], d, dom, start=full[k - 1]) == full


# -- QMatrix.hstack, to_q_list, random_batch ---------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=1, max_size=4), st.integers(0, 10 ** 6))
def test_hstack_matches_rowwise_concatenation(n, widths, seed):
    rng = random.Random(seed)
    blocks = [QMatrix.from_rows([[Q(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(k)] for _ in range(n)],
                                ncols=k) for k in widths]
    H = QMatrix.hstack(blocks)
    assert H.shape == (n, sum(widths))
    assert [list(H.row_at(i)) for i in range(n)] == [sum((list(b.row_at(i)) for b in blocks), []) for i in range(n)]


@pytest.mark.parametrize("bad", [0.5, True, float("nan"), float("inf")])
def test_qs_refuses_floats_bools_nan(bad):
    with pytest.raises(AlgebraError):
        to_q_list([Q(1), bad])
    with pytest.raises(AlgebraError):
        QMatrix.from_rows([[Q(1), bad]])


def test_qs_keeps_exact_values():
    assert to_q_list([Q(1, 3), 2, "1/2"]) == [Q(1, 3), Q(2), Q(1, 2)]
    assert all(type(v) is type(Q(1)) for v in to_q_list([Q(1), 2]))
