"""``functional_dimension`` certificates against an independent ground truth.

Ground truth (small code here, no netfibers decision code but the region walk): on every linear
region of the domain (``semialgebraic.regions``) that holds differentiable inputs of θ ↦ f_θ(x)
(decided here by brute force: the Jacobian rows with every 0/1 mask of the neurons with a zero
pre-activation agree; independent of :mod:`algebra.kernel.differentiability`), the exact Jacobian rows at d + 1 affinely independent
points of the region; the functional dimension is their exact rank, and every upper-bound
direction the checker accepts must lie in the kernel of every such row.

Attacks: forged / moved / retyped ``upper_directions`` entries, proofs about other neurons or
with broken multipliers, regions that do not cover, lower bounds from inputs at kinks, outside
the domain, or with a prime dividing a denominator, ``upper_one_point`` on a box that is not a
point or at a kink.
"""

import copy
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.sets import Polyhedron
from semialgebraic.regions import regions
from semialgebraic.verify import verify
from semialgebraic.verify import functional_dimension as fdv
from semialgebraic.verify import functional_dimension_upper as fdu


# -- ground truth ------------------------------------------------------------------------------
def _rows_at(net, x, kink_masks=None):
    """Exact Jacobian rows ∂f_o/∂θ at x (masks: pre-activation > 0; the neurons with a zero
    pre-activation take the masks *kink_masks*, in layer order, when given), flat parameter order."""
    hs, masks, h = [list(x)], [], list(x)
    kinks = iter(kink_masks or ())
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        z = [sum((W[i, k] * h[k] for k in range(W.ncols)), Q(0)) + b[i] for i in range(W.nrows)]
        masks.append([(1 if v > 0 else 0) if v != 0 or kink_masks is None else next(kinks) for v in z])
        h = [v if v > 0 else Q(0) for v in z]
        hs.append(h)
    out = []
    for o in range(net.n_outputs):
        delta = [Q(1) if j == o else Q(0) for j in range(net.n_outputs)]
        blocks = []
        for l in range(net.depth - 1, -1, -1):
            blocks.append([dv * hv for dv in delta for hv in hs[l]] + list(delta))
            if l:
                W = net.weights[l]
                delta = [masks[l - 1][i] * sum((delta[j] * W[j, i] for j in range(W.nrows)), Q(0))
                         for i in range(W.ncols)]
        out.append([v for blk in blocks[::-1] for v in blk])
    return out


def _differentiable(net, x):
    """θ ↦ f_θ(x) is differentiable iff the polynomial pieces around θ (one per 0/1 mask of the
    neurons with a zero pre-activation) have the same gradient: brute force over every mask."""
    k = sum(v == 0 for layer in net.preactivations(x)[:-1] for v in layer)
    assert k <= 12
    first = _rows_at(net, x, [0] * k)
    return all(_rows_at(net, x, [(c >> t) & 1 for t in range(k)]) == first for c in range(1, 2 ** k))



def truth_rows(net, dom):
    """Exact Jacobian rows at d + 1 affinely independent points of every region holding a
    differentiable input (None: a one-point domain at a kink, no differentiable input)."""
    d = net.n_inputs
    if isinstance(dom, tuple) and dom[0] == dom[1]:
        x0 = [Q(dom[0])] * d
        return _rows_at(net, x0) if _differentiable(net, x0) else None
    poly = None if dom is None else (Polyhedron.orthant(d) if dom == "orthant" else Polyhedron.box(d, *dom))
    walk = regions(net, domain=poly, progress=False, timeout=60)
    rows = []
    for reg in walk:
        if not _differentiable(net, reg.point):     # (the rule depends on the pattern only)
            continue
        pts = [list(reg.point)]
        for c in range(d):
            eps = Q(1, 8)
            while True:
                y = list(reg.point)
                y[c] += eps
                if reg.contains(y) and (dom is None or all(v > 0 for v in y) if dom == "orthant" or dom is None
                                        else all(dom[0] < v < dom[1] for v in y)):
                    break
                eps /= 2
            pts.append(y)
        rows += [r for p in pts for r in _rows_at(net, p)]
    assert walk.complete
    return rows


def _rank(net, rows):
    return QMatrix.from_rows(rows, ncols=net.n_parameters).rank() if rows else 0


def _in_kernel(net, rows, vectors):
    if not rows:
        return True
    R = QMatrix.from_rows(rows, ncols=net.n_parameters)
    return all(all(v == 0 for v in R.apply(vec)) for vec in vectors)


def _json(obj):
    return json.loads(json.dumps(obj))


def _cert(net, dom=None, **kw):
    fd = functional_dimension(net, domain=dom, **kw)
    return fd, _json(functional_dimension_certificate(net, fd, domain=dom))


