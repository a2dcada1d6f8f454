"""Functional-dimension certificates re-check every upper-bound direction (three-layer-fibers
R22 with S2 scalings, R11 S4 GL blocks, R13 S6 bias trades).

Each test asserts values: the exact functional dimension of planted nets, the entries the
certificate lists, and that every vector the checker builds is annihilated by the exact Jacobian
rows J(x) at random exact inputs (and, for bias trades and GL directions, that the straight line
θ + t v leaves f(x) unchanged exactly).  Tampered certificates are rejected.
"""

import copy
import json
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.kernel.differentiability import is_differentiable_at
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import (exact_jacobian_rows, exact_rank, functional_dimension,
                                     functional_dimension_certificate)
from semialgebraic.verify import verify
from semialgebraic.verify.functional_dimension import _domain
from semialgebraic.verify.functional_dimension_emptiness import SharedProofs
from semialgebraic.verify.functional_dimension_upper import _upper_vectors


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------
def _certify(net, domain=None, **kw):
    fd = functional_dimension(net, domain=domain, **kw)
    cert = json.loads(json.dumps(functional_dimension_certificate(net, fd, domain=domain)))
    return fd, cert


def _kinds(cert):
    return sorted({e[0] for e in cert.get("upper_directions", [])})


def _entries(cert, kind):
    return [e[1:3] for e in cert.get("upper_directions", []) if e[0] == kind]


def _differentiable(net, x) -> bool:
    """theta -> f_theta(x) is differentiable at x (the kernel rule, itself tested against a brute
    force over kink masks in tests/semialgebraic/test_dimension_nongeneric.py)."""
    return is_differentiable_at(net, x)


def _random_inputs(net, domain, count, seed):
    rng = random.Random(seed)
    d = net.n_inputs
    out = []
    for _ in range(50 * count):          # (a net may have no differentiable input at all)
        if len(out) == count:
            break
        if isinstance(domain, tuple):
            lo, hi = Q(domain[0]), Q(domain[1])
            x = tuple(lo + (hi - lo) * Q(rng.randint(1, 996), 997) for _ in range(d))
        elif domain == "orthant":
            x = tuple(Q(rng.randint(1, 4000), rng.randint(1, 97) * rng.choice((1, 1000))) for _ in range(d))
        else:                                        # magnitudes up to ~4000 and up to ~4
            x = tuple(Q(rng.randint(-4000, 4000), rng.randint(1, 97) * rng.choice((1, 1000))) for _ in range(d))
        if _differentiable(net, x):
            out.append(x)
    return out


def _assert_kernel(net, cert, domain, count=20, seed=0):
    """Every vector of the certificate's upper directions is annihilated by J(x) exactly."""
    lo_hi = _domain(cert["domain"])
    vecs = _upper_vectors(net, cert["upper_directions"], lo_hi, SharedProofs(net, lo_hi, cert.get("shared_proofs", [])))
    assert not isinstance(vecs, str), vecs
    vecs = [_dense(net.n_parameters, v) for v in vecs]          # (the checker's are sparse dicts)
    rows = exact_jacobian_rows(net, _random_inputs(net, domain, count, seed))
    for v in vecs:
        for r in rows:
            assert sum((a * b for a, b in zip(r, v)), Q(0)) == 0
    return vecs


def _dense(n, v) -> list:
    """The sparse vector *v* (``{index: value}``) as a list of *n* rationals."""
    out = [Q(0)] * n
    for k, w in v.items():
        out[k] = w
    return out


def _line_is_symmetry(net, v, xs, t=Q(1, 10 ** 9)):
    """f_{θ+tv}(x) == f_θ(x) at every x of *xs* where the masks do not change (exact)."""
    moved = Network.from_parameters(net.widths, [p + t * c for p, c in zip(net.parameters(), v)])
    checked = 0
    for x in xs:
        same = all((a > 0) == (b > 0) for la, lb in zip(net.preactivations(x)[:-1], moved.preactivations(x)[:-1])
                   for a, b in zip(la, lb))
        if same:
            assert moved(x) == net(x)
            checked += 1
    assert checked


def _vector(net, kind, l, i, i2=None):
    """The bias-trade (kind 'trade') or GL (kind 'gl', pair i <- i2) direction, built here."""
    N = net.n_parameters
    offs, k = [], 0
    for W, b in zip(net.weights, net.biases):
        offs.append(k)
        k += W.nrows * W.ncols + len(b)
    W, b = net.layer(l)
    V, _ = net.layer(l + 1)
    v = [Q(0)] * N
    if kind == "trade":
        v[offs[l] + W.nrows * W.ncols + i] = Q(1)
        for o in range(V.nrows):
            v[offs[l + 1] + V.nrows * V.ncols + o] = -V[o, i]
    else:
        for c in range(W.ncols):
            v[offs[l] + i * W.ncols + c] = W[i2, c]
        v[offs[l] + W.nrows * W.ncols + i] = b[i2]
        for o in range(V.nrows):
            v[offs[l + 1] + o * V.ncols + i2] = -V[o, i]
    return v


