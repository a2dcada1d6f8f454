"""Exact functional dimension (three-layer-fibers R17, R22; Grillo–Montúfar 2026, §11)."""

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.network import Network
from algebra.rationals import Q
from algebra.linalg.gfp import PRIME, rank_mod_p
from semialgebraic.dimension import (exact_jacobian_rows, exact_rank, functional_dimension, jacobian_rows,
                                     symmetry_directions)
from semialgebraic.dimension.sampling import exact_masks

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def r17(W2, b2, n1, m):
    """three-layer-fibers R17 for generic non-constant θ with n1 <= d."""
    signs = [[v > 0 for v in list(row) + [b]] for row, b in zip(W2, b2)]
    nD = sum(1 for s in signs if not any(s))
    nL = sum(1 for s in signs if all(s))
    nA = len(signs) - nD - nL
    nd = [j for j, s in enumerate(signs) if any(s)]
    nM = int(any(nd and all(b2[j] < 0 and W2[j][i] > 0 and all(W2[j][k] < 0 for k in range(n1) if k != i)
                            for j in nd) for i in range(n1)))
    rho = min(nL, n1, m)
    return n1 + nM + nA + nD * (n1 + 1 + m) + nL * (n1 + m + 1) - rho * (n1 + m - rho)


def nonzero(rng, lo=1, hi=9):
    return Q(rng.choice([-1, 1]) * rng.randint(lo, hi), rng.randint(1, 4))


@settings(max_examples=10, **SETTINGS)
@given(st.integers(0, 10**6))
def test_r17_on_generic_bottleneck_nets(seed):
    rng = random.Random(seed)
    d = rng.randint(2, 3)
    n1, n2, m = rng.randint(1, d), rng.randint(1, 4), 1
    W1 = [[nonzero(rng) for _ in range(d)] for _ in range(n1)]
    b1 = [nonzero(rng) for _ in range(n1)]
    W2 = [[nonzero(rng) for _ in range(n1)] for _ in range(n2)]
    b2 = [nonzero(rng) for _ in range(n2)]
    W3 = [[nonzero(rng) for _ in range(n2)]]
    net = Network([W1, W2, W3], [b1, b2, [0]])
    if Network([W1], [b1]).weights[0].rank() < n1:
        return
    fd = functional_dimension(net)
    assert fd.exact
    assert fd.fiber_dimension.value == r17(W2, b2, n1, m)


# nets with every neuron switching and none masked (checked by the complete walk): fd = N - #hidden
SWITCHING = [   # found by the complete walk: every neuron switches, none masked
    ([[-3, -2, 3], [3, -2, -2], [2, -3, 1]], [1, -2, 0], [[2, 3, 1], [1, 1, -3]], [-2, -1], [[-1, 1]], [-2]),
    ([[3, -3], [1, -2], [1, 2]], [-1, -2, -1], [[-1, 1, 1], [-2, -2, 2]], [-1, 2], [[-3, 1]], [-2]),
    ([[1, 1], [1, 3], [1, -2]], [1, 0, 1], [[-1, -2, 1], [1, -1, -1]], [1, 0], [[1, 1]], [-2]),
]


@pytest.mark.parametrize("case", range(len(SWITCHING)))
def test_switching_nets_reach_n_minus_hidden(case):
    W1, b1, W2, b2, W3, b3 = SWITCHING[case]
    net = Network([W1, W2, W3], [b1, b2, b3])
    fd = functional_dimension(net)
    assert fd.complete_regions and fd.exact
    assert fd.value == net.n_parameters - net.n_hidden
    # no deficit; case 2 has a bias-0 second-layer neuron, identically 0 on the region where the
    # whole first layer is off: that region is named (it holds no differentiable input)
    assert [d.split(" linear regions")[0] for d in fd.deficits] == (["1 of the 15"] if case == 2 else [])


