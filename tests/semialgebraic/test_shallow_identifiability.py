"""``identify`` on one hidden layer (three-layer-fibers R41): verdicts against the exact shallow
fiber and exact evaluation, planted symmetries, and the certificate's checker with mutations."""

import copy
import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from algebra.io.native import network_from_dict
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.certificates import jsonable
from semialgebraic.shallow import fiber_shallow
from semialgebraic.shallow.identifiability import identifiability_shallow
from semialgebraic.verify import verify


def _F(x):
    return Fraction(str(x))


def _net(W1, b1, W2, b2):
    return Network.from_rows([W1, W2], [b1, b2])


def _eval(rows, x):
    """f(x) with Fractions (the test's own evaluation)."""
    W1, b1, W2, b2 = rows
    h = [max(sum(_F(w) * xi for w, xi in zip(r, x)) + _F(b), 0) for r, b in zip(W1, b1)]
    return [sum(_F(v) * hi for v, hi in zip(r, h)) + _F(c) for r, c in zip(W2, b2)]


def _rows(net):
    (W1, b1), (W2, b2) = net.layer(0), net.layer(1)
    return (W1.to_rows(), list(b1), W2.to_rows(), list(b2))


def _orbit(rows):
    """The test's own S1 + S2 normal form: neurons scaled by |first non-zero of (w, b)|, sorted."""
    W1, b1, W2, b2 = rows
    out = []
    for i, (w, b) in enumerate(zip(W1, b1)):
        v = [_F(r[i]) for r in W2]
        row = [_F(x) for x in w] + [_F(b)]
        lead = next((abs(x) for x in row if x != 0), None)
        if lead is None:
            lead_v = next((abs(x) for x in v if x != 0), Fraction(1))
            out.append((tuple(row), tuple(x / lead_v for x in v)))
        else:
            out.append((tuple(x / lead for x in row), tuple(x * lead for x in v)))
    return sorted(out), [_F(c) for c in b2]


def _same_function(a, b, d, rng, k=60):
    ra, rb = _rows(a), _rows(b)
    for _ in range(k):
        x = [Fraction(rng.randint(-40, 40), rng.randint(1, 7)) for _ in range(d)]
        if _eval(ra, x) != _eval(rb, x):
            return False
    return True


def _checked(net, v, rng):
    """Every verdict's evidence, re-checked: True → the fiber is one orbit of dimension n (the
    exact shallow fiber, another code path) and the certificate verifies; False → the planted
    copy computes the same function, is outside the orbit, and its path verifies."""
    d, n, _ = net.widths
    if v.answer is True:
        if v.certificate["flip_sets"]["kind"] != "opposite_pair":   # (the fiber leaves R42's case open)
            F = fiber_shallow(net)
            assert F.number_of_orbits == 1 and F.dimension.exact and F.dimension.value == n
        assert verify(jsonable(v.certificate))[0]
        assert v.certificate["fiber_dimension"] == n
    elif v.answer is False:
        other = network_from_dict(v.details["planted_copy"])
        assert _same_function(net, other, d, rng)
        assert _orbit(_rows(net)) != _orbit(_rows(other))
        assert verify(jsonable(v.certificate))[0]


def test_examples_each_way():
    rng = random.Random(0)
    cases = {
        "generic": (_net([[1, 0], [0, 1], [1, 1]], [0, 1, -1], [[1, -1, 2]], [0]), True),
        "unread": (_net([[1, 0], [0, 1]], [0, 1], [[1, 0]], [0]), False),
        "constant": (_net([[1, 0], [0, 0]], [0, 2], [[1, 3]], [0]), False),
        "dead everywhere": (_net([[1, 0], [0, 0]], [0, -2], [[1, 3]], [0]), False),
        "split": (_net([[1, 0], [2, 0]], [1, 2], [[1, 1]], [0]), False),
        "linear pair": (_net([[1, 0], [-2, 0]], [1, -2], [[1, "-1/2"]], [0]), False),
        "flip set": (_net([[1, 0], [1, 0], [0, 1]], [0, 1, 0], [[1, -1, 2]], [0]), False),
        # |x| = σ(x) + σ(−x): a shared hyperplane with opposite orientations and a kink;
        # three-layer-fibers R42: two neurons, nowhere else for the linear part: identifiable
        "abs": (_net([[1], [-1]], [0, 0], [[1, 1]], [0]), True),
    }
    for name, (net, want) in cases.items():
        v = identifiability_shallow(net)
        assert v.answer is want, (name, v.reason)
        _checked(net, v, rng)


