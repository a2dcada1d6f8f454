"""Speed-ups of the general equivalence method keep it exact.

* Layer contraction (``contract`` steps of ``region_cover``): a hidden layer whose neurons are
  all provably always active or dead on the domain is composed into the next one.  The
  contracted network computes the same function (exact evaluation at many points), the verdicts
  agree with the walk over the *unreduced* difference network, and layers that switch inside
  the domain (near misses) are never contracted.
* Staged cheap refutation: perturbed pairs and differences confined to thin slabs give verified
  counterexamples inside the domain.
* ``method="general"`` and ``"auto"`` agree on the new planted pair kinds.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.kernel import difference_network
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.equivalence import equivalent
from semialgebraic.equivalence import contract_affine_layers
from semialgebraic.regions import joint_regions
from semialgebraic.sets import normalize_domain
from semialgebraic.verify import verify
from semialgebraic.verify.region_cover import apply_contractions
from tests.cases.general import identity_layer, passthrough, permute_scale, split_first_layer

BOX = (-1, 1)
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


def random_net(rng, widths, zero_prob=0.1):
    def q():
        return Q(0) if rng.random() < zero_prob else Q(rng.randint(-9, 9), rng.randint(1, 4))
    return Network([[[q() for _ in range(widths[l])] for _ in range(widths[l + 1])]
                    for l in range(len(widths) - 1)],
                   [[q() for _ in range(widths[l + 1])] for l in range(len(widths) - 1)])


def points(rng, d, dom, n=40):
    if dom is None:
        return [tuple(Q(rng.randint(-300, 300), rng.choice((7, 11, 13))) for _ in range(d)) for _ in range(n)]
    lo, hi = dom
    return [tuple(lo + (hi - lo) * Q(rng.randint(0, 97), 97) for _ in range(d)) for _ in range(n)]


def unreduced_walk_answer(a, b, dom):
    """Equal on the domain? by the walk over every region of the raw difference network a - b."""
    state = {}
    for reg in joint_regions((difference_network(a, b),), domain=dom, state=state, multipliers=False):
        if not reg.region.jacobian.is_zero() or any(v != 0 for v in reg.region.offset):
            return False
    assert state["complete"]
    return True


nets = st.builds(lambda seed, d, widths: (seed, [d] + widths + [1]),
                 st.integers(0, 10**6), st.integers(1, 3),
                 st.lists(st.integers(1, 4), min_size=1, max_size=2))


# -- contraction --------------------------------------------------------------------------------
@SETTINGS
@given(nets, st.sampled_from(["passthrough", "identity", "split"]))
def test_contraction_keeps_the_function_and_collapses_planted_pairs(spec, kind):
    seed, widths = spec
    rng = random.Random(seed)
    a = random_net(rng, widths)
    if kind == "passthrough":
        b, dom = passthrough(a, BOX), BOX
    elif kind == "identity":
        b, dom = identity_layer(a, rng.randrange(1, a.depth)), None
    else:
        b, dom = split_first_layer(a, rng, BOX), BOX
    c, layers = contract_affine_layers(b, domain=dom)
    assert layers and c.depth <= b.depth - 1
    assert all(c(x) == b(x) == a(x) for x in points(rng, a.n_inputs, dom))
    # the checker's replay gives the same network
    _, c2 = apply_contractions(a, b, [{"net": "b", "layer": l} for l in layers],
                               normalize_domain(dom, a.n_inputs))
    assert c2.weights == c.weights and c2.biases == c.biases
    v = equivalent(a, b, method="general", domain=dom)
    assert v.answer is True and verify(v.certificate)[0]
    assert {"net": "b", "layer": layers[0]} in v.certificate["contract"]


@SETTINGS
@given(nets, st.sampled_from([None, BOX, "orthant"]))
def test_contraction_of_random_networks_is_exact(spec, dom):
    seed, widths = spec
    rng = random.Random(seed)
    a = random_net(rng, widths, zero_prob=0.3)
    c, layers = contract_affine_layers(a, domain=dom)
    d = normalize_domain(dom, a.n_inputs)
    pts = points(rng, a.n_inputs, None if d is None else (0, 5) if d == "orthant" else d)
    assert all(c(x) == a(x) for x in pts)
    assert c.depth == a.depth - len(layers)


def test_contracted_verdicts_agree_with_the_unreduced_walk():
    rng = random.Random(11)
    for widths in ([1, 3, 1], [2, 3, 2, 1], [2, 2, 3, 1]):
        a = random_net(rng, widths, zero_prob=0)
        for b, dom in [(passthrough(a, BOX), BOX), (identity_layer(a, 1), None), (identity_layer(a, 0), None),
                       (passthrough(a, BOX, slack=Q(-1, 10**6)), BOX)]:
            v = equivalent(a, b, method="general", domain=dom)
            assert v.answer is not None and verify(v.certificate)[0]
            assert v.answer == unreduced_walk_answer(a, b, dom)


def test_near_miss_layer_that_switches_in_a_thin_slab_is_not_contracted():
    # a(x) = x on [-1, 1]; b = relu(a + 1 - 10^-6) - (1 - 10^-6): clips on x < -1 + 10^-6
    a = Network.from_rows([[[1]], [[1]]], [[1], [-1]])
    eps = Q(1, 10**6)
    b = Network([[[1]], [[1]], [[1]]], [[1], [-1 + 1 - eps], [-(1 - eps)]])
    c, layers = contract_affine_layers(b, domain=BOX)
    assert layers == [] or c.depth == b.depth - 1 and layers == [0]   # only the input layer qualifies
    v = equivalent(a, b, method="general", domain=BOX)
    assert v.answer is False and verify(v.certificate)[0]
    x = [Q(t) if not isinstance(t, str) else Q(*map(int, t.split("/"))) for t in v.certificate["x"]]
    assert -1 <= x[0] < -1 + eps
    # with exactly enough slack the layer contracts and the pair is equivalent
    b = Network([[[1]], [[1]], [[1]]], [[1], [0], [-1]])
    v = equivalent(a, b, method="general", domain=BOX)
    assert v.answer is True and v.certificate["contract"] and v.certificate["regions"] == []   # collapsed


def test_contraction_depends_on_the_domain():
    a = Network.from_rows([[[1], [-1]], [[1, -2]]], [[0, 0], [0]])     # y = relu(x) - 2 relu(-x)
    b = passthrough(a, BOX)                                             # relu(y + 3) - 3
    assert contract_affine_layers(b, domain=BOX)[1] == [1]
    assert contract_affine_layers(b, domain=None)[1] == []             # y is unbounded below on R
    assert contract_affine_layers(b, domain=(-2, 1))[1] == []
    v = equivalent(a, b, method="general", domain=BOX)
    assert v.answer is True and v.certificate["regions"] == []           # collapsed
    w = equivalent(a, b, method="general")                              # differs for x < -3/2
    assert w.answer is False and verify(w.certificate)[0]


# -- refutation -----------------------------------------------------------------------------------
@SETTINGS
@given(nets, st.sampled_from([None, BOX, "orthant"]))
def test_perturbed_pairs_get_verified_counterexamples_in_the_domain(spec, dom):
    seed, widths = spec
    rng = random.Random(seed)
    a = random_net(rng, widths, zero_prob=0)
    b = a.with_parameter(a.n_parameters - 1, a.parameters()[-1] + Q(1, 1000))   # output bias
    v = equivalent(a, b, method="general", domain=dom)
    assert v.answer is False and verify(v.certificate)[0]
    assert v.details["regions_checked"] == 0                                   # cheap refutation
    x = [Q(t) if isinstance(t, int) else Q(*map(int, t.split("/"))) for t in v.certificate["x"]]
    d = normalize_domain(dom, a.n_inputs)
    assert d is None or (all(t >= 0 for t in x) if d == "orthant" else all(BOX[0] <= t <= BOX[1] for t in x))


@pytest.mark.parametrize("seed", range(4))
def test_thin_slab_difference_is_refuted(seed):
    rng = random.Random(seed)
    d = 1 + seed % 3
    a = random_net(rng, [d, 3, 2, 1], zero_prob=0)
    t = BOX[1] - Q(1, 10**6)
    W1, b1 = a.layer(0)
    W2, b2 = a.layer(1)
    W3, b3 = a.layer(2)
    # one extra neuron relu(x_0 - t), carried to the output by relu of itself
    b = Network([QMatrix.vstack([W1, QMatrix.from_rows([[1] + [0] * (d - 1)])]),
                 QMatrix.vstack([QMatrix.hstack([W2, QMatrix.zeros(2, 1)]),
                                 QMatrix.from_rows([[0, 0, 0, 1]])]),
                 QMatrix.hstack([W3, QMatrix.identity(1)])],
                [list(b1) + [-t], list(b2) + [0], list(b3)])
    v = equivalent(a, b, method="general", domain=BOX)
    assert v.answer is False and verify(v.certificate)[0]
    x0 = v.certificate["x"][0]
    x0 = Q(x0) if isinstance(x0, int) else Q(*map(int, x0.split("/")))
    assert x0 > t


# -- general vs auto ----------------------------------------------------------------------------
@SETTINGS
@given(st.integers(0, 10**6), st.integers(1, 3), st.sampled_from(["identity", "input-identity", "perturbed", "dead"]))
def test_general_and_auto_agree_on_planted_kinds(seed, d, kind):
    rng = random.Random(seed)
    a = random_net(rng, [d, 3, 1], zero_prob=0.1)
    if kind in ("identity", "input-identity"):
        b = identity_layer(a, 1 if kind == "identity" else 0)
    elif kind == "perturbed":
        k = rng.randrange(a.n_parameters)
        b = a.with_parameter(k, a.parameters()[k] + Q(1, 7))
    else:                                     # a neuron with a zero row and negative bias: dead
        W1, b1 = a.layer(0)
        W2, b2 = a.layer(1)
        b = Network([QMatrix.vstack([W1, QMatrix.zeros(1, d)]), QMatrix.hstack([W2, QMatrix.identity(1) * 5])],
                    [list(b1) + [-1], list(b2)])
    g = equivalent(a, b, method="general")
    u = equivalent(a, b, method="auto")
    assert g.answer is not None and g.answer == u.answer
    assert verify(g.certificate)[0]


# -- dead_cover: neurons dead on the domain that interval bounds cannot see ----------------------
def hat_pair(eps, w_a=5, w_b=7):
    """Layer 1: relu(x), relu(x-1), relu(x-2); hat = h0 - 2 h1 + h2 (max 1 at x = 1, zero outside
    [0, 2]).  Layer 2: relu(hat - 1 + eps) (dead iff eps <= 0; alive only on |x - 1| < eps),
    relu(hat).  a and b differ only in the output weight of the first layer-2 neuron."""
    W1, b1 = [[1], [1], [1]], [0, -1, -2]
    W2, b2 = [[1, -2, 1], [1, -2, 1]], [-1 + eps, 0]
    return (Network.from_rows([W1, W2, [[w_a, 1]]], [b1, b2, [0]]),
            Network.from_rows([W1, W2, [[w_b, 1]]], [b1, b2, [0]]))


@pytest.mark.parametrize("dom", [None, (-3, 3)])
def test_dead_neuron_behind_a_hat_is_proved_dead(dom):
    a, b = hat_pair(0)
    v = equivalent(a, b, method="general", domain=dom)
    assert v.answer is True and verify(v.certificate)[0]
    covers = [st for st in v.certificate["reduction"] if st["step"] == "dead_cover"]
    assert covers and covers[0]["layer"] == 1 and v.certificate["regions"] == []
    assert unreduced_walk_answer(a, b, normalize_domain(dom, 1)) is True


@pytest.mark.parametrize("eps", [Q(1, 10**6), Q(1, 3)])
def test_neuron_alive_on_a_tiny_interval_is_not_proved_dead(eps):
    a, b = hat_pair(eps)
    v = equivalent(a, b, method="general")
    assert v.answer is False and verify(v.certificate)[0]
    x = v.certificate["x"][0]
    x = Q(x) if isinstance(x, int) else Q(*map(int, x.split("/")))
    assert abs(x - 1) < eps


def _dead_cover_cert():
    a, b = hat_pair(0)
    v = equivalent(a, b, method="general")
    return v.certificate


DEAD_COVER_MUTATIONS = {
    "bound multiplier changed": lambda st: _first_bound(st).__setitem__(0, "7"),
    "negative multiplier": lambda st: _first_bound(st)[1].__setitem__(0, "-1") if _first_bound(st)[1] else
        _first_bound(st).__setitem__(0, "-1"),
    "region dropped": lambda st: st["regions"].pop(),
    "bounds removed": lambda st: st["regions"][0].pop("bounds"),
    "alive neuron claimed dead": lambda st: st["neurons"].append(next(i for i in range(4) if i not in st["neurons"])),
    "wrong layer": lambda st: st.__setitem__("layer", 0),
    "pattern flipped": lambda st: st["regions"][0]["pattern"].__setitem__(0, -st["regions"][0]["pattern"][0] or 1),
}


def _first_bound(st):
    return next(iter(st["regions"][0]["bounds"].values()))


@pytest.mark.parametrize("mutation", sorted(DEAD_COVER_MUTATIONS))
def test_dead_cover_mutations_are_rejected(mutation):
    import copy
    from algebra.exceptions import InputError
    cert = copy.deepcopy(_dead_cover_cert())
    st = next(st for st in cert["reduction"] if st["step"] == "dead_cover")
    DEAD_COVER_MUTATIONS[mutation](st)
    try:
        ok, why = verify(cert)
    except InputError as exc:
        assert str(exc)
        return
    assert not ok and why


@SETTINGS
@given(st.integers(0, 10**6), st.sampled_from([None, BOX]))
def test_dead_cover_reduction_keeps_the_difference(seed, dom):
    from semialgebraic.equivalence import reduced_difference
    rng = random.Random(seed)
    a = random_net(rng, [2, 4, 4, 1], zero_prob=0.1)
    k = rng.randrange(a.n_parameters)
    b = a.with_parameter(k, a.parameters()[k] + Q(1, 5))
    D, steps = reduced_difference(a, b, domain=dom, dead_cover=64)
    D0 = difference_network(a, b)
    assert all(D(x) == D0(x) for x in points(rng, 2, dom, 60))


@SETTINGS
@given(st.integers(0, 10**6), st.integers(1, 3), st.booleans())
def test_random_hats_dead_or_barely_alive(seed, d, dead):
    """Random direction w and offset: t = w·x + c, hat(t) = relu(t) - 2 relu(t-1) + relu(t-2) <= 1,
    plus two random first-layer neurons.  Layer 2: relu(hat - 1 + eps) (dead iff eps = 0), and a
    random neuron.  b changes the dead-or-barely-alive neuron's output weight."""
    rng = random.Random(seed)
    w = [Q(rng.randint(-5, 5) or 1, rng.randint(1, 3)) for _ in range(d)]
    c = Q(rng.randint(-5, 5), rng.randint(1, 3))
    extra = [[Q(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(d)] for _ in range(2)]
    W1 = [w, w, w] + extra
    b1 = [c, c - 1, c - 2] + [Q(rng.randint(-5, 5)) for _ in range(2)]
    eps = Q(0) if dead else Q(1, 10**4)
    W2 = [[1, -2, 1, 0, 0], [Q(rng.randint(-5, 5)) for _ in range(5)]]
    b2 = [-1 + eps, Q(rng.randint(-5, 5))]
    a = Network.from_rows([W1, W2, [[3, 1]]], [b1, b2, [0]])
    b = Network.from_rows([W1, W2, [[-2, 1]]], [b1, b2, [0]])
    v = equivalent(a, b, method="general")
    assert v.answer is dead and verify(v.certificate)[0]
    if dead:
        assert any(st["step"] == "dead_cover" for st in v.certificate["reduction"])
    else:
        x = [Q(t) if isinstance(t, int) else Q(*map(int, t.split("/"))) for t in v.certificate["x"]]
        t = sum((wi * xi for wi, xi in zip(w, x)), Q(0)) + c
        assert abs(t - 1) < eps


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10**6), st.integers(1, 2), st.lists(st.integers(1, 3), min_size=1, max_size=2),
       st.sampled_from(["permute", "passthrough", "passthrough-short", "identity", "perturb",
                        "perturb-deep", "hat"]),
       st.sampled_from([None, BOX]))
