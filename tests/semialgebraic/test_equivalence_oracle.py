"""Equivalence against an independent exact oracle (z3 over the reals, ReLU as ``If``,
``tests/oracles/z3.py``) on nets built the way users build them — random rational weights
with zero rows, duplicate and antiparallel neurons, dead neurons, huge and tiny rationals, d = 1,
m > 1, width 1 — with planted symmetries, single-weight perturbations down to 1e-12 and
near-misses confined to a ball of radius 1e-12 that no sampling finds.  Every verdict's certificate must pass ``verify``
after a JSON round trip; a wrong "equivalent" is the worst bug."""

import json
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic import equivalent, max_deviation, verify
from semialgebraic.sets import random_batch
from tests.cases.general import (bump_net, hostile_net, planted_copy, planted_pair,
                                 planted_width_depth_moves, small_net)
from tests.oracles.z3 import z3_equivalent, z3_max_deviation

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def _check(a, b, domain=None, methods=("auto", "general")):
    truth = z3_equivalent(a, b, domain)
    assert truth is not None
    for method in methods:
        v = equivalent(a, b, method=method, domain=domain, timeout=120)
        assert v.answer is truth, (method, domain, v.method, v.reason, a, b)
        assert verify(json.loads(json.dumps(v.certificate)))[0] is True
    return truth


widths_strategy = st.lists(st.integers(1, 3), min_size=1, max_size=3)


@SETTINGS
@given(seed=st.integers(0, 10**6), d=st.integers(1, 3), m=st.integers(1, 2), hidden=widths_strategy,
       domain=st.sampled_from([None, "orthant", (Q(-1), Q(1))]))
def test_planted_symmetry_is_equivalent(seed, d, m, hidden, domain):
    rng = random.Random(seed)
    a = hostile_net(rng, [d, *hidden, m])
    assert _check(a, planted_copy(rng, a), domain) is True


@SETTINGS
@given(seed=st.integers(0, 10**6), d=st.integers(1, 3), m=st.integers(1, 2), hidden=widths_strategy,
       exponent=st.sampled_from([0, 3, 12]), domain=st.sampled_from([None, "orthant", (Q(-1), Q(1))]))
def test_single_weight_perturbation_agrees_with_z3(seed, d, m, hidden, exponent, domain):
    rng = random.Random(seed)
    a = hostile_net(rng, [d, *hidden, m])
    p = list(planted_copy(rng, a).parameters())
    p[rng.randrange(len(p))] += Q(rng.choice([-1, 1]), 10 ** exponent)
    _check(a, Network.from_parameters(a.widths, p), domain)


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("eps_exp", [6, 12])
def test_near_miss_in_a_tiny_ball_is_found(d, eps_exp):
    rng = random.Random(d * 100 + eps_exp)
    centre = [Q(rng.randint(-50, 50), rng.randint(1, 13)) for _ in range(d)]
    eps = Q(1, 10 ** eps_exp)
    a = bump_net(d, centre, eps, Q(0), m=2)
    b = planted_copy(rng, bump_net(d, centre, eps, Q(1), m=2))
    for method in ("auto", "general"):
        v = equivalent(a, b, method=method)
        assert v.answer is False
        x = [Q(t) for t in v.certificate["x"]]
        assert sum(abs(xi - ci) for xi, ci in zip(x, centre)) < eps      # inside the ball
        assert verify(json.loads(json.dumps(v.certificate)))[0] is True
    far = tuple(c + 1 for c in centre)                                   # a box missing the ball
    v = equivalent(a, b, domain=(min(far), max(far) + 1))
    assert v.answer is True


def test_extra_neuron_with_kink_in_a_tiny_box():
    """a = relu(x); b adds relu(x - c) - 2 relu(x - c - e) + relu(x - c - 2e), a hat of width
    2e = 2e-6 (zero outside (c, c + 2e)), one hidden layer and the general method."""
    c, e = Q(7, 3), Q(1, 10**6)
    a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    b = Network.from_rows([[[1], [1], [1], [1]], [[1, 1, -2, 1]]], [[0, -c, -c - e, -c - 2 * e], [0]])
    for method in ("auto", "general", "shallow"):
        v = equivalent(a, b, method=method)
        assert v.answer is False
        x = Q(v.certificate["x"][0])
        assert c < x < c + 2 * e
    assert equivalent(a, b, domain=(-5, 2)).answer is True
    assert equivalent(a, b, domain=(Q(233, 100), Q(234, 100))).answer is False


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10**9), d=st.integers(1, 3), m=st.integers(1, 2),
       hidden=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       kind=st.sampled_from(["planted", "perturbed", "random", "same"]),
       domain=st.sampled_from([None, "orthant", (Q(-1), Q(1))]))