def test_the_three_proofs_of_no_flip_set():
    # 1-3-1: kink scalars 1, 2, 4 (dependent, all positive: a positive functional)
    v = identifiability_shallow(_net([[1], [1], [1]], [0, 1, 2], [[1, 2, 4]], [0]))
    assert v.answer is True and v.certificate["flip_sets"]["kind"] == "positive_functional"
    # 1, 2, −4: mixed signs, no zero subset sum: enumerated
    v2 = identifiability_shallow(_net([[1], [1], [1]], [0, 1, 2], [[1, 2, -4]], [0]))
    assert v2.answer is True and v2.certificate["flip_sets"] == {"kind": "enumerated", "nullity": 2}
    # 1, 2, −3: the flip set {0, 1, 2}
    v3 = identifiability_shallow(_net([[1], [1], [1]], [0, 1, 2], [[1, 2, -3]], [0]))
    assert v3.answer is False and v3.reason.startswith("flip set [0, 1, 2]")
    rng = random.Random(1)
    assert verify(jsonable(v.certificate))[0] and verify(jsonable(v2.certificate))[0]
    _checked(_net([[1], [1], [1]], [0, 1, 2], [[1, 2, -3]], [0]), v3, rng)


def test_mutated_certificates_are_rejected():
    v = identifiability_shallow(_net([[1], [1], [1]], [0, 1, 2], [[1, 2, 4]], [0]))
    cert = jsonable(v.certificate)
    assert verify(cert)[0]

    def bad(change):
        c = copy.deepcopy(cert)
        change(c)
        try:
            return not verify(c)[0]
        except Exception:            # malformed: rejected as an input error
            return True

    assert bad(lambda c: c.update(fiber_dimension=4))
    assert bad(lambda c: c.update(flip_sets={"kind": "independent"}))            # rank 1 < 3
    assert bad(lambda c: c["flip_sets"].update(y=[str(-Q(c["flip_sets"]["y"][0]))]))
    assert bad(lambda c: c.update(claim=c["claim"].replace("R41, one hidden layer", "R18")))
    assert bad(lambda c: c.pop("flip_sets"))
    # the claim on a net with a flip set: every proof is refused
    flip = jsonable(identifiability_shallow(
        _net([[1], [1], [1]], [0, 1, 2], [[1, 2, 4]], [0])).certificate)
    flip["network"]["layers"][1]["weight"] = [[1, 2, -3]]
    for proof in ({"kind": "enumerated", "nullity": 2}, {"kind": "independent"},
                  {"kind": "positive_functional", "y": ["1"]}):
        flip["flip_sets"] = proof
        assert not verify(flip)[0]
    # I1–I3 re-derived: a zero column, a zero row, proportional rows
    for W1, b1, W2 in (([[1], [2]], [0, 1], [[1, 0]]), ([[1], [0]], [0, 1], [[1, 1]]),
                       ([[1], [2]], [1, 2], [[1, 1]])):
        c = copy.deepcopy(cert)
        c["network"]["layers"][0] = {"weight": W1, "bias": b1}
        c["network"]["layers"][1] = {"weight": W2, "bias": [0]}
        c["fiber_dimension"], c["flip_sets"] = 2, {"kind": "enumerated", "nullity": 0}
        assert not verify(c)[0]


@st.composite
def shallow_nets(draw):
    d, n, m = draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(1, 2))
    small = st.integers(-2, 2)
    W1 = [[draw(small) for _ in range(d)] for _ in range(n)]
    b1 = [draw(small) for _ in range(n)]
    W2 = [[draw(small) for _ in range(n)] for _ in range(m)]
    if n >= 2 and draw(st.booleans()):            # plant a shared hyperplane or a flip set
        i, j = draw(st.sampled_from([(0, 1), (1, 0)]))
        lam = draw(st.sampled_from([2, -1, -2, 1]))
        if draw(st.booleans()):
            W1[j], b1[j] = [lam * x for x in W1[i]], lam * b1[i]
        else:                                      # same w, another bias, v_j = −v_i: a flip set
            W1[j], b1[j] = list(W1[i]), b1[i] + 1
            for r in W2:
                r[j] = -r[i]
    return _net(W1, b1, W2, [draw(small) for _ in range(m)])


