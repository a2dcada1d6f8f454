"""One hidden layer: canonical form, equivalence with certificates, fibers.

Random rational nets with planted symmetries must be proved equivalent (symmetry path accepted
by ``verify``); perturbations must be proved different (counterexample accepted by ``verify``),
including differences confined to thin slabs that sampling misses.
"""

import random
from math import factorial

import pytest
from hypothesis import given, settings, strategies as st

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.neurons import hidden_neurons, with_hidden_neurons
from semialgebraic.exceptions import NotApplicableError
from semialgebraic import fiber
from semialgebraic.shallow import (canonical_form, equivalent_shallow, fiber_shallow,
                                   is_switching_on_orthant, jacobian_rank_bound, neuron_types,
                                   positive_factor_rank, separating_point, symmetry_tangent_rank)
from semialgebraic.verify import verify


# -- random nets and planted symmetries ------------------------------------------------------

def rq(rng, lo=-5, hi=5, den=4, nonzero=False):
    while True:
        x = Q(rng.randint(lo, hi), rng.randint(1, den))
        if x != 0 or not nonzero:
            return x


def rnet(rng, d, n, m, nonzero=False):
    return Network([[[rq(rng, nonzero=nonzero) for _ in range(d)] for _ in range(n)],
                    [[rq(rng, nonzero=nonzero) for _ in range(n)] for _ in range(m)]],
                   [[rq(rng, nonzero=nonzero) for _ in range(n)], [rq(rng) for _ in range(m)]])


def plant(net, rng, *, orthant=False):
    """Random permutation, scalings, proportional splits, flips compensated by an antiparallel
    pair, inserted zero-output / constant / duplicated neurons (and dead ones on the orthant)."""
    neurons, c = hidden_neurons(net, 0)
    c = list(c)
    out = []
    d = len(neurons[0][0])
    for w, b, v in neurons:
        r = rng.random()
        if r < 0.2:                                   # split into proportional copies
            t1, t2 = Q(rng.randint(1, 4)), Q(rng.randint(1, 4), 3)
            a = Q(rng.randint(1, 3), 4)
            out.append((tuple(x * t1 for x in w), b * t1, tuple(x * a / t1 for x in v)))
            out.append((tuple(x * t2 for x in w), b * t2, tuple(x * (1 - a) / t2 for x in v)))
        elif r < 0.4:                                 # v σ(h) = v σ(−h)·s/s + v σ(h) − v σ(−h)
            s = Q(rng.randint(1, 3))
            out.append((tuple(-x * s for x in w), -b * s, tuple(x / s for x in v)))
            out.append((w, b, v))
            out.append((tuple(-x for x in w), -b, tuple(-x for x in v)))
        elif r < 0.5:                                 # duplicate: two halves
            out.append((w, b, tuple(x / 2 for x in v)))
            out.append((w, b, tuple(x / 2 for x in v)))
        else:
            lam = Q(rng.randint(1, 5), rng.randint(1, 5))
            out.append((tuple(x * lam for x in w), b * lam, tuple(x / lam for x in v)))
        if rng.random() < 0.2:                        # zero output column
            out.append((tuple(rq(rng) for _ in w), rq(rng), tuple(Q(0) for _ in v)))
        if rng.random() < 0.15:                       # constant neuron, compensated
            bb, vv = rq(rng), tuple(rq(rng) for _ in v)
            out.append((tuple(Q(0) for _ in w), bb, vv))
            c = [ci - vi * max(bb, Q(0)) for ci, vi in zip(c, vv)]
        if orthant and rng.random() < 0.2:            # dead on the orthant, any output
            out.append((tuple(-abs(rq(rng)) for _ in range(d)), -abs(rq(rng)),
                        tuple(rq(rng) for _ in v)))
    rng.shuffle(out)
    return with_hidden_neurons(net, 0, out, c)


def sample_points(rng, d, k, orthant=False):
    return [[Q(rng.randint(0 if orthant else -30, 30), rng.randint(1, 5)) for _ in range(d)]
            for _ in range(k)]


# -- canonical form --------------------------------------------------------------------------

