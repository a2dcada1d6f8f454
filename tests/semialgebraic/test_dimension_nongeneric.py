"""Functional dimension at non-generic parameters: it is never valued at a θ where no input is
a differentiable point of θ ↦ f_θ(x) — zero rows with a zero bias included — and non-generic
answers carry certified values at explicit nearby parameters.

Oracle (independent of :mod:`algebra.kernel.differentiability` and of netfibers' Jacobians):
``Fraction`` Jacobian rows with *every* 0/1 mask of the neurons with a zero pre-activation; an
input is differentiable iff they all agree (the polynomial pieces around θ have one gradient),
and the rank is a ``Fraction`` Gaussian elimination.
"""

import json
import random
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from algebra.kernel.differentiability import is_differentiable_at, kink_witness
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.certificates import dimension_bounds_certificate
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.regions import regions
from semialgebraic.verify import verify

ZERO = Network.from_rows([[[0]], [[3]]], [[0], [5]])                     # 3 relu(0 x + 0) + 5
DEEP = Network.from_rows([[[1]], [[0]], [[3]]], [[0], [0], [5]])
CANCEL = Network.from_rows([[[1], [1]], [[1, -1]], [[3]]], [[0, 0], [0], [5]])
CLI = [sys.executable, "-c", "import sys; from semialgebraic.cli import main; sys.exit(main())"]


# -- the oracle ----------------------------------------------------------------------------------
def _fr(v):
    return Fraction(v) if isinstance(v, (int, Fraction)) else Fraction(int(v.p), int(v.q))


def _rows(net, x, kink_masks=(), pattern=None):
    """Fraction Jacobian rows at x; neurons with z = 0 take the masks *kink_masks* (in order), or
    every neuron the mask of the sign *pattern* (the affine continuation of a region's rows)."""
    Ws = [[[_fr(v) for v in row] for row in W.to_rows()] for W in net.weights]
    bs = [[_fr(v) for v in b] for b in net.biases]
    kinks = iter(kink_masks)
    signs = iter(pattern or ())
    hs, masks, h = [[_fr(v) for v in x]], [], [_fr(v) for v in x]
    for l in range(net.depth - 1):
        z = [sum((w * hv for w, hv in zip(row, h)), Fraction(0)) + b for row, b in zip(Ws[l], bs[l])]
        if pattern is not None:
            mk = [1 if next(signs) > 0 else 0 for _ in z]
        else:
            mk = [(1 if v > 0 else 0) if v != 0 else next(kinks) for v in z]
        masks.append(mk)
        h = [v * m for v, m in zip(z, mk)]
        hs.append(h)
    out = []
    for o in range(net.n_outputs):
        delta = [Fraction(int(j == o)) for j in range(net.n_outputs)]
        blocks = []
        for l in range(net.depth - 1, -1, -1):
            blocks.append([dv * hv for dv in delta for hv in hs[l]] + delta)
            if l:
                delta = [masks[l - 1][i] * sum((delta[j] * Ws[l][j][i] for j in range(len(delta))), Fraction(0))
                         for i in range(len(hs[l]))]
        out.append([v for blk in reversed(blocks) for v in blk])
    return out


def _oracle_rows(net, x):
    """The rows at x when θ ↦ f_θ(x) is differentiable there, else None."""
    k = sum(v == 0 for layer in net.preactivations(x)[:-1] for v in layer)
    first = _rows(net, x, [0] * k)
    for c in range(1, 2 ** k):
        if _rows(net, x, [(c >> t) & 1 for t in range(k)]) != first:
            return None
    return first


def _rank(rows):
    M = [list(r) for r in rows]
    rank, col = 0, 0
    ncols = len(M[0]) if M else 0
    while rank < len(M) and col < ncols:
        piv = next((i for i in range(rank, len(M)) if M[i][col] != 0), None)
        if piv is None:
            col += 1
            continue
        M[rank], M[piv] = M[piv], M[rank]
        for i in range(len(M)):
            if i != rank and M[i][col] != 0:
                f = M[i][col] / M[rank][col]
                M[i] = [a - f * b for a, b in zip(M[i], M[rank])]
        rank += 1
        col += 1
    return rank


