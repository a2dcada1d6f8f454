"""Exact exercise decisions (three-layer-fibers R22): a parameter's Jacobian column
∂f/∂θ_p = δ·h is non-zero somewhere iff :func:`exercise` says so, against brute-force region
enumeration; proofs re-check and tampered proofs fail; the modular kernel routines behind the
certified lower bound agree with FLINT; planted dead neurons in a deeper net."""

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from algebra.linalg.gfp import PRIME, kernel_mod_p, prime_for, rank_mod_p, residue, shrink_kernel_mod_p
from semialgebraic.dimension import (check_exercise_proof, exact_jacobian_rows, exercise, functional_dimension,
                                     incoming_directions)
from semialgebraic.dimension.jacobian import network_prime
from semialgebraic.dimension.sampling import simplex_points
from algebra.kernel import is_zero_neuron as _is_zero_neuron
from semialgebraic.sets import Polyhedron
from semialgebraic.regions import regions

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def _random_net(rng, widths, rational):
    def v():
        return Q(rng.randint(-5, 5), rng.randint(1, 3)) if rational else Q(rng.randint(-2, 2))
    W = [[[v() for _ in range(widths[l])] for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    b = [[v() for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    return Network(W, b)


def _brute_force_exercised(net, domain):
    """Column p non-zero at an interior point of some linear region (every pre-activation non-zero
    except neurons with zero incoming row and bias, the convention of exercise); a first-layer
    weight W1[i,k] counts as its neuron's bias (x_k != 0 on an open set)."""
    d = net.n_inputs
    P = None if domain is None else Polyhedron.orthant(d) if domain == "orthant" else Polyhedron.box(d, *domain)
    zero = [_is_zero_neuron(net, t, j) for t in range(net.depth - 1) for j in range(net.widths[t + 1])]
    pts = [r.point for r in regions(net, domain=P) if all(s != 0 or z for s, z in zip(r.pattern, zero))]
    rows = exact_jacobian_rows(net, pts)
    ex = [any(r[p] != 0 for r in rows) for p in range(net.n_parameters)]
    W0 = net.weights[0]
    for i in range(W0.nrows):
        for k in range(W0.ncols):
            ex[i * W0.ncols + k] = ex[W0.nrows * W0.ncols + i]
    return ex


def _has_vanishing_region(net, domain):
    """Some linear region has a neuron (not identically zero) whose pre-activation vanishes on
    the whole region: the searches skip such branches and may answer undecided."""
    d = net.n_inputs
    P = None if domain is None else Polyhedron.orthant(d) if domain == "orthant" else Polyhedron.box(d, *domain)
    zero = [_is_zero_neuron(net, t, j) for t in range(net.depth - 1) for j in range(net.widths[t + 1])]
    return any(s == 0 and not z for r in regions(net, domain=P) for s, z in zip(r.pattern, zero))


@settings(max_examples=40, **SETTINGS)
@given(st.integers(0, 10**6), st.sampled_from([None, "orthant", (-1, 2), (Q(1, 3), 1)]), st.booleans())
def test_exercise_agrees_with_region_enumeration(seed, domain, rational):
    rng = random.Random(seed)
    widths = [rng.randint(1, 3)] + [rng.randint(1, 4) for _ in range(rng.randint(1, 3))] + [rng.randint(1, 2)]
    net = _random_net(rng, widths, rational)
    truth = _brute_force_exercised(net, domain)
    n_w0 = net.weights[0].nrows * net.weights[0].ncols
    for p in range(net.n_parameters):
        e = exercise(net, p, domain=domain)
        if e.exercised is None:     # a branch where a neuron vanishes identically: no decision
            assert truth[p] is False and _has_vanishing_region(net, domain)
            continue
        assert e.exercised is truth[p], (net.parameter_names()[p], e.exercised)
        # without a recorded proof the search also prunes by the affine bound of a target
        assert exercise(net, p, domain=domain, record=False).exercised is truth[p]
        if e.exercised:
            # every pre-activation non-zero at the witness, but of identically zero neurons (the
            # convention of exercise; whether the witness is a differentiable point is exact_masks' call)
            zero = [_is_zero_neuron(net, t, j) for t in range(net.depth - 1) for j in range(net.widths[t + 1])]
            assert all(s != 0 or z for s, z in zip(net.activation_pattern(e.witness), zero))
            X = [e.witness]
            if p >= n_w0:
                assert any(r[p] != 0 for r in exact_jacobian_rows(net, X))
        else:
            assert check_exercise_proof(net, e.proof)


def test_never_coactive_weight_proof_and_tampering():
    """h1_0 = relu(x) and z2_0 = -h1_0 + h1_1 - 1 are never positive together: W2[0,0] is never
    exercised; the proof (two refuted branches) re-checks, and every tampering is rejected."""
    net = Network.from_rows([[[1], [-1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, 0], [-1, -2], [0]])
    p = net.parameter_names().index("W2[0,0]")
    e = exercise(net, p)
    assert e.exercised is False and check_exercise_proof(net, e.proof)
    assert e.proof["refuted"]
    dropped = dict(e.proof, refuted=e.proof["refuted"][1:])
    assert not check_exercise_proof(net, dropped)
    ref = [dict(r) for r in e.proof["refuted"]]
    cert_ix = next(i for i, r in enumerate(ref) if "certificate" in r)
    ref[cert_ix]["certificate"] = ["0"] * len(ref[cert_ix]["certificate"])
    assert not check_exercise_proof(net, dict(e.proof, refuted=ref))
    other = net.parameter_names().index("W2[1,0]")
    assert not check_exercise_proof(net, dict(e.proof, parameter=other))
    assert check_exercise_proof(net, e.proof, domain=None)
    assert not check_exercise_proof(net, e.proof, domain="orthant")      # a claim about R^1 only
    # W2[1,0] is exercised (x > 0 with z2_1 = x - 2 > 0): exact witness with a non-zero column
    w = exercise(net, other)
    assert w.exercised and w.witness[0] > 2
    assert exact_jacobian_rows(net, [w.witness])[0][other] != 0


def test_exercise_needs_a_nonzero_delta_not_only_coactivation():
    """h1 = relu(x); z2_0 = 1 - h1, z2_1 = h1 - 1; z3 = 2 h2_1 - h2_0.  On 0 < x < 1 the neurons
    (1, 0) and (2, 0) are active together, but there z3 = -(1 - x) < 0, so δ2_0 = W3[0,0] m3 = 0;
    elsewhere h1 = 0 or (2, 0) is off.  W2[0,0] and b2[0] are never exercised (a co-activation
    search cannot see it), while W2[1,0] is (x > 1)."""
    net = Network.from_rows([[[1]], [[-1], [1]], [[-1, 2]], [[1]]], [[0], [1, -1], [0], [0]])
    names = net.parameter_names()
    assert _brute_force_exercised(net, None)[names.index("W2[0,0]")] is False
    for name in ["W2[0,0]", "b2[0]"]:
        e = exercise(net, names.index(name))
        assert e.exercised is False and check_exercise_proof(net, e.proof)
        assert any(r.get("delta_zero") for r in e.proof["refuted"])     # refuted by δ = 0
    w = exercise(net, names.index("W2[1,0]"))
    assert w.exercised and w.witness[0] > 1


def test_zero_outgoing_weights_trivial_proof():
    net = Network.from_rows([[[1], [2]], [[1, 0]]], [[0, -1], [0]])
    names = net.parameter_names()
    e = exercise(net, names.index("b1[1]"))
    assert e.exercised is False and e.proof["trivial"] == "zero outgoing weights"
    assert check_exercise_proof(net, e.proof)
    assert not check_exercise_proof(net, dict(e.proof, parameter=names.index("b1[0]")))


@pytest.mark.parametrize("n, N, r", [(40, 30, 20), (150, 200, 90), (90, 70, 70), (5, 300, 5), (300, 130, 129)])
def test_kernel_mod_p_against_flint(n, N, r):
    np = pytest.importorskip("numpy")
    flint = pytest.importorskip("flint")
    rng = np.random.default_rng(n + N)
    A = np.mod(rng.integers(0, 30, size=(n, r)) @ rng.integers(0, 30, size=(r, N)), PRIME)
    A[:, 1] = 0
    rank = flint.nmod_mat(A.tolist(), PRIME).rank()
    assert rank_mod_p(A, PRIME, block=16) == rank
    K = kernel_mod_p(A, PRIME, block=16).astype(np.int64)
    assert K.shape == (N, N - rank)
    AK = flint.nmod_mat(A.tolist(), PRIME) * flint.nmod_mat(K.tolist(), PRIME)
    assert all(int(AK[i, j]) == 0 for i in range(AK.nrows()) for j in range(AK.ncols()))
    assert flint.nmod_mat(K.tolist(), PRIME).rank() == N - rank
    # shrinking by more rows = the kernel of the stacked matrix
    B = np.mod(rng.integers(0, 30, size=(7, N)), PRIME)
    K2 = shrink_kernel_mod_p(K.astype(float), B, PRIME)
    assert K2.shape[1] == N - flint.nmod_mat(np.vstack([A, B]).tolist(), PRIME).rank()


DEEP = Network.from_rows(      # three hidden layers, every neuron switching (test_dimension)
    [[["-1/3", -1], [2, "1/2"], ["-5/3", "-1/2"]], [["5/3", "3/4", -3], [-2, 3, 1], [3, "1/4", "-5/2"]],
     [["1/2", -1, "1/2"], [-2, 1, "-4/3"]], [["-1/3", "-1/4"]]],
    [[5, "-1/4", "5/2"], ["-2/3", 4, 2], [1, "5/4"], ["-5/2"]])


def _with_layer2_neuron(row, bias, out_col):
    rows = [w.to_rows() for w in DEEP.weights]
    bs = [list(b) for b in DEEP.biases]
    rows[1] = rows[1] + [row]
    bs[1] = bs[1] + [bias]
    rows[2] = [r + [c] for r, c in zip(rows[2], out_col)]
    return Network(rows, bs)


def test_planted_dead_neuron_in_a_middle_layer():
    """A layer-2 neuron with negative weights on h1 >= 0 and negative bias is dead: f unchanged,
    fd unchanged (24), and its 3 + 1 incoming and 2 outgoing parameters are free (N grows by 6,
    the fiber dimension by 6)."""
    fd0 = functional_dimension(DEEP)
    net = _with_layer2_neuron([-1, -2, -1], -1, [3, -2])
    fd = functional_dimension(net)
    assert fd0.exact and fd.exact and fd.value == fd0.value == 24
    assert net.n_parameters == DEEP.n_parameters + 6
    assert fd.fiber_dimension.value == fd0.fiber_dimension.value + 6
    assert any("dead neuron (2, 3)" in s for s in fd.deficits)
    names = net.parameter_names()
    for name in ["W2[3,0]", "b2[3]", "W3[0,3]", "W3[1,3]"]:
        e = exercise(net, names.index(name))
        assert e.exercised is False and check_exercise_proof(net, e.proof)


def test_planted_zero_outgoing_neuron_in_a_middle_layer():
    """A live layer-2 neuron with both outgoing weights zero: δ2_3 ≡ 0, so its 4 incoming
    parameters are free; each zero outgoing weight adds the function δ3_j h2_3 (2 dimensions)."""
    fd0 = functional_dimension(DEEP)
    net = _with_layer2_neuron([1, 1, -1], "1/2", [0, 0])
    fd = functional_dimension(net)
    assert fd.exact and fd.value == fd0.value + 2
    assert any("(2, 3) reaches the output only through zero weights" in s for s in fd.deficits)


@settings(max_examples=30, **SETTINGS)
@given(st.integers(0, 10**6), st.sampled_from([None, "orthant", (-1, 2)]))
def test_incoming_directions_against_region_enumeration(seed, domain):
    """For every neuron (t, i), t >= 1: the directions are exactly the c ⊥ {(h_{t-1}(x), 1)} over
    the regions where z_t[i] > 0 (brute force: d + 1 affinely independent points per region; at
    most that many when some region has a neuron ≡ 0, whose points are not differentiable and
    which the search keeps), and each annihilates the exact Jacobian rows at every region point."""
    rng = random.Random(seed)
    widths = [rng.randint(1, 2)] + [rng.randint(1, 3) for _ in range(rng.randint(2, 3))] + [1]
    net = _random_net(rng, widths, rational=bool(seed % 2))
    d = net.n_inputs
    P = None if domain is None else Polyhedron.orthant(d) if domain == "orthant" else Polyhedron.box(d, *domain)
    zero = [_is_zero_neuron(net, t, j) for t in range(net.depth - 1) for j in range(net.widths[t + 1])]
    every = list(regions(net, domain=P))
    regs = [r for r in every if all(s != 0 or z for s, z in zip(r.pattern, zero))]
    degenerate = len(regs) < len(every)     # a neuron ≡ 0 on a region: points not differentiable
    all_pts = [r.point for r in regs]
    J = QMatrix.from_rows(exact_jacobian_rows(net, all_pts), ncols=net.n_parameters) if all_pts else None
    for t in range(1, net.depth - 1):
        for i in range(net.widths[t + 1]):
            res = incoming_directions(net, t, i, domain=domain)
            if _is_zero_neuron(net, t, i):
                assert res is None
                continue
            if res is None:         # a branch where a neuron vanishes identically: undecided
                assert degenerate
                continue
            dirs, pts = res
            vecs = []
            for r in regs:
                if net.preactivations(r.point)[t][i] <= 0:
                    continue
                for x in simplex_points(net, r.point, r.pattern):
                    h = [max(v, Q(0)) for v in net.preactivations(x)[t - 1]]
                    vecs.append(h + [Q(1)])
            r_ = QMatrix.from_rows(vecs, ncols=net.widths[t] + 1).rank() if vecs else 0
            assert len(dirs) <= net.widths[t] + 1 - r_      # sound: V may only be larger
            if not degenerate:
                assert len(dirs) == net.widths[t] + 1 - r_
                assert bool(pts) == bool(vecs)
            if dirs and J is not None:
                assert (J @ QMatrix.from_rows(dirs, ncols=net.n_parameters).T).is_zero()


def test_bound_refutations_recheck_and_resist_tampering():
    """Proofs that use the affine upper bound of a target (its positive-weight inputs decided)
    re-check; removing the bound flag (the certificate then no longer fits the rows) fails."""
    rng = random.Random(0)
    for _ in range(60):
        widths = [rng.randint(1, 3)] + [rng.randint(2, 5) for _ in range(rng.randint(2, 3))] + [1]
        net = _random_net(rng, widths, rational=False)
        for p in range(net.n_parameters):
            e = exercise(net, p)
            if e.exercised is False and any(r.get("bound") for r in e.proof["refuted"]):
                assert check_exercise_proof(net, e.proof)
                ref = [dict(r) for r in e.proof["refuted"]]
                next(r for r in ref if r.get("bound")).pop("bound")
                assert not check_exercise_proof(net, dict(e.proof, refuted=ref))
                return
    pytest.fail("no proof with a bound refutation among the sampled nets")


def test_prime_avoids_parameter_denominators():
    """A weight with denominator PRIME has no reduction mod PRIME: the modular rank switches to
    another prime (the lower bound stays certified) and the result is unchanged."""
    base = Network.from_rows([[[1], [-1]], [[1, 2]]], [[0, 1], [0]])
    odd = Network([[[Q(1, PRIME)], [Q(-1)]], [[1, 2]]], [[0, 1], [0]])
    assert network_prime(base) == PRIME and network_prime(odd) != PRIME
    assert network_prime(odd) == prime_for([PRIME])
    with pytest.raises(ZeroDivisionError):
        residue(Q(1, PRIME), PRIME)
    fb, fo = functional_dimension(base, max_regions=0), functional_dimension(odd, max_regions=0)
    assert (fo.lower, fo.upper) == (fb.lower, fb.upper)
    assert functional_dimension(odd).value == functional_dimension(base).value


@pytest.mark.slow
@settings(max_examples=400, **SETTINGS)
@given(st.integers(0, 10**6), st.sampled_from([None, "orthant", (-1, 2), (Q(1, 3), 1)]), st.booleans())
def test_exercise_agrees_with_region_enumeration_exhaustive(seed, domain, rational):
    test_exercise_agrees_with_region_enumeration.hypothesis.inner_test(seed, domain, rational)


@pytest.mark.slow
@settings(max_examples=150, **SETTINGS)
@given(st.integers(0, 10**6))
def test_sampled_sandwich_contains_walk_value_exhaustive(seed):
    """Sampling only (max_regions=0) against the complete walk, widths <= 4, depth <= 4."""
    rng = random.Random(seed)
    widths = [rng.randint(1, 3)] + [rng.randint(2, 4) for _ in range(rng.randint(2, 3))] + [1]
    net = _random_net(rng, widths, rational=bool(seed % 2))
    fw = functional_dimension(net, max_regions=None)
    fs = functional_dimension(net, max_regions=0)
    assert fs.lower <= fs.upper
    if fw.complete_regions and fw.exact:
        assert fs.lower <= fw.value <= fs.upper