def test_canonical_form_doc_example_and_fingerprint():
    a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    cf = canonical_form(a)
    assert cf.kinks == (((Q(1),), Q(-1), (Q(1),)), ((Q(1),), Q(0), (Q(1),)))
    assert cf.linear == QMatrix.from_rows([[-1]]) and cf.offset == (Q(1),)
    assert cf.fingerprint() == "83d7b8a8525690be"          # stable across runs and machines
    for x in (-3, 0, "1/2", 1, 7):
        assert cf([x]) == a([x])


def test_canonical_form_degenerate_rows_columns_duplicates():
    # zero row (constant σ(2)·3), zero output column, antiparallel pair, duplicates
    net = Network.from_rows([[[0, 0], [1, 2], [5, 5], [-1, -2], [2, 4]], [[3, 1, 0, 1, 1]]],
                            [[2, 1, 9, -1, 2], [1]])
    cf = canonical_form(net)
    # neurons 1 and 4: σ(h) + σ(2h) = 3σ(h); neuron 3: σ(−h) = σ(h) − h  →  kink 4 on h
    assert cf.kinks == (((Q(1), Q(2)), Q(1), (Q(4),)),)
    assert cf.linear == QMatrix.from_rows([[-1, -2]])
    assert cf.offset == (Q(1 + 6 - 1),)
    rng = random.Random(0)
    for x in sample_points(rng, 2, 20):
        assert cf(x) == net(x)
    assert neuron_types(net) == ("constant", "kink", "zero", "kink", "kink")


def test_orthant_facet_and_sign_patterns():
    assert not is_switching_on_orthant([Q(1), Q(0)], Q(0))        # x1 = 0 is a facet: linear
    assert is_switching_on_orthant([Q(1), Q(-1)], Q(0))
    assert not is_switching_on_orthant([Q(-1), Q(-1)], Q(1)) is False   # b > 0, w < 0: switching
    assert not is_switching_on_orthant([Q(-1), Q(0)], Q(0))       # dead
    net = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, -1], [0]])
    assert canonical_form(net, orthant=True).kinks == (((Q(0), Q(1)), Q(-1), (Q(1),)),)
    assert len(canonical_form(net).kinks) == 2
    assert neuron_types(net, orthant=True) == ("linear", "switching")


def test_not_one_hidden_layer():
    deep = Network.from_rows([[[1]], [[1]], [[1]]], [[0], [0], [0]])
    with pytest.raises(NotApplicableError):
        canonical_form(deep)
    v = equivalent_shallow(deep, deep)
    assert v.answer is None and not v.hypotheses[0].holds


@given(st.integers(0, 10 ** 9), st.booleans())
@settings(max_examples=40, deadline=None)
def test_planted_symmetries_equivalent_with_verified_path(seed, orthant):
    rng = random.Random(seed)
    a = rnet(rng, rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 2))
    b = plant(a, rng, orthant=orthant)
    assert canonical_form(a, orthant=orthant).fingerprint() == \
        canonical_form(b, orthant=orthant).fingerprint()
    v = equivalent_shallow(a, b, orthant=orthant)
    assert v.answer is True and v.certificate["type"] == "symmetry_path"
    ok, why = verify(v.certificate)
    assert ok, why
    for x in sample_points(rng, a.n_inputs, 10, orthant):
        assert a(x) == b(x)


@given(st.integers(0, 10 ** 9), st.booleans())
@settings(max_examples=40, deadline=None)
def test_single_parameter_perturbations_decided_and_certified(seed, orthant):
    rng = random.Random(seed)
    a = rnet(rng, rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 2))
    b = plant(a, rng, orthant=orthant)
    p = list(b.parameters())
    k = rng.randrange(len(p))
    p[k] += Q(rng.choice([1, -1]), rng.choice([7, 1000, 10 ** 6]))
    b2 = Network.from_parameters(b.widths, p)
    v = equivalent_shallow(a, b2, orthant=orthant)
    ok, why = verify(v.certificate)
    assert ok, why                                    # either a proof of equality or a witness
    if v.answer is False:
        x = [Q(t) if not isinstance(t, str) else Q(*map(int, t.split("/"))) for t in v.certificate["x"]]
        assert a(x) != b2(x)
        if orthant:
            assert all(t >= 0 for t in x)