def _truth(net):
    """(rank over the differentiable regions, number of regions with a differentiable input) on R^d."""
    walk = regions(net, progress=False, timeout=60)
    rows, good = [], 0
    for reg in walk:
        x0 = list(reg.point)
        r0 = _oracle_rows(net, x0)
        if r0 is None:
            continue
        good += 1
        rows += r0
        for c in range(net.n_inputs):          # rows are affine on the region: continuation
            y = [_fr(v) + (1 if t == c else 0) for t, v in enumerate(x0)]
            rows += _rows(net, y, pattern=reg.pattern)
    assert walk.complete
    return _rank(rows), good


# -- three nets where no input is differentiable: a zero row, a deep dead path, a cancellation ----
@pytest.mark.parametrize("net, kink, near", [(ZERO, (0, 0), [2, 1]), (DEEP, (1, 0), [2, 1]),
                                             (CANCEL, (1, 0), [3, 1])], ids=["zero", "deep", "cancel"])
def test_nets_without_differentiable_inputs_are_non_generic_with_nearby_values(net, kink, near):
    fd = functional_dimension(net)
    assert fd.non_generic and fd.value is None and not fd.exact
    assert [e["dimension"] for e in fd.nearby] == near and all(e["certified"] for e in fd.nearby)
    assert fd.local_upper == max(near)
    assert _truth(net) == (0, 0)
    for e in fd.nearby:                        # each nearby value is the truth at that parameter
        theta = Network.from_parameters(net.widths, [Q(v) for v in e["parameters"]])
        assert not fd.non_generic or _truth(theta)[0] == e["dimension"]
    js = fd.to_json()
    assert js["non_generic"] and js["local_upper"] == max(near) and len(js["nearby"]) == 2
    assert kink_witness(net, net.activation_pattern([Q(1)])) == kink
    assert not is_differentiable_at(net, [Q(-2)])


def test_certificate_with_rows_at_a_kink_is_rejected():
    """The certificate that was accepted ('exact: 1'): rows at x = 1, where the zero neuron's
    bias has one-sided derivatives 3 and 0."""
    good = functional_dimension_certificate(Network.from_rows([[[0]], [[3]]], [[1], [5]]),
                                            functional_dimension(Network.from_rows([[[0]], [[3]]], [[1], [5]])))
    forged = dimension_bounds_certificate(ZERO, prime=good["prime"], inputs=[[1]], lower=1)
    ok, why = verify(json.loads(json.dumps(forged)))
    assert not ok and "not differentiable" in why
    forged = dimension_bounds_certificate(ZERO, prime=good["prime"], inputs=[[1]], lower=1, upper=1,
                                          domain={"box": [1, 1]}, upper_one_point=True)
    ok, why = verify(json.loads(json.dumps(forged)))
    assert not ok and "not differentiable" in why
    assert verify(json.loads(json.dumps(functional_dimension_certificate(ZERO, functional_dimension(ZERO)))))[0] is False


def test_cli_non_generic_exit_3_with_nearby(tmp_path):
    p = tmp_path / "net.json"
    p.write_text(json.dumps(ZERO.to_dict()))
    run = subprocess.run(CLI + ["dim", str(p), "--json"], capture_output=True, text=True)
    assert run.returncode == 3, run.stderr
    data = json.loads(run.stdout)
    assert data["functional_dimension"] is None and data["non_generic"] and data["local_upper"] == 2
    assert [(e["dimension"], e["certified"]) for e in data["nearby"]] == [(2, True), (1, True)]
    c = tmp_path / "cert.json"
    run = subprocess.run(CLI + ["dim", str(p), "--certificate", str(c)], capture_output=True, text=True)
    assert run.returncode == 3 and "non-generic parameter" in run.stdout
    assert "local upper value 2" in run.stdout and not c.exists()