def test_general_agrees_with_the_unreduced_walk(seed, d, hidden, kind, dom):
    """Every reduction (contraction, merges, dead and dead_cover steps) and the staged
    refutation give the answer of the plain walk over all regions of the raw a - b."""
    rng = random.Random(seed)
    a = random_net(rng, [d] + hidden + [1], zero_prob=0.2)
    if kind == "permute":
        b = permute_scale(a, rng)
    elif kind.startswith("passthrough"):
        b = passthrough(a, BOX, slack=Q(1) if kind == "passthrough" else Q(-1, 100))
    elif kind == "identity":
        b = identity_layer(a, rng.randrange(0, a.depth))
    elif kind.startswith("perturb"):
        k = rng.randrange(a.n_parameters) if kind == "perturb" else \
            rng.randrange(a.n_parameters - (a.widths[-2] + 1) * a.widths[-1], a.n_parameters)
        b = a.with_parameter(k, a.parameters()[k] + Q(1, 10**4))
    else:
        a, b = hat_pair(rng.choice([Q(0), Q(1, 10**5)]), w_a=rng.randint(-3, 3), w_b=rng.randint(-3, 3))
    v = equivalent(a, b, method="general", domain=dom)
    assert v.answer is not None and verify(v.certificate)[0]
    assert v.answer == unreduced_walk_answer(a, b, normalize_domain(dom, a.n_inputs))