# ------------------------------------------------------------------------------------------------
# planted always-active neurons (bias trades, GL blocks)
# ------------------------------------------------------------------------------------------------
ZERO_ROW = Network.from_rows([[[1, 2], [0, 0], [-1, 1]], [[1, 2, -1]]], [[0, 3, 1], [0]])
DEEP_NONNEG = Network.from_rows([[[1, 2], [-1, 1], [2, -1]], [[1, 2, 0], [1, -1, 1]], [[1, -2]]],
                                [[0, 1, 0], [1, 0], [0]])
BOX = Network.from_rows([[[1, 2], [-1, 1], [1, 1]], [[1, 2, -1]]], [[5, 4, 0], [0]])


@pytest.mark.parametrize("max_regions", [400, 0])
def test_zero_row_bias_three_is_a_certified_bias_trade(max_regions):
    # neuron (0, 1) is the constant 3: its 2 weights are never exercised and its bias trades
    # with the output bias; fd = N - 3 scalings - 1 trade = 13 - 4 = 9 (W1[1,:] lie in the
    # scaling/trade span: J columns of W1[1,:] are delta*x with delta = W2[0,1], exercised)
    fd, cert = _certify(ZERO_ROW, max_regions=max_regions)
    assert (fd.lower, fd.upper) == (9, 9)
    assert _entries(cert, "active") == [[0, 1]]
    ok, why = verify(cert)
    assert ok and "upper bound certified" in why and "exact: 9" in why
    assert cert["claim"] == "lower <= functional dimension <= upper"
    vecs = _assert_kernel(ZERO_ROW, cert, None)
    # 3 scalings + 1 trade, independent, and the constant neuron's trade of its outgoing weight
    # with the output bias (three-layer-fibers R34 (e)), in their span (its column is non-zero)
    assert _entries(cert, "constant") == [[0, 1]] and len(vecs) == 5
    assert ZERO_ROW.n_parameters - QMatrix.from_rows(vecs).rank() == 9
    _line_is_symmetry(ZERO_ROW, _vector(ZERO_ROW, "trade", 0, 1), _random_inputs(ZERO_ROW, None, 20, 1))


def test_deeper_neuron_with_nonnegative_inputs_is_always_active():
    # z_1[0] = h0 + 2 h1 + 1 >= 1 (ReLU outputs are >= 0): the bias trade with the output bias
    fd, cert = _certify(DEEP_NONNEG)
    assert (fd.lower, fd.upper) == (14, 14)             # 20 - 5 scalings - 1 trade
    assert _entries(cert, "active") == [[1, 0]]
    ok, why = verify(cert)
    assert ok and "exact: 14" in why
    xs = _random_inputs(DEEP_NONNEG, None, 20, 2)
    _assert_kernel(DEEP_NONNEG, cert, None)
    _line_is_symmetry(DEEP_NONNEG, _vector(DEEP_NONNEG, "trade", 1, 0), xs)


def test_box_domain_block_of_always_active_neurons():
    # on [-1, 1]^2: z0 = x1 + 2x2 + 5 >= 2, z1 = -x1 + x2 + 4 >= 2: a linear block of two;
    # f = (z0 + 2 z1) - relu(x1 + x2); fd = 3 (affine part) + 3 (one ReLU, 4 - scaling) = 6
    fd, cert = _certify(BOX, domain=(-1, 1))
    assert (fd.lower, fd.upper) == (6, 6)
    assert _entries(cert, "active") == [[0, 0], [0, 1]]
    assert _entries(cert, "block") == [[0, [0, 1]]]
    ok, why = verify(cert)
    assert ok and "exact: 6" in why
    xs = _random_inputs(BOX, (-1, 1), 20, 3)
    _assert_kernel(BOX, cert, (-1, 1))
    for i, i2 in ((0, 1), (1, 0)):                    # GL: (I + tE)(I - tE) = I exactly (E^2 = 0)
        _line_is_symmetry(BOX, _vector(BOX, "gl", 0, i, i2), xs)
    # on all of R^2 the same neurons switch: no trade, no block, fd = 13 - 3 = 10
    fd2, cert2 = _certify(BOX)
    assert fd2.value == 10 and _entries(cert2, "active") == [] and verify(cert2)[0]