def test_hunt_slow(seed, d, m, hidden, kind, domain):
    rng = random.Random(seed)
    a = hostile_net(rng, [d, *hidden, m])
    if kind == "planted":
        b = planted_copy(rng, a)
    elif kind == "perturbed":
        p = list(a.parameters())
        p[rng.randrange(len(p))] += Q(1, 10 ** rng.randint(0, 12))
        b = Network.from_parameters(a.widths, p)
    elif kind == "random":
        b = hostile_net(rng, [d, *hidden, m])
    else:
        b = a
    _check(a, b, domain)


@SETTINGS
@given(seed=st.integers(0, 10**6), d=st.integers(1, 3), m=st.integers(1, 2), hidden=widths_strategy,
       perturb=st.booleans(), domain=st.sampled_from([None, "orthant", (Q(-1), Q(1))]))
def test_planted_width_and_depth_changes(seed, d, m, hidden, perturb, domain):
    rng = random.Random(seed)
    a = hostile_net(rng, [d, *hidden, m])
    b = planted_copy(rng, planted_width_depth_moves(rng, a))
    if perturb:
        p = list(b.parameters())
        p[rng.randrange(len(p))] += Q(1, 10 ** rng.randint(0, 12))
        b = Network.from_parameters(b.widths, p)
    truth = _check(a, b, domain)
    assert truth is True or perturb


@pytest.mark.parametrize("seed", range(12))
def test_float32_nets_one_ulp_apart(seed):
    """Float32 weights (the shallow float64-exact path, semialgebraic.shallow.float32_exact): a permuted
    copy scaled by powers of two is equivalent; moving one weight by one float32 ulp is decided
    exactly — against z3."""
    np = pytest.importorskip("numpy")
    from algebra.io.arrays import network_from_tensors
    rng = np.random.default_rng(seed)
    d, n, m = int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(1, 3))
    W = rng.standard_normal((n, d)).astype(np.float32)
    W[rng.random((n, d)) < 0.15] = 0
    b, V = rng.standard_normal(n).astype(np.float32), rng.standard_normal((m, n)).astype(np.float32)
    c = rng.standard_normal(m).astype(np.float32)
    a = network_from_tensors({"0.weight": W, "0.bias": b, "2.weight": V, "2.bias": c})
    perm = rng.permutation(n)
    lam = (np.float32(2.0) ** rng.integers(-3, 4, size=n)).astype(np.float32)
    W2, b2, V2 = (W * lam[:, None])[perm], (b * lam)[perm], (V / lam[None, :])[:, perm]
    same = network_from_tensors({"0.weight": W2, "0.bias": b2, "2.weight": V2, "2.bias": c})
    v = equivalent(a, same)
    assert v.answer is True and verify(json.loads(json.dumps(v.certificate)))[0] is True
    k = int(rng.integers(0, n))
    if seed % 2:
        W2 = W2.copy()
        W2[k, 0] = np.nextafter(W2[k, 0], np.float32(np.inf))
    else:
        V2 = V2.copy()
        V2[0, k] = np.nextafter(V2[0, k], np.float32(np.inf))
    near = network_from_tensors({"0.weight": W2, "0.bias": b2, "2.weight": V2, "2.bias": c})
    v = equivalent(a, near)
    assert v.answer is z3_equivalent(a, near)
    assert verify(json.loads(json.dumps(v.certificate)))[0] is True


# -- one-point boxes, and general equivalence on small planted pairs (``planted_pair``) ---------
# A one-point box on which a and b differ must give False with a counterexample, never an
# "equal" region_cover certificate that its own checker rejects.
@pytest.mark.parametrize("samples", [0, 32])
def test_one_point_box_without_refutation_samples(samples):
    a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])          # |x|
    b = Network.from_rows([[[1]], [[1]]], [[0], [0]])                      # relu(x)
    for v0, same in ((Q(1, 2), True), (Q(-1, 2), False), (Q(0), True)):
        v = equivalent(a, b, method="general", domain=(v0, v0), refutation_samples=samples)
        assert v.answer is same
        assert verify(v.certificate)[0] is True
        assert v.certificate["type"] == ("region_cover" if same else "counterexample")