@settings(max_examples=60, deadline=None)
@given(shallow_nets(), st.integers(0, 10 ** 6))
def test_random_nets_against_the_exact_fiber_and_evaluation(net, seed):
    v = identifiability_shallow(net)
    _checked(net, v, random.Random(seed))
    F = fiber_shallow(net)
    if v.answer is False:                          # the fiber is not one orbit of dimension n
        assert F.number_of_orbits != 1 or not F.dimension.exact or F.dimension.value != net.widths[1] \
            or F.number_of_orbits is None


@settings(max_examples=25, deadline=None)
@given(shallow_nets(), st.integers(0, 10 ** 6))
def test_planted_permutation_and_scaling_keep_the_verdict(net, seed):
    rng = random.Random(seed)
    W1, b1, W2, b2 = _rows(net)
    n = len(W1)
    perm = list(range(n))
    rng.shuffle(perm)
    lam = [Q(rng.randint(1, 9), rng.randint(1, 9)) for _ in range(n)]
    other = _net([[lam[i] * x for x in W1[i]] for i in perm], [lam[i] * b1[i] for i in perm],
                 [[r[i] / lam[i] for i in perm] for r in W2], b2)
    assert identifiability_shallow(other).answer is identifiability_shallow(net).answer


def test_cli_identify_one_hidden_layer(tmp_path, capsys):
    from semialgebraic.cli import main
    path = tmp_path / "net.json"
    path.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                                "layers": [{"weight": [[1], [1], [1]], "bias": [0, 1, 2]},
                                           {"weight": [[1, 2, -3]], "bias": [0]}]}))
    cert = tmp_path / "cert.json"
    assert main(["identify", str(path), "--certificate", str(cert)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("not identifiable up to permutation and positive scaling: flip set [0, 1, 2]")
    assert main(["verify", str(cert)]) == 0
    capsys.readouterr()
    path.write_text(path.read_text().replace("-3", "-4"))
    assert main(["identify", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] is True and data["method"] == "shallow-R41"
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                                "layers": [{"weight": [[1]], "bias": [0]}, {"weight": [[-1]], "bias": [1]},
                                           {"weight": [[-1]], "bias": [1]}, {"weight": [[1]], "bias": [0]}]}))
    # (session 36: planted copies, else undecided; all weights 1 would be always active from
    # layer 2 on, a bias trade, session 37)
    assert main(["identify", str(deep)]) == 3
    out = capsys.readouterr().out
    assert out.startswith("undecided: no identifiability theory covers widths 1-1-1-1-1")


def test_one_input_nets_beyond_the_nullity_limit_by_the_sums_of_two_halves():
    """1-n-1 regression nets: n − 1 dependencies among the scalar kinks v_i w_i, past FIND-S's
    2^16; every subset's sum is compared as two halves (R41, I4).  A zero-sum subset planted
    among 20 neurons (1/3 + 1/5 − 8/15) is found; without it the net is identifiable, and a
    certificate claiming that for the planted net is rejected by the checker's own search."""
    rng = random.Random(4)
    n = 20
    W1 = [[Q(rng.randint(1, 50), rng.randint(1, 7)) * rng.choice([-1, 1])] for _ in range(n)]
    b1 = [Q(k, 1) + Q(1, 3) for k in range(n)]                  # distinct hyperplanes
    kinks = [Q(2) ** k * 3 ** (k % 2) for k in range(n)]          # no zero subset sum: distinct...
    kinks = [k * rng.choice([-1, 1]) for k in kinks]              # ... powers, mixed signs
    V = [[kinks[i] / W1[i][0] for i in range(n)]]
    net = _net(W1, b1, V, [0])
    v = identifiability_shallow(net)
    assert v.answer is True and v.certificate["flip_sets"] == {"kind": "split_sums"}
    assert verify(jsonable(v.certificate))[0]
    planted = list(kinks)
    planted[3], planted[11], planted[16] = Q(1, 3), Q(1, 5), Q(-8, 15)
    V2 = [[planted[i] / W1[i][0] for i in range(n)]]
    net2 = _net(W1, b1, V2, [0])
    v2 = identifiability_shallow(net2)
    assert v2.answer is False and v2.reason.startswith("flip set [3, 11, 16]")
    _checked(net2, v2, rng)
    forged = jsonable(v.certificate)
    forged["network"] = jsonable(net2.to_dict())
    ok, why = verify(forged)
    assert not ok and "flip set [3, 11, 16]" in why


