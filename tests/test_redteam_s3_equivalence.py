"""Red team (session 3): general equivalence against the z3 oracle, exact interval bounds by
matrix products against a naive loop, ``QMatrix.hstack``, ``to_q_list`` and ``random_batch``.

Bug found: ``equivalent(a, b, domain=(v, v), refutation_samples=0)`` on a one-point box where a
and b differ built a ``region_cover`` certificate for "equal" that its own checker rejected
(CertificateError) instead of answering False with a counterexample.
"""

import random

import pytest
from hypothesis import given, settings, strategies as st

from algebra.exceptions import AlgebraError
from algebra.linalg import QMatrix, interval_image, to_q_list
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.sets import random_batch
from semialgebraic.equivalence import equivalent
from semialgebraic.verify import verify
from algebra.kernel import interval_bounds

from test_redteam_s2_oracle import z3_equivalent


@pytest.mark.parametrize("samples", [0, 32])
def test_one_point_box_without_refutation_samples(samples):
    a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])          # |x|
    b = Network.from_rows([[[1]], [[1]]], [[0], [0]])                      # relu(x)
    for v0, same in ((Q(1, 2), True), (Q(-1, 2), False), (Q(0), True)):
        v = equivalent(a, b, method="general", domain=(v0, v0), refutation_samples=samples)
        assert v.answer is same
        assert verify(v.certificate)[0] is True
        assert v.certificate["type"] == ("region_cover" if same else "counterexample")


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


@pytest.mark.parametrize("dom", [None, "orthant", (Q(-1, 3), Q(5, 2)), (Q(2), Q(2))])
def test_random_batch_points_lie_in_the_domain(dom):
    X = random_batch(random.Random(1), 50, 3, dom)
    assert X.shape == (50, 3)
    for row in X.to_rows():
        if dom == "orthant":
            assert all(v > 0 for v in row)
        elif isinstance(dom, tuple):
            assert all(dom[0] <= v <= dom[1] for v in row)
            if dom[0] < dom[1]:
                assert all(dom[0] < v < dom[1] for v in row)


# -- general equivalence versus z3 ---------------------------------------------------------------
def _lists(net):
    return [w.to_rows() for w in net.weights], [list(b) for b in net.biases]


def _random_net(rng):
    d = rng.choice([1, 2])
    depth = rng.choice([2, 3])
    widths = [d] + [rng.randint(1, 3) for _ in range(depth - 1)] + [1]
    vals = [-2, -1, 0, 1, 1, 2, Q(1, 2)]
    return Network.from_rows([[[Q(rng.choice(vals)) for _ in range(widths[l])] for _ in range(widths[l + 1])]
                              for l in range(depth)],
                             [[Q(rng.choice(vals)) for _ in range(widths[l + 1])] for l in range(depth)])


def _planted_pair(rng, a, dom):
    """b: a permuted and positively rescaled, then one of: a dead neuron added (exactly dead, or
    alive in a corner of width 1e-4), a neuron split in two, an identity layer, a bump of width
    2e-5 added, or nothing."""
    Ws, bs = _lists(a)
    for l in range(a.depth - 1):
        perm = list(range(len(Ws[l])))
        rng.shuffle(perm)
        sc = [Q(rng.choice([1, 2, 3]), rng.choice([1, 2, 5])) for _ in perm]
        Ws[l] = [[v * sc[p] for v in Ws[l][p]] for p in perm]
        bs[l] = [bs[l][p] * sc[p] for p in perm]
        Ws[l + 1] = [[row[p] / sc[p] for p in perm] for row in Ws[l + 1]]
    kind = rng.choice(["dead", "near", "split", "ident", "bump", "none"])
    d = a.n_inputs
    if kind in ("dead", "near"):
        lo, hi = dom if isinstance(dom, tuple) else (Q(0), Q(0))
        row = [Q(rng.choice([-1, 1, 2])) for _ in range(d)]
        mx = sum((max(w * lo, w * hi) for w in row), Q(0)) if isinstance(dom, tuple) else None
        if mx is None:                       # R^d or the orthant: a constant neuron
            row = [Q(0)] * d
            mx = Q(0)
        Ws[0].append(row)
        bs[0].append(-mx + (Q(1, 10 ** 4) if kind == "near" else Q(-1, 3)))
        for r in Ws[1]:
            r.append(Q(rng.choice([-3, 1, 2])))
    elif kind == "split":
        l = rng.randrange(a.depth - 1)
        i = rng.randrange(len(Ws[l]))
        t = Q(rng.choice([1, 2, 3]), 4)
        Ws[l].append(list(Ws[l][i]))
        bs[l].append(bs[l][i])
        for r in Ws[l + 1]:
            r[i], v = r[i] * t, r[i]
            r.append(v * (1 - t))
    elif kind == "ident":
        W, b = Ws[-1], bs[-1]
        m = len(W)
        Ws = Ws[:-1] + [W + [[-v for v in r] for r in W],
                        [[Q(1) if j == i else Q(-1) if j == i + m else Q(0) for j in range(2 * m)] for i in range(m)]]
        bs = bs[:-1] + [b + [-v for v in b], [Q(0)] * m]
    elif kind == "bump":
        c = dom[0] + (dom[1] - dom[0]) * Q(rng.randint(1, 3), 4) if isinstance(dom, tuple) else Q(rng.randint(1, 4))
        e = Q(1, 10 ** 5)
        k = rng.randrange(d)
        for off in (0, 1, 2):
            Ws[0].append([Q(1) if j == k else Q(0) for j in range(d)])
            bs[0].append(-c - off * e)
            for r in Ws[1]:
                r.append(Q(0))
        Ws[1][0][-3:] = [Q(1), Q(-2), Q(1)]
    return Network.from_rows(Ws, bs), kind


def _check_pair(seed):
    rng = random.Random(seed)
    a = _random_net(rng)
    dom = rng.choice([None, "orthant", (Q(0), Q(1)), (Q(-1), Q(2)), (Q(1, 2), Q(1, 2))])
    b, kind = _planted_pair(rng, a, dom)
    z = z3_equivalent(a, b, dom)
    for samples in (32, 0):
        v = equivalent(a, b, method="general", domain=dom, timeout=30, refutation_samples=samples)
        if v.answer is not None and z is not None:
            assert v.answer is z, (seed, kind, samples)
        if v.certificate is not None:
            assert verify(v.certificate)[0] is True


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_general_equivalence_agrees_with_z3(seed):
    _check_pair(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(200))
def test_general_equivalence_agrees_with_z3_slow(seed):
    _check_pair(seed)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_reduced_difference_replays_and_keeps_the_function(seed):
    """The steps of reduced_difference (bounds cached across steps) replay exactly with the
    checker's apply_reduction (bounds recomputed), and the reduced network is a - b on the domain."""
    from semialgebraic.equivalence import reduced_difference
    from algebra.kernel import difference_network
    from semialgebraic.verify.region_cover import apply_reduction
    rng = random.Random(seed)
    a = _random_net(rng)
    dom = rng.choice([None, "orthant", (Q(0), Q(1)), (Q(-1), Q(2))])
    b, _ = _planted_pair(rng, a, dom)
    if a.depth != b.depth:
        return
    D, steps = reduced_difference(a, b, domain=dom)
    R = apply_reduction(difference_network(a, b), steps, dom)
    assert [w.to_rows() for w in R.weights] == [w.to_rows() for w in D.weights]
    assert [list(v) for v in R.biases] == [list(v) for v in D.biases]
    for x in random_batch(rng, 20, a.n_inputs, dom).to_rows():
        assert D(x) == tuple(u - v for u, v in zip(a(x), b(x)))