def _check_pair(seed):
    rng = random.Random(seed)
    a = small_net(rng)
    dom = rng.choice([None, "orthant", (Q(0), Q(1)), (Q(-1), Q(2)), (Q(1, 2), Q(1, 2))])
    b, kind = planted_pair(rng, a, dom)
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
    a = small_net(rng)
    dom = rng.choice([None, "orthant", (Q(0), Q(1)), (Q(-1), Q(2))])
    b, _ = planted_pair(rng, a, dom)
    if a.depth != b.depth:
        return
    D, steps = reduced_difference(a, b, domain=dom)
    R = apply_reduction(difference_network(a, b), steps, dom)
    assert [w.to_rows() for w in R.weights] == [w.to_rows() for w in D.weights]
    assert [list(v) for v in R.biases] == [list(v) for v in D.biases]
    for x in random_batch(rng, 20, a.n_inputs, dom).to_rows():
        assert D(x) == tuple(u - v for u, v in zip(a(x), b(x)))


# -- max_deviation equals the optimum z3 finds ---------------------------------------------------
@pytest.mark.parametrize("seed", range(10))
def test_max_deviation_equals_z3_optimum(seed):
    rng = random.Random(100 + seed)
    d, m = rng.randint(1, 2), rng.randint(1, 2)
    widths = [d] + [rng.randint(1, 3) for _ in range(rng.randint(1, 2))] + [m]
    a = hostile_net(rng, widths)
    b = hostile_net(rng, widths) if seed % 2 else planted_copy(rng, a).with_parameter(0, Q(1, 10**6))
    lo = Q(rng.randint(-3, 0))
    hi = lo + Q(rng.randint(1, 4), rng.randint(1, 3))
    dev = max_deviation(a, b, (lo, hi))
    assert dev.complete
    assert Fraction(int(dev.value.p), int(dev.value.q)) == z3_max_deviation(a, b, lo, hi)
    x = dev.point
    assert all(lo <= t <= hi for t in x)
    assert abs(a(x)[dev.output] - b(x)[dev.output]) == dev.value


def _with_constant_and_zero_neurons(a, rng):
    """*a* with two neurons added to its first hidden layer: a constant one (zero row, bias
    c > 0, outgoing column u, the next layer's bias lowered by c·u) and a zero one (zero row and
    bias, any outgoing column), then permuted and rescaled: the same function."""
    from algebra.symmetries.elementary import random_permute_scale
    W = [w.to_rows() for w in a.weights]
    b = [list(v) for v in a.biases]
    c = Q(rng.randint(1, 9), rng.randint(1, 4))
    for bias in (c, Q(0)):
        W[0].append([Q(0)] * a.n_inputs)
        b[0].append(bias)
        for r, row in enumerate(W[1]):
            u = Q(rng.randint(-5, 5), rng.randint(1, 3))
            row.append(u)
            b[1][r] -= u * bias
    return random_permute_scale(Network.from_rows(W, b), rng)


@pytest.mark.parametrize("seed", range(6))
def test_constant_and_zero_neurons_reduce_away(seed):
    """A constant neuron folds into the next bias (``constant`` step) and a zero neuron the next
    layer reads is zeroed as dead, so a − b of such a planted copy reduces to the zero map (an
    outsider's planted pairs with a constant or zero row had stayed open in ``diff``: the
    columns they left blocked every merge above them); the checker replays the steps and
    rejects a ``constant`` step on a neuron that is not constant."""
    from algebra.kernel import difference_network, drop_zero_neurons
    from semialgebraic.equivalence import reduced_difference
    from semialgebraic.verify.region_cover import apply_reduction
    rng = random.Random(seed)
    d = rng.randint(1, 3)
    a = Network.from_rows([[[Q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(d)] for _ in range(4)],
                           [[Q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(4)] for _ in range(3)],
                           [[Q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(3)]]],
                          [[Q(rng.randint(-4, 4), 3) for _ in range(4)], [Q(rng.randint(-4, 4), 3) for _ in range(3)],
                           [Q(rng.randint(-4, 4), 3)]])
    b = _with_constant_and_zero_neurons(a, rng)
    dom = (Q(-2), Q(2))
    for x in random_batch(rng, 10, d, dom).to_rows():
        assert a(x) == b(x)
    D, steps = reduced_difference(a, b, domain=dom)
    kinds = {st["step"] for st in steps}
    assert "constant" in kinds and "dead" in kinds
    Z = drop_zero_neurons(D)
    assert all(w.is_zero() for w in Z.weights) and all(v == 0 for v in Z.biases[-1])
    R = apply_reduction(difference_network(a, b), steps, dom)
    assert [w.to_rows() for w in R.weights] == [w.to_rows() for w in D.weights]
    k = next(k for k, st in enumerate(steps) if st["step"] == "constant")
    bad = [dict(st) for st in steps]
    bad[k]["neuron"] = next(i for i in range(D.widths[1]) if i != steps[k]["neuron"])
    with pytest.raises(ValueError, match="not a zero row with a positive bias"):
        apply_reduction(difference_network(a, b), bad[:k + 1], dom)