def test_gl_block_mutations_are_rejected():
    _, cert = _certify(BOX, domain=(-1, 1))
    bad = copy.deepcopy(cert)
    bad["domain"] = None                               # not always active on R^2
    bad["inputs"] = bad["inputs"][:1]
    bad["lower"] = 1
    ok, why = verify(bad)
    assert not ok and "not always active" in why
    bad = copy.deepcopy(cert)
    bad["upper_directions"] = [e if e[0] != "block" else ["block", 0, [0, 2]] for e in bad["upper_directions"]]
    ok, why = verify(bad)
    assert not ok and "(0, 2) of the block is not proven always active" in why
    for entry in (["block", 0, [0]], ["block", 0, [0, 0]], ["block", 1, [0, 1]], ["block", 0, [0, 5]]):
        bad = copy.deepcopy(cert)
        bad["upper_directions"].append(entry)
        with pytest.raises(InputError):
            verify(bad)


# ------------------------------------------------------------------------------------------------
# planted silent neurons
# ------------------------------------------------------------------------------------------------
def test_zero_output_column_is_silent():
    net = Network.from_rows([[[1, 2], [-1, 1], [1, -1]], [[1, 0, -1]]], [[0, 1, 0], [0]])
    fd, cert = _certify(net)
    assert (fd.lower, fd.upper) == (8, 8)              # 13 - 3 incoming - 2 scalings
    assert _entries(cert, "silent") == [[0, 1]]
    ok, why = verify(cert)
    assert ok and "exact: 8" in why
    _assert_kernel(net, cert, None)


def test_neuron_whose_successors_are_all_dead_is_silent():
    # (1, 1) = relu(-h2 - 1) is dead (interval hi = -1); (0, 2) feeds only it (W2[0,2] = 0):
    # silent.  f = W3[0,0] (h0 + 2 h1 + b) + b3 locally: alpha relu(r0) + beta relu(r1) + gamma
    # is 7-dimensional, and W2[0,2] (zero, but exercised: it adds relu(x1 - x2)) one more: 8
    net = Network.from_rows([[[1, 2], [-1, 1], [1, -1]], [[1, 2, 0], [0, 0, -1]], [[1, 1]]],
                            [[0, 1, 0], [0, -1], [0]])
    fd, cert = _certify(net)
    assert _entries(cert, "dead") == [[1, 1]] and _entries(cert, "silent") == [[0, 2]]
    assert ["active", 1, 0] in cert["upper_directions"]          # h0 + 2 h1 >= 0
    assert (fd.lower, fd.upper) == (8, 8)
    ok, why = verify(cert)
    assert ok and "exact: 8" in why
    vecs = _assert_kernel(net, cert, None)
    assert len(vecs) > 0
    bad = copy.deepcopy(cert)
    bad["network"]["layers"][1]["bias"][1] = "1"      # (1, 1) wakes up: (0, 2) not silent
    ok, why = verify(bad)
    assert not ok


def test_silent_mutations_are_rejected():
    net = Network.from_rows([[[1, 2], [-1, 1], [1, -1]], [[1, 0, -1]]], [[0, 1, 0], [0]])
    _, cert = _certify(net)
    for i in (0, 2):
        bad = copy.deepcopy(cert)
        bad["upper_directions"].append(["silent", 0, i])
        ok, why = verify(bad)
        assert not ok and "not silent" in why
    bad = copy.deepcopy(cert)
    bad["upper_directions"].append(["silent", 1, 0])    # layer 1 is the output layer
    with pytest.raises(InputError):
        verify(bad)