# -- zero rows at every depth ---------------------------------------------------------------------
def _chain(depth, at, out_weight):
    """x -> (relu(x + 1) chain of always-active neurons) with an extra zero neuron in hidden
    layer *at* (zero row, zero bias) whose outgoing weight is *out_weight*."""
    Ws, bs, width_prev = [], [], 1
    for t in range(depth - 1):
        W = [[Q(1)] + [Q(0)] * (width_prev - 1)]
        b = [Q(1)]
        if t == at:
            W.append([Q(0)] * width_prev)
            b.append(Q(0))
        Ws.append(W)
        bs.append(b)
        width_prev = len(W)
    # each layer's first neuron takes the previous first neuron; the zero neuron feeds the next
    # first neuron (or the output) with out_weight
    for t in range(depth - 1):
        if t == at + 1 and t < depth - 1:
            Ws[t][0][1] = Q(out_weight)
    Wout = [[Q(1)] + [Q(0)] * (width_prev - 1)]
    if at == depth - 2:
        Wout[0][1] = Q(out_weight)
    Ws.append(Wout)
    bs.append([Q(0)])
    return Network.from_rows(Ws, bs)


@pytest.mark.parametrize("depth, at", [(2, 0), (3, 0), (3, 1), (4, 0), (4, 1), (4, 2)])
def test_zero_row_at_every_depth(depth, at):
    net = _chain(depth, at, 2)
    fd = functional_dimension(net)
    assert fd.non_generic and fd.value is None and fd.local_upper is not None
    assert all(e["certified"] for e in fd.nearby)
    assert _truth(net) == (0, 0)
    # the same zero neuron with zero outgoing weights: still valued, the oracle's value
    quiet = _chain(depth, at, 0)
    fd = functional_dimension(quiet)
    assert fd.exact and not fd.non_generic
    rank, good = _truth(quiet)
    assert good > 0 and fd.value == rank
    assert verify(json.loads(json.dumps(functional_dimension_certificate(quiet, fd))))[0] is True


def test_zero_neuron_seen_on_some_regions_only():
    """relu(x) feeds z2 = h_zero + h_x - 0 ... the zero neuron's successor is inactive for x < 0
    (bias -1, weight 1 on relu(x)): there the region is differentiable, elsewhere not."""
    net = Network.from_rows([[[1], [0]], [[1, 1]], [[1]]], [[0, 0], [-1], [0]])
    fd = functional_dimension(net)
    rank, good = _truth(net)
    assert 0 < good and fd.exact and fd.value == rank
    assert any("hold no differentiable input" in d for d in fd.deficits)


def test_one_point_box_on_a_kink_is_non_generic():
    net = Network.from_rows([[[1]], [[3]]], [[0], [5]])         # kink of relu(x) at x = 0
    fd = functional_dimension(net, domain=(0, 0))
    assert fd.non_generic and fd.value is None and fd.local_upper == 1
    assert [e["dimension"] for e in fd.nearby] == [1, 1] and all(e["certified"] for e in fd.nearby)
    fd = functional_dimension(net, domain=(1, 1))
    assert fd.exact and fd.value == 1
    fd = functional_dimension(ZERO, domain=(2, 2))               # the zero neuron: kink everywhere
    assert fd.non_generic


# -- the checker ignores proofs that say nothing on a vanishing branch ----------------------------
def test_dead_proof_with_a_vanishing_branch_is_rejected():
    """k = relu(m - 2 j) is never active where every neuron is non-zero, but for x < 0 the neuron
    j = relu(relu(x)) vanishes on the whole half-line, the paths from j cancel (-2 + 2) and k is
    active there: those inputs are differentiable, so 'k is dead' is false on the domain.  The
    phase search refutes both signs of j there (its form is 0); the checker must not accept it."""
    import time
    from semialgebraic.dimension.jacobian_columns import phase_search
    from semialgebraic.verify.functional_dimension_upper import _upper_vectors
    net = Network.from_rows([[[1], [-1]], [[1, 0], [0, 1]], [[-2, 1], [2, 1]], [[1, 1]]],
                            [[0, 0], [0, 0], [0, 0], [0]])
    x = [Q(-1)]
    assert is_differentiable_at(net, x) and net.preactivations(x)[2][0] > 0
    found, _, refuted, order, _ = phase_search(net, None, {(2, 0): 1}, None, max_lps=10 ** 6,
                                               deadline=time.monotonic() + 30, record=True, upto=2,
                                               skip_vanishing=False)
    assert found is False                      # the raw search 'proves' k dead
    assert phase_search(net, None, {(2, 0): 1}, None, max_lps=10 ** 6, deadline=None, record=True,
                        upto=2)[0] is None     # the search skips the vanishing branch: undecided
    proof = json.loads(json.dumps({"targets": [[2, 0, 1]], "domain": None,
                                   "order": [list(o) for o in order], "refuted": refuted}, default=str))
    assert isinstance(_upper_vectors(net, [["dead_proof", 2, 0, proof]], None), str)
    fd = functional_dimension(net)
    rank, good = _truth(net)
    assert fd.exact and fd.value == rank and good == 1
    assert verify(json.loads(json.dumps(functional_dimension_certificate(net, fd))))[0] is True