def test_deep_switching_net_three_hidden_layers():
    """Three hidden layers (widths >= 2): fd = N - #hidden (GM26), no deficit."""
    net = Network.from_rows(
        [[["-1/3", -1], [2, "1/2"], ["-5/3", "-1/2"]], [["5/3", "3/4", -3], [-2, 3, 1], [3, "1/4", "-5/2"]],
         [["1/2", -1, "1/2"], [-2, 1, "-4/3"]], [["-1/3", "-1/4"]]],
        [[5, "-1/4", "5/2"], ["-2/3", 4, 2], [1, "5/4"], ["-5/2"]])
    fd = functional_dimension(net)
    assert fd.exact and fd.value == net.n_parameters - net.n_hidden == 24
    assert fd.deficits == ()


@settings(max_examples=8, **SETTINGS)
@given(st.integers(0, 10**6))
def test_deep_nets_at_most_n_minus_hidden(seed):
    rng = random.Random(seed)
    widths = [rng.randint(1, 3)] + [rng.randint(1, 3) for _ in range(rng.randint(2, 3))] + [1]
    W = [[[Q(rng.randint(-3, 3), rng.randint(1, 2)) for _ in range(widths[l])] for _ in range(widths[l + 1])]
         for l in range(len(widths) - 1)]
    b = [[Q(rng.randint(-3, 3), rng.randint(1, 2)) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    net = Network(W, b)
    fd = functional_dimension(net)
    assert fd.lower <= fd.upper <= net.n_parameters
    assert fd.lower <= net.n_parameters - net.n_hidden


BASE = SWITCHING[1]


def _base_with_extra_layer2_neuron(row, bias, out):
    W1, b1, W2, b2, W3, b3 = BASE
    return Network([W1, W2 + [row], [W3[0] + [out]]], [b1, b2 + [bias], b3])


def test_dead_neuron_deficit():
    base = Network([BASE[0], BASE[2], BASE[4]], [BASE[1], BASE[3], BASE[5]])
    dead = _base_with_extra_layer2_neuron([-1, -1, -2], -1, 5)     # dead on the orthant image
    fd0, fd = functional_dimension(base), functional_dimension(dead)
    # the dead neuron adds n1 + 1 + m = 5 parameters and nothing to the function
    assert fd.value == fd0.value == base.n_parameters - base.n_hidden
    assert dead.n_parameters - fd.value == (base.n_parameters - fd0.value) + 5
    assert any("dead neuron (2, 2)" in line for line in fd.deficits)


def test_always_active_neuron_deficit():
    base = Network([BASE[0], BASE[2], BASE[4]], [BASE[1], BASE[3], BASE[5]])
    lin = _base_with_extra_layer2_neuron([1, 2, 1], 1, 3)           # always active: a linear neuron
    fd0, fd = functional_dimension(base), functional_dimension(lin)
    # one linear neuron: its n1 + 1 + m = 5 parameters add only n1 = 3 dimensions (the affine
    # map it carries), deficit 2 = scaling + bias trade
    assert fd.value == fd0.value + 3
    assert any("always active" in line for line in fd.deficits)


def test_masked_neuron_deficit():
    # every second-layer neuron has the masking pattern for column 0 (R4): one more fiber dimension
    net = Network([[[1, 0], [0, 1]], [[2, -1], [1, -3]], [[1, 2]]], [[0, 0], [-1, -1], [0]])
    fd = functional_dimension(net)
    assert fd.exact and fd.fiber_dimension.value == r17([[2, -1], [1, -3]], [-1, -1], 2, 1)
    assert fd.value == net.n_parameters - net.n_hidden - 1
    assert any("masked" in line for line in fd.deficits)


def test_symmetry_directions_scalings_only():
    net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    vecs, deficits = symmetry_directions(net)
    assert len(vecs) == 2 and deficits == ()


def test_modular_rank_is_exact_lower_bound_and_matches_rational_rank():
    rng = random.Random(2)
    net = Network([[[nonzero(rng) for _ in range(2)] for _ in range(3)],
                   [[nonzero(rng) for _ in range(3)] for _ in range(2)], [[1, -1]]],
                  [[nonzero(rng) for _ in range(3)], [nonzero(rng) for _ in range(2)], [0]])
    pts = [[Q(rng.randint(-50, 50), 7) for _ in range(2)] for _ in range(30)]
    X, masks = exact_masks(net, pts)
    R = jacobian_rows(net, X, masks, PRIME)
    assert R.shape == (len(X), net.n_parameters)
    assert rank_mod_p(R, PRIME) == exact_rank(net, X)


def test_rank_mod_p_against_flint():
    np = pytest.importorskip("numpy")
    flint = pytest.importorskip("flint")
    rng = np.random.default_rng(0)
    for n, N, r in [(40, 30, 20), (150, 200, 90), (90, 70, 70)]:
        A = np.mod(rng.integers(0, 30, size=(n, r)) @ rng.integers(0, 30, size=(r, N)), PRIME)
        A[:, 1] = 0
        assert rank_mod_p(A, PRIME) == flint.nmod_mat(A.tolist(), PRIME).rank()


def test_budgeted_result_is_an_interval_or_exact():
    rng = random.Random(5)
    widths = [3, 8, 8, 1]
    W = [[[Q(rng.randint(-9, 9), 5) for _ in range(widths[l])] for _ in range(widths[l + 1])] for l in range(3)]
    b = [[Q(rng.randint(-9, 9), 5) for _ in range(widths[l + 1])] for l in range(3)]
    net = Network(W, b)
    fd = functional_dimension(net, max_regions=5, samples=4)
    assert fd.lower <= fd.upper <= net.n_parameters - net.n_hidden
    data = fd.to_json()
    assert data["exact"] == fd.exact
    if not fd.exact:
        assert data["functional_dimension"] is None and data["lower"] == fd.lower


# ---------------------------------------------------------------------------------------------
# silent neurons (δ ≡ 0: zero outgoing weights, or only dead / silent successors), soundness of
# every upper-bound direction, and the sampled sandwich against the complete walk

from algebra.linalg import QMatrix  # noqa: E402


def _base():
    return Network([BASE[0], BASE[2], BASE[4]], [BASE[1], BASE[3], BASE[5]])


def test_zero_outgoing_weight_neuron():
    """A second-layer neuron with zero output weight: its n1 + 1 = 4 incoming parameters are free
    (δ ≡ 0); its output weight still adds one direction (the new function h_j)."""
    fd0 = functional_dimension(_base())
    net = _base_with_extra_layer2_neuron([1, -2, 1], 1, 0)
    fd = functional_dimension(net)
    assert fd.exact and fd.value == fd0.value + 1
    assert net.n_parameters - fd.value == (_base().n_parameters - fd0.value) + 4
    assert any("(2, 2) reaches the output only through zero weights" in s for s in fd.deficits)
    # the same from sampling alone (no region walk): the upper bound closes by the silent rule
    fs = functional_dimension(net, max_regions=0)
    assert fs.exact and fs.value == fd.value


def test_neuron_feeding_only_a_dead_neuron_is_silent():
    """Layer-1 neuron 3 feeds only the dead layer-2 neuron 2 (and zero weights into the live ones):
    its 3 incoming parameters are free; the zero weights W2[0,3], W2[1,3] add the functions
    δ2_j h1_3 (2 dimensions); the dead neuron's 5 incoming and 1 outgoing parameters are free."""
    W1, b1, W2, b2, W3, b3 = BASE
    base_dead = _base_with_extra_layer2_neuron([-1, -1, -2], -1, 5)
    fd0 = functional_dimension(base_dead)
    net = Network([W1 + [[1, 1]], [W2[0] + [0], W2[1] + [0], [-1, -1, -2, -1]], [W3[0] + [5]]],
                  [b1 + [0], b2 + [-1], b3])
    fd = functional_dimension(net)
    assert fd.exact and fd.value == fd0.value + 2
    assert any("(1, 3) reaches the output only through" in s for s in fd.deficits)
    assert any("dead neuron (2, 2)" in s for s in fd.deficits)


def _int_net(rng, widths, lo=-2, hi=2):
    W = [[[rng.randint(lo, hi) for _ in range(widths[l])] for _ in range(widths[l + 1])]
         for l in range(len(widths) - 1)]
    b = [[rng.randint(lo, hi) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    return Network(W, b)


@settings(max_examples=60, **SETTINGS)
@given(st.integers(0, 10**6), st.sampled_from([None, "orthant", (-1, 2)]))
def test_every_upper_bound_direction_is_in_the_exact_jacobian_kernel(seed, domain):
    """Soundness of the upper bound: each proven direction annihilates the exact rational
    Jacobian rows at every sampled differentiable input of the domain (nets with many zeros)."""
    rng = random.Random(seed)
    widths = [rng.randint(1, 3)] + [rng.randint(1, 4) for _ in range(rng.randint(1, 3))] + [rng.randint(1, 2)]
    net = _int_net(rng, widths)
    vecs, _ = symmetry_directions(net, domain=domain)
    if not vecs:
        return
    lo, hi = (-9, 9) if domain is None else (0, 9) if domain == "orthant" else (-1, 2)
    pts = [[Q(rng.randint(lo * 8, hi * 8), 8) + Q(1, 97) for _ in range(widths[0])] for _ in range(20)]
    X, _ = exact_masks(net, pts)
    if not X:
        return
    J = QMatrix.from_rows(exact_jacobian_rows(net, X), ncols=net.n_parameters)
    V = QMatrix.from_rows(vecs, ncols=net.n_parameters)
    assert (J @ V.T).is_zero()


def _sandwich_contains_walk_value(seed):
    """Sampling only (max_regions=0) against the exact value from the complete region walk."""
    rng = random.Random(seed)
    widths = [rng.randint(1, 2)] + [rng.randint(2, 4) for _ in range(rng.randint(2, 3))] + [1]
    net = _int_net(rng, widths, -3, 3)
    fw = functional_dimension(net, max_regions=None)
    fs = functional_dimension(net, max_regions=0)
    assert fs.lower <= fs.upper
    if fw.complete_regions and fw.exact:
        assert fs.lower <= fw.value <= fs.upper
    assert fw.lower <= fs.upper and fs.lower <= fw.upper


@pytest.mark.parametrize("seed", [0, 7])
def test_sampled_sandwich_contains_the_complete_walk_value(seed):
    """A bounded sample of :func:`test_sampled_sandwich_contains_the_complete_walk_value_many`
    (two fixed seeds, about 2 s) for the fast suite."""
    _sandwich_contains_walk_value(seed)


@pytest.mark.slow
@settings(max_examples=25, **SETTINGS)
@given(st.integers(0, 10**6))
def test_sampled_sandwich_contains_the_complete_walk_value_many(seed):
    """Sampling only (max_regions=0) against the exact value from the complete region walk, 25
    random nets (48-87 s under load: slow)."""
    _sandwich_contains_walk_value(seed)


def test_never_coactive_weight_is_proven_free():
    """h1_0 = relu(x) and layer-2 neuron 0 (z = -h1_0 + h1_1 - 1) are never active together, so
    ∂f/∂W2[0,0] = δ2_0 h1_0 ≡ 0: the exact pattern-tree search proves it (sampling alone only
    sees it); the complete walk gives the value 7 the sandwich must contain."""
    net = Network([[[1], [-1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, 0], [-1, -2], [0]])
    fw = functional_dimension(net)
    fs = functional_dimension(net, max_regions=0)
    assert fw.exact and fw.value == 7
    assert fs.lower == 7 and fs.upper == 8        # 13 - 4 scalings - the proven free weight
    assert any("W2[0,0] is never exercised" in s for s in fs.deficits)
    pts = [[Q(k, 7) + Q(1, 101)] for k in range(-40, 40)]
    X, _ = exact_masks(net, pts)
    J = QMatrix.from_rows(exact_jacobian_rows(net, X), ncols=net.n_parameters)
    assert all(r[net.parameter_names().index("W2[0,0]")] == 0 for r in J.to_rows())


def test_sampled_deep_net_closes_at_n_minus_hidden():
    """An 8-10-10-1 net (normal-like weights, small biases) closes by sampling alone at
    N - #hidden (Grillo–Montúfar: equality on an open set when all widths are >= 2)."""
    rng = random.Random(11)

    def g(s):
        v = 0
        while v == 0:
            v = round(rng.gauss(0, 1) * 16 * s)
        return Q(v, 16)
    widths = [8, 10, 10, 1]
    net = Network([[[g(1) for _ in range(widths[l])] for _ in range(widths[l + 1])] for l in range(3)],
                  [[g(0.1) for _ in range(widths[l + 1])] for l in range(3)])
    fd = functional_dimension(net, max_regions=0)
    assert fd.exact and fd.value == net.n_parameters - net.n_hidden == 191
    assert fd.deficits == ()


def test_non_generic_theta_is_reported_not_guessed():
    """relu(relu(-x - 1)) on [0, 1]: the second neuron's pre-activation is 0 on the whole domain
    (its row is not zero), so no input is a differentiable point of theta -> f_theta(x): the
    answer is 'non-generic', never an exact value (exit 3 in the CLI)."""
    net = Network.from_rows([[[-1]], [[1]], [[1]]], [[-1], [0], [0]])
    fd = functional_dimension(net, domain=(0, 1))
    assert not fd.exact and fd.value is None and fd.non_generic
    assert fd.to_json()["non_generic"] and fd.reason.startswith("non-generic")
    # on R the first neuron switches: one region of two has the vanishing neuron, named as a deficit
    fd = functional_dimension(net)
    assert fd.exact and not fd.non_generic
    assert any("1 of the 2 linear regions hold no differentiable input" in d for d in fd.deficits)


def test_sampling_options_are_keyword_arguments():
    """cover / first_round (formerly environment variables) only change how inputs are chosen:
    the sampled-only run keeps its certified bounds around the same value."""
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, -1, 2]]], [[0, 0, -1], [0]])
    exact = functional_dimension(net).value
    for kw in ({}, {"cover": 1, "first_round": 0.5}, {"cover": 12, "first_round": 3.0}):
        fd = functional_dimension(net, max_regions=0, **kw)
        assert fd.lower <= exact <= fd.upper


def _planted(extra=False, dead=False) -> Network:
    """A 2-5-3-1 net with a *rarely active* layer-2 neuron (2, 0): z = 10^-6 - h0 - h1 - h2 +
    (h3 - h4)/10^7, where h0 = relu(x0 - 1/3), h1 = relu(x1 - 1/5), h2 = relu(8/15 - 10^-5 - x0 -
    x1) vanish together only on a triangle of side 10^-5 at (1/3, 1/5), so (2, 0) is active only
    near it.  h4 = relu(-x0/2 + 5 x1/4 - 1/5) is -0.117 there: (1, 4) and (2, 0) are *never
    active together*.  *extra*: one more layer-1 neuron relu(x0 + x1/3 - 1/2) (-0.1 there: never
    active with (2, 0) either); *dead*: a layer-2 neuron relu(-sum h - 1) (dead) with output 5."""
    W1 = [[1, 0], [0, 1], [-1, -1], [2, -3], [Q(-1, 2), Q(5, 4)]]
    b1 = [Q(-1, 3), Q(-1, 5), Q(8, 15) - Q(1, 10**5), Q(1, 3), Q(-1, 5)]
    W2 = [[-1, -1, -1, Q(1, 10**7), Q(-1, 10**7)], [1, Q(-1, 2), Q(3, 4), -1, Q(5, 4)],
          [Q(-3, 4), 2, Q(1, 2), Q(7, 4), -1]]
    b2 = [Q(1, 10**6), Q(1, 7), Q(-1, 3)]
    W3 = [[3, Q(-5, 4), 2]]
    if extra:
        W1.append([1, Q(1, 3)])
        b1.append(Q(-1, 2))
        for r, v in zip(W2, [Q(1, 8), Q(-2, 3), Q(3, 2)]):
            r.append(v)
    if dead:
        W2.append([-1] * len(W1))
        b2.append(-1)
        W3[0].append(5)
    return Network.from_rows([W1, W2, W3], [b1, b2, [0]])


@pytest.mark.parametrize("extra, dead, value", [(False, False, 28), pytest.param(True, False, 32, marks=pytest.mark.slow),
                                                pytest.param(False, True, 28, marks=pytest.mark.slow),
                                                pytest.param(True, True, 32, marks=pytest.mark.slow)])
def test_planted_rare_neuron_never_coactive_pairs_and_dead_neuron(extra, dead, value):
    """The planted nets of :func:`_planted`, by sampling alone (``max_regions=0``): exact, at the
    value known by construction: N - #hidden = 29 for the base net, minus 1 for the weight
    W2[0,4] between the never co-active neurons (its Jacobian column is zero) = 28; the extra
    neuron adds 2 + 1 + 3 parameters minus its scaling and its own never-exercised weight W2[0,5]
    (+4); a dead neuron adds nothing.  The complete region walk gives the same value."""
    net = _planted(extra, dead)
    fd = functional_dimension(net, max_regions=0)
    assert fd.exact and fd.value == value
    assert net.n_parameters - net.n_hidden == 29 + 5 * extra + (6 + extra) * dead
    assert any("W2[0,4] is never exercised" in s for s in fd.deficits)
    assert any("W2[0,5] is never exercised" in s for s in fd.deficits) == extra
    assert any("dead neuron (2, 3)" in s for s in fd.deficits) == dead
    assert functional_dimension(net).value == value


def test_questions_past_the_exact_budget_get_the_region_walk():
    """With no exact LP left (``lps=0``) the suspects still get the region walk: the weight
    W2[0,3] of the planted net (h3 is active on the 1e-5 triangle where (2, 0) is) gets an exact
    witness of both signs; W2[0,4] (never co-active) gets none, and nothing is proven."""
    from semialgebraic.budget import Budget
    from semialgebraic.dimension.suspects import prove_suspects
    net = _planted()
    names = net.parameter_names()
    for name, found in (("W2[0,3]", True), ("W2[0,4]", False)):
        ev = {"missing": [[names.index(name)]]}
        proven, witnesses, proofs = prove_suspects(net, None, ev, Budget(None), lps=0)
        assert proven == {} and proofs == [] and bool(witnesses) == found
        for x in witnesses[:1]:
            pat = net.activation_pattern(x)
            assert pat[3] == 1 and pat[5] == 1          # (1, 3) and (2, 0) both active


@pytest.mark.parametrize("settle", [False, True])
def test_prove_suspects_hands_its_witnesses_over_between_kinds_of_question(monkeypatch, settle):
    """``prove_suspects(found=...)``: the witnesses found so far go to *found* when the first
    pass moves to another kind of question and at its end (each once); *found* returning True
    (the caller's rank met its upper bound) stops the searches there (``dim`` of the digits
    64-32-16-10 net on [0, 16]^64 with ``--timeout 60``: its four weights' witnesses after 0.6 s,
    then 19 s of in-neuron directions, and their rows added past the deadline: [2 726, 2 730];
    with the hand-over exact 2 730 in 48 s)."""
    import semialgebraic.dimension.suspects as S
    from semialgebraic.budget import Budget
    tasks = [("free", 1, None), ("free", 2, None), ("incoming", (0, 3), None), ("incoming", (0, 4), None)]
    monkeypatch.setattr(S, "_suspect_tasks", lambda net, ev: list(tasks))
    for name in ("deeper", "masked", "walk_only", "shared", "fixed_successors"):
        monkeypatch.setattr(S._Decider, name, lambda self, *a, **k: None)
    asked = []

    def decide(self, task, cap):
        key = task[1] if isinstance(task[1], int) else task[1][1]
        asked.append(key)
        self.witnesses.append([Q(key)])
        return True

    monkeypatch.setattr(S._Decider, "decide", decide)
    calls = []

    def found(new):
        calls.append([x[0] for x in new])
        return settle

    _, witnesses, _ = S.prove_suspects(_planted(), None, {}, Budget(None), found=found)
    if settle:
        assert calls == [[1, 2]] and asked == [1, 2] and [x[0] for x in witnesses] == [1, 2]
    else:
        assert calls == [[1, 2], [3, 4]] and asked == [1, 2, 3, 4]
        assert [x[0] for x in witnesses] == [1, 2, 3, 4]
    # without *found* every question is asked, as before
    asked.clear()
    assert len(S.prove_suspects(_planted(), None, {}, Budget(None))[1]) == 4 and asked == [1, 2, 3, 4]