# ------------------------------------------------------------------------------------------------
# facts proven by search, with their proofs (sampling incomplete: max_regions=0)
# ------------------------------------------------------------------------------------------------
DEAD_BY_SEARCH = Network.from_rows([[[1], [1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, -1], ["-1/2", 0], [0]])
ACTIVE_BY_SEARCH = Network.from_rows([[[1], [1]], [[1, -1], [1, 1]], [[1, 1]]], [[0, -1], [2, -1], [0]])
INCOMING = Network.from_rows([[[1], [-1], [1]], [[1, 0, 1]], [[1]]], [[0, 0, -1], [-3], [0]])


def test_dead_by_search_is_certified_with_its_proof():
    # z_1[0] = relu(x - 1) - relu(x) - 1/2 < 0 everywhere, but interval bounds do not see it
    fd, cert = _certify(DEAD_BY_SEARCH, max_regions=0)
    assert 2 in fd.details["proven"]["dead"]
    assert _entries(cert, "dead_proof") == [[1, 0]] and _entries(cert, "dead") == []
    ok, why = verify(cert)
    assert ok and "upper bound certified" in why and cert["upper"] == fd.upper
    _assert_kernel(DEAD_BY_SEARCH, cert, None)
    entry = next(e for e in cert["upper_directions"] if e[0] == "dead_proof")
    bad = copy.deepcopy(cert)
    next(e for e in bad["upper_directions"] if e[0] == "dead_proof")[3]["refuted"].pop()
    ok, why = verify(bad)
    assert not ok and "never active does not check" in why
    bad = copy.deepcopy(cert)
    next(e for e in bad["upper_directions"] if e[0] == "dead_proof")[2] = 1   # the proof is about (1, 0)
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["network"]["layers"][1]["bias"][0] = "1/2"      # now active near x = 0
    assert not verify(bad)[0]
    assert entry[3]["targets"] == [[1, 0, 1]]


def test_active_by_search_is_certified_with_its_proof():
    # z_1[0] = relu(x) - relu(x - 1) + 2 >= 2 everywhere; interval bounds give lo = -inf
    fd, cert = _certify(ACTIVE_BY_SEARCH, max_regions=0)
    assert _entries(cert, "active_proof") == [[1, 0]]
    ok, why = verify(cert)
    assert ok and cert["upper"] == fd.upper
    vecs = _assert_kernel(ACTIVE_BY_SEARCH, cert, None)
    xs = _random_inputs(ACTIVE_BY_SEARCH, None, 20, 4)
    _line_is_symmetry(ACTIVE_BY_SEARCH, _vector(ACTIVE_BY_SEARCH, "trade", 1, 0), xs)
    bad = copy.deepcopy(cert)
    bad["network"]["layers"][1]["bias"][0] = "-1/2"     # inactive for x < 0 now
    ok, why = verify(bad)
    assert not ok
    assert len(vecs) == len(_upper_vectors(ACTIVE_BY_SEARCH, cert["upper_directions"], None,
                                           SharedProofs(ACTIVE_BY_SEARCH, None, cert.get("shared_proofs", []))))


def test_incoming_directions_are_certified_with_the_enumeration():
    # (1, 0) = relu(h0 + h2 - 3) is active only for x > 2 where h1 = 0 and h0 - h2 = 1
    fd, cert = _certify(INCOMING, max_regions=0)
    assert _entries(cert, "incoming") == [[1, 0]]
    ok, why = verify(cert)
    assert ok and cert["upper"] == fd.upper
    _assert_kernel(INCOMING, cert, None)
    bad = copy.deepcopy(cert)
    inc = next(e for e in bad["upper_directions"] if e[0] == "incoming")
    inc[3]["leaves"] = []                               # the active region left out
    ok, why = verify(bad)
    assert not ok and "enumeration" in why


def test_masked_neuron_from_complete_patterns_is_certified():
    # (0, 0) = relu(x) feeds (1, 0) (dead by search) and (1, 1) = relu(h0 + h1); wherever (0, 0)
    # is off (x < 0), h1 = relu(x - 1) = 0 too, so (1, 1) = relu(0) is off: masked bias trade
    # (R13 S6), one emptiness proof for the live successor (1, 1)
    fd, cert = _certify(DEAD_BY_SEARCH)
    assert fd.complete_regions and (fd.lower, fd.upper) == (4, 4)
    assert _entries(cert, "dead_proof") == [[1, 0]] and _entries(cert, "masked") == [[0, 0]]
    masked = next(e for e in cert["upper_directions"] if e[0] == "masked")
    assert [p["targets"] for p in masked[3]] == [[[0, 0, -1], [1, 1, 1]]]
    ok, why = verify(cert)
    assert ok and "exact: 4" in why
    _assert_kernel(DEAD_BY_SEARCH, cert, None)
    _line_is_symmetry(DEAD_BY_SEARCH, _vector(DEAD_BY_SEARCH, "trade", 0, 0),
                      _random_inputs(DEAD_BY_SEARCH, None, 20, 6))
    bad = copy.deepcopy(cert)
    next(e for e in bad["upper_directions"] if e[0] == "masked")[3] = []
    ok, why = verify(bad)
    assert not ok and "inactive wherever (0, 0) is" in why
    bad = copy.deepcopy(cert)
    bad["upper_directions"] = [e for e in bad["upper_directions"] if e[0] != "dead_proof"]
    ok, why = verify(bad)                   # (1, 0) is then a successor without a proof
    assert not ok
    bad = copy.deepcopy(cert)
    next(e for e in bad["upper_directions"] if e[0] == "masked")[2] = 1      # (0, 1) is not masked
    assert not verify(bad)[0]


# ------------------------------------------------------------------------------------------------
# complete walks: the upper bound is the exact rank over a certified cover of regions
# ------------------------------------------------------------------------------------------------
def test_complete_walk_upper_is_certified_by_the_regions():
    # every region walked: fd = 5 (exact rank), while the proven symmetries only give <= 8
    fd, cert = _certify(ACTIVE_BY_SEARCH)
    assert fd.complete_regions and fd.value == 5
    assert "upper_directions" not in cert and "uncertified_upper_reason" not in cert
    regions = cert["upper_regions"]
    assert sorted(tuple(r["pattern"]) for r in regions) == sorted(fd.details["patterns"])
    ok, why = verify(cert)
    assert ok and "regions cover the domain" in why and "exact: 5" in why
    # independent cross-check: exact rows at many random inputs never exceed rank 5, reach it
    assert exact_rank(ACTIVE_BY_SEARCH, _random_inputs(ACTIVE_BY_SEARCH, None, 60, 5)) == 5
    bad = copy.deepcopy(cert)
    bad["upper"] = 4
    ok, why = verify(bad)
    assert not ok and "exact rank" in why
    for r in range(len(regions)):                        # any region left out breaks the cover
        bad = copy.deepcopy(cert)
        del bad["upper_regions"][r]
        assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["upper_regions"][0]["pattern"] = [-s for s in bad["upper_regions"][0]["pattern"]]
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["network"]["layers"][1]["bias"][0] = "-1/2"     # other regions now: the cover breaks
    assert not verify(bad)[0]


def test_complete_walk_regions_on_a_box():
    fd, cert = _certify(INCOMING, domain=(-3, 3))
    ok, why = verify(cert)
    assert ok and f"exact: {fd.value}" in why and fd.exact
    assert "upper_directions" in cert or "upper_regions" in cert
    bad = copy.deepcopy(cert)
    bad["domain"] = {"box": [-4, 4]}                    # same inputs, larger box: not covered
    if "upper_regions" in bad:
        assert not verify(bad)[0]


def test_uncertified_upper_names_what_is_missing(monkeypatch):
    import semialgebraic.dimension.certificate as certificate
    monkeypatch.setattr(certificate, "cover_regions", lambda *a: None)    # the walk ran out of time
    fd, cert = _certify(ACTIVE_BY_SEARCH)
    assert fd.complete_regions and fd.value == 5
    assert "upper_directions" not in cert and "upper_regions" not in cert
    assert "not the reported upper 5" in cert["uncertified_upper_reason"]
    assert "did not finish" in cert["uncertified_upper_reason"]
    ok, why = verify(cert)
    assert ok and "not certified" in why


def test_proofs_are_refused_on_a_one_point_box():
    # the proofs refute strict systems over the open box: empty for [2, 2]^d, so they would
    # "prove" anything; at the point x = 2, W1[0,0] is exercised (f = relu(x): df/dW = x = 2)
    net = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    fd, cert = _certify(net, domain=(2, 2))
    ok, why = verify(cert)
    assert ok and fd.lower == 1
    assert cert.get("upper_one_point") is True and "exact: 1" in why   # rank at the single input
    wrong = copy.deepcopy(cert)
    wrong["upper"] = wrong["lower"] = 0
    assert not verify(wrong)[0]
    forged = copy.deepcopy(cert)
    forged.pop("upper_one_point")
    forged["upper_directions"] = forged.get("upper_directions", []) + [
        ["free", 0, {"parameter": 0, "domain": ["2", "2"], "targets": [[0, 0, 1]], "delta_of": None,
                     "order": [[0, 0]], "refuted": [{"path": [], "certificate": ["1", "1"]}]}]]
    forged["upper"] = 0
    forged["lower"] = 0
    ok, why = verify(forged)
    assert not ok and "one-point box" in why
    exercise_cert = {**header("exercise"), "claim": CLAIMS["exercise"][0], "network": net.to_dict(),
                     "proof": forged["upper_directions"][-1][2]}
    assert not verify(exercise_cert)[0]      # the same vacuous proof as a standalone certificate


# ------------------------------------------------------------------------------------------------
# generic mutations
# ------------------------------------------------------------------------------------------------
def test_mutated_entries_are_rejected():
    fd, cert = _certify(DEEP_NONNEG)
    assert verify(cert)[0]
    for e in ([["active", 0, 0]], [["active", 0, 1]], [["active", 1, 1]]):     # not always active
        bad = copy.deepcopy(cert)
        bad["upper_directions"] = [x for x in bad["upper_directions"] if x[0] != "active"] + e
        ok, why = verify(bad)
        assert not ok and "not always active" in why
    bad = copy.deepcopy(cert)
    bad["upper_directions"].append(["dead", 1, 1])
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["upper"] -= 1
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["upper_directions"] = [x for x in bad["upper_directions"] if x[0] != "active"]   # one fewer
    ok, why = verify(bad)
    assert not ok and "not the claimed upper" in why
    for e in (["active", 2, 0], ["active", 1, 2], ["active", 0], ["masked", 0, 0, {}],
              ["dead_proof", 1, 0, []], ["incoming", 1, 0, None], ["active", True, 0]):
        bad = copy.deepcopy(cert)
        bad["upper_directions"].append(e)
        with pytest.raises(InputError):
            verify(bad)
    bad = copy.deepcopy(cert)
    bad["upper_directions"].append(["masked", 1, 0, []])          # last hidden layer
    ok, why = verify(bad)
    assert not ok and "cannot be masked" in why
    bad = copy.deepcopy(cert)
    bad["upper_directions"].append(["active_proof", 0, 0, {"targets": [[0, 0, -1]], "domain": None,
                                                           "order": [[0, 0]], "refuted": []}])
    ok, why = verify(bad)
    assert not ok and "never inactive does not check" in why


# ``python -m semialgebraic.cli`` would load cli twice (__main__ and the package): its CLIError
# would not be caught as one; call main() of the package module instead
CLI = [sys.executable, "-c", "import sys; from semialgebraic.cli import main; sys.exit(main())"]


def test_cli_dim_then_verify_says_upper_certified(tmp_path):
    p = tmp_path / "net.json"
    p.write_text(json.dumps(DEEP_NONNEG.to_dict()))
    c = tmp_path / "cert.json"
    run = subprocess.run(CLI + ["dim", str(p), "--certificate", str(c)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(c.read_text())["upper_directions"]
    run = subprocess.run(CLI + ["verify", str(c)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "VALID" in run.stdout and "upper bound certified" in run.stdout and "exact: 14" in run.stdout
    bad = json.loads(c.read_text())
    bad["upper_directions"].append(["active", 7, 0])
    c.write_text(json.dumps(bad))
    run = subprocess.run(CLI + ["verify", str(c)],
                         capture_output=True, text=True)
    assert run.returncode == 2


# ------------------------------------------------------------------------------------------------
# random small nets with planted degeneracies
# ------------------------------------------------------------------------------------------------
@st.composite
def planted_nets(draw):
    d = draw(st.integers(1, 3))
    depth = draw(st.integers(2, 4))
    widths = [d] + [draw(st.integers(1, 5)) for _ in range(depth - 1)] + [draw(st.integers(1, 2))]
    num = st.integers(-4, 4)
    Ws, bs = [], []
    for l in range(depth):
        W = [[Q(draw(num), draw(st.integers(1, 3))) for _ in range(widths[l])] for _ in range(widths[l + 1])]
        b = [Q(draw(num), draw(st.integers(1, 3))) for _ in range(widths[l + 1])]
        if l < depth - 1:
            for i in range(widths[l + 1]):
                kind = draw(st.sampled_from(["plain"] * 4 + ["const", "dead", "nonneg", "zero"]))
                if kind == "const":                    # zero row, positive bias: always active
                    W[i], b[i] = [Q(0)] * widths[l], Q(draw(st.integers(1, 3)))
                elif kind == "dead" and l > 0:         # nonpositive weights on ReLU outputs, b < 0
                    W[i], b[i] = [-abs(v) for v in W[i]], -Q(draw(st.integers(1, 3)))
                elif kind == "nonneg" and l > 0:       # nonnegative weights, b > 0: always active
                    W[i], b[i] = [abs(v) for v in W[i]], Q(draw(st.integers(1, 3)))
                elif kind == "zero":
                    W[i], b[i] = [Q(0)] * widths[l], Q(0)
        if l > 0 and draw(st.booleans()):              # a zero outgoing column: a silent neuron
            k = draw(st.integers(0, widths[l] - 1))
            for row in W:
                row[k] = Q(0)
        Ws.append(W)
        bs.append(b)
    domain = draw(st.sampled_from([None, None, "orthant", (-1, 1)]))
    return Network(Ws, bs), domain, draw(st.sampled_from([400, 0]))


# the fast suite's bounded sample: a fixed set of draws (derandomized), since one random draw can
# take the whole 20 s budget of the certificate's proof search; the sweep below is marked slow
@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(planted_nets())
def test_random_planted_nets(case):
    net, domain, max_regions = case
    fd, cert = _certify(net, domain=domain, max_regions=max_regions, timeout=20)
    ok, why = verify(cert)
    if fd.non_generic or not fd.inputs:     # no differentiable input found: nothing certified
        assert not ok and not cert["inputs"], why
        return
    assert ok, why
    assert cert["lower"] == fd.lower and cert["upper"] == fd.upper
    if "upper_regions" in cert:             # the exact rank over a certified cover of regions
        assert fd.complete_regions and fd.exact
        assert exact_rank(net, _random_inputs(net, domain, 20, 0)) <= fd.upper
        if len(cert["upper_regions"]) > 1:
            bad = copy.deepcopy(cert)
            bad["upper_regions"].pop()
            assert not verify(bad)[0]
    if "upper_directions" not in cert:
        assert "upper_regions" in cert or cert["uncertified_upper_reason"]
        return
    vecs = _assert_kernel(net, cert, domain, count=20, seed=fd.lower)
    from algebra.linalg import QMatrix
    N = net.n_parameters
    assert N - (QMatrix.from_rows(vecs, ncols=N).rank() if vecs else 0) == fd.upper
    assert fd.lower <= fd.upper
    # mutations: a wrong neuron / layer for each fact entry, an extra bogus direction
    lo_hi = _domain(cert["domain"])
    rng = random.Random(fd.upper)
    for t, e in enumerate(cert["upper_directions"]):
        if e[0] not in ("active", "silent", "dead"):
            continue
        for mutated in ([e[0], e[1], rng.randrange(net.widths[e[1] + 1])],
                        [e[0], rng.randrange(net.depth - 1), e[2]]):
            bad = copy.deepcopy(cert)
            bad["upper_directions"][t] = mutated
            _rejected_or_sound(net, bad, lo_hi, domain)
    for kind in ("active", "silent", "dead"):
        l = rng.randrange(net.depth - 1)
        bad = copy.deepcopy(cert)
        bad["upper_directions"].append([kind, l, rng.randrange(net.widths[l + 1])])
        _rejected_or_sound(net, bad, lo_hi, domain)


def _rejected_or_sound(net, cert, lo_hi, domain):
    """A mutated certificate is rejected, or (when the mutation names another true fact) every
    vector it names is a kernel direction and its N - rank is the claimed upper."""
    try:
        ok, _ = verify(cert)
    except InputError:
        return
    if ok:
        _assert_kernel(net, cert, domain, count=8, seed=1)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted_nets())
def test_random_planted_nets_many(case):
    """The same property on 300 nets (about 2 minutes; CI skips slow tests)."""
    test_random_planted_nets.hypothesis.inner_test(case)


def test_one_point_box_is_exact_and_certified():
    """On a one-point box the functional dimension is the exact rank of the m Jacobian rows at
    the single input (when differentiable there); the certificate re-checks it."""
    import copy
    from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
    from semialgebraic.verify import verify
    net = Network.from_rows([[[1, 2], [-1, 1], [2, -1]], [[1, -1, 1], [2, 0, 1]]], [[0, 1, 0], [0, 1]])
    fd = functional_dimension(net, domain=(1, 1))
    assert (fd.lower, fd.upper, fd.exact) == (2, 2, True)
    cert = functional_dimension_certificate(net, fd, domain=(1, 1))
    ok, why = verify(cert)
    assert ok and "exact: 2" in why
    bad = copy.deepcopy(cert)
    bad["upper"] = 1
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["domain"] = {"box": [-1, 1]}
    assert not verify(bad)[0]
    one_out = Network.from_rows([[[1, 2], [-1, 1]], [[1, 1]]], [[0, 1], [0]])   # m = 1: rank 1
    fd = functional_dimension(one_out, domain=("1/2", "1/2"))
    assert (fd.lower, fd.upper) == (1, 1)
    # x0 = (0, 0) is a kink of neuron 0 (pre-activation 0): not differentiable, the sandwich stays
    fd = functional_dimension(net, domain=(0, 0))
    assert fd.lower <= fd.upper and not fd.exact


def test_checker_rank_numpy_and_python_agree():
    """The checker's two row builders (numpy int64 and Python integers) give the same rank mod
    small and large primes on random nets and inputs."""
    import importlib
    np = pytest.importorskip("numpy")
    from algebra.rationals import Q
    F = importlib.import_module("semialgebraic.verify.functional_dimension")
    rng = random.Random(11)
    checked = 0
    for _ in range(40):
        d = rng.randint(1, 3)
        widths = [d] + [rng.randint(1, 5) for _ in range(rng.randint(1, 3))] + [rng.randint(1, 3)]
        W = [[[Q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(widths[l])] for _ in range(widths[l + 1])]
             for l in range(len(widths) - 1)]
        b = [[Q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
        net = Network.from_rows(W, b)
        X = [[Q(rng.randint(-50, 50), rng.randint(1, 7)) for _ in range(d)] for _ in range(rng.randint(1, 12))]
        masks = F._masks(net, X)
        if isinstance(masks, str):
            continue
        for p in (7, 13, 1048573):
            if any(int(v.q) % p == 0 for v in list(net.parameters()) + [v for x in X for v in x]):
                continue
            assert F._rank_mod_p_numpy(np, net, X, masks, p) == F._rank_mod_p_python(net, X, masks, p)
            checked += 1
    assert checked > 50


def test_upper_directions_rank_mod_p_and_its_exact_fallback():
    """The checker accepts N − rank_p of the directions (rank mod the certificate's prime, at
    most the rank over Q, so a valid bound) and falls back to the exact rank over Q otherwise.
    Neuron 1's scaling vector (3, 3, -3) vanishes mod 3: N = 7, rank over Q 2 (upper 5), mod 3
    1 (upper 6).  Both are accepted (the truth, by the complete walk, is 3: the two neurons are
    parallel), and so is the weaker 7; 4 (below N − rank of these directions) is not."""
    from semialgebraic.certificates import dimension_bounds_certificate
    net = Network.from_rows([[[1], [3]], [[1, -3]]], [[1, 3], [0]])
    assert functional_dimension(net).value == 3           # the oracle: the complete walk

    def cert(upper):
        return dimension_bounds_certificate(net, prime=3, inputs=[["1"]], lower=0, domain=None,
                                            upper=upper, upper_directions=[["scale", 0, 0], ["scale", 0, 1]])
    # 7 = N: a true (weak) claim, accepted since 2026-12-04 (upper >= N - rank is what is proven)
    assert [verify(cert(u))[0] for u in (4, 5, 6, 7)] == [False, True, True, True]
    from semialgebraic.dimension.upper import directions_bound
    assert directions_bound(net, [["scale", 0, 0], ["scale", 0, 1]]) == 5    # its own prime: exact


def test_sparse_rank_mod_p_agrees_with_dense_elimination():
    """The sparse echelon rank used for the directions (decider and checker) equals the dense
    rank mod p (algebra.linalg.gfp.nmod_rank, FLINT) on random sparse matrices, dependent rows
    included; with no work allowed it declines (None) instead of guessing."""
    from algebra.linalg.gfp import nmod_rank, sparse_rank_mod_p
    rng = random.Random(5)
    p = 10007
    for _ in range(60):
        n, m = rng.randint(1, 12), rng.randint(1, 15)
        rows = [{c: rng.randint(1, p - 1) for c in rng.sample(range(m), rng.randint(0, min(m, 4)))}
                for _ in range(n)]
        if n > 2 and rng.random() < 0.5:          # a combination of two rows
            a, b = rows[0], rows[1]
            rows.append({c: (3 * a.get(c, 0) + 5 * b.get(c, 0)) % p for c in set(a) | set(b)})
        flat = [r.get(c, 0) for r in rows for c in range(m)]
        assert sparse_rank_mod_p(rows, p) == nmod_rank(len(rows), m, flat, p)
    assert sparse_rank_mod_p([{0: 1, 1: 1}, {0: 1, 1: 2}], p, max_ops=0) is None


def test_a_claim_weaker_than_the_directions_prove_is_accepted_a_stronger_one_not():
    """``upper >= N - rank`` of the listed directions is a true claim (the run's own rank of its
    directions may have been cut by its budget: ACAS Xu under load reported 12 377 where its
    proofs give 12 356, and the certificate was refused); a claim below N - rank is rejected."""
    fd, cert = _certify(DEEP_NONNEG)
    ok, why = verify(cert)
    assert ok
    weaker = copy.deepcopy(cert)
    weaker["upper"] += 2
    ok, why = verify(weaker)
    assert ok and f"= {cert['upper']} <= the claimed {cert['upper'] + 2}" in why
    stronger = copy.deepcopy(cert)
    stronger["upper"] -= 1
    ok, why = verify(stronger)
    assert not ok and "not the claimed upper" in why


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10 ** 6), st.sampled_from([5, 7, 1048573]), st.sampled_from([0, 3, 10 ** 6]))
def test_the_checkers_peeled_rank_of_the_directions_is_a_lower_bound_of_the_rank_over_q(seed, p, ops):
    """The checker's rank of the listed directions (peeled exactly over Q, then the sparse
    echelon form mod p within SPARSE_OPS updates, then the dense routes) never exceeds their
    rank over Q, so N − it is a valid upper bound; with a large prime and small integer
    entries it is the rank over Q.  Units whose value p divides, parallel vectors, vectors alone
    on a column and entries without a residue mod p (a denominator p) are all drawn."""
    import importlib
    vfd = importlib.import_module("semialgebraic.verify.functional_dimension")
    from tests.semialgebraic.test_dimension_sparse import random_sparse_vectors
    rng = random.Random(seed)
    n = rng.randint(1, 9)
    vecs = random_sparse_vectors(rng, n, rng.randint(1, 14), units=(1, -2, p, 3), p=p)
    vecs = [{c: v for c, v in vec.items() if v != 0} for vec in vecs]
    exact = QMatrix.from_rows([[vec.get(c, Q(0)) for c in range(n)] for vec in vecs], ncols=n).rank()
    old = vfd.SPARSE_OPS
    vfd.SPARSE_OPS = ops                     # (0: the dense route at the first update)
    try:
        got = vfd._vectors_rank_mod_p(vecs, n, p)
    finally:
        vfd.SPARSE_OPS = old
    assert got <= exact
    if p == 1048573 and all(v.denominator == 1 and abs(v) < 4 for vec in vecs for v in vec.values()):
        assert got == exact