def _vectors(cert, dirs):
    net = fdv.network_from_dict(cert["network"])
    lo_hi = fdv._domain(cert.get("domain"))
    vecs = fdu._upper_vectors(net, _json(dirs), lo_hi, fdv.SharedProofs(net, lo_hi, cert.get("shared_proofs", [])))
    if isinstance(vecs, str):
        return vecs
    dense = []                          # (the checker's vectors are sparse dicts)
    for v in vecs:
        row = [Q(0)] * net.n_parameters
        for k, w in v.items():
            row[k] = w
        dense.append(row)
    return dense


# -- planted nets ------------------------------------------------------------------------------
# first layer relu(x), relu(2x): (1, 0) = relu(x) - relu(2x) - 1/2 < 0 is dead by a proof only,
# (1, 1) = relu(x) + relu(2x) + 1 always active by interval bounds
DUP = Network.from_rows([[[1], [2]], [[1, -1], [1, 1]], [[1, 1]]], [[0, 0], [Q(-1, 2), 1], [0]])


@pytest.fixture(scope="module")
def dup_cert():
    fd, cert = _cert(DUP, max_regions=1)             # no walk: the proofs are recorded
    assert verify(cert)[0] is True
    return fd, cert


def test_dup_honest_certificate_matches_truth(dup_cert):
    fd, cert = dup_cert
    rows = truth_rows(DUP, None)
    assert _rank(DUP, rows) == 3
    assert cert["lower"] <= 3 <= cert["upper"]
    kinds = {e[0] for e in cert["upper_directions"]}
    assert {"free", "dead_proof", "incoming"} <= kinds
    vecs = _vectors(cert, cert["upper_directions"])
    assert not isinstance(vecs, str) and _in_kernel(DUP, rows, vecs)


def _proof(cert, kind, l, i):
    return next(e[3] for e in cert["upper_directions"] if e[0] == kind and e[1:3] == [l, i])


def test_forged_entries_are_rejected(dup_cert):
    _, cert = dup_cert
    dead10 = _proof(cert, "dead_proof", 1, 0)
    inc10 = _proof(cert, "incoming", 1, 0)
    free = next(e for e in cert["upper_directions"] if e[0] == "free")
    other = copy.deepcopy(free[2])
    other["parameter"] = 6                           # W1[1, 0]: exercised where x > 0
    forged = [
        ["silent", 1, 1],                             # (1, 1) reaches the output
        ["dead", 1, 1], ["dead", 0, 0],               # not dead by interval bounds
        ["active", 1, 0], ["active", 0, 1],           # not always active
        ["dead_proof", 1, 1, dead10],                 # a proof about another neuron
        ["active_proof", 1, 0, dead10],               # the proof of the other sign
        ["incoming", 1, 1, inc10],                    # an enumeration of another neuron
        ["free", 6, other],                           # a proof about another parameter
        ["block", 0, [0, 1]],                         # layer-0 neurons are not always active
        ["masked", 0, 0, [dead10, inc10]],            # (0, 0) is not masked: (1, 1) is active
        ["masked", 1, 0, []],                         # last hidden layer: never masked
    ]
    for e in forged:
        assert isinstance(_vectors(cert, [e]), str), e


def _mutated_proofs(proof, rng):
    """Proofs with one refutation dropped, one multiplier zeroed or one sign flipped."""
    out = []
    for k in range(len(proof["refuted"])):
        p = copy.deepcopy(proof)
        p["refuted"].pop(k)
        out.append(p)
        p = copy.deepcopy(proof)
        cert = p["refuted"][k].get("certificate")
        if cert and any(v != "0" for v in cert):
            j = next(j for j, v in enumerate(cert) if v != "0")
            cert[j] = "0"
            out.append(p)
    p = copy.deepcopy(proof)
    p["domain"] = ["0", "1"]
    out.append(p)
    return out


def test_broken_proofs_never_give_wrong_directions(dup_cert):
    """Mutated proofs may still be valid (then their directions are true); every direction the
    checker accepts lies in the kernel of the exact rows, and most mutations are refused."""
    _, cert = dup_cert
    rows = truth_rows(DUP, None)
    refused = 0
    total = 0
    for e in cert["upper_directions"]:
        if e[0] not in ("dead_proof", "incoming", "free"):
            continue
        P = e[3] if e[0] != "free" else e[2]
        for p in _mutated_proofs(P, random.Random(0)):
            ne = copy.deepcopy(e)
            if e[0] == "free":
                ne[2] = p
            else:
                ne[3] = p
            total += 1
            vecs = _vectors(cert, [ne])
            if isinstance(vecs, str):
                refused += 1
            else:
                assert _in_kernel(DUP, rows, vecs), ne[:3]
    assert total >= 10 and refused >= total // 2


