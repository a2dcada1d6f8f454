"""ε-equivalence on planted pairs (issue 15, ``netfibers equiv A B DOMAIN --epsilon E``): a
float16 near copy with a bump of height ``H`` planted on a slab of width ``2/1000`` (three ReLUs
of the same rows in both networks, a tent of ``x_1`` in ``b`` only), so the maximum of
``|a − b|`` sits on a tiny region.  The oracle is the region walk's exact maximum ``M``
(:func:`semialgebraic.equivalence.max_deviation`); ``ε`` just below ``M`` must give "no" with a
point where ``|a − b| > ε`` (evaluated exactly here), ``ε = M`` and just above "yes" with a
certificate the checker accepts and ``upper <= ε``.  Both searches are exercised: the small
near copies' (no LP tightening, input splits above d kinks, :func:`semialgebraic.bab.diff.
_small_pair`) and the default one (``_SMALL_RELUS`` set to 0)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff, epsilon_equivalent
from semialgebraic.equivalence import max_deviation
from semialgebraic.verify import verify

_P, _R = Fraction(1, 3), Fraction(1, 1000)     # the bump's centre on x_1 and half-width


def bump_pair(seed: int, height: Fraction, hidden: int = 6):
    """``(a, b)``: a He-normal 2-``hidden``+3-1 net (float32) and its float16 copy, the three last
    hidden neurons ``relu(x_1 − p + r)``, ``relu(x_1 − p)``, ``relu(x_1 − p − r)`` in both, weighted
    ``0`` in ``a`` and ``(1, −2, 1)·height/r`` in ``b`` (a tent of peak *height* at ``x_1 = p``)."""
    rng = np.random.default_rng(seed)
    W1 = rng.normal(0, 1, (hidden, 2))
    b1 = rng.normal(0, 0.01, hidden)
    W2 = rng.normal(0, (2 / hidden) ** 0.5, (1, hidden))
    b2 = rng.normal(0, 0.01, 1)
    tent_rows = [[Fraction(1), Fraction(0)]] * 3
    tent_bias = [-_P + _R, -_P, -_P - _R]
    k = height / _R

    def net(dtype, tent_out):
        rows1 = [[Fraction(float(v)) for v in row] for row in W1.astype(dtype)] + tent_rows
        bias1 = [Fraction(float(v)) for v in b1.astype(dtype)] + tent_bias
        rows2 = [[Fraction(float(v)) for v in W2.astype(dtype)[0]] + tent_out]
        return Network.from_rows([rows1, rows2], [bias1, [Fraction(float(b2.astype(dtype)[0]))]])
    return net(np.float32, [Fraction(0)] * 3), net(np.float16, [k, -2 * k, k])


def _gap(a, b, x):
    return max(abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x)))


def _decide(a, b, eps):
    ans, r = epsilon_equivalent(a, b, (Q(-1), Q(1)), eps)
    if ans is True:
        assert r.upper is not None and r.upper <= eps and verify(r.certificate)[0]
    elif ans is False:
        assert _gap(a, b, r.point) > eps and r.lower > eps
    return ans


@pytest.mark.parametrize("seed,height", [(0, Fraction(1, 100)), (1, Fraction(-1, 50)),
                                         (4, Fraction(1, 1000)), (5, Fraction(-1, 1000))])
def test_a_bump_just_above_or_below_epsilon(seed, height):
    a, b = bump_pair(seed, height)
    dev = max_deviation(a, b, (Q(-1), Q(1)))
    assert dev.complete
    M = dev.value
    assert abs(dev.point[0] - Q(1, 3)) <= Q(1, 1000)         # the maximum sits on the planted slab
    tiny = Q(1, 10 ** 12)
    assert _decide(a, b, M - tiny) is False
    assert _decide(a, b, M) is True
    assert _decide(a, b, M + tiny) is True
    assert diff._small_pair(a, b)                 # (the small near copies' search ran)


def test_the_default_search_agrees_on_a_bump(monkeypatch):
    a, b = bump_pair(3, Fraction(1, 100))
    M = max_deviation(a, b, (Q(-1), Q(1))).value
    monkeypatch.setattr(diff, "_SMALL_RELUS", 0)
    assert not diff._small_pair(a, b)
    assert _decide(a, b, M - Q(1, 10 ** 12)) is False
    assert _decide(a, b, M) is True


def test_kinks_count_a_twin_pair_once():
    # one hidden layer of a − b: [a_0, a_1 | b_0, b_1]; a_0 and b_0 unstable (a twin pair), a_1
    # stable and b_1 unstable: two kinks; the output layer is not counted
    ivs = [[(Q(-1), Q(1)), (Q(1), Q(2)), (Q(-1), Q(1)), (Q(-1), Q(3))], [(Q(-5), Q(5))]]
    assert diff._kinks(ivs) == 2
    ivs[0][3] = (Q(0), Q(3))
    assert diff._kinks(ivs) == 1