@given(st.integers(0, 10 ** 9))
@settings(max_examples=25, deadline=None)
def test_output_perturbation_of_a_kink_neuron_always_detected(seed):
    rng = random.Random(seed)
    a = rnet(rng, rng.randint(1, 3), rng.randint(1, 4), 1, nonzero=True)
    # generic nets: every neuron carries its own kink; changing its output changes f
    cf = canonical_form(a)
    if len(cf.kinks) != a.widths[1]:
        return
    i = rng.randrange(a.widths[1])
    b = a.with_parameter(f"W2[0,{i}]", a.weights[1][0, i] + Q(1, 10 ** 6))
    v = equivalent_shallow(a, b)
    assert v.answer is False and verify(v.certificate)[0]


@pytest.mark.parametrize("d", [1, 2, 3])
def test_difference_confined_to_thin_slab(d):
    rng = random.Random(d)
    a = rnet(rng, d, 3, 1, nonzero=True)
    w = tuple(rq(rng, nonzero=True) for _ in range(d))
    b0, delta = Q(1, 3), Q(1, 10 ** 6)
    neurons, c = hidden_neurons(a, 0)
    # hat of width 2δ: σ(h+δ) − 2σ(h) + σ(h−δ), zero outside |h| < δ
    hat = [(w, b0 + delta, (Q(1),)), (w, b0, (Q(-2),)), (w, b0 - delta, (Q(1),))]
    b = with_hidden_neurons(a, 0, neurons + hat, c)
    misses = sum(a(x) != b(x) for x in sample_points(rng, d, 300))
    assert misses == 0                                # sampling does not see the slab
    v = equivalent_shallow(a, b)
    assert v.answer is False
    ok, why = verify(v.certificate)
    assert ok, why
    # twin neuron with the bias shifted by 1e-6: differs by at most 1e-6
    twin = with_hidden_neurons(a, 0, neurons + [(w, b0, (Q(1),)), (w, b0 + delta, (Q(-1),))], c)
    v2 = equivalent_shallow(a, twin)
    assert v2.answer is False and verify(v2.certificate)[0]


def test_separating_point_for_affine_difference_only():
    a = Network.from_rows([[[1, 0]], [[1]]], [[0], [0]])
    b = Network.from_rows([[[1, 0], [0, 1], [0, -1]], [[1, 1, -1]]], [[0, 0, 0], [0]])   # + x2
    x = separating_point(canonical_form(a), canonical_form(b))
    assert a(x) != b(x)


def test_examples_T2_T3_T6_on_the_orthant():
    # T6: S5 flip absorbed by a linear neuron (tail of the three-layer example, W1 = I)
    t = Network.from_rows([[[1, -1], [3, 4]], [[1, 1]]], [[-1, 1], [0]])
    t2 = Network.from_rows([[[-1, 1], [4, 3]], [[1, 1]]], [[1, 1], [-1]])
    v = equivalent_shallow(t, t2, orthant=True)
    assert v.answer is True and verify(v.certificate)[0]
    assert equivalent_shallow(t, t2).answer is False              # not on all of R^2
    ctrl = t2.replace_layer(1, bias=[Q(-1) + Q(1, 100)])
    w = equivalent_shallow(t, ctrl, orthant=True)
    assert w.answer is False and verify(w.certificate)[0]
    # T3: dead-neuron freedom
    t3 = Network.from_rows([[[1, -1], [-1, -2]], [[1, 7]]], [[-1, -1], [0]])
    t3b = Network.from_rows([[[1, -1], [-5, "-1/3"]], [[1, -100]]], [[-1, -2], [0]])
    assert equivalent_shallow(t3, t3b, orthant=True).answer is True
    t3c = t3.replace_layer(0, bias=[-1, 1])
    assert equivalent_shallow(t3, t3c, orthant=True).answer is False
    # T2: κ₊((−2, 1)) = 2 with Gordan vector
    k, wit = positive_factor_rank(QMatrix.from_rows([[-2, 1]]))
    assert k == 2 and wit["positive_vector"] is None
    y = wit["gordan_y"]
    assert all(t >= 0 for t in y) and -2 * y[0] + y[1] == 0 and sum(y) == 1


