"""S6–S8 and the bottleneck helper steps (three-layer-fibers R13–R15): exact apply, check,
inverse, generator, JSON; refusals with reasons."""

import random

import pytest

from algebra.exceptions import InvalidStepError
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries import apply_path, step_from_json
from algebra.symmetries.bottleneck import KinkSwap, SignFlip, TranslateMasked, masked_column, s6_interval
from algebra.symmetries.bottleneck_paths import (FreeFirstLayer, PermuteHidden, RescaleHidden,
                                               TailRefactor)

from tests.cases.bottleneck import T1, T4a, T4b, T4ca, T7a, T7b, T7ctl_b1, T11, T1_t

GRID = [Q(p, q) for p in range(-7, 8) for q in (1, 3)]


def _agree(a, b, d, n=300, seed=0):
    rng = random.Random(seed)
    for _ in range(n):
        x = [rng.choice(GRID) for _ in range(d)]
        if a(x) != b(x):
            return False
    return True


def test_s6_interval_and_apply_T1():
    assert masked_column(T1) == 0
    assert s6_interval(T1, 0) == (Q(-1), Q(3, 2))
    for t in ("1/2", "-1/2", 1, "7/5", "-9/10", -1, "3/2"):
        st = TranslateMasked(0, t)
        assert st.check(T1)[0]
        assert st.apply(T1) == T1_t(Q(t) if isinstance(t, int) else Q(*map(int, str(t).split("/"))))
    for t in (2, "-3/2"):
        ok, why = TranslateMasked(0, t).check(T1)
        assert not ok and "outside the interval [-1, 3/2]" in why
        with pytest.raises(InvalidStepError):
            TranslateMasked(0, t).apply(T1)
    assert not TranslateMasked(1, 0).check(T1)[0]


def test_s6_inverse_generator_json():
    st = TranslateMasked(0, "7/5")
    img = st.apply(T1)
    assert st.inverse(T1).apply(img) == T1
    assert step_from_json(st.to_json()) == st
    (v,) = st.generator(T1)
    names = T1.parameter_names()
    nz = {names[k]: x for k, x in enumerate(v) if x != 0}
    assert nz == {"b1[0]": 1, "b2[0]": -1, "b2[1]": 2}
    assert s6_interval(T11, 0) == (Q(-1), None)


def test_s7_T7_and_controls():
    st = SignFlip(0, [1])
    assert st.check(T7a)[0]
    assert st.apply(T7a) == T7b
    assert st.inverse(T7a).apply(T7b) == T7a
    assert step_from_json(st.to_json()) == st
    ok, why = SignFlip(0, [1]).check(T7ctl_b1)
    assert not ok and "exactly one non-dead" in why
    x = [Q(1), Q(-1, 2)]
    assert T7a(x) != Network.from_rows([[[1, 0], [0, -1]], [[2, -1]], [[1]]], [[0, 0], [-1], [0]])(x)


def test_s8_T4_and_control():
    st = KinkSwap()
    assert st.check(T4a)[0]
    assert st.apply(T4a) == T4b
    assert st.apply(T4b) == T4a          # involution
    # the control: R15's one-row map is not a symmetry of T4ca (T4cb differs), but the kink swap
    # of every (- | +) row is (found by tests/fuzz/symmetry_campaign.py)
    ok, why = st.check(T4ca)
    assert ok and "every non-dead row" in why
    alt = Network.from_rows([[[-1]], [[-2], [-1]], [[1, -7]]], [[2], [1, 2], [13]])
    assert st.apply(T4ca) == alt and st.apply(alt) == T4ca
    for x in (-1, 0, Q(1, 2), 1, Q(7, 4), 2, 3):
        assert T4ca([x]) == alt([x])
    ok, why = st.check(T1)
    assert not ok and "n1 = 1" in why
    ok, why = st.check(Network.from_rows([[[1]], [[-2], [1]], [[1, 5]]], [[0], [3, -2], [0]]))
    assert not ok and "row 1" in why
    for x, y in [(-1, 3), (0, 3), (Q(1, 2), 2), (1, 1), (Q(3, 2), 0), (2, 0)]:
        assert T4a([x]) == (Q(y),) == T4b([x])


def test_helper_steps_roundtrip_and_refusals():
    steps = [PermuteHidden(1, [1, 0]), RescaleHidden(2, 1, "3/2"),
             TailRefactor({1: ((-1, -1, -5), (3,))}, (0,))]
    img = apply_path(T1, steps)
    assert _agree(T1, img, 2)
    for s in steps:
        assert step_from_json(s.to_json()).to_json() == s.to_json()
    assert not RescaleHidden(1, 0, -1).check(T1)[0]
    ok, why = TailRefactor({0: ((1, -1, -1), (2,))}, (0,)).check(T1)
    assert not ok and "neither dead, linear" in why
    ok, why = TailRefactor({1: ((-1, -1, -5), (3,))}, (1,)).check(T1)
    assert not ok and "affine part" in why
    assert not FreeFirstLayer([[2, 0], [0, 2]], [0, 0]).check(T1)[0]
    const = Network.from_rows([[[1, 0], [0, 1]], [[-1, -1]], [[3]]], [[0, 0], [-1], [2]])
    st = FreeFirstLayer([[5, 1], [0, -2]], [1, 1])
    assert st.check(const)[0] and _agree(const, st.apply(const), 2)


def test_random_step_identities_exact():
    """Every valid S6/S7/S8 step keeps the function (exact evaluation on a rational grid)."""
    from semialgebraic.bottleneck import random_symmetric_copy
    from tests.cases.bottleneck import planted
    rng = random.Random(3)
    for k, (d, n1, rows) in enumerate([(2, 2, ["+-|-", "--|-"]), (3, 3, ["+--|-", "---|-"]),
                                       (1, 1, ["-|+", "-|-"]), (3, 2, ["++|+", "+-|+"])]):
        net = planted(rng, d, n1, rows)
        img, steps = random_symmetric_copy(net, seed=k, number_of_steps=6,
                                           first=("s6", "s7", "s8", "s5"))
        assert steps and _agree(net, img, d, seed=k)