def test_cli_symmetries_one_hidden_layer(tmp_path, capsys):
    """``symmetries`` on one hidden layer (it was an input error): the flip set, the facts of the
    rows, R41's verdict and the fiber's size; the same facts in --json."""
    from semialgebraic.cli import main
    assert main(["symmetries", "algebra/examples/shallow_flip_set.json"]) == 0
    out = capsys.readouterr().out
    assert "symmetries: S1 (permutations), S2 (positive scalings); flip set [0, 1]" in out
    assert "three-layer-fibers R41): no (flip set [0, 1]" in out
    assert "fiber: dimension 3; components 12; orbits 2" in out
    path = tmp_path / "n.json"
    path.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                                "layers": [{"weight": [[1], [2], [0], [-1], [1]], "bias": [0, 0, 1, 0, 3]},
                                           {"weight": [[1, 1, 2, 1, 0]], "bias": [0]}]}))
    assert main(["symmetries", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["neuron_types"] == ["kink", "kink", "constant", "kink", "zero"]
    assert data["flip_sets"] == [] and data["identifiable"]["answer"] is False
    assert any("neuron 4 is not read" in f for f in data["facts"])
    assert any("neurons 0 and 1 lie on one hyperplane with the same orientation" in f for f in data["facts"])
    assert any("neurons 0 and 3 lie on one hyperplane with opposite orientations" in f for f in data["facts"])


def test_fiber_of_a_large_one_hidden_layer_net_leaves_its_systems_out(monkeypatch, capsys):
    """A component's polynomials live in a ring of all N parameters with dense exponents: a
    784-64-10 net took 62 s and 22 GB, a 784-1024-10 one was killed at 24 GB past --timeout 60.
    Past SYSTEM_MAX_PARAMETERS the fiber keeps its dimension, counts and representatives, and
    says the systems are left out (the same values as with them)."""
    from semialgebraic.cli import main
    from semialgebraic.shallow import fiber as fiber_module
    from algebra import load
    net = load("algebra/examples/shallow_flip_set.json")
    full, lean = fiber_shallow(net), fiber_shallow(net, systems=False)
    assert (lean.dimension.value, lean.number_of_components, lean.number_of_orbits) == \
        (full.dimension.value, full.number_of_components, full.number_of_orbits)
    assert [c.label for c in lean.components] == [c.label for c in full.components]
    assert all(not c.equalities for c in lean.components) and any("not written out" in n for n in lean.notes)
    monkeypatch.setattr(fiber_module, "SYSTEM_MAX_PARAMETERS", 5)
    assert main(["fiber", "algebra/examples/shallow_flip_set.json"]) == 0
    out = capsys.readouterr().out
    assert "number of orbits: 2" in out and "not written out for 13 parameters" in out and " = 0" not in out


@pytest.mark.parametrize("example", ["masked_bottleneck", "t1_masked", "shallow_flip_set"])
def test_a_not_identifiable_certificate_proves_b_outside_the_orbit(example):
    """identify's "not identifiable" certificate claims more than "same function" (session 32's
    audit: with b = a and no steps it was VALID): b must also lie outside a's S1 + S2 orbit.
    b = a, and b = a permuted and positively rescaled (a valid S1/S2 path), are both refused."""
    from algebra import load
    from algebra.symmetries import Permute, Scale
    from semialgebraic.bottleneck import identifiability
    from semialgebraic.certificates import symmetry_path_certificate
    net = load(f"algebra/examples/{example}.json")
    v = (identifiability_shallow if net.depth == 2 else identifiability)(net)
    cert = jsonable(v.certificate)
    assert v.answer is False and "not identifiable" in cert["claim"]
    ok, why = verify(cert)
    assert ok and why.endswith("a is not identifiable")
    same = dict(cert, b=cert["a"], steps=[])
    same.pop("checkpoints", None)
    ok, why = verify(same)
    assert not ok and "is a permutation and positive rescaling of a" in why
    n1 = net.widths[1]
    steps = [Permute(0, list(reversed(range(n1)))), Scale(0, [Q(3)] + [Q(1)] * (n1 - 1))]
    moved = net
    for st in steps:
        moved = st.apply(moved)
    orbit = jsonable(symmetry_path_certificate(net, moved, steps))
    assert verify(orbit)[0]                              # the plain claim: same function, true
    orbit["claim"] = cert["claim"]
    ok, why = verify(orbit)
    assert not ok and "is a permutation and positive rescaling of a" in why


def test_fiber_takes_dims_proven_ends_on_opposite_rows():
    """Two neurons on one hyperplane with opposite orientations whose kinks add: the shallow
    fiber's own bounds were [2, 3] (exit 0, "non-generic") where dim's shared-kink cap and moves
    prove 2 (session 32's audit, checked by hand there)."""
    net = _net([["-10"], ["8/3"]], ["10", "-8/3"], [["15", "-1"]], ["-2"])
    F = fiber_shallow(net)
    assert F.dimension.exact and F.dimension.value == 2


def test_flip_sets_past_the_sums_of_two_halves_are_looked_for_in_windows():
    """R41 (I4) past 40 neurons and nullity 16: a 2-50-1 net of small integer weights (about 2^50
    subsets against ~10^8 sums: zero sums abound) was "undecided"; a flip set is now found among
    the subsets of windows of 30 neurons, exact, and the planted copy checked.  Windows only
    find: a net without a zero sum (kinks of distinct powers of 2) stays undecided, never
    "identifiable"."""
    from semialgebraic.shallow.identifiability import window_sums
    rng = random.Random(36)
    n, d = 50, 2
    W1 = [[rng.choice([i for i in range(-20, 21) if i]) for _ in range(d)] for _ in range(n)]
    b1 = [rng.randint(-5, 5) for _ in range(n)]
    V = [[rng.choice([i for i in range(-9, 10) if i]) for _ in range(n)]]
    net = _net(W1, b1, V, [0])
    v = identifiability_shallow(net)
    assert v.answer is False and v.reason.startswith("flip set [")
    S = [int(t) for t in v.reason[len("flip set ["):v.reason.index("]")].split(",")]
    assert all(sum(Q(V[0][i]) * W1[i][k] for i in S) == 0 for k in range(d))
    _checked(net, v, rng)
    kinks = [[Q(2) ** i * rng.choice([-1, 1]), Q(3) ** (i % 7) * rng.choice([-1, 1])]
             for i in range(n)]                     # the first coordinates: no zero sum
    assert window_sums(kinks) is None
    W1 = [[k[0], k[1]] for k in kinks]
    net2 = _net(W1, [rng.randint(-5, 5) for _ in range(n)], [[1] * n], [0])
    v2 = identifiability_shallow(net2)
    assert v2.answer is None and "no flip set among 8 windows of 30 neurons" in v2.reason


def test_r42_problems_past_the_sums_of_two_halves_are_looked_for_in_windows():
    """R42 with one opposite pair among 50 neurons of small integer weights: its 0/1 problems
    were left undecided past 40 hyperplanes; a solution in a window of 30 now gives the other
    realisation, checked as a planted copy."""
    rng = random.Random(42)
    n, d = 50, 3
    nz = [i for i in range(-20, 21) if i]
    W1 = [[rng.choice(nz) for _ in range(d)] for _ in range(n)]
    b1 = [rng.randint(-5, 5) for _ in range(n)]
    W1[n - 1] = [-2 * x for x in W1[n - 2]]                   # neurons 48, 49: one hyperplane,
    b1[n - 1] = -2 * b1[n - 2]                                # opposite orientations
    V = [[rng.choice([i for i in range(-9, 10) if i]) for _ in range(n)]]
    V[0][n - 1] = abs(V[0][n - 2])                            # kinks that add: v_i + 2 v_j != 0
    V[0][n - 2] = abs(V[0][n - 2])
    net = _net(W1, b1, V, [0])
    v = identifiability_shallow(net)
    assert v.answer is False and "R42" in v.reason, v.reason
    _checked(net, v, rng)