@given(st.integers(0, 10 ** 9))
@settings(max_examples=40, deadline=None)
def test_positive_factor_rank_factorisation(seed):
    rng = random.Random(seed)
    m, n = rng.randint(1, 3), rng.randint(1, 4)
    G = QMatrix.from_rows([[rng.randint(-3, 3) for _ in range(n)] for _ in range(m)])
    k, wit = positive_factor_rank(G)
    rho = G.rank()
    assert k in ((0,) if rho == 0 else (rho, rho + 1))
    assert wit["V"] @ wit["W"] == G and all(x > 0 for x in wit["W"].entries())
    assert wit["W"].nrows == k
    if k == rho + 1 and rho:
        y = wit["gordan_y"]
        assert all(t >= 0 for t in y) and sum(y) == 1 and G.apply(y) == (0,) * m
    elif rho:
        assert all(t > 0 for t in wit["positive_vector"])


def test_cross_check_with_general_method():
    eq = pytest.importorskip("semialgebraic.equivalence")
    if not hasattr(eq, "equivalent"):
        pytest.skip("general method not available")
    rng = random.Random(7)
    checked = 0
    for k in range(12):
        orthant = k % 2 == 1
        a = rnet(rng, rng.randint(1, 2), rng.randint(1, 3), 1)
        b = plant(a, rng, orthant=orthant)
        c = b.with_parameter(0, b.parameters()[0] + Q(1, 3))
        for other in (b, c):
            try:
                g = eq.equivalent(a, other, method="general", timeout=20,
                                  domain="orthant" if orthant else None)
            except Exception as exc:          # the sibling method is still moving
                pytest.skip(f"general method failed: {exc}")
            if g.answer is not None:
                assert g.answer == equivalent_shallow(a, other, orthant=orthant).answer
                checked += 1
    assert checked >= 12


# -- fibers ----------------------------------------------------------------------------------

@given(st.integers(0, 10 ** 9))
@settings(max_examples=15, deadline=None)
def test_fiber_generic_dimension_components_and_contains(seed):
    rng = random.Random(seed)
    d, n, m = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 2)
    net = rnet(rng, d, n, m, nonzero=True)
    cf = canonical_form(net)
    F = fiber(net)
    if len(cf.kinks) == n:                            # generic: one neuron per hyperplane
        assert F.dimension.exact and F.dimension.value == n
        assert F.number_of_components % factorial(n) == 0
        assert F.number_of_orbits == F.number_of_components // factorial(n)
    lo, hi = F.dimension.lower, F.dimension.upper
    # (the upper bound is N - rank J, or below it the shared-kink cap of `dim` when two neurons
    # share a hyperplane: seed 1, a 1-3-1 net, exact 3 under the Jacobian's 4; this test still
    # asserted hi == N - rank J, and failed on the seeds that draw such a net: session 40)
    assert lo == symmetry_tangent_rank(net) and lo <= hi <= jacobian_rank_bound(net)
    twin = plant(net, rng)
    if twin.widths == net.widths:
        assert F.contains(twin) == equivalent_shallow(net, twin).answer
    other = net.with_parameter("b2[0]", net.biases[1][0] + 1)
    assert F.contains(other) is False
    for comp in F.components:
        assert comp.contains(comp.representative)
        assert equivalent_shallow(net, comp.representative).answer is True


def test_fiber_orthant_matches_R7_and_jacobian():
    rng = random.Random(11)
    checked = 0
    for _ in range(30):
        d, n, m = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 2)
        net = rnet(rng, d, n, m, nonzero=True)
        F = fiber_shallow(net, orthant=True)
        r7 = F.details.get("r7_formula")
        types = F.details["neuron_types"]
        keys = {canonical_form(with_hidden_neurons(net, 0, [nu], (Q(0),) * m), orthant=True).kinks
                for nu in hidden_neurons(net, 0)[0]}
        distinct = len(keys) == n
        if r7 is not None and F.dimension.exact and distinct:
            assert F.dimension.value == r7, (net, types)
            checked += 1
    assert checked >= 10


def test_fiber_contains_equals_equivalence_on_orthant():
    t = Network.from_rows([[[1, -1], [3, 4]], [[1, 1]]], [[-1, 1], [0]])
    t2 = Network.from_rows([[[-1, 1], [4, 3]], [[1, 1]]], [[1, 1], [-1]])
    F = fiber(t, domain="orthant")
    assert F.contains(t2) is True and fiber(t).contains(t2) is False
    assert F.details["n_linear"] == 1 and F.details["positive_factor_rank"] == 1