# -- the kernel rule against the brute force ------------------------------------------------------
def _random_net(rng, widths):
    vals = [-2, -1, 0, 0, 1, 1, 2, Q(1, 2)]
    Ws = [[[Q(rng.choice(vals)) for _ in range(widths[l])] for _ in range(widths[l + 1])]
          for l in range(len(widths) - 1)]
    bs = [[Q(rng.choice([0, 0, 1, -1])) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    for _ in range(rng.randint(0, 3)):           # zero rows (and zero biases), zero columns
        l = rng.randrange(len(widths) - 2)
        i = rng.randrange(widths[l + 1])
        if rng.random() < 0.6:
            Ws[l][i] = [Q(0)] * widths[l]
            bs[l][i] = Q(0)
        else:
            for row in Ws[l + 1]:
                row[i] = Q(0)
    return Network.from_rows(Ws, bs)


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


@settings(max_examples=60, **SETTINGS)
@given(st.integers(0, 10 ** 6))
def test_kernel_rule_matches_brute_force(seed):
    rng = random.Random(seed)
    widths = [rng.randint(1, 2)] + [rng.randint(1, 3) for _ in range(rng.randint(1, 3))] + [rng.randint(1, 2)]
    net = _random_net(rng, widths)
    for _ in range(6):
        x = [Q(rng.choice([-2, -1, 0, 0, 1, 2, Q(1, 2)])) for _ in range(net.n_inputs)]
        assert is_differentiable_at(net, x) is (_oracle_rows(net, x) is not None)


@settings(max_examples=20, **SETTINGS)
@given(st.integers(0, 10 ** 6))
def test_dim_sweep_against_fraction_jacobian(seed):
    rng = random.Random(seed)
    widths = [rng.randint(1, 2)] + [rng.randint(1, 3) for _ in range(rng.randint(1, 2))] + [1]
    net = _random_net(rng, widths)
    rank, good = _truth(net)
    fd = functional_dimension(net, nearby=False)
    cert = json.loads(json.dumps(functional_dimension_certificate(net, fd)))
    ok, _ = verify(cert)
    if good == 0:
        assert fd.value is None and not ok
        if fd.complete_regions:
            assert fd.non_generic
        return
    assert not fd.non_generic and fd.lower <= rank <= fd.upper
    if fd.exact:
        assert fd.value == rank
    assert ok and cert["lower"] <= rank
    if "uncertified_upper_reason" not in cert:
        assert cert["upper"] >= rank


# -- dim's own facts never rest on a vanishing branch ---------------------------------------------
# j = relu(relu(x)) vanishes on the whole half-line x < 0, where k = relu(m - 2 j) and
# n = relu(m + 2 j) are both active: the paths from j cancel (-2 + 2), so those inputs are
# differentiable and k is active there.  The box reaches x < 0 by 2^-31 only: no sampled input
# sees k active, and the phase search refutes both signs of j there (its form is 0).
VANISH = Network.from_rows([[[1], [-1]], [[1, 0], [-1, 1]], [[-2, 1], [2, 1]], [[1, 1]]],
                           [[0, 0], [0, 0], [0, 0], [0]])
THIN = (Q(-1, 2 ** 31), Q(1))


def test_sampled_facts_do_not_rest_on_a_vanishing_branch():
    from semialgebraic.dimension import incoming_directions
    from semialgebraic.dimension.suspects import prove_empty
    net, dom = VANISH, THIN
    x = [Q(-1, 2 ** 32)]
    pre = net.preactivations(x)
    assert pre[1][0] == 0 and pre[2][0] > 0                 # j vanishes, k is active
    assert _oracle_rows(net, x) is not None                 # and x is differentiable (brute force)
    # 'k dead', 'j always active', 'k has free incoming directions' would all be false
    assert prove_empty(net, dom, {(2, 0): 1}, max_lps=10 ** 6) is None
    assert prove_empty(net, dom, {(1, 0): -1}, max_lps=10 ** 6) is None
    assert incoming_directions(net, 2, 0, domain=dom) is None
    fd = functional_dimension(net, domain=dom, max_regions=0)     # sampled only: no region walk
    assert not fd.complete_regions
    proven = fd.details["proven"]
    assert 4 not in proven.get("dead", ())
    # j >= 0 holds at every input (closed): only a branch-and-bound proof of that closed fact may
    # make it always active (the phase search's open-branch facts must not)
    assert 2 not in proven.get("active", ()) or ("active", 2) in proven.get("emptiness", {})
    assert (2, 0) not in proven.get("incoming", {})
    rank, good = _truth(net)                   # the box meets both regions of R: same truth
    assert good == 2 and fd.lower <= rank <= fd.upper
    assert functional_dimension(net, domain=dom).value == rank == 4
    cert = functional_dimension_certificate(net, fd, domain=dom)      # verify=True: checked
    assert verify(json.loads(json.dumps(cert)))[0] is True and cert["lower"] <= rank


def test_without_the_walk_all_directions_proven_means_non_generic():
    """dim_campaign seed 32629 (``--max-regions 0``): a zero first-layer neuron that an
    always-active neuron passes on to the output; no sampled input is differentiable and the
    proven directions span every parameter, so the sandwich read [0, 0] and said "exactly 0".
    Those directions include the output bias, whose Jacobian entry is 1 at any differentiable
    input: there is none, the parameter is non-generic (as the walk finds), with nearby values
    moving the zero neuron's bias."""
    net = Network.from_rows([[[-1], [0]], [[-4, 4], [-1, -2], ["3/2", 3], [1, -1], [-2, -4]],
                             [[-1, 3, 0, -3, 0]]], [["-1/3", 0], [1, "-4/3", 2, "-2/3", 1], [-2]])
    walked = functional_dimension(net, domain=(0, 2))
    assert walked.non_generic and not walked.exact
    fd = functional_dimension(net, domain=(0, 2), max_regions=0)
    assert fd.non_generic and not fd.exact and fd.value is None
    assert "span every parameter" in fd.non_generic
    assert [e["change"] for e in fd.nearby] == [e["change"] for e in walked.nearby] == \
        ["b1[1] += 1/256", "b1[1] -= 1/256"]
    assert [e["dimension"] for e in fd.nearby] == [2, 1]


def test_no_differentiable_sampled_input_is_said():
    """A middle-layer neuron with a zero row and bias that the layer above reads (an outsider's
    4-layer net): no sampled input is a differentiable point, and the interval [0, upper] says
    so and points to the complete walk, instead of only naming the neuron "dead"."""
    W = [[[-9, Fraction(15, 2)], [2, Fraction(-9, 4)], [Fraction(4, 7), Fraction(14, 5)]],
         [[Fraction(16, 3), Fraction(-15, 7), Fraction(-3, 4)], [0, 0, 0], [Fraction(4, 3), Fraction(11, 2), Fraction(6, 5)]],
         [[1, -9, -3], [Fraction(19, 7), -1, 7]], [[Fraction(-8, 3), Fraction(3, 2)]]]
    b = [[-1, -1, Fraction(-12, 7)], [Fraction(6, 7), 0, Fraction(13, 2)], [8, -3], [-8]]
    net = Network.from_rows(W, b)
    fd = functional_dimension(net, max_regions=0)
    assert fd.lower == 0 and not fd.exact
    assert "none of the" in fd.reason and "differentiable point" in fd.reason