def test_lower_bound_forgeries_are_rejected(dup_cert):
    _, cert = dup_cert
    base = {k: v for k, v in cert.items() if k not in ("upper", "upper_directions", "upper_regions")}
    base["claim"] = CLAIMS["functional_dimension"][0]               # the lower bound alone
    assert verify(base)[0] is True
    c = dict(base, lower=4)                         # the true value is 3
    assert verify(c)[0] is False
    c = dict(base, inputs=base["inputs"] + [["0"]])  # x = 0: every first-layer neuron is zero
    assert verify(c)[0] is False
    c = dict(base, inputs=[["1/3"]], prime=3)        # 3 divides a denominator of an input
    assert verify(c)[0] is False
    c = dict(base, prime=1048575)                    # not a prime
    assert verify(c)[0] is False
    c = dict(base, prime=1048583)                    # a prime above 2^20: the float64 route is not
    with pytest.raises(InputError, match="2\\^20"):  # exact for every input there (audit, session 29)
        verify(c)
    c = dict(base, domain={"box": ["1", "2"]}, inputs=[["3"]], lower=1)
    assert verify(c)[0] is False                     # the input is outside the box


def test_one_point_forgeries():
    net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    fd, cert = _cert(net, (Q(1, 2), Q(1, 2)))
    assert cert.get("upper_one_point") is True and verify(cert)[0] is True
    assert cert["upper"] == _rank(net, truth_rows(net, (Q(1, 2), Q(1, 2)))) == 1
    # the same claim on a box that is not a point
    c = dict(cert, domain={"box": ["1/2", "1"]})
    assert verify(c)[0] is False
    # at a kink (x0 = 1: neuron 1 has pre-activation 0): no differentiable input
    c = dict(cert, domain={"box": ["1", "1"]}, inputs=[], lower=0, upper=0)
    assert verify(c)[0] is False
    # a smaller upper
    c = dict(cert, upper=0, lower=0)
    assert verify(c)[0] is False


def test_upper_regions_forgeries():
    net = Network.from_rows([[[-1], [-2]], [[3, 1], [1, Q(-1, 3)], [3, 3]], [[1, 0, 3]]],
                            [[Q(-1, 3), 1], [Q(-1, 3), Q(1, 2), 0], [Q(1, 2)]])
    fd, cert = _cert(net, (0, 1))
    if "upper_regions" not in cert:                  # certified by directions: build the cover
        pytest.skip("no region cover written for this net")
    assert verify(cert)[0] is True
    regs = cert["upper_regions"]
    assert cert["upper"] == _rank(net, truth_rows(net, (0, 1))) == 4
    forged = []
    for k in range(len(regs)):
        forged.append(regs[:k] + regs[k + 1:])                     # a region missing
        r = copy.deepcopy(regs)
        r[k]["pattern"] = [-s if s else s for s in r[k]["pattern"]]  # a wrong pattern
        forged.append(r)
        r = copy.deepcopy(regs)
        r[k]["point"] = [str(Q(v) + 5) for v in r[k]["point"]]       # a point outside the region
        forged.append(r)
    for r in forged:
        for upper in (cert["upper"], cert["upper"] - 1):
            try:
                assert verify(dict(cert, upper_regions=r, upper=upper, lower=0))[0] is False
            except InputError:
                pass
    assert verify(dict(cert, upper=cert["upper"] - 1, lower=0))[0] is False


# -- random planted nets -----------------------------------------------------------------------
def _planted_net(rng):
    d = rng.choice([1, 2])
    depth = rng.choice([2, 3, 3])
    widths = [d] + [rng.randint(1, 3) for _ in range(depth - 1)] + [rng.choice([1, 1, 2])]
    vals = [-2, -1, 0, 1, 1, 2, Q(1, 2), Q(-1, 3)]
    Ws = [[[Q(rng.choice(vals)) for _ in range(widths[l])] for _ in range(widths[l + 1])]
          for l in range(depth)]
    bs = [[Q(rng.choice(vals)) for _ in range(widths[l + 1])] for l in range(depth)]
    for _ in range(rng.randint(0, 3)):
        l = rng.randrange(depth - 1)
        i = rng.randrange(widths[l + 1])
        kind = rng.choice(["dead", "active", "zerorow", "zerocol", "dup"])
        if kind == "dead":
            Ws[l][i] = [-abs(v) for v in Ws[l][i]]
            bs[l][i] = -abs(bs[l][i]) - 1
        elif kind == "active":
            Ws[l][i] = [abs(v) for v in Ws[l][i]]
            bs[l][i] = abs(bs[l][i]) + 1
        elif kind == "zerorow":
            Ws[l][i] = [Q(0)] * widths[l]
            bs[l][i] = Q(rng.choice([0, 0, 1, -1]))
        elif kind == "zerocol":
            for row in Ws[l + 1]:
                row[i] = Q(0)
        elif widths[l + 1] > 1:
            j = (i + 1) % widths[l + 1]
            f = Q(rng.choice([1, 2, -1]))
            Ws[l][j] = [f * v for v in Ws[l][i]]
            bs[l][j] = f * bs[l][i]
    return Network.from_rows(Ws, bs)