def test_fiber_example_counts_with_flip_sets():
    # σ(x) − σ(−x)·… : two neurons on different hyperplanes whose flips compensate exactly:
    # flipping both changes A by −v0 w0ᵀ − v1 w1ᵀ = 0 when v1 w1 = −v0 w0
    net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    F = fiber(net)
    assert F.dimension.value == 2
    assert F.number_of_orbits == 2 and F.number_of_components == 4
    labels = sorted(tuple(c.label["flipped_neurons"]) for c in F.components)
    assert labels == [(), (0, 1)]
    for comp in F.components:
        assert F.contains(comp.representative)


def test_fiber_rejects_deep_nets_on_orthant():
    deep = Network.from_rows([[[1]], [[1]], [[1]], [[1]]], [[0], [0], [0], [0]])
    with pytest.raises(NotApplicableError):
        fiber(deep)


# -- edge cases ------------------------------------------------------------------------------

def test_different_widths_zero_network_and_self():
    zero = Network.from_rows([[[1, 2]], [[0]]], [[3], [5]])
    const = Network.from_rows([[[0, 0], [1, 1], [-1, -1]], [[1, 0, 0]]], [[2, 4, 4], [3]])
    v = equivalent_shallow(zero, const)                 # both are the constant 5
    assert v.answer is True and verify(v.certificate)[0]
    assert canonical_form(zero).kinks == () and canonical_form(zero).offset == (Q(5),)
    rep = canonical_form(zero).representative()
    assert rep.widths == (2, 1, 1) and rep([7, -3]) == (Q(5),)
    small = Network.from_rows([[[1]], [[2]]], [[0], [0]])
    big = Network.from_rows([[[2], [3], [-1], [1]], [["1/2", "1/3", 0, 0]]], [[0, 0, 4, 0], [0]])
    w = equivalent_shallow(small, big)
    assert w.answer is True and verify(w.certificate)[0]
    assert equivalent_shallow(small, small).answer is True
    other_out = Network.from_rows([[[1]], [[2], [1]]], [[0], [0, 0]])
    u = equivalent_shallow(small, other_out)
    assert u.answer is False and verify(u.certificate)[0]


def test_orthant_only_equivalences_and_R_d_witness():
    # on the orthant σ(x1) = x1: a linear neuron; on R^d it is a kink
    a = Network.from_rows([[[1, 0], [1, -1]], [[1, 1]]], [[0, 0], [0]])
    b = Network.from_rows([[[1, -1], [2, 0], [-1, 0]], [[1, "1/2", "-1/2"]]], [[0, 0, 0], [0]])
    assert equivalent_shallow(a, b, orthant=True).answer is True
    v = equivalent_shallow(a, b)
    assert v.answer is False
    x = v.details["point"]
    assert a(x) != b(x)
    cert = equivalent_shallow(a, b, orthant=True).certificate
    assert cert["domain"] == {"orthant": True} and verify(cert)[0]


@given(st.integers(0, 10 ** 9))
@settings(max_examples=20, deadline=None)
def test_canonical_representative_is_equivalent_and_canonical(seed):
    rng = random.Random(seed)
    a = rnet(rng, rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 2))
    for orthant in (False, True):
        cf = canonical_form(a, orthant=orthant)
        rep = cf.representative()
        assert canonical_form(rep, orthant=orthant) == cf
        assert canonical_form(plant(a, rng, orthant=orthant), orthant=orthant).representative() == rep


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_form_json_rows_equal_q_json_entry_by_entry(seed):
    """ShallowCanonicalForm.to_json converts each normal from one integer export of the row:
    the same JSON as q_json entry by entry (the fingerprint must not change), huge integers too."""
    from algebra.rationals import q_json
    rng = random.Random(seed)
    d, n = rng.randint(1, 5), rng.randint(1, 5)
    big = 10 ** rng.choice([1, 5000])                  # integers of > 14 000 bits are strings
    W = [[Q(rng.randint(-9, 9) * rng.choice([1, big]), rng.choice([1, 3, 4, 7])) for _ in range(d)]
         for _ in range(n)]
    net = Network.from_rows([W, [[Q(rng.randint(1, 5)) for _ in range(n)]]],
                            [[Q(rng.randint(-5, 5), 3) for _ in range(n)], [Q(0)]])
    cf = canonical_form(net)
    assert [k["normal"] for k in cf.to_json()["kinks"]] == [[q_json(x) for x in u]
                                                           for u, _, _ in cf.kinks]