def _domain(rng):
    c = rng.choice(["none", "box", "orthant", "point"])
    if c == "none":
        return None
    if c == "orthant":
        return "orthant"
    lo = Q(rng.choice([-1, 0, Q(1, 2), 1]))
    return (lo, lo) if c == "point" else (lo, lo + rng.choice([Q(1, 4), 1, 3]))


def _check_planted(seed, max_regions=400):
    rng = random.Random(seed)
    net, dom = _planted_net(rng), None
    dom = _domain(rng)
    rows = truth_rows(net, dom)
    fd, cert = _cert(net, dom, timeout=20, max_regions=max_regions)
    if not rows:                                     # no differentiable input at all
        assert fd.value is None and verify(cert)[0] is False
        if fd.complete_regions:
            assert fd.non_generic
        return
    assert verify(cert)[0] is True
    t = _rank(net, rows)
    assert fd.lower <= t <= fd.upper
    assert cert["lower"] <= t
    if any(k in cert for k in ("upper_directions", "upper_regions", "upper_one_point")):
        assert cert["upper"] >= t
    if "upper_directions" in cert:
        vecs = _vectors(cert, cert["upper_directions"])
        assert _in_kernel(net, rows, vecs)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_planted_nets_against_truth(seed):
    _check_planted(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(150))
def test_planted_nets_against_truth_slow(seed):
    _check_planted(seed, max_regions=400 if seed % 2 else 1)


# -- malformed proofs: InputError or a rejection, never a crash ----------------------------------
_BAD_VALUES = [0.5, None, [1], "x", "1/0", {}]


def _corrupt(proof, how, bad):
    if how == "multiplier":
        proof["refuted"][0]["certificate"][0] = bad
    elif how == "multipliers":
        proof["refuted"][0]["certificate"] = bad
    elif how == "entry":
        proof["refuted"][0] = bad
    elif how == "path":
        proof["refuted"][0]["path"] = bad
    elif how == "domain":
        proof["domain"] = [bad, "1"]


@pytest.mark.parametrize("how", ["multiplier", "multipliers", "entry", "path", "domain"])
def test_malformed_proofs_are_input_errors_or_rejections(dup_cert, how):
    """Bug found: a multiplier like 0.5 / null / [1] / "1/0", or a proof domain "1/0", made the
    exercise and functional_dimension checkers raise TypeError / ZeroDivisionError (CLI exit 4)
    instead of InputError (exit 2) or a rejection."""
    _, cert = dup_cert
    free = next(e for e in cert["upper_directions"] if e[0] == "free")
    for bad in _BAD_VALUES:
        ex = {**header("exercise"), "claim": CLAIMS["exercise"][0], "network": cert["network"],
              "proof": copy.deepcopy(free[2])}
        _corrupt(ex["proof"], how, bad)
        c = copy.deepcopy(cert)
        for e in c["upper_directions"]:
            if e[0] in ("free", "dead_proof"):
                _corrupt(e[2] if e[0] == "free" else e[3], how, bad)
        for obj in (ex, c):
            try:
                assert verify(obj)[0] is False
            except InputError:
                pass


def test_masked_entry_and_its_forgeries():
    """relu(2 relu(x) - 1): where x < 0 the successor is inactive, so the bias trade
    b0 += t, b1 -= 2t is a symmetry (S6, masked)."""
    net = Network.from_rows([[[1]], [[2]], [[1]]], [[0], [-1], [0]])
    fd, cert = _cert(net)
    assert verify(cert)[0] is True
    rows = truth_rows(net, None)
    assert fd.value == _rank(net, rows) == 3
    masked = [e for e in cert["upper_directions"] if e[0] == "masked"]
    assert masked and masked[0][1:3] == [0, 0]
    P = masked[0][3][0]
    assert _in_kernel(net, rows, _vectors(cert, masked))
    flipped = copy.deepcopy(P)
    flipped["targets"] = [[t, j, -s] for t, j, s in P["targets"]]
    for e in (["masked", 0, 0, []], ["masked", 0, 0, [flipped]], ["masked", 1, 0, [P]],
              ["dead_proof", 1, 0, P], ["active_proof", 0, 0, P]):
        assert isinstance(_vectors(cert, [e]), str), e[:3]
    # the same entries about a net where the successor is active where x < 0 (not masked)
    other = Network.from_rows([[[1]], [[2]], [[1]]], [[0], [1], [0]])
    c = dict(cert, network=other.to_dict(), lower=0)
    c = _json(c)
    assert isinstance(_vectors(c, masked), str)
    assert verify(c)[0] is False
